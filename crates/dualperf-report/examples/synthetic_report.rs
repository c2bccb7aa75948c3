//! Writes the report of the SYNTHETIC run (made-up data, see
//! `dualperf_report::synthetic`) in every format, for looking at the layout:
//! `cargo run -p dualperf-report --example synthetic_report -- OUT_DIR`.

use dualperf_report::{render, render_comparison, synthetic, Format};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let directory = std::env::args().nth(1).unwrap_or_else(|| ".".to_string());
    let run = synthetic::synthetic_run();
    let after = synthetic::synthetic_run_after_upgrade();
    for format in [Format::Html, Format::Markdown, Format::Csv] {
        let path = format!("{directory}/synthetic.{}", format.extension());
        std::fs::write(&path, render(&run, format)?)?;
        let path_compare = format!("{directory}/synthetic-compare.{}", format.extension());
        std::fs::write(&path_compare, render_comparison(&run, &after, format)?)?;
        println!("{path}\n{path_compare}");
    }
    Ok(())
}

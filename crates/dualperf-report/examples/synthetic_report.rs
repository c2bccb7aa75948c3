//! Writes the report of the SYNTHETIC run (made-up data, see
//! `dualperf_fixtures::synthetic`) in every format, for looking at the layout:
//! `cargo run -p dualperf-report --example synthetic_report -- OUT_DIR`.
//! With `--tunnel`, the run has a third arm (IPv6 through a 6in4 tunnel
//! between the routers).

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test and example code: a failed unwrap is a failed run

use dualperf_fixtures::synthetic::{self, SyntheticLab};
use dualperf_model::{Arm, ArmId, ArmPath, IpFamily, TunnelPlacement};
use dualperf_report::{render, render_comparison, Format};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let directory = args.next().unwrap_or_else(|| ".".to_string());
    let tunnel = args.any(|a| a == "--tunnel");
    let run = if tunnel {
        let mut lab = SyntheticLab::default();
        lab.arms.push(Arm {
            id: ArmId::new("v6-6in4-router-router")?,
            label: "IPv6 via 6in4, router to router".to_string(),
            family: IpFamily::V6,
            path: ArmPath::SixInFour {
                placement: TunnelPlacement::RouterRouter,
            },
            marking: Default::default(),
            load: Default::default(),
            target: Some("fd00:2::2".to_string()),
        });
        lab.build()
    } else {
        synthetic::synthetic_run()
    };
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

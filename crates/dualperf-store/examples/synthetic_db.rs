//! Stores two SYNTHETIC runs (made-up data from `dualperf_fixtures::synthetic`,
//! not measurements) in a database, to try `dualperf history` and
//! `dualperf report` without a lab:
//! `cargo run -p dualperf-store --example synthetic_db -- /tmp/demo.sqlite`.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test and example code: a failed unwrap is a failed run

use dualperf_fixtures::synthetic::{synthetic_run, synthetic_run_after_upgrade};
use dualperf_store::Store;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: synthetic_db PATH")?;
    let mut store = Store::open(std::path::Path::new(&path))?;
    let before = synthetic_run();
    let after = synthetic_run_after_upgrade();
    for run in [&before, &after] {
        store.save_run(run)?;
        println!("stored {}", run.run_id);
    }
    store.set_notes(
        &after.run_id,
        Some("synthetic: after an imaginary kernel upgrade"),
    )?;
    Ok(())
}

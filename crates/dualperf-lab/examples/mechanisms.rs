//! Prints which implementation each transition mechanism would get on this
//! machine, as `dualperf doctor` does (needs root for the probe).

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test and example code: a failed unwrap is a failed run

use dualperf_lab::{mechanism, Capabilities, RunId, Runner};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let capabilities = Capabilities::probe_all(&Runner::new(false), &RunId::unique())?;
    for line in mechanism::support(&capabilities) {
        println!("{:<22} {}", line.label(), line.describe());
    }
    Ok(())
}

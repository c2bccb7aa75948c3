//! Prints which implementation each transition mechanism would get on this
//! machine, as `dualperf doctor` does (needs root for the probe).

use dualperf_lab::{mechanism, Capabilities, RunId, Runner};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let capabilities = Capabilities::probe_all(&Runner::new(false), &RunId::unique())?;
    for line in mechanism::support(&capabilities) {
        println!("{:<22} {}", line.label(), line.describe());
    }
    Ok(())
}

//! `dualperf run --verify-wire`: a capture on this host's interface
//! towards the server around the whole run, then a wire check of every
//! trial (crate::pipeline::verify_wire). The pcap lives in the temporary
//! folder for the run and is removed afterwards.

use dualperf_model::{RunConfig, RunResult};

use crate::pipeline::verify_wire::{self, capture, Capture, CaptureHost};

/// Starts the capture: exit code 3 without tcpdump, before anything is measured.
///
/// # Errors
/// tcpdump missing, no route to a target, or tcpdump not starting.
pub(super) fn start(config: &RunConfig) -> anyhow::Result<Capture> {
    verify_wire::require_tool()?;
    let mut interfaces: Vec<String> = Vec::new();
    for arm in &config.arms {
        if let Some(target) = &arm.target {
            let interface = capture::route_interface(None, target)?;
            if !interfaces.contains(&interface) {
                interfaces.push(interface);
            }
        }
    }
    // Arms leaving through different interfaces: capture on all of them.
    let interface = match interfaces.as_slice() {
        [one] => one.clone(),
        _ => "any".to_string(),
    };
    let pcap = std::env::temp_dir().join(format!("dualperf-wire-{}.pcap", std::process::id()));
    eprintln!("dualperf: --verify-wire: capturing on {interface} (tcpdump)");
    Capture::local(&interface, &pcap, config.port)
}

/// Stops the capture and checks every trial against it.
///
/// # Errors
/// When the pcap cannot be read.
pub(super) fn finish(capture: Capture, result: &mut RunResult) -> anyhow::Result<()> {
    let captured = capture.stop();
    let checked = verify_wire::verify(result, &captured, CaptureHost::Client);
    let _ = std::fs::remove_file(&captured.pcap);
    checked
}

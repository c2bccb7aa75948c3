//! `dualperf lab --verify-wire`: a capture in the server node (the
//! receiving end of forward tests) around the measuring child into
//! `wire.pcap` in the results folder, then a wire check of every trial
//! (crate::pipeline::verify_wire); the pcap (hundreds of MB for a battery)
//! is removed once its counts are in the result.

use std::path::Path;

use dualperf_lab::Testbed;
use dualperf_model::RunResult;

use crate::pipeline::verify_wire::{self, capture, Capture, CaptureHost, Captured};

/// Starts tcpdump in `server`: on its one interface, or on all of them
/// (`any`) when it has several.
///
/// # Errors
/// When tcpdump does not start capturing.
pub(super) fn start(
    testbed: &Testbed,
    server: &str,
    folder: &Path,
    control_port: u16,
) -> anyhow::Result<Capture> {
    let netns = testbed.netns(server)?;
    let interfaces = capture::interfaces(&netns);
    let interface = match interfaces.as_slice() {
        [one] => one.clone(),
        _ => "any".to_string(),
    };
    eprintln!("dualperf: --verify-wire: capturing on {interface} in node `{server}` (tcpdump)");
    Capture::in_node(
        testbed,
        server,
        &interface,
        &folder.join("wire.pcap"),
        control_port,
    )
}

/// Checks every trial of `result` against the capture.
///
/// # Errors
/// When the pcap cannot be read.
pub(super) fn check(result: &mut RunResult, captured: &Captured) -> anyhow::Result<()> {
    let checked = verify_wire::verify(result, captured, CaptureHost::Server);
    // Hundreds of MB for a battery; the counts are in result.json.
    let _ = std::fs::remove_file(&captured.pcap);
    checked
}

//! `--verify-wire` wiring: a `tcpdump` capture ([`capture`]) runs through
//! the whole measurement on the receiving side's interface in a lab (the
//! server node), or on the client host's interface towards the server with
//! `run`. Afterwards the pcap is handed to `dualperf-wire`, which reads,
//! decodes and checks it and attaches `Observations.wire` to every
//! successful trial (docs/metrics.md, "Wire verification"). The hot path is
//! untouched: the capture is another process.

pub(crate) mod capture;

use anyhow::Context;
use dualperf_model::RunResult;
use dualperf_wire::CaptureFacts;

pub(crate) use capture::{require_tool, Capture, Captured};
pub(crate) use dualperf_wire::CaptureHost;

/// Reads `captured`'s pcap and attaches a wire check to every successful
/// trial of `result`.
///
/// # Errors
/// When the pcap cannot be read.
pub(crate) fn verify(
    result: &mut RunResult,
    captured: &Captured,
    host: CaptureHost,
) -> anyhow::Result<()> {
    let bytes = std::fs::read(&captured.pcap)
        .with_context(|| format!("reading the capture {}", captured.pcap.display()))?;
    let facts = CaptureFacts {
        interface: captured.interface.clone(),
        host,
        dropped: captured.dropped,
    };
    dualperf_wire::verify(result, &bytes, &facts)
        .with_context(|| format!("reading the capture {}", captured.pcap.display()))
}

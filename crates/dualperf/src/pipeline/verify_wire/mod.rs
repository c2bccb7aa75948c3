//! `--verify-wire`: prove on the wire what was measured.
//!
//! A `tcpdump` capture ([`capture`]) runs through the whole measurement on
//! the receiving side's interface in a lab (the server node), or on the
//! client host's interface towards the server with `run`. Afterwards the
//! pcap is read ([`pcap`], [`decode`]) and split into the trials by each
//! trial's server data port and start time ([`check`]); each successful
//! trial gets `Observations.wire`: packets and bytes by family, DSCP, flow
//! label, fragments and encapsulation, and for udp-stream the measured
//! datagrams (told from warm-up ones by the dualperf header) against the
//! engine's count, within 0.1 % (docs/metrics.md, "Wire verification").
//! The hot path is untouched: the capture is another process.

pub(crate) mod capture;
pub(crate) mod check;
pub(crate) mod decode;
pub(crate) mod pcap;

use anyhow::Context;
use dualperf_model::RunResult;

pub(crate) use capture::{require_tool, Capture, Captured};
pub(crate) use check::CaptureHost;

/// Reads `captured`'s pcap and attaches a wire check to every successful
/// trial of `result`; a note in the result says where the capture ran.
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
    let file = pcap::Pcap::new(bytes)
        .with_context(|| format!("reading the capture {}", captured.pcap.display()))?;
    let records = file.records();
    let packets: Vec<(i64, decode::Packet<'_>)> = records
        .iter()
        .filter_map(|r| decode::decode(r.l3).map(|p| (r.time_ns, p)))
        .collect();
    check::attach(
        result,
        &packets,
        &check::CaptureFacts {
            interface: captured.interface.clone(),
            host,
            dropped: captured.dropped,
        },
    );
    Ok(())
}

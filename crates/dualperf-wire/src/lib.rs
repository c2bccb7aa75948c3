//! Wire verification (`--verify-wire`): prove on the wire what was
//! measured. The binary runs a `tcpdump` capture through the measurement
//! and hands this crate the pcap bytes; this crate reads them ([`pcap`],
//! with `pcap-file`), decodes each packet into a typed view ([`packet`],
//! with `etherparse`) and splits the packets into the run's trials by each
//! trial's server data port and start time ([`check`]); each successful
//! trial gets `Observations.wire`: packets and bytes by family, DSCP, flow
//! label, fragments and encapsulation, and for udp-stream the measured
//! datagrams (told from warm-up ones by the dualperf header,
//! [`dualperf_model::datagram`]) against the engine's count, within 0.1 %
//! (docs/metrics.md, "Wire verification").
//!
//! Pure: bytes and a `RunResult` in, the result's wire checks out; no
//! processes, no files, no clock. Depends on the model only.

pub mod check;
mod error;
#[cfg(test)]
mod fixtures;
pub mod packet;
pub mod pcap;
#[cfg(test)]
mod tshark_tests;

use dualperf_model::RunResult;

pub use check::{attach, findings, CaptureFacts, CaptureHost};
pub use error::WireError;
pub use packet::{decode, Encapsulation, Fragment, Packet, Protocol, Transport};

/// Reads the pcap file in `bytes` and attaches a wire check to every
/// successful trial of `result`.
///
/// # Errors
/// When the bytes are not a pcap file of a supported link layer.
pub fn verify(result: &mut RunResult, bytes: &[u8], facts: &CaptureFacts) -> Result<(), WireError> {
    let capture = pcap::read(bytes)?;
    let packets: Vec<(i64, Packet<'_>)> = capture
        .records
        .iter()
        .filter_map(|r| packet::decode(r.l3).map(|p| (r.time_ns, p)))
        .collect();
    check::attach(result, &packets, facts);
    Ok(())
}

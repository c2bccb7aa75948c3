//! udp-probe: an isochronous probe stream (RFC 3432 periodic sampling), one
//! datagram every `interval` (default 10 ms of 172 B: a G.711 voice cadence).
//!
//! Every probe carries the udp-stream header ([`crate::datagram`]): its
//! sequence number and CLOCK_REALTIME read immediately before its own
//! `send(2)` (not once per batch as in udp-stream), so one-way delay is
//! `receive − send` of that very datagram when the two ends share a clock.
//!
//! Probes are due on an absolute schedule (`start + k·interval` on the
//! monotonic clock): a sender that wakes late sends at once and keeps the
//! schedule, so probe `k` of the measured interval is always due at
//! `k·interval` after the measurement began ([`probe_interval_index`] relies
//! on that). The receiver is the udp-stream receiver with a raw-arrival
//! bound large enough for a whole probe stream ([`PROBE_ARRIVALS_LIMIT`]).

use std::net::UdpSocket;
use std::time::Duration;

use super::cadence::{lost_at_sender, Cadence, Numbering, Tick};
use super::{FlowContext, FlowOutput};
use crate::clock::realtime_ns;
use crate::datagram::{write_header, Header};

/// Raw arrivals kept per probe stream: 100 probes/s for 60 s, with room to spare.
pub const PROBE_ARRIVALS_LIMIT: usize = 20_000;

/// Default probe interval, microseconds (10 ms: 100 probes per second).
pub const DEFAULT_INTERVAL_US: u64 = 10_000;

/// Shortest probe interval accepted, microseconds (1 ms: 1000 probes/s).
pub const MIN_INTERVAL_US: u64 = 1_000;

/// Sends one `payload_bytes` probe every `interval` on a connected socket
/// until the phase is done (`cadence::Cadence`); warm-up probes carry
/// [`crate::datagram::FLAG_WARMUP`] and their
/// own sequence, measured probes count from 0.
pub fn send(
    socket: UdpSocket,
    payload_bytes: usize,
    interval: Duration,
    context: FlowContext,
) -> FlowOutput {
    let mut buffer = vec![0u8; payload_bytes];
    let mut output = FlowOutput::default();
    let mut numbering = Numbering::default();
    // The measured schedule restarts when the measured stage begins.
    let mut cadence = Cadence::new(interval);
    while cadence.wait(&context) == Tick::Due {
        let measuring = cadence.measuring();
        let (sequence, flags) = numbering.next(measuring);
        let sent_ns = realtime_ns();
        write_header(
            &mut buffer,
            Header {
                sequence,
                sent_ns,
                flags,
            },
        );
        cadence.advance();
        match socket.send(&buffer) {
            Ok(_) => {}
            // A full queue or a refused port (ICMP) loses this probe: the
            // receiver counts it lost, the sequence still advances.
            Err(error) if lost_at_sender(&error) => {}
            Err(error) => {
                if !context.phase.is_halted() {
                    output.error = Some(format!("udp-probe send: {error}"));
                }
                break;
            }
        }
        numbering.count(measuring);
        if measuring {
            context.meter.add_sent(payload_bytes as u64, 1);
        }
    }
    output.udp_sent = numbering.measured;
    output
}

/// Receives probes: the udp-stream receiver with [`PROBE_ARRIVALS_LIMIT`].
pub fn receive(socket: UdpSocket, payload_bytes: usize, context: FlowContext) -> FlowOutput {
    super::udp_stream::receive_keeping(socket, payload_bytes, PROBE_ARRIVALS_LIMIT, context)
}

/// Index of the sampling interval in which probe `sequence` was due:
/// probes are sent on an absolute schedule from the start of the measured
/// interval, so probe `k` belongs to interval `⌊k · probe / sample⌋`.
pub fn probe_interval_index(sequence: u64, probe_interval_us: u64, sample_interval_ms: u64) -> u64 {
    let sample_us = sample_interval_ms.max(1) * 1000;
    sequence.saturating_mul(probe_interval_us) / sample_us
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ten_millisecond_probes_fill_hundred_millisecond_intervals_ten_at_a_time() {
        assert_eq!(probe_interval_index(0, 10_000, 100), 0);
        assert_eq!(probe_interval_index(9, 10_000, 100), 0);
        assert_eq!(probe_interval_index(10, 10_000, 100), 1);
        assert_eq!(probe_interval_index(25, 10_000, 10), 25);
    }
}

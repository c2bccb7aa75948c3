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
use std::time::{Duration, Instant};

use super::{FlowContext, FlowOutput};
use crate::clock::realtime_ns;
use crate::datagram::{write_header, Header, FLAG_WARMUP};
use crate::meter::Stage;

/// Raw arrivals kept per probe stream: 100 probes/s for 60 s, with room to spare.
pub const PROBE_ARRIVALS_LIMIT: usize = 20_000;

/// Default probe interval, microseconds (10 ms: 100 probes per second).
pub const DEFAULT_INTERVAL_US: u64 = 10_000;

/// Shortest probe interval accepted, microseconds (1 ms: 1000 probes/s).
pub const MIN_INTERVAL_US: u64 = 1_000;

/// Sends one `payload_bytes` probe every `interval` on a connected socket
/// until the phase is done; warm-up probes carry [`FLAG_WARMUP`] and their
/// own sequence, measured probes count from 0.
pub fn send(
    socket: UdpSocket,
    payload_bytes: usize,
    interval: Duration,
    context: FlowContext,
) -> FlowOutput {
    let mut buffer = vec![0u8; payload_bytes];
    let mut output = FlowOutput::default();
    let (mut warmup_sequence, mut measured_sequence) = (0u64, 0u64);
    // The measured schedule restarts when the measured stage begins.
    let mut origin = Instant::now();
    let mut due_index = 0u64;
    let mut measuring = false;
    loop {
        let stage = context.phase.get();
        if stage == Stage::Done || Instant::now() >= context.deadline {
            break;
        }
        if stage != Stage::Warmup && !measuring {
            measuring = true;
            origin = Instant::now();
            due_index = 0;
        }
        let due = origin + interval * due_index as u32;
        let now = Instant::now();
        if due > now {
            // Short sleeps so a phase change is seen within a millisecond.
            std::thread::sleep((due - now).min(Duration::from_millis(1)));
            continue;
        }
        let (sequence, flags) = match measuring {
            false => (warmup_sequence, FLAG_WARMUP),
            true => (measured_sequence, 0),
        };
        let sent_ns = realtime_ns();
        write_header(
            &mut buffer,
            Header {
                sequence,
                sent_ns,
                flags,
            },
        );
        due_index += 1;
        match socket.send(&buffer) {
            Ok(_) => {}
            // A full queue or a refused port (ICMP) loses this probe: the
            // receiver counts it lost, the sequence still advances.
            Err(error)
                if matches!(
                    error.raw_os_error(),
                    Some(libc::ENOBUFS | libc::EAGAIN | libc::EINTR | libc::ECONNREFUSED)
                ) => {}
            Err(error) => {
                if !context.phase.is_halted() {
                    output.error = Some(format!("udp-probe send: {error}"));
                }
                break;
            }
        }
        match measuring {
            false => warmup_sequence += 1,
            true => {
                measured_sequence += 1;
                context.meter.add_sent(payload_bytes as u64, 1);
            }
        }
    }
    output.udp_sent = measured_sequence;
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

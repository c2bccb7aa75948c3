//! Data paths, shared by both ends: whichever end sends runs the sender,
//! whichever receives runs the receiver (`--reverse` swaps them).
//!
//! | kind | client | server |
//! |---|---|---|
//! | tcp-stream | [`tcp_stream::send`] or [`tcp_stream::receive`] | the other one |
//! | udp-stream | [`udp_stream::send`] or [`udp_stream::receive`] | the other one |
//! | udp-probe | [`udp_probe::send`] or [`udp_probe::receive`] | the other one |
//! | media | [`media::send`] or [`media::receive`] | the other one |
//! | tcp-rr | [`rr::tcp_request`] | [`rr::tcp_respond`] |
//! | udp-rr | [`rr::udp_request`] | [`rr::udp_respond`] |
//! | tcp-connect | [`connect::connect_repeatedly`] | [`connect::accept_repeatedly`] |
//!
//! Each flow runs on its own thread ([`spawn_flow`]), pinned if asked,
//! counts into its [`FlowMeter`] and watches the shared [`Phase`].

mod cadence;
pub(crate) use cadence::lost_at_sender;
pub mod connect;
pub mod media;
pub mod rr;
pub mod tcp_stream;
pub mod udp_probe;
pub mod udp_stream;

use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use dualperf_model::TcpCounters;

use crate::affinity::pin_current_thread;
use crate::latency_recorder::LatencyRecorder;
use crate::meter::{FlowMeter, Phase};
use crate::sequence_tracker::SequenceTracker;

/// Bound on raw latency samples kept per trial.
pub const LATENCY_RAW_LIMIT: usize = 10_000;
/// Bound on raw UDP arrivals kept per stream.
pub const ARRIVALS_LIMIT: usize = 2_000;
/// How long a UDP receiver waits after the end for late datagrams before
/// counting the missing ones as lost (RFC 7680 waiting time), milliseconds.
/// It stops earlier once the socket has been quiet for [`QUIET`].
pub const LOSS_WAIT_MS: u64 = 2_000;
/// Silence after the end that ends a receiver's drain.
pub const QUIET: Duration = Duration::from_millis(100);
/// Send buffer requested for UDP data sockets, bytes (4 MiB).
pub const UDP_BUFFER_BYTES: u32 = 4 << 20;
/// Receive buffer requested for a UDP data socket carrying `payload_bytes`
/// datagrams: room for about 4096 datagrams (each costs its payload plus
/// about 1 KiB of skb overhead), at least 16 MiB and at most 64 MiB. A 64-byte
/// stream gets 16 MiB, some 100 ms at the kernel's packet rate on a small VM:
/// a receiver thread descheduled for a while must not overflow and invent
/// loss (the receive queue is the tool's, not the path's).
pub fn udp_receive_buffer_bytes(payload_bytes: u32) -> u32 {
    (4096u64 * (u64::from(payload_bytes) + 1024)).clamp(16 << 20, 64 << 20) as u32
}

/// What every flow thread shares with its end.
#[derive(Clone, Debug)]
pub struct FlowContext {
    /// Stage of the test.
    pub phase: Arc<Phase>,
    /// This flow's counters.
    pub meter: Arc<FlowMeter>,
    /// CPUs to pin to (empty: unpinned).
    pub cpus: Vec<u32>,
    /// Hard stop, whatever happens: the schedule plus a grace period.
    pub deadline: Instant,
    /// This sender's share of the trial's send budget, in blocks (writes or
    /// datagrams of the measured interval); `None`: the clock ends the
    /// trial. A sender that has sent its share stops and tells the phase
    /// ([`crate::meter::Phase::sender_spent`]); so does the receiver of a
    /// budgeted reverse udp-stream once the last datagram of the server's
    /// share arrived ([`crate::endpoint::receives_a_budget`]).
    pub budget_blocks: Option<u64>,
}

/// What a flow hands back when it ends.
#[derive(Default)]
pub struct FlowOutput {
    /// TCP_INFO of the socket at the end (TCP senders and rr clients).
    pub tcp: Option<TcpCounters>,
    /// Measured datagrams sent (UDP senders).
    pub udp_sent: u64,
    /// Payload bytes a budgeted TCP sender wrote in the measured stage,
    /// counted by the sender itself (exact, unlike the sampler's window,
    /// which may catch a write of the warm-up); `None` without a budget.
    pub budget_sent_bytes: Option<u64>,
    /// Sequence tracker (UDP receivers), finished by the caller once the sender's count is known.
    pub tracker: Option<SequenceTracker>,
    /// How receive timestamps were taken (UDP receivers).
    pub timestamp_source: Option<&'static str>,
    /// Transaction times (rr and connect clients).
    pub latency: Option<LatencyRecorder>,
    /// Transactions that got no answer (udp-rr) or connections that failed (tcp-connect).
    pub lost: u64,
    /// Why the flow failed, if it did: the trial fails with it.
    pub error: Option<String>,
    /// Datagrams the receiving socket dropped because its buffer was full
    /// (SO_RXQ_OVFL) during the measured interval; `None` where the kernel does not tell.
    pub receive_buffer_drops: Option<u64>,
    /// Something worth knowing that does not invalidate the trial.
    pub note: Option<String>,
    /// How a paced sender kept its schedule (paced UDP senders).
    pub pacer: Option<dualperf_model::PacerSchedule>,
    /// Payload bytes of the distinct measured datagrams received, however
    /// late after the end (UDP receivers; the bytes of `tracker`'s count).
    pub received_bytes: u64,
    /// Received bytes per interval by arrival time (stream receivers whose
    /// kernel stamps every packet; [`crate::meter::arrivals`]).
    pub arrivals: Option<crate::meter::ArrivalSeries>,
}

/// The schedules of several paced senders as one: the longest stall of
/// any, the datagrams owed and sent by all; `None` when none was paced.
pub fn merge_pacer_schedules<'a>(
    schedules: impl IntoIterator<Item = &'a dualperf_model::PacerSchedule>,
) -> Option<dualperf_model::PacerSchedule> {
    schedules.into_iter().fold(None, |total, next| {
        let total = total.unwrap_or_default();
        Some(dualperf_model::PacerSchedule {
            longest_stall_ns: total.longest_stall_ns.max(next.longest_stall_ns),
            owed_datagrams: total.owed_datagrams + next.owed_datagrams,
            sent_datagrams: total.sent_datagrams + next.sent_datagrams,
        })
    })
}

/// Runs `body` on a new named thread, pinned to `cpus` first if non-empty.
pub fn spawn_flow(
    name: String,
    cpus: Vec<u32>,
    body: impl FnOnce() -> FlowOutput + Send + 'static,
) -> JoinHandle<FlowOutput> {
    std::thread::Builder::new()
        .name(name)
        .spawn(move || {
            if !cpus.is_empty() {
                if let Err(error) = pin_current_thread(&cpus) {
                    return FlowOutput {
                        error: Some(format!("pinning to CPUs {cpus:?}: {error}")),
                        ..Default::default()
                    };
                }
            }
            body()
        })
        .expect("spawning a thread only fails when the process is out of resources")
}

/// Joins flow threads; a panicked flow becomes an error output, never a panic here.
pub fn join_flows(handles: Vec<JoinHandle<FlowOutput>>) -> Vec<FlowOutput> {
    handles
        .into_iter()
        .map(|handle| {
            handle.join().unwrap_or_else(|_| FlowOutput {
                error: Some("flow thread panicked".into()),
                ..Default::default()
            })
        })
        .collect()
}

/// Sums TCP_INFO counters over streams; the per-connection gauges (RTT,
/// MSS, cwnd) keep the first stream's value.
pub fn sum_tcp_counters(outputs: &[FlowOutput]) -> Option<TcpCounters> {
    let mut counters = outputs.iter().filter_map(|o| o.tcp);
    let mut total = counters.next()?;
    for next in counters {
        total.segments_sent += next.segments_sent;
        total.segments_retransmitted += next.segments_retransmitted;
        total.bytes_retransmitted += next.bytes_retransmitted;
        total.bytes_sent += next.bytes_sent;
    }
    Some(total)
}

/// The first flow error, if any.
pub fn first_error(outputs: &[FlowOutput]) -> Option<String> {
    outputs.iter().find_map(|o| o.error.clone())
}

/// True for errors that mean "try again" on a socket with a timeout.
pub(crate) fn is_timeout(error: &std::io::Error) -> bool {
    matches!(
        error.kind(),
        std::io::ErrorKind::WouldBlock
            | std::io::ErrorKind::TimedOut
            | std::io::ErrorKind::Interrupted
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tcp_counters_add_up_over_streams() {
        let one = TcpCounters {
            segments_sent: 10,
            segments_retransmitted: 1,
            smoothed_rtt_us: 50,
            ..Default::default()
        };
        let two = TcpCounters {
            segments_sent: 5,
            segments_retransmitted: 2,
            smoothed_rtt_us: 70,
            ..Default::default()
        };
        let outputs = [
            FlowOutput {
                tcp: Some(one),
                ..Default::default()
            },
            FlowOutput::default(),
            FlowOutput {
                tcp: Some(two),
                ..Default::default()
            },
        ];
        let total = sum_tcp_counters(&outputs).unwrap();
        assert_eq!(
            (
                total.segments_sent,
                total.segments_retransmitted,
                total.smoothed_rtt_us
            ),
            (15, 3, 50)
        );
    }
}

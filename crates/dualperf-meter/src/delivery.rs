//! Every delivery metric of one stream from one pass over its arrivals: the
//! sequence observer, RFC 3550 jitter and the delay accumulators wired the
//! way the RFCs say each metric sees the stream — and [`replay`], the same
//! observers run over a stored trace (what dualperf-stats needs).
//!
//! Order of operations, per arrival:
//!
//! 1. the sequence observer classifies it ([`Arrived`]): duplicates and
//!    arrivals outside the window go no further (RFC 4737 §3.3);
//! 2. every first copy, late or not, enters the RFC 3550 jitter (it did arrive);
//! 3. first copies within the waiting time (and, when the sender's count is
//!    known in advance, numbered below it) enter the one-way delay / PDV and
//!    IPDV accumulators (RFC 7679 §3.4: a lost packet has no delay).

use dualperf_model::observation::Arrival;

use crate::delay::{DelayObserver, DelaySummary, IpdvObserver, DEFAULT_IPDV_WINDOW};
use crate::jitter::InterarrivalJitter;
use crate::sequence::{Arrived, SequenceConfig, SequenceCounts, SequenceObserver, DEFAULT_WINDOW};

/// How a [`DeliveryObserver`] is set up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeliveryConfig {
    /// The sequence observer's window, jump limit, extent window and waiting time.
    pub sequence: SequenceConfig,
    /// Raw delay values kept for exact percentiles (8 bytes each, twice:
    /// delay and |IPDV|); beyond it percentiles come from the histograms.
    pub delay_samples: usize,
    /// Sequence numbers the IPDV pairing remembers (16 bytes each).
    pub ipdv_window: usize,
    /// The sender's count when known before the arrivals (a replay):
    /// arrivals numbered at or above it take no part in the delay metrics.
    pub expected: Option<u64>,
    /// Both ends read one clock (same host or kernel) or synchronised clocks:
    /// the one-way delay itself is reported. PDV, IPDV and jitter are
    /// reported either way (a constant offset cancels).
    pub clocks_shared: bool,
}

impl Default for DeliveryConfig {
    fn default() -> Self {
        DeliveryConfig {
            sequence: SequenceConfig::default(),
            delay_samples: 0,
            ipdv_window: DEFAULT_IPDV_WINDOW,
            expected: None,
            clocks_shared: false,
        }
    }
}

/// The delivery metrics of one stream.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DeliveryMetrics {
    /// Received, duplicates, reordering, late, loss and loss episodes.
    pub counts: SequenceCounts,
    /// RFC 3550 jitter at the end of the stream, ns; `None` before two first copies.
    pub jitter_ns: Option<f64>,
    /// RFC 7679 one-way delay; `None` unless the clocks are shared.
    pub one_way_delay: Option<DelaySummary>,
    /// RFC 5481 PDV `D(i) − D(min)`.
    pub pdv: Option<DelaySummary>,
    /// RFC 3393 IPDV as the distribution of `|D(i) − D(i−1)|`.
    pub ipdv_absolute: Option<DelaySummary>,
}

impl DeliveryMetrics {
    /// RFC 8219 §5 PDV summary `D(99.9th percentile) − D(min)`, ns.
    pub fn pdv_999_ns(&self) -> Option<f64> {
        self.pdv.map(|pdv| pdv.p999_ns)
    }
}

/// The sequence observer, jitter and delay accumulators of one stream.
#[derive(Clone, Debug)]
pub struct DeliveryObserver {
    sequence: SequenceObserver,
    jitter: InterarrivalJitter,
    delay: DelayObserver,
    ipdv: IpdvObserver,
    expected: Option<u64>,
    clocks_shared: bool,
}

impl DeliveryObserver {
    /// Allocates everything now (see [`DeliveryObserver::memory_bytes`]), nothing afterwards.
    pub fn new(config: DeliveryConfig) -> DeliveryObserver {
        DeliveryObserver {
            sequence: SequenceObserver::new(config.sequence),
            jitter: InterarrivalJitter::new(),
            delay: DelayObserver::new(config.delay_samples),
            ipdv: IpdvObserver::new(config.ipdv_window, config.delay_samples),
            expected: config.expected,
            clocks_shared: config.clocks_shared,
        }
    }

    /// Accounts one arrival in arrival order (sequence number, sender's and
    /// receiver's timestamps in ns) and says what it was.
    #[inline]
    pub fn observe(&mut self, sequence: u64, sent_ns: i64, received_ns: i64) -> Arrived {
        let arrived = self.sequence.observe(sequence, sent_ns, received_ns);
        if arrived.is_first_copy() {
            self.jitter.observe(sent_ns, received_ns);
            if arrived.is_in_time() && self.expected.is_none_or(|e| sequence < e) {
                let transit_ns = received_ns.wrapping_sub(sent_ns);
                self.delay.observe(transit_ns);
                self.ipdv.observe(sequence, transit_ns);
            }
        }
        arrived
    }

    /// The sequence observer (for running counts).
    pub fn sequence(&self) -> &SequenceObserver {
        &self.sequence
    }

    /// The jitter so far.
    pub fn jitter(&self) -> &InterarrivalJitter {
        &self.jitter
    }

    /// The one-way delays (transit times) so far.
    pub fn delay(&self) -> &DelayObserver {
        &self.delay
    }

    /// The IPDV pairs so far.
    pub fn ipdv(&self) -> &IpdvObserver {
        &self.ipdv
    }

    /// Heap bytes held (fixed at construction).
    pub fn memory_bytes(&self) -> usize {
        self.sequence.memory_bytes() + self.delay.memory_bytes() + self.ipdv.memory_bytes()
    }

    /// The metrics for a sender that reports `sent` datagrams (call after
    /// the waiting time); the observer can go on afterwards.
    pub fn metrics(&self, sent: u64) -> DeliveryMetrics {
        DeliveryMetrics {
            counts: self.sequence.counts(sent),
            jitter_ns: self.jitter.current_ns(),
            one_way_delay: self.clocks_shared.then(|| self.delay.summary()).flatten(),
            pdv: self.delay.variation_summary(),
            ipdv_absolute: self.ipdv.absolute_summary(),
        }
    }
}

/// The choices a replay of a stored trace needs (dualperf-stats fills them
/// from a trial's recorded waiting time and clock facts).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReplayParameters {
    /// RFC 7680 waiting time, ns (dualperf's default: 2 s). Applied only
    /// when `clocks_shared`: it compares a receive time with a send time.
    pub waiting_time_ns: i64,
    /// Send and receive timestamps come from one clock or synchronised clocks.
    pub clocks_shared: bool,
}

impl Default for ReplayParameters {
    fn default() -> Self {
        ReplayParameters {
            waiting_time_ns: DEFAULT_WAITING_TIME_NS,
            clocks_shared: false,
        }
    }
}

/// dualperf's default loss waiting time: 2 s, in nanoseconds.
pub const DEFAULT_WAITING_TIME_NS: i64 = 2_000_000_000;

/// Largest window a replay sizes itself to: 2²² sequence numbers (two
/// bitmaps of 512 KiB, for the duration of the call).
pub const REPLAY_MAX_WINDOW: u64 = 1 << 22;

/// Largest IPDV ring a replay sizes itself to: 2¹⁸ sequence numbers (4 MiB,
/// for the duration of the call).
pub const REPLAY_MAX_IPDV_WINDOW: u64 = 1 << 18;

/// Replays a stored trace (arrivals in the order the receiver took them,
/// sequence numbers `0..sent` sent) through the observers.
///
/// The windows are sized to the trace (its highest sequence number, at least
/// [`DEFAULT_WINDOW`], at most [`REPLAY_MAX_WINDOW`]) and jumps are not
/// limited, so every stored arrival counts and the percentiles are exact:
/// the result equals the whole-trace computation that dualperf-stats used
/// before this crate existed (proved bit for bit on 11,000 traces, see the
/// stats crate's `ippm` module history) on any
/// trace whose sequence numbers stay below [`REPLAY_MAX_IPDV_WINDOW`] (and
/// on larger ones too, unless they are reordered across that many sequence
/// numbers or exceed [`REPLAY_MAX_WINDOW`]; `u64::MAX` is reserved by the
/// observer and ignored).
pub fn replay(arrivals: &[Arrival], sent: u64, parameters: ReplayParameters) -> DeliveryMetrics {
    let highest = arrivals.iter().map(|a| a.sequence).max().unwrap_or(0);
    let span = highest.max(sent).saturating_add(1);
    let window = span
        .next_power_of_two()
        .clamp(DEFAULT_WINDOW, REPLAY_MAX_WINDOW);
    let config = DeliveryConfig {
        sequence: SequenceConfig {
            window,
            max_jump: u64::MAX,
            extent_window: arrivals.len().max(1),
            waiting_time_ns: parameters
                .clocks_shared
                .then_some(parameters.waiting_time_ns),
        },
        delay_samples: arrivals.len(),
        ipdv_window: window.min(REPLAY_MAX_IPDV_WINDOW) as usize,
        expected: Some(sent),
        clocks_shared: parameters.clocks_shared,
    };
    let mut observer = DeliveryObserver::new(config);
    for arrival in arrivals {
        observer.observe(arrival.sequence, arrival.sent_ns, arrival.received_ns);
    }
    observer.metrics(sent)
}

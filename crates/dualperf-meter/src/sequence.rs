//! The sequence observer: received, duplicates, reordering (RFC 4737), loss
//! and loss episodes (RFC 7680, RFC 3357) of one numbered datagram stream,
//! fed one arrival at a time, in bounded memory.
//!
//! # What it keeps
//!
//! * `NextExp` (RFC 4737 §3.3): one above the highest sequence number seen.
//! * Two bitmaps of [`SequenceConfig::window`] bits, a ring over the sequence
//!   numbers `[NextExp − window, NextExp)`: *seen* (a first copy arrived) and
//!   *in time* (it arrived within the waiting time). They detect duplicates
//!   exactly and hold the loss state of the most recent sequence numbers.
//! * When `NextExp` advances, the sequence numbers that leave the window are
//!   *settled*: an unseen or late one is lost for good and extends the current
//!   loss run; a received one closes it. Only counters survive (lost, loss
//!   episodes, longest episode, a histogram of episode lengths), so the memory
//!   is the same whatever the stream's length or its sequence numbers.
//! * The last [`SequenceConfig::extent_window`] in-order arrivals
//!   ("breakpoints": sequence number, arrival position) for the RFC 4737
//!   §4.2.1 reordering extent.
//!
//! # Sequence numbers outside the window (issue 16, memory amplification)
//!
//! Sequence numbers come off the wire and may be garbage or hostile. None of
//! them makes the observer allocate:
//!
//! * **More than [`SequenceConfig::max_jump`] above `NextExp`** (and the
//!   reserved value `u64::MAX`): a protocol violation. The datagram is counted
//!   in [`SequenceCounts::too_far_ahead`] and otherwise ignored, so one
//!   corrupt datagram cannot move `NextExp` and turn the rest of the stream
//!   into "reordered" packets.
//! * **A jump within `max_jump`**: the window slides; every sequence number
//!   jumped over is lost (it settles as unseen when it leaves the window, or
//!   at once when the jump is longer than the window). Cost: at most
//!   `window / 64` word operations, whatever the jump.
//! * **Below the window** (`s < NextExp − window`): too old to tell a late
//!   first copy from a duplicate. Counted in [`SequenceCounts::behind_window`]
//!   and ignored; if it was a first copy, its sequence number was already
//!   settled as lost — RFC 7680's rule for a packet that arrives after the
//!   waiting time, with the window as the waiting time in sequence space.
//!
//! 256 datagrams whose sequence numbers jump by 2²⁴ each therefore cost
//! nothing but counting (a test in `tests/bounded_memory.rs` checks that
//! no byte is allocated after construction).
//!
//! # Definitions
//!
//! * **Duplicate**: a sequence number already seen (RFC 5560 counts the same
//!   way: three copies are two duplicates). Duplicates take no part in any
//!   other metric (RFC 4737 §3.3).
//! * **Reordered** (RFC 4737 §3.3): a first copy with `s < NextExp`;
//!   otherwise `NextExp = s + 1`. One early packet makes every packet it
//!   overtook reordered (4, 1, 2, 3 has three).
//! * **Reordering extent** (RFC 4737 §4.2.1): for a reordered packet at
//!   arrival position `j` (positions count first copies from 0), `j − i`
//!   where `i` is the earliest position of a packet with a larger sequence
//!   number. Exact when that packet is among the last `extent_window`
//!   in-order arrivals, otherwise a lower bound, counted in
//!   [`SequenceCounts::extent_truncated`].
//! * **Late** (RFC 7680 §2.8): a first copy whose one-way delay
//!   `received − sent` exceeds the waiting time, when one is configured
//!   (it needs comparable clocks). It is received for reordering and jitter
//!   ("it did arrive") but lost for loss.
//! * **Lost** (RFC 7680 §3): a sequence number below the sender's count
//!   `sent` with no first copy in time. Computed when the sender's count is
//!   known ([`SequenceObserver::counts`]).
//! * **Loss episode** (RFC 3357's loss period): a maximal run of consecutive
//!   lost sequence numbers; a late packet joins its neighbours' run.

use std::collections::VecDeque;

mod episodes;
pub use episodes::LossEpisodes;
use episodes::{span_mask, Runs};

/// Default reordering / duplicate window: 2¹⁶ = 65 536 sequence numbers
/// (two bitmaps of 8 KiB). A datagram overtaken by more sequence numbers than
/// this is settled as lost before it arrives.
pub const DEFAULT_WINDOW: u64 = 1 << 16;

/// Default largest accepted jump above `NextExp`: 2²⁴ ≈ 16.8 million
/// sequence numbers (about 100 s at the fastest rate dualperf reaches on a
/// small VM). Larger jumps are protocol violations.
pub const DEFAULT_MAX_JUMP: u64 = 1 << 24;

/// Default number of in-order arrivals remembered for the reordering extent
/// (4096 × 16 bytes = 64 KiB).
pub const DEFAULT_EXTENT_WINDOW: usize = 4096;

/// Smallest window: one 64-bit word.
pub const MIN_WINDOW: u64 = 64;

/// Largest window: 2³² sequence numbers (two bitmaps of 512 MiB). Larger
/// requests are clamped to it.
pub const MAX_WINDOW: u64 = 1 << 32;

/// Buckets of [`LossEpisodes::length_histogram`]: bucket `k` counts episodes
/// of length `2^k ..= 2^(k+1) − 1`; the last bucket also holds everything longer.
pub const EPISODE_LENGTH_BUCKETS: usize = 16;

/// The choices the RFCs leave open, and the memory bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SequenceConfig {
    /// Reordering / duplicate window, sequence numbers. Rounded up to a power
    /// of two within [`MIN_WINDOW`]`..=`[`MAX_WINDOW`]. Memory: `window / 4` bytes.
    pub window: u64,
    /// Largest accepted jump above `NextExp`, sequence numbers; beyond it an
    /// arrival is a protocol violation ([`SequenceCounts::too_far_ahead`]).
    pub max_jump: u64,
    /// In-order arrivals remembered for the exact reordering extent (at
    /// least 1). Memory: 16 bytes each.
    pub extent_window: usize,
    /// RFC 7680 waiting time, nanoseconds: a first copy with
    /// `received − sent` above it is late, hence lost. `None` when the two
    /// clocks are not comparable (then only missing datagrams are lost), or
    /// when the caller enforces the waiting time by when it stops receiving.
    pub waiting_time_ns: Option<i64>,
}

impl Default for SequenceConfig {
    fn default() -> Self {
        SequenceConfig {
            window: DEFAULT_WINDOW,
            max_jump: DEFAULT_MAX_JUMP,
            extent_window: DEFAULT_EXTENT_WINDOW,
            waiting_time_ns: None,
        }
    }
}

impl SequenceConfig {
    /// The window actually used: `window` rounded up to a power of two and
    /// clamped to [`MIN_WINDOW`]`..=`[`MAX_WINDOW`].
    pub fn effective_window(&self) -> u64 {
        self.window
            .clamp(MIN_WINDOW, MAX_WINDOW)
            .next_power_of_two()
            .min(MAX_WINDOW)
    }

    /// Heap bytes an observer with this configuration allocates, once, at
    /// construction (two bitmaps and the breakpoints).
    pub fn memory_bytes(&self) -> usize {
        let bitmaps = 2 * (self.effective_window() / 8) as usize;
        bitmaps + self.extent_window.max(1) * std::mem::size_of::<Breakpoint>()
    }
}

/// What one arrival was, as the observer classified it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrived {
    /// A first copy at or above `NextExp`: in order (it advanced `NextExp`).
    InOrder {
        /// Its one-way delay exceeded the waiting time (lost for loss).
        late: bool,
    },
    /// A first copy below `NextExp`: reordered (RFC 4737 §3.3).
    Reordered {
        /// Its RFC 4737 §4.2.1 extent, packets (a lower bound when truncated).
        extent: u64,
        /// Its one-way delay exceeded the waiting time (lost for loss).
        late: bool,
    },
    /// A copy of a sequence number already seen.
    Duplicate,
    /// Below the window: ignored (see the module documentation).
    BehindWindow,
    /// Beyond `max_jump` above `NextExp`, or `u64::MAX`: a protocol violation, ignored.
    TooFarAhead,
}

impl Arrived {
    /// A first copy (in order or reordered, late or not): what RFC 4737 and
    /// RFC 3550 count.
    pub fn is_first_copy(self) -> bool {
        matches!(self, Arrived::InOrder { .. } | Arrived::Reordered { .. })
    }

    /// A first copy that arrived within the waiting time: what the delay
    /// metrics (RFC 7679, 5481, 3393) count.
    pub fn is_in_time(self) -> bool {
        matches!(
            self,
            Arrived::InOrder { late: false } | Arrived::Reordered { late: false, .. }
        )
    }
}

/// 64 slots of the two bitmaps.
#[derive(Clone, Copy, Debug, Default)]
struct Word {
    /// Bit per slot: a first copy of the slot's sequence number arrived.
    seen: u64,
    /// Bit per slot: it arrived within the waiting time.
    in_time: u64,
}

/// One in-order arrival: after it the running maximum was `sequence`, at
/// first-copy position `position`.
#[derive(Clone, Copy, Debug)]
struct Breakpoint {
    sequence: u64,
    position: u64,
}

/// Everything the sequence observer says about a stream once the sender's
/// count is known. Counts are datagrams.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SequenceCounts {
    /// Datagrams the sender reports having sent (sequence numbers `0..sent`).
    pub sent: u64,
    /// First copies received (late ones and any at or above `sent` included):
    /// RFC 4737's denominator.
    pub received: u64,
    /// Sequence numbers below `sent` received in time: `sent − lost`.
    pub received_in_time: u64,
    /// Copies of sequence numbers already seen.
    pub duplicates: u64,
    /// First copies below `NextExp` on arrival (RFC 4737 §3.3).
    pub reordered: u64,
    /// Largest reordering extent (RFC 4737 §4.2.1), packets.
    pub max_reorder_extent: u64,
    /// Reordered datagrams whose extent is only a lower bound (their first
    /// larger predecessor fell out of the extent window).
    pub extent_truncated: u64,
    /// First copies below `sent` later than the waiting time (counted lost).
    pub late: u64,
    /// Sequence numbers below `sent` not received in time (RFC 7680),
    /// with their episodes.
    pub loss: LossEpisodes,
    /// Arrivals below the window, ignored.
    pub behind_window: u64,
    /// Arrivals too far ahead (protocol violations), ignored.
    pub too_far_ahead: u64,
    /// How far `NextExp` lies above `sent` (0 for a well-behaved sender,
    /// whose sequence numbers stay below its count).
    pub beyond_sent: u64,
    /// False when `NextExp` is more than a window above `sent`: the settled
    /// losses then cover sequence numbers above `sent` too, and `loss` is an
    /// upper bound (clamped to `sent`). Only a misbehaving sender gets here.
    pub loss_exact: bool,
}

impl SequenceCounts {
    /// lost / sent (RFC 7680 §4.1); `None` when nothing was sent.
    pub fn loss_ratio(&self) -> Option<f64> {
        (self.sent > 0).then(|| self.loss.lost as f64 / self.sent as f64)
    }

    /// reordered / received (RFC 4737 §4.1); `None` when nothing was received.
    pub fn reordered_ratio(&self) -> Option<f64> {
        (self.received > 0).then(|| self.reordered as f64 / self.received as f64)
    }

    /// Arrivals ignored because their sequence number lay outside the
    /// window (behind it, or too far ahead).
    pub fn ignored(&self) -> u64 {
        self.behind_window + self.too_far_ahead
    }
}

/// Incremental sequence accounting of one stream; see the module
/// documentation. O(1) per in-order arrival, O(log extent_window) per
/// reordered one, O(window / 64) at most per jump; no allocation after
/// [`SequenceObserver::new`].
#[derive(Clone, Debug)]
pub struct SequenceObserver {
    config: SequenceConfig,
    /// `window − 1`: the slot of sequence `s` is `s & slot_mask`.
    slot_mask: u64,
    /// The two bitmaps, interleaved word by word (one cache line, one
    /// bounds check per arrival).
    words: Box<[Word]>,
    /// RFC 4737 NextExp: one above the highest sequence number seen.
    next_expected: u64,
    /// First copies so far (the arrival position of the next one).
    received: u64,
    duplicates: u64,
    reordered: u64,
    max_extent: u64,
    extent_truncated: u64,
    behind_window: u64,
    too_far_ahead: u64,
    /// Late first copies already settled (all below the window).
    late_settled: u64,
    /// Loss runs of the settled sequence numbers `[0, NextExp − window)`.
    runs: Runs,
    breakpoints: VecDeque<Breakpoint>,
}

impl Default for SequenceObserver {
    fn default() -> Self {
        SequenceObserver::new(SequenceConfig::default())
    }
}

impl SequenceObserver {
    /// An observer of a stream numbered from 0, allocating
    /// [`SequenceConfig::memory_bytes`] now and nothing afterwards.
    pub fn new(config: SequenceConfig) -> SequenceObserver {
        let window = config.effective_window();
        let words = (window / 64) as usize;
        let extent_window = config.extent_window.max(1);
        SequenceObserver {
            config: SequenceConfig {
                window,
                extent_window,
                ..config
            },
            slot_mask: window - 1,
            words: vec![Word::default(); words].into_boxed_slice(),
            next_expected: 0,
            received: 0,
            duplicates: 0,
            reordered: 0,
            max_extent: 0,
            extent_truncated: 0,
            behind_window: 0,
            too_far_ahead: 0,
            late_settled: 0,
            runs: Runs::default(),
            breakpoints: VecDeque::with_capacity(extent_window),
        }
    }

    /// The configuration in force (window rounded as documented).
    pub fn config(&self) -> &SequenceConfig {
        &self.config
    }

    /// Accounts one arrival, in arrival order: its `sequence` number, the
    /// sender's timestamp `sent_ns` and the receive timestamp `received_ns`
    /// (nanoseconds; the timestamps matter only with a waiting time).
    #[inline]
    pub fn observe(&mut self, sequence: u64, sent_ns: i64, received_ns: i64) -> Arrived {
        let next = self.next_expected;
        let late = self
            .config
            .waiting_time_ns
            .is_some_and(|wait| received_ns.saturating_sub(sent_ns) > wait);
        if sequence == next && sequence != u64::MAX {
            // The common case, in one pass over one word: `sequence` enters
            // the window and `sequence − window` (same slot) leaves it.
            let (word, bit) = self.slot(sequence);
            if sequence >= self.config.window {
                self.settle_one(word, bit);
            }
            let word = &mut self.words[word];
            word.seen |= bit;
            if late {
                word.in_time &= !bit;
            } else {
                word.in_time |= bit;
            }
            self.next_expected = sequence + 1;
            self.push_breakpoint(sequence);
            return Arrived::InOrder { late };
        }
        if sequence == u64::MAX || sequence > next.saturating_add(self.config.max_jump) {
            self.too_far_ahead += 1;
            return Arrived::TooFarAhead;
        }
        if sequence > next {
            self.advance(sequence + 1);
            self.mark(sequence, late);
            self.push_breakpoint(sequence);
            return Arrived::InOrder { late };
        }
        if sequence < next.saturating_sub(self.config.window) {
            self.behind_window += 1;
            return Arrived::BehindWindow;
        }
        let (word, bit) = self.slot(sequence);
        if self.words[word].seen & bit != 0 {
            self.duplicates += 1;
            return Arrived::Duplicate;
        }
        self.mark(sequence, late);
        let position = self.received;
        self.received += 1;
        self.reordered += 1;
        let extent = self.reorder_extent(sequence, position);
        self.max_extent = self.max_extent.max(extent);
        Arrived::Reordered { extent, late }
    }

    /// Counts an in-order first copy and remembers it for the extent.
    #[inline]
    fn push_breakpoint(&mut self, sequence: u64) {
        let position = self.received;
        self.received += 1;
        if self.breakpoints.len() == self.config.extent_window {
            self.breakpoints.pop_front();
        }
        self.breakpoints
            .push_back(Breakpoint { sequence, position });
    }

    /// Word index and bit of `sequence`'s slot.
    #[inline]
    fn slot(&self, sequence: u64) -> (usize, u64) {
        let slot = sequence & self.slot_mask;
        ((slot / 64) as usize, 1u64 << (slot % 64))
    }

    /// Marks a first copy of `sequence` (inside the window).
    #[inline]
    fn mark(&mut self, sequence: u64, late: bool) {
        let (word, bit) = self.slot(sequence);
        let word = &mut self.words[word];
        word.seen |= bit;
        if !late {
            word.in_time |= bit;
        }
    }

    /// Moves `NextExp` up to `new_next` (a jump: `observe` handles the step
    /// of one itself), settling the sequence numbers that leave the window
    /// and clearing the slots of those that enter it.
    fn advance(&mut self, new_next: u64) {
        let old = self.next_expected;
        let window = self.config.window;
        if new_next - old >= window {
            // Everything in the window leaves; the sequence numbers jumped
            // over that never entered it are lost at once.
            self.settle(old.saturating_sub(window), old);
            let never_entered = (new_next - window).saturating_sub(old);
            if never_entered > 0 {
                self.runs.lose(never_entered);
            }
            self.words.fill(Word::default());
        } else {
            self.settle(old.saturating_sub(window), new_next.saturating_sub(window));
            self.clear(old, new_next);
        }
        self.next_expected = new_next;
    }

    /// Settles the one sequence number whose slot is `bit` of `word`.
    #[inline]
    fn settle_one(&mut self, word: usize, bit: u64) {
        let Word { seen, in_time } = self.words[word];
        if in_time & bit != 0 {
            self.runs.keep();
        } else {
            self.runs.lose(1);
            if seen & bit != 0 {
                self.late_settled += 1;
            }
        }
    }

    /// Settles the sequence numbers `from..to` (all inside the window).
    fn settle(&mut self, from: u64, to: u64) {
        let mut sequence = from;
        while sequence < to {
            let slot = sequence & self.slot_mask;
            let (word, low) = ((slot / 64) as usize, (slot % 64) as u32);
            let span = (64 - low).min((to - sequence).min(64) as u32);
            let mask = span_mask(low, span);
            let Word { seen, in_time } = self.words[word];
            self.late_settled += u64::from((seen & !in_time & mask).count_ones());
            self.runs.settle_word(!in_time, low, low + span);
            sequence += u64::from(span);
        }
    }

    /// Clears the slots of the sequence numbers `from..to` (fewer than a window).
    fn clear(&mut self, from: u64, to: u64) {
        let mut sequence = from;
        while sequence < to {
            let slot = sequence & self.slot_mask;
            let (word, low) = ((slot / 64) as usize, (slot % 64) as u32);
            let span = (64 - low).min((to - sequence).min(64) as u32);
            let mask = span_mask(low, span);
            let word = &mut self.words[word];
            word.seen &= !mask;
            word.in_time &= !mask;
            sequence += u64::from(span);
        }
    }

    /// RFC 4737 §4.2.1 extent of a reordered first copy of `sequence` at
    /// arrival `position`: exact within the breakpoints kept, else a lower
    /// bound (counted).
    fn reorder_extent(&mut self, sequence: u64, position: u64) -> u64 {
        // Breakpoint sequences ascend; the first one above `sequence` is where
        // the running maximum first exceeded it.
        let index = self.breakpoints.partition_point(|b| b.sequence <= sequence);
        if index == 0 && self.breakpoints.front().is_some_and(|b| b.position > 0) {
            self.extent_truncated += 1;
        }
        // `sequence < NextExp − 1 + 1` and the last breakpoint holds NextExp − 1,
        // so a larger breakpoint exists unless `sequence` equals it (a duplicate,
        // handled before); 0 is unreachable.
        self.breakpoints
            .get(index)
            .map_or(0, |first_larger| position - first_larger.position)
    }

    /// First copies so far.
    pub fn received(&self) -> u64 {
        self.received
    }

    /// Duplicates so far.
    pub fn duplicates(&self) -> u64 {
        self.duplicates
    }

    /// Reordered first copies so far.
    pub fn reordered(&self) -> u64 {
        self.reordered
    }

    /// RFC 4737 `NextExp`: one above the highest sequence number accepted.
    pub fn next_expected(&self) -> u64 {
        self.next_expected
    }

    /// Arrivals below the window so far.
    pub fn behind_window(&self) -> u64 {
        self.behind_window
    }

    /// Arrivals too far ahead (protocol violations) so far.
    pub fn too_far_ahead(&self) -> u64 {
        self.too_far_ahead
    }

    /// Reordered first copies whose extent is a lower bound, so far.
    pub fn extent_truncated(&self) -> u64 {
        self.extent_truncated
    }

    /// Sequence numbers below `NextExp` without a first copy yet:
    /// `NextExp − received`, O(1). For per-interval loss estimates (take
    /// deltas): a late datagram may still arrive and shrink it.
    pub fn missing_below_highest(&self) -> u64 {
        self.next_expected - self.received
    }

    /// Heap bytes held (fixed at construction).
    pub fn memory_bytes(&self) -> usize {
        self.words.len() * std::mem::size_of::<Word>()
            + self.breakpoints.capacity() * std::mem::size_of::<Breakpoint>()
    }

    /// The counts for a sender that reports `sent` datagrams, once the
    /// waiting time has passed (loss is final only then). O(window / 64);
    /// the observer can go on observing afterwards.
    pub fn counts(&self, sent: u64) -> SequenceCounts {
        let next = self.next_expected;
        let window = self.config.window;
        let base = next.saturating_sub(window);
        let mut runs = self.runs;
        let mut late = self.late_settled;
        let loss_exact = sent >= base;
        if loss_exact {
            // The window's part below `sent`, then what was never seen above NextExp.
            let end = sent.min(next);
            let mut sequence = base;
            while sequence < end {
                let slot = sequence & self.slot_mask;
                let (word, low) = ((slot / 64) as usize, (slot % 64) as u32);
                let span = (64 - low).min((end - sequence).min(64) as u32);
                let mask = span_mask(low, span);
                let Word { seen, in_time } = self.words[word];
                late += u64::from((seen & !in_time & mask).count_ones());
                runs.settle_word(!in_time, low, low + span);
                sequence += u64::from(span);
            }
            if sent > next {
                runs.lose(sent - next);
            }
            runs.close();
        } else {
            runs.close();
            let summary = &mut runs.summary;
            summary.lost = summary.lost.min(sent);
            summary.episodes = summary.episodes.min(summary.lost);
            summary.max_length = summary.max_length.min(summary.lost);
            late = late.min(summary.lost);
        }
        let lost = runs.summary.lost;
        SequenceCounts {
            sent,
            received: self.received,
            received_in_time: sent - lost,
            duplicates: self.duplicates,
            reordered: self.reordered,
            max_reorder_extent: self.max_extent,
            extent_truncated: self.extent_truncated,
            late,
            loss: runs.summary,
            behind_window: self.behind_window,
            too_far_ahead: self.too_far_ahead,
            beyond_sent: next.saturating_sub(sent),
            loss_exact,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn observer(window: u64) -> SequenceObserver {
        SequenceObserver::new(SequenceConfig {
            window,
            ..SequenceConfig::default()
        })
    }

    fn feed(observer: &mut SequenceObserver, sequences: &[u64]) {
        for &s in sequences {
            observer.observe(s, 0, 0);
        }
    }

    #[test]
    fn window_rounds_up_to_a_power_of_two_within_bounds() {
        let config = |window| SequenceConfig {
            window,
            ..SequenceConfig::default()
        };
        assert_eq!(config(0).effective_window(), MIN_WINDOW);
        assert_eq!(config(100).effective_window(), 128);
        assert_eq!(config(u64::MAX).effective_window(), MAX_WINDOW);
        assert_eq!(
            SequenceConfig::default().memory_bytes(),
            16 * 1024 + DEFAULT_EXTENT_WINDOW * 16
        );
        assert_eq!(
            SequenceObserver::default().memory_bytes(),
            SequenceConfig::default().memory_bytes()
        );
    }

    #[test]
    fn classification_of_each_kind_of_arrival() {
        let mut o = observer(64);
        assert_eq!(o.observe(0, 0, 0), Arrived::InOrder { late: false });
        assert_eq!(o.observe(2, 0, 0), Arrived::InOrder { late: false });
        assert_eq!(
            o.observe(1, 0, 0),
            Arrived::Reordered {
                extent: 1,
                late: false
            }
        );
        assert_eq!(o.observe(1, 0, 0), Arrived::Duplicate);
        assert_eq!(o.observe(200, 0, 0), Arrived::InOrder { late: false });
        assert_eq!(o.observe(100, 0, 0), Arrived::BehindWindow);
        assert_eq!(o.observe(u64::MAX, 0, 0), Arrived::TooFarAhead);
        assert_eq!(
            o.observe(202 + DEFAULT_MAX_JUMP, 0, 0),
            Arrived::TooFarAhead
        );
        assert!(Arrived::InOrder { late: true }.is_first_copy());
        assert!(!Arrived::InOrder { late: true }.is_in_time());
        assert!(!Arrived::Duplicate.is_first_copy());
    }

    #[test]
    fn settling_across_word_and_window_boundaries_counts_runs_once() {
        // Window 64: 0..60 arrive, 60..70 lost (across the window edge and a
        // word), 70..300 arrive: one episode of 10.
        let mut o = observer(64);
        let arrived: Vec<u64> = (0..60).chain(70..300).collect();
        feed(&mut o, &arrived);
        let c = o.counts(300);
        assert_eq!(c.loss.lost, 10);
        assert_eq!(c.loss.episodes, 1);
        assert_eq!(c.loss.max_length, 10);
        assert_eq!(c.loss.length_histogram[3], 1, "10 is in 8..=15");
        assert!(c.loss_exact);
    }

    #[test]
    fn a_jump_longer_than_the_window_loses_the_gap_in_one_episode() {
        let mut o = observer(64);
        feed(&mut o, &[0, 1, 1_000, 1_001]);
        let c = o.counts(1_002);
        assert_eq!(c.loss.lost, 998);
        assert_eq!(c.loss.episodes, 1);
        assert_eq!(c.loss.max_length, 998);
        assert_eq!(c.received, 4);
    }

    #[test]
    fn loss_at_the_end_joins_a_run_open_at_the_window() {
        let mut o = observer(64);
        feed(&mut o, &[0, 1, 2]);
        // 3..10 never arrive: one episode of 7 at the end.
        let c = o.counts(10);
        assert_eq!((c.loss.lost, c.loss.episodes), (7, 1));
    }

    #[test]
    fn a_sender_count_far_below_what_arrived_gives_a_bounded_upper_bound() {
        let mut o = observer(64);
        feed(&mut o, &[0, 1_000_000]);
        let c = o.counts(10);
        assert!(!c.loss_exact);
        assert!(c.loss.lost <= 10);
        assert_eq!(c.beyond_sent, 1_000_001 - 10);
    }

    #[test]
    fn the_waiting_time_makes_a_late_copy_lost_but_received() {
        let mut o = SequenceObserver::new(SequenceConfig {
            waiting_time_ns: Some(100),
            ..SequenceConfig::default()
        });
        o.observe(0, 0, 10);
        assert_eq!(o.observe(2, 0, 500), Arrived::InOrder { late: true });
        o.observe(3, 0, 10);
        let c = o.counts(4);
        assert_eq!(c.received, 3);
        assert_eq!(c.late, 1);
        assert_eq!(c.loss.lost, 2, "1 missing, 2 late");
        assert_eq!(c.loss.episodes, 1, "the late one joins 1's episode");
        assert_eq!(c.received_in_time, 2);
    }

    #[test]
    fn late_copies_are_still_counted_after_they_leave_the_window() {
        let mut o = SequenceObserver::new(SequenceConfig {
            window: 64,
            waiting_time_ns: Some(100),
            ..SequenceConfig::default()
        });
        o.observe(0, 0, 500);
        for s in 1..200 {
            o.observe(s, 0, 0);
        }
        let c = o.counts(200);
        assert_eq!((c.late, c.loss.lost, c.loss.episodes), (1, 1, 1));
    }

    #[test]
    fn counts_do_not_disturb_the_observer() {
        let mut o = observer(64);
        feed(&mut o, &[0, 2]);
        assert_eq!(o.counts(3).loss.lost, 1);
        o.observe(1, 0, 0);
        assert_eq!(o.counts(3).loss.lost, 0);
        assert_eq!(o.missing_below_highest(), 0);
    }
}

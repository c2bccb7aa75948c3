//! # dualperf-meter: one measurement core
//!
//! Every delivery metric dualperf reports for a numbered datagram stream —
//! loss, loss episodes, duplicates, reordering, interarrival jitter, one-way
//! delay, delay variation — is computed here, **once**, by incremental
//! observers fed one packet at a time. The engine runs them in its receive
//! loop; dualperf-stats runs the very same observers over a stored trace
//! ([`replay`]). There is no second implementation to drift from the first.
//!
//! ## The definitions
//!
//! | metric | definition | observer |
//! |---|---|---|
//! | loss | RFC 7680 §2.8, §3: a packet not received within the *waiting time* is lost; a late one too | [`SequenceObserver`] |
//! | loss episodes | RFC 3357 loss periods: maximal runs of consecutive lost sequence numbers; longest run, histogram of lengths | [`SequenceObserver`] |
//! | duplicates | RFC 5560's count (three copies are two duplicates); only first copies enter anything else (RFC 4737 §3.3) | [`SequenceObserver`] |
//! | reordering | RFC 4737 §3.3 `NextExp`, §4.1 ratio, §4.2.1 extent | [`SequenceObserver`] |
//! | jitter | RFC 3550 §6.4.1: `J += (\|D(i−1,i)\| − J) / 16` over consecutive arrivals | [`InterarrivalJitter`] |
//! | one-way delay | RFC 7679 §3: `D = R − S` | [`DelayObserver`] |
//! | PDV | RFC 5481 §4.2: `D(i) − D(min)`; RFC 8219 §5 summary `D(p99.9) − D(min)` | [`DelayObserver`] |
//! | IPDV | RFC 3393 §2.4 with RFC 5481 §4.1's consecutive-packet selection | [`IpdvObserver`] |
//! | jitter-buffer playout | fixed and adaptive buffers (Ramjee et al. 1994); late packets are lost (ITU-T G.1020 §6.2) | [`playout::play_out`] |
//!
//! The module documentation of each observer states the formulas, the units
//! (nanoseconds, datagrams, packets of extent) and every choice the RFCs
//! leave open. `docs/metrics.md` is the user-facing version.
//!
//! ## Why incremental, and why bounded
//!
//! The receive loop of a UDP stream handles a million datagrams per second
//! on a small VM: an observer may spend a few nanoseconds per datagram, may
//! not allocate, and may not keep the stream. Worse, sequence numbers come
//! off the wire: a receiver whose bookkeeping grows with the highest
//! sequence number seen can be made to allocate half a gigabyte by 256
//! crafted datagrams (issue 16, fault 4). So every observer here allocates
//! all its memory when it is created and nothing afterwards:
//!
//! | observer | memory (defaults) | bounded by |
//! |---|---|---|
//! | [`SequenceObserver`] | 80 KiB | a reordering/duplicate window of 65 536 sequence numbers (two bitmaps), 4096 breakpoints for the extent |
//! | [`InterarrivalJitter`] | 24 bytes, inline | — |
//! | [`DelayObserver`] | 70 KiB + 8 bytes per raw sample kept | a log-linear histogram (0.4 %) beyond the raw capacity |
//! | [`IpdvObserver`] | 16 KiB + 35 KiB + raw samples | a pairing window of 1024 sequence numbers |
//!
//! What happens to a sequence number outside the window is a documented
//! rule, not an allocation ([`sequence`]): more than `max_jump` ahead is a
//! protocol violation and ignored; a smaller jump slides the window and the
//! numbers jumped over are lost; an arrival behind the window is too late to
//! be told from a duplicate, is ignored, and stayed lost. Every rule keeps
//! the counts consistent (`received + duplicates + ignored = arrivals`,
//! `lost + received in time = sent`).
//!
//! ## How the pieces are used
//!
//! * **Live** (the engine): a [`SequenceObserver`] and an
//!   [`InterarrivalJitter`] per received stream, fed from `recvmmsg`
//!   batches; [`SequenceObserver::counts`] once the sender's count is known
//!   and the waiting time has passed. A [`DeliveryObserver`] bundles every
//!   observer for a receiver that wants delays live too.
//! * **Replay** (stats): [`replay`] runs a [`DeliveryObserver`] sized to a
//!   stored trace — exact percentiles, the stats crate's arithmetic — and
//!   returns [`DeliveryMetrics`].
//! * **Tests** ([`sim`]): a seeded simulated path (rate, queue, delay,
//!   jitter, random and Gilbert–Elliott loss, reordering, duplication)
//!   produces arrivals and the ground truth; the observers must recover the
//!   injected counts exactly (`tests/ground_truth.rs`).
//!
//! This crate does no I/O, reads no clock and depends on `dualperf-model`
//! only (for [`Arrival`](dualperf_model::observation::Arrival)).

#![warn(missing_docs, unreachable_pub, clippy::unwrap_used)]

pub mod delay;
pub mod delivery;
mod histogram;
pub mod jitter;
pub mod playout;
mod quantile;
pub mod sequence;
pub mod sim;

pub use delay::{DelayObserver, DelaySummary, IpdvObserver};
pub use delivery::{
    replay, DeliveryConfig, DeliveryMetrics, DeliveryObserver, ReplayParameters,
    DEFAULT_WAITING_TIME_NS,
};
pub use jitter::InterarrivalJitter;
pub use sequence::{Arrived, LossEpisodes, SequenceConfig, SequenceCounts, SequenceObserver};

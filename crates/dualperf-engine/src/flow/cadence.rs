//! What the isochronous senders (udp-probe, media) share: the absolute
//! schedule (RFC 3432 periodic sampling: send `k` is due at
//! `start + k·interval` on the monotonic clock, restarted at `k = 0` when
//! the measured stage begins), the warm-up and measured sequence numbers,
//! and which send errors lose one datagram rather than end the flow (also
//! the STAMP sender's rule).

use std::time::{Duration, Instant};

use super::FlowContext;
use crate::datagram::FLAG_WARMUP;
use crate::meter::Stage;

/// An absolute send schedule that restarts when the measured stage begins.
#[derive(Debug)]
pub(super) struct Cadence {
    /// Time between sends.
    interval: Duration,
    /// When send 0 of the current stage was due.
    origin: Instant,
    /// The next send's number in the current stage.
    index: u64,
    /// True once the measured stage has begun.
    measuring: bool,
}

/// What [`Cadence::wait`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Tick {
    /// The flow is over (phase done or deadline passed).
    Done,
    /// Send [`Cadence::index`] is due now.
    Due,
}

impl Cadence {
    /// A schedule of one send every `interval`, starting now, in warm-up.
    pub(super) fn new(interval: Duration) -> Cadence {
        Cadence {
            interval,
            origin: Instant::now(),
            index: 0,
            measuring: false,
        }
    }

    /// Sleeps until the next send is due, in sleeps of at most 1 ms so a
    /// phase change is seen within a millisecond; a sender that wakes late
    /// returns at once and keeps the schedule. When the measured stage
    /// begins the schedule restarts: send 0 due now.
    pub(super) fn wait(&mut self, context: &FlowContext) -> Tick {
        loop {
            let stage = context.phase.get();
            if stage == Stage::Done || Instant::now() >= context.deadline {
                return Tick::Done;
            }
            if stage != Stage::Warmup && !self.measuring {
                self.measuring = true;
                self.origin = Instant::now();
                self.index = 0;
            }
            let due = self.origin + self.interval * self.index as u32;
            let now = Instant::now();
            if due <= now {
                return Tick::Due;
            }
            std::thread::sleep((due - now).min(Duration::from_millis(1)));
        }
    }

    /// The due send's number in the current stage (the media frame).
    pub(super) fn index(&self) -> u64 {
        self.index
    }

    /// True once the measured stage has begun.
    pub(super) fn measuring(&self) -> bool {
        self.measuring
    }

    /// The due send is done: the next one is due an interval later.
    pub(super) fn advance(&mut self) {
        self.index += 1;
    }
}

/// Sequence numbers of a stream's datagrams: warm-up and measured
/// datagrams each count from 0; warm-up ones carry [`FLAG_WARMUP`].
#[derive(Debug, Default)]
pub(super) struct Numbering {
    /// Warm-up datagrams sent.
    warmup: u64,
    /// Measured datagrams sent.
    pub(super) measured: u64,
}

impl Numbering {
    /// The next datagram's sequence number and header flags.
    pub(super) fn next(&self, measuring: bool) -> (u64, u32) {
        match measuring {
            false => (self.warmup, FLAG_WARMUP),
            true => (self.measured, 0),
        }
    }

    /// One more datagram sent (or lost at the sender: the sequence advances
    /// either way, the receiver counts it).
    pub(super) fn count(&mut self, measuring: bool) {
        match measuring {
            false => self.warmup += 1,
            true => self.measured += 1,
        }
    }
}

/// True for a send error that loses this one datagram at the sender (a
/// full queue, an interrupted call, a refused port reported by ICMP); any
/// other error ends the flow.
pub(crate) fn lost_at_sender(error: &std::io::Error) -> bool {
    matches!(
        error.raw_os_error(),
        Some(libc::ENOBUFS | libc::EAGAIN | libc::EINTR | libc::ECONNREFUSED)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warm_up_and_measured_datagrams_count_apart() {
        let mut numbering = Numbering::default();
        assert_eq!(numbering.next(false), (0, FLAG_WARMUP));
        numbering.count(false);
        numbering.count(false);
        assert_eq!(numbering.next(false), (2, FLAG_WARMUP));
        assert_eq!(numbering.next(true), (0, 0));
        numbering.count(true);
        assert_eq!((numbering.next(true), numbering.measured), ((1, 0), 1));
    }

    #[test]
    fn only_transient_send_errors_lose_a_single_datagram() {
        let error = |code| std::io::Error::from_raw_os_error(code);
        assert!(lost_at_sender(&error(libc::ENOBUFS)));
        assert!(lost_at_sender(&error(libc::ECONNREFUSED)));
        assert!(!lost_at_sender(&error(libc::EBADF)));
        assert!(!lost_at_sender(&std::io::Error::other("not an OS error")));
    }
}

//! Received bytes binned by when they arrived at the receiving host, not
//! when the receiving thread read them (docs/metrics.md, "Throughput over
//! time").
//!
//! A receiving thread that was not scheduled for 30 ms — or that was
//! descheduled while it held its TCP socket's lock, which stalls the
//! socket's own processing too — reads 30 ms of data at once, and a series
//! of reads per 50 ms interval then shows 20–30 Mbit/s on a 10 Mbit/s
//! link, while a capture on the receiver's interface never sees more than
//! the link rate. The kernel stamps every packet when it reaches the host
//! (`SO_TIMESTAMPNS`, taken before the socket's queues), so:
//!
//! * UDP: each datagram is counted in the interval of its own stamp;
//! * TCP: a read returns the stamp of the newest segment it consumed; its
//!   bytes arrived after the previous read's newest segment and by this
//!   stamp, and are spread evenly over that span (exact while the link is
//!   busy, as a bottleneck is; an idle gap followed by a short burst is
//!   drawn as a low rate over the gap, never above the rate it arrived at).
//!
//! The grid is the sampler's: interval *k* is `[k·L, (k+1)·L)` from the
//! start of the measured interval (the last one cut at its end), in the
//! receiving host's CLOCK_REALTIME. Bytes stamped outside the measured
//! interval are not binned. The series replaces the received counts of the
//! sampler's intervals when every flow of the end kept one
//! ([`apply_arrivals`]).

use dualperf_model::{FlowCounters, IntervalSample};

/// Most intervals a series keeps: 1 hour of 10 ms intervals.
pub const MAX_BINS: usize = 360_000;

/// The sampler's interval grid in the receiving host's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArrivalGrid {
    /// CLOCK_REALTIME at the start of the measured interval, nanoseconds.
    pub origin_ns: i64,
    /// Length of one interval, nanoseconds (> 0).
    pub interval_ns: u64,
    /// Length of the measured interval, nanoseconds.
    pub duration_ns: u64,
}

impl ArrivalGrid {
    /// Start and end of interval `index`, nanoseconds after the origin.
    fn bounds(&self, index: usize) -> (u64, u64) {
        let start = self.interval_ns.saturating_mul(index as u64);
        let end = start.saturating_add(self.interval_ns).min(self.duration_ns);
        (start, end)
    }
}

/// One flow's received bytes and packets per interval of the grid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArrivalSeries {
    grid: ArrivalGrid,
    bins: Vec<FlowCounters>,
    /// The newest stamp seen, nanoseconds after the origin (TCP spreading).
    newest_ns: Option<i64>,
}

impl ArrivalSeries {
    /// An empty series on `grid`.
    pub fn new(grid: ArrivalGrid) -> ArrivalSeries {
        ArrivalSeries {
            grid,
            bins: Vec::new(),
            newest_ns: None,
        }
    }

    /// The grid.
    pub fn grid(&self) -> ArrivalGrid {
        self.grid
    }

    fn offset(&self, stamp_ns: i64) -> i64 {
        stamp_ns.saturating_sub(self.grid.origin_ns)
    }

    fn bin_mut(&mut self, offset_ns: i64) -> Option<&mut FlowCounters> {
        if offset_ns < 0 || offset_ns as u64 >= self.grid.duration_ns {
            return None;
        }
        let index = (offset_ns as u64 / self.grid.interval_ns.max(1)) as usize;
        if index >= MAX_BINS {
            return None;
        }
        if self.bins.len() <= index {
            self.bins.resize(index + 1, FlowCounters::default());
        }
        self.bins.get_mut(index)
    }

    /// Counts `packets` carrying `bytes`, stamped `stamp_ns` (CLOCK_REALTIME).
    pub fn add(&mut self, stamp_ns: i64, bytes: u64, packets: u64) {
        let offset = self.offset(stamp_ns);
        if let Some(bin) = self.bin_mut(offset) {
            bin.bytes += bytes;
            bin.packets += packets;
        }
    }

    /// Counts one read of `bytes` whose newest segment was stamped
    /// `stamp_ns`: spread evenly from `previous_ns`, the newest stamp of the
    /// flow's reads before (warm-up ones too), to this one (module docs);
    /// a read with no older stamp counts at its own.
    pub fn add_read(&mut self, previous_ns: Option<i64>, stamp_ns: i64, bytes: u64) {
        let to = self.offset(stamp_ns);
        let newest = match (self.newest_ns, previous_ns.map(|p| self.offset(p))) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        let from = match newest {
            Some(previous) if previous < to => previous,
            _ => to,
        };
        self.newest_ns = Some(newest.map_or(to, |n| n.max(to)));
        if from == to {
            self.add(stamp_ns, bytes, 1);
            return;
        }
        let span = (to - from) as u128;
        let step = self.grid.interval_ns.max(1) as i64;
        // Only the measured interval is walked (a clock step cannot make
        // this loop long): the bytes of the span outside it are not binned.
        let share_until = |at: i64| (u128::from(bytes) * (at - from) as u128 / span) as u64;
        let first = from.max(-step);
        let last = to.min(self.grid.duration_ns as i64 + step);
        let (mut at, mut given) = (first, share_until(first.min(to)));
        while at < last {
            // The next grid boundary after `at`, or the end of the span.
            let next = ((at.div_euclid(step) + 1) * step).min(last);
            let share = share_until(next) - given;
            given += share;
            if let Some(bin) = self.bin_mut(at) {
                bin.bytes += share;
            }
            at = next;
        }
        // The read itself counts once, in the bin of its newest segment.
        if let Some(bin) = self.bin_mut(to.saturating_sub(1).max(from)) {
            bin.packets += 1;
        }
    }

    /// Bytes and packets of interval `index` (zero past the last arrival).
    pub fn interval(&self, index: usize) -> FlowCounters {
        self.bins.get(index).copied().unwrap_or_default()
    }
}

/// Replaces the received counts of `intervals` (the sampler's, on the same
/// grid) with the sum of `series`, and their bounds with the grid's; does
/// nothing without a series. Returns true when it replaced them.
pub fn apply_arrivals(series: &[&ArrivalSeries], intervals: &mut [IntervalSample]) -> bool {
    let Some(grid) = series.first().map(|s| s.grid()) else {
        return false;
    };
    if series.iter().any(|s| s.grid() != grid) {
        return false;
    }
    for (index, sample) in intervals.iter_mut().enumerate() {
        let (start, end) = grid.bounds(index);
        if end <= start {
            break;
        }
        let (bytes, packets) = series.iter().fold((0, 0), |(b, p), s| {
            let c = s.interval(index);
            (b + c.bytes, p + c.packets)
        });
        sample.received_bytes = bytes;
        sample.received_packets = packets;
        sample.end_ns = end;
        sample.length_ns = end - start;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;

    fn grid() -> ArrivalGrid {
        ArrivalGrid {
            origin_ns: 1_000 * MS,
            interval_ns: 50 * MS as u64,
            duration_ns: 200 * MS as u64,
        }
    }

    #[test]
    fn datagrams_count_in_the_interval_of_their_stamp_and_only_inside_the_measured_one() {
        let mut series = ArrivalSeries::new(grid());
        series.add(1_000 * MS - 1, 100, 1); // warm-up: before the origin
        series.add(1_000 * MS, 10, 1);
        series.add(1_049 * MS, 10, 1);
        series.add(1_050 * MS, 7, 1);
        series.add(1_200 * MS, 100, 1); // after the end
        assert_eq!(
            series.interval(0),
            FlowCounters {
                bytes: 20,
                packets: 2
            }
        );
        assert_eq!(
            series.interval(1),
            FlowCounters {
                bytes: 7,
                packets: 1
            }
        );
        assert_eq!(series.interval(3), FlowCounters::default());
        assert_eq!(series.interval(4), FlowCounters::default());
    }

    /// A reader stalled for 100 ms reads 125 kB at once: the bytes arrived
    /// over the stall and are spread over it, never drawn as 10 Mbit/s × 3.
    #[test]
    fn a_late_tcp_read_is_spread_over_the_span_its_bytes_arrived_in() {
        let mut series = ArrivalSeries::new(grid());
        series.add_read(None, 1_010 * MS, 12_500);
        series.add_read(Some(1_010 * MS), 1_110 * MS, 125_000);
        assert_eq!(series.interval(0).bytes, 12_500 + 50_000);
        assert_eq!(series.interval(1).bytes, 62_500);
        assert_eq!(series.interval(2).bytes, 12_500);
        let total: u64 = (0..4).map(|i| series.interval(i).bytes).sum();
        assert_eq!(total, 12_500 + 125_000, "nothing lost to rounding");
        // A read whose stamp is not newer (coalesced segments) counts at its stamp.
        series.add_read(Some(1_110 * MS), 1_105 * MS, 1_000);
        // The first measured read spreads back to the last warm-up one.
        let mut late = ArrivalSeries::new(grid());
        late.add_read(Some(960 * MS), 1_040 * MS, 80_000);
        assert_eq!(
            late.interval(0).bytes,
            40_000,
            "the warm-up half is not binned"
        );
        assert_eq!(series.interval(2).bytes, 13_500);
    }

    #[test]
    fn the_series_replaces_received_counts_on_the_grid_bounds() {
        let mut one = ArrivalSeries::new(grid());
        let mut two = ArrivalSeries::new(grid());
        one.add(1_001 * MS, 5, 1);
        two.add(1_002 * MS, 6, 1);
        two.add(1_180 * MS, 9, 1);
        let mut intervals = vec![
            IntervalSample {
                end_ns: 51 * MS as u64,
                length_ns: 51 * MS as u64,
                received_bytes: 999,
                sent_bytes: 3,
                ..IntervalSample::default()
            };
            4
        ];
        assert!(apply_arrivals(&[&one, &two], &mut intervals));
        assert_eq!(
            (intervals[0].received_bytes, intervals[0].received_packets),
            (11, 2)
        );
        assert_eq!(intervals[0].sent_bytes, 3, "sent counts are the sender's");
        assert_eq!(
            (intervals[0].end_ns, intervals[0].length_ns),
            (50 * MS as u64, 50 * MS as u64)
        );
        assert_eq!(intervals[3].received_bytes, 9);
        assert!(!apply_arrivals(&[], &mut intervals));
    }
}

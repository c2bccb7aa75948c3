//! A fixed log-linear histogram of nanosecond values: bounded memory for
//! delay percentiles over streams of any length.
//!
//! Values below 256 ns each have their own bucket; above, every power of
//! two `[2^e, 2^(e+1))` is cut into 128 equal buckets, so a bucket is at
//! most 1/128 of its values wide and its midpoint within **0.4 %** of any
//! value in it (HDR histogram's layout with 8 significant bits). Magnitudes
//! up to 2⁴¹ − 1 ns (36 minutes) are resolved; larger ones fall into the top
//! bucket. A signed histogram mirrors the buckets for negative values (one
//! way delays between unsynchronised clocks, values relative to an anchor).
//! Memory: 35 KiB unsigned, 70 KiB signed, allocated once.

/// Bits of a bucket's value resolved: 2⁸ linear buckets, then 2⁷ per octave.
const SUB_BITS: u32 = 8;
const SUB: u64 = 1 << SUB_BITS;
const HALF: u64 = SUB / 2;
/// Highest octave resolved: values up to 2^(MAX_EXPONENT + 1) − 1.
const MAX_EXPONENT: u32 = 40;
const MAX_MAGNITUDE: u64 = (1 << (MAX_EXPONENT + 1)) - 1;
/// Buckets per sign.
const MAGNITUDE_BUCKETS: usize = (SUB + (MAX_EXPONENT - SUB_BITS + 1) as u64 * HALF) as usize;

/// Bucket of a magnitude.
fn magnitude_index(magnitude: u64) -> usize {
    let m = magnitude.min(MAX_MAGNITUDE);
    if m < SUB {
        return m as usize;
    }
    let exponent = 63 - m.leading_zeros();
    let shift = exponent - SUB_BITS + 1;
    let top = m >> shift; // in HALF..SUB
    (SUB + u64::from(exponent - SUB_BITS) * HALF + (top - HALF)) as usize
}

/// Smallest and largest magnitude of a bucket.
fn magnitude_range(index: usize) -> (u64, u64) {
    let index = index as u64;
    if index < SUB {
        return (index, index);
    }
    let k = index - SUB;
    let exponent = (k / HALF) as u32 + SUB_BITS;
    let shift = exponent - SUB_BITS + 1;
    let low = (k % HALF + HALF) << shift;
    (low, low + (1 << shift) - 1)
}

/// Counts of values per bucket.
#[derive(Clone, Debug)]
pub(crate) struct LogHistogram {
    counts: Box<[u64]>,
    signed: bool,
    total: u64,
}

impl LogHistogram {
    /// An empty histogram of non-negative values (`signed` false: negative
    /// values count as 0) or of any `i64`.
    pub(crate) fn new(signed: bool) -> LogHistogram {
        let buckets = if signed {
            2 * MAGNITUDE_BUCKETS
        } else {
            MAGNITUDE_BUCKETS
        };
        LogHistogram {
            counts: vec![0; buckets].into_boxed_slice(),
            signed,
            total: 0,
        }
    }

    fn index(&self, value: i64) -> usize {
        match (self.signed, value >= 0) {
            (false, _) => magnitude_index(value.max(0) as u64),
            (true, true) => MAGNITUDE_BUCKETS + magnitude_index(value as u64),
            (true, false) => MAGNITUDE_BUCKETS - 1 - magnitude_index(value.unsigned_abs()),
        }
    }

    /// The midpoint of a bucket.
    fn representative(&self, index: usize) -> i64 {
        let midpoint = |(low, high): (u64, u64)| (low + (high - low) / 2) as i64;
        if !self.signed {
            return midpoint(magnitude_range(index));
        }
        if index >= MAGNITUDE_BUCKETS {
            midpoint(magnitude_range(index - MAGNITUDE_BUCKETS))
        } else {
            -midpoint(magnitude_range(MAGNITUDE_BUCKETS - 1 - index))
        }
    }

    /// Counts one value.
    #[inline]
    pub(crate) fn record(&mut self, value: i64) {
        let index = self.index(value);
        self.counts[index] += 1;
        self.total += 1;
    }

    /// The value of rank ⌈q·n⌉ (nearest rank, at least 1), as its bucket's
    /// midpoint; `None` when empty.
    pub(crate) fn quantile(&self, q: f64) -> Option<i64> {
        if self.total == 0 {
            return None;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.total as f64).ceil() as u64).clamp(1, self.total);
        let mut cumulative = 0;
        for (index, &count) in self.counts.iter().enumerate() {
            cumulative += count;
            if cumulative >= rank {
                return Some(self.representative(index));
            }
        }
        None
    }

    /// Heap bytes held.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.counts.len() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_contiguous_and_narrow() {
        let mut expected_low = 0;
        for index in 0..MAGNITUDE_BUCKETS {
            let (low, high) = magnitude_range(index);
            assert_eq!(low, expected_low, "bucket {index}");
            assert_eq!(magnitude_index(low), index);
            assert_eq!(magnitude_index(high), index);
            if low >= SUB {
                assert!((high - low + 1) as f64 / low as f64 <= 1.0 / 128.0);
            }
            expected_low = high + 1;
        }
        assert_eq!(expected_low, MAX_MAGNITUDE + 1);
        assert_eq!(magnitude_index(u64::MAX), MAGNITUDE_BUCKETS - 1);
    }

    #[test]
    fn quantiles_are_within_half_a_percent() {
        let mut h = LogHistogram::new(false);
        for v in 1..=100_000 {
            h.record(v * 1_000);
        }
        for (q, exact) in [(0.5, 50_000_000.0), (0.99, 99_000_000.0)] {
            let got = h.quantile(q).unwrap_or_default() as f64;
            assert!((got - exact).abs() / exact < 0.004, "{q}: {got} vs {exact}");
        }
        assert_eq!(h.memory_bytes(), MAGNITUDE_BUCKETS * 8);
    }

    #[test]
    fn signed_values_keep_their_order() {
        let mut h = LogHistogram::new(true);
        for v in [-5_000, -10, 0, 10, 5_000] {
            h.record(v);
        }
        // 5000 lies in the bucket 4992..=5023 (32 wide at 2^12), midpoint 5007.
        assert_eq!(h.quantile(0.0), Some(-5_007));
        assert_eq!(h.quantile(0.4), Some(-10));
        assert_eq!(h.quantile(0.6), Some(0));
        assert_eq!(h.quantile(1.0), Some(5_007));
        assert_eq!(LogHistogram::new(true).quantile(0.5), None);
    }
}

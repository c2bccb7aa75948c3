//! Loss episodes (RFC 3357 loss periods) of the sequence observer: the
//! counters that survive when sequence numbers leave its window — lost
//! datagrams, maximal runs of consecutive losses, the longest, and a
//! histogram of run lengths — and the bit-run scan that settles one
//! bitmap word into them.

use super::EPISODE_LENGTH_BUCKETS;

/// Loss runs in sequence order (RFC 3357 loss periods).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LossEpisodes {
    /// Lost datagrams (late ones included).
    pub lost: u64,
    /// Maximal runs of consecutive lost sequence numbers.
    pub episodes: u64,
    /// Longest run, datagrams; 0 without loss.
    pub max_length: u64,
    /// Episodes by length: bucket `k` counts lengths `2^k ..= 2^(k+1) − 1`
    /// (bucket 0: single losses; bucket 1: 2–3; …); the last bucket is open.
    pub length_histogram: [u64; EPISODE_LENGTH_BUCKETS],
}

impl LossEpisodes {
    /// Mean episode length, datagrams (lost / episodes); `None` without loss.
    pub fn mean_length(&self) -> Option<f64> {
        (self.episodes > 0).then(|| self.lost as f64 / self.episodes as f64)
    }

    /// The [`LossEpisodes::length_histogram`] bucket of an episode of `length` (≥ 1).
    pub fn bucket_of(length: u64) -> usize {
        (63 - length.max(1).leading_zeros() as usize).min(EPISODE_LENGTH_BUCKETS - 1)
    }
}

/// Loss runs being accumulated: the summary plus the run still open at the
/// frontier (the last settled sequence number was lost).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Runs {
    /// The runs settled so far.
    pub(super) summary: LossEpisodes,
    /// Length of the run still open at the frontier, datagrams.
    open: u64,
}

impl Runs {
    /// `count` more consecutive lost sequence numbers.
    #[inline]
    pub(super) fn lose(&mut self, count: u64) {
        self.summary.lost += count;
        self.open += count;
    }

    /// A received sequence number: closes the open run, if any.
    #[inline]
    pub(super) fn keep(&mut self) {
        if self.open > 0 {
            self.close();
        }
    }

    /// Closes the open run, counting it as an episode.
    pub(super) fn close(&mut self) {
        if self.open == 0 {
            return;
        }
        let summary = &mut self.summary;
        summary.episodes += 1;
        summary.max_length = summary.max_length.max(self.open);
        summary.length_histogram[LossEpisodes::bucket_of(self.open)] += 1;
        self.open = 0;
    }

    /// Settles bits `low..high` of one bitmap word in order; a set bit of
    /// `lost` is a lost sequence number, a clear one a received one.
    #[inline]
    pub(super) fn settle_word(&mut self, lost: u64, low: u32, high: u32) {
        let span = high - low;
        let mask = span_mask(low, span);
        if lost & mask == 0 {
            self.keep();
            return;
        }
        if lost & mask == mask {
            self.lose(u64::from(span));
            return;
        }
        let mut position = low;
        while position < high {
            let rest = lost >> position;
            let left = high - position;
            if rest & 1 == 1 {
                let run = (!rest).trailing_zeros().min(left);
                self.lose(u64::from(run));
                position += run;
            } else {
                let run = rest.trailing_zeros().min(left);
                self.keep();
                position += run;
            }
        }
    }
}

/// Bits `low..low + span` of a word set (span ≥ 1, low + span ≤ 64).
#[inline]
pub(super) fn span_mask(low: u32, span: u32) -> u64 {
    let ones = if span >= 64 {
        u64::MAX
    } else {
        (1u64 << span) - 1
    };
    ones << low
}

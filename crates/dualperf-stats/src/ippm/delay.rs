//! One-way delay (RFC 7679), packet delay variation (RFC 5481 PDV, RFC 8219's
//! summary) and IP packet delay variation (RFC 3393 IPDV).
//!
//! * **One-way delay** `D(i) = R(i) − S(i)` of each received packet
//!   (RFC 7679 §3). Meaningful only when sender and receiver clocks agree:
//!   inside a namespace lab both ends read one kernel clock; between hosts
//!   the caller must know the clocks are synchronised.
//! * **PDV** `D(i) − D(min)` (RFC 5481 §4.2): each delay against the smallest
//!   of the stream. A constant clock offset cancels, so PDV is valid without
//!   synchronisation (skew still bends it). RFC 8219 §5 summarises PDV as
//!   `D(99.9th percentile) − D(min)`.
//! * **IPDV** `D(i) − D(i−1)` for consecutive sequence numbers that were
//!   both received (RFC 3393 §2.4 with the "consecutive packets" selection
//!   function of RFC 5481 §4.1). The offset cancels here too. Reported as
//!   the distribution of |IPDV| (its mean is ~0 by construction).
//!
//! Pass only packets that count as received (first copies, within the loss
//! waiting time): a lost packet has an undefined delay (RFC 7679 §3.4).
//! Percentiles use linear interpolation between closest ranks
//! ([`crate::summary::percentile_of_sorted`]).

use dualperf_model::observation::Arrival;

use crate::summary::{mean, percentile_of_sorted};

/// Distribution of a delay-like quantity, nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DelayDistribution {
    /// Number of values.
    pub count: u64,
    /// Smallest value.
    pub min_ns: f64,
    /// Mean value.
    pub mean_ns: f64,
    /// Median.
    pub p50_ns: f64,
    /// 90th percentile.
    pub p90_ns: f64,
    /// 99th percentile.
    pub p99_ns: f64,
    /// 99.9th percentile.
    pub p999_ns: f64,
    /// Largest value.
    pub max_ns: f64,
}

impl DelayDistribution {
    /// The distribution of `values`; `None` when empty.
    pub fn of(values: &[f64]) -> Option<Self> {
        let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        sorted.sort_by(f64::total_cmp);
        Some(DelayDistribution {
            count: sorted.len() as u64,
            min_ns: *sorted.first()?,
            mean_ns: mean(&sorted)?,
            p50_ns: percentile_of_sorted(&sorted, 0.5)?,
            p90_ns: percentile_of_sorted(&sorted, 0.9)?,
            p99_ns: percentile_of_sorted(&sorted, 0.99)?,
            p999_ns: percentile_of_sorted(&sorted, 0.999)?,
            max_ns: *sorted.last()?,
        })
    }
}

/// One-way delays `R(i) − S(i)` of the given arrivals, nanoseconds, in the
/// order given.
pub fn one_way_delays_ns(arrivals: &[Arrival]) -> Vec<f64> {
    arrivals
        .iter()
        .map(|a| (a.received_ns - a.sent_ns) as f64)
        .collect()
}

/// RFC 5481 PDV values `D(i) − D(min)`, nanoseconds, in the order given.
pub fn packet_delay_variation_ns(arrivals: &[Arrival]) -> Vec<f64> {
    let delays = one_way_delays_ns(arrivals);
    let minimum = delays.iter().copied().fold(f64::INFINITY, f64::min);
    delays.iter().map(|d| d - minimum).collect()
}

/// RFC 8219 §5 PDV summary: `D(99.9th percentile) − D(min)`, nanoseconds;
/// `None` for an empty trace.
pub fn pdv_999_ns(arrivals: &[Arrival]) -> Option<f64> {
    let distribution = DelayDistribution::of(&one_way_delays_ns(arrivals))?;
    Some(distribution.p999_ns - distribution.min_ns)
}

/// RFC 3393 IPDV values `D(i) − D(i−1)` for every pair of consecutive
/// sequence numbers that were both received, in sequence order, nanoseconds.
pub fn ip_delay_variation_ns(arrivals: &[Arrival]) -> Vec<f64> {
    let mut by_sequence: Vec<&Arrival> = arrivals.iter().collect();
    by_sequence.sort_by_key(|a| a.sequence);
    by_sequence
        .windows(2)
        .filter(|pair| pair[1].sequence == pair[0].sequence + 1)
        .map(|pair| {
            let previous = pair[0].received_ns - pair[0].sent_ns;
            let current = pair[1].received_ns - pair[1].sent_ns;
            (current - previous) as f64
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace(sequence_and_delay_ns: &[(u64, i64)]) -> Vec<Arrival> {
        sequence_and_delay_ns
            .iter()
            .map(|&(sequence, delay)| {
                let sent_ns = 1_000_000_000 + sequence as i64 * 10_000_000;
                Arrival {
                    sequence,
                    sent_ns,
                    received_ns: sent_ns + delay,
                }
            })
            .collect()
    }

    #[test]
    fn one_way_delay_is_receive_minus_send() {
        assert_eq!(
            one_way_delays_ns(&trace(&[(0, 500), (1, 700)])),
            vec![500.0, 700.0]
        );
    }

    #[test]
    fn pdv_is_delay_above_the_minimum() {
        let pdv = packet_delay_variation_ns(&trace(&[(0, 500), (1, 700), (2, 400)]));
        assert_eq!(pdv, vec![100.0, 300.0, 0.0]);
    }

    #[test]
    fn rfc8219_pdv_of_a_thousand_probes_uses_the_999th_percentile() {
        // Delays 1..=1000 µs: D(min) = 1 µs; p99.9 by linear interpolation at
        // h = 999·0.999 = 998.001 → 999 + 0.001·1 = 999.001 µs.
        let probes: Vec<(u64, i64)> = (0..1000).map(|i| (i, (i as i64 + 1) * 1_000)).collect();
        let pdv = pdv_999_ns(&trace(&probes)).unwrap();
        assert!((pdv - 998_001.0).abs() < 1e-6, "{pdv}");
    }

    #[test]
    fn ipdv_pairs_consecutive_sequence_numbers_only() {
        // 2 is lost: the pairs are (0,1) and (3,4).
        let ipdv = ip_delay_variation_ns(&trace(&[(0, 500), (1, 800), (3, 600), (4, 550)]));
        assert_eq!(ipdv, vec![300.0, -50.0]);
    }

    #[test]
    fn ipdv_uses_sequence_order_not_arrival_order() {
        let ipdv = ip_delay_variation_ns(&trace(&[(1, 800), (0, 500)]));
        assert_eq!(ipdv, vec![300.0]);
    }

    #[test]
    fn a_clock_offset_cancels_in_pdv_and_ipdv() {
        let base = trace(&[(0, 500), (1, 800), (2, 650)]);
        let offset: Vec<Arrival> = base
            .iter()
            .map(|a| Arrival {
                received_ns: a.received_ns - 7_000_000,
                ..*a
            })
            .collect();
        assert_eq!(
            packet_delay_variation_ns(&base),
            packet_delay_variation_ns(&offset)
        );
        assert_eq!(ip_delay_variation_ns(&base), ip_delay_variation_ns(&offset));
    }

    #[test]
    fn distribution_of_nothing_is_none() {
        assert_eq!(DelayDistribution::of(&[]), None);
        assert_eq!(pdv_999_ns(&[]), None);
    }
}

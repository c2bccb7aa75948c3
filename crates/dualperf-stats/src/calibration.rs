//! A calibration run read back as what it proves about the host
//! (`dualperf lab calibrate`; docs/metrics.md, "Calibration").
//!
//! The run's design declares two contrasts at every point: an A/A
//! **replica** (IPv4 against IPv4, [`Factor::Replica`]) and IPv6 against
//! IPv4 ([`Factor::Family`]), where a per-family htb class gives IPv6 a
//! known share of IPv4's rate ([`CalibrationSetup`]). From the analysed
//! run, [`evaluate`] takes, per point:
//!
//! * the replica's verdict exactly as the tool reported it (a significant
//!   replica is a false positive);
//! * for the rate points, IPv6's estimate against the **truth**: the class
//!   ratio times the ratio of goodput per byte htb counts,
//!   [`true_relative_difference`];
//! * the spread of the replica's paired relative differences, from which
//!   [`minimum_detectable_effect`] gives the smallest difference a paired
//!   comparison of `n` repetitions detects with 80 % power at the 5 %
//!   level: `(t(0.975, n−1) + t(0.80, n−1)) · sd / √n`.

use dualperf_model::calibration::{Estimate, KnownEffect};
use dualperf_model::{
    ArmId, Calibration, CalibrationPoint, CalibrationSetup, Comparison, Factor, MetricId,
    RunResult, TestKind, Trial, TrialOutcome,
};

use crate::extraction::measure_trial_on;
use crate::student_t::t_critical;
use crate::summary::{mean, sample_standard_deviation};

/// TCP header with Linux's timestamp option, bytes.
const TCP_HEADER_BYTES: u32 = 20 + 12;
/// UDP header, bytes.
const UDP_HEADER_BYTES: u32 = 8;
/// Statistical power the minimum detectable effect is stated at.
pub const POWER: f64 = 0.80;

/// The calibration of an analysed calibration run; `None` when the run has
/// no analysis, no calibration setup in its testbed facts, or no replica
/// contrast.
pub fn evaluate(result: &RunResult, host: &str) -> Option<Calibration> {
    let analysis = result.analysis.as_ref()?;
    let setup = result.testbed.as_ref()?.calibration?;
    let contrasts = &result.config.contrasts;
    let replica = contrasts.iter().find(|c| c.factor == Factor::Replica)?;
    let effect = contrasts.iter().find(|c| c.factor == Factor::Family);
    let mtu = link_mtu_bytes(result);
    let comparison = |point: usize, metric: MetricId, arm: &ArmId, baseline: &ArmId| {
        analysis.comparisons.iter().find(|c| {
            c.point == point && c.metric == metric && &c.arm == arm && &c.baseline == baseline
        })
    };
    let mut points = Vec::new();
    for (index, spec) in result.config.points.iter().enumerate() {
        let metric = MetricId::headline_of(spec);
        let Some(aa) = comparison(index, metric, &replica.arm, &replica.baseline) else {
            continue;
        };
        let known = effect.and_then(|effect| {
            let truth = true_relative_difference(spec.kind, spec.size_bytes, mtu, &setup)?;
            let found = comparison(index, metric, &effect.arm, &effect.baseline)?;
            Some(KnownEffect {
                truth,
                estimate: estimate(found),
            })
        });
        points.push(CalibrationPoint {
            kind: spec.kind,
            size_bytes: spec.size_bytes,
            metric,
            pairs: aa.pairs,
            replica: estimate(aa),
            effect: known,
            paired_sd_ratio: paired_sd_ratio(
                result,
                index,
                metric,
                &replica.arm,
                &replica.baseline,
            )
            .unwrap_or(0.0),
            seconds_per_pair: seconds_per_pair(result, index),
        });
    }
    Some(Calibration {
        run_id: result.run_id.clone(),
        host: host.to_string(),
        finished_at_ms: result.finished_at_unix_ms,
        setup,
        points,
    })
}

fn estimate(comparison: &Comparison) -> Estimate {
    Estimate {
        relative: comparison.relative_difference.unwrap_or(0.0),
        ci95: comparison.relative_difference_ci95,
        significant: comparison.significant,
        p_value: comparison.p_value,
    }
}

/// The true (IPv6 − IPv4) / IPv4 goodput of a rate point through the
/// calibration's per-family classes: each family's goodput is its class
/// rate times payload / (IP packet + framing), so the truth is
/// `ratio · efficiency(IPv6) / efficiency(IPv4) − 1`. tcp-stream sends
/// full-size segments (MSS = MTU − IP − TCP − 12 B of timestamps) whatever
/// the write size; udp-stream one datagram of `size_bytes` per packet
/// (`None` when it would fragment on either family). Latency kinds have no
/// known effect: `None`.
pub fn true_relative_difference(
    kind: TestKind,
    size_bytes: u32,
    mtu_bytes: u32,
    setup: &CalibrationSetup,
) -> Option<f64> {
    let efficiency = |ip_header: u32| -> Option<f64> {
        let (payload, packet) = match kind {
            TestKind::TcpStream => {
                let mss = mtu_bytes.checked_sub(ip_header + TCP_HEADER_BYTES)?;
                (mss, mtu_bytes)
            }
            TestKind::UdpStream => {
                let packet = size_bytes + UDP_HEADER_BYTES + ip_header;
                if packet > mtu_bytes {
                    return None;
                }
                (size_bytes, packet)
            }
            _ => return None,
        };
        Some(f64::from(payload) / f64::from(packet + setup.framing_bytes))
    };
    let (v4, v6) = (efficiency(20)?, efficiency(40)?);
    Some(setup.v6_rate_ratio * v6 / v4 - 1.0)
}

/// The smallest relative difference a paired comparison of `pairs`
/// repetitions detects with [`POWER`] at the two-sided 5 % level, given
/// the standard deviation of paired relative differences; `None` below 2
/// pairs.
pub fn minimum_detectable_effect(paired_sd_ratio: f64, pairs: u64) -> Option<f64> {
    let df = pairs.checked_sub(1).filter(|df| *df > 0)?;
    let alpha = t_critical(0.95, df)?;
    // One-sided quantile POWER = two-sided confidence 2·POWER − 1.
    let beta = t_critical(2.0 * POWER - 1.0, df)?;
    Some((alpha + beta) * paired_sd_ratio / (pairs as f64).sqrt())
}

/// The fewest pairs whose [`minimum_detectable_effect`] is at most
/// `effect`, searching up to `most`; `None` when even `most` is not enough.
pub fn pairs_to_resolve(paired_sd_ratio: f64, effect: f64, most: u64) -> Option<u64> {
    (2..=most).find(|&n| minimum_detectable_effect(paired_sd_ratio, n).is_some_and(|m| m <= effect))
}

/// Standard deviation of (arm − baseline) / mean(baseline) over the
/// repetitions where both ran.
fn paired_sd_ratio(
    result: &RunResult,
    point: usize,
    metric: MetricId,
    arm: &ArmId,
    baseline: &ArmId,
) -> Option<f64> {
    let values = |id: &ArmId| -> Vec<(u32, f64)> {
        let path = result
            .config
            .arms
            .iter()
            .find(|a| &a.id == id)
            .map(|a| a.path.clone())
            .unwrap_or_default();
        result
            .trials
            .iter()
            .filter(|t| t.point == point && &t.arm == id)
            .filter_map(|t| Some((t.repetition, measure_trial_on(t, &path).value(metric)?)))
            .collect()
    };
    let (arm_values, base_values) = (values(arm), values(baseline));
    let base_mean = mean(&base_values.iter().map(|(_, v)| *v).collect::<Vec<_>>())?;
    if base_mean == 0.0 {
        return None;
    }
    let differences: Vec<f64> = arm_values
        .iter()
        .filter_map(|(rep, a)| {
            let (_, b) = base_values.iter().find(|(r, _)| r == rep)?;
            Some((a - b) / base_mean)
        })
        .collect();
    sample_standard_deviation(&differences)
}

/// Wall time one repetition of two arms took at `point`, seconds: twice
/// the mean gap between the starts of consecutive trials of the run that
/// began at this point.
fn seconds_per_pair(result: &RunResult, point: usize) -> f64 {
    let gaps: Vec<f64> = result
        .trials
        .windows(2)
        .filter(|w| w[0].point == point && ran(&w[0]))
        .map(|w| {
            w[1].started_at_unix_ms
                .saturating_sub(w[0].started_at_unix_ms) as f64
                / 1e3
        })
        .collect();
    mean(&gaps).map_or(0.0, |gap| 2.0 * gap)
}

fn ran(trial: &Trial) -> bool {
    matches!(trial.outcome, TrialOutcome::Ok(_))
}

/// The MTU of the shaped link (the calibration's router → server link),
/// else 1500.
fn link_mtu_bytes(result: &RunResult) -> u32 {
    result
        .testbed
        .as_ref()
        .and_then(|t| {
            t.links
                .iter()
                .find(|l| l.between[1] == t.server_node)
                .map(|l| l.mtu_bytes)
        })
        .filter(|mtu| *mtu > 0)
        .unwrap_or(1500)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SETUP: CalibrationSetup = CalibrationSetup {
        link_rate_bps: 400_000_000,
        v6_rate_ratio: 0.95,
        framing_bytes: 14,
    };

    #[test]
    fn tcp_truth_is_the_class_ratio_times_the_mss_ratio() {
        // MSS 1448 (IPv4) and 1428 (IPv6) on a 1500-byte MTU: both
        // families fill 1514-byte frames, so only the payload differs.
        let truth = true_relative_difference(TestKind::TcpStream, 64, 1500, &SETUP).unwrap();
        let expected = 0.95 * 1428.0 / 1448.0 - 1.0;
        assert!((truth - expected).abs() < 1e-12, "{truth}");
        assert!((truth - -0.0631).abs() < 0.0001, "{truth}");
    }

    #[test]
    fn udp_truth_counts_each_familys_packet_and_refuses_fragments() {
        let truth = true_relative_difference(TestKind::UdpStream, 1408, 1500, &SETUP).unwrap();
        let expected = 0.95 * (1408.0 / 1470.0) / (1408.0 / 1450.0) - 1.0;
        assert!((truth - expected).abs() < 1e-12);
        assert_eq!(
            true_relative_difference(TestKind::UdpStream, 1460, 1500, &SETUP),
            None,
            "1460 B fragments over IPv6"
        );
        assert_eq!(
            true_relative_difference(TestKind::TcpRr, 64, 1500, &SETUP),
            None
        );
    }

    #[test]
    fn the_minimum_detectable_effect_shrinks_with_the_square_root_of_pairs() {
        assert_eq!(minimum_detectable_effect(0.01, 1), None);
        let at_10 = minimum_detectable_effect(0.01, 10).unwrap();
        // (2.262 + 0.883) · 0.01 / √10 = 0.00995 (t tables).
        assert!((at_10 - 0.00995).abs() < 0.0001, "{at_10}");
        let at_40 = minimum_detectable_effect(0.01, 40).unwrap();
        assert!(at_40 < at_10 / 1.9 && at_40 > at_10 / 2.3, "{at_40}");
        assert_eq!(pairs_to_resolve(0.01, 0.00995, 100), Some(10));
        assert_eq!(pairs_to_resolve(0.01, 0.0001, 100), None);
    }
}

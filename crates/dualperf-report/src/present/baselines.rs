//! Which baseline each comparison names. A designed experiment compares
//! arms with different baselines (IPv6 under load against IPv4 under the
//! same load, IPv4 under load against IPv4 alone); every heading that says
//! "vs …" must name the comparison's own baseline, never the run's by
//! assumption. The baselines come from the analysis (each
//! [`Comparison`] names its own), so a stored run reads them as stored.

use dualperf_model::{Analysis, ArmId, Comparison};

/// The baseline every comparison of `analysis` names, when they all name
/// the same one; `None` when the design compares with several (or nothing
/// was compared).
pub fn shared_baseline(analysis: &Analysis) -> Option<&ArmId> {
    let mut baselines = analysis
        .comparisons
        .iter()
        .map(|c: &Comparison| &c.baseline);
    let first = baselines.next()?;
    baselines.all(|b| b == first).then_some(first)
}

/// The baseline `arm` is compared with at `point`, if it is compared.
pub fn baseline_of<'a>(analysis: &'a Analysis, point: usize, arm: &ArmId) -> Option<&'a ArmId> {
    analysis
        .comparisons
        .iter()
        .find(|c| c.point == point && &c.arm == arm)
        .map(|c| &c.baseline)
}

#[cfg(test)]
mod tests {
    use dualperf_model::{MetricId, Summary};

    use super::*;

    fn comparison(arm: &str, baseline: &str) -> Comparison {
        Comparison {
            point: 0,
            metric: MetricId::GoodputBps,
            arm: ArmId::new(arm).unwrap(),
            baseline: ArmId::new(baseline).unwrap(),
            arm_summary: Summary::default(),
            baseline_summary: Summary::default(),
            pairs: 3,
            difference_mean: 0.0,
            difference_ci95: None,
            relative_difference: None,
            relative_difference_ci95: None,
            significant: false,
            theoretical_relative_difference: None,
            warnings: Vec::new(),
            p_value: None,
            adjusted_p_value: None,
            attribution: None,
        }
    }

    #[test]
    fn one_baseline_is_shared_and_two_are_not() {
        let mut analysis = Analysis {
            comparisons: vec![comparison("v6", "v4"), comparison("v6-6in4", "v4")],
            ..Analysis::default()
        };
        assert_eq!(shared_baseline(&analysis).map(ArmId::as_str), Some("v4"));
        analysis.comparisons.push(comparison("v6-load", "v4-load"));
        assert_eq!(shared_baseline(&analysis), None);
        let arm = ArmId::new("v6-load").unwrap();
        assert_eq!(
            baseline_of(&analysis, 0, &arm).map(ArmId::as_str),
            Some("v4-load")
        );
    }
}

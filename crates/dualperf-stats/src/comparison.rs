//! Repetitions and the comparison of every arm with the baseline arm:
//! [`analyse`].
//!
//! For every point and every metric:
//!
//! 1. **Per arm**: a [`Summary`] over the arm's successful repetitions
//!    (mean, sample sd, CV, min, max, median, Student-t 95 % CI with R − 1
//!    degrees of freedom).
//! 2. **Paired difference**: for every arm but the baseline
//!    ([`RunConfig::baseline`](dualperf_model::RunConfig::baseline), native
//!    IPv4 unless the user chose another), repetition k of the arm is paired
//!    with repetition k of the baseline (they ran next to each other when
//!    interleaved, so machine drift hits both alike); the differences
//!    arm − baseline get a mean and a Student-t 95 % CI with (pairs − 1)
//!    degrees of freedom. Pairs where either trial failed are dropped.
//! 3. **Relative difference**: mean difference / baseline mean, and the CI
//!    of the difference divided by the baseline mean (the baseline mean's
//!    own uncertainty is not propagated; the CV warning flags when it
//!    matters).
//! 4. **Significant** when the difference CI excludes 0 and no trial of
//!    either arm at the point was contended ([`crate::contention`]); the
//!    p-value of the paired t-test is kept. The headline comparisons of
//!    the run (one per point and compared arm) form one family under
//!    Holm's step-down control: a headline comparison is significant only
//!    when its Holm-adjusted p-value is below 0.05 too.
//! 5. **Theory**: the header model's expected relative difference
//!    ([`crate::theory`]).
//! 6. **Attribution** of rates, latencies and every headline: the parts of
//!    the relative difference the header, encapsulation, fragmentation and
//!    CPU cost explain, and what is left ([`crate::attribution`]).
//! 7. **Warnings**, typed ([`ComparisonWarning`]): no pairs (unpaired
//!    difference of the means), fewer than 2 pairs, an arm's CV above 10 %
//!    (seed 004's criterion), failed trials, unequal repetition counts. A
//!    trial the server saw over another family than the arm's (an
//!    IPv4-mapped peer on a dual-stack socket) counts as failed and is
//!    excluded. Contended trials (the scheduler delayed the tool enough to
//!    matter) give a `Contended` warning with the strongest evidence;
//!    paced trials that missed their rate ([`crate::pacing`]) an `OffRate`
//!    warning.
//!
//! Numbers only: the report crate words verdicts and warnings. Nothing here
//! is NaN or infinite: a metric that cannot be computed for an arm is
//! absent from the summaries and comparisons and listed in
//! [`Analysis::missing`] with the reason.

use std::collections::{BTreeMap, BTreeSet};

use dualperf_meter::DEFAULT_WAITING_TIME_NS;
use dualperf_model::{
    Analysis, AnalysisMethod, Arm, ArmId, ArmPath, Comparison, ComparisonWarning,
    ContentionEvidence, IpFamily, MetricId, MetricSummary, MissingMetric, RunResult, Summary,
    TestSpec, Trial, TrialOutcome,
};

use crate::attribution::{attribute, Input as AttributionInput};
use crate::contention;
use crate::extraction::measure_trial_on;
use crate::pacing::{pacing, Pacing};
use crate::relative::relative_difference_ci95;
use crate::student_t::two_sided_p_value;
use crate::summary::{confidence_interval_95, mean, sample_standard_deviation, summarise};
use crate::theory::{theoretical_relative_difference, TheoryConditions};

/// Choices of the analysis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AnalysisOptions {
    /// Warn when an arm's coefficient of variation exceeds this (0.10).
    pub cv_warning_ratio: f64,
}

impl Default for AnalysisOptions {
    fn default() -> Self {
        AnalysisOptions {
            cv_warning_ratio: 0.10,
        }
    }
}

/// Analyses a run with the default options; see the module documentation.
pub fn analyse(result: &RunResult) -> Analysis {
    analyse_with(result, &AnalysisOptions::default())
}

/// Values of one metric on one arm: repetition number → value.
type Series = BTreeMap<u32, f64>;

/// Everything gathered about one arm at one point.
#[derive(Default)]
struct ArmData {
    /// metric → values by repetition.
    series: BTreeMap<MetricId, Series>,
    /// metric → reasons it was missing in some trial.
    reasons: BTreeMap<MetricId, BTreeSet<String>>,
    /// Trials that ran.
    trials: u64,
    /// Trials that failed or were excluded.
    failed: u64,
    /// Why the first one failed.
    first_error: Option<String>,
    /// Successful trials classified contended ([`crate::contention`]).
    contended: u64,
    /// Successful trials.
    succeeded: u64,
    /// The strongest contention evidence among them.
    evidence: Option<ContentionEvidence>,
    /// Pacing of the paced trials ([`crate::pacing`]).
    pacing: PacingTally,
    /// Wire checks of the successful trials ([`crate::wire`]).
    wire: crate::wire::WireTally,
}

/// How an arm's paced trials at one point kept their rate.
#[derive(Default)]
struct PacingTally {
    /// Paced trials that ran to the end.
    trials: u64,
    /// Those off rate.
    off: u64,
    /// The rate asked.
    asked_bps: f64,
    /// The trial furthest off (achieved / asked − 1).
    worst_trial: Option<f64>,
    /// The interval furthest off among the off trials.
    worst_interval: Option<f64>,
}

impl PacingTally {
    fn add(&mut self, pacing: &Pacing) {
        self.trials += 1;
        self.asked_bps = pacing.asked_bps;
        let further = |kept: Option<f64>, new: f64| match kept {
            Some(kept) if kept.abs() >= new.abs() => Some(kept),
            _ => Some(new),
        };
        if pacing.is_off() {
            self.off += 1;
            self.worst_trial = further(self.worst_trial, pacing.trial_ratio);
            if let Some(interval) = pacing.worst_interval_ratio {
                self.worst_interval = further(self.worst_interval, interval);
            }
        }
    }

    fn warning(&self, arm: &ArmId) -> Option<ComparisonWarning> {
        (self.off > 0).then(|| ComparisonWarning::OffRate {
            arm: arm.clone(),
            off: self.off,
            trials: self.trials,
            asked_bps: self.asked_bps,
            worst_trial_ratio: self.worst_trial.unwrap_or(0.0),
            worst_interval_ratio: self.worst_interval,
        })
    }
}

/// Everything gathered about one point before summarising.
#[derive(Default)]
struct PointData<'a> {
    spec: Option<&'a TestSpec>,
    trials: Vec<&'a Trial>,
    arms: BTreeMap<ArmId, ArmData>,
}

impl PointData<'_> {
    /// Every metric any arm has a value or a reason for, in catalogue order.
    fn metrics(&self) -> BTreeSet<MetricId> {
        self.arms
            .values()
            .flat_map(|arm| arm.series.keys().chain(arm.reasons.keys()).copied())
            .collect()
    }
}

/// The family the server should see for a trial on `arm`: the arm's own,
/// except behind a NAT64, where an IPv6 client reaches the server over IPv4.
fn server_side_family(arm: Option<&Arm>, trial: &Trial) -> IpFamily {
    match arm {
        Some(Arm {
            path: ArmPath::Nat64 { .. },
            ..
        }) => IpFamily::V4,
        Some(arm) => arm.family,
        None => trial.family,
    }
}

/// The run's arms in table order: the configured arms, then any arm that
/// only the trials name.
fn arm_order(result: &RunResult) -> Vec<ArmId> {
    let mut order: Vec<ArmId> = result.config.arms.iter().map(|a| a.id.clone()).collect();
    for trial in &result.trials {
        if !order.contains(&trial.arm) {
            order.push(trial.arm.clone());
        }
    }
    order
}

/// Analyses a run; see the module documentation.
pub fn analyse_with(result: &RunResult, options: &AnalysisOptions) -> Analysis {
    let mut points: BTreeMap<usize, PointData> = BTreeMap::new();
    for (index, spec) in result.config.points.iter().enumerate() {
        points.entry(index).or_default().spec = Some(spec);
    }
    for trial in &result.trials {
        let arm = result.config.arm(&trial.arm);
        let point = points.entry(trial.point).or_default();
        point.spec.get_or_insert(&trial.spec);
        point.trials.push(trial);
        let data = point.arms.entry(trial.arm.clone()).or_default();
        data.trials += 1;
        if let TrialOutcome::Failed { error } = &trial.outcome {
            data.failed += 1;
            data.first_error.get_or_insert_with(|| error.clone());
            continue;
        }
        // A "v6" session the server saw as IPv4 (an IPv4-mapped peer) measured
        // the wrong family: counting it would compare IPv4 with itself.
        let expected = server_side_family(arm, trial);
        if let Some(seen) = trial.server_seen_family.filter(|&seen| seen != expected) {
            data.failed += 1;
            data.first_error.get_or_insert_with(|| {
                format!(
                    "the server saw the {} trial as {}; excluded",
                    expected.label(),
                    seen.label()
                )
            });
            continue;
        }
        data.succeeded += 1;
        if let Some(evidence) = contention::classify(trial) {
            data.contended += 1;
            let stronger = data
                .evidence
                .as_ref()
                .is_none_or(|kept| contention::strength(&evidence) > contention::strength(kept));
            if stronger {
                data.evidence = Some(evidence);
            }
        }
        if let Some(pacing) = pacing(trial) {
            data.pacing.add(&pacing);
        }
        data.wire.add(trial);
        let path = arm.map(|a| a.path.clone()).unwrap_or_default();
        let measured = measure_trial_on(trial, &path);
        for (metric, value) in measured.values {
            data.series
                .entry(metric)
                .or_default()
                .insert(trial.repetition, value);
        }
        for (metric, reason) in measured.missing {
            data.reasons.entry(metric).or_default().insert(reason);
        }
    }

    let mut analysis = Analysis {
        method: Some(method(options)),
        ..Analysis::default()
    };
    let context = RunContext {
        result,
        arms: arm_order(result),
        contrasts: crate::contrast::contrasts(&result.config),
        options,
    };
    for (&index, point) in &points {
        analyse_point(index, point, &context, &mut analysis);
    }
    crate::load_flows::analyse_load_flows(result, &mut analysis);
    analysis.regimes = crate::regime::regimes(result);
    crate::regime::withhold_beyond_link(&analysis.regimes, &mut analysis.comparisons);
    let control = control_headline_comparisons(result, &mut analysis.comparisons);
    if let Some(method) = analysis.method.as_mut() {
        method.multiple_comparisons = Some(control);
    }
    analysis
}

/// Family-wise significance level of the headline comparisons.
pub const ALPHA: f64 = 0.05;

/// Holm's step-down adjustment of `p_values` (in any order): the adjusted
/// p-value of the i-th smallest of m is `max over j ≤ i of min(1, (m − j + 1)·p(j))`.
/// Returned in the input order.
pub fn holm_adjusted(p_values: &[f64]) -> Vec<f64> {
    let m = p_values.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p_values[a].total_cmp(&p_values[b]));
    let mut adjusted = vec![0.0; m];
    let mut running: f64 = 0.0;
    for (rank, &index) in order.iter().enumerate() {
        let scaled = ((m - rank) as f64 * p_values[index]).min(1.0);
        running = running.max(scaled);
        adjusted[index] = running;
    }
    adjusted
}

/// Multiple-comparison control over the run's headline comparisons (one
/// per point and compared arm, [`MetricId::headline`], those with a
/// p-value): Holm-adjusted p-values; a comparison significant on its own
/// but not after adjustment loses its significance and gets a
/// `MultipleComparisons` warning.
fn control_headline_comparisons(
    result: &RunResult,
    comparisons: &mut [Comparison],
) -> dualperf_model::MultipleComparisonControl {
    let headline_of = |point: usize| {
        result
            .config
            .points
            .get(point)
            .map(MetricId::headline_of)
            .or_else(|| {
                result
                    .trials
                    .iter()
                    .find(|t| t.point == point)
                    .map(|t| MetricId::headline_of(&t.spec))
            })
    };
    let family: Vec<usize> = comparisons
        .iter()
        .enumerate()
        .filter(|(_, c)| c.p_value.is_some() && headline_of(c.point) == Some(c.metric))
        .map(|(index, _)| index)
        .collect();
    let p_values: Vec<f64> = family
        .iter()
        .filter_map(|&index| comparisons[index].p_value)
        .collect();
    let adjusted = holm_adjusted(&p_values);
    let m = family.len() as u64;
    for (&index, &adjusted) in family.iter().zip(&adjusted) {
        let comparison = &mut comparisons[index];
        comparison.adjusted_p_value = Some(adjusted);
        if comparison.significant && adjusted >= ALPHA {
            comparison.significant = false;
            comparison
                .warnings
                .push(ComparisonWarning::MultipleComparisons {
                    comparisons: m,
                    p_value: comparison.p_value.unwrap_or(adjusted),
                    adjusted_p_value: adjusted,
                });
        }
    }
    dualperf_model::MultipleComparisonControl {
        method: dualperf_model::AdjustmentMethod::Holm,
        family: "headline comparisons (one per point and compared arm)".to_string(),
        comparisons: m,
        alpha: ALPHA,
    }
}

/// The two-sided p-value of the paired t-test of `differences`; `None`
/// with fewer than 2 or without spread (the test is not defined there).
fn paired_p_value(differences: &[f64]) -> Option<f64> {
    let n = differences.len() as u64;
    let sd = sample_standard_deviation(differences).filter(|sd| *sd > 0.0)?;
    let mean = mean(differences)?;
    two_sided_p_value(mean / (sd / (n as f64).sqrt()), n - 1)
}

/// The method record stored with the analysis.
fn method(options: &AnalysisOptions) -> AnalysisMethod {
    AnalysisMethod {
        confidence_level: 0.95,
        cv_warning_ratio: options.cv_warning_ratio,
        percentile_method: "summaries and traces: linear interpolation between closest ranks \
            (Hyndman-Fan type 7); latency histograms: nearest rank over HDR buckets"
            .to_string(),
        pairing: "repetition k of every arm with repetition k of the baseline arm; Student-t \
            CI of the paired differences arm - baseline with pairs - 1 degrees of freedom"
            .to_string(),
        default_loss_waiting_time_ms: (DEFAULT_WAITING_TIME_NS / 1_000_000) as u64,
        theory: "byte-bound header model of (arm - baseline) / baseline: Ethernet with on-wire \
            extras, per-arm path MTU (else 1500), TCP with 12 B timestamps and full-size \
            segments, tunnels with their outer header, NAT64 on its IPv4 side; UDP on \
            loopback is packet-rate bound (no difference predicted); paced UDP, arms under \
            load and non-rate metrics: none"
            .to_string(),
        contention: Some(contention::THRESHOLDS),
        multiple_comparisons: None,
    }
}

/// What every point's analysis needs to know about the run.
struct RunContext<'a> {
    result: &'a RunResult,
    /// Arm ids in table order.
    arms: Vec<ArmId>,
    /// The pairs the design compares (declared, else derived).
    contrasts: Vec<dualperf_model::Contrast>,
    options: &'a AnalysisOptions,
}

fn analyse_point(index: usize, point: &PointData, run: &RunContext, analysis: &mut Analysis) {
    let mut conditions = TheoryConditions::of_trials(point.trials.iter().copied());
    if let Some(facts) = &run.result.testbed {
        conditions.shaped_hops = crate::serialisation::shaped_path(facts);
    }
    for metric in point.metrics() {
        let mut summaries: BTreeMap<&ArmId, Summary> = BTreeMap::new();
        for arm in &run.arms {
            let values: Vec<f64> = point
                .arms
                .get(arm)
                .and_then(|data| data.series.get(&metric))
                .map(|series| series.values().copied().collect())
                .unwrap_or_default();
            match summarise(&values) {
                Some(summary) => {
                    summaries.insert(arm, summary);
                    analysis.summaries.push(MetricSummary {
                        point: index,
                        arm: arm.clone(),
                        metric,
                        summary,
                    });
                }
                None => analysis.missing.push(MissingMetric {
                    point: index,
                    arm: arm.clone(),
                    metric,
                    reason: missing_reason(point.arms.get(arm), metric),
                }),
            }
        }
        let Some(spec) = point.spec else {
            continue;
        };
        for arm in &run.arms {
            // The arm the design's contrast names (crate::contrast); the arm
            // itself when it is compared with nothing.
            let baseline = crate::contrast::baseline_of(&run.contrasts, arm);
            if arm == baseline {
                continue;
            }
            let (Some(&arm_summary), Some(&baseline_summary)) =
                (summaries.get(arm), summaries.get(baseline))
            else {
                continue;
            };
            let pair = Pair {
                arm,
                baseline,
                arm_summary,
                baseline_summary,
            };
            let context = PointContext {
                point,
                spec,
                conditions: &conditions,
                run,
            };
            analysis
                .comparisons
                .push(compare(index, metric, &pair, &context));
        }
    }
}

/// Why an arm has no value of `metric` at this point.
fn missing_reason(data: Option<&ArmData>, metric: MetricId) -> String {
    let Some(data) = data.filter(|data| data.trials > 0) else {
        return "no trials ran".to_string();
    };
    if data.failed == data.trials {
        let error = data.first_error.as_deref().unwrap_or("no error recorded");
        return format!("all {} trials failed (first error: {error})", data.trials);
    }
    match data.reasons.get(&metric) {
        Some(reasons) if !reasons.is_empty() => {
            let joined: Vec<&str> = reasons.iter().map(String::as_str).collect();
            joined.join("; ")
        }
        _ => "not measured".to_string(),
    }
}

/// What a comparison needs to know about its point.
struct PointContext<'a> {
    point: &'a PointData<'a>,
    spec: &'a TestSpec,
    conditions: &'a TheoryConditions,
    run: &'a RunContext<'a>,
}

/// The two arms of one comparison and their summaries.
struct Pair<'a> {
    arm: &'a ArmId,
    baseline: &'a ArmId,
    arm_summary: Summary,
    baseline_summary: Summary,
}

/// The series of `metric` on `arm` at this point (empty when none).
fn series<'a>(point: &'a PointData, arm: &ArmId, metric: MetricId) -> Option<&'a Series> {
    point
        .arms
        .get(arm)
        .and_then(|data| data.series.get(&metric))
}

fn compare(
    point_index: usize,
    metric: MetricId,
    pair: &Pair,
    context: &PointContext,
) -> Comparison {
    let PointContext {
        point,
        spec,
        conditions,
        run,
    } = *context;
    let empty = Series::new();
    let arm_series = series(point, pair.arm, metric).unwrap_or(&empty);
    let baseline_series = series(point, pair.baseline, metric).unwrap_or(&empty);
    let differences: Vec<f64> = baseline_series
        .iter()
        .filter_map(|(repetition, base)| arm_series.get(repetition).map(|value| value - base))
        .collect();
    let pairs = differences.len() as u64;
    let mut warnings = Vec::new();
    let difference_mean = match mean(&differences) {
        Some(mean) => mean,
        None => {
            warnings.push(ComparisonWarning::Unpaired);
            pair.arm_summary.mean - pair.baseline_summary.mean
        }
    };
    // Under a precision goal the headline's repetitions followed Stein's
    // rule: its interval and test are Stein's ([`crate::stopping`]).
    let stein = run
        .result
        .config
        .goal
        .filter(|_| metric == MetricId::headline_of(spec))
        .map(|goal| {
            let by_repetition: Vec<(u32, f64)> = baseline_series
                .iter()
                .filter_map(|(repetition, base)| {
                    arm_series
                        .get(repetition)
                        .map(|value| (*repetition, value - base))
                })
                .collect();
            (
                crate::stopping::stein_interval(&by_repetition, goal.first_stage),
                crate::stopping::stein_p_value(&by_repetition, goal.first_stage),
            )
        });
    let difference_ci95 = match stein {
        Some((Some(interval), _)) => Some(interval),
        _ => confidence_interval_95(&differences),
    };
    if pairs < 2 {
        warnings.push(ComparisonWarning::FewPairs { pairs });
    }
    let paired_values: Vec<(f64, f64)> = baseline_series
        .iter()
        .filter_map(|(repetition, base)| arm_series.get(repetition).map(|value| (*base, *value)))
        .collect();
    // Relative to the baseline over the same repetitions as the mean
    // difference (with unequal repetitions the baseline's other ones would
    // put a positive quantity's change below −100 %).
    let paired_baseline: Vec<f64> = paired_values.iter().map(|(base, _)| *base).collect();
    let baseline_mean = mean(&paired_baseline).unwrap_or(pair.baseline_summary.mean);
    let relative_difference = (baseline_mean != 0.0).then(|| difference_mean / baseline_mean);
    // Log-scale interval for positive quantities: never below −100 %.
    let relative_difference_ci95 = relative_difference.and_then(|relative| {
        relative_difference_ci95(&paired_values, relative, baseline_mean, difference_ci95)
    });
    let significant = difference_ci95.is_some_and(|(low, high)| low > 0.0 || high < 0.0);
    let config = &run.result.config;
    let theory = match (config.arm(pair.arm), config.arm(pair.baseline)) {
        (Some(arm), Some(baseline)) => {
            theoretical_relative_difference(spec, metric, arm, baseline, conditions).or_else(|| {
                // Latency on a shaped path: the header's serialisation.
                crate::serialisation::latency_difference(
                    spec,
                    metric,
                    arm,
                    baseline,
                    &conditions.shaped_hops,
                    baseline_mean,
                )
            })
        }
        _ => None,
    };

    for (arm, summary) in [
        (pair.baseline, &pair.baseline_summary),
        (pair.arm, &pair.arm_summary),
    ] {
        let threshold = run.options.cv_warning_ratio;
        if let Some(cv) = summary.coefficient_of_variation {
            if cv > threshold {
                warnings.push(ComparisonWarning::Unstable {
                    arm: arm.clone(),
                    coefficient_of_variation: cv,
                    threshold,
                });
            }
        }
        if let Some(data) = point.arms.get(arm).filter(|data| data.failed > 0) {
            warnings.push(ComparisonWarning::FailedTrials {
                arm: arm.clone(),
                failed: data.failed,
                trials: data.trials,
            });
        }
    }
    // Contended trials withhold significance: the difference may be the
    // scheduler's. Baseline first, then the arm.
    let mut contended = false;
    for arm in [pair.baseline, pair.arm] {
        let Some(data) = point.arms.get(arm).filter(|data| data.contended > 0) else {
            continue;
        };
        if let Some(evidence) = &data.evidence {
            contended = true;
            warnings.push(ComparisonWarning::Contended {
                arm: arm.clone(),
                contended: data.contended,
                trials: data.succeeded,
                evidence: evidence.clone(),
            });
        }
    }
    // A trial the wire contradicts withholds significance too.
    let mut miswired = false;
    for arm in [pair.baseline, pair.arm] {
        if let Some(warning) = point.arms.get(arm).and_then(|d| d.wire.warning(arm)) {
            miswired = true;
            warnings.push(warning);
        }
    }
    let significant = significant && !contended && !miswired;
    for arm in [pair.baseline, pair.arm] {
        if let Some(warning) = point.arms.get(arm).and_then(|d| d.pacing.warning(arm)) {
            warnings.push(warning);
        }
    }
    if pair.arm_summary.count != pair.baseline_summary.count {
        warnings.push(ComparisonWarning::UnequalRepetitions {
            arm_count: pair.arm_summary.count,
            baseline_count: pair.baseline_summary.count,
            pairs,
        });
    }

    let attribution = match (
        config.arm(pair.arm),
        config.arm(pair.baseline),
        relative_difference,
    ) {
        (Some(arm), Some(baseline), Some(measured)) => attribute(&AttributionInput {
            spec,
            metric,
            arm,
            baseline,
            conditions,
            trials: &point.trials,
            measured,
            theory,
        }),
        _ => None,
    };

    Comparison {
        point: point_index,
        metric,
        arm: pair.arm.clone(),
        baseline: pair.baseline.clone(),
        arm_summary: pair.arm_summary,
        baseline_summary: pair.baseline_summary,
        pairs,
        difference_mean,
        difference_ci95,
        relative_difference,
        relative_difference_ci95,
        significant,
        theoretical_relative_difference: theory,
        warnings,
        p_value: match stein {
            Some((Some(_), p_value)) => p_value,
            _ => paired_p_value(&differences),
        },
        adjusted_p_value: None,
        attribution,
    }
}

#[cfg(test)]
mod tests;

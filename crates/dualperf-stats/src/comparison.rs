//! Repetitions and the IPv4-versus-IPv6 comparison: [`analyse`].
//!
//! For every point and every metric:
//!
//! 1. **Per family**: a [`Summary`] over the successful repetitions (mean,
//!    sample sd, CV, min, max, median, Student-t 95 % CI with R − 1 degrees
//!    of freedom).
//! 2. **Paired difference**: repetition k of IPv4 is paired with repetition
//!    k of IPv6 (they ran next to each other when interleaved, so machine
//!    drift hits both alike); the differences v6 − v4 get a mean and a
//!    Student-t 95 % CI with (pairs − 1) degrees of freedom. Pairs where
//!    either trial failed are dropped. Fewer than 2 pairs: no CI, and a
//!    warning says why.
//! 3. **Relative difference**: mean difference / IPv4 mean, and the CI of the
//!    difference divided by the IPv4 mean (the IPv4 mean's own uncertainty
//!    is not propagated; the warning on CV flags when it matters).
//! 4. **Significant** when the difference CI excludes 0.
//! 5. **Theory**: the header model's expected relative difference
//!    ([`crate::theory`]).
//! 6. **Warnings**: a family's CV above 10 % ("unstable: repeat more or run
//!    longer", seed 004's criterion), failed trials, unequal repetition
//!    counts. A trial the server saw over the other family (an IPv4-mapped
//!    peer on a dual-stack socket) counts as failed and is excluded.
//!
//! Nothing here is NaN or infinite: a metric that cannot be computed for a
//! family is absent from the comparisons and listed in
//! [`Analysis::missing`] with the reason.

use std::collections::{BTreeMap, BTreeSet};

use dualperf_model::{
    Analysis, AnalysisMethod, Comparison, IpFamily, Metric, MetricSummary, PerFamily, RunResult,
    Summary, TestSpec, Trial, TrialOutcome,
};

use crate::catalogue::{known, order_of};
use crate::extraction::measure_trial;
use crate::ippm::loss::DEFAULT_WAITING_TIME_NS;
use crate::summary::{confidence_interval_95, mean, summarise};
use crate::theory::{theoretical_relative_difference, TheoryConditions};
use crate::verdict::{percent, verdict, VerdictInput};

/// Choices of the analysis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AnalysisOptions {
    /// Warn when a family's coefficient of variation exceeds this (0.10).
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

/// Values of one metric of one family: repetition number → value.
type Series = BTreeMap<u32, f64>;

/// Everything gathered about one point before summarising.
#[derive(Default)]
struct PointData<'a> {
    spec: Option<&'a TestSpec>,
    trials: Vec<&'a Trial>,
    /// metric name → (metric, per-family series).
    series: BTreeMap<String, (Metric, PerFamily<Series>)>,
    /// metric name → per-family reasons it was missing in some trial.
    reasons: BTreeMap<String, PerFamily<BTreeSet<String>>>,
    /// Per family: (trials, failed trials, first error).
    outcomes: PerFamily<(u32, u32, Option<String>)>,
}

/// Analyses a run; see the module documentation.
pub fn analyse_with(result: &RunResult, options: &AnalysisOptions) -> Analysis {
    let mut points: BTreeMap<usize, PointData> = BTreeMap::new();
    for (index, spec) in result.config.points.iter().enumerate() {
        points.entry(index).or_default().spec = Some(spec);
    }
    for trial in &result.trials {
        let point = points.entry(trial.point).or_default();
        point.spec.get_or_insert(&trial.spec);
        point.trials.push(trial);
        let outcome = point.outcomes.get_mut(trial.family);
        outcome.0 += 1;
        if let TrialOutcome::Failed { error } = &trial.outcome {
            outcome.1 += 1;
            outcome.2.get_or_insert_with(|| error.clone());
            continue;
        }
        // A "v6" session the server saw as IPv4 (an IPv4-mapped peer) measured
        // the wrong family: counting it would compare IPv4 with itself.
        if let Some(seen) = trial
            .server_seen_family
            .filter(|&seen| seen != trial.family)
        {
            outcome.1 += 1;
            outcome.2.get_or_insert_with(|| {
                format!(
                    "the server saw the {} trial as {}; excluded",
                    trial.family.label(),
                    seen.label()
                )
            });
            continue;
        }
        let measured = measure_trial(trial);
        for (metric, value) in measured.values {
            let entry = point
                .series
                .entry(metric.name.clone())
                .or_insert_with(|| (metric, PerFamily::default()));
            entry
                .1
                .get_mut(trial.family)
                .insert(trial.repetition, value);
        }
        for (name, reason) in measured.missing {
            let reasons = point.reasons.entry(name).or_default();
            reasons.get_mut(trial.family).insert(reason);
        }
    }

    let mut analysis = Analysis {
        method: Some(method(options)),
        ..Analysis::default()
    };
    let families: Vec<IpFamily> = if result.config.families.is_empty() {
        IpFamily::ALL.to_vec()
    } else {
        result.config.families.clone()
    };
    for (&index, point) in &points {
        analyse_point(index, point, &families, options, &mut analysis);
    }
    analysis
}

/// The method record stored with the analysis.
fn method(options: &AnalysisOptions) -> AnalysisMethod {
    AnalysisMethod {
        confidence_level: 0.95,
        cv_warning_ratio: options.cv_warning_ratio,
        percentile_method: "summaries and traces: linear interpolation between closest ranks \
            (Hyndman-Fan type 7); latency histograms: nearest rank over HDR buckets"
            .to_string(),
        pairing: "repetition k of IPv4 with repetition k of IPv6; Student-t CI of the paired \
            differences with pairs - 1 degrees of freedom"
            .to_string(),
        default_loss_waiting_time_ms: (DEFAULT_WAITING_TIME_NS / 1_000_000) as u64,
        theory: "byte-bound header model: Ethernet with on-wire extras, per-family path MTU \
            (else 1500), TCP with 12 B timestamps and full-size segments; UDP on loopback is \
            packet-rate bound (no difference predicted); paced UDP and non-rate metrics: none"
            .to_string(),
    }
}

fn analyse_point(
    index: usize,
    point: &PointData,
    families: &[IpFamily],
    options: &AnalysisOptions,
    analysis: &mut Analysis,
) {
    let conditions = TheoryConditions::of_trials(point.trials.iter().copied());
    // Every metric seen in a value or a reason, in catalogue order.
    let mut names: Vec<&String> = point.series.keys().chain(point.reasons.keys()).collect();
    names.sort_by_key(|name| (order_of(name), name.to_string()));
    names.dedup();

    for name in names {
        let series = point.series.get(name);
        let summaries = PerFamily::from_fn(|family| {
            let values: Vec<f64> = series
                .map(|(_, s)| s.get(family).values().copied().collect())
                .unwrap_or_default();
            summarise(&values)
        });
        for &family in families {
            if summaries.get(family).is_none() {
                let reason = missing_reason(point, name, family);
                analysis.missing.push((index, name.clone(), reason));
            }
        }
        let Some((metric, series)) = series else {
            continue;
        };
        analysis.summaries.push(MetricSummary {
            point: index,
            metric: metric.clone(),
            per_family: summaries,
        });
        if let (Some(v4), Some(v6)) = (summaries.v4, summaries.v6) {
            let spec = point.spec.expect("every point with trials has a spec");
            let context = PointContext {
                point,
                spec,
                conditions: &conditions,
                options,
            };
            analysis.comparisons.push(compare(
                index,
                metric,
                series,
                PerFamily { v4, v6 },
                &context,
            ));
        }
    }
}

/// Why `family` has no value of `name` at this point.
fn missing_reason(point: &PointData, name: &str, family: IpFamily) -> String {
    let (trials, failed, first_error) = point.outcomes.get(family);
    let label = family.label();
    if *trials == 0 {
        return format!("{label}: no trials ran");
    }
    if failed == trials {
        let error = first_error.as_deref().unwrap_or("no error recorded");
        return format!("{label}: all {trials} trials failed (first error: {error})");
    }
    match point.reasons.get(name).map(|r| r.get(family)) {
        Some(reasons) if !reasons.is_empty() => {
            let joined: Vec<&str> = reasons.iter().map(String::as_str).collect();
            format!("{label}: {}", joined.join("; "))
        }
        _ => format!("{label}: not measured"),
    }
}

/// What a comparison needs to know about its point.
struct PointContext<'a> {
    point: &'a PointData<'a>,
    spec: &'a TestSpec,
    conditions: &'a TheoryConditions,
    options: &'a AnalysisOptions,
}

fn compare(
    point_index: usize,
    metric: &Metric,
    series: &PerFamily<Series>,
    per_family: PerFamily<Summary>,
    context: &PointContext,
) -> Comparison {
    let PointContext {
        point,
        spec,
        conditions,
        options,
    } = *context;
    let differences: Vec<f64> = series
        .v4
        .iter()
        .filter_map(|(repetition, v4)| series.v6.get(repetition).map(|v6| v6 - v4))
        .collect();
    let pairs = differences.len() as u64;
    let mut warnings = Vec::new();
    let difference_mean = match mean(&differences) {
        Some(mean) => mean,
        None => {
            warnings.push(
                "no repetition succeeded for both families: difference of the means, unpaired"
                    .to_string(),
            );
            per_family.v6.mean - per_family.v4.mean
        }
    };
    let difference_ci95 = confidence_interval_95(&differences);
    if pairs < 2 {
        warnings.push(format!(
            "only {pairs} paired repetition{}: no confidence interval (use --repeat 2 or more)",
            if pairs == 1 { "" } else { "s" }
        ));
    }
    let v4_mean = per_family.v4.mean;
    let relative_difference = (v4_mean != 0.0).then(|| difference_mean / v4_mean);
    let relative_difference_ci95 = difference_ci95
        .filter(|_| v4_mean != 0.0)
        .map(|(low, high)| {
            let (a, b) = (low / v4_mean, high / v4_mean);
            (a.min(b), a.max(b))
        });
    let significant = difference_ci95.is_some_and(|(low, high)| low > 0.0 || high < 0.0);
    let theory = theoretical_relative_difference(spec, &metric.name, conditions);

    for (family, summary) in per_family.iter() {
        if let Some(cv) = summary.coefficient_of_variation {
            if cv > options.cv_warning_ratio {
                warnings.push(format!(
                    "{} unstable: CV {} % > {} %; repeat more or run longer",
                    family.label(),
                    percent(cv),
                    percent(options.cv_warning_ratio)
                ));
            }
        }
        let (trials, failed, _) = point.outcomes.get(family);
        if *failed > 0 {
            warnings.push(format!(
                "{}: {failed} of {trials} trials failed",
                family.label()
            ));
        }
    }
    if per_family.v4.count != per_family.v6.count {
        warnings.push(format!(
            "unequal repetitions: IPv4 {}, IPv6 {}; {pairs} paired",
            per_family.v4.count, per_family.v6.count
        ));
    }

    let input = VerdictInput {
        v4_mean,
        v6_mean: per_family.v6.mean,
        difference_mean,
        difference_ci95,
        relative_difference,
        relative_difference_ci95,
        significant,
        theoretical_relative_difference: theory,
    };
    Comparison {
        point: point_index,
        metric: metric.clone(),
        per_family,
        pairs,
        difference_mean,
        difference_ci95,
        relative_difference,
        relative_difference_ci95,
        significant,
        theoretical_relative_difference: theory,
        verdict: verdict(known(&metric.name), &input),
        warnings,
    }
}

#[cfg(test)]
mod tests;

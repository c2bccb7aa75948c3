//! The first screen's answer in words, built from the comparisons by fixed
//! rules (no free text from anywhere else), e.g. "IPv6 TCP throughput is
//! within 2 % of IPv4 at every size (64–65507 B)" or "UDP loses 3.0× more
//! over IPv6 from 1472 B, where IPv6 fragments". Every rule runs once per
//! compared arm, naming the arm and its baseline by their labels.
//!
//! Rules, in order:
//! 1. per stream transport, the headline ([`MetricId::headline`], goodput)
//!    over the size sweep: no significant difference anywhere; within N %
//!    everywhere (N = the largest |difference| rounded up to a whole
//!    percent, when ≤ 5 %); or up to X % worse/better, naming the size;
//! 2. UDP loss above versus below the size where the arm fragments (from
//!    the trials' fragments per datagram), as a ratio arm / baseline when
//!    ≥ 1.5× apart;
//! 3. per request/response transport, connection setup and probe stream,
//!    their headline (median RTT, setup time, one-way delay) as in rule 1;
//! 4. at the largest TCP size: how much of the measured gap the header
//!    model explains, and what the CPU cost per MiB says about the rest;
//! 5. fewer than 3 repetitions: every difference is indicative only;
//!    headline comparisons resting on contended trials (first of all);
//!    how many comparisons carry instability warnings; 6. an incomplete run.
//!
//! "Significant" here means [`claims_significance`]: a CI that excludes 0
//! on at least 3 pairs with some spread.

use dualperf_model::{Arm, Comparison, ComparisonWarning, MetricId, TestKind, TestSpec};

use crate::present::contention::contention_cause;
use crate::present::value::{bytes, format_value, percent, percent_signed};
use crate::present::verdict::MIN_PAIRS_FOR_SIGNIFICANCE;
use crate::present::{attribution_rest, claims_significance, why_clause};
use crate::view::{self, transport, RunView};

/// The most sentences the first screen shows: a handful, one per contrast
/// the design asks about; the rest is in the tables.
pub(crate) const MAX_SENTENCES: usize = 8;

/// The sentences, most important first; never empty, at most
/// [`MAX_SENTENCES`] (the last then says how many more are in the tables).
pub(crate) fn headline_sentences(view: &RunView<'_>) -> Vec<String> {
    let mut sentences = all_sentences(view);
    if sentences.len() > MAX_SENTENCES {
        let more = sentences.len() - (MAX_SENTENCES - 1);
        sentences.truncate(MAX_SENTENCES - 1);
        sentences.push(format!(
            "{more} further findings are in the verdict table and the comparisons below."
        ));
    }
    sentences
}

/// Every sentence the rules produce, most important first.
fn all_sentences(view: &RunView<'_>) -> Vec<String> {
    let mut sentences = Vec::new();
    if !view.run.complete {
        let failed = view
            .run
            .trials
            .iter()
            .filter(|t| matches!(t.outcome, dualperf_model::TrialOutcome::Failed { .. }))
            .count();
        sentences.push(format!(
            "This run is incomplete ({} trials stored, {failed} failed){}; read every number below with that in mind.",
            view.run.trials.len(),
            view.run.errors.first().map_or(String::new(), |e| format!(": {e}"))
        ));
    }
    if view.run.analysis.is_none() {
        sentences.push(format!(
            "This run has not been analysed: there are no comparisons with {} to report.",
            view.baseline_label()
        ));
        return sentences;
    }
    // Real-time media: what callers hear comes first.
    sentences.extend(crate::present::media::mos_sentences(view.run));
    sentences.extend(crate::present::media::link_sentences(view.run));
    if view.run.config.repeat < MIN_PAIRS_FOR_SIGNIFICANCE as u32 {
        sentences.push(format!(
            "With {} repetition{} per arm every difference below is indicative only: {MIN_PAIRS_FOR_SIGNIFICANCE} or more are needed to call one significant.",
            view.run.config.repeat,
            if view.run.config.repeat == 1 { "" } else { "s" }
        ));
    }
    sentences.extend(contention_sentence(view));
    match crate::present::diffserv::DiffServView::of(view.run) {
        // A DiffServ run answers its design's contrasts, not arm by arm.
        Some(diffserv) => sentences.extend(diffserv.answer()),
        None => {
            for arm in view.compared_arms() {
                arm_sentences(view, arm, &mut sentences);
            }
        }
    }
    if let Some(found) = crate::present::instability::Instability::of(view.run) {
        let threshold = percent(found.threshold);
        sentences.push(if found.headline > 0 {
            format!(
                "{} of the headline comparisons {} unstable (coefficient of variation above {threshold} %), and {} comparisons of other metrics: repeat more or run longer before trusting them.",
                found.headline,
                if found.headline == 1 { "is" } else { "are" },
                found.other
            )
        } else {
            format!(
                "No headline comparison is unstable; {} comparisons of other metrics (CPU, jitter, loss …) have a coefficient of variation above {threshold} %.",
                found.other
            )
        });
    }
    if sentences.is_empty() {
        sentences.push("The run has no throughput or round-trip-time comparisons to summarise; see the tables below.".to_string());
    }
    sentences
}

/// Rule 5b: how many headline comparisons rest on contended trials, and
/// the most other programs took; first, because it qualifies every
/// sentence after it.
fn contention_sentence(view: &RunView<'_>) -> Option<String> {
    let analysis = view.run.analysis.as_ref()?;
    let headline = |c: &&Comparison| {
        view.run
            .config
            .points
            .get(c.point)
            .is_some_and(|spec| MetricId::headline_of(spec) == c.metric)
    };
    let headlines: Vec<&Comparison> = analysis.comparisons.iter().filter(headline).collect();
    let mut most: Option<&dualperf_model::ContentionEvidence> = None;
    let mut contended = 0;
    for c in &headlines {
        let evidence = c.warnings.iter().filter_map(|w| match w {
            ComparisonWarning::Contended { evidence, .. } => Some(evidence),
            _ => None,
        });
        let mut any = false;
        for e in evidence {
            any = true;
            if most.is_none_or(|m| e.foreign_cpu_ratio > m.foreign_cpu_ratio) {
                most = Some(e);
            }
        }
        contended += usize::from(any);
    }
    let most = most?;
    Some(format!(
        "{contended} of {} headline comparisons rest on trials that ran while {} (at worst): \
         none of them is called significant; measure on a quiet machine, or with \
         --rerun-contended.",
        headlines.len(),
        contention_cause(most)
    ))
}

/// Rules 1–4 for one compared arm.
fn arm_sentences(view: &RunView<'_>, arm: &Arm, sentences: &mut Vec<String>) {
    // The baseline this arm's comparisons name (a designed experiment's
    // contrast), else the run's.
    let baseline = view
        .run
        .analysis
        .as_ref()
        .and_then(|a| a.comparisons.iter().find(|c| c.arm == arm.id))
        .map_or(view.baseline_label(), |c| view.arm_label(&c.baseline));
    let names = Names {
        arm: &arm.label,
        baseline,
    };
    for kind in view::STREAM_KINDS {
        let metric = MetricId::headline(kind);
        let comparisons = view.sweep_comparisons(kind, metric, &arm.id);
        // The smallest size at which either side's datagrams fragmented.
        let fragments_from = comparisons
            .first()
            .map(|(_, c)| c.baseline.clone())
            .into_iter()
            .chain([arm.id.clone()])
            .filter_map(|id| view.fragmentation_threshold(kind, &id))
            .min();
        sentences.extend(sweep_sentence(
            &comparisons,
            &names,
            transport(kind),
            "throughput",
            fragments_from,
        ));
    }
    sentences.extend(loss_sentence(view, arm, &names));
    for (kind, quantity) in [
        (TestKind::TcpRr, "median round-trip time"),
        (TestKind::UdpRr, "median round-trip time"),
        (TestKind::TcpConnect, "median connection setup time"),
        (TestKind::UdpProbe, "median one-way delay"),
    ] {
        let name = format!("{} ({kind})", transport(kind));
        sentences.extend(sweep_sentence(
            &view.sweep_comparisons(kind, MetricId::headline(kind), &arm.id),
            &names,
            &name,
            quantity,
            None,
        ));
    }
    sentences.extend(theory_sentence(view, arm, &names));
}

/// The labels a sentence names.
struct Names<'a> {
    arm: &'a str,
    baseline: &'a str,
}

fn size_range(points: &[(&TestSpec, &Comparison)]) -> String {
    match (points.first(), points.last()) {
        (Some(first), Some(last)) if first.0.size_bytes != last.0.size_bytes => {
            format!("{}–{} B", first.0.size_bytes, last.0.size_bytes)
        }
        (Some(only), _) => bytes(only.0.size_bytes),
        _ => String::new(),
    }
}

/// Rules 1 and 3: one sentence about a metric over a size sweep;
/// `fragments_from`, the smallest size whose datagrams fragmented, names
/// the cause when the largest difference is there (a datagram is lost with
/// any of its fragments).
fn sweep_sentence(
    points: &[(&TestSpec, &Comparison)],
    names: &Names<'_>,
    transport: &str,
    quantity_name: &str,
    fragments_from: Option<u32>,
) -> Option<String> {
    let Names { arm, baseline } = *names;
    let relatives: Vec<(u32, f64, bool, bool)> = points
        .iter()
        .filter_map(|(spec, c)| {
            Some((
                spec.size_bytes,
                c.relative_difference?,
                claims_significance(c),
                c.metric.higher_is_better(),
            ))
        })
        .collect();
    let higher_is_better = relatives.first()?.3;
    let range = size_range(points);
    let (size_of_max, max_relative, _, _) = *relatives
        .iter()
        .max_by(|a, b| a.1.abs().total_cmp(&b.1.abs()))?;
    let max_abs = max_relative.abs() * 100.0;
    let significant: Vec<_> = relatives.iter().filter(|r| r.2).collect();
    let direction = |relative: f64| match (relative < 0.0, higher_is_better) {
        (true, true) => "lower (worse)",
        (false, true) => "higher (better)",
        (true, false) => "lower (better)",
        (false, false) => "higher (worse)",
    };
    let every = if relatives.len() > 1 {
        "at every size"
    } else {
        "at the one size measured"
    };
    // What the header model predicts where the difference is largest
    // (serialisation on a shaped link, the frames' ratio): the reader sees
    // at once whether the gap is the header's.
    let model = points
        .iter()
        .find(|(spec, _)| spec.size_bytes == size_of_max)
        .and_then(|(_, c)| c.theoretical_relative_difference)
        .filter(|theory| theory.abs() >= 0.001)
        .map(|theory| {
            let at = if relatives.len() > 1 {
                format!(" at {size_of_max} B")
            } else {
                String::new()
            };
            format!("; the header model predicts {}{at}", percent_signed(theory))
        })
        .unwrap_or_default();
    if significant.is_empty() {
        let sizes = if relatives.len() == 1 {
            "the one size measured".to_string()
        } else {
            format!("any of the {} sizes", relatives.len())
        };
        // Every size one way and each significant on its own, lost only to
        // the adjustment over the run's headline comparisons: say so, with
        // the model, rather than leave "no difference" standing alone.
        let pattern = adjusted_away(points)
            .filter(|_| relatives.len() == points.len())
            .map(|(low, high)| {
                let each = if relatives.len() == 1 {
                    format!("{arm} measured {}, significant on its own", signed_range(low, high))
                } else {
                    format!(
                        "{arm} measured {} at all {} sizes ({}), significant at each size on its own",
                        direction(low).split(' ').next().unwrap_or_default(),
                        relatives.len(),
                        signed_range(low, high)
                    )
                };
                format!(
                    "; {each} but not after adjusting for the run's multiple comparisons{model}"
                )
            })
            .unwrap_or_else(|| format!("; the largest difference is {max_abs:.1} %"));
        return Some(format!(
            "{arm} and {baseline} {transport} {quantity_name} do not differ significantly at {sizes} ({range}){pattern}."
        ));
    }
    let model = if significant.is_empty() {
        String::new()
    } else {
        model
    };
    let same_sign = significant
        .iter()
        .all(|r| (r.1 < 0.0) == (significant[0].1 < 0.0));
    let detail = if relatives.len() == 1 {
        format!(
            "; the difference is significant: {arm} is {}",
            direction(significant[0].1)
        )
    } else if let Some((low, high)) = adjusted_away(points).filter(|_| same_sign) {
        // The rest lost only to the adjustment, the same way: one pattern.
        format!(
            "; {arm} is {} at all {} sizes ({}): significant at {}, the other {} on their own \
             but not after adjusting for the run's multiple comparisons",
            direction(significant[0].1),
            relatives.len(),
            signed_range(low, high),
            significant.len(),
            relatives.len() - significant.len()
        )
    } else if same_sign {
        format!(
            "; where the difference is significant ({} of {} sizes) {arm} is {}",
            significant.len(),
            relatives.len(),
            direction(significant[0].1)
        )
    } else {
        format!(
            "; {} of {} differences are significant, in both directions",
            significant.len(),
            relatives.len()
        )
    };
    if max_abs <= 5.0 {
        let bound = max_abs.ceil().max(1.0);
        Some(format!("{arm} {transport} {quantity_name} is within {bound:.0} % of {baseline} {every} ({range}){detail}{model}."))
    } else {
        let fragmented = if fragments_from.is_some_and(|from| size_of_max >= from) {
            ", where datagrams are fragmented"
        } else {
            ""
        };
        let word = |relative: f64| direction(relative).split(' ').next().unwrap_or_default();
        // The largest difference is not significant but others are: lead
        // with the largest significant one, and say what the larger one was.
        let largest_significant = significant
            .iter()
            .max_by(|a, b| a.1.abs().total_cmp(&b.1.abs()))
            .filter(|r| r.0 != size_of_max);
        match largest_significant {
            Some(&&(size, relative, _, _)) => Some(format!(
                "{arm} {transport} {quantity_name}: the largest significant difference is {:.1} % \
                 {} than {baseline} (at {size} B){detail}; the largest difference, {max_abs:.1} % {} \
                 at {size_of_max} B, is not significant.",
                relative.abs() * 100.0,
                word(relative),
                word(max_relative),
            )),
            None => Some(format!(
                "{arm} {transport} {quantity_name} is up to {max_abs:.1} % {} than {baseline} (at {} B{fragmented}){detail}{model}.",
                word(max_relative),
                size_of_max
            )),
        }
    }
}

/// A significant loss gap of this much (a tenth) or more is stated as a
/// percentage, one of 1.5× or more as a ratio; a smaller one, or one under
/// 1.5× that no comparison calls significant, reads "about the same".
const SAME_LOSS_WITHIN: f64 = 0.1;

/// True when `c` was significant on its own (p < 0.05, no warning but the
/// adjustment's own) but
/// not after the multiple-comparison adjustment over the run's headline
/// comparisons.
fn lost_to_adjustment(c: &Comparison) -> bool {
    !claims_significance(c)
        && c.warnings
            .iter()
            .all(|w| matches!(w, ComparisonWarning::MultipleComparisons { .. }))
        && c.p_value.is_some_and(|p| p < 0.05)
        && c.adjusted_p_value.is_some_and(|p| p >= 0.05)
}

/// The range (low, high) of the relative differences of `points` when all
/// have one sign and each is significant after adjustment or lost only to
/// it, at least one lost; `None` otherwise.
fn adjusted_away(points: &[(&TestSpec, &Comparison)]) -> Option<(f64, f64)> {
    let all: Vec<(f64, bool)> = points
        .iter()
        .map(|(_, c)| {
            let kept = claims_significance(c);
            (kept || lost_to_adjustment(c))
                .then_some(c.relative_difference.map(|r| (r, kept)))
                .flatten()
        })
        .collect::<Option<_>>()?;
    let same_sign = all.iter().all(|(r, _)| *r < 0.0) || all.iter().all(|(r, _)| *r > 0.0);
    let some_lost = all.iter().any(|(_, kept)| !kept);
    (!all.is_empty() && same_sign && some_lost).then(|| {
        let low = all.iter().map(|(r, _)| *r).fold(f64::INFINITY, f64::min);
        let high = all
            .iter()
            .map(|(r, _)| *r)
            .fold(f64::NEG_INFINITY, f64::max);
        (low, high)
    })
}

/// "−1.6 to −1.3 %", or "−1.4 %" when both ends agree.
fn signed_range(low: f64, high: f64) -> String {
    let (a, b) = (percent_signed(low), percent_signed(high));
    if a == b {
        a
    } else {
        format!("{} to {b}", a.trim_end_matches(" %"))
    }
}

/// Rule 2: UDP loss below and above the arm's fragmentation threshold.
fn loss_sentence(view: &RunView<'_>, arm: &Arm, names: &Names<'_>) -> Option<String> {
    let Names {
        arm: label,
        baseline,
    } = *names;
    if !view.has(view::LOSS) {
        return None;
    }
    let sweep = view.sweep(TestKind::UdpStream);
    let threshold = view.fragmentation_threshold(TestKind::UdpStream, &arm.id);
    let mean_loss = |id: &dualperf_model::ArmId, above: bool| {
        let values: Vec<f64> = sweep
            .iter()
            .filter(|(_, spec)| threshold.map_or(above, |t| (spec.size_bytes >= t) == above))
            .filter_map(|(index, _)| view.summary(*index, view::LOSS, id).map(|s| s.mean))
            .collect();
        (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
    };
    let base = view.baseline();
    let (v_base, v_arm) = (mean_loss(base, true)?, mean_loss(&arm.id, true)?);
    let percent = |x: f64| format_value(view::LOSS, x);
    let place = threshold.map_or("at every size".to_string(), |t| {
        format!("from {t} B, where {label} fragments")
    });
    let ratio = if v_base > 0.0 {
        v_arm / v_base
    } else if v_arm > 0.0 {
        f64::INFINITY
    } else {
        1.0
    };
    let below = match (threshold, mean_loss(base, false), mean_loss(&arm.id, false)) {
        (Some(_), Some(b_base), Some(b_arm)) => format!(
            "; below that both lose about the same ({} vs {})",
            percent(b_arm),
            percent(b_base)
        ),
        _ => String::new(),
    };
    // Only what its comparisons call significant is stated as a fact: the
    // loss comparisons at the sizes the sentence speaks of.
    let compared: Vec<&Comparison> = view
        .sweep_comparisons(TestKind::UdpStream, view::LOSS, &arm.id)
        .into_iter()
        .filter(|(spec, _)| threshold.is_none_or(|t| spec.size_bytes >= t))
        .map(|(_, c)| c)
        .collect();
    let significant = compared.iter().filter(|c| claims_significance(c)).count();
    if (ratio >= 1.5 || ratio <= 1.0 / 1.5) && significant == 0 {
        return Some(format!(
            "UDP loss was {} over {label} than over {baseline} {place} ({} vs {} of datagrams), \
             but no loss difference there is significant: repeat more before reading it as one.",
            if ratio > 1.0 { "higher" } else { "lower" },
            percent(v_arm),
            percent(v_base)
        ));
    }
    let of = if significant < compared.len() {
        format!(
            " (significant at {significant} of {} sizes)",
            compared.len()
        )
    } else {
        String::new()
    };
    Some(if ratio >= 1.5 {
        let times = if ratio.is_finite() {
            format!("{ratio:.1}×")
        } else {
            "infinitely".to_string()
        };
        format!(
            "UDP loses {times} more over {label} {place} ({} vs {} of datagrams){of}{below}.",
            percent(v_arm),
            percent(v_base)
        )
    } else if ratio <= 1.0 / 1.5 {
        format!(
            "UDP loses {:.1}× less over {label} {place} ({} vs {} of datagrams){of}{below}.",
            1.0 / ratio,
            percent(v_arm),
            percent(v_base)
        )
    } else if significant > 0 && (ratio - 1.0).abs() >= SAME_LOSS_WITHIN {
        // 79 % against 57 % is not "about the same": a significant gap of
        // a tenth or more is said as a percentage.
        format!(
            "UDP loses {:.0} % {} over {label} {place} ({} vs {} of datagrams){of}{below}.",
            (ratio - 1.0).abs() * 100.0,
            if ratio > 1.0 { "more" } else { "less" },
            percent(v_arm),
            percent(v_base)
        )
    } else {
        format!(
            "UDP loss is about the same over {label} and {baseline} {place} ({} over {label}, {} over {baseline}).",
            percent(v_arm),
            percent(v_base)
        )
    })
}

/// Rule 4: the share of the gap the header explains at the largest TCP
/// size, and what the CPU cost per MiB says about the rest.
fn theory_sentence(view: &RunView<'_>, arm: &Arm, names: &Names<'_>) -> Option<String> {
    let label = names.arm;
    let metric = MetricId::headline(TestKind::TcpStream);
    let points = view.sweep_comparisons(TestKind::TcpStream, metric, &arm.id);
    let (spec, comparison) = points.last()?;
    let theory = comparison.theoretical_relative_difference?;
    let measured = comparison.relative_difference?;
    let inside_ci = comparison
        .relative_difference_ci95
        .is_some_and(|(l, h)| l <= theory && theory <= h);
    let why = attribution_rest(comparison).or_else(|| {
        view.run
            .analysis
            .as_ref()
            .and_then(|analysis| why_clause(analysis, comparison, label))
    });
    let verdict = if !claims_significance(comparison) {
        "the measured difference is not significant".to_string()
    } else if inside_ci {
        "the bigger header explains the gap (the prediction lies inside the measured 95 % CI)"
            .to_string()
    } else if measured.abs() > theory.abs() {
        let rest = match &why {
            Some(why) => format!("; {why}"),
            None => {
                "; the rest is not explained by the header or the measured CPU cost".to_string()
            }
        };
        format!(
            "the header explains {:.1} of the {:.1} points{rest}",
            theory.abs() * 100.0,
            measured.abs() * 100.0
        )
    } else {
        format!("{label} does better than its header predicts")
    };
    Some(format!(
        "At {} B TCP writes the header model predicts {} for {label} and {} was measured: {verdict}.",
        spec.size_bytes,
        percent_signed(theory),
        percent_signed(measured)
    ))
}

#[cfg(test)]
#[path = "summary_sentences_tests.rs"]
mod tests;

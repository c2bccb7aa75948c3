//! Words for why an arm differs ([`Attribution`], computed by the stats
//! stage): the clause every verdict line ends with.
//!
//! A significant difference is split into what explains it: "the header
//! explains 1.4 %, 5.0 % more CPU per packet on the receiver explains
//! 4.8 %; 0.2 % is unexplained". A part "explains" only what points the way
//! of the measured difference and is no larger than it; a larger one
//! "predicts", an opposite one "alone would make it" better or worse. A difference that is not significant has
//! nothing to explain; its clause says what the known causes would predict
//! ("the header predicts 1.4 % slower, 4.2 % more CPU per transaction at
//! both ends would make it 4.2 % higher latency"), or that none predicts a
//! difference. docs/metrics.md ("Attribution") defines the parts.

use dualperf_model::{Attribution, Comparison, CostUnit, CpuEnd, CpuPart, MetricId, Quantity};

use super::value::{format_quantity, percent};
use super::wording::{claims_significance, wording};

/// Below this the unexplained rest is rounding (0.05 percentage points).
const NEGLIGIBLE: f64 = 0.0005;

/// "more"/"less" in the metric's words for a change of `sign`.
fn word(metric: MetricId, change: f64) -> &'static str {
    let w = wording(metric);
    if change > 0.0 {
        w.more
    } else {
        w.less
    }
}

fn per(unit: CostUnit) -> &'static str {
    match unit {
        CostUnit::Packet => "packet",
        CostUnit::Transaction => "transaction",
        CostUnit::Connection => "connection",
    }
}

fn at(end: CpuEnd) -> &'static str {
    match end {
        CpuEnd::Sender => "on the sender",
        CpuEnd::Receiver => "on the receiver",
        CpuEnd::BothEnds => "at both ends",
    }
}

/// "5.0 % more CPU per packet on the receiver".
fn cpu_cause(cpu: &CpuPart) -> String {
    format!(
        "{} % {} CPU per {} {}",
        percent(cpu.cost_difference.abs()),
        if cpu.cost_difference > 0.0 {
            "more"
        } else {
            "less"
        },
        per(cpu.per),
        at(cpu.end)
    )
}

/// "X explains 1.4 %" when `part` points the way of `measured` and is no
/// larger; "X predicts 13 % slower" when it is larger; else "X alone would
/// make it 1.4 % faster".
fn explains(cause: &str, part: f64, measured: f64, metric: MetricId) -> String {
    if part.signum() == measured.signum() && part.abs() <= measured.abs() {
        format!("{cause} explains {} %", percent(part.abs()))
    } else if part.signum() == measured.signum() {
        format!(
            "{cause} predicts {} % {}",
            percent(part.abs()),
            word(metric, part)
        )
    } else {
        format!(
            "{cause} alone would make it {} % {}",
            percent(part.abs()),
            word(metric, part)
        )
    }
}

/// The header's part of a significant difference. A prediction inside the
/// measured difference's 95 % CI explains it even when a hair larger than
/// the point estimate (the measurement cannot tell them apart). A latency
/// part also gets its time: "the header explains 15 % (16.0 µs)" (the part
/// times the baseline mean: for a shaped lab path, 20 B × 8 / 10 Mbit/s).
fn header_explains(c: &Comparison, header: f64) -> String {
    let measured = c.attribution.as_ref().map_or(0.0, |a| a.measured);
    let within_ci = c
        .relative_difference_ci95
        .is_some_and(|(low, high)| low <= header && header <= high);
    let mut clause = if within_ci && header.signum() == measured.signum() {
        format!("the header explains {} %", percent(header.abs()))
    } else {
        explains("the header", header, measured, c.metric)
    };
    if c.metric.quantity() == Quantity::Nanoseconds {
        let time = header.abs() * c.baseline_summary.mean;
        clause.push_str(&format!(
            " ({})",
            format_quantity(Quantity::Nanoseconds, time)
        ));
    }
    clause
}

/// The parts other than the header, for a significant difference.
fn other_parts(a: &Attribution, metric: MetricId) -> Vec<String> {
    let mut parts = Vec::new();
    if let Some(e) = a.encapsulation.filter(|e| *e != 0.0) {
        parts.push(explains("the encapsulation", e, a.measured, metric));
    }
    if let Some(f) = a.fragmentation.filter(|f| f.explained != 0.0) {
        let cause = format!(
            "fragmentation ({} fragments per datagram against {})",
            f.arm_fragments, f.baseline_fragments
        );
        parts.push(explains(&cause, f.explained, a.measured, metric));
    }
    if let Some(cpu) = &a.cpu {
        parts.push(explains(&cpu_cause(cpu), cpu.explained, a.measured, metric));
    }
    if let Some(f) = &a.forwarder {
        parts.push(format!(
            "{}: it is the bottleneck and explains {} %",
            forwarder_cause(f),
            percent(f.explained.abs())
        ));
    }
    parts
}

/// "the path's user-space forwarder (the lab's TAYGA for NAT64) used 0.97
/// cores (4.9 µs of CPU per packet)".
fn forwarder_cause(f: &dualperf_model::forwarder::ForwarderPart) -> String {
    let per_packet = f
        .ns_per_packet
        .map(|ns| {
            format!(
                ", {} of CPU per packet",
                format_quantity(Quantity::Nanoseconds, ns)
            )
        })
        .unwrap_or_default();
    format!(
        "the path's user-space forwarder (TAYGA, the NAT64 translator, in the lab) used {:.2} cores{per_packet}",
        f.cores
    )
}

/// What is left: "0.2 % is unexplained", "nothing is left unexplained",
/// "together they predict 0.3 % more than measured".
fn rest(a: &Attribution, metric: MetricId) -> String {
    let u = a.unexplained;
    if u.abs() < NEGLIGIBLE {
        "nothing is left unexplained".to_string()
    } else if u.signum() == a.measured.signum() {
        format!("{} % is unexplained", percent(u.abs()))
    } else {
        format!(
            "together they predict {} % {} than measured",
            percent(u.abs()),
            word(metric, -u)
        )
    }
}

/// The clause a verdict ends with, from the comparison's attribution;
/// `None` without one (the verdict then falls back on the header model).
pub fn attribution_clause(c: &Comparison) -> Option<String> {
    let a = c.attribution.as_ref()?;
    let metric = c.metric;
    if !claims_significance(c) {
        return Some(predictions(a, metric));
    }
    let mut parts = Vec::new();
    match a.header {
        Some(0.0) => parts.push("the header model predicts no difference".to_string()),
        Some(h) => parts.push(header_explains(c, h)),
        None => {}
    }
    parts.extend(other_parts(a, metric));
    if parts.is_empty() {
        return Some(format!(
            "nothing measured explains it ({} % is unexplained)",
            percent(a.measured.abs())
        ));
    }
    Some(format!("{}; {}", parts.join(", "), rest(a, metric)))
}

/// The parts beyond the header and what is left, for a sentence that has
/// named the header already: "5.0 % more CPU per packet on the receiver
/// explains 4.8 %; 0.2 % is unexplained". `None` unless the difference is
/// significant and attributed.
pub fn attribution_rest(c: &Comparison) -> Option<String> {
    let a = c.attribution.as_ref().filter(|_| claims_significance(c))?;
    let parts = other_parts(a, c.metric);
    if parts.is_empty() {
        return Some(rest(a, c.metric));
    }
    Some(format!("{}; {}", parts.join(", "), rest(a, c.metric)))
}

/// For a difference that is not significant: what the known causes would
/// predict.
fn predictions(a: &Attribution, metric: MetricId) -> String {
    let mut parts = Vec::new();
    let mut model = a.header.unwrap_or(0.0) + a.encapsulation.unwrap_or(0.0);
    model += a.fragmentation.map_or(0.0, |f| f.explained);
    match a.header {
        Some(_) if model == 0.0 => parts.push("the header model predicts no difference".into()),
        Some(_) => parts.push(format!(
            "the header predicts {} % {}",
            percent(model.abs()),
            word(metric, model)
        )),
        None => {}
    }
    if let Some(cpu) = &a.cpu {
        parts.push(format!(
            "{} would make it {} % {}",
            cpu_cause(cpu),
            percent(cpu.explained.abs()),
            word(metric, cpu.explained)
        ));
    }
    if let Some(f) = &a.forwarder {
        parts.push(format!(
            "{}, a bottleneck that would make it {} % {}",
            forwarder_cause(f),
            percent(f.explained.abs()),
            word(metric, f.explained)
        ));
    }
    if parts.is_empty() {
        "no known cause predicts a difference".to_string()
    } else {
        parts.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::{ArmId, FragmentationPart, IpFamily, Summary};

    fn comparison(metric: MetricId, significant: bool, attribution: Attribution) -> Comparison {
        Comparison {
            point: 0,
            metric,
            arm: ArmId::native(IpFamily::V6),
            baseline: ArmId::native(IpFamily::V4),
            arm_summary: Summary::default(),
            baseline_summary: Summary::default(),
            pairs: 3,
            difference_mean: attribution.measured,
            difference_ci95: Some((attribution.measured * 1.2, attribution.measured * 0.8)),
            relative_difference: Some(attribution.measured),
            relative_difference_ci95: None,
            significant,
            theoretical_relative_difference: attribution.header,
            warnings: Vec::new(),
            p_value: None,
            adjusted_p_value: None,
            attribution: Some(attribution),
        }
    }

    fn issue_example() -> Attribution {
        Attribution {
            measured: -0.064,
            header: Some(-0.014),
            cpu: Some(CpuPart {
                end: CpuEnd::Receiver,
                per: CostUnit::Packet,
                cost_difference: 0.05,
                explained: 1.0 / 1.05 - 1.0,
            }),
            unexplained: -0.064 + 0.014 - (1.0 / 1.05 - 1.0),
            ..Attribution::default()
        }
    }

    #[test]
    fn a_saturated_translator_is_named_as_the_bottleneck() {
        let attribution = Attribution {
            measured: -0.89,
            header: Some(-0.004),
            unexplained: 0.0,
            forwarder: Some(dualperf_model::forwarder::ForwarderPart {
                cores: 0.97,
                ns_per_packet: Some(4_850.0),
                explained: -0.886,
            }),
            ..Attribution::default()
        };
        let clause =
            attribution_clause(&comparison(MetricId::GoodputBps, true, attribution.clone()))
                .unwrap();
        assert!(
            clause.contains("TAYGA, the NAT64 translator, in the lab) used 0.97 cores"),
            "{clause}"
        );
        assert!(
            clause.contains("it is the bottleneck and explains 89 %"),
            "{clause}"
        );
        assert!(clause.ends_with("nothing is left unexplained"), "{clause}");
        let predicted =
            attribution_clause(&comparison(MetricId::GoodputBps, false, attribution)).unwrap();
        assert!(
            predicted.contains("a bottleneck that would make it 89 % slower"),
            "{predicted}"
        );
    }

    #[test]
    fn the_issue_example_names_every_part() {
        let c = comparison(MetricId::GoodputBps, true, issue_example());
        assert_eq!(
            attribution_clause(&c).unwrap(),
            "the header explains 1.4 %, 5.0 % more CPU per packet on the receiver explains \
             4.8 %; 0.24 % is unexplained"
        );
        assert_eq!(
            attribution_rest(&c).unwrap(),
            "5.0 % more CPU per packet on the receiver explains 4.8 %; 0.24 % is unexplained"
        );
    }

    #[test]
    fn a_difference_that_is_not_significant_gets_predictions() {
        let c = comparison(MetricId::GoodputBps, false, issue_example());
        assert_eq!(
            attribution_clause(&c).unwrap(),
            "the header predicts 1.4 % slower, 5.0 % more CPU per packet on the receiver \
             would make it 4.8 % slower"
        );
        assert_eq!(attribution_rest(&c), None);
        let nothing = comparison(
            MetricId::RttP50Ns,
            false,
            Attribution {
                measured: 0.17,
                unexplained: 0.17,
                ..Attribution::default()
            },
        );
        assert_eq!(
            attribution_clause(&nothing).unwrap(),
            "no known cause predicts a difference"
        );
    }

    #[test]
    fn nothing_measured_and_overshooting_parts_are_said_plainly() {
        let bare = comparison(
            MetricId::RttP50Ns,
            true,
            Attribution {
                measured: 0.025,
                unexplained: 0.025,
                ..Attribution::default()
            },
        );
        assert_eq!(
            attribution_clause(&bare).unwrap(),
            "nothing measured explains it (2.5 % is unexplained)"
        );
        let over = comparison(
            MetricId::GoodputBps,
            true,
            Attribution {
                measured: -0.02,
                header: Some(-0.014),
                fragmentation: Some(FragmentationPart {
                    arm_fragments: 2,
                    baseline_fragments: 1,
                    explained: -0.01,
                }),
                unexplained: 0.004,
                ..Attribution::default()
            },
        );
        assert_eq!(
            attribution_clause(&over).unwrap(),
            "the header explains 1.4 %, fragmentation (2 fragments per datagram against 1) \
             explains 1.0 %; together they predict 0.40 % slower than measured"
        );
    }

    #[test]
    fn a_prediction_larger_than_the_gap_explains_nothing() {
        // Loopback-free 64 B UDP: the header predicts 13 %, 2.8 % measured.
        let c = comparison(
            MetricId::GoodputBps,
            true,
            Attribution {
                measured: -0.028,
                header: Some(-0.133),
                unexplained: 0.105,
                ..Attribution::default()
            },
        );
        assert_eq!(
            attribution_clause(&c).unwrap(),
            "the header predicts 13 % slower; together they predict 10 % slower than measured"
        );
    }

    #[test]
    fn a_shaped_rtt_gap_inside_its_ci_is_explained_by_the_header_in_time() {
        // lab bottleneck --quick, tcp-rr 64 B: IPv4 103.5 µs, IPv6 119.4 µs;
        // the header predicts 16.0 µs (15.46 %), measured 15.37 %.
        let mut c = comparison(
            MetricId::RttP50Ns,
            true,
            Attribution {
                measured: 0.1537,
                header: Some(0.1546),
                unexplained: -0.0009,
                ..Attribution::default()
            },
        );
        c.baseline_summary.mean = 103_500.0;
        c.relative_difference_ci95 = Some((0.150, 0.160));
        let clause = attribution_clause(&c).unwrap();
        assert!(
            clause.starts_with("the header explains 15 % (16.0 µs)"),
            "{clause}"
        );
        assert!(!clause.contains("unexplained"), "{clause}");
    }

    #[test]
    fn a_latency_gap_is_worded_in_latency() {
        let c = comparison(
            MetricId::RttP50Ns,
            true,
            Attribution {
                measured: 0.05,
                cpu: Some(CpuPart {
                    end: CpuEnd::BothEnds,
                    per: CostUnit::Transaction,
                    cost_difference: 0.042,
                    explained: 0.042,
                }),
                unexplained: 0.008,
                ..Attribution::default()
            },
        );
        assert_eq!(
            attribution_clause(&c).unwrap(),
            "4.2 % more CPU per transaction at both ends explains 4.2 %; 0.80 % is unexplained"
        );
    }
}

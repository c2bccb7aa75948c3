//! The lab's link rate and what set each point's pace, under the verdicts
//! (issue 23): one line for the links, then the points grouped by regime,
//! each point named once; where the arms of a point differ, each arm's word.
//!
//! ```text
//! links: 400.000 Mbit/s each way (htb; --link-rate changes it)
//! network-bound: [1] tcp-stream 1408 B, [2] udp-stream 1408 B
//! cpu-bound: [3] udp-stream 64 B (IPv4 network-bound, IPv6 cpu-bound)
//! unsaturated: [4] tcp-rr 1 B, [5] udp-rr 1 B
//! ```

use std::collections::BTreeMap;

use dualperf_model::{Analysis, Regime, RunResult};

use super::context::Context;
use crate::present::regime::{link_rate_words, regime_word};

/// The block for a lab run (a result with testbed facts); `None` for
/// other runs and for analyses without regimes.
pub fn render_regimes(result: &RunResult, analysis: &Analysis) -> Option<String> {
    let testbed = result.testbed.as_ref()?;
    let context = Context::new(result, analysis);
    let mut out = String::new();
    if let Some(rate) = &testbed.link_rate {
        out.push_str(&link_rate_words(rate));
        out.push('\n');
    }
    // Per point, the arms' regimes in arm order.
    let mut per_point: BTreeMap<usize, Vec<(&dualperf_model::ArmId, Regime)>> = BTreeMap::new();
    for r in &analysis.regimes {
        per_point
            .entry(r.point)
            .or_default()
            .push((&r.arm, r.regime));
    }
    let mut groups: BTreeMap<u8, Vec<String>> = BTreeMap::new();
    for (point, arms) in &per_point {
        // A point counts under its least network-bound arm's word: a
        // comparison is only as path-bound as its weakest arm.
        let Some(worst) = arms.iter().map(|(_, r)| *r).max_by_key(|r| rank(*r)) else {
            continue;
        };
        let mut entry = format!("[{}] {}", point + 1, context.point_label(*point));
        if arms.iter().any(|(_, r)| *r != worst) {
            let each: Vec<String> = arms
                .iter()
                .map(|(arm, r)| format!("{} {}", context.names.label(arm), regime_word(*r)))
                .collect();
            entry.push_str(&format!(" ({})", each.join(", ")));
        }
        groups.entry(rank(worst)).or_default().push(entry);
    }
    for (rank, entries) in &groups {
        out.push_str(&format!(
            "{}: {}\n",
            regime_word(of_rank(*rank)),
            entries.join(", ")
        ));
    }
    (!out.is_empty()).then_some(out)
}

/// Order of the groups: network-bound first, CPU-bound last.
fn rank(regime: Regime) -> u8 {
    match regime {
        Regime::NetworkBound => 0,
        Regime::Unsaturated => 1,
        Regime::CpuBound => 2,
    }
}

fn of_rank(rank: u8) -> Regime {
    match rank {
        0 => Regime::NetworkBound,
        1 => Regime::Unsaturated,
        _ => Regime::CpuBound,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::{ArmId, IpFamily, LinkRate, PointRegime, TestKind, TestbedFacts};

    fn regime(point: usize, family: IpFamily, regime: Regime) -> PointRegime {
        PointRegime {
            point,
            arm: ArmId::native(family),
            regime,
            link_bits_per_second: Some(400_000_000),
            link_share: None,
            busiest_end_cores: None,
        }
    }

    #[test]
    fn points_are_grouped_by_their_weakest_arm_and_mixed_ones_say_each_arm() {
        let points = vec![
            dualperf_fixtures::spec(TestKind::TcpStream, 1408),
            dualperf_fixtures::spec(TestKind::UdpStream, 64),
            dualperf_fixtures::spec(TestKind::TcpRr, 1),
        ];
        let arms = dualperf_fixtures::native_arms(dualperf_model::PerFamily {
            v4: Some("10.0.0.2"),
            v6: Some("fd00::2"),
        });
        let config = dualperf_fixtures::config(points, arms);
        let mut result = dualperf_fixtures::result(config, Vec::new());
        result.testbed = Some(TestbedFacts {
            link_rate: Some(LinkRate::Shaped {
                bits_per_second: 400_000_000,
            }),
            ..TestbedFacts::default()
        });
        let analysis = Analysis {
            regimes: vec![
                regime(0, IpFamily::V4, Regime::NetworkBound),
                regime(0, IpFamily::V6, Regime::NetworkBound),
                regime(1, IpFamily::V4, Regime::NetworkBound),
                regime(1, IpFamily::V6, Regime::CpuBound),
                regime(2, IpFamily::V4, Regime::Unsaturated),
                regime(2, IpFamily::V6, Regime::Unsaturated),
            ],
            ..Analysis::default()
        };
        let text = render_regimes(&result, &analysis).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "links: 400.000 Mbit/s each way (htb; --link-rate changes it)"
        );
        assert!(
            lines[1].starts_with("network-bound: [1] tcp-stream"),
            "{text}"
        );
        assert!(lines[2].starts_with("unsaturated: [3] tcp-rr"), "{text}");
        assert!(lines[3].starts_with("cpu-bound: [2] udp-stream"), "{text}");
        assert!(
            lines[3].contains("network-bound, IPv6 cpu-bound)"),
            "{text}"
        );
        // Not a lab run: nothing.
        result.testbed = None;
        assert_eq!(render_regimes(&result, &analysis), None);
    }
}

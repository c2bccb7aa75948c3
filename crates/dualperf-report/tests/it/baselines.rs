//! A designed experiment compares arms with different baselines (IPv6
//! under a load against IPv4 under the same load; IPv4 under the load
//! against IPv4 alone). Every output must head each comparison with the
//! baseline the design declared, never the run's baseline by assumption:
//! the terminal's answer and comparison tables, the Markdown verdict rows
//! and the HTML verdict rows, rendered here from one analysed run.

use dualperf_fixtures as fx;
use dualperf_model::{
    Arm, ArmId, Contrast, Factor, IpFamily, LoadCondition, LoadFlow, LoadSpec, Marking, RunResult,
    TestKind, TestSpec,
};

fn arm(id: &str, label: &str, family: IpFamily, loaded: bool) -> Arm {
    Arm {
        id: ArmId::new(id).unwrap(),
        label: label.into(),
        load: if loaded {
            LoadCondition::Under {
                load: "udp-12m".into(),
            }
        } else {
            LoadCondition::Idle
        },
        ..Arm::native(family, None)
    }
}

fn contrast(arm: &str, baseline: &str, factor: Factor) -> Contrast {
    Contrast {
        arm: ArmId::new(arm).unwrap(),
        baseline: ArmId::new(baseline).unwrap(),
        factor,
    }
}

/// The realtime experiment's shape: alone and under a UDP load, per family.
pub(crate) fn realtime_like() -> RunResult {
    let arms = vec![
        arm("v4", "IPv4 alone", IpFamily::V4, false),
        arm("v6", "IPv6 alone", IpFamily::V6, false),
        arm("v4-udp-load", "IPv4 with UDP load", IpFamily::V4, true),
        arm("v6-udp-load", "IPv6 with UDP load", IpFamily::V6, true),
    ];
    let reps: &[Option<f64>] = &[Some(9.4), Some(9.5), Some(9.3), Some(9.45)];
    let loaded: &[Option<f64>] = &[Some(4.1), Some(4.3), Some(4.0), Some(4.2)];
    let loaded6: &[Option<f64>] = &[Some(3.8), Some(3.9), Some(3.7), Some(3.85)];
    let mut result = fx::stream_run(arms, &[reps, reps, loaded, loaded6]);
    result.config.loads = vec![LoadSpec {
        name: "udp-12m".into(),
        label: "UDP at 12 Mbit/s".into(),
        flows: vec![LoadFlow {
            label: "UDP 12 Mbit/s".into(),
            spec: TestSpec::new(TestKind::UdpStream, 1200),
            family: None,
            marking: Marking::default(),
        }],
        warmup_ms: 0,
        offered: None,
    }];
    result.config.contrasts = vec![
        contrast("v6", "v4", Factor::Family),
        contrast("v4-udp-load", "v4", Factor::Load),
        contrast("v6-udp-load", "v4-udp-load", Factor::Family),
    ];
    fx::analysed(result)
}

#[test]
fn the_analysis_compares_exactly_the_declared_contrasts() {
    let run = realtime_like();
    let analysis = run.analysis.as_ref().unwrap();
    assert!(!analysis.comparisons.is_empty());
    for c in &analysis.comparisons {
        assert!(
            run.config
                .contrasts
                .iter()
                .any(|d| d.arm == c.arm && d.baseline == c.baseline),
            "{} vs {} was not declared",
            c.arm,
            c.baseline
        );
    }
    let json = serde_json::to_value(&run).unwrap();
    let loaded = json["analysis"]["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["arm"] == "v6-udp-load")
        .unwrap();
    assert_eq!(loaded["baseline"], "v4-udp-load");
}

#[test]
fn terminal_markdown_and_html_name_each_comparisons_own_baseline() {
    let run = realtime_like();
    let analysis = run.analysis.as_ref().unwrap();

    let answer = dualperf_report::terminal::render_answer(&run, analysis, 200);
    assert!(
        answer.contains("IPv6 with UDP load vs IPv4 with UDP load"),
        "{answer}"
    );
    assert!(
        answer.contains("IPv4 with UDP load vs IPv4 alone"),
        "{answer}"
    );
    assert!(!answer.starts_with("vs IPv4"), "{answer}");
    let table = dualperf_report::terminal::render_comparison_table_width(&run, analysis, 400);
    assert!(table.contains("Δ vs IPv4 with UDP load"), "{table}");
    assert!(table.contains("Δ vs IPv4 alone"), "{table}");

    let markdown = dualperf_report::render(&run, dualperf_report::Format::Markdown).unwrap();
    assert!(
        markdown.contains("| IPv6 with UDP load | IPv4 with UDP load |"),
        "{markdown}"
    );
    assert!(markdown.contains("| IPv4 with UDP load | IPv4 alone |"));
    assert!(!markdown.contains("Δ vs IPv4 alone |"));

    let html = dualperf_report::render(&run, dualperf_report::Format::Html).unwrap();
    assert!(html.contains(
        "<td class=\"arm-name\">IPv6 with UDP load</td><td class=\"arm-name\">IPv4 with UDP load</td>"
    ));
    assert!(html.contains("<th title=\"The arm this one is compared with"));
}

//! Tests of [`super::DiffServView`] on a DiffServ-shaped analysis.

use dualperf_model::{
    Arm, ArmId, CarriedBy, Dscp, IpFamily, LoadCondition, LoadFlow, LoadFlowSummary, LoadSpec,
    LoadTable, Marking, MetricSummary, OfferedLoad, Summary, TestKind, TestSpec,
};

use super::*;

fn summary(mean: f64) -> Summary {
    Summary {
        count: 3,
        mean,
        median: mean,
        min: mean,
        max: mean,
        ..Summary::default()
    }
}

fn arm(id: &str, family: IpFamily, load: Option<&str>) -> Arm {
    Arm {
        id: ArmId::new(id).unwrap(),
        label: id.into(),
        marking: Marking {
            dscp: Some(Dscp::EF),
            flow_label: None,
        },
        load: load.map_or(LoadCondition::Idle, |l| LoadCondition::Under {
            load: l.into(),
        }),
        ..Arm::native(family, None)
    }
}

/// A load of BE UDP streams (one per family given) at a designed level.
fn load(
    name: &str,
    table: LoadTable,
    size: u32,
    carried_by: CarriedBy,
    families: &[IpFamily],
) -> LoadSpec {
    LoadSpec {
        name: name.into(),
        label: name.into(),
        flows: families
            .iter()
            .map(|&family| LoadFlow {
                label: format!("BE UDP {}", family.label()),
                spec: TestSpec::new(TestKind::UdpStream, size),
                family: Some(family),
                marking: Marking::default(),
            })
            .collect(),
        warmup_ms: 0,
        offered: Some(OfferedLoad {
            table,
            percent: 115,
            datagram_bytes: size,
            carried_by,
        }),
    }
}

/// A DiffServ-shaped run: idle and 115 % class arms, two step cells. The
/// arm ids say nothing about the design (`cell-7`): the view must find every
/// cell by the levels of its load.
fn run() -> RunResult {
    let (v4, v6) = (IpFamily::V4, IpFamily::V6);
    let mut result = dualperf_fixtures::result(
        dualperf_fixtures::config(Vec::new(), Vec::new()),
        Vec::new(),
    );
    result.config.arms = vec![
        arm("v4-ef", v4, None),
        arm("v6-ef", v6, None),
        arm("v4-ef-be115", v4, Some("c4")),
        arm("v6-ef-be115", v6, Some("c6")),
        arm("v4-s115-128", v4, Some("s4")),
        arm("cell-7", v4, Some("sm")),
    ];
    result.config.loads = vec![
        load("c4", LoadTable::Class, 1408, CarriedBy::Family(v4), &[v4]),
        load("c6", LoadTable::Class, 1408, CarriedBy::Family(v6), &[v6]),
        load("s4", LoadTable::Step, 128, CarriedBy::Family(v4), &[v4]),
        load("sm", LoadTable::Step, 128, CarriedBy::Mixed, &[v4, v6]),
    ];
    let mut analysis = Analysis::default();
    for (id, p99) in [
        ("v4-ef", 90e3),
        ("v6-ef", 100e3),
        ("v4-ef-be115", 95e3),
        ("v6-ef-be115", 3.0e6),
    ] {
        for (metric, value) in [(MetricId::OwdP99Ns, p99), (MetricId::LossRatio, 0.0)] {
            analysis.summaries.push(MetricSummary {
                point: 0,
                arm: ArmId::new(id).unwrap(),
                metric,
                summary: summary(value),
            });
        }
    }
    let flow = |arm: &str, flow: usize, label: &str, family, loss| LoadFlowSummary {
        point: 0,
        arm: ArmId::new(arm).unwrap(),
        flow,
        label: label.into(),
        family,
        marking: Marking::default(),
        metric: MetricId::LossRatio,
        summary: summary(loss),
    };
    analysis.load_flows = vec![
        flow("v4-ef-be115", 0, "BE UDP 115 %", IpFamily::V4, 0.14),
        flow("v6-ef-be115", 0, "BE UDP 115 %", IpFamily::V6, 0.15),
        flow("v4-s115-128", 0, "BE UDP 115 %", IpFamily::V4, 0.1255),
        flow("cell-7", 0, "BE UDP IPv4 115/2 %", IpFamily::V4, 0.10),
        flow("cell-7", 1, "BE UDP IPv6 115/2 %", IpFamily::V6, 0.20),
    ];
    result.analysis = Some(analysis);
    result
}

#[test]
fn the_step_table_and_the_done_when_check_read_the_analysis() {
    let result = run();
    let view = DiffServView::of(&result).unwrap();
    let (header, rows) = view.step_table();
    assert_eq!(header[2], "IPv4 115");
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].0, 128);
    assert_eq!(rows[0].1[2], "12.6");
    assert_eq!(rows[0].1[8], "15.0", "mixed: the mean of its two flows");
    assert_eq!(rows[0].1[0], "–");
    let done = view.done_when();
    assert!(done[0].starts_with("ok IPv4"), "{done:?}");
    // IPv6: 3 ms under load against 0.1 ms idle misses the 2 ms bound.
    assert!(done[1].starts_with("MISSED IPv6"), "{done:?}");
    assert!(done[2].starts_with("ok BE"), "{done:?}");
    let text = crate::terminal::render_diffserv(&result);
    assert!(text.contains("Load-step table"), "{text}");
}

/// The seed's §4: an IPv6 arm marked by a flow label alone, under the 115 %
/// class load, its id saying nothing (`arm-x`), compared with DSCP EF.
#[test]
fn the_flow_label_arm_is_shown_beside_dscp_ef_and_answers_the_papers_section_4() {
    let mut result = run();
    let mut labelled = arm("arm-x", IpFamily::V6, Some("c6"));
    labelled.marking = Marking {
        dscp: None,
        flow_label: Some(dualperf_model::FlowLabel::new(74565).unwrap()),
    };
    let id = labelled.id.clone();
    result.config.arms.push(labelled);
    let analysis = result.analysis.as_mut().unwrap();
    for (metric, value) in [(MetricId::OwdP99Ns, 68.6e3), (MetricId::LossRatio, 0.0)] {
        analysis.summaries.push(MetricSummary {
            point: 0,
            arm: id.clone(),
            metric,
            summary: summary(value),
        });
    }
    analysis.comparisons.push(dualperf_model::Comparison {
        point: 0,
        metric: MetricId::OwdP99Ns,
        arm: id.clone(),
        baseline: ArmId::new("v6-ef-be115").unwrap(),
        arm_summary: summary(68.6e3),
        baseline_summary: summary(3.0e6),
        pairs: 3,
        difference_mean: 68.6e3 - 3.0e6,
        difference_ci95: Some((-3.1e6, -2.8e6)),
        relative_difference: None,
        relative_difference_ci95: None,
        significant: true,
        theoretical_relative_difference: None,
        warnings: Vec::new(),
        p_value: None,
        adjusted_p_value: None,
        attribution: None,
    });
    let view = DiffServView::of(&result).unwrap();
    let rows = view.label_rows();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].marking, "DSCP EF (46)");
    assert_eq!(rows[1].marking, "flow label 74565, no DSCP");
    assert_eq!(rows[1].condition, "BE at 115 %");
    // OWD p99 and loss of each arm, in the class table's columns.
    assert_eq!(rows[0].cells[1], format_value(MetricId::OwdP99Ns, 3.0e6));
    assert_eq!(rows[1].cells[1], format_value(MetricId::OwdP99Ns, 68.6e3));
    assert_eq!(rows[1].cells[3], format_value(MetricId::LossRatio, 0.0));
    let lines = view.label_lines();
    assert!(
        lines[0].starts_with(
            "ok IPv6 flow label 74565 alone (no DSCP) classified as EF under BE at 115 %"
        ),
        "{lines:?}"
    );
    assert!(
        lines[1].starts_with("flow label 74565 against DSCP EF")
            && lines[1].contains("significant"),
        "{lines:?}"
    );
    let text = crate::terminal::render_diffserv(&result);
    assert!(
        text.contains("Flow label as the class (the seed's §4"),
        "{text}"
    );
    assert!(text.contains("flow label 74565, no DSCP"), "{text}");
    let html = crate::html::render(&result).unwrap();
    assert!(html.contains("id=\"diffserv-flow-label\""), "{html}");
    assert!(html.contains("flow label 74565, no DSCP"), "{html}");
    assert!(view
        .answer()
        .iter()
        .any(|s| s.starts_with("ok IPv6 flow label 74565")));
    // A run without the arm shows no such table.
    assert!(DiffServView::of(&run()).unwrap().label_rows().is_empty());
}

//! Tests of [`super::DiffServView`] on a DiffServ-shaped analysis.

use dualperf_model::{
    Arm, ArmId, IpFamily, LoadCondition, LoadFlowSummary, Marking, MetricSummary, Summary,
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

fn arm(id: &str, family: IpFamily) -> Arm {
    Arm {
        id: ArmId::new(id).unwrap(),
        label: id.into(),
        load: LoadCondition::Idle,
        ..Arm::native(family, None)
    }
}

/// A DiffServ-shaped run: idle and 115 % class arms, one step cell.
fn run() -> RunResult {
    let ids = [
        ("v4-ef", IpFamily::V4),
        ("v6-ef", IpFamily::V6),
        ("v4-ef-be115", IpFamily::V4),
        ("v6-ef-be115", IpFamily::V6),
        ("v4-s115-128", IpFamily::V4),
        ("mixed-s115-128", IpFamily::V4),
    ];
    let mut result = dualperf_fixtures::result(
        dualperf_fixtures::config(Vec::new(), Vec::new()),
        Vec::new(),
    );
    result.config.arms = ids.iter().map(|(id, f)| arm(id, *f)).collect();
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
        flow(
            "mixed-s115-128",
            0,
            "BE UDP IPv4 115/2 %",
            IpFamily::V4,
            0.10,
        ),
        flow(
            "mixed-s115-128",
            1,
            "BE UDP IPv6 115/2 %",
            IpFamily::V6,
            0.20,
        ),
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

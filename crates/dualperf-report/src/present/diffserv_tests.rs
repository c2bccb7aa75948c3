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

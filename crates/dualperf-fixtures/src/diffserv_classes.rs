//! A SYNTHETIC run shaped like `dualperf lab diffserv` (per-class loads, so
//! the report has its DiffServ section): EF arms idle and under the 115 %
//! class load per family, two load-step cells, an IPv6 arm classified by
//! its flow label alone, router CPU on the step cells, and the testbed's
//! steering line and a note. Arm ids say nothing (`cell-7`, `arm-x`): the
//! section finds every cell by the levels of its load. Made-up numbers.
//!
//! The one per-class fixture: the report's DiffServ view tests
//! (`present/diffserv_tests.rs`) and its HTML snapshot both read it.

use dualperf_model::diffserv::{DiffServFindings, RouterCpuSummary};
use dualperf_model::{
    Analysis, Arm, ArmId, CarriedBy, Comparison, Dscp, FlowLabel, IpFamily, LoadCondition,
    LoadFlow, LoadFlowSummary, LoadSpec, LoadTable, Marking, MetricId, MetricSummary, OfferedLoad,
    RunResult, Summary, TestKind, TestSpec, TestbedFacts,
};

/// The id of the arm marked by a flow label alone (no DSCP).
pub const FLOW_LABEL_ARM: &str = "arm-x";

/// A summary of three repetitions that all gave `mean`.
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

fn id(text: &str) -> ArmId {
    ArmId::new(text).expect("a valid arm id")
}

/// An EF-marked arm, idle or under `load`.
fn arm(name: &str, family: IpFamily, load: Option<&str>) -> Arm {
    Arm {
        id: id(name),
        label: format!("{} EF{}", family.label(), load.map_or("", |_| " loaded")),
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

/// A load of BE UDP streams (one per family given) at 115 % of the link.
fn load(name: &str, table: LoadTable, size: u32, carried_by: CarriedBy) -> LoadSpec {
    let families: &[IpFamily] = match carried_by {
        CarriedBy::Family(family) => &[family][..],
        CarriedBy::Mixed => &IpFamily::ALL,
    };
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

/// The run, with its (hand-made) analysis; the flow-label arm is `arm-x`
/// ([`FLOW_LABEL_ARM`]).
pub fn diffserv_classes() -> RunResult {
    let (v4, v6) = (IpFamily::V4, IpFamily::V6);
    let mut result = crate::result(
        crate::config(vec![TestSpec::new(TestKind::UdpProbe, 172)], Vec::new()),
        Vec::new(),
    );
    let mut labelled = arm("arm-x", v6, Some("c6"));
    labelled.label = "IPv6 flow label".into();
    labelled.marking = Marking {
        dscp: None,
        flow_label: Some(FlowLabel::new(74565).expect("a 20-bit flow label")),
    };
    result.config.arms = vec![
        arm("v4-ef", v4, None),
        arm("v6-ef", v6, None),
        arm("v4-ef-be115", v4, Some("c4")),
        arm("v6-ef-be115", v6, Some("c6")),
        arm("v4-s115-128", v4, Some("s4")),
        arm("cell-7", v4, Some("sm")),
        labelled,
    ];
    result.config.baseline = id("v4-ef");
    result.config.loads = vec![
        load("c4", LoadTable::Class, 1408, CarriedBy::Family(v4)),
        load("c6", LoadTable::Class, 1408, CarriedBy::Family(v6)),
        load("s4", LoadTable::Step, 128, CarriedBy::Family(v4)),
        load("sm", LoadTable::Step, 128, CarriedBy::Mixed),
    ];
    let mut analysis = Analysis::default();
    for (arm, p99, mean) in [
        ("v4-ef", 90e3, 60e3),
        ("v6-ef", 100e3, 65e3),
        ("v4-ef-be115", 95e3, 70e3),
        ("v6-ef-be115", 3.0e6, 1.2e6),
        ("arm-x", 68.6e3, 50e3),
    ] {
        for (metric, value) in [
            (MetricId::OwdP99Ns, p99),
            (MetricId::OwdMeanNs, mean),
            (MetricId::PdvP99Ns, p99 - mean),
            (MetricId::LossRatio, 0.0),
        ] {
            analysis.summaries.push(MetricSummary {
                point: 0,
                arm: id(arm),
                metric,
                summary: summary(value),
            });
        }
    }
    let flow = |arm: &str, flow: usize, family: IpFamily, loss| LoadFlowSummary {
        point: 0,
        arm: id(arm),
        flow,
        label: format!("BE UDP {}", family.label()),
        family,
        marking: Marking::default(),
        metric: MetricId::LossRatio,
        summary: summary(loss),
    };
    analysis.load_flows = vec![
        flow("v4-ef-be115", 0, v4, 0.14),
        flow("v6-ef-be115", 0, v6, 0.15),
        flow("v4-s115-128", 0, v4, 0.1255),
        flow("cell-7", 0, v4, 0.10),
        flow("cell-7", 1, v6, 0.20),
    ];
    for (arm, cores) in [
        ("v4-ef", 0.02),
        ("v6-ef", 0.03),
        ("v4-s115-128", 0.41),
        ("cell-7", 0.47),
    ] {
        analysis.routers.push(RouterCpuSummary {
            point: 0,
            arm: id(arm),
            node: "edge".into(),
            summary: summary(cores),
        });
    }
    analysis.comparisons.push(Comparison {
        point: 0,
        metric: MetricId::OwdP99Ns,
        arm: id("arm-x"),
        baseline: id("v6-ef-be115"),
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
    result.analysis = Some(analysis);
    result.testbed = Some(TestbedFacts {
        name: "diffserv".into(),
        description: "edge router with an htb class per DSCP & <a queue>".into(),
        diffserv: Some(DiffServFindings {
            checks: Vec::new(),
            steering: vec!["edge: CPU 1 (rps_cpus on 3 interfaces)".into()],
            notes: vec!["policing needs the police action, which this kernel lacks".into()],
        }),
        ..TestbedFacts::default()
    });
    result
}

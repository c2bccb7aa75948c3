//! A SYNTHETIC DiffServ-shaped run: IPv4 and IPv6 alone, then both
//! families under each offered load level (a BE UDP flow at a share of the
//! bottleneck, [`LoadSpec::offered`]), with the competing flow's own
//! observations and the routers' softirq time on every loaded trial, and
//! the design's contrasts (IPv6 against IPv4 at each level, under load
//! against alone). [`diffserv_run`] analyses it, so its analysis holds
//! per-flow summaries and comparisons and router CPU summaries, as a
//! `dualperf lab diffserv` run's does. Made-up numbers, not measurements.

use dualperf_model::diffserv::RouterCpu;
use dualperf_model::{
    Arm, ArmId, CarriedBy, Contrast, Dscp, Factor, IpFamily, LoadCondition, LoadFlow,
    LoadObservations, LoadSpec, LoadTable, Marking, OfferedLoad, RunResult, TestKind, TestSpec,
    TrialOutcome,
};

/// The offered load levels: (percent of the bottleneck, datagram bytes).
pub const LEVELS: [(u32, u32); 2] = [(85, 128), (115, 1408)];

/// The routers whose softirq time every loaded trial records.
pub const ROUTERS: [&str; 2] = ["r1", "r2"];

fn id(text: &str) -> ArmId {
    ArmId::new(text).expect("a valid arm id")
}

/// The DiffServ-shaped run, analysed (by `dualperf_stats::analyse`):
/// 2 + 2 × [`LEVELS`] arms × 3 repetitions of one tcp-stream point.
pub fn diffserv_run(run_id: &str) -> RunResult {
    let mut arms = vec![
        Arm::native(IpFamily::V4, None),
        Arm::native(IpFamily::V6, None),
    ];
    let mut loads = Vec::new();
    let mut contrasts = vec![Contrast {
        arm: id("v6"),
        baseline: id("v4"),
        factor: Factor::Family,
    }];
    for (level, (percent, bytes)) in LEVELS.into_iter().enumerate() {
        for family in IpFamily::ALL {
            let name = format!("be-{percent}pct-{bytes}-{}", family.key());
            loads.push(LoadSpec {
                name: name.clone(),
                label: format!("BE UDP at {percent} % × {bytes} B"),
                flows: vec![LoadFlow {
                    label: "BE UDP".into(),
                    spec: TestSpec::new(TestKind::UdpStream, bytes),
                    family: Some(family),
                    marking: Marking {
                        dscp: Some(Dscp::BE),
                        flow_label: None,
                    },
                }],
                warmup_ms: 0,
                offered: Some(OfferedLoad {
                    table: LoadTable::Step,
                    percent,
                    datagram_bytes: bytes,
                    carried_by: CarriedBy::Family(family),
                }),
            });
            arms.push(Arm {
                id: id(&format!("cell-{level}-{}", family.key())),
                label: format!("{}, BE at {percent} % × {bytes} B", family.label()),
                load: LoadCondition::Under { load: name },
                ..Arm::native(family, None)
            });
        }
        let (v4, v6) = (
            arms[arms.len() - 2].id.clone(),
            arms[arms.len() - 1].id.clone(),
        );
        contrasts.push(Contrast {
            arm: v6,
            baseline: v4.clone(),
            factor: Factor::Family,
        });
        contrasts.push(Contrast {
            arm: v4,
            baseline: id("v4"),
            factor: Factor::Load,
        });
    }
    let goodputs: Vec<Vec<Option<f64>>> = (0..arms.len())
        .map(|a| {
            (0..3)
                .map(|r| Some(9.0 - 0.3 * a as f64 + 0.05 * r as f64))
                .collect()
        })
        .collect();
    let goodputs: Vec<&[Option<f64>]> = goodputs.iter().map(Vec::as_slice).collect();
    let mut run = crate::stream_run(arms, &goodputs);
    run.run_id = run_id.to_string();
    run.config.loads = loads;
    run.config.contrasts = contrasts;
    add_load_observations(&mut run);
    crate::analysed(run)
}

/// Gives every trial of an arm under load its load flow's observations
/// and the routers' softirq time (more under more load, more for IPv6).
fn add_load_observations(run: &mut RunResult) {
    let config = run.config.clone();
    for trial in &mut run.trials {
        let Some(arm) = config.arm(&trial.arm) else {
            continue;
        };
        let LoadCondition::Under { load } = &arm.load else {
            continue;
        };
        let Some(spec) = config.loads.iter().find(|l| &l.name == load) else {
            continue;
        };
        let percent = spec.offered.as_ref().map_or(100, |o| o.percent);
        let TrialOutcome::Ok(observations) = &mut trial.outcome else {
            continue;
        };
        let extra = f64::from(trial.repetition) * 0.01
            + if arm.family == IpFamily::V6 {
                0.02
            } else {
                0.0
            };
        for (flow, load_flow) in spec.flows.iter().enumerate() {
            observations.loads.push(LoadObservations {
                flow,
                label: load_flow.label.clone(),
                family: load_flow.family.unwrap_or(arm.family),
                marking: load_flow.marking,
                spec: load_flow.spec.clone(),
                observations: Box::new(crate::stream(
                    1e9 * f64::from(percent) / 100.0 * (0.9 - extra),
                )),
            });
        }
        for (n, node) in ROUTERS.iter().enumerate() {
            let cores = f64::from(percent) / 200.0 + extra + n as f64 * 0.1;
            observations.routers.push(RouterCpu {
                node: (*node).to_string(),
                cpus: vec![0, 1],
                softirq_ns: (cores * 1e9) as u64,
                ksoftirqd_ns: 0,
                wall_ns: 1_000_000_000,
            });
        }
    }
}

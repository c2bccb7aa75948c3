//! Router CPU per router and arm (issue 24, item 7): for a run on a lab
//! testbed with routers, each router's softirq time on the CPU its receive
//! processing was steered to, as "% of one CPU", mean over an arm's
//! repetitions (`Analysis.routers`; docs/metrics.md, "Router CPU"). The
//! DiffServ experiment lays its own out per load step
//! ([`crate::present::diffserv`]), so it has none of these tables.

use dualperf_model::RunResult;

use super::arms::ArmNames;
use super::value::significant;

/// The router CPU of a run: one table, a row per point and router, a
/// column per arm.
#[derive(Clone, Debug, PartialEq)]
pub struct RouterCpuTable {
    /// The arms' labels, in the run's arm order (those with a figure).
    pub arms: Vec<String>,
    /// Point by point in the run's order, its routers in first-seen order.
    pub rows: Vec<RouterCpuRow>,
    /// When the path has one router: its name with its CPUs ("router
    /// (CPU 1)"), said once instead of on every row.
    pub only_router: Option<String>,
    /// When routers share a CPU (fewer CPUs than routers), the sentence
    /// that says their figures are the same CPU's.
    pub shared: Option<String>,
}

/// One router at one point.
#[derive(Clone, Debug, PartialEq)]
pub struct RouterCpuRow {
    /// The point, e.g. "tcp-stream 131072 B".
    pub point: String,
    /// The router's name with its CPUs ("router1 (CPU 1)").
    pub router: String,
    /// A cell per arm: "12.5 %" of one CPU, or "–" where not measured.
    pub cells: Vec<String>,
}

/// One `/proc/stat` tick, ns: the kernel counts CPU time there in USER_HZ
/// ticks, 100 per second on every Linux architecture dualperf runs on, so
/// a router that spent less than one tick in softirq during a trial
/// records 0.
pub const PROC_STAT_TICK_NS: f64 = 10_000_000.0;

/// What a router CPU of 0 means: less than one tick over the shortest
/// trial's window, as a share of one CPU; `None` without trials.
fn below_one_tick(
    run: &RunResult,
    point: usize,
    arm: &dualperf_model::ArmId,
    node: &str,
) -> Option<f64> {
    let shortest = run
        .trials
        .iter()
        .filter(|t| t.point == point && &t.arm == arm)
        .filter_map(|t| match &t.outcome {
            dualperf_model::TrialOutcome::Ok(observations) => observations
                .routers
                .iter()
                .find(|r| r.node == node)
                .map(|r| r.wall_ns),
            _ => None,
        })
        .filter(|wall| *wall > 0)
        .min()?;
    Some(PROC_STAT_TICK_NS / shortest as f64)
}

/// A cell: the mean share of one CPU, or for 0 "< one tick's share"
/// (0.63 % over a 1.6 s trial): the counter's resolution, not a measured
/// zero.
fn cell(run: &RunResult, summary: &dualperf_model::RouterCpuSummary) -> String {
    let mean = summary.summary.mean;
    match below_one_tick(run, summary.point, &summary.arm, &summary.node) {
        Some(tick) if mean == 0.0 => format!("< {} %", significant(tick * 100.0)),
        _ => format!("{} %", significant(mean * 100.0)),
    }
}

/// The CPUs each router was steered to, as the trials recorded them.
fn router_cpus(run: &RunResult) -> Vec<(String, Vec<u32>)> {
    let mut found: Vec<(String, Vec<u32>)> = Vec::new();
    for trial in &run.trials {
        if let dualperf_model::TrialOutcome::Ok(observations) = &trial.outcome {
            for router in &observations.routers {
                if !found.iter().any(|(node, _)| node == &router.node) {
                    found.push((router.node.clone(), router.cpus.clone()));
                }
            }
        }
    }
    found
}

/// "router1 and router2 share CPU 1: each figure counts both", or `None`.
fn shared_sentence(cpus: &[(String, Vec<u32>)]) -> Option<String> {
    let mut sentences = Vec::new();
    let mut all: Vec<&Vec<u32>> = cpus.iter().map(|(_, c)| c).collect();
    all.sort();
    all.dedup();
    for set in all {
        let nodes: Vec<&str> = cpus
            .iter()
            .filter(|(_, c)| c == set)
            .map(|(n, _)| n.as_str())
            .collect();
        if nodes.len() > 1 {
            let list: Vec<String> = set.iter().map(u32::to_string).collect();
            sentences.push(format!(
                "{} share CPU {}: each of their figures counts all of them",
                nodes.join(" and "),
                list.join("+")
            ));
        }
    }
    (!sentences.is_empty()).then(|| sentences.join("; "))
}

/// The run's router CPU table; `None` for runs without routers and for
/// the DiffServ experiment.
pub fn router_cpu_table(run: &RunResult) -> Option<RouterCpuTable> {
    let analysis = run.analysis.as_ref()?;
    if analysis.routers.is_empty() || super::diffserv::DiffServView::of(run).is_some() {
        return None;
    }
    let names = ArmNames::new(&run.config);
    let cpus = router_cpus(run);
    let arms: Vec<_> = run
        .config
        .arms
        .iter()
        .filter(|arm| analysis.routers.iter().any(|r| r.arm == arm.id))
        .collect();
    let label = |node: &str| match cpus.iter().find(|(n, _)| n == node) {
        Some((_, set)) if !set.is_empty() => {
            let list: Vec<String> = set.iter().map(u32::to_string).collect();
            format!("{node} (CPU {})", list.join("+"))
        }
        _ => node.to_string(),
    };
    let mut rows = Vec::new();
    let mut routers: Vec<&str> = Vec::new();
    for (point, spec) in run.config.points.iter().enumerate() {
        let here: Vec<_> = analysis
            .routers
            .iter()
            .filter(|r| r.point == point)
            .collect();
        let mut nodes: Vec<&str> = Vec::new();
        for r in &here {
            if !nodes.contains(&r.node.as_str()) {
                nodes.push(&r.node);
            }
            if !routers.contains(&r.node.as_str()) {
                routers.push(&r.node);
            }
        }
        for node in nodes {
            let cells = arms
                .iter()
                .map(|arm| {
                    here.iter()
                        .find(|r| r.node == node && r.arm == arm.id)
                        .map_or_else(|| "–".to_string(), |r| cell(run, r))
                })
                .collect();
            rows.push(RouterCpuRow {
                point: spec.label(),
                router: label(node),
                cells,
            });
        }
    }
    Some(RouterCpuTable {
        arms: arms
            .iter()
            .map(|a| names.label(&a.id).to_string())
            .collect(),
        rows,
        only_router: match routers.as_slice() {
            [only] => Some(label(only)),
            _ => None,
        },
        shared: shared_sentence(&cpus),
    })
}

/// The heading of the router CPU table.
pub const ROUTER_CPU_TITLE: &str = "Router CPU, % of one CPU (softirq time of the CPU each \
     router's receive processing was steered to, mean over repetitions; \"< x %\": under one 10 ms \
     /proc/stat tick in the trial; how: the testbed notes)";

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_fixtures as fx;
    use dualperf_model::{Analysis, ArmPath, IpFamily, RouterCpuSummary, Summary, TestKind};

    /// A two-router run: both arms have both routers' CPU.
    fn routed_run() -> RunResult {
        let arms = vec![
            fx::arm("v4", IpFamily::V4, ArmPath::Native),
            fx::arm("v6", IpFamily::V6, ArmPath::Native),
        ];
        let mut result = fx::result(
            fx::config(vec![fx::spec(TestKind::TcpStream, 131_072)], arms.clone()),
            Vec::new(),
        );
        let mut analysis = Analysis::default();
        for (arm, node, cores) in [
            ("v4", "router1", 0.25),
            ("v4", "router2", 0.125),
            ("v6", "router1", 0.3),
            ("v6", "router2", 0.15),
        ] {
            analysis.routers.push(RouterCpuSummary {
                point: 0,
                arm: dualperf_model::ArmId::new(arm).unwrap(),
                node: node.into(),
                summary: Summary {
                    count: 3,
                    mean: cores,
                    ..Summary::default()
                },
            });
        }
        result.analysis = Some(analysis);
        result
    }

    #[test]
    fn one_table_a_row_per_point_and_router_a_cell_per_arm() {
        let table = router_cpu_table(&routed_run()).unwrap();
        assert_eq!(table.arms.len(), 2);
        assert_eq!(table.rows.len(), 2);
        assert_eq!(table.rows[0].router, "router1");
        assert_eq!(table.rows[0].cells, ["25 %", "30 %"]);
        assert_eq!(table.rows[1].router, "router2");
        assert_eq!(table.rows[1].cells, ["12.5 %", "15 %"]);
        assert_eq!(table.only_router, None);
        let text = crate::terminal::render_router_cpu(&routed_run()).unwrap();
        assert!(
            text.contains("router2") && text.contains("12.5 %"),
            "{text}"
        );
        // The point is named once, on its first router's row.
        assert_eq!(text.matches("tcp-stream").count(), 1, "{text}");
        let html = crate::html::render(&routed_run()).unwrap();
        assert!(html.contains("<section id=\"router-cpu\">"), "{html}");
        assert!(html.contains("<td class=\"num\">15 %</td>"), "{html}");
        let mut without = routed_run();
        without.analysis = Some(Analysis::default());
        assert!(router_cpu_table(&without).is_none());
    }

    #[test]
    fn a_zero_reads_as_below_one_tick_of_the_trial() {
        let mut run = routed_run();
        let v4 = dualperf_model::ArmId::new("v4").unwrap();
        for r in &mut run.analysis.as_mut().unwrap().routers {
            if r.arm == v4 && r.node == "router1" {
                r.summary.mean = 0.0;
            }
        }
        // A 1.6 s trial: one 10 ms tick is 0.625 % of a CPU (two figures).
        let mut observations = dualperf_model::Observations::default();
        observations.routers.push(dualperf_model::RouterCpu {
            node: "router1".into(),
            cpus: vec![1],
            softirq_ns: 0,
            ksoftirqd_ns: 0,
            wall_ns: 1_600_000_000,
        });
        let (spec, arm) = (run.config.points[0].clone(), run.config.arms[0].clone());
        run.trials
            .push(fx::trial(0, &spec, &arm, 0, fx::ok(observations)));
        let table = router_cpu_table(&run).unwrap();
        assert_eq!(table.rows[0].cells, ["< 0.62 %", "30 %"]);
        // Without the trial's window the zero stays a zero.
        run.trials.clear();
        assert_eq!(
            router_cpu_table(&run).unwrap().rows[0].cells,
            ["0 %", "30 %"]
        );
    }

    #[test]
    fn a_single_router_is_named_once_not_on_every_row() {
        let mut run = routed_run();
        let analysis = run.analysis.as_mut().unwrap();
        analysis.routers.retain(|r| r.node == "router1");
        let mut second = analysis.routers.clone();
        for r in &mut second {
            r.point = 1;
        }
        analysis.routers.extend(second);
        run.config.points.push(fx::spec(TestKind::UdpStream, 1024));
        let table = router_cpu_table(&run).unwrap();
        assert_eq!(table.rows.len(), 2);
        assert_eq!(table.only_router.as_deref(), Some("router1"));
        let text = crate::terminal::render_router_cpu(&run).unwrap();
        assert_eq!(text.matches("router1").count(), 1, "{text}");
        assert!(text.contains("udp-stream 1024 B"), "{text}");
    }

    #[test]
    fn routers_on_one_cpu_are_said_to_share_it() {
        let cpus = vec![
            ("router1".to_string(), vec![1]),
            ("middle".to_string(), vec![0]),
            ("router2".to_string(), vec![1]),
        ];
        assert_eq!(
            shared_sentence(&cpus).as_deref(),
            Some("router1 and router2 share CPU 1: each of their figures counts all of them")
        );
        assert_eq!(shared_sentence(&cpus[..2]), None);
    }
}

//! `dualperf lab diffserv`: the DiffServ paper's experiments (issue 12) on
//! the `diffserv` preset, as one plan.
//!
//! The measured traffic of every arm is an **EF probe** (udp-probe, 172 B
//! every 2 ms, DSCP 46) from the premium client; what changes from arm to
//! arm is the competing load ([`dualperf_model::LoadSpec`]) beside it:
//!
//! - **(a) per class, below and above capacity**: `v4-ef`, `v6-ef` idle;
//!   `v4-ef-be85`, `v6-ef-be85`, `v4-ef-be115`, `v6-ef-be115` under BE UDP
//!   at 85 % / 115 % of the core link with an LBE bulk TCP flow (CS1) beside
//!   it, and a BE probe and an LBE probe (the same probe as the EF one, in
//!   those classes) so that every class has its one-way delay, delay
//!   variation, loss and reordering measured alike. `v6-fl-be115`: IPv6
//!   probes classified by their flow label alone (DSCP 0), under 115 %.
//! - **(b) the load-step table** (the paper's Table 2): BE UDP at 85, 100
//!   and 115 % of the link × datagram sizes 128…1408 B in steps of 128
//!   (`--quick`: 128 and 1408) × IPv4, IPv6 and mixed (one IPv4 and one IPv6
//!   flow at half the rate each); each cell an arm `v4-s115-128`,
//!   `v6-s115-128`, `mixed-s115-128` whose BE flow's loss is the cell.
//! - **(c)** EF offered at twice its allowance and **(d)** EF from the
//!   non-premium client run after the main measurement
//!   ([`super::diffserv_checks`]), read from the edge router's counters.
//!
//! **Load** is a share of the core link's rate as htb counts it (layer 2
//! frames: payload + UDP/IP header + 14 B Ethernet), so each family's load
//! has its own payload rate: at 128 B a 115 % IPv6 load carries fewer
//! payload bits than the IPv4 one, and both put the same bytes on the link.
//! The loads therefore differ per family (`be115-v4`, `be115-v6`); each
//! carries its level ([`OfferedLoad`]: share, size, carrying family), so the
//! contrasts pair IPv6 with IPv4 at the same level (`dualperf_stats::contrast`)
//! and the report finds every cell by its levels, not by id.
//!
//! Router CPU: the lab steers each router's receive processing to a CPU of
//! its own (`dualperf_lab::steering`) and the measuring child records it
//! per trial.

use anyhow::Context;
use dualperf_lab::steering::{router_steering, RouterSteering};
use dualperf_lab::{RunId, Testbed, Topology};
use dualperf_model::{
    Arm, ArmId, ArmPath, BitRate, CarriedBy, Dscp, FlowLabel, IpFamily, LoadCondition, LoadFlow,
    LoadSpec, LoadTable, Marking, OfferedLoad, RunConfig, RunResult, TestKind, TestSpec,
    TestbedFacts,
};

use super::{Experiment, Step};
use crate::cli::lab::args::JobArgs;
use crate::cli::run::Repeat;
use crate::cli::Failure;

/// Interval of the class probes (EF, BE, LBE), microseconds: 500 probes/s,
/// 0.7 Mbit/s of 172-byte probes, well inside the EF allowance.
const PROBE_INTERVAL_US: u64 = 2_000;
/// Payload of a class probe, bytes (G.711-like, as `udp-probe`'s default).
const PROBE_BYTES: u32 = 172;
/// BE datagram size of the per-class loads, bytes (the largest the paper used).
const CLASS_LOAD_BYTES: u32 = 1408;
/// Load steps, percent of the core link.
pub(crate) const STEPS: [u32; 3] = [85, 100, 115];
/// Sizes of the full load-step table, bytes: 128 … 1408 in steps of 128.
const FULL_SIZES: [u32; 11] = [128, 256, 384, 512, 640, 768, 896, 1024, 1152, 1280, 1408];
/// Sizes of the `--quick` table.
const QUICK_SIZES: [u32; 2] = [128, 1408];
/// Ethernet header htb counts with every packet, bytes.
const ETHERNET_BYTES: u32 = 14;

/// The DiffServ experiments of one run.
pub(crate) struct DiffServExperiment {
    config: RunConfig,
    steering: Vec<RouterSteering>,
    steering_notes: Vec<String>,
    domain: dualperf_lab::diffserv::DiffServ,
    /// The non-premium access node, for (d).
    other: Option<String>,
    verbose: bool,
}

/// UDP + IP header bytes of `family`.
fn header_bytes(family: IpFamily) -> u32 {
    match family {
        IpFamily::V4 => 28,
        IpFamily::V6 => 48,
    }
}

/// The payload rate, bit/s, that puts `percent` % of `link_bps` on the
/// link (as htb counts it) with `size`-byte datagrams of `family`.
pub(crate) fn payload_bps(link_bps: u64, percent: u32, size: u32, family: IpFamily) -> u64 {
    let frame = u64::from(size + header_bytes(family) + ETHERNET_BYTES);
    link_bps * u64::from(percent) / 100 * u64::from(size) / frame
}

/// A spec of `kind` (durations are set by the engine for load flows).
fn spec(kind: TestKind, size: u32, rate: Option<u64>, timing: &Timing) -> TestSpec {
    TestSpec {
        duration_ms: timing.duration_ms,
        warmup_ms: timing.warmup_ms,
        rate: rate.map(BitRate::from_bits_per_second),
        sample_interval_ms: timing.sample_interval_ms,
        probe_interval_us: (kind == TestKind::UdpProbe).then_some(PROBE_INTERVAL_US),
        ..TestSpec::new(kind, size)
    }
}

/// Trial timing.
struct Timing {
    duration_ms: u64,
    warmup_ms: u64,
    sample_interval_ms: u64,
    load_warmup_ms: u64,
}

/// A flow of a load.
fn flow(label: &str, spec: TestSpec, family: IpFamily, dscp: Option<Dscp>) -> LoadFlow {
    LoadFlow {
        label: label.to_string(),
        spec,
        family: Some(family),
        marking: Marking {
            dscp,
            flow_label: None,
        },
    }
}

impl DiffServExperiment {
    /// Plans the experiments on `topology` towards `server`.
    ///
    /// # Errors
    /// A topology without a `[diffserv]` table or addresses; bad flags.
    pub(crate) fn plan(
        args: &JobArgs,
        topology: &Topology,
        server: &str,
        run: &RunId,
    ) -> anyhow::Result<DiffServExperiment> {
        let domain = topology
            .diffserv()
            .ok_or_else(|| Failure::usage("the diffserv experiments need a [diffserv] table"))?
            .clone();
        let link = domain.core_rate.bits_per_second();
        let duration_ms = (args
            .time_seconds
            .unwrap_or(if args.quick { 0.4 } else { 1.0 })
            * 1000.0)
            .round() as u64;
        let timing = Timing {
            duration_ms,
            warmup_ms: if args.quick { 50 } else { 250 },
            sample_interval_ms: args
                .interval_ms
                .unwrap_or((duration_ms / 10).clamp(10, 1000)),
            load_warmup_ms: if args.quick { 150 } else { 500 },
        };
        let sizes: Vec<u32> = match &args.sizes {
            Some(list) => list
                .split(',')
                .map(|s| s.trim().parse::<u32>())
                .collect::<Result<_, _>>()
                .map_err(|_| Failure::usage(format!("--sizes: `{list}` is not a list of bytes")))?,
            None if args.quick => QUICK_SIZES.to_vec(),
            None => FULL_SIZES.to_vec(),
        };
        let native = topology
            .arms(server)
            .map_err(super::super::errors::to_cli_error)?;
        let target = |family: IpFamily| {
            native
                .iter()
                .find(|a| a.family == family && a.path == ArmPath::Native)
                .and_then(|a| a.target.clone())
        };
        let lbe = Some(domain.lbe_dscp);
        let probe = |family: IpFamily, class: &str, dscp: Option<Dscp>| {
            flow(
                &format!("{class} probe"),
                spec(TestKind::UdpProbe, PROBE_BYTES, None, &timing),
                family,
                dscp,
            )
        };
        let mut loads = Vec::new();
        let mut arms = Vec::new();
        let arm =
            |id: String, label: String, family: IpFamily, marking: Marking, load: Option<&str>| {
                Arm {
                    id: ArmId::new(&id).unwrap_or_default(),
                    label,
                    family,
                    path: ArmPath::Native,
                    marking,
                    load: load.map_or(LoadCondition::Idle, |l| LoadCondition::Under {
                        load: l.to_string(),
                    }),
                    target: target(family),
                }
            };
        let ef = Marking {
            dscp: Some(Dscp::EF),
            flow_label: None,
        };
        // (a) per class, idle and below/above capacity.
        for family in IpFamily::ALL {
            arms.push(arm(
                format!("{}-ef", family.key()),
                format!("{} EF", family.label()),
                family,
                ef,
                None,
            ));
        }
        for percent in [85, 115] {
            for family in IpFamily::ALL {
                let name = format!("be{percent}-{}", family.key());
                let rate = payload_bps(link, percent, CLASS_LOAD_BYTES, family);
                loads.push(LoadSpec {
                    name: name.clone(),
                    label: format!("BE UDP at {percent} % of the link, LBE TCP, BE and LBE probes"),
                    flows: vec![
                        flow(
                            &format!("BE UDP {percent} %"),
                            spec(TestKind::UdpStream, CLASS_LOAD_BYTES, Some(rate), &timing),
                            family,
                            None,
                        ),
                        flow(
                            "LBE TCP",
                            spec(TestKind::TcpStream, 131_072, None, &timing),
                            family,
                            lbe,
                        ),
                        probe(family, "BE", None),
                        probe(family, "LBE", lbe),
                    ],
                    warmup_ms: timing.load_warmup_ms,
                    offered: Some(OfferedLoad {
                        table: LoadTable::Class,
                        percent,
                        datagram_bytes: CLASS_LOAD_BYTES,
                        carried_by: CarriedBy::Family(family),
                    }),
                });
                arms.push(arm(
                    format!("{}-ef-be{percent}", family.key()),
                    format!("{} EF, BE at {percent} %", family.label()),
                    family,
                    ef,
                    Some(&name),
                ));
            }
        }
        if let Some(label) = domain.ef_flow_label.and_then(|l| FlowLabel::new(l).ok()) {
            arms.push(arm(
                "v6-fl-be115".into(),
                format!("IPv6 flow label {}, BE at 115 %", label.value()),
                IpFamily::V6,
                Marking {
                    dscp: None,
                    flow_label: Some(label),
                },
                Some("be115-v6"),
            ));
        }
        // (b) the load-step table.
        for &size in &sizes {
            for percent in STEPS {
                for family in IpFamily::ALL {
                    let name = format!("s{percent}-{size}-{}", family.key());
                    let rate = payload_bps(link, percent, size, family);
                    loads.push(LoadSpec {
                        name: name.clone(),
                        label: format!("BE UDP {size} B at {percent} % of the link"),
                        flows: vec![
                            flow(
                                &format!("BE UDP {percent} %"),
                                spec(TestKind::UdpStream, size, Some(rate), &timing),
                                family,
                                None,
                            ),
                            probe(family, "BE", None),
                        ],
                        warmup_ms: timing.load_warmup_ms,
                        offered: Some(OfferedLoad {
                            table: LoadTable::Step,
                            percent,
                            datagram_bytes: size,
                            carried_by: CarriedBy::Family(family),
                        }),
                    });
                    arms.push(arm(
                        format!("{}-s{percent}-{size}", family.key()),
                        format!("{} EF, step {percent} % × {size} B", family.label()),
                        family,
                        ef,
                        Some(&name),
                    ));
                }
                let name = format!("s{percent}-{size}-mixed");
                loads.push(LoadSpec {
                    name: name.clone(),
                    label: format!(
                        "BE UDP {size} B at {percent} % of the link, half IPv4, half IPv6"
                    ),
                    flows: IpFamily::ALL
                        .into_iter()
                        .map(|family| {
                            flow(
                                &format!("BE UDP {} {percent}/2 %", family.label()),
                                spec(
                                    TestKind::UdpStream,
                                    size,
                                    Some(payload_bps(link, percent, size, family) / 2),
                                    &timing,
                                ),
                                family,
                                None,
                            )
                        })
                        .collect(),
                    warmup_ms: timing.load_warmup_ms,
                    offered: Some(OfferedLoad {
                        table: LoadTable::Step,
                        percent,
                        datagram_bytes: size,
                        carried_by: CarriedBy::Mixed,
                    }),
                });
                arms.push(arm(
                    format!("mixed-s{percent}-{size}"),
                    format!("IPv4 EF, mixed step {percent} % × {size} B"),
                    IpFamily::V4,
                    ef,
                    Some(&name),
                ));
            }
        }
        if arms.iter().any(|a| a.id.is_unset()) {
            return Err(Failure::usage("a DiffServ arm id is not a valid key"));
        }
        let baseline = crate::pipeline::plan::choose_baseline(
            &arms,
            Some(args.baseline.as_deref().unwrap_or("v4-ef")),
        )?;
        let mut config = RunConfig {
            peer: dualperf_model::PeerKind::Dualperf,
            points: vec![spec(TestKind::UdpProbe, PROBE_BYTES, None, &timing)],
            arms,
            baseline,
            repeat: match args.repeat {
                Some(Repeat::Count(count)) => count,
                Some(Repeat::Auto) => crate::pipeline::plan::auto_target().min_repetitions,
                None => 3,
            },
            order: Default::default(),
            host: None,
            port: args.port,
            client_cpus: Vec::new(),
            server_cpus: Vec::new(),
            command_line: std::env::args().collect(),
            loads,
            contrasts: Vec::new(),
            goal: None,
        };
        // The design's questions, declared in the plan: every arm against the
        // arm of IPv4 at the same class and level of load (the loads' levels
        // pair a 115 % IPv6 load with the 115 % IPv4 one), IPv4's loaded arms
        // against IPv4 EF idle.
        config.contrasts = dualperf_stats::contrast::contrasts(&config);
        flow_label_against_dscp(&mut config);
        crate::pipeline::plan::validate(&config)?;
        // SAFETY: sysconf has no preconditions.
        let cpus = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) }.max(1) as u32;
        let steering = router_steering(topology, run, cpus);
        let mut steering_notes = Vec::new();
        if (cpus as usize) < steering.len() {
            steering_notes.push(format!(
                "{cpus} CPU(s) for {} routers: routers share CPUs, so router CPU counts every \
                 router on the CPU, not one",
                steering.len()
            ));
        }
        let other = topology
            .nodes()
            .iter()
            .enumerate()
            .find(|(index, _)| {
                !domain.premium.contains(index)
                    && domain
                        .access_links
                        .iter()
                        .any(|&l| topology.links()[l].end_of(*index).is_some())
            })
            .map(|(_, node)| node.name.clone());
        Ok(DiffServExperiment {
            config,
            steering,
            steering_notes,
            domain,
            other,
            verbose: args.verbose,
        })
    }
}

impl Experiment for DiffServExperiment {
    fn config(&self) -> &RunConfig {
        &self.config
    }

    fn child_routers(&self) -> Vec<String> {
        self.steering
            .iter()
            .map(RouterSteering::child_arg)
            .collect()
    }

    fn prepare(&mut self, _testbed: &Testbed) -> anyhow::Result<()> {
        let runner = dualperf_lab::Runner::new(self.verbose);
        for steering in &self.steering {
            for command in &steering.commands {
                runner.run(command).with_context(|| {
                    format!("steering router {} to CPU {}", steering.node, steering.cpu)
                })?;
            }
        }
        Ok(())
    }

    fn after(&mut self, step: &Step, facts: &mut TestbedFacts) {
        let mut findings =
            super::diffserv_checks::run_checks(step, &self.domain, self.other.as_deref());
        findings.steering = self.steering.iter().map(RouterSteering::describe).collect();
        findings.notes.extend(self.steering_notes.iter().cloned());
        facts.diffserv = Some(findings);
    }

    fn replaces_verdicts(&self) -> bool {
        true
    }

    fn print(&self, result: &RunResult) {
        use std::io::Write;
        let text = dualperf_report::terminal::render_diffserv(result);
        let mut stdout = std::io::stdout().lock();
        let _ = stdout
            .write_all(text.as_bytes())
            .and_then(|()| stdout.flush());
    }
}

/// The seed's §4 question: does the IPv6 flow label alone (no DSCP) get
/// the EF class? An arm marked by a flow label only is compared with the
/// IPv6 arm marked DSCP EF under the same load (found by levels: family,
/// marking, load), not with IPv4, so its verdict is the label's effect.
fn flow_label_against_dscp(config: &mut RunConfig) {
    let pairs: Vec<(ArmId, ArmId)> = config
        .arms
        .iter()
        .filter(|a| a.marking.flow_label.is_some() && a.marking.dscp.is_none())
        .filter_map(|labelled| {
            config
                .arms
                .iter()
                .find(|ef| {
                    ef.family == labelled.family
                        && ef.path == labelled.path
                        && ef.marking.dscp == Some(Dscp::EF)
                        && ef.marking.flow_label.is_none()
                        && dualperf_stats::contrast::same_load(config, ef, labelled)
                })
                .map(|ef| (labelled.id.clone(), ef.id.clone()))
        })
        .collect();
    for (arm, baseline) in pairs {
        config.contrasts.retain(|c| c.arm != arm);
        config.contrasts.push(dualperf_model::Contrast {
            arm,
            baseline,
            factor: dualperf_model::Factor::Marking,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::cli::lab::args::parse_job_args as parse;

    #[test]
    fn the_quick_plan_has_the_class_arms_the_step_cells_and_ipv4_ef_as_baseline() {
        let topology = dualperf_lab::preset::load("diffserv").unwrap();
        let run = RunId::new("t1").unwrap();
        let experiment =
            DiffServExperiment::plan(&parse(&["diffserv", "--quick"]), &topology, "server", &run)
                .unwrap();
        let config = experiment.config();
        assert_eq!(config.baseline.as_str(), "v4-ef");
        assert_eq!(config.points.len(), 1);
        assert_eq!(config.points[0].kind, TestKind::UdpProbe);
        // 2 idle + 4 loaded + 1 flow label + 2 sizes × 3 steps × 3 columns.
        assert_eq!(config.arms.len(), 25);
        assert_eq!(config.loads.len(), 4 + 2 * 3 * 3);
        let ids: Vec<&str> = config.arms.iter().map(|a| a.id.as_str()).collect();
        for id in [
            "v6-ef-be115",
            "v6-fl-be115",
            "mixed-s100-128",
            "v6-s85-1408",
        ] {
            assert!(ids.contains(&id), "{id} in {ids:?}");
        }
        // Every load flow names its family; the mixed one both.
        let mixed = config
            .loads
            .iter()
            .find(|l| l.name == "s115-128-mixed")
            .unwrap();
        let families: Vec<_> = mixed.flows.iter().map(|f| f.family).collect();
        assert_eq!(families, [Some(IpFamily::V4), Some(IpFamily::V6)]);
        let class = config.loads.iter().find(|l| l.name == "be115-v6").unwrap();
        assert_eq!(class.flows.len(), 4);
        assert_eq!(class.flows[1].marking.dscp, Some(Dscp::new(8).unwrap()));
        assert!(config.arms.iter().all(|a| a.target.is_some()));
        // Both routers steered, each to a CPU of its own where there are two.
        assert_eq!(experiment.child_routers().len(), 2);
        // The flow-label arm answers the seed's §4 question: against IPv6
        // DSCP EF under the same load, the marking being the difference.
        let label = config
            .contrasts
            .iter()
            .filter(|c| c.arm.as_str() == "v6-fl-be115")
            .collect::<Vec<_>>();
        assert_eq!(label.len(), 1, "{label:?}");
        assert_eq!(label[0].baseline.as_str(), "v6-ef-be115");
        assert_eq!(label[0].factor, dualperf_model::Factor::Marking);
    }

    #[test]
    fn loads_are_shares_of_the_link_in_frames_so_ipv6_carries_less_payload() {
        // 115 % of 100 Mbit/s at 1408 B: 1450-byte IPv4 frames.
        assert_eq!(
            payload_bps(100_000_000, 115, 1408, IpFamily::V4),
            111_668_965
        );
        let v6 = payload_bps(100_000_000, 115, 128, IpFamily::V6);
        let v4 = payload_bps(100_000_000, 115, 128, IpFamily::V4);
        assert!(v6 < v4, "{v6} {v4}");
        // Same frames per second on the link: rate / size × frame.
        let frames = |bps: u64, family| {
            bps as f64 / 8.0 / 128.0 * f64::from(128 + header_bytes(family) + 14) * 8.0
        };
        assert!((frames(v4, IpFamily::V4) - frames(v6, IpFamily::V6)).abs() < 100.0);
    }
}

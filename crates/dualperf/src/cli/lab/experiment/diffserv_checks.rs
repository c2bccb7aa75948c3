//! The DiffServ conditioner checks of `dualperf lab diffserv`, run after
//! the main measurement on the same testbed:
//!
//! - **(c) policing**: the premium client offers EF at twice its allowance
//!   (packets of `ef_packet_bytes` at the IPv6 layer 3, IPv4 20 B smaller),
//!   one trial per family;
//! - **(d) unauthorised EF**: the non-premium client offers EF at half the
//!   allowance, one trial per family.
//!
//! Each is a small plan run by the main job's own traffic step
//! ([`crate::cli::lab::measure::measure`]: a server in the server node, the
//! measuring child in the sending node); the edge router's named counters
//! are read before and after, so what the conditioner kept as EF and what it
//! remarked to DSCP 0 is its own count. A check that cannot run leaves a
//! note, never a number.

use dualperf_lab::diffserv::DiffServ;
use dualperf_lab::diffserv_counters::{delta, read_counters, Counters};
use dualperf_model::{
    Arm, ArmId, BitRate, DiffServFindings, Dscp, IpFamily, Marking, RemarkCase, RemarkCheck,
    RunConfig, TestKind, TestSpec, TrialOutcome,
};

use super::Step;
use crate::cli::lab::measure::{measure, Traffic};
use crate::pipeline::execute::{read_raw, write_plan};

/// Measured length of a check trial, milliseconds.
const CHECK_MS: u64 = 1_000;
/// Warm-up of a check trial, milliseconds.
const CHECK_WARMUP_MS: u64 = 100;

/// Runs (c) from the premium client and (d) from `other`.
pub(super) fn run_checks(step: &Step, domain: &DiffServ, other: Option<&str>) -> DiffServFindings {
    let mut findings = DiffServFindings::default();
    let premium = step
        .testbed
        .topology()
        .nodes()
        .get(domain.premium.first().copied().unwrap_or(usize::MAX))
        .map(|n| n.name.clone());
    let allowance = domain.ef_packets_per_second();
    // IPv6's layer 3 is `ef_packet_bytes`; IPv4's 20 B less.
    let size = domain.ef_packet_bytes.saturating_sub(48).max(64);
    let cases = [
        (RemarkCase::Policing, premium.as_deref(), 2 * allowance),
        (RemarkCase::Unauthorised, other, (allowance / 2).max(1)),
    ];
    for (case, node, packets_per_second) in cases {
        let Some(node) = node else {
            findings
                .notes
                .push(format!("{case:?}: the topology has no node to send from"));
            continue;
        };
        let rate = packets_per_second * u64::from(size) * 8;
        match run_case(step, node, size, rate) {
            Ok((counters, trials)) => {
                for (family, sent, received) in trials {
                    let key = |name: &str| {
                        counters
                            .get(&format!("{name}_{}", family.key()))
                            .copied()
                            .unwrap_or(0)
                    };
                    findings.checks.push(RemarkCheck {
                        case,
                        family,
                        source: node.to_string(),
                        offered_bps: rate,
                        duration_ms: CHECK_MS + CHECK_WARMUP_MS,
                        sent_packets: sent,
                        received_packets: received,
                        kept_ef_packets: key("ef_ok"),
                        excess_remarked_packets: key("excess"),
                        unauthorised_remarked_packets: key("unauth"),
                        allowance_pps: allowance,
                    });
                }
            }
            Err(error) => findings
                .notes
                .push(format!("{case:?} check from {node} did not run: {error:#}")),
        }
    }
    findings
}

/// (family, datagrams sent, datagrams received) of each trial.
type Sent = Vec<(IpFamily, u64, u64)>;

/// Runs EF at `rate` from `node` over both families; the counters' change.
fn run_case(step: &Step, node: &str, size: u32, rate: u64) -> anyhow::Result<(Counters, Sent)> {
    let arms: Vec<Arm> = IpFamily::ALL
        .into_iter()
        .map(|family| {
            Ok(Arm {
                id: ArmId::new(&format!("{}-ef", family.key())).map_err(anyhow::Error::msg)?,
                label: format!("{} EF", family.label()),
                marking: Marking {
                    dscp: Some(Dscp::EF),
                    flow_label: None,
                },
                ..Arm::native(
                    family,
                    Some(step.testbed.address(step.server, family)?.to_string()),
                )
            })
        })
        .collect::<anyhow::Result<_>>()?;
    let config = RunConfig {
        peer: dualperf_model::PeerKind::Dualperf,
        points: vec![TestSpec {
            duration_ms: CHECK_MS,
            warmup_ms: CHECK_WARMUP_MS,
            rate: Some(BitRate::from_bits_per_second(rate)),
            sample_interval_ms: 100,
            ..TestSpec::new(TestKind::UdpStream, size)
        }],
        baseline: arms[0].id.clone(),
        arms,
        repeat: 1,
        order: Default::default(),
        host: None,
        port: step.traffic.port,
        client_cpus: Vec::new(),
        server_cpus: Vec::new(),
        command_line: Vec::new(),
        loads: Vec::new(),
        contrasts: Vec::new(),
        goal: None,
    };
    let traffic = Traffic {
        exe: step.traffic.exe.clone(),
        port: step.traffic.port,
        plan: step
            .traffic
            .plan
            .with_file_name(format!("check-{node}-plan.json")),
        raw: step
            .traffic
            .plan
            .with_file_name(format!("check-{node}-raw.json")),
        routers: Vec::new(),
        peer: Default::default(),
    };
    write_plan(&traffic.plan, &config, &Default::default())?;
    let before = read_counters(step.testbed)?;
    let measured = measure(step.testbed, node, step.server, &traffic, step.interrupt)?;
    let after = read_counters(step.testbed)?;
    let result = read_raw(&traffic.raw);
    let _ = std::fs::remove_file(&traffic.plan);
    let _ = std::fs::remove_file(&traffic.raw);
    let result = result?;
    anyhow::ensure!(
        measured.client_exit_code == 0 || !result.trials.is_empty(),
        "the sending child exited {}",
        measured.client_exit_code
    );
    let sent = result
        .trials
        .iter()
        .filter_map(|trial| match &trial.outcome {
            TrialOutcome::Ok(o) => Some((
                trial.family,
                o.udp.as_ref().map_or(o.sender.packets, |u| u.sent),
                o.udp.as_ref().map_or(o.receiver.packets, |u| u.received),
            )),
            TrialOutcome::Failed { .. } => None,
        })
        .collect();
    Ok((delta(&before, &after), sent))
}

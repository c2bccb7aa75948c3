//! `dualperf lab calibrate`: what this host can resolve, proved on it.
//!
//! On the `calibrate` preset (client — router — server), with the lab's
//! link rate on every link (`--link-rate`, 100 Mbit/s by default: the rate
//! of a default `dualperf lab`, whose resolution the calibration states),
//! the router's egress towards the server gets one htb class per family
//! instead ([`dualperf_lab::shaping::per_family_commands`]): IPv4 at the
//! link rate, IPv6 at [`V6_RATE_RATIO`] of it. Every point then runs three arms,
//! interleaved: IPv4, **IPv4 again** (an A/A replica, the same treatment
//! under another id) and IPv6. Two contrasts are declared: the replica
//! against IPv4 ([`Factor::Replica`]: any "significant" verdict there is a
//! false positive) and IPv6 against IPv4 ([`Factor::Family`]: a known
//! effect on the rate points — the class ratio times IPv6's larger header,
//! −6.3 % for TCP — whose CI must cover the truth).
//!
//! After the one pipeline has analysed and stored the run,
//! [`dualperf_stats::calibration::evaluate`] reads it back as a
//! [`Calibration`], which is printed (the minimum detectable effect for a
//! budget, the false positives, the bias) and stored (schema version 7), so
//! that later verdicts on this host cite it
//! ([`crate::pipeline::resolution`]). One calibration is one sample of
//! the false-positive rate; `bench/calibrate.sh` runs ten and tallies them.

use std::path::PathBuf;

use dualperf_lab::link_rate::LinkRateChoice;
use dualperf_lab::naming::interface_name;
use dualperf_lab::{RunId, Testbed, Topology};
use dualperf_model::{
    Arm, ArmId, Calibration, CalibrationSetup, Contrast, Factor, IpFamily, RunConfig, RunResult,
    TestKind, TestbedFacts,
};
use dualperf_stats::calibration::{evaluate, minimum_detectable_effect};

use super::{Experiment, Step};
use crate::cli::lab::args::JobArgs;
use crate::cli::run::Repeat;
use crate::cli::Failure;
use crate::pipeline::plan::{points, validate, PointOptions};

/// IPv6's class rate over IPv4's: a 5 % effect.
pub(crate) const V6_RATE_RATIO: f64 = 0.95;
/// udp-stream's payload rate over the IPv4 class's rate.
const UDP_OFFERED_RATIO: f64 = 1.1;
/// Queue of each class, packets (the lab's own): 11.6 ms of 1450-byte frames at 100 Mbit/s, so
/// what is queued when a trial stops barely moves its goodput.
const QUEUE_PACKETS: u32 = 100;
/// Bytes htb counts beyond the IP packet on a veth.
const FRAMING_BYTES: u32 = 14;
/// Repetitions of each arm at each point [default]; 5 with --quick.
const REPETITIONS: u32 = 10;
/// Message size of every point, bytes.
const SIZE_BYTES: &str = "1408";
/// Budgets the printed resolution is stated for, seconds of measuring one point.
const BUDGETS_S: [f64; 2] = [60.0, 300.0];

/// One calibration run.
pub(crate) struct CalibrateExperiment {
    config: RunConfig,
    setup: CalibrationSetup,
    /// Namespace and device of the router's egress towards the server.
    shaped: (String, String),
    database: Option<PathBuf>,
    verbose: bool,
}

impl CalibrateExperiment {
    /// Plans the calibration on `topology` (the `calibrate` preset).
    ///
    /// # Errors
    /// A topology without the router → server link or native arms; flags
    /// out of range.
    pub(crate) fn plan(
        args: &JobArgs,
        topology: &Topology,
        server: &str,
        run: &RunId,
    ) -> anyhow::Result<CalibrateExperiment> {
        let link_rate_bps = match args.link_rate.unwrap_or_default() {
            LinkRateChoice::Rate(rate) => rate.bits_per_second(),
            LinkRateChoice::Unshaped => {
                return Err(Failure::usage(
                    "a calibration needs a shaped link (its known effect is a rate): give \
                     --link-rate RATE, not none",
                ))
            }
        };
        let server_index = topology
            .node_index(server)
            .ok_or_else(|| Failure::usage("the calibrate topology has no server node"))?;
        let (link_index, link) = topology
            .links()
            .iter()
            .enumerate()
            .find(|(_, link)| link.end_of(server_index).is_some())
            .ok_or_else(|| Failure::usage("the calibrate topology has no link to the server"))?;
        let server_end = link
            .end_of(server_index)
            .ok_or_else(|| Failure::usage("no server end"))?;
        let router_end = server_end.peer();
        let router = &topology.nodes()[link.node(router_end)].name;
        let shaped = (
            dualperf_lab::naming::namespace_name(run, router),
            interface_name(run, link_index, router_end),
        );
        let (v4, v6) = super::native_pair(topology, server, "a calibration")?;
        let replica = Arm {
            id: ArmId::new("v4-replica").map_err(Failure::usage)?,
            label: "IPv4 (replica)".to_string(),
            ..v4.clone()
        };
        let contrasts = vec![
            Contrast {
                arm: replica.id.clone(),
                baseline: v4.id.clone(),
                factor: Factor::Replica,
            },
            Contrast {
                arm: v6.id.clone(),
                baseline: v4.id.clone(),
                factor: Factor::Family,
            },
        ];
        let options = PointOptions {
            tests: vec![
                TestKind::TcpStream,
                TestKind::UdpStream,
                TestKind::TcpRr,
                TestKind::UdpRr,
            ],
            sizes: SIZE_BYTES.to_string(),
            time_seconds: args
                .time_seconds
                .unwrap_or(if args.quick { 0.5 } else { 1.0 }),
            warmup_seconds: 0.25,
            interval_ms: args.interval_ms,
            // Paced just above the IPv4 class: both classes stay saturated
            // (the link, not the receiver's CPU, sets the rate) without an
            // unpaced sender taking a CPU from the receiver.
            bitrate: Some(dualperf_model::BitRate::from_bits_per_second(
                (link_rate_bps as f64 * UDP_OFFERED_RATIO) as u64,
            )),
            ..PointOptions::default()
        };
        let config = RunConfig {
            loads: Vec::new(),
            points: points(&options, &[IpFamily::V4, IpFamily::V6])?,
            baseline: v4.id.clone(),
            arms: vec![v4, replica, v6],
            repeat: match args.repeat {
                Some(Repeat::Count(count)) => count,
                Some(Repeat::Auto) => {
                    return Err(Failure::usage(
                        "a calibration runs a fixed number of repetitions: give --repeat N",
                    ))
                }
                None if args.quick => 5,
                None => REPETITIONS,
            },
            order: Default::default(),
            host: None,
            port: args.port,
            client_cpus: Vec::new(),
            server_cpus: Vec::new(),
            command_line: std::env::args().collect(),
            contrasts,
            peer: dualperf_model::PeerKind::Dualperf,
            goal: None,
        };
        if config.repeat < 3 {
            return Err(Failure::usage(
                "a calibration needs at least 3 repetitions (--repeat)",
            ));
        }
        validate(&config)?;
        Ok(CalibrateExperiment {
            config,
            setup: CalibrationSetup {
                link_rate_bps,
                v6_rate_ratio: V6_RATE_RATIO,
                framing_bytes: FRAMING_BYTES,
            },
            shaped,
            database: if args.no_store {
                None
            } else {
                Some(crate::cli::report::database_path(args.db.as_deref())?)
            },
            verbose: args.verbose,
        })
    }
}

impl Experiment for CalibrateExperiment {
    fn config(&self) -> &RunConfig {
        &self.config
    }

    fn prepare(&mut self, _testbed: &Testbed) -> anyhow::Result<()> {
        let runner = dualperf_lab::Runner::new(self.verbose);
        let (netns, device) = &self.shaped;
        // The lab shaped this egress to the link rate like every other;
        // the per-family classes take its place.
        let _ = runner.output(&dualperf_lab::KernelCommand::tc([
            "-n", netns, "qdisc", "del", "dev", device, "root",
        ]));
        for command in dualperf_lab::shaping::per_family_commands(
            netns,
            device,
            self.setup.link_rate_bps,
            self.setup.v6_rate_ratio,
            QUEUE_PACKETS,
        ) {
            runner
                .run(&command)
                .map_err(|err| anyhow::anyhow!("shaping each family on {device}: {err}"))?;
        }
        Ok(())
    }

    fn after(&mut self, _step: &Step, facts: &mut TestbedFacts) {
        facts.calibration = Some(self.setup);
        facts.notes.push(format!(
            "calibration: the router's egress to the server gives IPv4 an htb class of {} and \
             IPv6 one of {:.0} % of it",
            dualperf_model::BitRate::from_bits_per_second(self.setup.link_rate_bps),
            self.setup.v6_rate_ratio * 100.0
        ));
    }

    fn replaces_verdicts(&self) -> bool {
        true
    }

    fn print(&self, result: &RunResult) {
        use std::io::Write;
        let host = result.client_host.hostname.clone();
        let Some(calibration) = evaluate(result, &host) else {
            eprintln!("dualperf: the calibration run has no analysis to evaluate");
            return;
        };
        let text = render(&calibration);
        let mut stdout = std::io::stdout().lock();
        let _ = stdout
            .write_all(text.as_bytes())
            .and_then(|()| stdout.flush());
        if let Some(path) = &self.database {
            match dualperf_store::Store::open(path)
                .and_then(|mut store| store.save_calibration(&calibration))
            {
                Ok(()) => eprintln!(
                    "dualperf: stored the calibration of {host} in {}; later verdicts on this \
                     host cite it",
                    path.display()
                ),
                Err(err) => eprintln!("dualperf: the calibration was not stored: {err}"),
            }
        }
    }
}

/// Whether an estimate was called significant; a "no" whose paired test
/// alone would have said yes says it was withheld (by the contention rule
/// or the multiple-comparison control: the run's report says which).
fn detected(estimate: &dualperf_model::calibration::Estimate) -> String {
    match (estimate.significant, estimate.p_value) {
        (true, _) => "yes".to_string(),
        (false, Some(p)) if p < 0.05 => format!(
            "no (withheld although p = {p:.1e}: contended trials or multiple comparisons; see the run's report)"
        ),
        (false, _) => "no".to_string(),
    }
}

/// The calibration as the terminal shows it.
pub(crate) fn render(calibration: &Calibration) -> String {
    let percent = |ratio: f64| format!("{:+.2} %", ratio * 100.0);
    let ci = |ci: Option<(f64, f64)>| match ci {
        Some((low, high)) => format!("[{:+.2}, {:+.2}] %", low * 100.0, high * 100.0),
        None => "(no CI)".to_string(),
    };
    let yes = |b: bool| if b { "yes" } else { "no" };
    let mut text = format!(
        "calibration of {} (run {}): IPv4 class {}, IPv6 class {:.0} % of it\n\n",
        calibration.host,
        calibration.run_id,
        dualperf_model::BitRate::from_bits_per_second(calibration.setup.link_rate_bps),
        calibration.setup.v6_rate_ratio * 100.0
    );
    text.push_str(
        "A/A: IPv4 against itself (a significant verdict is a false positive)\n\
         known effect: IPv6 against IPv4 through the classes (truth: class ratio × header)\n\n",
    );
    for point in &calibration.points {
        text.push_str(&format!(
            "{} {} B ({}, {} pairs)\n  A/A          {} {}  significant: {}\n",
            point.kind,
            point.size_bytes,
            point.metric.label(),
            point.pairs,
            percent(point.replica.relative),
            ci(point.replica.ci95),
            yes(point.replica.significant)
        ));
        if let Some(effect) = &point.effect {
            text.push_str(&format!(
                "  known effect {} {}  truth {}, covered: {}, detected: {}, bias {:+.2} points\n",
                percent(effect.estimate.relative),
                ci(effect.estimate.ci95),
                percent(effect.truth),
                yes(effect.covered()),
                detected(&effect.estimate),
                effect.bias() * 100.0
            ));
        }
        let resolves: Vec<String> = std::iter::once(format!(
            "{} with these {} pairs",
            mde_text(point.paired_sd_ratio, point.pairs),
            point.pairs
        ))
        .chain(BUDGETS_S.iter().filter_map(|budget| {
            let pairs = pairs_in(*budget, point.seconds_per_pair)?;
            Some(format!(
                "{} in {}",
                mde_text(point.paired_sd_ratio, pairs),
                minutes(*budget)
            ))
        }))
        .collect();
        text.push_str(&format!(
            "  resolves     {} (80 % power, 5 % level)\n",
            resolves.join(", ")
        ));
    }
    let (false_positives, replicas) = calibration.false_positives();
    let (effects, detected, covered) = calibration.effects();
    text.push_str(&format!(
        "\nfalse positives: {false_positives} of {replicas} A/A comparisons significant; known \
         effects: {detected} of {effects} detected, {covered} of {effects} CIs cover the truth\n"
    ));
    text
}

/// Pairs of repetitions that fit in `budget_s` seconds of measuring.
fn pairs_in(budget_s: f64, seconds_per_pair: f64) -> Option<u64> {
    (seconds_per_pair > 0.0).then(|| (budget_s / seconds_per_pair).floor() as u64)
}

fn mde_text(paired_sd_ratio: f64, pairs: u64) -> String {
    match minimum_detectable_effect(paired_sd_ratio, pairs) {
        Some(mde) => format!("{:.2} %", mde * 100.0),
        None => "nothing".to_string(),
    }
}

fn minutes(seconds: f64) -> String {
    format!("{:.0} min", seconds / 60.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::calibration::{Estimate, KnownEffect};
    use dualperf_model::{CalibrationPoint, MetricId};

    fn estimate(relative: f64, ci95: (f64, f64), significant: bool) -> Estimate {
        Estimate {
            relative,
            ci95: Some(ci95),
            significant,
            p_value: Some(0.01),
        }
    }

    #[test]
    fn the_answer_counts_false_positives_and_states_the_resolution_per_budget() {
        let calibration = Calibration {
            run_id: "r1".into(),
            host: "h".into(),
            finished_at_ms: 0,
            setup: CalibrationSetup {
                link_rate_bps: 200_000_000,
                v6_rate_ratio: V6_RATE_RATIO,
                framing_bytes: FRAMING_BYTES,
            },
            points: vec![CalibrationPoint {
                kind: TestKind::TcpStream,
                size_bytes: 1408,
                metric: MetricId::GoodputBps,
                pairs: 10,
                replica: estimate(0.004, (0.001, 0.007), true),
                effect: Some(KnownEffect {
                    truth: -0.0631,
                    estimate: estimate(-0.063, (-0.065, -0.061), true),
                }),
                paired_sd_ratio: 0.01,
                seconds_per_pair: 3.0,
            }],
        };
        let text = render(&calibration);
        assert!(
            text.contains("tcp-stream 1408 B (goodput, 10 pairs)"),
            "{text}"
        );
        assert!(text.contains("significant: yes"), "{text}");
        // (2.262 + 0.883) · 1 % / √10 = 0.99 %; 1 min = 20 pairs, 5 min = 100.
        assert!(text.contains("0.99 % with these 10 pairs"), "{text}");
        assert!(
            text.contains("in 1 min") && text.contains("in 5 min"),
            "{text}"
        );
        assert!(
            text.contains("false positives: 1 of 1 A/A comparisons significant; known effects: 1 of 1 detected, 1 of 1"),
            "{text}"
        );
    }

    #[test]
    fn an_effect_withheld_despite_its_test_says_so() {
        let withheld = estimate(-0.06, (-0.063, -0.059), false);
        assert!(detected(&withheld).starts_with("no (withheld although p = 1.0e-2"));
        let unseen = Estimate {
            p_value: Some(0.4),
            ..withheld
        };
        assert_eq!(detected(&unseen), "no");
        assert_eq!(detected(&estimate(-0.06, (-0.063, -0.059), true)), "yes");
    }

    #[test]
    fn no_measured_time_gives_no_budget_line() {
        assert_eq!(pairs_in(60.0, 0.0), None);
        assert_eq!(pairs_in(60.0, 2.5), Some(24));
    }
}

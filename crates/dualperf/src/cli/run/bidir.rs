//! `--bidir` (iperf3's): both directions at once in one trial, for
//! tcp-stream and udp-stream (`-u`; `-b` is each direction's rate, as in
//! iperf3). The point
//! runs client → server as measured, and its mirror image (the same spec
//! with `reverse`, same marking, rate and socket options) runs server →
//! client beside it as the arm's load (`RunConfig::loads`, named `bidir`, no
//! load warm-up: both directions start together and the reverse one halts
//! when the measured one ends — its server-side sender too, which the
//! client tells to stop before it drains). Each trial therefore keeps both
//! directions' own meters — the forward one in its observations, the
//! reverse one in `Observations::loads` — and the run prints, per arm, one
//! line with both directions' goodput (TCP) or one line per direction with
//! goodput, jitter and loss (UDP, as iperf3's `[TX-C]`/`[RX-C]` lines).
//! Against `--peer iperf3` the same plan runs as one bidirectional iperf3
//! test per trial (`dualperf_engine::client::peer::iperf3::bidir`): an
//! iperf3 server runs one test at a time and would turn a second session away.

use dualperf_model::{
    LoadCondition, LoadFlow, LoadSpec, Observations, PeerKind, RunConfig, RunResult, TestKind,
    TrialOutcome,
};

use crate::cli::Failure;

/// Name of the load that carries the reverse direction.
pub(super) const BIDIR_LOAD: &str = "bidir";

/// Turns `config` into a bidirectional run: every arm under the mirror
/// image of the (one) stream point.
///
/// # Errors
/// A usage error unless the run has exactly one point, a tcp-stream or
/// udp-stream in the forward direction, and no other load.
pub(super) fn apply(config: &mut RunConfig) -> anyhow::Result<()> {
    let [point] = config.points.as_slice() else {
        return Err(Failure::usage(format!(
            "--bidir runs one test in both directions; this run has {} points \
             (give one test and one size: --tests tcp-stream -l 128K, or -u)",
            config.points.len()
        )));
    };
    if !matches!(point.kind, TestKind::TcpStream | TestKind::UdpStream) {
        return Err(Failure::usage(format!(
            "--bidir applies to tcp-stream and udp-stream (-u), not {}",
            point.kind
        )));
    }
    if point.reverse {
        return Err(Failure::usage(
            "--bidir already runs both directions; leave out -R",
        ));
    }
    if !config.loads.is_empty() {
        return Err(Failure::usage("--bidir and --load cannot be combined"));
    }
    if point.send_budget.is_some() {
        return Err(Failure::usage(
            "--bidir with -n/-k is not implemented: a budget ends one direction, and the \
             other would end with it (use -n/-k and -R in two runs)",
        ));
    }
    if config.peer == PeerKind::Stamp {
        return Err(Failure::usage(
            "--bidir needs a dualperf or iperf3 server: a STAMP reflector only reflects probes",
        ));
    }
    let marking = config.arms.first().map(|a| a.marking).unwrap_or_default();
    if config.arms.iter().any(|a| a.marking != marking) {
        return Err(Failure::usage("--bidir needs one marking for every arm"));
    }
    let mut reverse = point.clone();
    reverse.reverse = true;
    config.loads.push(LoadSpec {
        name: BIDIR_LOAD.into(),
        label: "the reverse direction (--bidir)".into(),
        flows: vec![LoadFlow {
            label: format!("{} server to client", point.kind),
            spec: reverse,
            family: None,
            marking,
        }],
        warmup_ms: 0,
        offered: None,
    });
    for arm in &mut config.arms {
        arm.load = LoadCondition::Under {
            load: BIDIR_LOAD.into(),
        };
        arm.label = format!("{}, both directions", arm.label);
    }
    Ok(())
}

/// What one direction of an arm's trials carried, summed over trials.
#[derive(Debug, Default)]
struct Direction {
    /// Sum of the trials' goodputs, bit/s.
    goodput_bps: f64,
    /// UDP datagrams the sender sent, summed over trials.
    sent: u64,
    /// UDP datagrams lost, summed over trials.
    lost: u64,
    /// Sum of the trials' RFC 3550 jitter, nanoseconds.
    jitter_ns: u64,
    /// Trials that carried UDP receive counters.
    udp_trials: u32,
}

impl Direction {
    /// Adds one trial's view of this direction.
    fn add(&mut self, observations: &Observations) {
        self.goodput_bps += rate(observations.receiver.bytes, observations.measured_ns);
        if let Some(udp) = &observations.udp {
            self.sent += udp.sent;
            self.lost += udp.lost;
            self.jitter_ns += udp.jitter_ns;
            self.udp_trials += 1;
        }
    }

    /// "9.9 Mbit/s goodput, jitter 0.012 ms, lost 3/2442 (0.12 %)" over
    /// `trials` trials (jitter: their mean; loss: their sum).
    fn udp_text(&self, trials: u32) -> String {
        let goodput = self.goodput_bps / f64::from(trials) / 1e6;
        if self.udp_trials == 0 {
            return format!("{goodput:.1} Mbit/s goodput, no loss or jitter counts");
        }
        let jitter_ms = self.jitter_ns as f64 / f64::from(self.udp_trials) / 1e6;
        let percent = if self.sent == 0 {
            0.0
        } else {
            self.lost as f64 * 100.0 / self.sent as f64
        };
        format!(
            "{goodput:.1} Mbit/s goodput, jitter {jitter_ms:.3} ms, lost {}/{} ({percent:.2} %)",
            self.lost, self.sent
        )
    }
}

/// The lines that give each arm's two directions: the goodput (bytes the
/// receiving end took out of its sockets over that direction's own
/// measured interval — the reverse one spans the forward one and its
/// warm-up), the mean over the arm's completed trials; for UDP one line per
/// direction with its jitter (RFC 3550, the mean over trials) and loss
/// (summed over trials), as iperf3's `--bidir -u` prints a sender and a
/// receiver line per direction.
pub(super) fn direction_lines(result: &RunResult) -> Vec<String> {
    let udp = result
        .config
        .points
        .first()
        .is_some_and(|point| point.kind == TestKind::UdpStream);
    let mut lines = Vec::new();
    for arm in &result.config.arms {
        let (mut forward, mut reverse, mut trials) =
            (Direction::default(), Direction::default(), 0u32);
        for trial in result.trials.iter().filter(|t| t.arm == arm.id) {
            let TrialOutcome::Ok(observations) = &trial.outcome else {
                continue;
            };
            let Some(load) = observations.loads.first() else {
                continue;
            };
            forward.add(observations);
            reverse.add(&load.observations);
            trials += 1;
        }
        if trials == 0 {
            lines.push(format!("{}: no completed bidirectional trial", arm.label));
            continue;
        }
        let label = &arm.label;
        let of = format!("mean of {trials} trials, both directions at once");
        if udp {
            lines.push(format!(
                "[{label}] client to server: {} ({of})",
                forward.udp_text(trials)
            ));
            lines.push(format!(
                "[{label}] server to client: {} ({of})",
                reverse.udp_text(trials)
            ));
            continue;
        }
        let n = f64::from(trials);
        lines.push(format!(
            "[{label}] client to server {:.1} Mbit/s, server to client {:.1} Mbit/s (goodput, {of})",
            forward.goodput_bps / n / 1e6,
            reverse.goodput_bps / n / 1e6
        ));
    }
    lines
}

/// Bits per second of `bytes` over `ns` nanoseconds (0 without a span).
fn rate(bytes: u64, ns: u64) -> f64 {
    if ns == 0 {
        0.0
    } else {
        bytes as f64 * 8.0 / (ns as f64 / 1e9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::{Arm, IpFamily, TestSpec};

    fn config(points: Vec<TestSpec>) -> RunConfig {
        let arms = vec![
            Arm::native(IpFamily::V4, Some("127.0.0.1".into())),
            Arm::native(IpFamily::V6, Some("::1".into())),
        ];
        dualperf_fixtures::config(points, arms)
    }

    #[test]
    fn one_stream_point_gets_its_mirror_image_as_every_arms_load() {
        let mut run = config(vec![TestSpec::new(TestKind::TcpStream, 131_072)]);
        apply(&mut run).unwrap();
        assert_eq!(run.loads.len(), 1);
        let flow = &run.loads[0].flows[0];
        assert!(flow.spec.reverse && flow.spec.kind == TestKind::TcpStream);
        assert_eq!(run.loads[0].warmup_ms, 0);
        assert!(run.arms.iter().all(|a| a.load
            == LoadCondition::Under {
                load: BIDIR_LOAD.into()
            }));
    }

    #[test]
    fn a_udp_point_gets_its_mirror_image_at_the_same_rate() {
        let mut point = TestSpec::new(TestKind::UdpStream, 1200);
        point.rate = Some(dualperf_model::BitRate::from_bits_per_second(10_000_000));
        let mut run = config(vec![point.clone()]);
        apply(&mut run).unwrap();
        let flow = &run.loads[0].flows[0];
        assert!(flow.spec.reverse && flow.spec.kind == TestKind::UdpStream);
        assert_eq!(flow.spec.rate, point.rate, "-b is each direction's rate");
    }

    /// A UDP trial's view of one direction: `mbps` goodput over 1 s,
    /// `lost` of `sent` datagrams lost, `jitter_us` of jitter.
    fn udp_direction(mbps: f64, sent: u64, lost: u64, jitter_us: u64) -> Observations {
        let mut o = dualperf_fixtures::stream(mbps * 1e6);
        o.udp = Some(dualperf_model::UdpReceiveCounters {
            sent,
            received: sent - lost,
            lost,
            jitter_ns: jitter_us * 1_000,
            ..Default::default()
        });
        o
    }

    #[test]
    fn udp_prints_each_directions_goodput_jitter_and_loss() {
        let mut point = TestSpec::new(TestKind::UdpStream, 1200);
        point.rate = Some(dualperf_model::BitRate::from_bits_per_second(10_000_000));
        let mut run = config(vec![point.clone()]);
        run.arms.truncate(1);
        apply(&mut run).unwrap();
        let arm = run.arms[0].clone();
        let trials = [(9.0, 1000, 10, 20), (11.0, 1000, 0, 40)]
            .into_iter()
            .enumerate()
            .map(|(repetition, (mbps, sent, lost, jitter))| {
                let mut forward = udp_direction(mbps, sent, lost, jitter);
                forward.loads = vec![dualperf_model::LoadObservations {
                    flow: 0,
                    label: "reverse".into(),
                    family: arm.family,
                    marking: Default::default(),
                    spec: run.loads[0].flows[0].spec.clone(),
                    observations: Box::new(udp_direction(5.0, 500, 5, 100)),
                }];
                let outcome = dualperf_fixtures::ok(forward);
                dualperf_fixtures::trial(0, &point, &arm, repetition as u32, outcome)
            })
            .collect();
        let lines = direction_lines(&dualperf_fixtures::result(run, trials));
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(
            lines[0].contains(
                "client to server: 10.0 Mbit/s goodput, jitter 0.030 ms, lost 10/2000 (0.50 %)"
            ),
            "{}",
            lines[0]
        );
        assert!(
            lines[1].contains(
                "server to client: 5.0 Mbit/s goodput, jitter 0.100 ms, lost 10/1000 (1.00 %)"
            ),
            "{}",
            lines[1]
        );
        assert!(lines[1].contains("mean of 2 trials"), "{}", lines[1]);
    }

    #[test]
    fn a_send_budget_is_a_usage_error() {
        let mut point = TestSpec::new(TestKind::UdpStream, 1024);
        point.send_budget = Some(dualperf_model::SendBudget::Packets(1000));
        let error = apply(&mut config(vec![point])).unwrap_err();
        assert!(error.to_string().contains("-n/-k"), "{error}");
    }

    #[test]
    fn a_stamp_peer_is_a_usage_error() {
        let mut run = config(vec![TestSpec::new(TestKind::UdpStream, 1024)]);
        run.peer = PeerKind::Stamp;
        let error = apply(&mut run).unwrap_err();
        assert_eq!(
            error.downcast_ref::<Failure>().unwrap().code,
            crate::exit::USAGE
        );
        assert!(error.to_string().contains("STAMP"), "{error}");
    }

    #[test]
    fn the_mirror_load_is_the_one_an_iperf3_server_runs() {
        let mut run = config(vec![TestSpec::new(TestKind::UdpStream, 1024)]);
        run.peer = PeerKind::Iperf3;
        apply(&mut run).unwrap();
        for arm in &run.arms {
            let load = run.load_of(arm).unwrap().unwrap();
            assert!(
                dualperf_engine::client::peer::iperf3::bidir::mirror_flow(
                    &run.points[0],
                    load,
                    arm
                )
                .is_some(),
                "{}",
                arm.id
            );
        }
    }

    #[test]
    fn anything_but_one_forward_stream_point_is_a_usage_error() {
        let two = vec![
            TestSpec::new(TestKind::TcpStream, 1024),
            TestSpec::new(TestKind::UdpStream, 1024),
        ];
        let mut reversed = TestSpec::new(TestKind::UdpStream, 1024);
        reversed.reverse = true;
        for points in [
            two,
            vec![TestSpec::new(TestKind::TcpRr, 64)],
            vec![reversed],
        ] {
            let error = apply(&mut config(points)).unwrap_err();
            assert_eq!(
                error.downcast_ref::<Failure>().unwrap().code,
                crate::exit::USAGE
            );
        }
    }
}

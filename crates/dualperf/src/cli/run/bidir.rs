//! `--bidir` (iperf3's): both directions at once in one trial, for
//! tcp-stream (UDP is refused until the engine halts a reverse UDP load
//! with the measured trial). The point
//! runs client → server as measured, and its mirror image (the same spec
//! with `reverse`, same marking and socket options) runs server → client
//! beside it as the arm's load (`RunConfig::loads`, named `bidir`, no load
//! warm-up: both directions start together and the reverse one halts when
//! the measured one ends). Each trial therefore keeps both directions' own
//! meters — the forward one in its observations, the reverse one in
//! `Observations::loads` — and the run prints one line per arm and
//! direction.

use dualperf_model::{
    LoadCondition, LoadFlow, LoadSpec, RunConfig, RunResult, TestKind, TrialOutcome,
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
    if point.kind == TestKind::UdpStream {
        // Seen on loopback: a reverse UDP load's server-side sender keeps to
        // its whole schedule (about 20 s) after the measured trial ended,
        // so its count and its traffic would both be wrong.
        return Err(Failure::usage(
            "--bidir is implemented for tcp-stream only: the engine does not yet stop a \
             reverse UDP flow together with the measured one (use -R for the other direction, \
             or --load udp,reverse,rate=R)",
        ));
    }
    if point.kind != TestKind::TcpStream {
        return Err(Failure::usage(format!(
            "--bidir applies to tcp-stream, not {}",
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

/// One line per arm and direction: the goodput (bytes the receiving end
/// took out of its sockets over that direction's own measured interval —
/// the reverse one spans the forward one and its warm-up), the mean over
/// the arm's completed trials.
pub(super) fn direction_lines(result: &RunResult) -> Vec<String> {
    let mut lines = Vec::new();
    for arm in &result.config.arms {
        let (mut forward, mut reverse, mut trials) = (0.0, 0.0, 0u32);
        for trial in result.trials.iter().filter(|t| t.arm == arm.id) {
            let TrialOutcome::Ok(observations) = &trial.outcome else {
                continue;
            };
            let Some(load) = observations.loads.first() else {
                continue;
            };
            forward += rate(observations.receiver.bytes, observations.measured_ns);
            reverse += rate(
                load.observations.receiver.bytes,
                load.observations.measured_ns,
            );
            trials += 1;
        }
        if trials == 0 {
            lines.push(format!("{}: no completed bidirectional trial", arm.label));
            continue;
        }
        let n = f64::from(trials);
        lines.push(format!(
            "[{}] client to server {:.1} Mbit/s, server to client {:.1} Mbit/s (goodput, mean of {trials} trials, both directions at once)",
            arm.label,
            forward / n / 1e6,
            reverse / n / 1e6
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

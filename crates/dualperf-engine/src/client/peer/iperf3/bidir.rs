//! iperf3's `--bidir` against an iperf3 server: `dualperf run --bidir`
//! plans the reverse direction as the arm's load, the point's mirror image
//! (one flow: the same spec with `reverse`, the arm's family and marking,
//! no warm-up of its own). A dualperf server runs it as a second session;
//! an iperf3 server runs one test at a time, so here both directions are
//! one iperf3 test with `bidirectional` set (iperf3 3.7 and later), and
//! its server-to-client half becomes the load's observations, as a second
//! session's would.

use dualperf_model::{Arm, LoadFlow, LoadObservations, LoadSpec, TestSpec};

use super::{report, run_attempts, BusyPolicy};
use crate::client::{ClientOptions, TrialReport};
use crate::error::{EngineError, Result};

/// The flow of `load` when it is the mirror image of `spec` on `arm`: one
/// flow, `spec` itself with `reverse` set, in the arm's family and
/// marking, without a warm-up of its own; `None` otherwise.
pub fn mirror_flow<'a>(spec: &TestSpec, load: &'a LoadSpec, arm: &Arm) -> Option<&'a LoadFlow> {
    let [flow] = load.flows.as_slice() else {
        return None;
    };
    let mirror = TestSpec {
        reverse: true,
        ..spec.clone()
    };
    let mirrored = !spec.reverse
        && flow.spec == mirror
        && flow.family.is_none_or(|family| family == arm.family)
        && flow.marking == arm.marking
        && load.warmup_ms == 0;
    mirrored.then_some(flow)
}

/// One trial of `spec` on `arm` under `load`, its mirror image, as one
/// bidirectional iperf3 test: the client-to-server direction is the
/// trial's observations, the server-to-client one its only load flow's.
///
/// # Errors
/// A load that is not `spec`'s mirror image (an iperf3 server runs no
/// other load beside a test); otherwise as [`super::run_trial`].
pub fn run_trial(
    server: std::net::SocketAddr,
    spec: &TestSpec,
    load: &LoadSpec,
    arm: &Arm,
    options: &ClientOptions,
) -> Result<TrialReport> {
    let flow = mirror_flow(spec, load, arm).ok_or_else(|| {
        EngineError::InvalidTest(format!(
            "load `{}`: an iperf3 server runs one test at a time, so the only load it takes \
             is the test's own reverse direction (--bidir); other loads need a dualperf peer",
            load.name
        ))
    })?;
    let (mut outcome, attempt) =
        run_attempts(server, spec, arm, options, BusyPolicy::default(), true)?;
    let reverse = outcome.reverse.take().ok_or_else(|| {
        EngineError::Protocol("the bidirectional test returned no server-to-client half".into())
    })?;
    let mut trial = report(outcome, arm, attempt);
    let mut back = report(*reverse, arm, attempt).observations;
    back.notes.push(
        "the server-to-client half of one bidirectional iperf3 test (--bidir): the same \
         control session, measured interval and CPU figures as the client-to-server half"
            .into(),
    );
    trial.observations.loads = vec![LoadObservations {
        flow: 0,
        label: flow.label.clone(),
        family: arm.family,
        marking: flow.marking,
        spec: flow.spec.clone(),
        observations: Box::new(back),
    }];
    Ok(trial)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::{IpFamily, TestKind};

    fn load(flow: TestSpec) -> LoadSpec {
        LoadSpec {
            name: "bidir".into(),
            label: "the reverse direction".into(),
            flows: vec![LoadFlow {
                label: "udp-stream server to client".into(),
                spec: flow,
                family: None,
                marking: Default::default(),
            }],
            warmup_ms: 0,
            offered: None,
        }
    }

    #[test]
    fn only_the_points_own_reverse_is_a_mirror_image() {
        let arm = Arm::native(IpFamily::V4, Some("127.0.0.1".into()));
        let spec = TestSpec::new(TestKind::UdpStream, 1200);
        let mirror = TestSpec {
            reverse: true,
            ..spec.clone()
        };
        assert!(mirror_flow(&spec, &load(mirror.clone()), &arm).is_some());
        // The same direction, another size, or a load warm-up: a real load.
        assert!(mirror_flow(&spec, &load(spec.clone()), &arm).is_none());
        let other = TestSpec {
            size_bytes: 1000,
            ..mirror.clone()
        };
        assert!(mirror_flow(&spec, &load(other), &arm).is_none());
        let mut warmed = load(mirror);
        warmed.warmup_ms = 1000;
        assert!(mirror_flow(&spec, &warmed, &arm).is_none());
    }

    #[test]
    fn another_load_is_refused_before_any_connection() {
        let arm = Arm::native(IpFamily::V4, Some("127.0.0.1".into()));
        let spec = TestSpec::new(TestKind::UdpStream, 1200);
        // Port 9 (discard): never contacted, the load is refused first.
        let error = run_trial(
            "127.0.0.1:9".parse().unwrap(),
            &spec,
            &load(spec.clone()),
            &arm,
            &ClientOptions::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(error.contains("one test at a time"), "{error}");
    }
}

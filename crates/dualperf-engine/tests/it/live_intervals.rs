//! Live interval lines: with `live_intervals`, the client reports each
//! finished sample interval of the running trial as a progress event.

use dualperf_engine::client::{Client, ClientOptions, Progress};
use dualperf_engine::limits::ServerLimits;
use dualperf_model::{
    Arm, ArmId, IpFamily, RepetitionOrder, RunConfig, TestKind, TestSpec, TrialOutcome,
};

use crate::support::{short_spec, TestServer};

/// The (trial index, interval end in ns) of every interval event, the order
/// of all events by kind, and the config.
fn events(live: bool) -> (Vec<(usize, u64)>, Vec<String>, RunConfig) {
    let server = TestServer::start(ServerLimits::default(), None);
    let spec = TestSpec {
        duration_ms: 2000,
        warmup_ms: 100,
        sample_interval_ms: 500,
        ..short_spec(TestKind::TcpStream, 16 * 1024)
    };
    let config = RunConfig {
        peer: dualperf_model::PeerKind::Dualperf,
        loads: Vec::new(),
        points: vec![spec],
        arms: vec![Arm::native(IpFamily::V4, Some("127.0.0.1".into()))],
        baseline: ArmId::native(IpFamily::V4),
        repeat: 1,
        order: RepetitionOrder::Interleaved,
        host: None,
        port: server.handle.port(),
        client_cpus: vec![],
        server_cpus: vec![],
        command_line: vec![],
        contrasts: Vec::new(),
        goal: None,
    };
    let client = Client::new(ClientOptions {
        live_intervals: live,
        ..Default::default()
    });
    let mut intervals = Vec::new();
    let mut order = Vec::new();
    let result = client.run_plan(&config, &mut |progress| match progress {
        Progress::IntervalFinished {
            index, sample, arm, ..
        } => {
            assert_eq!(arm.id.as_str(), "v4");
            assert!(sample.sent_bytes > 0, "{sample:?}");
            intervals.push((*index, sample.end_ns));
            order.push("interval".to_string());
        }
        Progress::TrialStarted { .. } => order.push("started".into()),
        Progress::TrialFinished { .. } => order.push("finished".into()),
    });
    let TrialOutcome::Ok(observations) = &result.trials[0].outcome else {
        panic!("{:?}", result.trials[0].outcome)
    };
    if live {
        assert_eq!(intervals.len(), observations.intervals.len());
    }
    (intervals, order, config)
}

#[test]
fn a_two_second_trial_with_half_second_intervals_reports_four_intervals_while_it_runs() {
    let (intervals, order, _) = events(true);
    assert_eq!(intervals.len(), 4, "{intervals:?}");
    assert!(intervals.iter().all(|(index, _)| *index == 0));
    let ends: Vec<f64> = intervals.iter().map(|(_, end)| *end as f64 / 1e9).collect();
    for (n, end) in ends.iter().enumerate() {
        let expected = 0.5 * (n + 1) as f64;
        assert!(
            (end - expected).abs() < 0.25,
            "interval {n} ends at {end} s"
        );
    }
    // Delivered between the trial's start and its end, not after it.
    assert_eq!(order.first().map(String::as_str), Some("started"));
    assert_eq!(order.last().map(String::as_str), Some("finished"));
    assert_eq!(order.len(), 6, "{order:?}");
}

#[test]
fn without_live_intervals_no_interval_event_is_sent() {
    let (intervals, order, _) = events(false);
    assert!(intervals.is_empty());
    assert_eq!(order, ["started", "finished"]);
}

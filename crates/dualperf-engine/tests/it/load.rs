//! Competing loads over loopback: an arm under a load runs its measured
//! trial while the load's flows (one of them of the other family, one
//! marked) run as their own sessions, and the trial records what each load
//! flow saw over an interval that spans the measured one.

use dualperf_engine::client::Client;
use dualperf_engine::limits::ServerLimits;
use dualperf_model::{
    Arm, ArmId, BitRate, Dscp, IpFamily, LoadCondition, LoadFlow, LoadSpec, Marking,
    RepetitionOrder, RunConfig, TestKind, TrialOutcome,
};

use crate::support::{short_spec, TestServer};

fn config(port: u16, loads: Vec<LoadSpec>, loaded_arm_load: &str) -> RunConfig {
    let mut probe = short_spec(TestKind::UdpProbe, 172);
    probe.probe_interval_us = Some(10_000);
    let mut loaded = Arm::native(IpFamily::V6, Some("::1".into()));
    loaded.id = ArmId::new("v6-loaded").unwrap();
    loaded.label = "IPv6 under load".into();
    loaded.load = LoadCondition::Under {
        load: loaded_arm_load.into(),
    };
    RunConfig {
        peer: dualperf_model::PeerKind::Dualperf,
        points: vec![probe],
        arms: vec![Arm::native(IpFamily::V4, Some("127.0.0.1".into())), loaded],
        baseline: ArmId::native(IpFamily::V4),
        repeat: 1,
        order: RepetitionOrder::Interleaved,
        host: None,
        port,
        client_cpus: vec![],
        server_cpus: vec![],
        command_line: vec![],
        loads,
        contrasts: Vec::new(),
        goal: None,
    }
}

fn mixed_load() -> LoadSpec {
    let mut udp = short_spec(TestKind::UdpStream, 1200);
    udp.rate = Some(BitRate::from_bits_per_second(20_000_000));
    let tcp = short_spec(TestKind::TcpStream, 16_384);
    LoadSpec {
        name: "mixed".into(),
        label: "IPv4 UDP (LE) and IPv6 TCP".into(),
        flows: vec![
            LoadFlow {
                label: "IPv4 UDP 20 Mbit/s, LE".into(),
                spec: udp,
                family: Some(IpFamily::V4),
                marking: Marking {
                    dscp: Some(Dscp::new(1).unwrap()),
                    flow_label: None,
                },
            },
            LoadFlow {
                label: "TCP bulk".into(),
                spec: tcp,
                family: None,
                marking: Marking::default(),
            },
        ],
        warmup_ms: 200,
        offered: None,
    }
}

#[test]
fn an_arm_under_a_load_records_each_load_flow_over_an_interval_spanning_its_own() {
    let server = TestServer::start(ServerLimits::default(), None);
    let config = config(server.handle.port(), vec![mixed_load()], "mixed");
    let result = Client::default().run_plan(&config, &mut |_| {});
    assert_eq!(result.trials.len(), 2, "{:?}", result.errors);
    let idle = &result.trials[0];
    let TrialOutcome::Ok(idle) = &idle.outcome else {
        panic!("idle trial failed: {:?}", idle.outcome)
    };
    assert!(idle.loads.is_empty(), "an idle arm runs no load");
    let loaded = &result.trials[1];
    let TrialOutcome::Ok(o) = &loaded.outcome else {
        panic!("loaded trial failed: {:?}", loaded.outcome)
    };
    assert_eq!(o.loads.len(), 2);
    let (udp, tcp) = (&o.loads[0], &o.loads[1]);
    assert_eq!(udp.family, IpFamily::V4, "the named family, not the arm's");
    assert_eq!(tcp.family, IpFamily::V6, "the arm's family");
    assert_eq!(udp.marking.dscp.map(|d| d.value()), Some(1));
    assert_eq!(
        udp.observations.socket.dscp.map(|d| d.value()),
        Some(1),
        "the load flow's socket carries its own marking"
    );
    // The load's measured interval spans the measured trial's warm-up and
    // measured interval (it started before and was halted after).
    let measured_window = o.measured_ns + loaded.spec.warmup_ms * 1_000_000;
    for load in &o.loads {
        assert!(
            load.observations.measured_ns >= measured_window,
            "{}: {} ns of load for a {} ns trial",
            load.label,
            load.observations.measured_ns,
            measured_window
        );
        assert!(
            load.observations.measured_ns < measured_window + 3_000_000_000,
            "{}: halted soon after the trial, not at the end of its schedule ({} ns)",
            load.label,
            load.observations.measured_ns
        );
        assert!(load.observations.receiver.bytes > 0, "{}", load.label);
    }
    // The UDP load held its 20 Mbit/s while it ran: never above it by more
    // than the pacer's catch-up, and below it only when the pacer says the
    // machine starved it.
    let udp_o = &udp.observations;
    let rate = udp_o.sender.bytes as f64 * 8e9 / udp_o.measured_ns as f64;
    // Beside the other tests of this binary the sender can fall a little
    // behind without a stall the pacer notes: 10 % below without evidence,
    // half when the pacer says it stalled or still owed datagrams.
    let starved = udp_o
        .notes
        .iter()
        .any(|n| n.contains("pacing: the sending thread stalled"))
        || udp_o.pacer.as_ref().is_some_and(|p| p.owed_datagrams > 0);
    let low = if starved { 10e6 } else { 18e6 };
    assert!(
        (low..22e6).contains(&rate),
        "UDP load sent {rate:.0} bit/s for 20 Mbit/s (starved: {starved})"
    );
    assert_eq!(
        udp.spec.sample_interval_ms, loaded.spec.sample_interval_ms,
        "load series line up with the measured series"
    );
}

#[test]
fn an_arm_naming_a_load_the_run_lacks_fails_with_a_clear_error() {
    let server = TestServer::start(ServerLimits::default(), None);
    let config = config(server.handle.port(), vec![], "nonexistent");
    let result = Client::default().run_plan(&config, &mut |_| {});
    let TrialOutcome::Failed { error } = &result.trials[1].outcome else {
        panic!("must fail")
    };
    assert!(error.contains("names load `nonexistent`"), "{error}");
}

#[test]
fn a_load_flow_that_cannot_start_fails_the_trial_instead_of_measuring_an_idle_path() {
    let server = TestServer::start(ServerLimits::default(), None);
    let mut load = mixed_load();
    // 70,000 bytes is no UDP datagram: the load flow is refused before it runs.
    load.flows[0].spec.size_bytes = 70_000;
    let config = config(server.handle.port(), vec![load], "mixed");
    let result = Client::default().run_plan(&config, &mut |_| {});
    let TrialOutcome::Failed { error } = &result.trials[1].outcome else {
        panic!("must fail: {:?}", result.trials[1].outcome)
    };
    assert!(error.contains("did not start"), "{error}");
}

/// A reverse UDP load (the server sends, as `--load udp,reverse` and the
/// reverse half of `-u --bidir`) ends with the measured trial: the server's
/// sender stops when the client halts the load, not at the end of the load's
/// schedule (the trial plus 20 s of slack) nor after the client's 2 s loss
/// wait, and what the load counts is its rate over its own measured
/// interval, which ends with the trial.
#[test]
fn a_reverse_udp_load_stops_sending_when_the_trial_ends_and_counts_only_its_interval() {
    const RATE: f64 = 20e6;
    let server = TestServer::start(ServerLimits::default(), None);
    let mut measured = short_spec(TestKind::UdpStream, 1200);
    measured.duration_ms = 1_000;
    measured.rate = Some(BitRate::from_bits_per_second(RATE as u64));
    let mut reverse = measured.clone();
    reverse.reverse = true;
    let load = LoadSpec {
        name: "reverse".into(),
        label: "the reverse direction".into(),
        flows: vec![LoadFlow {
            label: "UDP server to client".into(),
            spec: reverse,
            family: None,
            marking: Marking::default(),
        }],
        warmup_ms: 0,
        offered: None,
    };
    let mut config = config(server.handle.port(), vec![load], "reverse");
    config.points = vec![measured.clone()];
    config.arms.remove(0);
    config.baseline = config.arms[0].id.clone();
    let began = std::time::Instant::now();
    let result = Client::default().run_plan(&config, &mut |_| {});
    let took = began.elapsed();
    let TrialOutcome::Ok(o) = &result.trials[0].outcome else {
        panic!("loaded trial failed: {:?}", result.trials[0].outcome)
    };
    let schedule = std::time::Duration::from_millis(measured.warmup_ms + measured.duration_ms);
    assert!(
        took < schedule + std::time::Duration::from_millis(1_000),
        "the trial took {took:?} for a {schedule:?} schedule"
    );
    let load = &o.loads[0].observations;
    let window_ns = (measured.warmup_ms + measured.duration_ms) * 1_000_000;
    assert!(
        load.measured_ns >= o.measured_ns && load.measured_ns < window_ns + 500_000_000,
        "the load's interval ({} ns) ends with the trial's ({window_ns} ns)",
        load.measured_ns
    );
    // Both ends' counts are the rate over the load's own interval: neither
    // the sender nor the receiver counts what was sent after it ended (below
    // the rate only when the pacer says a busy machine starved it).
    let starved = load
        .notes
        .iter()
        .any(|n| n.contains("pacing: the sending thread stalled"));
    let low = if starved { 0.5 * RATE } else { 0.9 * RATE };
    for (end, bytes) in [
        ("sent", load.sender.bytes),
        ("received", load.receiver.bytes),
    ] {
        let rate = bytes as f64 * 8e9 / load.measured_ns as f64;
        assert!(
            (low..1.1 * RATE).contains(&rate),
            "the load {end} {bytes} B in {} ns: {rate:.0} bit/s for {RATE} bit/s",
            load.measured_ns
        );
    }
    let udp = load.udp.as_ref().expect("the load's UDP counters");
    assert_eq!(udp.received + udp.lost, udp.sent, "{udp:?}");
}

//! The classifier on made-up trials: presence where the run-queue wait is
//! unknown, effect where it is known.

use super::presence::router_softirq_ns;
use super::*;
use dualperf_fixtures::{ok, spec};
use dualperf_model::observation::{CpuObservations, ProcessCpu, SystemCpu};
use dualperf_model::{
    Arm, EndsPlacement, IpFamily, LatencySamples, Observations, PacerSchedule, SocketFacts,
    TestKind, TestSpec,
};

/// A 1 s trial on a 2-CPU machine whose process used `own_ms` of CPU
/// while the machine's user + system time was `busy_jiffies` of 200.
fn trial(own_ms: u64, busy_jiffies: u64, placement: Option<EndsPlacement>) -> Trial {
    let observations = Observations {
        cpu: CpuObservations {
            client: ProcessCpu {
                user_ns: own_ms * 1_000_000,
                system_ns: 0,
                wall_ns: 1_000_000_000,
                involuntary_switches: 250,
                run_queue_wait_ns: None,
                busiest_thread_demand_ns: None,
            },
            server: None,
            system: Some(SystemCpu {
                user: busy_jiffies,
                idle: 200 - busy_jiffies,
                cpus: 2,
                ..SystemCpu::default()
            }),
            pinned: None,
            path: None,
        },
        placement,
        ..Observations::default()
    };
    let v4 = Arm::native(IpFamily::V4, None);
    dualperf_fixtures::trial(0, &spec(TestKind::TcpRr, 64), &v4, 0, ok(observations))
}

#[test]
fn a_process_alone_on_the_machine_is_not_contended() {
    // 0.9 of 2 cores busy, 0.9 of them the tool's own.
    let quiet = trial(900, 90, Some(EndsPlacement::SameProcess));
    assert_eq!(classify(&quiet), None);
    let f = figures(&quiet).unwrap();
    assert!(f.foreign_cpu_ratio.unwrap() < 1e-9, "{f:?}");
    assert_eq!(f.involuntary_switches_per_second, Some(250.0));
}

#[test]
fn other_programs_using_a_quarter_of_the_machine_make_it_contended() {
    // 1.5 of 2 cores busy, 0.9 the tool's: others used 0.6 cores = 30 %.
    let busy = trial(900, 150, Some(EndsPlacement::SameProcess));
    let evidence = classify(&busy).unwrap();
    assert_eq!(evidence.cause, ContentionCause::ForeignCpu);
    assert!((evidence.foreign_cpu_ratio.unwrap() - 0.30).abs() < 1e-9);
    assert!(evidence.cpus.is_empty());
    assert_eq!(evidence.machine_cpus, 2);
}

#[test]
fn a_separate_server_on_the_same_kernel_is_the_tools_own_cpu() {
    let mut same_kernel = trial(500, 150, Some(EndsPlacement::SameKernel));
    let TrialOutcome::Ok(o) = &mut same_kernel.outcome else {
        unreachable!()
    };
    o.cpu.server = Some(ProcessCpu {
        user_ns: 400_000_000,
        wall_ns: 1_000_000_000,
        ..ProcessCpu::default()
    });
    let f = figures(&same_kernel).unwrap();
    assert!((f.foreign_cpu_ratio.unwrap() - 0.30).abs() < 1e-9, "{f:?}");
}

#[test]
fn without_a_placement_the_foreign_share_is_unknown_and_steal_still_counts() {
    let old = trial(100, 190, None);
    assert_eq!(figures(&old).unwrap().foreign_cpu_ratio, None);
    assert_eq!(classify(&old), None);
    let mut stolen = trial(100, 100, None);
    let TrialOutcome::Ok(o) = &mut stolen.outcome else {
        unreachable!()
    };
    o.cpu.system.as_mut().unwrap().steal = 20;
    let evidence = classify(&stolen).unwrap();
    assert_eq!(evidence.cause, ContentionCause::Steal);
}

#[test]
fn pinned_cpus_are_judged_on_their_own_counters() {
    // The machine is half idle, but CPU 0, where both ends are pinned,
    // was shared half and half with a spinning program.
    let mut pinned = trial(500, 100, Some(EndsPlacement::SameProcess));
    let TrialOutcome::Ok(o) = &mut pinned.outcome else {
        unreachable!()
    };
    o.socket = SocketFacts {
        client_cpus: vec![0],
        server_cpus: vec![0],
        ..SocketFacts::default()
    };
    o.cpu.pinned = Some(SystemCpu {
        user: 100,
        cpus: 1,
        ..SystemCpu::default()
    });
    let evidence = classify(&pinned).unwrap();
    assert_eq!(evidence.cpus, vec![0]);
    assert!((evidence.foreign_cpu_ratio.unwrap() - 0.5).abs() < 1e-9);
}

#[test]
fn a_forwarder_on_the_path_is_the_paths_cpu_not_foreign_load() {
    // 60 of 200 jiffies busy (0.6 s of CPU), 0.1 s of it the tool's own:
    // foreign unless the other 0.5 s is the testbed's TAYGA.
    let mut with_tayga = trial(100, 60, Some(EndsPlacement::SameProcess));
    let foreign = figures(&with_tayga).unwrap().foreign_cpu_ratio.unwrap();
    assert!((foreign - 0.25).abs() < 1e-9, "{foreign}");
    if let TrialOutcome::Ok(o) = &mut with_tayga.outcome {
        o.cpu.path = Some(ProcessCpu {
            user_ns: 100_000_000,
            system_ns: 400_000_000,
            wall_ns: 1_000_000_000,
            involuntary_switches: 0,
            run_queue_wait_ns: None,
            busiest_thread_demand_ns: None,
        });
    }
    let foreign = figures(&with_tayga).unwrap().foreign_cpu_ratio.unwrap();
    assert!(foreign < 1e-9, "{foreign}");
}

#[test]
fn a_lab_routers_softirq_is_the_paths_work_not_foreign_load() {
    // 2 CPUs: user + system 60 jiffies, softirq 80 of 200; the tool used
    // 0.7 s (more than user + system: it was charged softirq work). The
    // routers edge (CPU 1) and core (CPU 0) spent 0.6 s in softirq.
    let mut lab = trial(700, 60, Some(EndsPlacement::SameProcess));
    let TrialOutcome::Ok(o) = &mut lab.outcome else {
        unreachable!()
    };
    o.cpu.system.as_mut().unwrap().softirq = 80;
    o.cpu.system.as_mut().unwrap().idle = 60;
    let foreign = figures(&lab).unwrap().foreign_cpu_ratio.unwrap();
    assert!((foreign - 0.35).abs() < 1e-9, "without routers: {foreign}");
    let TrialOutcome::Ok(o) = &mut lab.outcome else {
        unreachable!()
    };
    for (node, cpu) in [("edge", 1), ("core", 0)] {
        o.routers.push(dualperf_model::RouterCpu {
            node: node.into(),
            cpus: vec![cpu],
            softirq_ns: 300_000_000,
            ksoftirqd_ns: 0,
            wall_ns: 1_000_000_000,
        });
    }
    let foreign = figures(&lab).unwrap().foreign_cpu_ratio.unwrap();
    assert!((foreign - 0.05).abs() < 1e-9, "with routers: {foreign}");
    assert_eq!(classify(&lab), None);
    // Pinned to CPU 0 only: the edge router on CPU 1 is outside the scope.
    let TrialOutcome::Ok(o) = &mut lab.outcome else {
        unreachable!()
    };
    assert_eq!(router_softirq_ns(o, &[0]), 300_000_000);
}

#[test]
fn softirq_charged_to_the_tool_is_not_foreign() {
    // CPU 0 all busy: 80 % user + system, 20 % softirq; the tool's time
    // (which includes the softirq work it triggered) was the whole CPU.
    let mut alone = trial(1000, 100, Some(EndsPlacement::SameProcess));
    let TrialOutcome::Ok(o) = &mut alone.outcome else {
        unreachable!()
    };
    o.socket.client_cpus = vec![0];
    o.cpu.pinned = Some(SystemCpu {
        user: 50,
        system: 30,
        softirq: 20,
        cpus: 1,
        ..SystemCpu::default()
    });
    assert_eq!(figures(&alone).unwrap().foreign_cpu_ratio, Some(0.0));
    // The same CPU where the tool got 70 %: others used at least 10 %
    // (up to 30 % if the softirq time was theirs): the lower bound is
    // kept, so a busy network stack is never taken for contention.
    let TrialOutcome::Ok(o) = &mut alone.outcome else {
        unreachable!()
    };
    o.cpu.client.user_ns = 700_000_000;
    let foreign = figures(&alone).unwrap().foreign_cpu_ratio.unwrap();
    assert!((foreign - 0.1).abs() < 1e-9, "{foreign}");
}

#[test]
fn pressure_counts_only_beside_some_foreign_use() {
    let mut alone = trial(900, 90, Some(EndsPlacement::SameProcess));
    let TrialOutcome::Ok(o) = &mut alone.outcome else {
        unreachable!()
    };
    o.cpu.system.as_mut().unwrap().pressure_some_us = Some(900_000);
    assert_eq!(classify(&alone), None, "self-inflicted waiting");
    let mut shared = trial(900, 115, Some(EndsPlacement::SameProcess));
    let TrialOutcome::Ok(o) = &mut shared.outcome else {
        unreachable!()
    };
    o.cpu.system.as_mut().unwrap().pressure_some_us = Some(900_000);
    let evidence = classify(&shared).unwrap();
    assert_eq!(evidence.cause, ContentionCause::Pressure);
    assert_eq!(evidence.pressure_ratio, Some(0.9));
}

// ---- effect: the tool's own run-queue wait ----

/// A 1 s trial of `spec` on a 2-CPU machine where other programs used 80 %
/// of both CPUs (foreign share 0.7 by presence), and the tool's client
/// threads waited `client_wait_ms` for a CPU, its separate server's
/// `server_wait_ms`.
fn waited(spec: &TestSpec, client_wait_ms: u64, server_wait_ms: u64) -> Trial {
    let process = |wait_ms: u64| ProcessCpu {
        user_ns: 100_000_000,
        wall_ns: 1_000_000_000,
        run_queue_wait_ns: Some(wait_ms * 1_000_000),
        ..ProcessCpu::default()
    };
    let observations = Observations {
        measured_ns: 1_000_000_000,
        cpu: CpuObservations {
            client: process(client_wait_ms),
            server: Some(process(server_wait_ms)),
            system: Some(SystemCpu {
                user: 160,
                idle: 40,
                cpus: 2,
                steal: 0,
                pressure_some_us: Some(900_000),
                ..SystemCpu::default()
            }),
            ..CpuObservations::default()
        },
        placement: Some(EndsPlacement::SameKernel),
        ..Observations::default()
    };
    let v4 = Arm::native(IpFamily::V4, None);
    dualperf_fixtures::trial(0, spec, &v4, 0, ok(observations))
}

fn observations(trial: &mut Trial) -> &mut Observations {
    let TrialOutcome::Ok(o) = &mut trial.outcome else {
        unreachable!()
    };
    o
}

#[test]
fn busy_neighbours_whose_cpu_the_tool_did_not_want_are_no_contention() {
    // Others used most of both CPUs, yet the tool waited 5 ms in 1 s: the
    // spare CPU they used was not the tool's.
    let quiet = waited(&spec(TestKind::TcpStream, 1408), 3, 2);
    let f = figures(&quiet).unwrap();
    assert!(f.foreign_cpu_ratio.unwrap() > 0.5, "{f:?}");
    assert_eq!(f.run_queue_wait_ns, Some(5_000_000));
    assert!((f.run_queue_wait_ratio.unwrap() - 0.005).abs() < 1e-12);
    assert_eq!(cause(&f), None);
    assert_eq!(classify(&quiet), None);
}

#[test]
fn a_throughput_trial_whose_threads_waited_two_percent_is_contended() {
    // 15 ms + 5 ms of 1 s: 2.0 %, at the threshold.
    let slow = waited(&spec(TestKind::TcpStream, 1408), 15, 5);
    let evidence = classify(&slow).unwrap();
    assert_eq!(evidence.cause, ContentionCause::RunQueueWait);
    assert!(evidence.cause.is_effect());
    assert!((evidence.run_queue_wait_ratio.unwrap() - 0.02).abs() < 1e-12);
    // The presence figures are kept beside it.
    assert!(evidence.foreign_cpu_ratio.is_some());
    assert_eq!(evidence.pressure_ratio, Some(0.9));
    let below = waited(&spec(TestKind::TcpStream, 1408), 15, 4);
    assert_eq!(classify(&below), None);
}

#[test]
fn both_ends_in_one_process_count_the_wait_once() {
    let mut one_process = waited(&spec(TestKind::TcpStream, 1408), 15, 15);
    observations(&mut one_process).placement = Some(EndsPlacement::SameProcess);
    assert_eq!(
        figures(&one_process).unwrap().run_queue_wait_ns,
        Some(15_000_000)
    );
    assert_eq!(classify(&one_process), None);
    // Another kernel: the server's wait is the tool's too.
    observations(&mut one_process).placement = Some(EndsPlacement::SeparateKernels);
    assert_eq!(
        classify(&one_process).unwrap().cause,
        ContentionCause::RunQueueWait
    );
}

#[test]
fn transactions_are_judged_by_the_wait_beyond_the_tools_own_cpu_time() {
    // 10 000 round trips of 50 µs on average (0.5 s in all); the client
    // and the server process used 100 ms of CPU each.
    let latency = LatencySamples {
        count: 10_000,
        sum_ns: 500_000_000,
        ..LatencySamples::default()
    };
    // The ends waited 100 ms for each other (a ping-pong's own hand-over):
    // within their 200 ms of CPU, so none of it was somebody else's,
    // although it is 10 % of the wall time (the throughput criterion
    // would veto).
    let mut rr = waited(&spec(TestKind::TcpRr, 64), 60, 40);
    observations(&mut rr).latency = Some(latency.clone());
    let f = figures(&rr).unwrap();
    assert_eq!(f.wait_per_transaction_ratio, Some(0.0));
    assert!((f.run_queue_wait_ratio.unwrap() - 0.1).abs() < 1e-12);
    assert_eq!(classify(&rr), None);
    // 224 ms of wait: 24 ms beyond, 2.4 µs per 50 µs transaction (4.8 %).
    let mut below = waited(&spec(TestKind::TcpRr, 64), 124, 100);
    observations(&mut below).latency = Some(latency.clone());
    assert_eq!(classify(&below), None);
    // 250 ms of wait: 50 ms beyond, 10 % of the transaction time.
    let mut slow = waited(&spec(TestKind::TcpRr, 64), 150, 100);
    observations(&mut slow).latency = Some(latency);
    let evidence = classify(&slow).unwrap();
    assert_eq!(evidence.cause, ContentionCause::TransactionWait);
    assert!((evidence.wait_per_transaction_ratio.unwrap() - 0.1).abs() < 1e-12);
    // A stream has no transactions to judge by.
    assert_eq!(
        figures(&waited(&spec(TestKind::TcpStream, 64), 1, 1))
            .unwrap()
            .wait_per_transaction_ratio,
        None
    );
}

#[test]
fn a_paced_sender_is_judged_by_its_schedule() {
    let mut paced_spec = spec(TestKind::UdpStream, 1200);
    paced_spec.rate = Some(dualperf_model::BitRate::from_mbit(50));
    // Its receiver waited 10 % of the time (receive timestamps are the
    // kernel's), but the sender kept its schedule: not contended.
    let mut kept = waited(&paced_spec, 80, 20);
    observations(&mut kept).pacer = Some(PacerSchedule {
        longest_stall_ns: 3_000_000,
        owed_datagrams: 0,
        sent_datagrams: 5_000,
    });
    let f = figures(&kept).unwrap();
    assert_eq!(f.pacer_stall_ratio, Some(0.003));
    assert_eq!(f.pacer_owed_ratio, Some(0.0));
    assert_eq!(classify(&kept), None);
    // A 25 ms stall: 2.5 % of the interval.
    let mut stalled = kept.clone();
    observations(&mut stalled).pacer = Some(PacerSchedule {
        longest_stall_ns: 25_000_000,
        owed_datagrams: 0,
        sent_datagrams: 5_000,
    });
    assert_eq!(
        classify(&stalled).unwrap().cause,
        ContentionCause::MissedSchedule
    );
    // 60 of 5 000 datagrams still owed at the end: 1.2 %.
    let mut behind = kept.clone();
    observations(&mut behind).pacer = Some(PacerSchedule {
        longest_stall_ns: 1_000_000,
        owed_datagrams: 60,
        sent_datagrams: 5_000,
    });
    let evidence = classify(&behind).unwrap();
    assert_eq!(evidence.cause, ContentionCause::MissedSchedule);
    assert!(strength(&evidence) > 1.0);
}

#[test]
fn the_strongest_evidence_is_the_one_furthest_past_its_threshold() {
    let a = classify(&waited(&spec(TestKind::TcpStream, 1408), 30, 0)).unwrap();
    let b = classify(&waited(&spec(TestKind::TcpStream, 1408), 90, 0)).unwrap();
    assert!((strength(&a) - 1.5).abs() < 1e-9);
    assert!(strength(&b) > strength(&a));
    assert_eq!(
        strength(&figures(&waited(&spec(TestKind::TcpStream, 1408), 1, 0)).unwrap()),
        0.0
    );
}

#[test]
fn stored_evidence_without_the_new_figures_still_loads() {
    let old = r#"{"cause":"foreign-cpu","foreign_cpu_ratio":0.3,"cpus":[0],"machine_cpus":2,
        "pressure_ratio":null,"steal_ratio":null,"involuntary_switches_per_second":12.0}"#;
    let evidence: ContentionEvidence = serde_json::from_str(old).unwrap();
    assert_eq!(evidence.run_queue_wait_ratio, None);
    assert_eq!(cause(&evidence), Some(ContentionCause::ForeignCpu));
    let thresholds = r#"{"foreign_cpu_ratio":0.25,"steal_ratio":0.05,"pressure_ratio":0.5,
        "pressure_foreign_cpu_ratio":0.1}"#;
    let thresholds: ContentionThresholds = serde_json::from_str(thresholds).unwrap();
    assert_eq!(thresholds.run_queue_wait_ratio, None);
}

#[test]
fn a_tool_ahead_of_the_network_loses_nothing_to_its_waits() {
    // The threads waited 30 % of the time, but the busiest one wanted a
    // CPU only 45 % of it: blocked on its socket the rest (network-bound).
    let mut shaped = waited(&spec(TestKind::TcpStream, 1448), 200, 100);
    let demand = |o: &mut Observations, client_ms: u64, server_ms: u64| {
        o.cpu.client.busiest_thread_demand_ns = Some(client_ms * 1_000_000);
        if let Some(server) = o.cpu.server.as_mut() {
            server.busiest_thread_demand_ns = Some(server_ms * 1_000_000);
        }
    };
    demand(observations(&mut shaped), 450, 300);
    let f = figures(&shaped).unwrap();
    assert!((f.busiest_thread_demand_ratio.unwrap() - 0.45).abs() < 1e-12);
    assert_eq!(classify(&shaped), None);
    // The server's receiving thread wanted a CPU 95 % of the time: the
    // waits cost throughput.
    demand(observations(&mut shaped), 450, 950);
    let evidence = classify(&shaped).unwrap();
    assert_eq!(evidence.cause, ContentionCause::RunQueueWait);
    assert!((evidence.busiest_thread_demand_ratio.unwrap() - 0.95).abs() < 1e-12);
}

//! Snapshot and behaviour tests of the terminal table, on a hand-built run
//! (builders from `dualperf-fixtures`) analysed by `dualperf_stats::analyse`.

use dualperf_fixtures::{analysed, arm, config, native_arms, ok, result, spec, LOOPBACK};
use dualperf_model::observation::{
    CpuObservations, FlowCounters, HistogramBucket, LatencySamples, Observations, ProcessCpu,
    TcpCounters, UdpReceiveCounters,
};
use dualperf_model::{
    Arm, ArmPath, IpFamily, MetricId, RunResult, TestKind, TestSpec, Trial, TrialOutcome,
    TunnelPlacement,
};

use super::*;

fn cpu(busy_ms: u64) -> CpuObservations {
    CpuObservations {
        client: ProcessCpu {
            user_ns: busy_ms * 200_000,
            system_ns: busy_ms * 800_000,
            wall_ns: 1_000_000_000,
            involuntary_switches: 0,
            run_queue_wait_ns: None,
            busiest_thread_demand_ns: None,
        },
        ..CpuObservations::default()
    }
}

fn tcp_stream(gbps: f64, retransmitted: u64) -> Observations {
    let bytes = (gbps * 1e9 / 8.0) as u64;
    Observations {
        measured_ns: 1_000_000_000,
        sender: FlowCounters {
            bytes,
            packets: bytes / 131_072,
        },
        receiver: FlowCounters {
            bytes,
            packets: bytes / 131_072,
        },
        tcp: Some(TcpCounters {
            bytes_sent: bytes + retransmitted * 1448,
            bytes_retransmitted: retransmitted * 1448,
            segments_retransmitted: retransmitted,
            ..TcpCounters::default()
        }),
        cpu: cpu(900),
        ..Observations::default()
    }
}

fn udp_stream(received: u64, lost: u64) -> Observations {
    Observations {
        measured_ns: 1_000_000_000,
        sender: FlowCounters {
            bytes: (received + lost) * 64,
            packets: received + lost,
        },
        receiver: FlowCounters {
            bytes: received * 64,
            packets: received,
        },
        udp: Some(UdpReceiveCounters {
            sent: received + lost,
            received,
            lost,
            loss_episodes: lost.min(3),
            jitter_ns: 2_000,
            ..UdpReceiveCounters::default()
        }),
        cpu: cpu(1000),
        ..Observations::default()
    }
}

fn tcp_rr(median_us: u64) -> Observations {
    let values = [
        median_us * 900,
        median_us * 1000,
        median_us * 1000,
        median_us * 1300,
    ];
    Observations {
        measured_ns: 1_000_000_000,
        latency: Some(LatencySamples {
            count: 4,
            histogram: values
                .iter()
                .map(|&v| HistogramBucket {
                    value_ns: v,
                    count: 1,
                })
                .collect(),
            min_ns: values[0],
            max_ns: values[3],
            sum_ns: values.iter().map(|&v| v as u128).sum(),
            sum_squares_ns2: values.iter().map(|&v| (v as f64).powi(2)).sum(),
            ..LatencySamples::default()
        }),
        cpu: cpu(300),
        ..Observations::default()
    }
}

fn trial(
    point: usize,
    spec: &TestSpec,
    arm: &Arm,
    repetition: u32,
    outcome: TrialOutcome,
) -> Trial {
    let remote = match arm.family {
        IpFamily::V4 => "127.0.0.1:5201",
        IpFamily::V6 => "[::1]:5201",
    };
    Trial {
        remote_address: Some(remote.to_string()),
        server_seen_family: Some(arm.family),
        ..dualperf_fixtures::trial(point, spec, arm, repetition, outcome)
    }
}

/// Four points: a TCP stream where IPv6 is slower, a loopback UDP stream
/// with an unstable IPv4, a request/response test, and a connect test whose
/// IPv6 trials all failed. Not analysed.
fn hand_built_trials(arms: &[Arm]) -> (Vec<TestSpec>, Vec<Trial>) {
    let points = vec![
        spec(TestKind::TcpStream, 131_072),
        spec(TestKind::UdpStream, 64),
        spec(TestKind::TcpRr, 64),
        spec(TestKind::TcpConnect, 0),
    ];
    let (v4, v6) = (&arms[0], &arms[1]);
    let mut trials = Vec::new();
    let stream = [(20.1, 19.4), (20.8, 20.0), (20.4, 19.8)];
    let udp = [(800_000, 700_000), (1_000_000, 710_000), (600_000, 690_000)];
    let rr = [(21, 22), (20, 21), (22, 24)];
    for repetition in 0..3u32 {
        let r = repetition as usize;
        let (a, b) = stream[r];
        trials.push(trial(0, &points[0], v4, repetition, ok(tcp_stream(a, 3))));
        trials.push(trial(0, &points[0], v6, repetition, ok(tcp_stream(b, 5))));
        let (a, b) = udp[r];
        trials.push(trial(1, &points[1], v4, repetition, ok(udp_stream(a, 0))));
        trials.push(trial(1, &points[1], v6, repetition, ok(udp_stream(b, 7))));
        let (a, b) = rr[r];
        trials.push(trial(2, &points[2], v4, repetition, ok(tcp_rr(a))));
        trials.push(trial(2, &points[2], v6, repetition, ok(tcp_rr(b))));
        trials.push(trial(3, &points[3], v4, repetition, ok(tcp_rr(40))));
        let refused = TrialOutcome::Failed {
            error: "connect to [::1]:5201: connection refused".into(),
        };
        trials.push(trial(3, &points[3], v6, repetition, refused));
    }
    (points, trials)
}

/// The hand-built run on the two native arms, IPv4 the baseline, analysed.
fn hand_built_run() -> RunResult {
    let arms = native_arms(LOOPBACK);
    let (points, trials) = hand_built_trials(&arms);
    let mut run = result(config(points, arms), trials);
    run.run_id = "20261122T001500Z-test".to_string();
    run.complete = false;
    analysed(run)
}

fn analysis_of(run: &RunResult) -> &Analysis {
    run.analysis.as_ref().expect("analysed")
}

#[test]
fn comparison_table_snapshot() {
    let result = hand_built_run();
    insta::assert_snapshot!(render_comparison_table(&result, analysis_of(&result)));
}

#[test]
fn narrow_terminal_drops_the_arm_intervals() {
    let result = hand_built_run();
    let narrow = render_comparison_table_width(&result, analysis_of(&result), 80);
    assert!(!narrow.contains("IPv4 mean ±CI"));
    for line in narrow.lines() {
        assert!(
            line.chars().count() <= 80,
            "too wide for 80 columns: {line}"
        );
    }
}

#[test]
fn verdicts_snapshot() {
    let result = hand_built_run();
    insta::assert_snapshot!(render_verdicts(&result, analysis_of(&result)));
}

#[test]
fn a_point_without_a_comparison_says_why() {
    let result = hand_built_run();
    let verdicts = render_verdicts(&result, analysis_of(&result));
    let connect = verdicts.lines().nth(3).unwrap();
    assert!(
        connect.starts_with("[4] tcp-connect 0 B: no IPv4/IPv6 comparison"),
        "{connect}"
    );
    assert!(connect.contains("connection refused"), "{connect}");
}

#[test]
fn a_run_of_one_arm_says_once_that_nothing_was_compared() {
    let arms = native_arms(LOOPBACK);
    let v4 = vec![arms[0].clone()];
    let (points, trials) = hand_built_trials(&arms);
    let trials = trials.into_iter().filter(|t| t.arm == v4[0].id).collect();
    let result = analysed(result(config(points, v4), trials));
    let verdicts = render_verdicts(&result, analysis_of(&result));
    assert_eq!(verdicts.lines().count(), 1, "{verdicts}");
    assert!(
        verdicts.starts_with("No comparison: only IPv4 was measured"),
        "{verdicts}"
    );
}

#[test]
fn nothing_measured_is_said_plainly() {
    let result = hand_built_run();
    assert_eq!(
        render_comparison_table(&result, &Analysis::default()),
        "No metrics: every trial failed or nothing was measured.\n"
    );
}

#[test]
fn headings_use_labels_never_machine_names() {
    let result = hand_built_run();
    let table = render_comparison_table(&result, analysis_of(&result));
    for metric in MetricId::ALL {
        assert!(
            !table.contains(metric.name()),
            "{} appears in the table",
            metric.name()
        );
    }
    assert!(table.contains("RTT p50"), "{table}");
    assert!(table.contains("3 repetitions per arm"), "{table}");
}

#[test]
fn the_verdict_line_uses_the_headline_metric_of_each_kind() {
    let result = hand_built_run();
    let verdicts = render_verdicts(&result, analysis_of(&result));
    let lines: Vec<&str> = verdicts.lines().collect();
    assert!(
        lines[0].starts_with("[1] tcp-stream 131072 B, goodput: IPv6 "),
        "{verdicts}"
    );
    assert!(
        lines[2].starts_with("[3] tcp-rr 64 B, RTT p50: "),
        "{verdicts}"
    );
}

#[test]
fn pairs_without_spread_get_no_interval_and_no_significance() {
    // Retransmissions are 3 vs 5 in every repetition: +67 % each time.
    let result = hand_built_run();
    let table = render_comparison_table(&result, analysis_of(&result));
    let row = table
        .lines()
        .find(|l| l.starts_with("retransmissions"))
        .expect("retransmissions row");
    assert!(row.contains("+67 % [no spread]"), "{row}");
    assert!(!row.contains("[+67, +67]") && !row.contains("yes"), "{row}");
}

/// A run with three arms: native IPv4 (baseline), native IPv6 and IPv6
/// through a 6in4 tunnel between the routers, on the same hand-built trials.
fn three_arm_run() -> RunResult {
    let mut arms = native_arms(LOOPBACK);
    arms.push(arm(
        "v6-6in4-router-router",
        IpFamily::V6,
        ArmPath::SixInFour {
            placement: TunnelPlacement::RouterRouter,
        },
    ));
    let (points, mut trials) = hand_built_trials(&arms);
    let tunnel = arms[2].clone();
    let (_, tunnelled) = hand_built_trials(&[arms[0].clone(), tunnel.clone()]);
    trials.extend(
        tunnelled
            .into_iter()
            .filter(|t| t.arm == tunnel.id)
            .map(|mut t| {
                if let TrialOutcome::Ok(o) = &mut t.outcome {
                    o.receiver.bytes = o.receiver.bytes * 9 / 10;
                }
                t
            }),
    );
    analysed(result(config(points, arms), trials))
}

#[test]
fn every_compared_arm_gets_its_columns_and_verdict() {
    let result = three_arm_run();
    let analysis = analysis_of(&result);
    let wide = render_comparison_table_width(&result, analysis, 400);
    let header = wide.lines().nth(1).unwrap();
    assert!(header.contains("IPv4 mean ±CI"), "{header}");
    assert!(header.contains("IPv6 mean ±CI"), "{header}");
    assert!(
        header.contains("IPv6 via 6in4 router to router mean ±CI"),
        "{header}"
    );
    assert_eq!(header.matches("Δ vs IPv4").count(), 2, "{header}");
    let verdicts = render_verdicts(&result, analysis);
    let first: Vec<&str> = verdicts.lines().filter(|l| l.starts_with("[1] ")).collect();
    assert_eq!(first.len(), 2, "{verdicts}");
    // Both arms' values, then the difference.
    assert!(
        first[1].contains(": IPv6 via 6in4 router to router "),
        "{verdicts}"
    );
    assert!(first[1].contains("/s, IPv4 "), "{verdicts}");
    assert!(first[1].contains("/s: "), "{verdicts}");
}

#[test]
fn several_arms_split_into_one_table_per_arm_when_narrow() {
    let result = three_arm_run();
    let narrow = render_comparison_table_width(&result, analysis_of(&result), 100);
    let block = &narrow[..narrow.find("[2] ").unwrap()];
    assert_eq!(
        block.matches("─\n").count(),
        2,
        "one table per compared arm: {block}"
    );
    for line in narrow.lines() {
        assert!(line.chars().count() <= 100, "too wide: {line}");
    }
}

#[test]
fn instability_is_one_line() {
    let result = hand_built_run();
    let line = render_instability(&result).unwrap();
    // Point 2's headline and six other metrics (CPU per packet among them).
    assert_eq!(
        line,
        "! 1 verdict is unstable (CV above 10 % on IPv4): [2]; repeat more or run longer; \
         also 6 comparisons of other metrics (CPU, jitter, loss …; --table marks them)",
    );
    // Only other metrics unstable: the verdicts are said not to be.
    let mut quiet = result.clone();
    let analysis = quiet.analysis.as_mut().unwrap();
    analysis
        .comparisons
        .retain(|c| quiet_config_headline(&result, c.point) != c.metric);
    let line = render_instability(&quiet).unwrap();
    assert!(line.ends_with("the verdicts are not"), "{line}");
}

#[test]
fn two_repetitions_are_indicative_and_identical_pairs_are_no_interval() {
    let arms = || native_arms(LOOPBACK);
    // Issue 14: n = 2 with spread — never "significant".
    let two = analysed(dualperf_fixtures::stream_run(
        arms(),
        &[&[Some(10.0), Some(10.4)], &[Some(9.0), Some(9.3)]],
    ));
    let line = render_verdicts(&two, analysis_of(&two));
    assert!(line.contains("goodput: Indicative only: IPv6 "), "{line}");
    assert!(line.contains("2 paired repetitions; 3 or more"), "{line}");
    assert!(!line.contains(", significant"), "{line}");
    // Zero variance: the same difference in every pair — no "CI 10–10 %".
    let same = analysed(dualperf_fixtures::stream_run(
        arms(),
        &[&[Some(10.0); 3], &[Some(9.0); 3]],
    ));
    let line = render_verdicts(&same, analysis_of(&same));
    assert!(
        line.contains("10 % slower in each of the 3 paired repetitions (no spread"),
        "{line}"
    );
    assert!(!line.contains("10–10"), "{line}");
    let table = render_comparison_table(&same, analysis_of(&same));
    let goodput = table.lines().find(|l| l.starts_with("goodput")).unwrap();
    assert!(
        goodput.contains("[no spread]") && !goodput.contains("yes"),
        "{goodput}"
    );
}

/// A udp-probe point measured between two hosts (`placement`) whose
/// one-way delays rest on `clocks_shared`; IPv6 2 µs slower.
fn probe_run(placement: dualperf_model::EndsPlacement) -> RunResult {
    use dualperf_fixtures::{probe_arrivals, udp_probe};
    let arms = native_arms(LOOPBACK);
    let point = spec(TestKind::UdpProbe, 172);
    let mut trials = Vec::new();
    for repetition in 0..3u32 {
        for (arm, base) in arms.iter().zip([30_000i64, 32_000]) {
            let wobble = i64::from(repetition) * 300;
            let arrivals = probe_arrivals(
                20,
                10_000_000,
                |s| base + wobble + (s % 3) as i64 * 500,
                &[],
            );
            let mut o = udp_probe(arrivals, 20, true);
            o.placement = Some(placement);
            o.control_min_rtt_ns = Some(300_000);
            trials.push(trial(0, &point, arm, repetition, ok(o)));
        }
    }
    analysed(result(config(vec![point], arms), trials))
}

#[test]
fn one_way_delay_between_hosts_says_the_clocks_were_declared_with_the_bound() {
    let declared = probe_run(dualperf_model::EndsPlacement::SeparateKernels);
    let verdicts = render_verdicts(&declared, analysis_of(&declared));
    let line = verdicts.lines().next().unwrap();
    assert!(
        line.starts_with("[1] udp-probe 172 B, one-way delay p50: IPv6 "),
        "{line}"
    );
    assert!(
        line.ends_with(
            "(clocks declared synchronised (--clocks-synchronised); error bound ±150 µs (half \
             the minimum RTT) plus the synchronisation's own error)"
        ),
        "{line}"
    );
    assert!(!verdicts.contains("exact"), "{verdicts}");
    let table = render_comparison_table(&declared, analysis_of(&declared));
    assert!(
        table.contains("- one-way delay: clocks declared synchronised"),
        "{table}"
    );
    // On one kernel the table says exact, and the verdict needs no note.
    let one = probe_run(dualperf_model::EndsPlacement::SameKernel);
    let verdicts = render_verdicts(&one, analysis_of(&one));
    assert!(
        !verdicts.lines().next().unwrap().contains("clocks"),
        "{verdicts}"
    );
    let table = render_comparison_table(&one, analysis_of(&one));
    assert!(
        table.contains(
            "- one-way delay: both ends share one kernel clock, so one-way delay is exact"
        ),
        "{table}"
    );
}

#[test]
fn with_several_compared_arms_the_answer_is_one_row_per_point() {
    let result = three_arm_run();
    let analysis = analysis_of(&result);
    assert!(answer_is_a_table(&result));
    let answer = render_answer(&result, analysis, 120);
    let lines: Vec<&str> = answer.lines().collect();
    assert!(lines[0].starts_with("vs IPv4"), "{answer}");
    assert!(
        lines[0].contains("IPv6 via 6in4 router to router"),
        "{answer}"
    );
    let points = points(analysis).len();
    let rows = lines.iter().filter(|l| l.starts_with('[')).count();
    // One row per point for the differences, one for the values behind them.
    assert_eq!(rows, 2 * points, "one row per point, twice: {answer}");
    assert!(
        lines.iter().any(|l| l.starts_with("values (means)")),
        "{answer}"
    );
    assert!(
        answer.contains(crate::present::mark::MARK_LEGEND),
        "{answer}"
    );
    // No verdict sentences on the first screen.
    assert!(
        !answer.contains("slower") && !answer.contains("faster"),
        "{answer}"
    );
    insta::assert_snapshot!(answer);
}

#[test]
fn a_narrow_terminal_names_the_arms_by_id_with_a_key() {
    let result = three_arm_run();
    let answer = render_answer(&result, analysis_of(&result), 60);
    assert!(
        answer
            .lines()
            .next()
            .unwrap()
            .contains("v6-6in4-router-router"),
        "{answer}"
    );
    assert!(answer.contains("arms: v6 = IPv6;"), "{answer}");
    assert!(
        answer.contains("v6-6in4-router-router = IPv6 via 6in4"),
        "{answer}"
    );
    // The key wraps at the width (the table itself is as narrow as ids make it).
    let key = &answer[answer.find("arms:").unwrap()..answer.find("✓ significant").unwrap()];
    assert!(key.lines().count() > 1, "{key}");
    for line in key.lines() {
        assert!(line.chars().count() <= 60, "too wide: {line}");
    }
}

#[test]
fn with_one_compared_arm_the_answer_stays_the_verdict_sentences() {
    let result = hand_built_run();
    let analysis = analysis_of(&result);
    assert!(!answer_is_a_table(&result));
    assert_eq!(
        render_answer(&result, analysis, 100),
        render_verdicts_width(&result, analysis, 100)
    );
    // Wrapped to the width, the unwrapped lines are longer than it.
    let answer = render_answer(&result, analysis, 60);
    assert!(answer.lines().all(|l| l.chars().count() <= 60), "{answer}");
    assert!(render_verdicts(&result, analysis)
        .lines()
        .any(|l| l.chars().count() > 60));
}

#[test]
fn wrapping_keeps_a_number_with_its_percent_sign() {
    let text = "IPv6 8.45 Gbit/s, IPv4 13.5 Gbit/s: 37 % slower (95 % CI −84 to +148 %); \
                the header predicts 0.031 % slower";
    for width in 40..=90 {
        let wrapped = wrap(text, width, "    ");
        for line in wrapped.lines() {
            assert!(!line.trim_start().starts_with('%'), "{width}: {wrapped}");
        }
        assert_eq!(
            wrapped.split_whitespace().collect::<Vec<_>>(),
            text.split_whitespace().collect::<Vec<_>>(),
            "nothing lost"
        );
    }
}

fn quiet_config_headline(result: &RunResult, point: usize) -> dualperf_model::MetricId {
    dualperf_model::MetricId::headline_of(&result.config.points[point])
}

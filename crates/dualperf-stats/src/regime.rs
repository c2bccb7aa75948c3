//! The regime of every point on every arm: did the link, a CPU, or neither
//! set its pace (issue 23; docs/metrics.md, "Regime").
//!
//! * **Network-bound**: the rate the bottleneck carried — the goodput
//!   scaled up by the headers a qdisc counts on the first hop (payload +
//!   transport + IP + 14 B Ethernet, [`crate::extraction::carried_bps`]
//!   without preamble, FCS and gap) — reached at least
//!   [`RegimeThresholds::link_share`] (95 %) of the bottleneck's rate. The
//!   bottleneck is the slowest shaped hop in the data's direction on the
//!   path from the testbed's client to its server
//!   ([`crate::serialisation::shaped_path`]). For fragmented datagrams the
//!   sender's rate counts too, when none of the losses were the receiver's
//!   socket buffer: a shaper that drops fragments loses every datagram one
//!   of them belonged to, and its link carried the other fragments.
//! * **CPU-bound**: not network-bound, and either the point is a stream
//!   with no rate of its own or one paced at 95 % of the link rate or more
//!   (nothing but a CPU can hold such a sender below the link: its own
//!   core, or one other programs took), or the
//!   busier end's measuring process used at least
//!   [`RegimeThresholds::busy_cores`] (0.9) of a core (user + system CPU
//!   time over wall time, [`crate::cpu::process_cpu_cores`]). Process CPU
//!   sums its threads: a process of two half-busy threads counts as one
//!   busy core, which errs towards "CPU-bound".
//! * **Unsaturated**: neither (request/response and connect points, a
//!   sender paced below the link).
//!
//! Both figures are medians over the arm's successful repetitions at the
//! point. Pure: a result in, regimes out.

use dualperf_model::observation::Observations;
use dualperf_model::{
    Arm, Comparison, ComparisonWarning, PointRegime, Regime, RegimeThresholds, RunResult, TestKind,
    TestSpec, TrialOutcome,
};

use crate::cpu::process_cpu_cores;
use crate::extraction::{carried_bps, first_hop_encapsulation, offered_carried_bps};
use crate::overhead::Transport;
use crate::serialisation::shaped_path;
use crate::summary::percentile;

/// The regime of every point on every arm that has a successful trial,
/// with the default thresholds.
pub fn regimes(result: &RunResult) -> Vec<PointRegime> {
    regimes_with(result, &RegimeThresholds::default())
}

/// [`regimes`] with explicit thresholds.
pub fn regimes_with(result: &RunResult, thresholds: &RegimeThresholds) -> Vec<PointRegime> {
    let mut out = Vec::new();
    for (point, spec) in result.config.points.iter().enumerate() {
        let link = bottleneck_bps(result, spec);
        for arm in &result.config.arms {
            if let Some(regime) = point_regime(result, point, arm, link, thresholds) {
                out.push(regime);
            }
        }
    }
    out
}

/// A carried rate above this share of the bottleneck's is more than the
/// link can carry: the path's queue held the end of the measured interval
/// (htb and the carried-rate model agree within 1 % on a full link; 3 %
/// leaves room for the token bucket's burst).
pub const BEYOND_LINK_SHARE: f64 = 1.03;

/// Withholds significance from every comparison at a point where either
/// arm carried more than [`BEYOND_LINK_SHARE`] of the bottleneck, with a
/// [`ComparisonWarning::BeyondLink`] naming the arm: its receiver counted
/// what the path's queue delivered after the measured interval, so its
/// rates and loss are the sender's (`lab bottleneck --quick`: paced at the
/// link rate, 1024 B datagrams offer only the headers' ~4 % more than the
/// 10 Mbit/s link, its 100-packet queue fills in about 2 s, and 0.5 s
/// trials delivered 104 % of the link).
pub fn withhold_beyond_link(regimes: &[PointRegime], comparisons: &mut [Comparison]) {
    for comparison in comparisons {
        for arm in [comparison.baseline.clone(), comparison.arm.clone()] {
            let Some(regime) = regimes
                .iter()
                .find(|r| r.point == comparison.point && r.arm == arm)
            else {
                continue;
            };
            let (Some(share), Some(link)) = (regime.link_share, regime.link_bits_per_second) else {
                continue;
            };
            if share > BEYOND_LINK_SHARE {
                comparison.significant = false;
                comparison.warnings.push(ComparisonWarning::BeyondLink {
                    arm,
                    link_share: share,
                    link_bits_per_second: link,
                });
            }
        }
    }
}

/// The slowest shaped hop the point's data crosses, bits per second: the
/// client → server direction, or server → client for a reversed stream;
/// `None` on an unshaped path or outside a testbed.
pub fn bottleneck_bps(result: &RunResult, spec: &TestSpec) -> Option<u64> {
    let facts = result.testbed.as_ref()?;
    crate::serialisation::slowest_hop_bps(&shaped_path(facts), spec.reverse)
}

fn point_regime(
    result: &RunResult,
    point: usize,
    arm: &Arm,
    link_bits_per_second: Option<u64>,
    thresholds: &RegimeThresholds,
) -> Option<PointRegime> {
    let mut shares = Vec::new();
    let mut cores = Vec::new();
    let mut trials = 0;
    let mut unpaced_stream = false;
    for trial in result
        .trials
        .iter()
        .filter(|t| t.point == point && t.arm == arm.id)
    {
        let TrialOutcome::Ok(observations) = &trial.outcome else {
            continue;
        };
        let o: &Observations = observations;
        trials += 1;
        // A stream that asked for at least what the link carries: only a
        // CPU can hold it below the link.
        unpaced_stream |= transport(trial.spec.kind).is_some()
            && match (trial.spec.rate, link_bits_per_second) {
                (None, _) => true,
                (Some(rate), Some(link)) => {
                    rate.bits_per_second() as f64 >= thresholds.link_share * link as f64
                }
                (Some(_), None) => false,
            };
        if let (Some(link), Some(transport)) = (link_bits_per_second, transport(trial.spec.kind)) {
            let encapsulation = first_hop_encapsulation(&arm.path);
            let carried = carried_bps(trial, o, transport, encapsulation, false);
            // Fragmented datagrams: the link also carried the fragments of
            // datagrams lost with another fragment, which no goodput shows.
            // A sender that offered the link its rate, none of whose losses
            // were its receiver's socket buffer, filled it — and no more:
            // what it offered beyond the link was dropped, not carried (so
            // it never reads as beyond the link).
            let offered = (o.fragments_per_datagram > 1
                && o.receive_buffer_drops.unwrap_or(0) == 0)
                .then(|| offered_carried_bps(trial, o, transport, encapsulation))
                .flatten()
                .map(|offered| offered.min(link as f64));
            if let Some(carried) = carried.into_iter().chain(offered).reduce(f64::max) {
                shares.push(carried / link as f64);
            }
        }
        let client = process_cpu_cores(&o.cpu.client);
        let server = o.cpu.server.as_ref().and_then(process_cpu_cores);
        if let Some(busiest) = client.into_iter().chain(server).reduce(f64::max) {
            cores.push(busiest);
        }
    }
    if trials == 0 {
        return None;
    }
    let link_share = percentile(&shares, 0.5);
    let busiest_end_cores = percentile(&cores, 0.5);
    Some(PointRegime {
        point,
        arm: arm.id.clone(),
        regime: classify(link_share, busiest_end_cores, unpaced_stream, thresholds),
        link_bits_per_second,
        link_share,
        busiest_end_cores,
    })
}

/// The regime of a point whose carried rate was `link_share` of the
/// bottleneck's and whose busier end used `busiest_end_cores`;
/// `unpaced_stream` for a stream whose sender has no rate of its own or
/// asked for at least the link's share of the link rate.
pub fn classify(
    link_share: Option<f64>,
    busiest_end_cores: Option<f64>,
    unpaced_stream: bool,
    thresholds: &RegimeThresholds,
) -> Regime {
    if link_share.is_some_and(|share| share >= thresholds.link_share) {
        Regime::NetworkBound
    } else if unpaced_stream
        || busiest_end_cores.is_some_and(|cores| cores >= thresholds.busy_cores)
    {
        Regime::CpuBound
    } else {
        Regime::Unsaturated
    }
}

/// The transport of a test kind that moves bulk data, `None` for the
/// others (their rate is set by the transaction, not the link).
fn transport(kind: TestKind) -> Option<Transport> {
    match kind {
        TestKind::TcpStream => Some(Transport::Tcp),
        TestKind::UdpStream => Some(Transport::Udp),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::observation::{CpuObservations, FlowCounters, ProcessCpu};
    use dualperf_model::testbed::{TestbedEgress, TestbedLink};
    use dualperf_model::{IpFamily, TestbedFacts};

    const RATE: u64 = 400_000_000;

    fn testbed(rate: Option<u64>) -> TestbedFacts {
        let egress = |from: &str, to: &str| TestbedEgress {
            from: from.into(),
            to: to.into(),
            rate_qdisc: rate.map(|_| "htb".into()),
            rate_bits_per_second: rate,
            ..TestbedEgress::default()
        };
        let link = |a: &str, b: &str| TestbedLink {
            between: [a.into(), b.into()],
            egress: vec![egress(a, b), egress(b, a)],
            ..TestbedLink::default()
        };
        TestbedFacts {
            client_node: "client".into(),
            server_node: "server".into(),
            links: vec![link("client", "router"), link("router", "server")],
            ..TestbedFacts::default()
        }
    }

    /// A run of one point of `kind` with 1408-byte messages on IPv4, three
    /// repetitions delivering `goodput_bps` with `client_cores` of client CPU.
    fn run(kind: TestKind, goodput_bps: f64, client_cores: f64, rate: Option<u64>) -> RunResult {
        let spec = dualperf_fixtures::spec(kind, 1408);
        let v4 = Arm::native(IpFamily::V4, None);
        let bytes = (goodput_bps / 8.0) as u64;
        let trials = (0..3)
            .map(|repetition| {
                let observations = Observations {
                    measured_ns: 1_000_000_000,
                    sender: FlowCounters {
                        bytes,
                        packets: bytes / 1408,
                    },
                    receiver: FlowCounters {
                        bytes,
                        packets: bytes / 1408,
                    },
                    cpu: CpuObservations {
                        client: ProcessCpu {
                            user_ns: 0,
                            system_ns: (client_cores * 1e9) as u64,
                            wall_ns: 1_000_000_000,
                            involuntary_switches: 0,
                            ..ProcessCpu::default()
                        },
                        ..CpuObservations::default()
                    },
                    ..Observations::default()
                };
                dualperf_fixtures::trial(
                    0,
                    &spec,
                    &v4,
                    repetition,
                    dualperf_fixtures::ok(observations),
                )
            })
            .collect();
        let config = dualperf_fixtures::config(vec![spec], vec![v4]);
        let mut result = dualperf_fixtures::result(config, trials);
        result.testbed = Some(testbed(rate));
        result
    }

    #[test]
    fn a_stream_that_fills_the_shaped_link_is_network_bound() {
        // 1408 B UDP payload on IPv4: 1408 + 8 + 20 + 14 = 1450 B per frame,
        // so 96 % of 400 Mbit/s of frames is 373.4 Mbit/s of goodput.
        let goodput = 0.96 * RATE as f64 * 1408.0 / 1450.0;
        let regimes = regimes(&run(TestKind::UdpStream, goodput, 1.0, Some(RATE)));
        assert_eq!(regimes.len(), 1);
        assert_eq!(regimes[0].regime, Regime::NetworkBound);
        let share = regimes[0].link_share.unwrap();
        assert!((share - 0.96).abs() < 1e-6, "{share}");
        assert_eq!(regimes[0].link_bits_per_second, Some(RATE));
    }

    #[test]
    fn an_unpaced_stream_below_the_link_is_cpu_bound_and_a_paced_one_unsaturated() {
        let goodput = 0.80 * RATE as f64;
        // Held below the link by contention: its own end at 0.5 core.
        let starved = regimes(&run(TestKind::UdpStream, goodput, 0.5, Some(RATE)));
        assert_eq!(starved[0].regime, Regime::CpuBound);
        let mut paced = run(TestKind::UdpStream, goodput, 0.3, Some(RATE));
        for trial in &mut paced.trials {
            trial.spec.rate = Some(dualperf_model::BitRate::from_mbit(320));
        }
        assert_eq!(regimes(&paced)[0].regime, Regime::Unsaturated);
        // Paced at the link rate (the lab's udp-stream) yet below it: a CPU.
        let mut at_link = paced.clone();
        for trial in &mut at_link.trials {
            trial.spec.rate = Some(dualperf_model::BitRate::from_bits_per_second(RATE));
        }
        assert_eq!(regimes(&at_link)[0].regime, Regime::CpuBound);
        for trial in &mut paced.trials {
            let dualperf_model::TrialOutcome::Ok(o) = &mut trial.outcome else {
                unreachable!()
            };
            o.cpu.client.system_ns = 970_000_000;
        }
        assert_eq!(regimes(&paced)[0].regime, Regime::CpuBound);
    }

    #[test]
    fn fragmented_datagrams_lost_to_the_shaper_are_network_bound_but_not_to_a_socket_buffer() {
        // The sender offered the link its rate; the shaper's fragment drops
        // left 40 % of the datagrams whole.
        let mut run = run(TestKind::UdpStream, 0.97 * RATE as f64, 0.2, Some(RATE));
        for trial in &mut run.trials {
            trial.spec.rate = Some(dualperf_model::BitRate::from_bits_per_second(RATE));
            let dualperf_model::TrialOutcome::Ok(o) = &mut trial.outcome else {
                unreachable!()
            };
            o.receiver.bytes = o.sender.bytes * 4 / 10;
            o.fragments_per_datagram = 3;
        }
        assert_eq!(regimes(&run)[0].regime, Regime::NetworkBound);
        // Offering 5 % more than the link is dropped, not carried: the share
        // stops at the link (it would read as beyond the link otherwise).
        let mut over = run.clone();
        for trial in &mut over.trials {
            let dualperf_model::TrialOutcome::Ok(o) = &mut trial.outcome else {
                unreachable!()
            };
            o.sender.bytes = (1.05 * RATE as f64 / 8.0) as u64;
        }
        let share = regimes(&over)[0].link_share.unwrap();
        assert!((share - 1.0).abs() < 1e-9, "{share}");
        // Unfragmented, the same loss says nothing about the link.
        let mut whole = run.clone();
        for trial in &mut whole.trials {
            let dualperf_model::TrialOutcome::Ok(o) = &mut trial.outcome else {
                unreachable!()
            };
            o.fragments_per_datagram = 1;
        }
        assert_eq!(regimes(&whole)[0].regime, Regime::CpuBound);
        // Nor when the receiver's socket buffer dropped them.
        for trial in &mut run.trials {
            let dualperf_model::TrialOutcome::Ok(o) = &mut trial.outcome else {
                unreachable!()
            };
            o.receive_buffer_drops = Some(1000);
        }
        assert_eq!(regimes(&run)[0].regime, Regime::CpuBound);
    }

    #[test]
    fn a_point_that_carried_more_than_the_link_is_never_significant() {
        let (v4, v6) = (
            dualperf_model::ArmId::native(IpFamily::V4),
            dualperf_model::ArmId::native(IpFamily::V6),
        );
        let regime = |arm: &dualperf_model::ArmId, share: f64| PointRegime {
            point: 0,
            arm: arm.clone(),
            regime: Regime::NetworkBound,
            link_bits_per_second: Some(10_000_000),
            link_share: Some(share),
            busiest_end_cores: None,
        };
        let comparison = Comparison {
            point: 0,
            metric: dualperf_model::MetricId::GoodputBps,
            arm: v6.clone(),
            baseline: v4.clone(),
            arm_summary: dualperf_model::Summary::default(),
            baseline_summary: dualperf_model::Summary::default(),
            pairs: 3,
            difference_mean: -1.0,
            difference_ci95: Some((-2.0, -0.5)),
            relative_difference: Some(-0.02),
            relative_difference_ci95: None,
            significant: true,
            theoretical_relative_difference: None,
            warnings: Vec::new(),
            p_value: Some(0.01),
            adjusted_p_value: None,
            attribution: None,
        };
        // A full link (99 %) keeps its verdict.
        let mut full = [comparison.clone()];
        withhold_beyond_link(&[regime(&v4, 0.99), regime(&v6, 0.99)], &mut full);
        assert!(full[0].significant && full[0].warnings.is_empty());
        // The quick bottleneck's 0.5 s trials: IPv4 at 104 % of 10 Mbit/s.
        let mut queued = [comparison];
        withhold_beyond_link(&[regime(&v4, 1.043), regime(&v6, 1.02)], &mut queued);
        assert!(!queued[0].significant);
        assert_eq!(
            queued[0].warnings,
            [ComparisonWarning::BeyondLink {
                arm: v4,
                link_share: 1.043,
                link_bits_per_second: 10_000_000
            }]
        );
    }

    #[test]
    fn an_unshaped_path_is_never_network_bound() {
        let regimes = regimes(&run(TestKind::TcpStream, 20e9, 1.0, None));
        assert_eq!(regimes[0].link_bits_per_second, None);
        assert_eq!(regimes[0].link_share, None);
        assert_eq!(regimes[0].regime, Regime::CpuBound);
    }

    #[test]
    fn request_response_has_no_link_share() {
        let regimes = regimes(&run(TestKind::TcpRr, 1e6, 0.2, Some(RATE)));
        assert_eq!(regimes[0].link_share, None);
        assert_eq!(regimes[0].regime, Regime::Unsaturated);
    }

    #[test]
    fn the_thresholds_decide_at_their_bounds() {
        let t = RegimeThresholds::default();
        assert_eq!(
            classify(Some(0.95), Some(1.0), true, &t),
            Regime::NetworkBound
        );
        assert_eq!(
            classify(Some(0.949), Some(0.9), false, &t),
            Regime::CpuBound
        );
        assert_eq!(
            classify(Some(0.949), Some(0.899), false, &t),
            Regime::Unsaturated
        );
        assert_eq!(classify(Some(0.949), Some(0.1), true, &t), Regime::CpuBound);
        assert_eq!(classify(None, None, false, &t), Regime::Unsaturated);
    }
}

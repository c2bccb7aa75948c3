//! Why an arm differs from its baseline: the parts of a comparison's
//! relative difference that known causes explain ([`Attribution`]).
//!
//! Each part is the relative change that cause alone would make to the
//! metric, to first order; the parts add up, and what they leave of the
//! measured difference is **unexplained**:
//!
//! * **header**: the header model ([`crate::theory`]) with both arms' packets
//!   taken as native ones on the arm's link (IPv6's 40-byte header against
//!   IPv4's 20, TCP's smaller MSS);
//! * **encapsulation**: what the model adds for the arm's path — a tunnel's
//!   outer header (6in4, 4in6), a NAT64's translation — over the native
//!   header part; only for arms on such a path;
//! * **fragmentation**: for UDP datagrams above the path MTU (a trial's
//!   `fragments_per_datagram` above 1 on either arm), what the model's
//!   fragment headers add over the same datagrams unfragmented;
//! * **CPU**: the CPU time per unit of work — per IP packet for streams (TCP
//!   segments sent, `TCP_INFO`; UDP datagrams × fragments), per transaction
//!   for request/response, per connection for connects — at the end that
//!   limited the rate, arm against baseline: `cost_difference = arm cost /
//!   baseline cost − 1`. A CPU-bound end moves units at a rate inversely
//!   proportional to their cost, so a rate changes by `1 / (1 +
//!   cost_difference) − 1` and a latency by `cost_difference`. Counted only
//!   when (a) the end was CPU-bound: on average over both arms it kept at
//!   least [`CPU_BOUND_CORES`] (0.9) cores busy per stream (request/response
//!   and connects: both ends together, whose work is serial, at least 0.9
//!   of a core); (b) the cost difference is itself significant: at least 3
//!   paired repetitions whose 95 % CI excludes 0; and (c) it points the way
//!   of the measured difference. Of the candidate ends (sender, receiver;
//!   one process for both ends counts as both ends) the one that explains
//!   most is kept;
//! * **forwarder**: a user-space forwarder on the arm's path (TAYGA) that
//!   kept at least [`CPU_BOUND_CORES`] of a core busy is the bottleneck and
//!   explains what the parts above leave, when that points the way of a
//!   slower arm ([`forwarder`]);
//! * **unexplained**: measured − header − encapsulation − fragmentation −
//!   CPU − forwarder.
//!
//! The header parts are byte-bound (a link is the limit) and the CPU part
//! packet-bound (a CPU is); where both hold to some degree the parts are a
//! first-order split, never a proof. docs/metrics.md ("Attribution") has
//! the same definitions.

use dualperf_model::observation::ProcessCpu;
use dualperf_model::{
    Arm, ArmPath, Attribution, CostUnit, CpuEnd, CpuPart, EndsPlacement, FragmentationPart,
    MetricId, Observations, TestKind, TestSpec, Trial, TrialOutcome,
};

pub mod forwarder;

use crate::summary::{confidence_interval_95, mean};
use crate::theory::{theoretical_relative_difference, TheoryConditions};

/// An end keeping at least this many cores busy per stream is CPU-bound.
pub const CPU_BOUND_CORES: f64 = 0.9;
/// Fewest paired repetitions for a CPU cost difference to count.
pub const MIN_PAIRS: usize = 3;
/// A link MTU at which no UDP datagram fragments (the IPv4 and IPv6 maxima fit).
const UNFRAGMENTED_MTU_BYTES: u32 = 65_536;

/// The metrics that get an attribution: rates, latencies and every
/// headline.
pub fn is_attributed(metric: MetricId, kind: TestKind) -> bool {
    metric == MetricId::headline(kind)
        || matches!(
            metric,
            MetricId::GoodputBps
                | MetricId::SenderThroughputBps
                | MetricId::SentPps
                | MetricId::ReceivedPps
                | MetricId::TransactionsPerSecond
                | MetricId::ConnectionsPerSecond
                | MetricId::RttMeanNs
                | MetricId::RttP50Ns
                | MetricId::ConnectMeanNs
                | MetricId::ConnectP50Ns
        )
}

/// Everything an attribution needs about one comparison.
pub struct Input<'a> {
    /// The point.
    pub spec: &'a TestSpec,
    /// The metric compared.
    pub metric: MetricId,
    /// The arm and its baseline.
    pub arm: &'a Arm,
    /// The baseline arm.
    pub baseline: &'a Arm,
    /// Where the point ran (MTUs, loopback).
    pub conditions: &'a TheoryConditions,
    /// The point's trials, every arm.
    pub trials: &'a [&'a Trial],
    /// The measured relative difference.
    pub measured: f64,
    /// The header model's prediction for the arms as they are.
    pub theory: Option<f64>,
}

/// The attribution of one comparison; `None` for metrics without one.
pub fn attribute(input: &Input) -> Option<Attribution> {
    if !is_attributed(input.metric, input.spec.kind) || !input.measured.is_finite() {
        return None;
    }
    let (header, encapsulation, fragmentation) = header_parts(input);
    let cpu = cpu_part(input);
    let explained = header.unwrap_or(0.0)
        + encapsulation.unwrap_or(0.0)
        + fragmentation.map_or(0.0, |f| f.explained)
        + cpu.map_or(0.0, |c| c.explained);
    let forwarder = forwarder::forwarder_part(input, input.measured - explained);
    Some(Attribution {
        measured: input.measured,
        header,
        encapsulation,
        fragmentation,
        cpu,
        unexplained: input.measured - explained - forwarder.map_or(0.0, |f| f.explained),
        forwarder,
    })
}

/// Header, encapsulation and fragmentation from the header model.
fn header_parts(input: &Input) -> (Option<f64>, Option<f64>, Option<FragmentationPart>) {
    let Some(theory) = input.theory else {
        return (None, None, None);
    };
    let model = |arm: &Arm, baseline: &Arm, conditions: &TheoryConditions| {
        theoretical_relative_difference(input.spec, input.metric, arm, baseline, conditions)
    };
    let fragments = fragments(input);
    let fragmenting = input.spec.kind.is_udp()
        && fragments.is_some_and(|(arm, baseline)| arm > 1 || baseline > 1);
    // The same datagrams at an MTU where nothing fragments.
    let unfragmented = |conditions: &TheoryConditions| {
        let mut conditions = conditions.clone();
        for id in [&input.arm.id, &input.baseline.id] {
            conditions
                .mtu_bytes
                .insert(id.clone(), UNFRAGMENTED_MTU_BYTES);
        }
        conditions
    };
    let whole = if fragmenting {
        model(input.arm, input.baseline, &unfragmented(input.conditions))
    } else {
        Some(theory)
    };
    let fragmentation = match (fragmenting, whole, fragments) {
        (true, Some(whole), Some((arm, baseline))) => Some(FragmentationPart {
            arm_fragments: arm,
            baseline_fragments: baseline,
            explained: theory - whole,
        }),
        _ => None,
    };
    let Some(whole) = whole else {
        return (Some(theory), None, fragmentation);
    };
    let on_a_path = input.arm.path != ArmPath::Native || input.baseline.path != ArmPath::Native;
    if !on_a_path {
        return (Some(whole), None, fragmentation);
    }
    // Both arms as native packets, each on the link its packets use.
    let native = |arm: &Arm| Arm {
        path: ArmPath::Native,
        ..arm.clone()
    };
    let mut conditions = if fragmenting {
        unfragmented(input.conditions)
    } else {
        input.conditions.clone()
    };
    for arm in [input.arm, input.baseline] {
        let transport = if input.spec.kind.is_udp() {
            crate::overhead::Transport::Udp
        } else {
            crate::overhead::Transport::Tcp
        };
        if let Some(path) = crate::theory::path_kind(arm, transport) {
            let link = conditions.link_mtu_bytes(arm, path);
            conditions.mtu_bytes.insert(arm.id.clone(), link);
        }
    }
    match model(&native(input.arm), &native(input.baseline), &conditions) {
        Some(header) => (Some(header), Some(whole - header), fragmentation),
        None => (Some(whole), None, fragmentation),
    }
}

/// The first recorded fragments per datagram of (arm, baseline).
fn fragments(input: &Input) -> Option<(u32, u32)> {
    let of = |arm: &Arm| {
        input.trials.iter().find_map(|t| match &t.outcome {
            TrialOutcome::Ok(o) if t.arm == arm.id => Some(o.fragments_per_datagram.max(1)),
            _ => None,
        })
    };
    Some((of(input.arm)?, of(input.baseline)?))
}

/// One trial's cost per unit and utilisation at one end.
#[derive(Clone, Copy, Debug)]
struct EndCost {
    /// CPU nanoseconds per unit.
    cost_ns: f64,
    /// Cores kept busy.
    cores: f64,
}

/// The ends a point's trials can be judged at, and the unit of work.
fn ends_and_unit(kind: TestKind) -> Option<(&'static [CpuEnd], CostUnit)> {
    match kind {
        TestKind::TcpStream | TestKind::UdpStream => Some((
            &[CpuEnd::Sender, CpuEnd::Receiver, CpuEnd::BothEnds],
            CostUnit::Packet,
        )),
        TestKind::TcpRr | TestKind::UdpRr => Some((&[CpuEnd::BothEnds], CostUnit::Transaction)),
        TestKind::TcpConnect => Some((&[CpuEnd::BothEnds], CostUnit::Connection)),
        TestKind::UdpProbe | TestKind::Media => None,
    }
}

/// Units of work at `end` in one trial.
pub(crate) fn units(spec: &TestSpec, o: &Observations, end: CpuEnd) -> Option<f64> {
    let fragments = u64::from(o.fragments_per_datagram.max(1));
    let count = match spec.kind {
        TestKind::TcpStream => o.tcp.map(|t| t.segments_sent)?,
        TestKind::UdpStream => match end {
            CpuEnd::Receiver => o.receiver.packets * fragments,
            _ => o.sender.packets * fragments,
        },
        TestKind::TcpRr | TestKind::UdpRr | TestKind::TcpConnect => o.latency.as_ref()?.count,
        TestKind::UdpProbe | TestKind::Media => return None,
    };
    (count > 0).then_some(count as f64)
}

/// CPU time and wall time at `end` in one trial; `None` when that end's
/// time is not separable (both ends in one process, except `BothEnds`) or
/// when `BothEnds` means nothing (a stream's separate ends work in parallel).
fn end_cpu(spec: &TestSpec, o: &Observations, end: CpuEnd) -> Option<(u64, u64)> {
    let busy = |p: &ProcessCpu| (p.user_ns + p.system_ns, p.wall_ns);
    let one_process = o.placement == Some(EndsPlacement::SameProcess);
    let client = busy(&o.cpu.client);
    let server = o.cpu.server.as_ref().map(busy);
    let client_sends = !spec.reverse;
    match (end, one_process) {
        (CpuEnd::BothEnds, true) => Some(client),
        // A stream's ends work in parallel: their sum limits nothing.
        (CpuEnd::BothEnds, false)
            if matches!(spec.kind, TestKind::TcpStream | TestKind::UdpStream) =>
        {
            None
        }
        (CpuEnd::BothEnds, false) => {
            // Both processes' work, over the trial's wall time.
            let (server_ns, _) = server?;
            Some((client.0 + server_ns, client.1))
        }
        (_, true) => None,
        (CpuEnd::Sender, false) => {
            if client_sends {
                Some(client)
            } else {
                server
            }
        }
        (CpuEnd::Receiver, false) => {
            if client_sends {
                server
            } else {
                Some(client)
            }
        }
    }
}

fn end_cost(trial: &Trial, end: CpuEnd) -> Option<EndCost> {
    let TrialOutcome::Ok(o) = &trial.outcome else {
        return None;
    };
    let (cpu_ns, wall_ns) = end_cpu(&trial.spec, o, end)?;
    let units = units(&trial.spec, o, end)?;
    (wall_ns > 0 && cpu_ns > 0).then(|| EndCost {
        cost_ns: cpu_ns as f64 / units,
        cores: cpu_ns as f64 / wall_ns as f64,
    })
}

/// The CPU part: the candidate end that explains most (see the module
/// documentation for the conditions).
fn cpu_part(input: &Input) -> Option<CpuPart> {
    let (ends, per) = ends_and_unit(input.spec.kind)?;
    let latency = !input.metric.higher_is_better();
    let threads = match input.spec.kind {
        TestKind::TcpStream | TestKind::UdpStream => f64::from(input.spec.parallel_streams.max(1)),
        _ => 1.0,
    };
    let mut best: Option<CpuPart> = None;
    for &end in ends {
        let cost_of = |arm: &Arm| -> Vec<(u32, EndCost)> {
            input
                .trials
                .iter()
                .filter(|t| t.arm == arm.id)
                .filter_map(|t| end_cost(t, end).map(|c| (t.repetition, c)))
                .collect()
        };
        let (arm_costs, baseline_costs) = (cost_of(input.arm), cost_of(input.baseline));
        let pairs: Vec<(EndCost, EndCost)> = baseline_costs
            .iter()
            .filter_map(|(repetition, base)| {
                arm_costs
                    .iter()
                    .find(|(r, _)| r == repetition)
                    .map(|(_, arm)| (*arm, *base))
            })
            .collect();
        if pairs.len() < MIN_PAIRS {
            continue;
        }
        let cores: Vec<f64> = pairs.iter().flat_map(|(a, b)| [a.cores, b.cores]).collect();
        if mean(&cores).is_none_or(|c| c < CPU_BOUND_CORES * threads) {
            continue;
        }
        let differences: Vec<f64> = pairs.iter().map(|(a, b)| a.cost_ns - b.cost_ns).collect();
        let excludes_zero = confidence_interval_95(&differences)
            .is_some_and(|(low, high)| (low > 0.0 || high < 0.0) && low != high);
        if !excludes_zero {
            continue;
        }
        let arm_cost = mean(&pairs.iter().map(|(a, _)| a.cost_ns).collect::<Vec<_>>())?;
        let base_cost = mean(&pairs.iter().map(|(_, b)| b.cost_ns).collect::<Vec<_>>())?;
        let cost_difference = arm_cost / base_cost - 1.0;
        let explained = if latency {
            cost_difference
        } else {
            1.0 / (1.0 + cost_difference) - 1.0
        };
        if explained.signum() != input.measured.signum() || !explained.is_finite() {
            continue;
        }
        if best.is_none_or(|kept| explained.abs() > kept.explained.abs()) {
            best = Some(CpuPart {
                end,
                per,
                cost_difference,
                explained,
            });
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_fixtures::{arm, ok, spec, trial};
    use dualperf_model::observation::{CpuObservations, FlowCounters, TcpCounters};
    use dualperf_model::{IpFamily, SocketFacts, TunnelPlacement};

    fn v4() -> Arm {
        Arm::native(IpFamily::V4, None)
    }

    fn v6() -> Arm {
        Arm::native(IpFamily::V6, None)
    }

    /// A 1 s tcp-stream trial moving `segments` segments whose sender used
    /// `sender_ms` and receiver `receiver_ms` of CPU (separate processes on
    /// one kernel, the client sending).
    fn stream(
        point: &TestSpec,
        on: &Arm,
        repetition: u32,
        segments: u64,
        (sender_ms, receiver_ms): (u64, u64),
    ) -> Trial {
        let cpu = |ms: u64| ProcessCpu {
            user_ns: ms * 1_000_000,
            wall_ns: 1_000_000_000,
            ..ProcessCpu::default()
        };
        let observations = Observations {
            measured_ns: 1_000_000_000,
            sender: FlowCounters {
                bytes: segments * 1448,
                packets: segments / 10,
            },
            receiver: FlowCounters {
                bytes: segments * 1448,
                packets: segments / 10,
            },
            tcp: Some(TcpCounters {
                segments_sent: segments,
                ..TcpCounters::default()
            }),
            cpu: CpuObservations {
                client: cpu(sender_ms),
                server: Some(cpu(receiver_ms)),
                ..CpuObservations::default()
            },
            socket: SocketFacts {
                path_mtu_bytes: Some(1500),
                ..SocketFacts::default()
            },
            placement: Some(EndsPlacement::SameKernel),
            fragments_per_datagram: 1,
            ..Observations::default()
        };
        trial(0, point, on, repetition, ok(observations))
    }

    #[test]
    fn the_issue_example_splits_into_header_cpu_and_the_rest() {
        // IPv6 6.4 % slower; the receiver is CPU-bound (0.95 cores) and
        // spends 5 % more per segment on IPv6; the sender is not (0.5).
        let point = spec(TestKind::TcpStream, 131_072);
        let (v4, v6) = (v4(), v6());
        let mut trials = Vec::new();
        for (r, wobble) in [(0u32, 0u64), (1, 3), (2, 6)] {
            trials.push(stream(&point, &v4, r, 1_000_000, (500, 950 + wobble)));
            // 5 % more CPU per segment: 935 000 segments at 1.05 × 0.95 µs.
            let segments = 935_000;
            let receiver = (segments as f64 * 1.05 * (950.0 + wobble as f64) / 1e6) as u64;
            trials.push(stream(&point, &v6, r, segments, (500, receiver)));
        }
        let refs: Vec<&Trial> = trials.iter().collect();
        let conditions = TheoryConditions::of_trials(refs.iter().copied());
        let theory =
            theoretical_relative_difference(&point, MetricId::GoodputBps, &v6, &v4, &conditions);
        let a = attribute(&Input {
            spec: &point,
            metric: MetricId::GoodputBps,
            arm: &v6,
            baseline: &v4,
            conditions: &conditions,
            trials: &refs,
            measured: -0.064,
            theory,
        })
        .unwrap();
        // MSS 1428 vs 1448: −1.38 %.
        assert!((a.header.unwrap() - (1428.0 / 1448.0 - 1.0)).abs() < 1e-12);
        assert_eq!(a.encapsulation, None);
        assert_eq!(a.fragmentation, None);
        let cpu = a.cpu.unwrap();
        assert_eq!((cpu.end, cpu.per), (CpuEnd::Receiver, CostUnit::Packet));
        assert!((cpu.cost_difference - 0.05).abs() < 1e-3, "{cpu:?}");
        assert!((cpu.explained - (1.0 / 1.05 - 1.0)).abs() < 1e-3, "{cpu:?}");
        let sum = a.header.unwrap() + cpu.explained + a.unexplained;
        assert!((sum - -0.064).abs() < 1e-12);
        assert!(a.unexplained.abs() < 0.005, "{a:?}");
    }

    #[test]
    fn an_end_that_was_not_cpu_bound_explains_nothing() {
        let point = spec(TestKind::TcpStream, 131_072);
        let (v4, v6) = (v4(), v6());
        let mut trials = Vec::new();
        for r in 0..3 {
            trials.push(stream(&point, &v4, r, 1_000_000, (400 + u64::from(r), 400)));
            trials.push(stream(&point, &v6, r, 1_000_000, (440 + u64::from(r), 400)));
        }
        let refs: Vec<&Trial> = trials.iter().collect();
        let conditions = TheoryConditions::default();
        let a = attribute(&Input {
            spec: &point,
            metric: MetricId::GoodputBps,
            arm: &v6,
            baseline: &v4,
            conditions: &conditions,
            trials: &refs,
            measured: -0.05,
            theory: Some(-0.0138),
        })
        .unwrap();
        assert_eq!(a.cpu, None);
        assert!((a.unexplained - (-0.05 + 0.0138)).abs() < 1e-12);
    }

    #[test]
    fn a_tunnel_arm_splits_its_header_from_the_encapsulation() {
        let point = spec(TestKind::TcpStream, 131_072);
        let tunnel = arm(
            "v6-6in4",
            IpFamily::V6,
            ArmPath::SixInFour {
                placement: TunnelPlacement::RouterRouter,
            },
        );
        let v4 = v4();
        let conditions = TheoryConditions::default();
        let theory = theoretical_relative_difference(
            &point,
            MetricId::GoodputBps,
            &tunnel,
            &v4,
            &conditions,
        );
        let a = attribute(&Input {
            spec: &point,
            metric: MetricId::GoodputBps,
            arm: &tunnel,
            baseline: &v4,
            conditions: &conditions,
            trials: &[],
            measured: -0.03,
            theory,
        })
        .unwrap();
        // Native IPv6 on the 1500-byte link: MSS 1428 against 1448; inside
        // the tunnel the MSS shrinks by 20 more bytes.
        let header = a.header.unwrap();
        assert!((header - (1428.0 / 1448.0 - 1.0)).abs() < 1e-12, "{a:?}");
        let total = theory.unwrap();
        assert!((a.encapsulation.unwrap() - (total - header)).abs() < 1e-12);
        assert!(a.encapsulation.unwrap() < 0.0);
    }

    #[test]
    fn udp_datagrams_above_the_mtu_get_a_fragmentation_part() {
        let point = spec(TestKind::UdpStream, 2048);
        let (v4, v6) = (v4(), v6());
        let observations = |fragments: u32| Observations {
            fragments_per_datagram: fragments,
            measured_ns: 1_000_000_000,
            socket: SocketFacts {
                path_mtu_bytes: Some(1500),
                ..SocketFacts::default()
            },
            ..Observations::default()
        };
        let trials = [
            trial(0, &point, &v4, 0, ok(observations(2))),
            trial(0, &point, &v6, 0, ok(observations(2))),
        ];
        let refs: Vec<&Trial> = trials.iter().collect();
        let conditions = TheoryConditions::of_trials(refs.iter().copied());
        let theory =
            theoretical_relative_difference(&point, MetricId::GoodputBps, &v6, &v4, &conditions);
        let a = attribute(&Input {
            spec: &point,
            metric: MetricId::GoodputBps,
            arm: &v6,
            baseline: &v4,
            conditions: &conditions,
            trials: &refs,
            measured: -0.03,
            theory,
        })
        .unwrap();
        let fragmentation = a.fragmentation.unwrap();
        assert_eq!(
            (
                fragmentation.arm_fragments,
                fragmentation.baseline_fragments
            ),
            (2, 2)
        );
        // Unfragmented, 2048 B pay 20 more header bytes once; fragmented,
        // IPv6's second fragment repeats its 40-byte header and adds an
        // 8-byte fragment header.
        let header = a.header.unwrap();
        assert!(header < 0.0 && fragmentation.explained < 0.0, "{a:?}");
        assert!((header + fragmentation.explained - theory.unwrap()).abs() < 1e-12);
    }

    #[test]
    fn request_response_counts_both_ends_per_transaction_and_explains_latency() {
        let point = spec(TestKind::TcpRr, 64);
        let (v4, v6) = (v4(), v6());
        let rr = |on: &Arm, repetition: u32, transactions: u64, process_ms: u64| {
            let mut o = dualperf_fixtures::rr(&vec![10_000; transactions as usize]);
            o.cpu.client = ProcessCpu {
                user_ns: process_ms * 1_000_000,
                wall_ns: 1_000_000_000,
                ..ProcessCpu::default()
            };
            o.placement = Some(EndsPlacement::SameProcess);
            trial(0, &point, on, repetition, ok(o))
        };
        // One process at 0.95–0.97 cores; IPv6 does 4 % fewer transactions
        // in the same CPU time: 4.17 % more CPU per transaction.
        let trials = [
            rr(&v4, 0, 1000, 950),
            rr(&v6, 0, 960, 950),
            rr(&v4, 1, 1000, 960),
            rr(&v6, 1, 960, 961),
            rr(&v4, 2, 1000, 970),
            rr(&v6, 2, 960, 972),
        ];
        let refs: Vec<&Trial> = trials.iter().collect();
        let a = attribute(&Input {
            spec: &point,
            metric: MetricId::RttP50Ns,
            arm: &v6,
            baseline: &v4,
            conditions: &TheoryConditions::default(),
            trials: &refs,
            measured: 0.05,
            theory: None,
        })
        .unwrap();
        let cpu = a.cpu.unwrap();
        assert_eq!(
            (cpu.end, cpu.per),
            (CpuEnd::BothEnds, CostUnit::Transaction)
        );
        assert!((cpu.explained - cpu.cost_difference).abs() < 1e-12);
        assert!(
            (cpu.cost_difference - (1.0 / 0.96 - 1.0)).abs() < 2e-3,
            "{cpu:?}"
        );
        assert_eq!(a.header, None);
        assert!((a.unexplained - (0.05 - cpu.explained)).abs() < 1e-12);
    }

    #[test]
    fn metrics_outside_the_list_get_no_attribution() {
        assert!(is_attributed(MetricId::GoodputBps, TestKind::TcpStream));
        assert!(is_attributed(MetricId::OwdP50Ns, TestKind::UdpProbe));
        assert!(!is_attributed(MetricId::JitterNs, TestKind::UdpStream));
        assert!(!is_attributed(MetricId::ClientCpuCores, TestKind::TcpRr));
    }
}

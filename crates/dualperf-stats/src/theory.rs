//! What the header-overhead model predicts for a measured point: the
//! "theory" column beside every measured difference between an arm and its
//! baseline arm.
//!
//! The prediction is the **byte-bound** one the papers compared against
//! (seed 003: "the anticipated 1.5 % overhead"): when a link of fixed bit
//! rate is the bottleneck, goodput is proportional to the efficiency
//! payload / (frame + on-wire extras), so
//! `expected (arm − baseline) / baseline = efficiency(arm) / efficiency(baseline) − 1`.
//! For the classic pair of native arms, IPv6 against an IPv4 baseline, this
//! is the v6-versus-v4 prediction of the papers.
//!
//! Each arm's packets are modelled on the part of the path that carries the
//! most header ([`path_kind`]): native packets as they are; 6in4 with the
//! outer IPv4 header (RFC 4213, +20 bytes, `ArmPath::header_change_bytes`);
//! 4in6 with the outer IPv6 header (RFC 2473, +40); NAT64 on its IPv4 side
//! (RFC 7915: the translator swaps the 40-byte IPv6 header for IPv4's 20,
//! while the payload stays sized for the IPv6 side). Arms that run under a
//! competing load get no prediction: the load, not the header, decides
//! their share of the link. Markings (DSCP, flow label) change no header
//! size. Assumptions, all documented in docs/metrics.md:
//!
//! * Ethernet framing with on-wire extras (preamble, FCS, gap); the MTU each
//!   arm's trials report (`SocketFacts::path_mtu_bytes`, the MTU the socket
//!   sees, inside any tunnel), plus the tunnel's header for the link; else a
//!   1500-byte link;
//! * tcp-stream: full-size segments (bulk TCP always fills the MSS whatever
//!   the write size) with Linux's 12 bytes of TCP timestamps;
//! * udp-stream, unpaced: one datagram of the point's size per message,
//!   fragmented if it exceeds the MTU (fragments and their extra headers
//!   counted); received and sent packet rates change by the same ratio;
//! * udp-stream over **loopback** (127.0.0.0/8 or ::1): no link exists and
//!   the kernel is packet-rate bound (per-packet work, not bytes, limits
//!   it), so the model predicts **no difference** (0) in packets per second
//!   and therefore in goodput. TCP on loopback keeps the byte-bound
//!   prediction with the loopback MTU (65 536), which is ≈ 0 anyway;
//! * paced udp-stream (`rate` set) across a shaped testbed path: every arm
//!   is asked for the same rate and receives at most what the slowest
//!   shaped hop lets through of its frames ([`crate::paced_link`]), so
//!   received goodput and packet rate get the ratio of those (the lab's
//!   pace at the link rate, 1024 B: −1.84 %), no difference below both
//!   ceilings, and loss is what the shaper cannot pass (1408 B: 2.90 %
//!   against 4.22 %, +45.6 %); elsewhere (a real path, loopback) the
//!   model cannot tell whether the pace saturates the path and makes no
//!   prediction (`None`);
//! * `wire_throughput_bps` (native arms only, the bytes of the first hop):
//!   0 wherever the bit rate is the bottleneck (every arm fills the link);
//!   on loopback UDP, equal packet rates with bigger frames, so the
//!   frame-size ratio (64 B, IPv6 against IPv4: 150/130 − 1 = +15 %);
//! * media, `media_ethernet_bps` and `media_ethernet_frame_bytes` (native
//!   idle arms): the same stream in each family's headers, so the ratio of
//!   the Ethernet frames of its mean packet ([`crate::media_link`]; G.711
//!   20 ms, IPv6 against IPv4: 234/214 − 1 = +9.3 %);
//! * latency, loss, CPU and every other metric: no prediction.

use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};

use dualperf_model::{
    Arm, ArmId, ArmPath, IpFamily, LoadCondition, MetricId, TestKind, TestSpec, Trial, TrialOutcome,
};

use crate::overhead::{
    message_cost, packet_overhead, Encapsulation, OverheadSettings, PathKind, Transport,
    DEFAULT_MTU_BYTES,
};

/// What the model needs to know about where a point ran.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TheoryConditions {
    /// The MTU each arm's trials reported (inside any tunnel), bytes; an arm
    /// that reported none gets a 1500-byte link.
    pub mtu_bytes: BTreeMap<ArmId, u32>,
    /// True when the trials talked over loopback.
    pub loopback: bool,
    /// The rate-limited directions of the testbed path the trials crossed
    /// (empty outside a lab or on an unshaped path).
    pub shaped_hops: Vec<crate::serialisation::ShapedHop>,
}

impl TheoryConditions {
    /// Reads the conditions from a point's trials: the first reported path
    /// MTU per arm, and loopback when every remote address that was
    /// recorded is a loopback address.
    pub fn of_trials<'a>(trials: impl IntoIterator<Item = &'a Trial>) -> Self {
        let mut conditions = TheoryConditions::default();
        let mut addresses = 0;
        let mut loopback_addresses = 0;
        for trial in trials {
            if let Some(address) = trial.remote_address.as_deref().and_then(parse_address) {
                addresses += 1;
                loopback_addresses += usize::from(is_loopback(&address));
            }
            if let TrialOutcome::Ok(o) = &trial.outcome {
                if let Some(mtu) = o.socket.path_mtu_bytes {
                    conditions.mtu_bytes.entry(trial.arm.clone()).or_insert(mtu);
                }
            }
        }
        conditions.loopback = addresses > 0 && loopback_addresses == addresses;
        conditions
    }

    /// The link MTU under `arm`'s packets on the part of the path
    /// [`path_kind`] models: the reported MTU plus the tunnel's header, else
    /// 1500.
    pub fn link_mtu_bytes(&self, arm: &Arm, path: PathKind) -> u32 {
        self.mtu_bytes
            .get(&arm.id)
            .map_or(DEFAULT_MTU_BYTES, |&mtu| {
                mtu + path.encapsulation.added_bytes()
            })
    }
}

/// Parses `ip:port`, `[ip6]:port` or a bare address.
fn parse_address(text: &str) -> Option<IpAddr> {
    text.parse::<SocketAddr>()
        .map(|s| s.ip())
        .ok()
        .or_else(|| text.parse::<IpAddr>().ok())
}

/// Loopback, including IPv4-mapped 127.0.0.0/8.
fn is_loopback(address: &IpAddr) -> bool {
    match address {
        IpAddr::V4(v4) => v4.is_loopback(),
        IpAddr::V6(v6) => {
            v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
    }
}

/// How the model sees `arm`'s packets with `transport` on the part of the
/// path with the most header: native packets as they are; 6in4 and 4in6
/// with their outer header; NAT64 on the translator's IPv4 side. `None`
/// for a path whose family does not fit (e.g. an IPv4 arm "in 6in4").
pub fn path_kind(arm: &Arm, transport: Transport) -> Option<PathKind> {
    let (family, encapsulation) = match (&arm.path, arm.family) {
        (ArmPath::Native, family) => (family, Encapsulation::None),
        (ArmPath::SixInFour { .. }, IpFamily::V6) => (IpFamily::V6, Encapsulation::SixInFour),
        (ArmPath::FourInSix, IpFamily::V4) => (IpFamily::V4, Encapsulation::FourInSix),
        (ArmPath::Nat64 { .. }, IpFamily::V6) => (IpFamily::V4, Encapsulation::Nat64Ipv4Side),
        _ => return None,
    };
    Some(PathKind {
        family,
        transport,
        encapsulation,
    })
}

/// The model's expected (arm − baseline) / baseline for `metric` at
/// `spec`, or `None` where the model says nothing (see the module
/// documentation).
pub fn theoretical_relative_difference(
    spec: &TestSpec,
    metric: MetricId,
    arm: &Arm,
    baseline: &Arm,
    conditions: &TheoryConditions,
) -> Option<f64> {
    if arm.load != LoadCondition::Idle || baseline.load != LoadCondition::Idle {
        return None;
    }
    let paced = paced_goodputs(spec, arm, baseline, conditions);
    let is_byte_bound = match spec.kind {
        TestKind::TcpStream => true,
        TestKind::UdpStream if spec.rate.is_some() => paced.is_some_and(|p| p.both_cut),
        TestKind::UdpStream => !conditions.loopback,
        _ => false,
    };
    if metric == MetricId::WireThroughputBps {
        return wire_throughput_difference(spec, arm, baseline, conditions, is_byte_bound);
    }
    if matches!(
        metric,
        MetricId::MediaEthernetBps | MetricId::MediaEthernetFrameBytes
    ) {
        // The same stream (equal packet rates) in other headers.
        if spec.kind != TestKind::Media
            || arm.path != ArmPath::Native
            || baseline.path != ArmPath::Native
        {
            return None;
        }
        return crate::media_link::predicted_link_difference(
            spec.media.as_ref()?,
            arm.family,
            baseline.family,
        );
    }
    match spec.kind {
        TestKind::TcpStream
            if matches!(metric, MetricId::GoodputBps | MetricId::SenderThroughputBps) =>
        {
            let efficiency = |arm: &Arm| {
                let path = path_kind(arm, Transport::Tcp)?;
                let settings = wire_settings(conditions.link_mtu_bytes(arm, path));
                packet_overhead(path, &settings)
                    .ok()
                    .map(|p| p.efficiency_ratio)
            };
            Some(efficiency(arm)? / efficiency(baseline)? - 1.0)
        }
        TestKind::UdpStream
            if spec.rate.is_none()
                && matches!(
                    metric,
                    MetricId::GoodputBps
                        | MetricId::SenderThroughputBps
                        | MetricId::SentPps
                        | MetricId::ReceivedPps
                ) =>
        {
            if conditions.loopback {
                return Some(0.0);
            }
            let efficiency = |arm: &Arm| {
                let path = path_kind(arm, Transport::Udp)?;
                let settings = wire_settings(conditions.link_mtu_bytes(arm, path));
                message_cost(path, &settings, spec.size_bytes)
                    .ok()
                    .map(|m| m.efficiency_ratio)
            };
            Some(efficiency(arm)? / efficiency(baseline)? - 1.0)
        }
        TestKind::UdpStream if matches!(metric, MetricId::GoodputBps | MetricId::ReceivedPps) => {
            paced.map(|p| p.arm_bps / p.baseline_bps - 1.0)
        }
        TestKind::UdpStream if metric == MetricId::LossRatio => {
            // What the shaper cannot pass of the pace is lost.
            let p = paced?;
            let loss = |goodput: f64| 1.0 - goodput / p.offered_bps;
            let (arm_loss, baseline_loss) = (loss(p.arm_bps), loss(p.baseline_bps));
            if baseline_loss > 0.0 {
                Some(arm_loss / baseline_loss - 1.0)
            } else {
                (arm_loss <= 0.0).then_some(0.0)
            }
        }
        _ => None,
    }
}

/// Received goodputs of a paced udp-stream across a shaped path
/// ([`crate::paced_link`]), bit/s.
#[derive(Clone, Copy, Debug)]
struct PacedGoodputs {
    /// The pace asked of every arm (payload, all streams).
    offered_bps: f64,
    arm_bps: f64,
    baseline_bps: f64,
    /// Both arms' frames exceed the slowest hop: the link is the bottleneck.
    both_cut: bool,
}

/// [`PacedGoodputs`] of a paced udp-stream point on a shaped path; `None`
/// for unpaced points, paths without a shaped hop in the data's direction,
/// and arms whose path does not fit their family.
fn paced_goodputs(
    spec: &TestSpec,
    arm: &Arm,
    baseline: &Arm,
    conditions: &TheoryConditions,
) -> Option<PacedGoodputs> {
    if spec.kind != TestKind::UdpStream {
        return None;
    }
    let offered = spec.rate?.bits_per_second() as f64 * f64::from(spec.parallel_streams.max(1));
    let bottleneck = crate::serialisation::slowest_hop_bps(&conditions.shaped_hops, spec.reverse)?;
    let goodput = |arm: &Arm| {
        let path = path_kind(arm, Transport::Udp)?;
        let mtu = conditions.link_mtu_bytes(arm, path);
        crate::paced_link::received_goodput_bps(offered, spec.size_bytes, path, mtu, bottleneck)
    };
    let (arm_bps, baseline_bps) = (goodput(arm)?, goodput(baseline)?);
    (baseline_bps > 0.0).then_some(PacedGoodputs {
        offered_bps: offered,
        arm_bps,
        baseline_bps,
        both_cut: arm_bps < offered && baseline_bps < offered,
    })
}

/// Expected (arm − baseline) / baseline of wire throughput, for native arms
/// (whose first hop is the modelled link): 0 where the link's bit rate is
/// the bottleneck (every arm fills it); on packet-rate-bound loopback UDP,
/// equal packet rates with different frames: the frame-size ratio.
fn wire_throughput_difference(
    spec: &TestSpec,
    arm: &Arm,
    baseline: &Arm,
    conditions: &TheoryConditions,
    is_byte_bound: bool,
) -> Option<f64> {
    if arm.path != ArmPath::Native || baseline.path != ArmPath::Native {
        return None;
    }
    if is_byte_bound {
        return Some(0.0);
    }
    if spec.kind != TestKind::UdpStream || spec.rate.is_some() {
        return None;
    }
    let wire_bytes = |arm: &Arm| {
        let path = PathKind::plain(arm.family, Transport::Udp);
        let settings = wire_settings(conditions.link_mtu_bytes(arm, path));
        message_cost(path, &settings, spec.size_bytes)
            .ok()
            .map(|m| m.wire_bytes as f64)
    };
    Some(wire_bytes(arm)? / wire_bytes(baseline)? - 1.0)
}

/// Linux on Ethernet with on-wire extras counted, at `mtu_bytes`.
fn wire_settings(mtu_bytes: u32) -> OverheadSettings {
    OverheadSettings {
        count_wire_extras: true,
        ..OverheadSettings::linux(mtu_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_fixtures::{arm, ok, spec, trial};
    use dualperf_model::observation::{Observations, SocketFacts};
    use dualperf_model::{BitRate, TunnelPlacement};

    fn v4() -> Arm {
        Arm::native(IpFamily::V4, None)
    }

    fn v6() -> Arm {
        Arm::native(IpFamily::V6, None)
    }

    /// The classic prediction: IPv6 against an IPv4 baseline.
    fn v6_vs_v4(spec: &TestSpec, metric: MetricId, conditions: &TheoryConditions) -> Option<f64> {
        theoretical_relative_difference(spec, metric, &v6(), &v4(), conditions)
    }

    #[test]
    fn tcp_over_ethernet_loses_the_twenty_extra_header_bytes_per_segment() {
        // MSS 1428 vs 1448 with timestamps: 1428/1448 − 1 = −1.381 %.
        let theory = v6_vs_v4(
            &spec(TestKind::TcpStream, 131_072),
            MetricId::GoodputBps,
            &TheoryConditions::default(),
        )
        .unwrap();
        assert!((theory - (1428.0 / 1448.0 - 1.0)).abs() < 1e-12, "{theory}");
    }

    #[test]
    fn small_udp_datagrams_pay_relatively_more_for_the_bigger_header() {
        // 64 B over Ethernet with extras: v4 frame 14+20+8+64 = 106 + 24 = 130,
        // v6 126 + 24 = 150 → 130/150 − 1 = −13.3 %.
        let theory = v6_vs_v4(
            &spec(TestKind::UdpStream, 64),
            MetricId::ReceivedPps,
            &TheoryConditions::default(),
        )
        .unwrap();
        assert!((theory - (130.0 / 150.0 - 1.0)).abs() < 1e-12, "{theory}");
    }

    #[test]
    fn paced_udp_on_a_shaped_path_gets_the_frame_ratio_only_when_the_pace_fills_it() {
        let shaped = TheoryConditions {
            shaped_hops: vec![crate::serialisation::ShapedHop {
                rate_bits_per_second: 100_000_000,
                forward: true,
            }],
            ..TheoryConditions::default()
        };
        let paced = |mbit: u64| TestSpec {
            rate: Some(BitRate::from_mbit(mbit)),
            ..spec(TestKind::UdpStream, 1024)
        };
        // The lab's default: paced at the link rate, both families cut to
        // their frames (htb counts 1066 and 1086 B).
        let at_link = v6_vs_v4(&paced(100), MetricId::GoodputBps, &shaped).unwrap();
        assert!(
            (at_link - (1066.0 / 1086.0 - 1.0)).abs() < 1e-12,
            "{at_link}"
        );
        assert_eq!(
            v6_vs_v4(&paced(100), MetricId::WireThroughputBps, &shaped),
            Some(0.0)
        );
        // Well below the link: both arrive whole.
        assert_eq!(
            v6_vs_v4(&paced(50), MetricId::ReceivedPps, &shaped),
            Some(0.0)
        );
        // Loss: what the shaper cannot pass, 1 − 1024/1066 = 3.94 % against
        // 1 − 1024/1086 = 5.71 %; none below both ceilings.
        let loss = v6_vs_v4(&paced(100), MetricId::LossRatio, &shaped).unwrap();
        let expected = (1.0 - 1024.0 / 1086.0) / (1.0 - 1024.0 / 1066.0) - 1.0;
        assert!((loss - expected).abs() < 1e-9, "{loss} {expected}");
        assert_eq!(
            v6_vs_v4(&paced(50), MetricId::LossRatio, &shaped),
            Some(0.0)
        );
        // The sender keeps its pace: no prediction for what it sent.
        assert_eq!(
            v6_vs_v4(&paced(100), MetricId::SenderThroughputBps, &shaped),
            None
        );
        // A reverse stream crosses no shaped hop here; nor does any stream
        // off a testbed: no prediction.
        let reverse = TestSpec {
            reverse: true,
            ..paced(100)
        };
        assert_eq!(v6_vs_v4(&reverse, MetricId::GoodputBps, &shaped), None);
        assert_eq!(
            v6_vs_v4(
                &paced(100),
                MetricId::GoodputBps,
                &TheoryConditions::default()
            ),
            None
        );
    }

    #[test]
    fn udp_on_loopback_is_packet_rate_bound_and_predicts_no_difference() {
        let conditions = TheoryConditions {
            loopback: true,
            ..TheoryConditions::default()
        };
        let theory = v6_vs_v4(
            &spec(TestKind::UdpStream, 64),
            MetricId::GoodputBps,
            &conditions,
        );
        assert_eq!(theory, Some(0.0));
    }

    #[test]
    fn wire_throughput_is_equal_on_a_link_and_bigger_for_ipv6_on_loopback() {
        let stream = spec(TestKind::TcpStream, 131_072);
        let link = TheoryConditions::default();
        assert_eq!(
            v6_vs_v4(&stream, MetricId::WireThroughputBps, &link),
            Some(0.0)
        );
        let loopback = TheoryConditions {
            loopback: true,
            ..TheoryConditions::default()
        };
        let small_udp = spec(TestKind::UdpStream, 64);
        // Same packet rate, frames of 150 vs 130 bytes on the (modelled) wire.
        let theory = v6_vs_v4(&small_udp, MetricId::WireThroughputBps, &loopback);
        assert!((theory.unwrap() - (150.0 / 130.0 - 1.0)).abs() < 1e-12);
    }

    #[test]
    fn paced_udp_and_latency_get_no_prediction() {
        let mut paced = spec(TestKind::UdpStream, 1000);
        paced.rate = Some(BitRate::from_mbit(100));
        let conditions = TheoryConditions::default();
        assert_eq!(v6_vs_v4(&paced, MetricId::GoodputBps, &conditions), None);
        let rr = spec(TestKind::TcpRr, 64);
        assert_eq!(v6_vs_v4(&rr, MetricId::RttMeanNs, &conditions), None);
    }

    #[test]
    fn swapping_arm_and_baseline_inverts_the_ratio() {
        let stream = spec(TestKind::TcpStream, 131_072);
        let conditions = TheoryConditions::default();
        let theory = theoretical_relative_difference(
            &stream,
            MetricId::GoodputBps,
            &v4(),
            &v6(),
            &conditions,
        )
        .unwrap();
        assert!((theory - (1448.0 / 1428.0 - 1.0)).abs() < 1e-12, "{theory}");
    }

    #[test]
    fn tunnels_and_translation_carry_their_header_change() {
        let stream = spec(TestKind::TcpStream, 131_072);
        let conditions = TheoryConditions::default();
        let six_in_four = arm(
            "v6-6in4",
            IpFamily::V6,
            ArmPath::SixInFour {
                placement: TunnelPlacement::HostHost,
            },
        );
        // 6in4: 20 more bytes of header (ArmPath::header_change_bytes) inside
        // the 1500-byte link MTU: MSS 1408 against IPv4's 1448, same frame.
        let theory = theoretical_relative_difference(
            &stream,
            MetricId::GoodputBps,
            &six_in_four,
            &v4(),
            &conditions,
        )
        .unwrap();
        let header = f64::from(six_in_four.path.header_change_bytes());
        assert!(
            (theory - ((1428.0 - header) / 1448.0 - 1.0)).abs() < 1e-12,
            "{theory}"
        );
        // Against native IPv6 the tunnel costs its 20 bytes only.
        let against_v6 = theoretical_relative_difference(
            &stream,
            MetricId::GoodputBps,
            &six_in_four,
            &v6(),
            &conditions,
        )
        .unwrap();
        assert!((against_v6 - (1408.0 / 1428.0 - 1.0)).abs() < 1e-12);
        // 4in6: 40 bytes of outer IPv6 header on IPv4: MSS 1408 as well.
        let four_in_six = arm("v4-4in6", IpFamily::V4, ArmPath::FourInSix);
        let theory = theoretical_relative_difference(
            &stream,
            MetricId::GoodputBps,
            &four_in_six,
            &v4(),
            &conditions,
        )
        .unwrap();
        assert!((theory - (1408.0 / 1448.0 - 1.0)).abs() < 1e-12, "{theory}");
        // NAT64: segments sized for the IPv6 side (1428) in 20-byte-smaller
        // IPv4 frames on the far side: 1428/1518 against 1448/1538.
        let nat64 = arm(
            "v6-nat64",
            IpFamily::V6,
            ArmPath::Nat64 {
                prefix: "64:ff9b::/96".into(),
            },
        );
        let theory = theoretical_relative_difference(
            &stream,
            MetricId::GoodputBps,
            &nat64,
            &v4(),
            &conditions,
        )
        .unwrap();
        let expected = (1428.0 / 1518.0) / (1448.0 / 1538.0) - 1.0;
        assert!((theory - expected).abs() < 1e-12, "{theory} vs {expected}");
    }

    #[test]
    fn an_arm_under_load_or_a_tunnel_in_the_wrong_family_gets_no_prediction() {
        let stream = spec(TestKind::TcpStream, 131_072);
        let conditions = TheoryConditions::default();
        let mut loaded = v6();
        loaded.load = LoadCondition::Under {
            load: "udp-115pct-be".into(),
        };
        assert_eq!(
            theoretical_relative_difference(
                &stream,
                MetricId::GoodputBps,
                &loaded,
                &v4(),
                &conditions
            ),
            None
        );
        let nonsense = arm(
            "v4-6in4",
            IpFamily::V4,
            ArmPath::SixInFour {
                placement: TunnelPlacement::HostHost,
            },
        );
        assert_eq!(
            theoretical_relative_difference(
                &stream,
                MetricId::GoodputBps,
                &nonsense,
                &v4(),
                &conditions
            ),
            None
        );
        // Wire throughput is modelled on native first hops only.
        let tunnel = arm(
            "v6-6in4",
            IpFamily::V6,
            ArmPath::SixInFour {
                placement: TunnelPlacement::RouterRouter,
            },
        );
        assert_eq!(
            theoretical_relative_difference(
                &stream,
                MetricId::WireThroughputBps,
                &tunnel,
                &v4(),
                &conditions
            ),
            None
        );
    }

    #[test]
    fn conditions_come_from_the_trials() {
        let with = |arm: &Arm, remote: &str, mtu: u32| {
            let mut trial = trial(
                0,
                &spec(TestKind::TcpStream, 1000),
                arm,
                0,
                ok(Observations {
                    socket: SocketFacts {
                        path_mtu_bytes: Some(mtu),
                        ..SocketFacts::default()
                    },
                    ..Observations::default()
                }),
            );
            trial.remote_address = Some(remote.to_string());
            trial
        };
        let trials = [
            with(&v4(), "127.0.0.1:5201", 65_536),
            with(&v6(), "[::1]:5201", 65_536),
        ];
        let conditions = TheoryConditions::of_trials(&trials);
        assert!(conditions.loopback);
        assert_eq!(conditions.mtu_bytes.get(&v4().id), Some(&65_536));
        assert_eq!(conditions.mtu_bytes.get(&v6().id), Some(&65_536));
        let lab = [
            with(&v4(), "10.0.0.2:5201", 1500),
            with(&v6(), "[fd00::2]:5201", 1480),
        ];
        let conditions = TheoryConditions::of_trials(&lab);
        assert!(!conditions.loopback);
        assert_eq!(conditions.mtu_bytes.get(&v6().id), Some(&1480));
        // A tunnel's socket sees the tunnel MTU; the link carries the outer header too.
        let tunnel = arm(
            "v6-6in4",
            IpFamily::V6,
            ArmPath::SixInFour {
                placement: TunnelPlacement::HostHost,
            },
        );
        let conditions = TheoryConditions::of_trials(&[with(&tunnel, "[fd00::2]:5201", 1480)]);
        let path = path_kind(&tunnel, Transport::Tcp).unwrap();
        assert_eq!(conditions.link_mtu_bytes(&tunnel, path), 1500);
        assert_eq!(
            TheoryConditions::default().link_mtu_bytes(&tunnel, path),
            DEFAULT_MTU_BYTES
        );
    }

    #[test]
    fn the_model_header_changes_agree_with_the_arm_paths() {
        for (path, encapsulation) in [
            (
                ArmPath::SixInFour {
                    placement: TunnelPlacement::RouterRouter,
                },
                Encapsulation::SixInFour,
            ),
            (ArmPath::FourInSix, Encapsulation::FourInSix),
        ] {
            assert_eq!(
                path.header_change_bytes(),
                encapsulation.added_bytes() as i32,
                "{path:?}"
            );
        }
    }
}

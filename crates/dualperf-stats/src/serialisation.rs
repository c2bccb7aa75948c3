//! Serialisation delay on rate-limited hops: what a larger header adds to a
//! latency (RTT, connect time, one-way delay) where a link is shaped.
//!
//! A packet of `frame` bytes leaves a hop shaped to `R` bit/s in
//! `frame · 8 / R` seconds. htb on a veth counts the frame as the kernel
//! sees it: payload + TCP/UDP + IP header + 14 B Ethernet header. IPv6's
//! header is 20 B larger than IPv4's (RFC 8200 §3 vs RFC 791 §3.1), so each
//! packet on the timed path takes `20 · 8 / R` longer per shaped hop: 16 µs
//! at 10 Mbit/s. A request/response transaction puts its message each way
//! on the timed path: one packet up to 1428 B (IPv6's MSS with timestamps),
//! above that every segment or IP fragment with its own headers (4096 B:
//! three segments, 60 B more for IPv6). ACKs are not counted: they ride on
//! the response or are delayed, and a multi-segment message's ACKs share
//! the reverse bucket with the response only in part.
//!
//! The comparison takes [`latency_difference`] as the header model's
//! prediction for RTT, connect time and one-way delay when the testbed
//! shaped the path ([`shaped_path`]), so the attribution's header part
//! explains what serialisation explains (docs/metrics.md, "Attribution").

use std::collections::{BTreeMap, VecDeque};

use dualperf_model::{
    Arm, ArmPath, IpFamily, LoadCondition, MetricId, TestKind, TestSpec, TestbedFacts,
};

use crate::overhead::{message_cost, OverheadSettings, PathKind, Transport, DEFAULT_MTU_BYTES};

pub mod connect;

/// One shaped direction of a hop on an arm's path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShapedHop {
    /// The hop's rate ceiling, bits per second.
    pub rate_bits_per_second: u64,
    /// True when the hop carries the request (client → server) direction.
    pub forward: bool,
}

/// Serialisation time of `frame_bytes` at `rate_bits_per_second`, ns;
/// `None` for a zero rate.
pub fn serialisation_ns(frame_bytes: u32, rate_bits_per_second: u64) -> Option<f64> {
    (rate_bits_per_second > 0)
        .then(|| f64::from(frame_bytes) * 8.0 * 1e9 / rate_bits_per_second as f64)
}

/// On a wire (store-and-forward hops, not a token bucket): the extra
/// latency, ns, of one transaction whose packets are
/// `extra_header_bytes` larger: `forward_packets` per forward shaped hop and
/// `reverse_packets` per reverse one (1 and 1 for a request/response RTT,
/// 1 and 0 for a one-way delay).
pub fn extra_delay_ns(
    hops: &[ShapedHop],
    extra_header_bytes: u32,
    forward_packets: u32,
    reverse_packets: u32,
) -> f64 {
    hops.iter()
        .filter_map(|hop| {
            let packets = if hop.forward {
                forward_packets
            } else {
                reverse_packets
            };
            serialisation_ns(extra_header_bytes, hop.rate_bits_per_second)
                .map(|ns| ns * f64::from(packets))
        })
        .sum()
}

/// The slowest shaped hop the data crosses, bit/s: forward hops for a
/// client-sent stream, reverse ones for `reverse` (the server sends);
/// `None` when no hop in that direction is shaped.
pub fn slowest_hop_bps(hops: &[ShapedHop], reverse: bool) -> Option<u64> {
    hops.iter()
        .filter(|hop| hop.forward != reverse && hop.rate_bits_per_second > 0)
        .map(|hop| hop.rate_bits_per_second)
        .min()
}

/// The shaped directions on the path from the testbed's client node to its
/// server node (shortest path over the links), client side first; empty
/// when nothing on the path is rate-limited or the nodes are not linked.
pub fn shaped_path(facts: &TestbedFacts) -> Vec<ShapedHop> {
    let (from, to) = (facts.client_node.as_str(), facts.server_node.as_str());
    // Breadth-first search: the previous node of each reached node.
    let mut previous: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = VecDeque::from([from]);
    while let Some(node) = queue.pop_front() {
        if node == to {
            break;
        }
        for link in &facts.links {
            let [a, b] = [link.between[0].as_str(), link.between[1].as_str()];
            let next = if a == node {
                b
            } else if b == node {
                a
            } else {
                continue;
            };
            if next != from && !previous.contains_key(next) {
                previous.insert(next, node);
                queue.push_back(next);
            }
        }
    }
    let mut nodes = vec![to];
    while let Some(&node) = nodes.last().and_then(|n| previous.get(n)) {
        nodes.push(node);
    }
    if nodes.last() != Some(&from) || from == to {
        return Vec::new();
    }
    nodes.reverse();
    let mut hops = Vec::new();
    for step in nodes.windows(2) {
        let (u, v) = (step[0], step[1]);
        let Some(link) = facts.links.iter().find(|l| {
            (l.between[0] == u && l.between[1] == v) || (l.between[0] == v && l.between[1] == u)
        }) else {
            continue;
        };
        for egress in &link.egress {
            let Some(rate) = egress.rate_bits_per_second else {
                continue;
            };
            let forward = egress.from == u && egress.to == v;
            let reverse = egress.from == v && egress.to == u;
            if forward || reverse {
                hops.push(ShapedHop {
                    rate_bits_per_second: rate,
                    forward,
                });
            }
        }
    }
    hops
}

/// The frames htb sees for one request (or response) of `payload` bytes,
/// summed, bytes: TCP segments of Linux's MSS with timestamps (RFC 7323) or
/// a UDP datagram with its IP fragments, each with its headers and the
/// 14 B Ethernet header htb counts on a veth (skb length at the qdisc), on
/// a 1500-byte link ([`crate::overhead::message_cost`]). 64 B tcp-rr:
/// 64 + 32 + 20/40 + 14 = 130/150 B; 4096 B: three segments each way.
pub fn message_frame_bytes(kind: TestKind, family: IpFamily, payload: u32) -> Option<u32> {
    let transport = match kind {
        TestKind::TcpRr => Transport::Tcp,
        TestKind::UdpRr => Transport::Udp,
        _ => return None,
    };
    let settings = OverheadSettings::linux(DEFAULT_MTU_BYTES);
    let cost = message_cost(PathKind::plain(family, transport), &settings, payload).ok()?;
    u32::try_from(cost.frame_bytes.iter().map(|&f| u64::from(f)).sum::<u64>()).ok()
}

/// The RTT a token-bucket shaper (htb, tbf) imposes on a ping-pong of one
/// message per direction whose frames total `frame_bytes`, ns: each shaped
/// direction lets them through per `frame · 8 / R` (the bucket repays the
/// previous message's debt), and the directions repay in parallel, so the
/// slowest direction bounds the transaction rate: `max over shaped hops of
/// frame · 8 / R`. Measured on `lab bottleneck` (10 Mbit/s both ways): 64 B
/// tcp-rr 103.4 µs (130 B frame: 104 µs), udp-rr 84.3 µs (106 B: 84.8 µs);
/// on `lab router` (100 Mbit/s): 4096 B tcp-rr 349 µs (three segments,
/// 4294 B: 344 µs), 16384 B 1.38 ms (twelve, 17 176 B: 1.37 ms).
pub fn request_response_bound_ns(frame_bytes: u32, hops: &[ShapedHop]) -> Option<f64> {
    hops.iter()
        .filter_map(|hop| serialisation_ns(frame_bytes, hop.rate_bits_per_second))
        .reduce(f64::max)
}

/// The shaper binds when the baseline's latency is within this fraction
/// of its bound (above it: an idle bucket passes packets at once).
const BINDING_TOLERANCE: f64 = 0.25;

/// The header model's (arm − baseline) / baseline of a latency on a
/// token-bucket-shaped path whose shaper bounds the rate of transactions:
/// a request/response RTT (mean or p50) from the two families' bounds
/// ([`request_response_bound_ns`]; 20 B at 10 Mbit/s = 16 µs), a
/// tcp-connect setup time (mean or p50) from their cycles' bounds
/// ([`connect::cycle_bound_ns`]; 60 B = 48 µs), over the baseline's
/// latency `baseline_ns`. `None` for other metrics and kinds (one-way delay
/// is not modelled: an idle bucket delays nothing), tunnel or translated
/// arms, loaded arms, no shaped hop, or a baseline latency more than 25 %
/// off its bound (the shaper did not set the pace).
pub fn latency_difference(
    spec: &TestSpec,
    metric: MetricId,
    arm: &Arm,
    baseline: &Arm,
    hops: &[ShapedHop],
    baseline_ns: f64,
) -> Option<f64> {
    let native = arm.path == ArmPath::Native && baseline.path == ArmPath::Native;
    let idle = arm.load == LoadCondition::Idle && baseline.load == LoadCondition::Idle;
    if !native || !idle {
        return None;
    }
    let bound = |arm: &Arm| match (spec.kind, metric) {
        (TestKind::TcpRr | TestKind::UdpRr, MetricId::RttMeanNs | MetricId::RttP50Ns) => {
            request_response_bound_ns(
                message_frame_bytes(spec.kind, arm.family, spec.size_bytes)?,
                hops,
            )
        }
        (TestKind::TcpConnect, MetricId::ConnectMeanNs | MetricId::ConnectP50Ns) => {
            connect::cycle_bound_ns(arm.family, hops)
        }
        _ => None,
    };
    let (arm_bound, baseline_bound) = (bound(arm)?, bound(baseline)?);
    let binding = (baseline_ns - baseline_bound).abs() <= BINDING_TOLERANCE * baseline_bound;
    (baseline_ns.is_finite() && binding).then(|| (arm_bound - baseline_bound) / baseline_ns)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::testbed::{TestbedEgress, TestbedLink};

    const TEN_MBIT: u64 = 10_000_000;

    fn link(a: &str, b: &str, rates: &[(&str, &str, u64)]) -> TestbedLink {
        TestbedLink {
            between: [a.into(), b.into()],
            egress: rates
                .iter()
                .map(|(from, to, rate)| TestbedEgress {
                    from: (*from).into(),
                    to: (*to).into(),
                    rate_bits_per_second: Some(*rate),
                    ..TestbedEgress::default()
                })
                .collect(),
            ..TestbedLink::default()
        }
    }

    fn bottleneck() -> TestbedFacts {
        TestbedFacts {
            client_node: "client".into(),
            server_node: "server".into(),
            links: vec![
                link("client", "router", &[]),
                link(
                    "router",
                    "server",
                    &[
                        ("router", "server", TEN_MBIT),
                        ("server", "router", TEN_MBIT),
                    ],
                ),
                link("router", "spare", &[("router", "spare", 1)]),
            ],
            ..TestbedFacts::default()
        }
    }

    #[test]
    fn the_path_from_client_to_server_holds_both_shaped_directions() {
        let hops = shaped_path(&bottleneck());
        assert_eq!(
            hops,
            [
                ShapedHop {
                    rate_bits_per_second: TEN_MBIT,
                    forward: true
                },
                ShapedHop {
                    rate_bits_per_second: TEN_MBIT,
                    forward: false
                },
            ]
        );
        let mut unlinked = bottleneck();
        unlinked.server_node = "elsewhere".into();
        assert!(shaped_path(&unlinked).is_empty());
    }

    #[test]
    fn rr_at_10_mbit_predicts_16_us_per_transaction() {
        // The bottleneck lab: 10 Mbit/s both ways. 64 B tcp-rr frames are
        // 130 B (IPv4) and 150 B (IPv6): bounds 104 and 120 µs, a 16 µs
        // gap (20 B × 8 / 10 Mbit/s; the directions repay in parallel).
        let hops = shaped_path(&bottleneck());
        let (v4, v6) = (
            Arm::native(IpFamily::V4, None),
            Arm::native(IpFamily::V6, None),
        );
        let tcp = TestSpec::new(TestKind::TcpRr, 64);
        let baseline_ns = 103_359.0; // measured IPv4 p50
        let d = latency_difference(&tcp, MetricId::RttP50Ns, &v6, &v4, &hops, baseline_ns)
            .expect("modelled");
        assert!((d * baseline_ns - 16_000.0).abs() < 1e-6, "{d}");
        // udp-rr: 106 B vs 126 B frames, the same 16 µs gap.
        let udp = TestSpec::new(TestKind::UdpRr, 64);
        assert_eq!(request_response_bound_ns(106, &hops), Some(84_800.0));
        let d = latency_difference(&udp, MetricId::RttP50Ns, &v6, &v4, &hops, 84_308.0);
        assert!((d.expect("modelled") * 84_308.0 - 16_000.0).abs() < 1e-6);
        // IPv4 against IPv6: the same gap the other way.
        let back = latency_difference(&tcp, MetricId::RttP50Ns, &v4, &v6, &hops, 119_000.0);
        assert!((back.expect("modelled") * 119_000.0 + 16_000.0).abs() < 1e-6);
        // Not modelled: a shaper that did not set the pace (40 ms RTT), a
        // rate, connect time of an RR point, a payload whose RTT is far off
        // its bound, an unshaped path.
        assert_eq!(
            latency_difference(&tcp, MetricId::RttP50Ns, &v6, &v4, &hops, 4e7),
            None
        );
        for metric in [MetricId::TransactionsPerSecond, MetricId::ConnectP50Ns] {
            assert_eq!(
                latency_difference(&tcp, metric, &v6, &v4, &hops, baseline_ns),
                None
            );
        }
        let big = TestSpec::new(TestKind::TcpRr, 65_536);
        assert_eq!(
            latency_difference(&big, MetricId::RttP50Ns, &v6, &v4, &hops, 1e5),
            None
        );
        assert_eq!(
            latency_difference(&tcp, MetricId::RttP50Ns, &v6, &v4, &[], 1e5),
            None
        );
    }

    #[test]
    fn connect_time_at_10_mbit_pays_the_header_on_three_forward_frames() {
        // lab bottleneck --quick (debug build): IPv4 connect p50 141 µs,
        // IPv6 187 µs; the cycles' bounds are 164.8 and 212.8 µs, so the
        // model predicts 48 µs of the measured 46.
        let hops = shaped_path(&bottleneck());
        let (v4, v6) = (
            Arm::native(IpFamily::V4, None),
            Arm::native(IpFamily::V6, None),
        );
        let connect = TestSpec::new(TestKind::TcpConnect, 0);
        let d = latency_difference(&connect, MetricId::ConnectP50Ns, &v6, &v4, &hops, 141_000.0)
            .expect("modelled");
        assert!((d * 141_000.0 - 48_000.0).abs() < 1e-6, "{d}");
        // Far off the bound (an unshaped path's 60 µs, a 2 ms WAN): none.
        for far in [60_000.0, 2e6] {
            assert_eq!(
                latency_difference(&connect, MetricId::ConnectP50Ns, &v6, &v4, &hops, far),
                None
            );
        }
        // Not the connections' rate, and not the RTT of a connect point.
        for metric in [MetricId::ConnectionsPerSecond, MetricId::RttP50Ns] {
            assert_eq!(
                latency_difference(&connect, metric, &v6, &v4, &hops, 141_000.0),
                None
            );
        }
    }

    #[test]
    fn a_multi_packet_message_pays_the_header_once_per_segment_or_fragment() {
        // tcp-rr 4096 B: three segments (MSS 1448 / 1428): 4096 + 3 × 66 =
        // 4294 B for IPv4, 60 B more for IPv6.
        assert_eq!(
            message_frame_bytes(TestKind::TcpRr, IpFamily::V4, 4096),
            Some(4294)
        );
        assert_eq!(
            message_frame_bytes(TestKind::TcpRr, IpFamily::V6, 4096),
            Some(4354)
        );
        // udp-rr 4096 B: 4104 B of UDP in three IPv4 fragments (20 + 14 B
        // each) or three IPv6 ones (40 + 8 + 14 B each): 84 B more.
        assert_eq!(
            message_frame_bytes(TestKind::UdpRr, IpFamily::V4, 4096),
            Some(4206)
        );
        assert_eq!(
            message_frame_bytes(TestKind::UdpRr, IpFamily::V6, 4096),
            Some(4290)
        );
        // On lab router (100 Mbit/s both ways), IPv4 measured 349 µs: the
        // 60 B are 4.8 µs, 1.38 %.
        let hops = [true, false].map(|forward| ShapedHop {
            rate_bits_per_second: 100_000_000,
            forward,
        });
        let (v4, v6) = (
            Arm::native(IpFamily::V4, None),
            Arm::native(IpFamily::V6, None),
        );
        let tcp = TestSpec::new(TestKind::TcpRr, 4096);
        let d = latency_difference(&tcp, MetricId::RttP50Ns, &v6, &v4, &hops, 349_000.0)
            .expect("modelled");
        assert!((d * 349_000.0 - 4_800.0).abs() < 1e-6, "{d}");
        // A 64 KiB message whose RTT is 0.1 ms was not paced by the shaper
        // (its bound at 100 Mbit/s is 5.5 ms): no prediction.
        let big = TestSpec::new(TestKind::TcpRr, 65_536);
        assert_eq!(
            latency_difference(&big, MetricId::RttP50Ns, &v6, &v4, &hops, 1e5),
            None
        );
    }

    #[test]
    fn the_issue_frames_serialise_as_measured() {
        // 64 B tcp-rr: 64 + 32 (TCP with timestamps) + 20/40 + 14 = 130/150 B.
        assert_eq!(serialisation_ns(130, TEN_MBIT), Some(104_000.0));
        assert_eq!(serialisation_ns(150, TEN_MBIT), Some(120_000.0));
        assert_eq!(serialisation_ns(150, 0), None);
    }

    #[test]
    fn a_request_response_pays_the_header_each_way_per_shaped_hop() {
        let one_link = [
            ShapedHop {
                rate_bits_per_second: TEN_MBIT,
                forward: true,
            },
            ShapedHop {
                rate_bits_per_second: TEN_MBIT,
                forward: false,
            },
        ];
        // 2 × 20 B × 8 / 10 Mbit/s = 32 µs per transaction.
        assert_eq!(extra_delay_ns(&one_link, 20, 1, 1), 32_000.0);
        // One way: 16 µs.
        assert_eq!(extra_delay_ns(&one_link, 20, 1, 0), 16_000.0);
        // An unshaped 100 Mbit/s hop in series adds 1.6 µs per direction.
        let two = [
            one_link[0],
            one_link[1],
            ShapedHop {
                rate_bits_per_second: 100_000_000,
                forward: true,
            },
            ShapedHop {
                rate_bits_per_second: 100_000_000,
                forward: false,
            },
        ];
        assert!((extra_delay_ns(&two, 20, 1, 1) - 35_200.0).abs() < 1e-6);
    }

    #[test]
    fn the_data_direction_picks_the_hops() {
        let hops = [
            ShapedHop {
                rate_bits_per_second: 10_000_000,
                forward: true,
            },
            ShapedHop {
                rate_bits_per_second: 100_000_000,
                forward: true,
            },
            ShapedHop {
                rate_bits_per_second: 5_000_000,
                forward: false,
            },
        ];
        assert_eq!(slowest_hop_bps(&hops, false), Some(10_000_000));
        assert_eq!(slowest_hop_bps(&hops, true), Some(5_000_000));
        assert_eq!(slowest_hop_bps(&hops[..2], true), None);
    }
}

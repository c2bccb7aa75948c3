//! What `dualperf lab path-faults` expects `dualperf path` to find for each
//! injected fault (pure: a verdict document in, problems out). A case
//! passes when every family's verdicts name the fault, its size and its
//! hop, and nothing else is wrong; the clean control must show nothing.

use std::net::IpAddr;

use dualperf_lab::path_faults::{PathFault, FAULT_MTU};
use dualperf_model::IpFamily;
use dualperf_path::exthdr::ExtKind;
use dualperf_path::verdict::{Delivery, MtuVerdict, TcpVerdict};
use dualperf_path::FamilyVerdicts;

/// The testbed's facts the checks need.
pub(crate) struct Expect {
    /// The local link MTU, bytes.
    pub link_mtu: u32,
    /// The 6in4 tunnel's MTU, bytes.
    pub tunnel_mtu: u32,
    /// Every address of router1.
    pub router1: Vec<IpAddr>,
    /// Every address of router2.
    pub router2: Vec<IpAddr>,
}

fn dropped_at(delivery: &Delivery, hop: u8, router: &[IpAddr]) -> bool {
    matches!(delivery, Delivery::Dropped { after_hop: Some(h), last_reached: Some(a), .. } if *h == hop && router.contains(a))
}

/// The problems with `verdicts` for `fault`; empty when the case passes.
pub(crate) fn check(fault: PathFault, verdicts: &[FamilyVerdicts], expect: &Expect) -> Vec<String> {
    let mut problems = Vec::new();
    let families: Vec<IpFamily> = verdicts.iter().map(|v| v.family).collect();
    let wanted: &[IpFamily] = match fault {
        PathFault::Tunnel6in4 => &[IpFamily::V6],
        _ => &[IpFamily::V4, IpFamily::V6],
    };
    if families != wanted {
        problems.push(format!("probed {families:?}, expected {wanted:?}"));
    }
    for v in verdicts {
        let name = match v.family {
            IpFamily::V4 => "IPv4",
            IpFamily::V6 => "IPv6",
        };
        let mut fail = |what: String| problems.push(format!("{name}: {what}"));
        // the path MTU
        let mtu_ok = match (fault, &v.mtu) {
            (
                PathFault::SmallMtu,
                MtuVerdict::Announced {
                    mtu,
                    announced,
                    by: Some(by),
                    hop: Some(1),
                    ..
                },
            ) => *mtu == FAULT_MTU && *announced == FAULT_MTU && expect.router1.contains(by),
            (
                PathFault::PtbBlackHole,
                MtuVerdict::BlackHole {
                    mtu,
                    lost_from,
                    after_hop: Some(1),
                    last_reached: Some(at),
                    ..
                },
            ) => *mtu == FAULT_MTU && *lost_from == FAULT_MTU + 1 && expect.router1.contains(at),
            (
                PathFault::Tunnel6in4,
                MtuVerdict::Announced {
                    mtu,
                    by: Some(by),
                    hop: Some(1),
                    ..
                },
            ) => *mtu == expect.tunnel_mtu && expect.router1.contains(by),
            (PathFault::SmallMtu | PathFault::PtbBlackHole | PathFault::Tunnel6in4, _) => false,
            (_, MtuVerdict::Clean { mtu, capped: false }) => *mtu == expect.link_mtu,
            _ => false,
        };
        if !mtu_ok {
            fail(format!("path MTU verdict {:?}", v.mtu));
        }
        // fragments
        let fragments_dropped = fault == PathFault::V6FragmentsDropped && v.family == IpFamily::V6;
        if v.fragments.is_empty() {
            fail("no fragment trial".into());
        }
        for f in &v.fragments {
            let ok = match fragments_dropped {
                true => dropped_at(&f.delivery, 2, &expect.router2),
                false => f.delivery == Delivery::Delivered,
            };
            if !ok {
                fail(format!("fragments of {} B: {:?}", f.size, f.delivery));
            }
        }
        // extension headers
        if v.family == IpFamily::V6 && v.ext_headers.is_empty() {
            fail("no extension-header trial".into());
        }
        for e in &v.ext_headers {
            let dropped_kind = match fault {
                PathFault::HopByHopDropped => Some(ExtKind::HopByHop),
                PathFault::DestOptionsDropped => Some(ExtKind::DestinationOptions),
                // the atomic fragment carries a Fragment header too
                PathFault::V6FragmentsDropped => Some(ExtKind::Fragment),
                _ => None,
            };
            let ok = match dropped_kind == Some(e.header.kind) {
                true => dropped_at(&e.delivery, 2, &expect.router2),
                false => e.delivery == Delivery::Delivered,
            };
            if !ok {
                fail(format!("{}: {:?}", e.header.label(), e.delivery));
            }
        }
        // TCP: a black hole leaves TCP's MSS too large with nothing to tell
        // it, and a bulk transfer stalls; everywhere else it flows
        let hole = fault == PathFault::PtbBlackHole;
        // the lab runs the bulk transfer in the control and the black hole only
        let bulk = matches!(fault, PathFault::Clean | PathFault::PtbBlackHole).then_some(hole);
        let tcp_ok = matches!(
            v.tcp,
            TcpVerdict::Mss { would_stall, bulk_stalled, .. }
                if would_stall == hole && bulk_stalled == bulk
        );

        if !tcp_ok {
            fail(format!("TCP verdict {:?}", v.tcp));
        }
        let clean_family = matches!(
            (fault, v.family),
            (PathFault::Clean, _)
                | (
                    PathFault::V6FragmentsDropped
                        | PathFault::HopByHopDropped
                        | PathFault::DestOptionsDropped,
                    IpFamily::V4
                )
        );
        if clean_family && v.has_fault() {
            fail("a fault was reported on a clean path".into());
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_path::exthdr::ExtHeader;
    use dualperf_path::verdict::{ExtHeaderVerdict, FragmentVerdict};

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    fn expect() -> Expect {
        Expect {
            link_mtu: 1500,
            tunnel_mtu: 1480,
            router1: vec![ip("fd00:dead:beef:1::2"), ip("10.0.1.2")],
            router2: vec![ip("fd00:dead:beef:2::2"), ip("10.0.2.2")],
        }
    }

    fn clean(family: IpFamily) -> FamilyVerdicts {
        FamilyVerdicts {
            family,
            target: ip("fd00:dead:beef:3::2"),
            mtu: MtuVerdict::Clean {
                mtu: 1500,
                capped: false,
            },
            fragments: vec![FragmentVerdict {
                size: 2000,
                delivery: Delivery::Delivered,
            }],
            ext_headers: match family {
                IpFamily::V4 => Vec::new(),
                IpFamily::V6 => dualperf_path::exthdr::default_set()
                    .into_iter()
                    .map(|header| ExtHeaderVerdict {
                        header,
                        delivery: Delivery::Delivered,
                    })
                    .collect(),
            },
            tcp: TcpVerdict::Mss {
                mss: 1448,
                fits: Some(true),
                would_stall: false,
                bulk_stalled: Some(false),
            },
            rate_limited_hops: Vec::new(),
            untested: Vec::new(),
        }
    }

    #[test]
    fn the_clean_control_passes_and_a_clean_result_fails_every_fault_case() {
        let both = [clean(IpFamily::V4), clean(IpFamily::V6)];
        assert!(check(PathFault::Clean, &both, &expect()).is_empty());
        for fault in [
            PathFault::SmallMtu,
            PathFault::PtbBlackHole,
            PathFault::V6FragmentsDropped,
            PathFault::HopByHopDropped,
            PathFault::DestOptionsDropped,
        ] {
            assert!(
                !check(fault, &both, &expect()).is_empty(),
                "{fault:?} must not pass on a clean result"
            );
        }
    }

    /// A clean family where the lab ran no bulk transfer.
    fn without_bulk(family: IpFamily) -> FamilyVerdicts {
        let mut v = clean(family);
        v.tcp = TcpVerdict::Mss {
            mss: 1448,
            fits: Some(true),
            would_stall: false,
            bulk_stalled: None,
        };
        v
    }

    #[test]
    fn a_hop_by_hop_drop_must_be_placed_at_router2_and_only_for_hop_by_hop() {
        let mut v6 = without_bulk(IpFamily::V6);
        let drop_at = |address: &str| Delivery::Dropped {
            after_hop: Some(2),
            last_reached: Some(ip(address)),
            icmp: None,
        };
        for e in &mut v6.ext_headers {
            if e.header.kind == ExtKind::HopByHop {
                e.delivery = drop_at("fd00:dead:beef:2::2");
            }
        }
        let verdicts = [without_bulk(IpFamily::V4), v6.clone()];
        assert!(check(PathFault::HopByHopDropped, &verdicts, &expect()).is_empty());
        assert!(!check(PathFault::DestOptionsDropped, &verdicts, &expect()).is_empty());
        // the wrong router: not found
        v6.ext_headers[2].delivery = drop_at("fd00:dead:beef:1::2");
        let problems = check(
            PathFault::HopByHopDropped,
            &[without_bulk(IpFamily::V4), v6],
            &expect(),
        );
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].contains(&ExtHeader::new(ExtKind::HopByHop, 8).unwrap().label()));
    }

    #[test]
    fn a_black_hole_needs_the_size_the_hop_and_a_stalling_tcp() {
        let hole = |v: &mut FamilyVerdicts| {
            v.mtu = MtuVerdict::BlackHole {
                mtu: 1400,
                lost_from: 1401,
                after_hop: Some(1),
                last_reached: Some(ip("10.0.1.2")),
                hint: None,
            };
            v.tcp = TcpVerdict::Mss {
                mss: 1448,
                fits: Some(false),
                would_stall: true,
                bulk_stalled: Some(true),
            };
        };
        let (mut v4, mut v6) = (clean(IpFamily::V4), clean(IpFamily::V6));
        hole(&mut v4);
        hole(&mut v6);
        v6.mtu = MtuVerdict::BlackHole {
            mtu: 1400,
            lost_from: 1401,
            after_hop: Some(1),
            last_reached: Some(ip("fd00:dead:beef:1::2")),
            hint: None,
        };
        assert!(check(
            PathFault::PtbBlackHole,
            &[v4.clone(), v6.clone()],
            &expect()
        )
        .is_empty());
        // the right size at the wrong hop is not found
        v6.mtu = MtuVerdict::BlackHole {
            mtu: 1400,
            lost_from: 1401,
            after_hop: Some(2),
            last_reached: Some(ip("fd00:dead:beef:2::2")),
            hint: None,
        };
        assert!(!check(PathFault::PtbBlackHole, &[v4, v6], &expect()).is_empty());
    }
}

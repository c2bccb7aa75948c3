//! Verdicts on recorded evidence: what the lab's faults leave behind.

use super::*;
use crate::evidence::{ExtHeaderTrial, FragmentTrial, MtuSearch, ProbeRecord, SweepHop, TcpView};
use crate::exthdr::ExtKind;
use crate::icmp::IcmpReport;
use crate::transport::{Probe, TransportKind};

const ROUTER1: &str = "fd00:dead:beef:1::2";
const ROUTER2: &str = "fd00:dead:beef:2::2";
const SERVER: &str = "fd00:dead:beef:3::2";

fn ip(text: &str) -> IpAddr {
    text.parse().unwrap()
}

fn hop(hop_limit: u8, by: Option<&str>, destination: bool) -> SweepHop {
    SweepHop {
        hop_limit,
        answered_by: by.map(ip),
        destination,
        rate_limited: false,
    }
}

fn route() -> Sweep {
    Sweep {
        probe: Probe::sized(72),
        hops: vec![
            hop(1, Some(ROUTER1), false),
            hop(2, Some(ROUTER2), false),
            hop(3, Some(SERVER), true),
        ],
    }
}

/// Large or special probes reach router 2 and vanish after it.
fn vanishing_after_router2(probe: Probe) -> Sweep {
    Sweep {
        probe,
        hops: vec![
            hop(1, Some(ROUTER1), false),
            hop(2, Some(ROUTER2), false),
            hop(3, None, false),
        ],
    }
}

fn delivered(size: u32) -> ProbeRecord {
    ProbeRecord {
        probe: Probe::sized(size),
        outcome: Outcome::Delivered {
            rtt_us: 80,
            received: size - 48,
        },
    }
}

fn lost(size: u32) -> ProbeRecord {
    ProbeRecord {
        probe: Probe::sized(size),
        outcome: Outcome::Lost,
    }
}

fn clean() -> FamilyEvidence {
    let mut evidence = FamilyEvidence::new(IpFamily::V6, ip(SERVER));
    evidence.transport = Some(TransportKind::Responder { port: 5180 });
    evidence.reachable = true;
    evidence.route = Some(route());
    evidence.mtu = Some(MtuSearch {
        local_mtu: 1500,
        capped: false,
        largest_delivered: Some(1500),
        smallest_lost: None,
        route_mtu: Some(1500),
        probes: vec![delivered(1500)],
    });
    evidence.fragments = [2000, 4000]
        .map(|size| FragmentTrial {
            size,
            fragment_bytes: 1500,
            delivered: true,
            received: Some(size - 48),
        })
        .to_vec();
    evidence.ext_headers = crate::exthdr::default_set()
        .into_iter()
        .map(|header| ExtHeaderTrial {
            header,
            size: 72 + u32::from(header.bytes),
            delivered: true,
            icmp: None,
            sweep: None,
        })
        .collect();
    evidence.tcp = Some(TcpView {
        port: 5180,
        mss: Some(1428),
        error: None,
        bulk: None,
    });
    evidence
}

#[test]
fn a_clean_path_has_no_fault() {
    let verdicts = judge(&clean());
    assert_eq!(
        verdicts.mtu,
        MtuVerdict::Clean {
            mtu: 1500,
            capped: false
        }
    );
    assert!(verdicts
        .fragments
        .iter()
        .all(|f| f.delivery == Delivery::Delivered));
    assert!(verdicts
        .ext_headers
        .iter()
        .all(|e| e.delivery == Delivery::Delivered));
    assert_eq!(
        verdicts.tcp,
        TcpVerdict::Mss {
            mss: 1428,
            fits: Some(true),
            would_stall: false,
            bulk_stalled: None
        }
    );
    assert!(!verdicts.has_fault());
}

#[test]
fn a_packet_too_big_names_the_mtu_the_router_and_its_hop() {
    let mut evidence = clean();
    let ptb = IcmpReport {
        kind: IcmpKind::PacketTooBig { mtu: 1400 },
        offender: Some(ip(ROUTER2)),
    };
    evidence.mtu = Some(MtuSearch {
        local_mtu: 1500,
        capped: false,
        largest_delivered: Some(1400),
        smallest_lost: Some(1401),
        route_mtu: Some(1500),
        probes: vec![
            ProbeRecord {
                probe: Probe::sized(1500),
                outcome: Outcome::Icmp(ptb),
            },
            delivered(1400),
        ],
    });
    let verdicts = judge(&evidence);
    assert_eq!(
        verdicts.mtu,
        MtuVerdict::Announced {
            mtu: 1400,
            announced: 1400,
            by: Some(ip(ROUTER2)),
            hop: Some(2),
            hint: None
        }
    );
    assert!(
        !verdicts.has_fault(),
        "an announced MTU is how IPv6 should work"
    );
}

#[test]
fn large_probes_lost_without_a_packet_too_big_are_a_black_hole_after_the_last_hop_they_reach() {
    let mut evidence = clean();
    evidence.mtu = Some(MtuSearch {
        local_mtu: 1500,
        capped: false,
        largest_delivered: Some(1480),
        smallest_lost: Some(1481),
        route_mtu: Some(1500),
        probes: vec![
            lost(1500),
            lost(1500),
            lost(1500),
            delivered(1480),
            lost(1481),
        ],
    });
    evidence.large_sweep = Some(vanishing_after_router2(Probe::sized(1481)));
    evidence.tcp = Some(TcpView {
        port: 5180,
        mss: Some(1428),
        error: None,
        bulk: None,
    });
    let verdicts = judge(&evidence);
    assert_eq!(
        verdicts.mtu,
        MtuVerdict::BlackHole {
            mtu: 1480,
            lost_from: 1481,
            after_hop: Some(2),
            last_reached: Some(ip(ROUTER2)),
            hint: Some(MtuHint::IpInIp)
        }
    );
    // 1428 + 60 > 1480 and nothing tells TCP: bulk transfers stall
    assert!(matches!(
        verdicts.tcp,
        TcpVerdict::Mss {
            fits: Some(false),
            would_stall: true,
            ..
        }
    ));
    assert!(verdicts.has_fault());
}

#[test]
fn a_dropped_hop_by_hop_header_is_placed_after_the_last_hop_it_reached() {
    let mut evidence = clean();
    let hbh = ExtHeader::new(ExtKind::HopByHop, 8).unwrap();
    let trial = evidence
        .ext_headers
        .iter_mut()
        .find(|t| t.header == hbh)
        .unwrap();
    trial.delivered = false;
    trial.sweep = Some(vanishing_after_router2(Probe {
        ext: Some(hbh),
        ..Probe::sized(80)
    }));
    let verdicts = judge(&evidence);
    let verdict = verdicts
        .ext_headers
        .iter()
        .find(|v| v.header == hbh)
        .unwrap();
    assert_eq!(
        verdict.delivery,
        Delivery::Dropped {
            after_hop: Some(2),
            last_reached: Some(ip(ROUTER2)),
            icmp: None
        }
    );
    let others = verdicts.ext_headers.iter().filter(|v| v.header != hbh);
    assert!(others
        .into_iter()
        .all(|v| v.delivery == Delivery::Delivered));
    assert!(verdicts.has_fault());
}

#[test]
fn dropped_fragments_and_a_silent_host_are_faults_and_rate_limited_hops_are_listed() {
    let mut evidence = clean();
    for trial in &mut evidence.fragments {
        trial.delivered = false;
        trial.received = None;
    }
    let mut sweep = vanishing_after_router2(Probe::sized(2000));
    sweep.hops[1].rate_limited = true;
    evidence.fragment_sweep = Some(sweep);
    let verdicts = judge(&evidence);
    assert!(verdicts.fragments.iter().all(|f| matches!(
        f.delivery,
        Delivery::Dropped {
            after_hop: Some(2),
            ..
        }
    )));
    assert_eq!(verdicts.rate_limited_hops, [2]);

    let mut silent = FamilyEvidence::new(IpFamily::V4, ip("10.0.3.2"));
    silent.unanswered = vec![TransportKind::Responder { port: 5180 }, TransportKind::Echo];
    assert_eq!(judge(&silent).mtu, MtuVerdict::Unreachable);
    assert!(judge(&silent).has_fault());
    // no echo tried (no privilege): not tested, not unreachable
    silent.unanswered.truncate(1);
    silent.lacks_privilege = true;
    assert_eq!(judge(&silent).mtu, MtuVerdict::NotTested);
}

#[test]
fn evidence_survives_a_json_round_trip() {
    let evidence = clean();
    let text = serde_json::to_string(&evidence).unwrap();
    let back: FamilyEvidence = serde_json::from_str(&text).unwrap();
    assert_eq!(back, evidence);
    assert_eq!(MtuHint::of(1280), Some(MtuHint::Ipv6Minimum));
}

#[test]
fn a_smaller_mtu_this_hosts_route_already_holds_sockets_to_is_no_black_hole() {
    // a 6in4 tunnel that starts on this host: its route says 1480, the
    // probes (which ignore the route) lose everything above it, no PTB
    let mut evidence = clean();
    evidence.mtu = Some(MtuSearch {
        local_mtu: 1500,
        capped: false,
        largest_delivered: Some(1480),
        smallest_lost: Some(1481),
        route_mtu: Some(1480),
        probes: vec![lost(1500), delivered(1480), lost(1481)],
    });
    let verdicts = judge(&evidence);
    assert_eq!(
        verdicts.mtu,
        MtuVerdict::KnownLocally {
            mtu: 1480,
            hint: Some(MtuHint::IpInIp)
        }
    );
    assert!(!verdicts.has_fault());
}

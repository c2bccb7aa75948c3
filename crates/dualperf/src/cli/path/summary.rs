//! The words of `dualperf path`: one summary line per family, then the
//! evidence behind it (route, ICMP errors, what was not tested).

use std::net::IpAddr;

use dualperf_model::IpFamily;
use dualperf_path::evidence::FamilyEvidence;
use dualperf_path::icmp::IcmpKind;
use dualperf_path::transport::TransportKind;
use dualperf_path::verdict::{Delivery, MtuHint, MtuVerdict, TcpVerdict};
use dualperf_path::FamilyVerdicts;

fn family_name(family: IpFamily) -> &'static str {
    match family {
        IpFamily::V4 => "IPv4",
        IpFamily::V6 => "IPv6",
    }
}

fn at(hop: Option<u8>, address: Option<IpAddr>) -> String {
    match (hop, address) {
        (Some(hop), Some(address)) => format!("hop {hop} ({address})"),
        (Some(hop), None) => format!("hop {hop}"),
        (None, Some(address)) => address.to_string(),
        (None, None) => "an unknown hop".into(),
    }
}

fn hint(hint: Option<MtuHint>) -> &'static str {
    match hint {
        Some(MtuHint::IpInIp) => ", as a 6in4 / IP-in-IP tunnel (20 B) leaves",
        Some(MtuHint::Gre) => ", as GRE (24 B) leaves",
        Some(MtuHint::Pppoe) => ", as PPPoE leaves",
        Some(MtuHint::Ipv6Minimum) => ", the IPv6 minimum",
        None => "",
    }
}

/// The path MTU in words.
pub(crate) fn mtu(verdict: &MtuVerdict) -> String {
    match verdict {
        MtuVerdict::NotTested => "path MTU not tested".into(),
        MtuVerdict::Unreachable => "UNREACHABLE: even small probes were lost".into(),
        MtuVerdict::Clean { mtu, capped: false } => format!("path MTU {mtu} (the local link's)"),
        MtuVerdict::Clean { mtu, capped: true } => format!("path MTU at least {mtu} (the search's ceiling)"),
        MtuVerdict::Announced {
            mtu,
            announced,
            by,
            hop,
            hint: h,
        } => format!(
            "path MTU {mtu}{}, Packet Too Big (MTU {announced}) delivered from {}",
            hint(*h),
            at(*hop, *by)
        ),
        MtuVerdict::KnownLocally { mtu, hint: h } => format!(
            "path MTU {mtu}{}, known to this host's route (a tunnel starting here, or a path MTU learned before)",
            hint(*h)
        ),
        MtuVerdict::BlackHole {
            mtu,
            lost_from,
            after_hop,
            last_reached,
            hint: h,
        } => format!(
            "BLACK HOLE: packets of {lost_from} B and more vanish after {} with no Packet Too Big; path MTU {mtu}{}",
            at(*after_hop, *last_reached),
            hint(*h)
        ),
    }
}

fn delivery(what: &str, delivery: &Delivery) -> String {
    match delivery {
        Delivery::Delivered => format!("{what} delivered"),
        Delivery::Dropped {
            after_hop: None,
            last_reached: None,
            icmp,
        } => format!("{what} DROPPED{}", icmp_note(icmp)),
        Delivery::Dropped {
            after_hop,
            last_reached,
            icmp,
        } => format!(
            "{what} DROPPED after {}{}",
            at(*after_hop, *last_reached),
            icmp_note(icmp)
        ),
    }
}

fn icmp_note(icmp: &Option<IcmpKind>) -> String {
    match icmp {
        Some(IcmpKind::ParameterProblem { code, pointer }) => {
            format!(" (Parameter Problem, code {code}, pointer {pointer})")
        }
        Some(kind) => format!(" ({kind:?})"),
        None => String::new(),
    }
}

fn tcp(verdict: &TcpVerdict) -> String {
    let (mss, fits, would_stall, bulk) = match verdict {
        TcpVerdict::NotTested { reason } => return format!("TCP MSS not tested ({reason})"),
        TcpVerdict::Mss {
            mss,
            fits,
            would_stall,
            bulk_stalled,
        } => (mss, fits, would_stall, bulk_stalled),
    };
    let mss_words = match (fits, would_stall) {
        (_, true) => format!(
            "TCP MSS {mss} too large for the path and nothing tells TCP: bulk transfers would STALL"
        ),
        (Some(true), _) => format!("TCP MSS {mss} fits"),
        (Some(false), _) => {
            format!("TCP MSS {mss} larger than the path carries (PMTUD will shrink it)")
        }
        (None, _) => format!("TCP MSS {mss}"),
    };
    match bulk {
        Some(true) => format!("{mss_words}; a 1 s bulk transfer STALLED"),
        Some(false) => format!("{mss_words}; a 1 s bulk transfer flowed"),
        None => mss_words,
    }
}

/// The summary line and the evidence lines of one family.
pub(crate) fn lines(evidence: &FamilyEvidence, verdict: &FamilyVerdicts) -> Vec<String> {
    let how = match evidence.transport {
        Some(TransportKind::Responder { port }) => format!("dualperf responder, UDP {port}"),
        Some(TransportKind::Echo) => "ICMP echo".into(),
        None => "no probe transport".into(),
    };
    let mut parts = vec![mtu(&verdict.mtu)];
    if !verdict.fragments.is_empty() {
        let sizes: Vec<String> = verdict
            .fragments
            .iter()
            .map(|f| delivery(&format!("fragments of {} B", f.size), &f.delivery))
            .collect();
        parts.push(sizes.join(", "));
    }
    if !verdict.ext_headers.is_empty() {
        let headers: Vec<String> = verdict
            .ext_headers
            .iter()
            .map(|e| delivery(&format!("EH {}", e.header.label()), &e.delivery))
            .collect();
        parts.push(headers.join(", "));
    }
    parts.push(tcp(&verdict.tcp));
    let mut lines = vec![format!(
        "{} {} ({how}): {}",
        family_name(verdict.family),
        verdict.target,
        parts.join("; ")
    )];
    if let Some(route) = &evidence.route {
        let hops: Vec<String> = route
            .hops
            .iter()
            .map(|h| match h.answered_by {
                Some(address) => format!("{} {address}", h.hop_limit),
                None => format!("{} *", h.hop_limit),
            })
            .collect();
        lines.push(format!("  route: {}", hops.join("  ")));
    }
    if !verdict.rate_limited_hops.is_empty() {
        lines.push(format!(
            "  ICMP errors rate-limited at hop(s) {:?}: they answered only after a pause",
            verdict.rate_limited_hops
        ));
    }
    lines.push(format!(
        "  {} probes sent{}",
        evidence.probes_sent,
        match evidence.stopped {
            Some(reason) => format!(", stopped early: budget exhausted ({reason:?})"),
            None => String::new(),
        }
    ));
    for untested in &verdict.untested {
        lines.push(format!(
            "  not tested: {}: {}",
            untested.test, untested.reason
        ));
    }
    lines
}

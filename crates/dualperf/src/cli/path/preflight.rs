//! Before `run` (and so `lab`, whose measuring child is a `run`) sends UDP
//! datagrams larger than the IPv6 minimum MTU, it measures each arm's path
//! MTU with the `dualperf serve` responder (a short, bounded
//! packetization-layer search) and says which sizes cross it: those
//! datagrams are fragmented — or, over a black hole, lost.

use std::net::IpAddr;

use dualperf_model::{IpFamily, RunConfig};
use dualperf_path::bounds::Budget;
use dualperf_path::evidence::FamilyEvidence;
use dualperf_path::probe::mtu;
use dualperf_path::transport::{ip_header_bytes, Outcome, Probe, Prober};
use dualperf_path::verdict::MtuVerdict;
use dualperf_path::{judge, Bounds};

/// Datagrams up to this size fit every IPv6 path (RFC 8200 §5), bytes.
const ALWAYS_FITS: u32 = 1280;

/// The preflight's bounds: quick, a few dozen probes per arm.
fn bounds() -> Bounds {
    Bounds {
        packets_per_second: 200,
        max_probes: 60,
        max_hops: 16,
        max_time_ms: 5_000,
        wait_ms: 200,
    }
}

/// The notes for `config`: one line per arm whose UDP sizes cross its path
/// MTU (or whose path MTU could not be measured while they might).
pub(crate) fn notes(config: &RunConfig) -> Vec<String> {
    let mut notes = Vec::new();
    for arm in &config.arms {
        let Some(target) = arm
            .target
            .as_deref()
            .and_then(|t| t.trim_matches(['[', ']']).parse::<IpAddr>().ok())
        else {
            continue;
        };
        if target.is_loopback() {
            continue;
        }
        let headers = ip_header_bytes(arm.family) + 8;
        let mut sizes: Vec<u32> = config
            .points
            .iter()
            .filter(|p| p.kind.is_udp())
            .map(|p| p.size_bytes + headers)
            .filter(|&packet| packet > ALWAYS_FITS)
            .collect();
        sizes.sort_unstable();
        sizes.dedup();
        let Some(&largest) = sizes.last() else {
            continue;
        };
        let verdict = measure(target, config.port, largest);
        let crossing: Vec<String> = match &verdict {
            MtuVerdict::Clean { mtu, .. }
            | MtuVerdict::Announced { mtu, .. }
            | MtuVerdict::KnownLocally { mtu, .. }
            | MtuVerdict::BlackHole { mtu, .. } => sizes
                .iter()
                .filter(|&&s| s > *mtu)
                .map(|s| format!("{} B", s - headers))
                .collect(),
            _ => Vec::new(),
        };
        let line = match &verdict {
            MtuVerdict::BlackHole { mtu, lost_from, .. } => Some(format!(
                "{}: PATH MTU BLACK HOLE: packets of {lost_from} B and more are lost without Packet Too Big (path MTU {mtu}); UDP sizes {} will be lost",
                arm.label,
                crossing.join(", ")
            )),
            MtuVerdict::Announced { mtu, .. }
            | MtuVerdict::Clean { mtu, .. }
            | MtuVerdict::KnownLocally { mtu, .. }
                if !crossing.is_empty() =>
            {
                Some(format!(
                    "{}: path MTU {mtu}; UDP sizes {} cross it and are sent fragmented",
                    arm.label,
                    crossing.join(", ")
                ))
            }
            _ => None,
        };
        notes.extend(line);
    }
    notes
}

/// The path MTU verdict towards `target`, searched up to `ceiling`.
fn measure(target: IpAddr, port: u16, ceiling: u32) -> MtuVerdict {
    let family = match target {
        IpAddr::V4(_) => IpFamily::V4,
        IpAddr::V6(_) => IpFamily::V6,
    };
    let Ok(mut prober) = Prober::responder(target, port, Budget::new(bounds())) else {
        return MtuVerdict::NotTested;
    };
    let small = Probe::sized(prober.smallest(None));
    if !matches!(prober.send(&small), Ok(Outcome::Delivered { .. })) {
        return MtuVerdict::NotTested;
    }
    let mut evidence = FamilyEvidence::new(family, target);
    evidence.transport = Some(prober.kind());
    evidence.reachable = true;
    evidence.mtu = mtu::search(&mut prober, small.size, ceiling, &mut evidence.icmp).ok();
    judge(&evidence).mtu
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::{Arm, TestKind, TestSpec};

    fn config(target: &str, kind: TestKind, size: u32) -> RunConfig {
        let arm = Arm::native(IpFamily::V6, Some(target.into()));
        RunConfig {
            loads: Vec::new(),
            points: vec![TestSpec::new(kind, size)],
            baseline: arm.id.clone(),
            arms: vec![arm],
            repeat: 1,
            order: Default::default(),
            host: None,
            port: 9,
            client_cpus: Vec::new(),
            server_cpus: Vec::new(),
            command_line: Vec::new(),
            peer: dualperf_model::PeerKind::Dualperf,
            contrasts: Vec::new(),
            goal: None,
        }
    }

    #[test]
    fn nothing_is_probed_for_loopback_tcp_or_sizes_every_path_carries() {
        // each of these returns before a socket is opened; a probe to the
        // documentation prefix would be a bug, and would print a note
        assert!(notes(&config("::1", TestKind::UdpStream, 4096)).is_empty());
        assert!(notes(&config("2001:db8::1", TestKind::TcpStream, 131_072)).is_empty());
        assert!(notes(&config("2001:db8::1", TestKind::UdpStream, 1232)).is_empty());
    }
}

//! One family's probe run, step by step, each step bounded by the
//! family's [`Budget`]:
//!
//! 1. **transport**: a small probe to the `dualperf serve` responder; if
//!    nothing answers, ICMP echo (needs CAP_NET_RAW);
//! 2. **route**: a hop-limit sweep with small probes;
//! 3. **path MTU** ([`mtu::search`]), collecting every Packet Too Big;
//! 4. **black hole**: large probes lost without a Packet Too Big — a sweep
//!    with the smallest lost size finds the last hop they reach;
//! 5. **fragments** and (IPv6) **extension headers** ([`features`]);
//! 6. **TCP**: the MSS of a connection ([`tcp::view`]).

pub mod features;
pub mod mtu;
pub mod sweep;
pub mod tcp;

use std::net::IpAddr;
use std::time::Duration;

use dualperf_model::IpFamily;

use crate::bounds::{Bounds, Budget, Exhausted};
use crate::error::PathError;
use crate::evidence::FamilyEvidence;
use crate::exthdr::ExtHeader;
use crate::icmp::IcmpKind;
use crate::transport::{Outcome, Probe, Prober, TransportKind};

/// Which transport to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TransportChoice {
    /// The responder if it answers, else ICMP echo.
    Auto,
    /// Only the `dualperf serve` responder.
    Responder,
    /// Only ICMP echo.
    Echo,
}

/// What to probe and within which bounds.
#[derive(Clone, Debug)]
pub struct Options {
    /// Limits per family.
    pub bounds: Bounds,
    /// UDP port of the responder (the `dualperf serve` port).
    pub port: u16,
    /// TCP port for the MSS check; `None`: skip it.
    pub tcp_port: Option<u16>,
    /// Which transport.
    pub transport: TransportChoice,
    /// The largest size the MTU search tries, bytes.
    pub ceiling: u32,
    /// Datagram sizes of the fragment test, bytes.
    pub fragment_sizes: Vec<u32>,
    /// Extension headers to try (IPv6).
    pub ext_headers: Vec<ExtHeader>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            bounds: Bounds::default(),
            port: 5180,
            tcp_port: Some(5180),
            transport: TransportChoice::Auto,
            ceiling: 9_000,
            fragment_sizes: vec![2_000, 4_000],
            ext_headers: crate::exthdr::default_set(),
        }
    }
}

/// Tries of the first, small probe.
const HELLO_TRIES: u32 = 3;

/// Probes `target` and returns everything seen.
pub fn probe_family(target: IpAddr, options: &Options) -> FamilyEvidence {
    let family = match target {
        IpAddr::V4(_) => IpFamily::V4,
        IpAddr::V6(_) => IpFamily::V6,
    };
    let mut evidence = FamilyEvidence::new(family, target);
    let budget = Budget::new(options.bounds.clone());
    let prober = match connect(target, options, budget, &mut evidence) {
        Ok(Some(prober)) => prober,
        Ok(None) => {
            tcp_step(target, options, &mut evidence);
            return evidence;
        }
        Err(exhausted) => {
            evidence.stopped = Some(exhausted);
            return evidence;
        }
    };
    let mut prober = prober;
    if let Err(exhausted) = steps(&mut prober, options, &mut evidence) {
        evidence.stopped = Some(exhausted);
        evidence.skip(
            "the remaining steps",
            format!("the probe budget ran out ({exhausted:?})"),
        );
    }
    evidence.probes_sent = prober.sent();
    tcp_step(target, options, &mut evidence);
    evidence
}

/// Finds a transport that answers a small probe.
fn connect(
    target: IpAddr,
    options: &Options,
    budget: Budget,
    evidence: &mut FamilyEvidence,
) -> Result<Option<Prober>, Exhausted> {
    let mut budget = Some(budget);
    if options.transport != TransportChoice::Echo {
        if let Some(taken) = budget.take() {
            match Prober::responder(target, options.port, taken) {
                Ok(mut prober) => {
                    if hello(&mut prober)? {
                        return Ok(Some(found(prober, evidence)));
                    }
                    evidence.skip(
                        "packetization-layer probes (UDP)",
                        format!(
                            "no dualperf responder answered on UDP port {}",
                            options.port
                        ),
                    );
                    evidence.probes_sent = prober.sent();
                    evidence.unanswered.push(prober.kind());
                    budget = Some(prober.into_budget());
                }
                Err(e) => evidence.skip("packetization-layer probes (UDP)", e.to_string()),
            }
        }
    }
    if options.transport != TransportChoice::Responder {
        let budget = budget.unwrap_or_else(|| Budget::new(options.bounds.clone()));
        match Prober::echo(target, budget) {
            Ok(mut prober) => {
                if hello(&mut prober)? {
                    return Ok(Some(found(prober, evidence)));
                }
                evidence.probes_sent = prober.sent();
                evidence.skip("ICMP echo", "no echo reply to small requests");
                evidence.unanswered.push(prober.kind());
            }
            Err(e) => {
                evidence.lacks_privilege |= matches!(e, PathError::Privilege { .. });
                evidence.skip("ICMP echo", e.to_string());
            }
        }
    }
    Ok(None)
}

fn found(prober: Prober, evidence: &mut FamilyEvidence) -> Prober {
    evidence.transport = Some(prober.kind());
    evidence.reachable = true;
    prober
}

/// A small probe answered (up to [`HELLO_TRIES`] tries)?
fn hello(prober: &mut Prober) -> Result<bool, Exhausted> {
    let probe = Probe::sized(prober.smallest(None));
    for _ in 0..HELLO_TRIES {
        if let Outcome::Delivered { .. } = prober.send(&probe)? {
            return Ok(true);
        }
    }
    Ok(false)
}

fn steps(
    prober: &mut Prober,
    options: &Options,
    evidence: &mut FamilyEvidence,
) -> Result<(), Exhausted> {
    let max_hops = prober.bounds().max_hops;
    let small = Probe::sized(prober.smallest(None));
    let route = sweep::sweep(prober, small, max_hops, None)?;
    let destination_hop = route
        .hops
        .iter()
        .find(|h| h.destination)
        .map(|h| h.hop_limit);
    evidence.route = Some(route);

    let search = mtu::search(prober, small.size, options.ceiling, &mut evidence.icmp)?;
    let announced = search.probes.iter().any(|record| {
        matches!(
            record.outcome,
            Outcome::Icmp(report) if matches!(report.kind, IcmpKind::PacketTooBig { .. })
        )
    });
    let lost = search.smallest_lost.filter(|_| !announced);
    let path_mtu = search.largest_delivered;
    evidence.mtu = Some(search);
    if let Some(size) = lost {
        evidence.large_sweep = Some(sweep::sweep(
            prober,
            Probe::sized(size),
            max_hops,
            destination_hop,
        )?);
    }

    let fragment_bytes = match prober.family() {
        IpFamily::V4 => 0,
        IpFamily::V6 => path_mtu.unwrap_or(1280).max(1280),
    };
    features::fragments(
        prober,
        &options.fragment_sizes,
        fragment_bytes,
        destination_hop,
        evidence,
    )?;

    if prober.family() == IpFamily::V6 && !options.ext_headers.is_empty() {
        if can_send_options_headers() {
            features::ext_headers(prober, &options.ext_headers, destination_hop, evidence)?;
        } else {
            evidence.lacks_privilege = true;
            evidence.skip(
                "extension headers",
                "setting IPV6_HOPOPTS / IPV6_DSTOPTS needs CAP_NET_RAW (run as root)",
            );
        }
    }
    if prober.kind() == TransportKind::Echo {
        evidence.skip(
            "one-way path MTU",
            "ICMP echo replies are as large as the requests: a size that passes passed both ways, a lost one may have been lost on the way back",
        );
    }
    Ok(())
}

fn tcp_step(target: IpAddr, options: &Options, evidence: &mut FamilyEvidence) {
    match options.tcp_port {
        Some(port) => evidence.tcp = Some(tcp::view(target, port, Duration::from_secs(2))),
        None => evidence.skip("TCP MSS", "no TCP port given"),
    }
}

/// Whether this process may set IPv6 options headers (CAP_NET_RAW).
pub fn can_send_options_headers() -> bool {
    let Ok(socket) = socket2::Socket::new(socket2::Domain::IPV6, socket2::Type::DGRAM, None) else {
        return false;
    };
    let header = ExtHeader {
        kind: crate::exthdr::ExtKind::DestinationOptions,
        bytes: 8,
    };
    crate::sock::set_options_header(&socket, false, Some(&header.encode())).is_ok()
}

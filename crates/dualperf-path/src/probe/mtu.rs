//! The path MTU search: packetization-layer PMTU discovery in the manner
//! of RFC 8899 (datagram PLPMTUD): unfragmentable probes of chosen sizes,
//! each confirmed only by the far end's answer, searched by bisection
//! between a size known to pass and one known to fail. A size counts as
//! lost after [`MAX_PROBES`] tries (RFC 8899 §5.1.2), or at once when an
//! ICMP Packet Too Big names it too large; an announced MTU inside the
//! search range is tried next (classic PMTUD, RFC 8201, as a hint that
//! the search confirms).

use crate::bounds::Exhausted;
use crate::evidence::{MtuSearch, ProbeRecord};
use crate::icmp::{IcmpKind, IcmpReport};
use crate::transport::{Outcome, Probe, Prober};

/// Tries of one size before it counts as lost (RFC 8899 MAX_PROBES).
pub const MAX_PROBES: u32 = 3;

/// Whether a size passed, and the ICMP errors its tries drew.
struct Tried {
    delivered: bool,
    icmp: Vec<IcmpReport>,
}

fn try_size(
    prober: &mut Prober,
    size: u32,
    records: &mut Vec<ProbeRecord>,
) -> Result<Tried, Exhausted> {
    let mut icmp = Vec::new();
    for _ in 0..MAX_PROBES {
        let probe = Probe::sized(size);
        let outcome = prober.send(&probe)?;
        records.push(ProbeRecord { probe, outcome });
        match outcome {
            Outcome::Delivered { .. } => {
                return Ok(Tried {
                    delivered: true,
                    icmp,
                })
            }
            Outcome::Icmp(report) => {
                icmp.push(report);
                if matches!(
                    report.kind,
                    IcmpKind::PacketTooBig { .. } | IcmpKind::LocalTooBig { .. }
                ) {
                    break;
                }
            }
            Outcome::Lost => {}
        }
    }
    Ok(Tried {
        delivered: false,
        icmp,
    })
}

/// Searches the largest unfragmentable size that reaches the far end,
/// between `smallest` (known to pass) and the local MTU (capped at
/// `ceiling`). ICMP errors drawn go into `icmp`.
///
/// # Errors
/// [`Exhausted`] when the budget runs out (the search so far is lost).
pub fn search(
    prober: &mut Prober,
    smallest: u32,
    ceiling: u32,
    icmp: &mut Vec<(Probe, IcmpReport)>,
) -> Result<MtuSearch, Exhausted> {
    // no local limit below 64 KiB (loopback): the ceiling is the limit
    let local = prober.local_mtu().unwrap_or(u32::MAX);
    let mut search = MtuSearch {
        local_mtu: local.min(ceiling),
        capped: local > ceiling,
        route_mtu: prober.route_mtu(),
        largest_delivered: Some(smallest),
        smallest_lost: None,
        probes: Vec::new(),
    };
    let mut low = smallest;
    let mut high = search.local_mtu;
    let mut next = high;
    loop {
        let tried = try_size(prober, next, &mut search.probes)?;
        let mut hint = None;
        for report in &tried.icmp {
            icmp.push((Probe::sized(next), *report));
            if let IcmpKind::PacketTooBig { mtu } = report.kind {
                hint = Some(mtu);
            }
        }
        if tried.delivered {
            low = next;
            search.largest_delivered = Some(next);
        } else {
            high = next;
            search.smallest_lost = Some(next);
        }
        if high <= low + 1 {
            break;
        }
        next = match hint {
            Some(mtu) if mtu > low && mtu < high => mtu,
            _ => low + (high - low) / 2,
        };
    }
    Ok(search)
}

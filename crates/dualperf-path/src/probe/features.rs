//! Fragments and extension headers: does the far end get a datagram the
//! source fragmented (IPv4 with DF clear; IPv6 with a Fragment header,
//! RFC 8200 §4.5), and a probe carrying a Hop-by-Hop or Destination
//! Options header (RFC 7872)? Where one is lost while plain probes pass, a
//! hop-limit sweep with it finds the last hop it reaches.

use crate::bounds::Exhausted;
use crate::evidence::{ExtHeaderTrial, FamilyEvidence, FragmentTrial};
use crate::exthdr::ExtHeader;
use crate::probe::sweep::sweep;
use crate::transport::{Outcome, Probe, Prober, TransportKind};

/// Tries of each fragment or extension-header probe.
const TRIES: u32 = 2;

fn try_probe(
    prober: &mut Prober,
    probe: Probe,
    evidence: &mut FamilyEvidence,
) -> Result<Outcome, Exhausted> {
    let mut last = Outcome::Lost;
    for _ in 0..TRIES {
        last = prober.send(&probe)?;
        match last {
            Outcome::Delivered { .. } => return Ok(last),
            Outcome::Icmp(report) => {
                evidence.icmp.push((probe, report));
                return Ok(last);
            }
            Outcome::Lost => {}
        }
    }
    Ok(last)
}

/// Sends a fragmented datagram of each size in `sizes`; IPv6 fragments are
/// at most `fragment_bytes` (the measured path MTU) so that only the
/// Fragment header, not their size, can make them fail.
///
/// # Errors
/// [`Exhausted`].
pub fn fragments(
    prober: &mut Prober,
    sizes: &[u32],
    fragment_bytes: u32,
    stop_after: Option<u8>,
    evidence: &mut FamilyEvidence,
) -> Result<(), Exhausted> {
    let max_hops = prober.bounds().max_hops;
    let mut lost = None;
    for &size in sizes {
        let probe = Probe {
            fragment_bytes: Some(fragment_bytes),
            ..Probe::sized(size)
        };
        let outcome = try_probe(prober, probe, evidence)?;
        let (delivered, received) = match outcome {
            Outcome::Delivered { received, .. } => (true, Some(received)),
            _ => (false, None),
        };
        if !delivered && lost.is_none() {
            lost = Some(probe);
        }
        evidence.fragments.push(FragmentTrial {
            size,
            fragment_bytes,
            delivered,
            received,
        });
    }
    if let Some(probe) = lost {
        evidence.fragment_sweep = Some(sweep(prober, probe, max_hops, stop_after)?);
    }
    Ok(())
}

/// Sends a small probe with each header of `headers`.
///
/// # Errors
/// [`Exhausted`].
pub fn ext_headers(
    prober: &mut Prober,
    headers: &[ExtHeader],
    stop_after: Option<u8>,
    evidence: &mut FamilyEvidence,
) -> Result<(), Exhausted> {
    let max_hops = prober.bounds().max_hops;
    for &header in headers {
        if header.kind == crate::exthdr::ExtKind::Fragment && prober.kind() == TransportKind::Echo {
            evidence.skip(
                "a Fragment header on a small packet",
                "sent only to a dualperf responder (the packet is built whole, as UDP)",
            );
            continue;
        }
        let probe = Probe {
            ext: Some(header),
            ..Probe::sized(prober.smallest(Some(header)))
        };
        let outcome = try_probe(prober, probe, evidence)?;
        let (delivered, icmp) = match outcome {
            Outcome::Delivered { .. } => (true, None),
            Outcome::Icmp(report) => (false, Some(report)),
            Outcome::Lost => (false, None),
        };
        let swept = match delivered {
            true => None,
            false => Some(sweep(prober, probe, max_hops, stop_after)?),
        };
        evidence.ext_headers.push(ExtHeaderTrial {
            header,
            size: probe.size,
            delivered,
            icmp,
            sweep: swept,
        });
    }
    Ok(())
}

//! Hop-limit sweeps (traceroute-style): the same probe sent with hop limit
//! 1, 2, … until the target answers. Each router where the hop limit runs
//! out answers with Time Exceeded, read from the error queue with its
//! address (`SO_EE_OFFENDER`), so the last hop that answers is the last
//! one the probe reached.
//!
//! Linux routers check the hop limit before their forwarding filters, so
//! a router that drops a packet in its forward path still answers for the
//! hop limit that ends at it: a packet "disappears after hop k" when hop k
//! answers and nothing beyond does.

use std::time::Duration;

use crate::bounds::Exhausted;
use crate::evidence::{Sweep, SweepHop};
use crate::icmp::IcmpKind;
use crate::transport::{Outcome, Probe, Prober};

/// The pause before asking a silent hop again: Linux refills a router's
/// ICMP error token bucket (per destination) at one per second
/// (`net.ipv4.icmp_ratelimit`, `net.ipv6.icmp.ratelimit`, 1000 ms).
pub const RATE_LIMIT_PAUSE: Duration = Duration::from_millis(1_050);

/// Sweeps `probe` from hop 1 to `max_hops`; stops at the target, after
/// `stop_after` (the target's hop, when a route sweep found it), or after
/// two silent hops in a row.
///
/// # Errors
/// [`Exhausted`] when the budget runs out.
pub fn sweep(
    prober: &mut Prober,
    probe: Probe,
    max_hops: u8,
    stop_after: Option<u8>,
) -> Result<Sweep, Exhausted> {
    let mut hops = Vec::new();
    let mut silent_in_a_row = 0;
    for hop_limit in 1..=max_hops {
        let shaped = Probe {
            hop_limit: Some(hop_limit),
            ..probe
        };
        let mut hop = answer(prober, &shaped, hop_limit)?;
        if hop.answered_by.is_none() && !hop.destination {
            std::thread::sleep(RATE_LIMIT_PAUSE);
            let again = answer(prober, &shaped, hop_limit)?;
            if again.answered_by.is_some() || again.destination {
                hop = SweepHop {
                    rate_limited: true,
                    ..again
                };
            }
        }
        let silent = hop.answered_by.is_none() && !hop.destination;
        let destination = hop.destination;
        hops.push(hop);
        silent_in_a_row = if silent { silent_in_a_row + 1 } else { 0 };
        if destination || silent_in_a_row >= 2 || stop_after.is_some_and(|last| hop_limit >= last) {
            break;
        }
    }
    Ok(Sweep { probe, hops })
}

fn answer(prober: &mut Prober, probe: &Probe, hop_limit: u8) -> Result<SweepHop, Exhausted> {
    let target = prober.target();
    let (answered_by, destination) = match prober.send(probe)? {
        Outcome::Delivered { .. } => (Some(target), true),
        Outcome::Icmp(report) => match report.kind {
            IcmpKind::TimeExceeded { .. } | IcmpKind::PacketTooBig { .. } => {
                (report.offender, report.offender == Some(target))
            }
            IcmpKind::LocalTooBig { .. } => (None, false),
            _ => (report.offender, report.offender == Some(target)),
        },
        Outcome::Lost => (None, false),
    };
    Ok(SweepHop {
        hop_limit,
        answered_by,
        destination,
        rate_limited: false,
    })
}

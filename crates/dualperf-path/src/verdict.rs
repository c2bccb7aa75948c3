//! Verdicts from evidence: pure, no I/O. Each is defined in
//! docs/metrics.md ("Path probes").
//!
//! | verdict | when |
//! |---|---|
//! | [`MtuVerdict::Clean`] | a probe of the local link's MTU got through |
//! | [`MtuVerdict::Announced`] | larger probes lost and a Packet Too Big / Fragmentation Needed arrived: classic PMTUD works |
//! | [`MtuVerdict::KnownLocally`] | larger probes lost, no Packet Too Big, but this host's route already holds sockets to the size that passes (a tunnel starting here) |
//! | [`MtuVerdict::BlackHole`] | larger probes lost, small ones delivered, no Packet Too Big: a PMTUD black hole |
//! | [`MtuVerdict::Unreachable`] | even small probes were lost |
//! | [`Delivery::Dropped`] | a fragmented or extension-header probe lost while plain probes pass; `after_hop` is the last hop it reached |

use std::net::IpAddr;

use dualperf_model::IpFamily;
use serde::{Deserialize, Serialize};

use crate::evidence::{FamilyEvidence, Sweep, Untested};
use crate::exthdr::ExtHeader;
use crate::icmp::IcmpKind;
use crate::transport::{ip_header_bytes, Outcome, TransportKind};

/// What a common smaller MTU usually means (a hint, not a proof).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MtuHint {
    /// 1480 = 1500 − 20: IPv6 in IPv4 (6in4, RFC 4213) or IPv4 in IPv4.
    IpInIp,
    /// 1476 = 1500 − 24: GRE over IPv4.
    Gre,
    /// 1492 = 1500 − 8: PPPoE.
    Pppoe,
    /// 1280: the IPv6 minimum (RFC 8200 §5).
    Ipv6Minimum,
}

impl MtuHint {
    /// The usual cause of `mtu`, if it is a well-known one.
    pub fn of(mtu: u32) -> Option<MtuHint> {
        match mtu {
            1480 => Some(MtuHint::IpInIp),
            1476 => Some(MtuHint::Gre),
            1492 => Some(MtuHint::Pppoe),
            1280 => Some(MtuHint::Ipv6Minimum),
            _ => None,
        }
    }
}

/// The path MTU verdict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "verdict")]
pub enum MtuVerdict {
    /// Not measured (no transport, or the budget ran out first).
    NotTested,
    /// Even small probes were lost.
    Unreachable,
    /// The path carries what the local link carries.
    Clean {
        /// Path MTU = local MTU, bytes.
        mtu: u32,
        /// True when the search stopped at its ceiling (the path may carry more).
        capped: bool,
    },
    /// A smaller MTU, announced by ICMP (classic PMTUD works).
    Announced {
        /// Largest size delivered (the path MTU), bytes.
        mtu: u32,
        /// The MTU the Packet Too Big announced, bytes.
        announced: u32,
        /// Who sent it.
        by: Option<IpAddr>,
        /// Its hop on the route.
        hop: Option<u8>,
        /// The usual cause of this MTU.
        hint: Option<MtuHint>,
    },
    /// A smaller MTU this host already holds its sockets to (its route's
    /// MTU: a tunnel that starts here, or a path MTU it learned before):
    /// ordinary sockets never send larger, so nothing is lost.
    KnownLocally {
        /// Largest size delivered = the route's MTU, bytes.
        mtu: u32,
        /// The usual cause of this MTU.
        hint: Option<MtuHint>,
    },
    /// A smaller MTU and no ICMP about it: large packets vanish.
    BlackHole {
        /// Largest size delivered (the path MTU), bytes.
        mtu: u32,
        /// Smallest size lost, bytes.
        lost_from: u32,
        /// The last hop large probes reached (they vanish after it).
        after_hop: Option<u8>,
        /// That hop's address.
        last_reached: Option<IpAddr>,
        /// The usual cause of this MTU.
        hint: Option<MtuHint>,
    },
}

/// Delivered or dropped, and where.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "delivery")]
pub enum Delivery {
    /// The far end got it.
    Delivered,
    /// Lost (or refused with an ICMP error) while plain probes pass.
    Dropped {
        /// The last hop it reached (a hop-limit sweep); `None` when not even hop 1 answered.
        after_hop: Option<u8>,
        /// That hop's address.
        last_reached: Option<IpAddr>,
        /// The ICMP error it drew, if any (e.g. Parameter Problem).
        icmp: Option<IcmpKind>,
    },
}

/// One fragment size's verdict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FragmentVerdict {
    /// Datagram size, bytes.
    pub size: u32,
    /// Delivered or where dropped.
    #[serde(flatten)]
    pub delivery: Delivery,
}

/// One extension header's verdict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExtHeaderVerdict {
    /// The header.
    pub header: ExtHeader,
    /// Delivered or where dropped.
    #[serde(flatten)]
    pub delivery: Delivery,
}

/// TCP's view against the measured path MTU.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "verdict")]
pub enum TcpVerdict {
    /// No connection, or no port.
    NotTested {
        /// Why.
        reason: String,
    },
    /// The MSS of a connection.
    Mss {
        /// The MSS, bytes.
        mss: u32,
        /// MSS + IP and TCP headers fit the measured path MTU (`None`: no path MTU).
        fits: Option<bool>,
        /// The MSS does not fit and no Packet Too Big arrives: bulk
        /// transfers would stall (inferred, not sent).
        would_stall: bool,
        /// A one-second bulk transfer to `dualperf serve` stalled (fewer
        /// than 64 KiB arrived, or it failed); `None`: not measured.
        bulk_stalled: Option<bool>,
    },
}

/// Every verdict of one family.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FamilyVerdicts {
    /// The family.
    pub family: IpFamily,
    /// The address probed.
    pub target: IpAddr,
    /// Path MTU.
    pub mtu: MtuVerdict,
    /// Fragments, per size.
    pub fragments: Vec<FragmentVerdict>,
    /// Extension headers (IPv6).
    pub ext_headers: Vec<ExtHeaderVerdict>,
    /// TCP.
    pub tcp: TcpVerdict,
    /// Hops whose ICMP errors came only after a pause (rate limited).
    pub rate_limited_hops: Vec<u8>,
    /// What was not tested, and why.
    pub untested: Vec<Untested>,
}

impl FamilyVerdicts {
    /// True when any verdict is a fault (black hole, unreachable, a drop,
    /// a TCP MSS that would stall).
    pub fn has_fault(&self) -> bool {
        let dropped = |d: &Delivery| matches!(d, Delivery::Dropped { .. });
        matches!(
            self.mtu,
            MtuVerdict::BlackHole { .. } | MtuVerdict::Unreachable
        ) || self.fragments.iter().any(|f| dropped(&f.delivery))
            || self.ext_headers.iter().any(|e| dropped(&e.delivery))
            || matches!(
                self.tcp,
                TcpVerdict::Mss {
                    would_stall: true,
                    ..
                }
            )
            || matches!(
                self.tcp,
                TcpVerdict::Mss {
                    bulk_stalled: Some(true),
                    ..
                }
            )
    }
}

/// The last hop a sweep reached that is not the target.
fn last_reached(sweep: Option<&Sweep>) -> (Option<u8>, Option<IpAddr>) {
    match sweep.and_then(Sweep::last_answering) {
        Some(hop) if !hop.destination => (Some(hop.hop_limit), hop.answered_by),
        _ => (None, None),
    }
}

/// Draws every verdict from one family's evidence.
pub fn judge(evidence: &FamilyEvidence) -> FamilyVerdicts {
    let mtu = mtu_verdict(evidence);
    let fragment_drop = || {
        let (after_hop, last) = last_reached(evidence.fragment_sweep.as_ref());
        Delivery::Dropped {
            after_hop,
            last_reached: last,
            icmp: None,
        }
    };
    let fragments = evidence
        .fragments
        .iter()
        .map(|trial| FragmentVerdict {
            size: trial.size,
            delivery: if trial.delivered {
                Delivery::Delivered
            } else {
                fragment_drop()
            },
        })
        .collect();
    let ext_headers = evidence
        .ext_headers
        .iter()
        .map(|trial| ExtHeaderVerdict {
            header: trial.header,
            delivery: if trial.delivered {
                Delivery::Delivered
            } else {
                let (after_hop, last) = last_reached(trial.sweep.as_ref());
                Delivery::Dropped {
                    after_hop,
                    last_reached: last,
                    icmp: trial.icmp.map(|r| r.kind),
                }
            },
        })
        .collect();
    let mut rate_limited_hops: Vec<u8> = [
        &evidence.route,
        &evidence.large_sweep,
        &evidence.fragment_sweep,
    ]
    .into_iter()
    .flatten()
    .chain(evidence.ext_headers.iter().filter_map(|t| t.sweep.as_ref()))
    .flat_map(|s| {
        s.hops
            .iter()
            .filter(|h| h.rate_limited)
            .map(|h| h.hop_limit)
    })
    .collect();
    rate_limited_hops.sort_unstable();
    rate_limited_hops.dedup();
    FamilyVerdicts {
        family: evidence.family,
        target: evidence.target,
        tcp: tcp_verdict(evidence, &mtu),
        mtu,
        fragments,
        ext_headers,
        rate_limited_hops,
        untested: evidence.untested.clone(),
    }
}

fn mtu_verdict(evidence: &FamilyEvidence) -> MtuVerdict {
    if evidence.transport.is_none() {
        // ICMP echo is the probe every host should answer
        return if evidence.unanswered.contains(&TransportKind::Echo) {
            MtuVerdict::Unreachable
        } else {
            MtuVerdict::NotTested
        };
    }
    let Some(search) = &evidence.mtu else {
        return MtuVerdict::NotTested;
    };
    let mtu = search.largest_delivered.unwrap_or(0);
    let Some(lost_from) = search.smallest_lost else {
        return MtuVerdict::Clean {
            mtu,
            capped: search.capped,
        };
    };
    let ptb = search
        .probes
        .iter()
        .find_map(|record| match record.outcome {
            Outcome::Icmp(report) => match report.kind {
                IcmpKind::PacketTooBig { mtu } => Some((mtu, report.offender)),
                _ => None,
            },
            _ => None,
        });
    match ptb {
        Some((announced, by)) => MtuVerdict::Announced {
            mtu,
            announced,
            by,
            hop: by.and_then(|address| evidence.hop_of(address)),
            hint: MtuHint::of(mtu),
        },
        None if search.route_mtu == Some(mtu) => MtuVerdict::KnownLocally {
            mtu,
            hint: MtuHint::of(mtu),
        },
        None => {
            let (after_hop, last) = last_reached(evidence.large_sweep.as_ref());
            MtuVerdict::BlackHole {
                mtu,
                lost_from,
                after_hop,
                last_reached: last,
                hint: MtuHint::of(mtu),
            }
        }
    }
}

fn tcp_verdict(evidence: &FamilyEvidence, mtu: &MtuVerdict) -> TcpVerdict {
    let Some(view) = &evidence.tcp else {
        return TcpVerdict::NotTested {
            reason: "no TCP port".into(),
        };
    };
    let Some(mss) = view.mss else {
        return TcpVerdict::NotTested {
            reason: view.error.clone().unwrap_or_else(|| "no connection".into()),
        };
    };
    let headers = ip_header_bytes(evidence.family) + 20;
    let (path_mtu, announced) = match mtu {
        MtuVerdict::Clean { mtu, capped: false } => (Some(*mtu), true),
        MtuVerdict::Announced { mtu, .. } | MtuVerdict::KnownLocally { mtu, .. } => {
            (Some(*mtu), true)
        }
        MtuVerdict::BlackHole { mtu, .. } => (Some(*mtu), false),
        _ => (None, true),
    };
    let fits = path_mtu.map(|path| mss + headers <= path);
    TcpVerdict::Mss {
        mss,
        fits,
        would_stall: fits == Some(false) && !announced,
        bulk_stalled: view
            .bulk
            .as_ref()
            .map(crate::evidence::BulkTransfer::stalled),
    }
}

#[cfg(test)]
mod tests;

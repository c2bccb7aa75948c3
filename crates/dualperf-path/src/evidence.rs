//! What was sent and what came back: the full record of a probe run,
//! serialisable (`dualperf path --json`), from which [`crate::verdict`]
//! draws its conclusions. Sizes are IP packet sizes in bytes (headers
//! included) unless a field says otherwise.

use std::net::IpAddr;

use dualperf_model::IpFamily;
use serde::{Deserialize, Serialize};

use crate::bounds::{Bounds, Exhausted};
use crate::exthdr::ExtHeader;
use crate::icmp::IcmpReport;
use crate::transport::{Outcome, Probe, TransportKind};

/// Every family's evidence of one `dualperf path` run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PathEvidence {
    /// The limits every family ran under.
    pub bounds: Bounds,
    /// One entry per family probed.
    pub families: Vec<FamilyEvidence>,
}

/// One probe and its outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProbeRecord {
    /// What was sent.
    pub probe: Probe,
    /// What came back.
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// One hop of a hop-limit sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SweepHop {
    /// The hop limit (TTL) sent.
    pub hop_limit: u8,
    /// Who answered: the router that sent Time Exceeded, or the target.
    pub answered_by: Option<IpAddr>,
    /// True when the target itself answered (the sweep ends here).
    pub destination: bool,
    /// True when the hop stayed silent at first and answered only on a
    /// retry after a pause: ICMP error rate limiting at that router.
    pub rate_limited: bool,
}

/// A hop-limit sweep with one kind of probe.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sweep {
    /// The probe swept (its hop limit varies).
    pub probe: Probe,
    /// Hop 1, 2, … in order.
    pub hops: Vec<SweepHop>,
}

impl Sweep {
    /// The highest hop limit at which something answered.
    pub fn last_answering(&self) -> Option<&SweepHop> {
        self.hops.iter().rev().find(|h| h.answered_by.is_some())
    }

    /// True when the target answered.
    pub fn reached(&self) -> bool {
        self.hops.iter().any(|h| h.destination)
    }
}

/// The path MTU search (RFC 8899 style: binary search with acknowledged,
/// unfragmentable probes).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MtuSearch {
    /// The largest size this host lets leave (the outgoing link's MTU,
    /// capped at the search's ceiling), bytes.
    pub local_mtu: u32,
    /// True when `local_mtu` is the search's ceiling, not the link's.
    pub capped: bool,
    /// The largest size delivered, bytes.
    pub largest_delivered: Option<u32>,
    /// The smallest size that never got through (after every retry), bytes.
    pub smallest_lost: Option<u32>,
    /// The MTU this host's route gives the target (`IP_MTU` / `IPV6_MTU`:
    /// e.g. a tunnel that starts here, or a path MTU already learned), bytes.
    #[serde(default)]
    pub route_mtu: Option<u32>,
    /// Every probe of the search, in order.
    pub probes: Vec<ProbeRecord>,
}

/// One fragmented probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FragmentTrial {
    /// Size of the whole datagram before fragmentation, bytes.
    pub size: u32,
    /// IPv6: the fragment size limit used (the measured path MTU), bytes.
    pub fragment_bytes: u32,
    /// True when the far end got the whole datagram.
    pub delivered: bool,
    /// Payload bytes the far end reported.
    pub received: Option<u32>,
}

/// One extension-header trial (IPv6).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExtHeaderTrial {
    /// The header carried.
    pub header: ExtHeader,
    /// Size of the probe, bytes.
    pub size: u32,
    /// True when the far end answered.
    pub delivered: bool,
    /// An ICMP error it drew (Parameter Problem, …).
    pub icmp: Option<IcmpReport>,
    /// The sweep that looked for the hop where it disappears (only when lost).
    pub sweep: Option<Sweep>,
}

/// Fewer bytes than this at the receiver in a bulk transfer of
/// [`BULK_SECONDS`]: the transfer stalled.
pub const BULK_STALL_BYTES: u64 = 65_536;
/// Length of the bulk transfer, seconds.
pub const BULK_SECONDS: u32 = 1;

/// A bulk TCP transfer to `dualperf serve` (a one-second `tcp-stream`
/// trial through the serve control protocol).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BulkTransfer {
    /// Bytes the server received in the measured interval (`None`: the trial failed).
    pub bytes_received: Option<u64>,
    /// Length of the measured interval, nanoseconds.
    pub measured_ns: u64,
    /// Why the trial failed, if it did.
    pub error: Option<String>,
}

impl BulkTransfer {
    /// True when fewer than [`BULK_STALL_BYTES`] arrived, or the trial failed.
    pub fn stalled(&self) -> bool {
        self.bytes_received
            .is_none_or(|bytes| bytes < BULK_STALL_BYTES)
    }
}

/// TCP's view: the MSS a connection settles on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TcpView {
    /// The TCP port tried.
    pub port: u16,
    /// The MSS after connect (`TCP_MAXSEG`), bytes; `None` when no
    /// connection was made.
    pub mss: Option<u32>,
    /// Why there is no connection, if there is none.
    pub error: Option<String>,
    /// A bulk transfer, against `dualperf serve` only.
    pub bulk: Option<BulkTransfer>,
}

/// A test that was not run, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Untested {
    /// The test.
    pub test: String,
    /// Why not.
    pub reason: String,
}

/// Everything probed for one family.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FamilyEvidence {
    /// The family.
    pub family: IpFamily,
    /// The address probed.
    pub target: IpAddr,
    /// How probes were answered; `None`: no transport worked.
    pub transport: Option<TransportKind>,
    /// Small unfragmentable probes got through.
    pub reachable: bool,
    /// The route: a sweep with small probes.
    pub route: Option<Sweep>,
    /// The path MTU search.
    pub mtu: Option<MtuSearch>,
    /// Every ICMP error any probe drew, with the probe that drew it.
    pub icmp: Vec<(Probe, IcmpReport)>,
    /// With large probes lost: the sweep at the smallest lost size.
    pub large_sweep: Option<Sweep>,
    /// Fragmented probes.
    pub fragments: Vec<FragmentTrial>,
    /// The sweep that looked for where fragments disappear (only when lost).
    pub fragment_sweep: Option<Sweep>,
    /// Extension-header probes (IPv6).
    pub ext_headers: Vec<ExtHeaderTrial>,
    /// TCP's view.
    pub tcp: Option<TcpView>,
    /// Transports that were tried and never answered a small probe.
    pub unanswered: Vec<TransportKind>,
    /// True when a step was skipped for lack of CAP_NET_RAW.
    pub lacks_privilege: bool,
    /// What could not be tested, and why.
    pub untested: Vec<Untested>,
    /// Probes sent (all kinds).
    pub probes_sent: u32,
    /// Set when the budget ran out before every test was done.
    pub stopped: Option<Exhausted>,
}

impl FamilyEvidence {
    /// An empty record for `target`.
    pub fn new(family: IpFamily, target: IpAddr) -> Self {
        FamilyEvidence {
            family,
            target,
            transport: None,
            reachable: false,
            route: None,
            mtu: None,
            icmp: Vec::new(),
            large_sweep: None,
            fragments: Vec::new(),
            fragment_sweep: None,
            ext_headers: Vec::new(),
            tcp: None,
            unanswered: Vec::new(),
            lacks_privilege: false,
            untested: Vec::new(),
            probes_sent: 0,
            stopped: None,
        }
    }

    /// Notes a test that was not run.
    pub fn skip(&mut self, test: &str, reason: impl Into<String>) {
        self.untested.push(Untested {
            test: test.to_string(),
            reason: reason.into(),
        });
    }

    /// The hop number of `address` on the route, if the route sweep saw it.
    pub fn hop_of(&self, address: IpAddr) -> Option<u8> {
        self.route
            .as_ref()?
            .hops
            .iter()
            .find(|h| h.answered_by == Some(address))
            .map(|h| h.hop_limit)
    }
}

//! The `[diffserv]` table of a topology as read and validated: which router
//! is the edge, which hosts are premium, the rates, shares and queues. The
//! kernel commands that build the domain are in [`crate::diffserv`].

use dualperf_model::{BitRate, Dscp};
use serde::Deserialize;

use crate::error::TopologyError;
use crate::topology::{Link, Role};

/// The `[diffserv]` table as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawDiffServ {
    /// The edge router that conditions, classifies and schedules.
    pub edge: String,
    /// The node across the core link from `edge`.
    pub core: String,
    /// Nodes whose EF is authorised (default: none).
    #[serde(default)]
    pub premium: Vec<String>,
    /// Rate of the access link the EF share is taken of (default "100Mbit").
    pub access_rate: Option<String>,
    /// Share of `access_rate` EF may use, 0..1 (default 0.10).
    pub ef_share: Option<f64>,
    /// Size of an EF packet at layer 3, bytes, for the packet-rate policer (default 1042).
    pub ef_packet_bytes: Option<u32>,
    /// Burst of the EF policer, packets (default 10).
    pub ef_burst_packets: Option<u32>,
    /// Rate of the htb root on the core link (default "100Mbit").
    pub core_rate: Option<String>,
    /// IPv6 flow label classified as EF too (optional).
    pub ef_flow_label: Option<u32>,
    /// DSCP of the lower-effort class (default 8, CS1, as in the paper).
    pub lbe_dscp: Option<String>,
    /// pfifo lengths, packets (defaults 50, 300, 300).
    pub ef_queue_packets: Option<u32>,
    /// See `ef_queue_packets`.
    pub be_queue_packets: Option<u32>,
    /// See `ef_queue_packets`.
    pub lbe_queue_packets: Option<u32>,
}

/// A validated DiffServ domain.
#[derive(Clone, Debug, PartialEq)]
pub struct DiffServ {
    /// Node index of the edge router.
    pub edge: usize,
    /// Index of the core link (edge ↔ core).
    pub core_link: usize,
    /// Indices of the edge router's access links (every other link of it).
    pub access_links: Vec<usize>,
    /// Node indices of the premium sources.
    pub premium: Vec<usize>,
    /// Access rate.
    pub access_rate: BitRate,
    /// EF share of the access rate.
    pub ef_share: f64,
    /// EF packet size at layer 3, bytes.
    pub ef_packet_bytes: u32,
    /// EF policer burst, packets.
    pub ef_burst_packets: u32,
    /// htb root rate on the core link.
    pub core_rate: BitRate,
    /// IPv6 flow label classified as EF.
    pub ef_flow_label: Option<u32>,
    /// LBE codepoint.
    pub lbe_dscp: Dscp,
    /// pfifo lengths of EF, BE, LBE, packets.
    pub queue_packets: [u32; 3],
}

impl DiffServ {
    /// The EF allowance, bits per second: `ef_share` of the access rate.
    pub fn ef_rate_bps(&self) -> u64 {
        (self.access_rate.bits_per_second() as f64 * self.ef_share).round() as u64
    }

    /// The policer's packet rate, packets per second (at least 1).
    pub fn ef_packets_per_second(&self) -> u64 {
        (self.ef_rate_bps() / (8 * u64::from(self.ef_packet_bytes))).max(1)
    }

    /// One line for the testbed facts and `--dry-run`.
    pub fn describe(&self) -> String {
        format!(
            "DiffServ: nftables netdev ingress conditioner (EF policed by a packet-rate limit \
             of {} pkt/s of {} B = {:.1} Mbit/s, burst {} packets, excess and unauthorised EF \
             remarked to DSCP 0), inet forward classifier (meta priority), htb on the core link \
             at {:.0} Mbit/s (EF 1:10 prio 0, BE 1:20 prio 1, LBE {} 1:30 prio 2){}",
            self.ef_packets_per_second(),
            self.ef_packet_bytes,
            self.ef_rate_bps() as f64 / 1e6,
            self.ef_burst_packets,
            self.core_rate.bits_per_second() as f64 / 1e6,
            self.lbe_dscp,
            self.ef_flow_label
                .map(|l| format!(", IPv6 flow label {l} classified as EF"))
                .unwrap_or_default()
        )
    }
}

type Result<T> = std::result::Result<T, TopologyError>;

fn rate(key: &str, text: Option<&str>) -> Result<BitRate> {
    let text = text.unwrap_or("100Mbit");
    let rate = text
        .parse::<BitRate>()
        .map_err(|m| TopologyError::at(format!("diffserv.{key}"), m.to_string()))?;
    if rate.bits_per_second() < 1_000_000 {
        return Err(TopologyError::at(
            format!("diffserv.{key}"),
            format!("{text} is below 1 Mbit/s"),
        ));
    }
    Ok(rate)
}

fn queue(key: &str, value: Option<u32>, default: u32) -> Result<u32> {
    let value = value.unwrap_or(default);
    if (1..=100_000).contains(&value) {
        Ok(value)
    } else {
        Err(TopologyError::at(
            format!("diffserv.{key}"),
            format!("{value} is out of range 1..=100000"),
        ))
    }
}

/// Checks `raw` against the topology's nodes and links; every error names
/// its key (`diffserv.edge`, `diffserv.ef_share` …).
pub(crate) fn validate(
    raw: &RawDiffServ,
    names: &[&str],
    roles: &[Role],
    links: &[Link],
) -> Result<DiffServ> {
    let node = |key: &str, name: &str| {
        names.iter().position(|n| *n == name).ok_or_else(|| {
            TopologyError::at(format!("diffserv.{key}"), format!("no node `{name}`"))
        })
    };
    let edge = node("edge", &raw.edge)?;
    if roles[edge] != Role::Router {
        return Err(TopologyError::at(
            "diffserv.edge",
            format!("`{}` must be a router (role = \"router\")", raw.edge),
        ));
    }
    let core = node("core", &raw.core)?;
    let core_link = links
        .iter()
        .position(|l| l.end_of(edge).is_some() && l.end_of(core).is_some())
        .ok_or_else(|| {
            TopologyError::at(
                "diffserv.core",
                format!("no link between `{}` and `{}`", raw.edge, raw.core),
            )
        })?;
    let access_links: Vec<usize> = (0..links.len())
        .filter(|&i| i != core_link && links[i].end_of(edge).is_some())
        .collect();
    if access_links.is_empty() {
        return Err(TopologyError::at(
            "diffserv.edge",
            format!("`{}` has no access link besides the core link", raw.edge),
        ));
    }
    let premium = raw
        .premium
        .iter()
        .map(|name| node("premium", name))
        .collect::<Result<Vec<_>>>()?;
    let ef_share = raw.ef_share.unwrap_or(0.10);
    if !(ef_share > 0.0 && ef_share <= 1.0) {
        return Err(TopologyError::at(
            "diffserv.ef_share",
            format!("{ef_share} is not in (0, 1]"),
        ));
    }
    let ef_packet_bytes = raw.ef_packet_bytes.unwrap_or(1042);
    if !(28..=65_535).contains(&ef_packet_bytes) {
        return Err(TopologyError::at(
            "diffserv.ef_packet_bytes",
            format!("{ef_packet_bytes} is out of range 28..=65535"),
        ));
    }
    let ef_burst_packets = queue("ef_burst_packets", raw.ef_burst_packets, 10)?;
    if let Some(label) = raw.ef_flow_label {
        dualperf_model::FlowLabel::new(label)
            .map_err(|m| TopologyError::at("diffserv.ef_flow_label", m))?;
    }
    let lbe_dscp = raw
        .lbe_dscp
        .as_deref()
        .unwrap_or("8")
        .parse::<Dscp>()
        .map_err(|m| TopologyError::at("diffserv.lbe_dscp", m))?;
    if lbe_dscp == Dscp::EF || lbe_dscp == Dscp::BE {
        return Err(TopologyError::at(
            "diffserv.lbe_dscp",
            "must differ from EF (46) and BE (0)",
        ));
    }
    let domain = DiffServ {
        edge,
        core_link,
        access_links,
        premium,
        access_rate: rate("access_rate", raw.access_rate.as_deref())?,
        ef_share,
        ef_packet_bytes,
        ef_burst_packets,
        core_rate: rate("core_rate", raw.core_rate.as_deref())?,
        ef_flow_label: raw.ef_flow_label,
        lbe_dscp,
        queue_packets: [
            queue("ef_queue_packets", raw.ef_queue_packets, 50)?,
            queue("be_queue_packets", raw.be_queue_packets, 300)?,
            queue("lbe_queue_packets", raw.lbe_queue_packets, 300)?,
        ],
    };
    if domain.ef_rate_bps() * 105 / 100 + domain.core_rate.bits_per_second() / 100
        >= domain.core_rate.bits_per_second()
    {
        return Err(TopologyError::at(
            "diffserv.ef_share",
            "the EF allowance must leave room on the core link for BE and LBE",
        ));
    }
    Ok(domain)
}

//! Topologies as data: nodes, links, addressing and shaping.
//!
//! A topology is TOML (see `presets/*.toml`). It is parsed into
//! [`raw::RawTopology`] (syntax only, unknown keys rejected) and then
//! validated once into a [`Topology`] by `Topology::try_from` / [`Topology::from_toml`]:
//! names resolve, links join distinct known nodes, MTUs are in range, subnets
//! do not overlap, every node can reach every other, shaping values parse.
//! After that point nothing re-checks.
//!
//! ```toml
//! description = "host — router — host"
//! [[node]]
//! name = "client"
//! [[node]]
//! name = "router"
//! role = "router"
//! [[node]]
//! name = "server"
//! [[link]]
//! between = ["client", "router"]
//! [[link]]
//! between = ["router", "server"]
//! rate = "20Mbit"              # both directions
//! [link.egress.server]         # only server -> router
//! rate = "5Mbit"
//! ```

pub mod diffserv;
mod duration;
pub mod raw;
pub mod routes;
mod suggest;
pub mod transition;
mod validate;

use std::time::Duration;

use dualperf_model::{BitRate, IpFamily};

use crate::addressing::{InterfaceAddress, LinkSubnets};
use crate::error::LabError;
use crate::naming::LinkEnd;

pub use duration::parse_duration;
pub use suggest::did_you_mean;
pub use transition::{
    Implementation, MechanismKind, Nat64Prefix, Translator, TranslatorKind, Tunnel, TunnelKind,
    TunnelSubnet,
};

/// Smallest link MTU, bytes: IPv6 needs 1280 on every link (RFC 8200 §5).
pub const MIN_MTU_BYTES: u32 = 1280;
/// Largest link MTU, bytes: the veth driver's maximum (`ETH_MAX_MTU`).
pub const MAX_MTU_BYTES: u32 = 65535;
/// MTU when a link gives none, bytes: Ethernet's.
pub const DEFAULT_MTU_BYTES: u32 = 1500;
/// Queue in front of a rate limiter when a link gives none, packets.
pub const DEFAULT_QUEUE_LIMIT_PACKETS: u32 = 100;

/// A validated topology.
#[derive(Clone, Debug, PartialEq)]
pub struct Topology {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) nodes: Vec<Node>,
    pub(crate) links: Vec<Link>,
    pub(crate) client: Option<usize>,
    pub(crate) server: Option<usize>,
    pub(crate) tunnels: Vec<Tunnel>,
    pub(crate) translators: Vec<Translator>,
    pub(crate) diffserv: Option<diffserv::DiffServ>,
}

/// What a node does with packets not addressed to it.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Role {
    /// An end host: forwarding off in both families.
    Host,
    /// A router: `net.ipv4.ip_forward=1` and `net.ipv6.conf.all.forwarding=1`.
    Router,
}

impl Role {
    /// `"host"` or `"router"`.
    pub fn key(self) -> &'static str {
        match self {
            Role::Host => "host",
            Role::Router => "router",
        }
    }
}

/// Which address families a node speaks.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Stack {
    /// IPv4 and IPv6 (the default).
    Dual,
    /// IPv4 only: IPv6 is disabled in the node (`net.ipv6.conf.all.disable_ipv6=1`).
    Ipv4Only,
    /// IPv6 only: the node has no IPv4 address and no IPv4 route.
    Ipv6Only,
}

impl Stack {
    /// `"dual"`, `"ipv4-only"` or `"ipv6-only"`.
    pub fn key(self) -> &'static str {
        match self {
            Stack::Dual => "dual",
            Stack::Ipv4Only => "ipv4-only",
            Stack::Ipv6Only => "ipv6-only",
        }
    }

    /// True when the node speaks `family`.
    pub fn has(self, family: IpFamily) -> bool {
        !matches!(
            (self, family),
            (Stack::Ipv4Only, IpFamily::V6) | (Stack::Ipv6Only, IpFamily::V4)
        )
    }
}

/// A node: one network namespace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// Its name in the topology.
    pub name: String,
    /// Host or router.
    pub role: Role,
    /// The families it speaks.
    pub stack: Stack,
}

/// The qdisc that enforces a link rate.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum RateQdisc {
    /// Hierarchical token bucket (`sch_htb`) with a `pfifo` leaf as the queue.
    Htb,
    /// Token bucket filter (`sch_tbf`), queue limit in bytes derived from packets × MTU.
    Tbf,
}

impl RateQdisc {
    /// `"htb"` or `"tbf"`.
    pub fn key(self) -> &'static str {
        match self {
            RateQdisc::Htb => "htb",
            RateQdisc::Tbf => "tbf",
        }
    }
}

/// Impairment of one direction of a link, applied as egress qdiscs on the
/// sending end.
#[derive(Clone, Debug, PartialEq)]
pub struct Shaping {
    /// Rate ceiling and the qdisc that enforces it; `None` leaves the rate alone.
    pub rate: Option<(RateQdisc, BitRate)>,
    /// Queue in front of the limiter (or netem), packets.
    pub queue_limit_packets: u32,
    /// Extra one-way delay (netem).
    pub delay: Duration,
    /// Delay variation (netem).
    pub jitter: Duration,
    /// Share of packets dropped, 0.0..=1.0 (netem).
    pub loss_ratio: f64,
}

impl Shaping {
    /// True when this direction needs netem (delay, jitter or loss).
    pub fn needs_netem(&self) -> bool {
        !self.delay.is_zero() || !self.jitter.is_zero() || self.loss_ratio > 0.0
    }

    /// Human-readable, e.g. `htb 10.000 Mbit/s, queue 100 packets`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some((qdisc, rate)) = self.rate {
            parts.push(format!("{} {rate}", qdisc.key()));
        }
        if self.needs_netem() {
            parts.push(format!(
                "netem delay {:?} jitter {:?} loss {:.3}%",
                self.delay,
                self.jitter,
                self.loss_ratio * 100.0
            ));
        }
        parts.push(format!("queue {} packets", self.queue_limit_packets));
        parts.join(", ")
    }
}

/// A link: a veth pair joining two nodes, with one subnet per family.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    /// Node indices of end A (`between[0]`) and end B (`between[1]`).
    pub ends: [usize; 2],
    /// MTU of both ends, bytes, in `MIN_MTU_BYTES..=MAX_MTU_BYTES`.
    pub mtu_bytes: u32,
    /// The link's subnets.
    pub subnets: LinkSubnets,
    /// Egress shaping of end A and of end B (`None`: unshaped).
    pub egress: [Option<Shaping>; 2],
}

impl Link {
    /// The node index at `end`.
    pub fn node(&self, end: LinkEnd) -> usize {
        self.ends[end.index()]
    }

    /// Which end `node` is, if it is on this link.
    pub fn end_of(&self, node: usize) -> Option<LinkEnd> {
        LinkEnd::BOTH
            .into_iter()
            .find(|end| self.node(*end) == node)
    }

    /// The IPv4 and IPv6 address of `end`.
    pub fn addresses(&self, end: LinkEnd) -> [InterfaceAddress; 2] {
        self.subnets.addresses(end)
    }
}

impl Topology {
    /// Parses and validates TOML text; `name` is the preset name or file path
    /// used in messages.
    ///
    /// # Errors
    /// [`LabError::Parse`] for syntax and unknown keys, [`LabError::Topology`]
    /// for a topology that does not hold together (the error names the key).
    pub fn from_toml(name: &str, text: &str) -> Result<Topology, LabError> {
        let raw: raw::RawTopology = toml::from_str(text).map_err(|e| LabError::Parse {
            name: name.to_string(),
            message: e.to_string(),
        })?;
        validate::validate(name, raw).map_err(|source| LabError::Topology {
            name: name.to_string(),
            source,
        })
    }

    /// The DiffServ domain of the `[diffserv]` table, if any.
    pub fn diffserv(&self) -> Option<&diffserv::DiffServ> {
        self.diffserv.as_ref()
    }

    /// Preset name or file path.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The one-line description.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// Nodes in topology order.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// Links in topology order.
    pub fn links(&self) -> &[Link] {
        &self.links
    }

    /// Index of the node called `name`.
    pub fn node_index(&self, name: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.name == name)
    }

    /// The node the main job runs the client in, if the topology has one.
    pub fn client(&self) -> Option<&Node> {
        self.client.map(|i| &self.nodes[i])
    }

    /// The node the main job runs the server in, if the topology has one.
    pub fn server(&self) -> Option<&Node> {
        self.server.map(|i| &self.nodes[i])
    }

    /// The addresses of `node` on its first link, IPv4 then IPv6: the
    /// address a peer uses to reach a host. For a single-stack node one of
    /// them is not configured: use [`Topology::address`].
    pub fn primary_addresses(&self, node: usize) -> Option<[InterfaceAddress; 2]> {
        self.links
            .iter()
            .find_map(|link| link.end_of(node).map(|end| link.addresses(end)))
    }

    /// The `family` address of `node` on its first link that carries that
    /// family: the address a peer uses to reach it natively. `None` when the
    /// node does not speak the family on any link.
    pub fn address(&self, node: usize, family: IpFamily) -> Option<InterfaceAddress> {
        self.links.iter().find_map(|link| {
            let end = link.end_of(node)?;
            self.link_carries(link, family)
                .then(|| link.addresses(end)[family_index(family)])
        })
    }

    /// True when both ends of `link` speak `family`, so the link has an
    /// address of that family at each end.
    pub fn link_carries(&self, link: &Link, family: IpFamily) -> bool {
        link.ends
            .iter()
            .all(|&node| self.nodes[node].stack.has(family))
    }

    /// The `[[tunnel]]`s, in order.
    pub fn tunnels(&self) -> &[Tunnel] {
        &self.tunnels
    }

    /// The `[[translator]]`s, in order.
    pub fn translators(&self) -> &[Translator] {
        &self.translators
    }

    /// Replaces the name (e.g. with the file path the topology came from).
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }
}

/// 0 for IPv4, 1 for IPv6: the index in `[v4, v6]` pairs.
pub fn family_index(family: IpFamily) -> usize {
    match family {
        IpFamily::V4 => 0,
        IpFamily::V6 => 1,
    }
}

impl TryFrom<raw::RawTopology> for Topology {
    type Error = crate::error::TopologyError;

    /// Validates a parsed file; the topology is named `custom` (see [`Topology::with_name`]).
    fn try_from(raw: raw::RawTopology) -> Result<Self, Self::Error> {
        validate::validate("custom", raw)
    }
}

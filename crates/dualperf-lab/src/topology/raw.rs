//! A topology exactly as written in TOML: only its syntax has been checked.
//!
//! Unknown keys are errors (`deny_unknown_fields`), so a typo such as
//! `rat = "10Mbit"` is reported instead of silently building an unshaped link.
//! Quantities with units stay strings here (`"10Mbit"`, `"15ms"`) and are
//! parsed during validation, where an error can name its key.

use std::collections::BTreeMap;

use serde::Deserialize;

/// The whole file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTopology {
    /// One line saying what this testbed is for.
    pub description: String,
    /// The node the main job runs the client in (default: the node named `client`).
    pub client: Option<String>,
    /// The node the main job runs the server in (default: the node named `server`).
    pub server: Option<String>,
    /// `[[node]]` tables, in order.
    #[serde(default)]
    pub node: Vec<RawNode>,
    /// `[[link]]` tables, in order.
    #[serde(default)]
    pub link: Vec<RawLink>,
    /// `[[tunnel]]` tables (6in4, 4in6), in order.
    #[serde(default)]
    pub tunnel: Vec<RawTunnel>,
    /// `[[translator]]` tables (NAT64), in order.
    #[serde(default)]
    pub translator: Vec<RawTranslator>,
    /// `[diffserv]`: a DiffServ domain on an edge router ([`crate::diffserv`]).
    pub diffserv: Option<super::diffserv::RawDiffServ>,
}

/// One `[[node]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawNode {
    /// Node name: lowercase letters, digits and `-`, starting with a letter.
    pub name: String,
    /// `"host"` (default) or `"router"` (forwards both families).
    pub role: Option<String>,
    /// `"dual"` (default), `"ipv4-only"` (IPv6 disabled) or `"ipv6-only"`
    /// (no IPv4 addresses).
    pub stack: Option<String>,
}

/// One `[[tunnel]]`: IPv6 in IPv4 (`kind = "6in4"`) or IPv4 in IPv6
/// (`kind = "4in6"`) between two end nodes, carrying the traffic between
/// two carried nodes (by default the topology's client and server).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTunnel {
    /// `"6in4"` or `"4in6"`.
    pub kind: String,
    /// The encapsulating end on the client's side, then the one on the server's side.
    pub between: Vec<String>,
    /// The nodes whose traffic crosses the tunnel, client side first
    /// (default: the topology's client and server).
    pub carries: Option<Vec<String>>,
    /// Force an implementation: `"sit"` or `"bpf-lwt"` for 6in4,
    /// `"ip6tnl"` or `"srv6"` for 4in6 (default: the best this kernel has).
    pub implementation: Option<String>,
    /// Tunnel MTU, bytes (default: the smallest link MTU on the path
    /// between the ends minus the outer header, 1480 for 6in4 and 1460 for
    /// 4in6 on 1500-byte links).
    pub mtu_bytes: Option<u32>,
    /// The carried nodes' IPv6 tunnel addresses for 6in4, e.g. `"2001:db8:6::/64"` (default: automatic).
    pub ipv6: Option<String>,
    /// The carried nodes' IPv4 tunnel addresses for 4in6, e.g. `"10.46.0.0/24"` (default: automatic).
    pub ipv4: Option<String>,
}

/// One `[[translator]]`: a NAT64 on a router node between an IPv6 client
/// and an IPv4 server.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTranslator {
    /// `"nat64"`.
    pub kind: String,
    /// The router node that translates.
    pub node: String,
    /// The NAT64 prefix (RFC 6052), default `"64:ff9b::/96"`.
    pub prefix: Option<String>,
    /// IPv4 pool the translator maps IPv6 clients into, default `"192.168.255.0/24"`.
    pub pool: Option<String>,
    /// Force an implementation: `"jool"` or `"tayga"` (default: Jool when
    /// its module loads, else TAYGA).
    pub implementation: Option<String>,
}

/// One `[[link]]`: a veth pair between two nodes. The shaping keys at this
/// level apply to both directions; `[link.egress.NODE]` overrides them for
/// the direction leaving NODE.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawLink {
    /// The two node names.
    pub between: Vec<String>,
    /// MTU of both ends, bytes (default 1500).
    pub mtu_bytes: Option<u32>,
    /// IPv4 subnet, e.g. `"192.168.7.0/24"` (default: automatic).
    pub ipv4: Option<String>,
    /// IPv6 subnet, e.g. `"fd00:7::/64"` (default: automatic).
    pub ipv6: Option<String>,
    /// Rate-limiting qdisc: `"htb"` (default) or `"tbf"`.
    pub qdisc: Option<String>,
    /// Rate, e.g. `"10Mbit"`.
    pub rate: Option<String>,
    /// Queue in front of the rate limiter, packets.
    pub queue_limit_packets: Option<u32>,
    /// Extra one-way delay, e.g. `"15ms"` (needs netem).
    pub delay: Option<String>,
    /// Delay variation, e.g. `"2ms"` (needs netem).
    pub jitter: Option<String>,
    /// Share of packets dropped, 0.0..=1.0 (netem, or the cls_bpf loss program).
    pub loss_ratio: Option<f64>,
    /// The same as a percentage, e.g. `"1%"` (give this or `loss_ratio`).
    pub loss: Option<String>,
    /// Per-direction overrides keyed by the sending node.
    #[serde(default)]
    pub egress: BTreeMap<String, RawShaping>,
}

/// Shaping keys of one direction (`[link.egress.NODE]`).
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawShaping {
    /// See [`RawLink::qdisc`].
    pub qdisc: Option<String>,
    /// See [`RawLink::rate`].
    pub rate: Option<String>,
    /// See [`RawLink::queue_limit_packets`].
    pub queue_limit_packets: Option<u32>,
    /// See [`RawLink::delay`].
    pub delay: Option<String>,
    /// See [`RawLink::jitter`].
    pub jitter: Option<String>,
    /// See [`RawLink::loss_ratio`].
    pub loss_ratio: Option<f64>,
    /// See [`RawLink::loss`].
    pub loss: Option<String>,
}

impl RawLink {
    /// The link-level shaping keys (both directions).
    pub fn both_directions(&self) -> RawShaping {
        RawShaping {
            qdisc: self.qdisc.clone(),
            rate: self.rate.clone(),
            queue_limit_packets: self.queue_limit_packets,
            delay: self.delay.clone(),
            jitter: self.jitter.clone(),
            loss_ratio: self.loss_ratio,
            loss: self.loss.clone(),
        }
    }
}

impl RawShaping {
    /// `self` with every key that `over` sets replaced by `over`'s value.
    pub fn overridden_by(&self, over: &RawShaping) -> RawShaping {
        RawShaping {
            qdisc: over.qdisc.clone().or_else(|| self.qdisc.clone()),
            rate: over.rate.clone().or_else(|| self.rate.clone()),
            queue_limit_packets: over.queue_limit_packets.or(self.queue_limit_packets),
            delay: over.delay.clone().or_else(|| self.delay.clone()),
            jitter: over.jitter.clone().or_else(|| self.jitter.clone()),
            loss_ratio: over.loss_ratio.or(self.loss_ratio),
            loss: over.loss.clone().or_else(|| self.loss.clone()),
        }
    }
}

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
}

/// One `[[node]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawNode {
    /// Node name: lowercase letters, digits and `-`, starting with a letter.
    pub name: String,
    /// `"host"` (default) or `"router"` (forwards both families).
    pub role: Option<String>,
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
    /// Share of packets dropped, 0.0..=1.0 (needs netem).
    pub loss_ratio: Option<f64>,
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
        }
    }
}

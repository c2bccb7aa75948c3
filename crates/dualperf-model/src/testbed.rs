//! The emulated testbed a result was measured on, recorded with the result.

use serde::{Deserialize, Serialize};

/// A testbed as built: enough to know where a number was measured.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TestbedFacts {
    /// Preset name or topology file.
    pub name: String,
    /// One-line description.
    pub description: String,
    /// Nodes, in topology order.
    pub nodes: Vec<TestbedNode>,
    /// Links, in topology order.
    pub links: Vec<TestbedLink>,
    /// The node the client ran in.
    pub client_node: String,
    /// The node the server ran in.
    pub server_node: String,
    /// Kernel features that were missing and what that changed.
    pub notes: Vec<String>,
}

/// One node of a testbed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TestbedNode {
    /// Node name in the topology.
    pub name: String,
    /// Network namespace it lives in.
    pub netns: String,
    /// "host" or "router".
    pub role: String,
    /// Addresses with prefix length, both families.
    pub addresses: Vec<String>,
    /// `net.ipv4.ip_forward` and `net.ipv6.conf.all.forwarding` as set.
    pub forwarding: bool,
}

/// One link (a veth pair) of a testbed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TestbedLink {
    /// The two node names.
    pub between: [String; 2],
    /// The two interface names.
    pub interfaces: [String; 2],
    /// MTU, bytes.
    pub mtu_bytes: u32,
    /// Shaping as applied, human-readable (e.g. "htb 10 Mbit/s, limit 100 packets"), if any.
    pub shaping: Option<String>,
}

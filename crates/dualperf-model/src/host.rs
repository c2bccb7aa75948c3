//! Facts about a host, stored with every result: a number without its
//! conditions is useless.

use serde::{Deserialize, Serialize};

/// What the host looked like when it measured.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HostFacts {
    /// dualperf version (`CARGO_PKG_VERSION`).
    pub tool_version: String,
    /// Host name.
    pub hostname: String,
    /// Kernel release (`uname -r`) and version string.
    pub kernel: String,
    /// Operating system (PRETTY_NAME from /etc/os-release).
    pub os: String,
    /// CPU model name from /proc/cpuinfo.
    pub cpu_model: String,
    /// Online CPUs.
    pub cpu_count: u32,
    /// Memory, bytes.
    pub memory_bytes: u64,
    /// `net.ipv4.tcp_congestion_control`.
    pub tcp_congestion_control: String,
    /// `net.core.default_qdisc`.
    pub default_qdisc: String,
    /// Interfaces with their MTU and root qdisc.
    pub interfaces: Vec<InterfaceFacts>,
    /// Network namespace name, when known (lab runs).
    pub netns: Option<String>,
}

/// One network interface.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct InterfaceFacts {
    /// Interface name.
    pub name: String,
    /// MTU, bytes.
    pub mtu_bytes: u32,
    /// Root qdisc kind (`tc qdisc show`), e.g. "noqueue", "htb".
    pub qdisc: Option<String>,
    /// Addresses with prefix length, both families.
    pub addresses: Vec<String>,
    /// Offloads that are on (tso, gso, gro), where known.
    pub offloads: Vec<String>,
}

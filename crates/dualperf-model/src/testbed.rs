//! The emulated testbed a result was measured on, recorded with the result.

use serde::{Deserialize, Serialize};

/// A testbed as built: enough to know where a number was measured.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
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
    /// The lab's run id: the `<run>` in namespace names `dsp-<run>-<node>`.
    #[serde(default)]
    pub run_id: String,
    /// The transition mechanisms (tunnels, translators) as built, with the
    /// implementation each one got on this kernel.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mechanisms: Vec<TestbedMechanism>,
    /// What a DiffServ domain's conditioner counted in the policing and
    /// unauthorised-source checks, and how router CPU was attributed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diffserv: Option<crate::diffserv::DiffServFindings>,
    /// The known effect a calibration testbed was built with (`dualperf
    /// lab calibrate`): the truth its estimates are checked against.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration: Option<crate::calibration::CalibrationSetup>,
    /// The rate the lab gave the links (`dualperf lab --link-rate`);
    /// absent in results written before the lab shaped its links.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_rate: Option<LinkRate>,
}

/// The rate `dualperf lab` gave a testbed's links (issue 23): by default a
/// shaped rate, so that throughput comparisons measure the path and not the
/// scheduler of the machine the namespaces share.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum LinkRate {
    /// Every link (both directions) was shaped with htb at this rate: the
    /// topology set no rate of its own.
    Shaped {
        /// The rate ceiling, bits per second (htb counts the Ethernet
        /// frame: payload + transport + IP + 14 B).
        bits_per_second: u64,
    },
    /// `--link-rate none`: the links were left unshaped (veth at memory
    /// speed), so throughput is bound by the CPUs, not the path.
    Unshaped,
    /// The topology sets its own rates (a bottleneck, a DiffServ domain):
    /// the lab added none.
    Topology,
}

/// A transition mechanism of a testbed as built: which implementation ran.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TestbedMechanism {
    /// "6in4", "4in6" or "nat64".
    pub kind: String,
    /// The nodes it runs on: the two tunnel ends (client side first), or
    /// the translating router.
    pub between: Vec<String>,
    /// The nodes whose traffic it carries, client side first.
    #[serde(default)]
    pub carries: Vec<String>,
    /// "sit", "bpf-lwt", "ip6tnl", "srv6", "tayga" or "jool".
    pub implementation: String,
    /// The tunnel MTU, bytes (tunnels only).
    #[serde(default)]
    pub mtu_bytes: Option<u32>,
    /// The arm whose packets take it (e.g. "v6-6in4-host-host"), if any.
    #[serde(default)]
    pub arm: Option<String>,
    /// How the implementation works and what that means for a result
    /// (e.g. TAYGA forwards in user space on one core).
    #[serde(default)]
    pub notes: Vec<String>,
}

/// One node of a testbed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
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
    /// Static routes as `ip route` prints them, both families
    /// (e.g. "10.180.2.0/24 via 10.180.1.2 dev dspk3-0a").
    #[serde(default)]
    pub routes: Vec<String>,
    /// Sysctls set in the node's namespace, as `key=value`.
    #[serde(default)]
    pub sysctls: Vec<String>,
}

/// One link (a veth pair) of a testbed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TestbedLink {
    /// The two node names.
    pub between: [String; 2],
    /// The two interface names.
    pub interfaces: [String; 2],
    /// MTU, bytes.
    pub mtu_bytes: u32,
    /// Shaping as applied, human-readable (e.g. "htb 10 Mbit/s, limit 100 packets"), if any.
    pub shaping: Option<String>,
    /// The link's subnets, IPv4 then IPv6 (e.g. "10.180.1.0/24").
    #[serde(default)]
    pub subnets: Vec<String>,
    /// Shaping per direction, for each shaped direction.
    #[serde(default)]
    pub egress: Vec<TestbedEgress>,
}

/// Shaping of one direction of a link, applied on the sender's egress.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TestbedEgress {
    /// Sending node.
    pub from: String,
    /// Receiving node.
    pub to: String,
    /// Rate-limiting qdisc ("htb" or "tbf"), if the rate is limited.
    pub rate_qdisc: Option<String>,
    /// Rate ceiling, bits per second, if limited.
    pub rate_bits_per_second: Option<u64>,
    /// Queue in front of the limiter or netem, packets.
    pub queue_limit_packets: u32,
    /// Extra one-way delay (netem), microseconds.
    pub delay_us: u64,
    /// Delay variation (netem), microseconds.
    pub jitter_us: u64,
    /// Share of packets dropped (netem), 0.0..=1.0.
    pub loss_ratio: f64,
    /// How delay, jitter and loss were made: "netem", or "bpf-delay-line"
    /// (loss in a cls_bpf program, delay in the lab's user-space delay
    /// line); absent when the direction has none of them, or in results
    /// written before the field existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emulation: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_written_before_mechanisms_existed_load_with_none_and_none_are_not_written() {
        let old = r#"{"name":"router","description":"d","nodes":[],"links":[],
            "client_node":"client","server_node":"server","notes":[],"run_id":"k3"}"#;
        let facts: TestbedFacts = serde_json::from_str(old).unwrap();
        assert!(facts.mechanisms.is_empty());
        assert!(!serde_json::to_string(&facts)
            .unwrap()
            .contains("mechanisms"));
        let with = TestbedFacts {
            mechanisms: vec![TestbedMechanism {
                kind: "6in4".into(),
                between: vec!["client".into(), "server".into()],
                implementation: "bpf-lwt".into(),
                mtu_bytes: Some(1480),
                ..Default::default()
            }],
            ..facts
        };
        let text = serde_json::to_string(&with).unwrap();
        assert_eq!(serde_json::from_str::<TestbedFacts>(&text).unwrap(), with);
    }
}

//! The arms a topology offers: every way its client can reach a server
//! node, each with the target address that makes traffic take that way.
//!
//! | arm id | label | target |
//! |---|---|---|
//! | `v4`, `v6` | "IPv4", "IPv6" | the server's address on its first link of that family |
//! | `v6-6in4-host-host` (`-router-router`, `-host-router`) | "IPv6 via 6in4, host to host" | the server's address in the tunnel's subnet |
//! | `v4-4in6` | "IPv4 via 4in6, router to router" | the server's address in the tunnel's subnet |
//! | `v6-nat64` | "IPv6 via NAT64 (64:ff9b::/96)" | the server's IPv4 address embedded in the prefix (RFC 6052) |
//!
//! Native arms come first (IPv4, then IPv6), then tunnels and translators
//! in topology order. A second mechanism of the same kind and placement gets
//! its index appended (`v6-6in4-host-host-3`).

use std::net::IpAddr;

use dualperf_model::{Arm, ArmId, ArmPath, IpFamily, LoadCondition, Marking};

use crate::error::LabError;
use crate::routes::path;
use crate::topology::{Topology, TunnelKind};

impl Topology {
    /// Every arm from the topology's client to node `server`: native IPv4
    /// and IPv6 where both nodes speak the family and a path of that family
    /// joins them, then every tunnel carrying the client's traffic to
    /// `server`, then every NAT64 (when `server` is the topology's server).
    ///
    /// # Errors
    /// [`LabError::UnknownNode`] for a server that is not a node;
    /// [`LabError::NoArms`] when the topology names no client, `server` is
    /// the client, or nothing joins them.
    pub fn arms(&self, server: &str) -> Result<Vec<Arm>, LabError> {
        let server_index = self
            .node_index(server)
            .ok_or_else(|| LabError::UnknownNode {
                name: server.to_string(),
                nodes: self
                    .nodes()
                    .iter()
                    .map(|n| n.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            })?;
        let no_arms = |reason: String| LabError::NoArms {
            server: server.to_string(),
            reason,
        };
        let client = self
            .client
            .ok_or_else(|| no_arms("the topology names no client node".into()))?;
        if client == server_index {
            return Err(no_arms("it is the client itself".into()));
        }
        let mut arms = Vec::new();
        for family in IpFamily::ALL {
            let joined = path(
                self.nodes(),
                self.links(),
                Some(family),
                client,
                server_index,
            )
            .is_some();
            if let (true, Some(address)) = (joined, self.address(server_index, family)) {
                arms.push(Arm::native(family, Some(address.address.to_string())));
            }
        }
        for index in 0..self.tunnels().len() {
            let tunnel = &self.tunnels()[index];
            if tunnel.carries == [client, server_index] {
                arms.extend(self.tunnel_arm_unchecked(index));
            }
        }
        if Some(server_index) == self.server {
            for index in 0..self.translators().len() {
                arms.extend(translator_arm(self, index));
            }
        }
        if arms.is_empty() {
            return Err(no_arms(format!(
                "no address family, tunnel or translator joins the client `{}` to it",
                self.nodes()[client].name
            )));
        }
        Ok(arms)
    }

    fn tunnel_arm_unchecked(&self, index: usize) -> Option<Arm> {
        let tunnel = &self.tunnels()[index];
        let placement_words = match (
            tunnel.ends[0] == tunnel.carries[0],
            tunnel.ends[1] == tunnel.carries[1],
        ) {
            (true, true) => "host to host",
            (false, false) => "router to router",
            (true, false) => "host to router",
            (false, true) => "router to host",
        };
        let twin = |other: &crate::topology::Tunnel| {
            other.kind == tunnel.kind
                && other.carries == tunnel.carries
                && other.placement() == tunnel.placement()
        };
        let repeated = self.tunnels()[..index].iter().any(twin);
        let suffix = if repeated {
            format!("-{index}")
        } else {
            String::new()
        };
        let (family, path, id) = match tunnel.kind {
            TunnelKind::SixInFour => {
                let placement = tunnel.placement()?;
                let key = serde_json::to_value(placement)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default();
                (
                    IpFamily::V6,
                    ArmPath::SixInFour { placement },
                    format!("v6-6in4-{key}{suffix}"),
                )
            }
            TunnelKind::FourInSix => (IpFamily::V4, ArmPath::FourInSix, format!("v4-4in6{suffix}")),
        };
        Some(Arm {
            id: ArmId::new(&id).expect("ids built from kebab-case keys"),
            label: format!("{} via {}, {placement_words}", family.label(), tunnel.kind),
            family,
            path,
            marking: Marking::default(),
            load: LoadCondition::Idle,
            target: Some(tunnel.subnet.address(1).to_string()),
        })
    }
}

/// The arm of tunnel `index` when it carries the topology's client to its
/// server (what the facts record), else `None`.
pub fn tunnel_arm(topology: &Topology, index: usize) -> Option<Arm> {
    let tunnel = topology.tunnels().get(index)?;
    (Some(tunnel.carries[0]) == topology.client && Some(tunnel.carries[1]) == topology.server)
        .then(|| topology.tunnel_arm_unchecked(index))
        .flatten()
}

/// The arm of translator `index`: IPv6 from the client to the server's IPv4
/// address embedded in the NAT64 prefix.
pub fn translator_arm(topology: &Topology, index: usize) -> Option<Arm> {
    let translator = topology.translators().get(index)?;
    let server = topology.server?;
    let IpAddr::V4(v4) = topology.address(server, IpFamily::V4)?.address else {
        return None;
    };
    let suffix = if index > 0 {
        format!("-{index}")
    } else {
        String::new()
    };
    Some(Arm {
        id: ArmId::new(&format!("v6-nat64{suffix}")).expect("a kebab-case id"),
        label: format!("IPv6 via NAT64 ({})", translator.prefix),
        family: IpFamily::V6,
        path: ArmPath::Nat64 {
            prefix: translator.prefix.to_string(),
        },
        marking: Marking::default(),
        load: LoadCondition::Idle,
        target: Some(translator.prefix.embed(v4).to_string()),
    })
}

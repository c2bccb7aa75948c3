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
use crate::topology::routes::path;
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
pub(crate) fn tunnel_arm(topology: &Topology, index: usize) -> Option<Arm> {
    let tunnel = topology.tunnels().get(index)?;
    (Some(tunnel.carries[0]) == topology.client && Some(tunnel.carries[1]) == topology.server)
        .then(|| topology.tunnel_arm_unchecked(index))
        .flatten()
}

/// The arm of translator `index`: IPv6 from the client to the server's IPv4
/// address embedded in the NAT64 prefix.
pub(crate) fn translator_arm(topology: &Topology, index: usize) -> Option<Arm> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preset;

    fn summary(preset_name: &str) -> Vec<(String, String, String)> {
        preset::load(preset_name)
            .unwrap()
            .arms("server")
            .unwrap()
            .into_iter()
            .map(|a| (a.id.to_string(), a.label, a.target.unwrap()))
            .collect()
    }

    #[test]
    fn the_tunnels_preset_offers_native_arms_first_then_the_three_placements() {
        let arms = summary("tunnels");
        let expected = [
            ("v4", "IPv4", "10.180.3.2"),
            ("v6", "IPv6", "fd00:dead:beef:3::2"),
            (
                "v6-6in4-host-host",
                "IPv6 via 6in4, host to host",
                "fd00:dead:cafe:1::2",
            ),
            (
                "v6-6in4-router-router",
                "IPv6 via 6in4, router to router",
                "fd00:dead:cafe:2::2",
            ),
            (
                "v6-6in4-host-router",
                "IPv6 via 6in4, host to router",
                "fd00:dead:cafe:3::2",
            ),
        ];
        let expected: Vec<(String, String, String)> = expected
            .iter()
            .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
            .collect();
        assert_eq!(arms, expected);
        let arms = preset::load("tunnels").unwrap().arms("server").unwrap();
        assert_eq!(
            arms[3].path,
            ArmPath::SixInFour {
                placement: dualperf_model::TunnelPlacement::RouterRouter
            }
        );
        assert!(arms.iter().all(|a| a.path.header_change_bytes() >= 0));
    }

    #[test]
    fn single_stack_presets_offer_only_the_families_their_paths_carry() {
        let ids = |name: &str| -> Vec<String> { summary(name).into_iter().map(|a| a.0).collect() };
        assert_eq!(ids("tunnel-host-host"), ["v4", "v6-6in4-host-host"]);
        assert_eq!(ids("tunnel-router-router"), ["v4", "v6-6in4-router-router"]);
        assert_eq!(ids("tunnel-host-router"), ["v4", "v6-6in4-host-router"]);
        assert_eq!(ids("four-in-six"), ["v6", "v4-4in6"]);
        assert_eq!(ids("router"), ["v4", "v6"]);
    }

    #[test]
    fn the_nat64_arm_aims_at_the_servers_address_inside_the_prefix() {
        let arms = preset::load("nat64").unwrap().arms("server").unwrap();
        assert_eq!(arms.len(), 2);
        assert_eq!(arms[1].id.as_str(), "v6-nat64");
        assert_eq!(arms[1].family, IpFamily::V6);
        assert_eq!(arms[1].label, "IPv6 via NAT64 (64:ff9b::/96)");
        assert_eq!(arms[1].target.as_deref(), Some("64:ff9b::c058:6302"));
        assert_eq!(
            arms[1].path,
            ArmPath::Nat64 {
                prefix: "64:ff9b::/96".into()
            }
        );
    }

    #[test]
    fn arms_towards_an_unknown_node_or_the_client_itself_are_errors() {
        let topology = preset::load("tunnels").unwrap();
        let err = topology.arms("sever").unwrap_err();
        assert!(matches!(err, LabError::UnknownNode { .. }), "{err}");
        let err = topology.arms("client").unwrap_err().to_string();
        assert!(err.contains("the client itself"), "{err}");
        // towards a router: native arms only (the tunnels carry to the server)
        let ids: Vec<String> = topology
            .arms("router2")
            .unwrap()
            .into_iter()
            .map(|a| a.id.to_string())
            .collect();
        assert_eq!(ids, ["v4", "v6"]);
    }

    #[test]
    fn a_second_tunnel_with_the_same_placement_gets_its_index() {
        let text = preset::PRESETS
            .iter()
            .find(|(n, _)| *n == "tunnels")
            .unwrap()
            .1
            .to_string()
            + "\n[[tunnel]]\nkind = \"6in4\"\nbetween = [\"client\", \"server\"]\n";
        let topology = Topology::from_toml("t", &text).unwrap();
        let arms = topology.arms("server").unwrap();
        assert_eq!(arms.last().unwrap().id.as_str(), "v6-6in4-host-host-3");
    }
}

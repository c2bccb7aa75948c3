//! Validation of `[[tunnel]]` and `[[translator]]`: every error names its key.

use std::net::{IpAddr, Ipv4Addr};

use dualperf_model::IpFamily;

use super::{resolve_node, ClientServer, Result};
use crate::addressing::{Ipv4Subnet, Ipv6Subnet};
use crate::error::TopologyError;
use crate::topology::raw::{RawTranslator, RawTunnel};
use crate::topology::routes::{path, Hop};
use crate::topology::suggest::did_you_mean;
use crate::topology::transition::{
    automatic_tunnel_subnet, default_pool, srv6_sid_space, Implementation, MechanismKind,
    Nat64Prefix, Translator, TranslatorKind, Tunnel, TunnelKind, TunnelSubnet, WELL_KNOWN_PREFIX,
};
use crate::topology::{family_index, Link, Node, Role, Stack};

fn family_name(family: IpFamily) -> &'static str {
    family.label()
}

fn resolve_pair(key: &str, given: &[String], names: &[&str]) -> Result<[usize; 2]> {
    if given.len() != 2 {
        return Err(TopologyError::at(
            key,
            format!("must name exactly two nodes, found {}", given.len()),
        ));
    }
    let a = resolve_node(&format!("{key}[0]"), &given[0], names)?;
    let b = resolve_node(&format!("{key}[1]"), &given[1], names)?;
    if a == b {
        return Err(TopologyError::at(key, "must name two different nodes"));
    }
    Ok([a, b])
}

fn nodes_on(hops: &[Hop]) -> impl Iterator<Item = usize> + '_ {
    hops.iter().flat_map(|h| [h.node, h.next])
}

pub(super) fn validate_tunnels(
    raw: &[RawTunnel],
    nodes: &[Node],
    links: &[Link],
    names: &[&str],
    roles: ClientServer,
) -> Result<Vec<Tunnel>> {
    let mut tunnels: Vec<Tunnel> = Vec::with_capacity(raw.len());
    for (index, tunnel) in raw.iter().enumerate() {
        let key = format!("tunnel[{index}]");
        let kind = match tunnel.kind.as_str() {
            "6in4" => TunnelKind::SixInFour,
            "4in6" => TunnelKind::FourInSix,
            "nat64" => {
                return Err(TopologyError::at(
                    format!("{key}.kind"),
                    "NAT64 translates rather than tunnels: write it as [[translator]] with kind = \"nat64\" and node = \"ROUTER\"",
                ))
            }
            other => {
                return Err(TopologyError::at(
                    format!("{key}.kind"),
                    format!(
                        "\"{other}\" is not a tunnel kind the lab implements; use \"6in4\" (IPv6 in IPv4) or \"4in6\" (IPv4 in IPv6){}",
                        did_you_mean(other, ["6in4", "4in6"])
                    ),
                ))
            }
        };
        let (inner, outer) = (kind.inner(), kind.outer());
        let ends = resolve_pair(&format!("{key}.between"), &tunnel.between, names)?;
        let carries = match &tunnel.carries {
            Some(given) => resolve_pair(&format!("{key}.carries"), given, names)?,
            None => match (roles.client, roles.server) {
                (Some(client), Some(server)) => [client, server],
                _ => {
                    return Err(TopologyError::at(
                        format!("{key}.carries"),
                        "defaults to the topology's client and server, but it does not name both; give `carries = [\"A\", \"B\"]`",
                    ))
                }
            },
        };
        for side in 0..2 {
            let end = &nodes[ends[side]];
            if end.stack != Stack::Dual {
                return Err(TopologyError::at(
                    format!("{key}.between[{side}]"),
                    format!(
                        "\"{}\" is {}, but a {kind} tunnel end speaks both IPv4 and IPv6",
                        end.name,
                        end.stack.key()
                    ),
                ));
            }
            let carried = &nodes[carries[side]];
            if !carried.stack.has(inner) {
                return Err(TopologyError::at(
                    format!("{key}.carries[{side}]"),
                    format!(
                        "\"{}\" is {} and cannot send the {} a {kind} tunnel carries",
                        carried.name,
                        carried.stack.key(),
                        family_name(inner)
                    ),
                ));
            }
            if ends[side] != carries[side] && end.role != Role::Router {
                return Err(TopologyError::at(
                    format!("{key}.between[{side}]"),
                    format!(
                        "\"{}\" forwards the tunnel's {} for \"{}\": give it role = \"router\"",
                        end.name,
                        family_name(inner),
                        carried.name
                    ),
                ));
            }
        }
        let [end_a, end_b] = ends.map(|n| nodes[n].name.as_str());
        let outer_path = path(nodes, links, Some(outer), ends[0], ends[1]).ok_or_else(|| {
            TopologyError::at(
                format!("{key}.between"),
                format!(
                    "no {} path joins \"{end_a}\" and \"{end_b}\": the outer packets of a {kind} tunnel are {}",
                    family_name(outer),
                    family_name(outer)
                ),
            )
        })?;
        let client_side =
            path(nodes, links, Some(inner), carries[0], ends[0]).ok_or_else(|| {
                TopologyError::at(
                    format!("{key}.carries[0]"),
                    format!(
                        "no {} path from \"{}\" to the tunnel end \"{end_a}\"",
                        family_name(inner),
                        nodes[carries[0]].name
                    ),
                )
            })?;
        let server_side =
            path(nodes, links, Some(inner), ends[1], carries[1]).ok_or_else(|| {
                TopologyError::at(
                    format!("{key}.carries[1]"),
                    format!(
                        "no {} path from the tunnel end \"{end_b}\" to \"{}\"",
                        family_name(inner),
                        nodes[carries[1]].name
                    ),
                )
            })?;
        if nodes_on(&client_side).any(|n| n == ends[1])
            || nodes_on(&server_side).any(|n| n == ends[0])
        {
            return Err(TopologyError::at(
                format!("{key}.between"),
                format!(
                    "\"{end_b}\" lies on the client's side of \"{end_a}\": list the end nearer to \"{}\" first",
                    nodes[carries[0]].name
                ),
            ));
        }
        let tunnel_value = Tunnel {
            kind,
            ends,
            carries,
            implementation: None,
            mtu_bytes: 0,
            subnet: automatic_tunnel_subnet(kind, index),
        };
        if kind == TunnelKind::SixInFour && tunnel_value.placement().is_none() {
            return Err(TopologyError::at(
                format!("{key}.between"),
                format!(
                    "a tunnel from router \"{end_a}\" to the carried host \"{end_b}\" is not one of the 2001 study's placements (host to host, router to router, host to router); tunnel from the client host, or end at a router"
                ),
            ));
        }
        let mechanism = MechanismKind::Tunnel(kind);
        let implementation = tunnel
            .implementation
            .as_deref()
            .map(|given| parse_implementation(&format!("{key}.implementation"), mechanism, given))
            .transpose()?;
        let (inner_key, other_key, given, other) = match kind {
            TunnelKind::SixInFour => ("ipv6", "ipv4", &tunnel.ipv6, &tunnel.ipv4),
            TunnelKind::FourInSix => ("ipv4", "ipv6", &tunnel.ipv4, &tunnel.ipv6),
        };
        if other.is_some() {
            return Err(TopologyError::at(
                format!("{key}.{other_key}"),
                format!(
                    "a {kind} tunnel carries {}: its addresses come from `{inner_key}`",
                    family_name(inner)
                ),
            ));
        }
        let subnet = match given.as_deref() {
            None => automatic_tunnel_subnet(kind, index),
            Some(text) => {
                let at = |m: String| TopologyError::at(format!("{key}.{inner_key}"), m);
                match kind {
                    TunnelKind::SixInFour => TunnelSubnet::V6(text.parse().map_err(at)?),
                    TunnelKind::FourInSix => TunnelSubnet::V4(text.parse().map_err(at)?),
                }
            }
        };
        let subnet_key = format!("{key}.{inner_key}");
        check_tunnel_subnet(&subnet_key, subnet, links, &tunnels)?;
        let path_mtu = outer_path
            .iter()
            .map(|hop| links[hop.link].mtu_bytes)
            .min()
            .unwrap_or(u32::MAX);
        let largest = path_mtu.saturating_sub(kind.overhead_bytes());
        let mtu_bytes = tunnel.mtu_bytes.unwrap_or(largest);
        if mtu_bytes > largest {
            return Err(TopologyError::at(
                format!("{key}.mtu_bytes"),
                format!(
                    "{mtu_bytes} exceeds the path MTU between \"{end_a}\" and \"{end_b}\" ({path_mtu}) minus the {}-byte outer header: at most {largest}",
                    kind.overhead_bytes()
                ),
            ));
        }
        if mtu_bytes < kind.min_mtu_bytes() {
            let what = if tunnel.mtu_bytes.is_some() {
                format!("{mtu_bytes}")
            } else {
                format!("the path MTU {path_mtu} leaves {mtu_bytes}, which")
            };
            return Err(TopologyError::at(
                format!("{key}.mtu_bytes"),
                format!(
                    "{what} is below the {} minimum of {} bytes",
                    family_name(inner),
                    kind.min_mtu_bytes()
                ),
            ));
        }
        if kind == TunnelKind::FourInSix {
            let space = srv6_sid_space();
            if let Some((j, _)) = links
                .iter()
                .enumerate()
                .find(|(_, l)| l.subnets.v6.overlaps(&space))
            {
                return Err(TopologyError::at(
                    format!("link[{j}].ipv6"),
                    format!("overlaps {space}, where 4in6 tunnels keep their SRv6 segment ids"),
                ));
            }
        }
        tunnels.push(Tunnel {
            implementation,
            mtu_bytes,
            subnet,
            ..tunnel_value
        });
    }
    Ok(tunnels)
}

fn parse_implementation(
    key: &str,
    mechanism: MechanismKind,
    given: &str,
) -> Result<Implementation> {
    Implementation::parse_for(mechanism, given).ok_or_else(|| {
        let candidates = Implementation::candidates(mechanism).map(Implementation::key);
        TopologyError::at(
            key,
            format!(
                "\"{given}\" does not implement {}; use \"{}\" or \"{}\" (or leave it out: the best this kernel has){}",
                mechanism.key(),
                candidates[0],
                candidates[1],
                did_you_mean(given, candidates)
            ),
        )
    })
}

fn check_tunnel_subnet(
    key: &str,
    subnet: TunnelSubnet,
    links: &[Link],
    earlier: &[Tunnel],
) -> Result<()> {
    for (j, link) in links.iter().enumerate() {
        let clash = match subnet {
            TunnelSubnet::V4(s) => s
                .overlaps(&link.subnets.v4)
                .then(|| link.subnets.v4.to_string()),
            TunnelSubnet::V6(s) => s
                .overlaps(&link.subnets.v6)
                .then(|| link.subnets.v6.to_string()),
        };
        if let Some(theirs) = clash {
            return Err(TopologyError::at(
                key,
                format!("{subnet} overlaps link[{j}]'s {theirs}"),
            ));
        }
    }
    for (j, other) in earlier.iter().enumerate() {
        let overlaps = match (subnet, other.subnet) {
            (TunnelSubnet::V4(a), TunnelSubnet::V4(b)) => a.overlaps(&b),
            (TunnelSubnet::V6(a), TunnelSubnet::V6(b)) => a.overlaps(&b),
            _ => false,
        };
        if overlaps {
            return Err(TopologyError::at(
                key,
                format!("{subnet} overlaps tunnel[{j}]'s {}", other.subnet),
            ));
        }
    }
    Ok(())
}

/// True for IPv4 addresses RFC 6052 §3.1 calls non-global (RFC 1918, RFC
/// 5735 §3 special-use) and TAYGA refuses under the Well-Known Prefix.
pub(crate) fn is_non_global(v4: Ipv4Addr) -> bool {
    const RANGES: [([u8; 4], u8); 13] = [
        ([0, 0, 0, 0], 8),
        ([10, 0, 0, 0], 8),
        ([100, 64, 0, 0], 10),
        ([127, 0, 0, 0], 8),
        ([169, 254, 0, 0], 16),
        ([172, 16, 0, 0], 12),
        ([192, 0, 0, 0], 24),
        ([192, 0, 2, 0], 24),
        ([192, 168, 0, 0], 16),
        ([198, 18, 0, 0], 15),
        ([198, 51, 100, 0], 24),
        ([203, 0, 113, 0], 24),
        ([224, 0, 0, 0], 3),
    ];
    RANGES.iter().any(|(network, len)| {
        let mask = u32::MAX << (32 - u32::from(*len));
        u32::from(v4) & mask == u32::from(Ipv4Addr::from(*network))
    })
}

/// The `family` address of `node` on its first link that carries it.
fn address_of(nodes: &[Node], links: &[Link], node: usize, family: IpFamily) -> Option<IpAddr> {
    links.iter().find_map(|link| {
        let end = link.end_of(node)?;
        link.ends
            .iter()
            .all(|&n| nodes[n].stack.has(family))
            .then(|| link.addresses(end)[family_index(family)].address)
    })
}

pub(super) fn validate_translators(
    raw: &[RawTranslator],
    nodes: &[Node],
    links: &[Link],
    names: &[&str],
    roles: ClientServer,
    tunnels: &[Tunnel],
) -> Result<Vec<Translator>> {
    let mut translators: Vec<Translator> = Vec::with_capacity(raw.len());
    for (index, translator) in raw.iter().enumerate() {
        let key = format!("translator[{index}]");
        let kind = match translator.kind.as_str() {
            "nat64" => TranslatorKind::Nat64,
            "6in4" | "4in6" => {
                return Err(TopologyError::at(
                    format!("{key}.kind"),
                    format!(
                        "{} is a tunnel: write it as [[tunnel]] with between = [\"A\", \"B\"]",
                        translator.kind
                    ),
                ))
            }
            other => {
                return Err(TopologyError::at(
                    format!("{key}.kind"),
                    format!(
                        "\"{other}\" is not a translator the lab implements; use \"nat64\"{}",
                        did_you_mean(other, ["nat64"])
                    ),
                ))
            }
        };
        let node_key = format!("{key}.node");
        let node = resolve_node(&node_key, &translator.node, names)?;
        let router = &nodes[node];
        if router.role != Role::Router || router.stack != Stack::Dual {
            return Err(TopologyError::at(
                &node_key,
                format!(
                    "\"{}\" must be a dual-stack router (role = \"router\", stack = \"dual\") to translate between IPv6 and IPv4",
                    router.name
                ),
            ));
        }
        let mechanism = MechanismKind::Translator(kind);
        let implementation = translator
            .implementation
            .as_deref()
            .map(|given| parse_implementation(&format!("{key}.implementation"), mechanism, given))
            .transpose()?;
        let prefix_key = format!("{key}.prefix");
        let prefix: Nat64Prefix = match translator.prefix.as_deref() {
            None => WELL_KNOWN_PREFIX,
            Some(text) => text
                .parse()
                .map_err(|m: String| TopologyError::at(&prefix_key, m))?,
        };
        let pool_key = format!("{key}.pool");
        let pool: Ipv4Subnet = match translator.pool.as_deref() {
            None => default_pool(),
            Some(text) => text
                .parse()
                .map_err(|m: String| TopologyError::at(&pool_key, m))?,
        };
        let (Some(client), Some(server)) = (roles.client, roles.server) else {
            return Err(TopologyError::at(
                &key,
                "a NAT64 serves the topology's client and server; name both (client = \"…\", server = \"…\")",
            ));
        };
        let (client_name, server_name) = (&nodes[client].name, &nodes[server].name);
        if path(nodes, links, Some(IpFamily::V6), client, node).is_none() || client == node {
            return Err(TopologyError::at(
                &node_key,
                format!(
                    "the client \"{client_name}\" has no IPv6 path to \"{}\": the translator must sit between the IPv6 client and the IPv4 server",
                    router.name
                ),
            ));
        }
        if path(nodes, links, Some(IpFamily::V4), node, server).is_none() || server == node {
            return Err(TopologyError::at(
                &node_key,
                format!(
                    "\"{}\" has no IPv4 path to the server \"{server_name}\": the translator must sit between the IPv6 client and the IPv4 server",
                    router.name
                ),
            ));
        }
        let Some(IpAddr::V4(server_v4)) = address_of(nodes, links, server, IpFamily::V4) else {
            unreachable!("an IPv4 path to the server means it has an IPv4 address")
        };
        if prefix.is_well_known() && is_non_global(server_v4) {
            return Err(TopologyError::at(
                &prefix_key,
                format!(
                    "the Well-Known Prefix 64:ff9b::/96 must not carry the non-global IPv4 address {server_v4} of the server \"{server_name}\" (RFC 6052 §3.1; TAYGA refuses it): give the server's link a global ipv4 subnet such as \"192.88.99.0/24\", or use a network-specific prefix such as \"fd00:64::/96\""
                ),
            ));
        }
        let prefix_subnet: Ipv6Subnet = prefix.subnet();
        for (j, link) in links.iter().enumerate() {
            if prefix_subnet.overlaps(&link.subnets.v6) {
                return Err(TopologyError::at(
                    &prefix_key,
                    format!("{prefix} overlaps link[{j}]'s {}", link.subnets.v6),
                ));
            }
            if pool.overlaps(&link.subnets.v4) {
                return Err(TopologyError::at(
                    &pool_key,
                    format!("{pool} overlaps link[{j}]'s {}", link.subnets.v4),
                ));
            }
        }
        for (j, tunnel) in tunnels.iter().enumerate() {
            let clash = match tunnel.subnet {
                TunnelSubnet::V6(s) => s.overlaps(&prefix_subnet).then_some(&prefix_key),
                TunnelSubnet::V4(s) => s.overlaps(&pool).then_some(&pool_key),
            };
            if let Some(at) = clash {
                return Err(TopologyError::at(
                    at,
                    format!("overlaps tunnel[{j}]'s {}", tunnel.subnet),
                ));
            }
        }
        for (j, other) in translators.iter().enumerate() {
            if other.prefix.subnet().overlaps(&prefix_subnet) {
                return Err(TopologyError::at(
                    &prefix_key,
                    format!("{prefix} overlaps translator[{j}]'s {}", other.prefix),
                ));
            }
            if other.pool.overlaps(&pool) {
                return Err(TopologyError::at(
                    &pool_key,
                    format!("{pool} overlaps translator[{j}]'s {}", other.pool),
                ));
            }
        }
        translators.push(Translator {
            kind,
            node,
            prefix,
            pool,
            implementation,
        });
    }
    Ok(translators)
}

#[cfg(test)]
mod tests {
    use super::is_non_global;
    use crate::error::LabError;
    use crate::preset;
    use crate::topology::{Topology, TunnelKind};
    use dualperf_model::TunnelPlacement;

    fn preset_text(name: &str) -> String {
        preset::PRESETS
            .iter()
            .find(|(n, _)| *n == name)
            .unwrap()
            .1
            .to_string()
    }

    fn topology_error(text: &str) -> String {
        match Topology::from_toml("t", text) {
            Err(LabError::Topology { source, .. }) => source.to_string(),
            Err(other) => panic!("expected a topology error, got {other}"),
            Ok(_) => panic!("topology was accepted"),
        }
    }

    #[test]
    fn tunnel_presets_validate_with_the_paper_placements_and_mtus() {
        let tunnels = preset::load("tunnels").unwrap();
        let placements: Vec<_> = tunnels.tunnels().iter().map(|t| t.placement()).collect();
        assert_eq!(
            placements,
            [
                Some(TunnelPlacement::HostHost),
                Some(TunnelPlacement::RouterRouter),
                Some(TunnelPlacement::HostRouter)
            ]
        );
        assert!(tunnels.tunnels().iter().all(|t| t.mtu_bytes == 1480));
        let four = preset::load("four-in-six").unwrap();
        assert_eq!(four.tunnels()[0].kind, TunnelKind::FourInSix);
        assert_eq!(four.tunnels()[0].mtu_bytes, 1460);
        assert_eq!(four.tunnels()[0].subnet.to_string(), "10.181.1.0/24");
    }

    #[test]
    fn an_unknown_tunnel_kind_points_at_the_kind() {
        let text = preset_text("tunnel-host-host").replace("kind = \"6in4\"", "kind = \"gre\"");
        let err = topology_error(&text);
        assert!(
            err.starts_with("tunnel[0].kind: \"gre\" is not a tunnel kind"),
            "{err}"
        );
        let text = preset_text("tunnel-host-host").replace("kind = \"6in4\"", "kind = \"6in44\"");
        assert!(topology_error(&text).contains("(did you mean \"6in4\"?)"));
        let text = preset_text("tunnel-host-host").replace("kind = \"6in4\"", "kind = \"nat64\"");
        assert!(topology_error(&text).contains("[[translator]]"));
    }

    #[test]
    fn unknown_keys_in_a_tunnel_or_translator_are_rejected() {
        let text =
            preset_text("tunnel-host-host").replace("kind = \"6in4\"", "kind = \"6in4\"\nttl = 3");
        let err = Topology::from_toml("t", &text).unwrap_err().to_string();
        assert!(err.contains("unknown field `ttl`"), "{err}");
        let text = preset_text("nat64").replace(
            "kind = \"nat64\"",
            "kind = \"nat64\"\nprefixx = \"64:ff9b::/96\"",
        );
        let err = Topology::from_toml("t", &text).unwrap_err().to_string();
        assert!(err.contains("unknown field `prefixx`"), "{err}");
    }

    #[test]
    fn a_missing_node_in_between_suggests_the_right_name() {
        let text = preset_text("tunnel-host-host").replace(
            "between = [\"client\", \"server\"]\n",
            "between = [\"client\", \"sever\"]\n",
        );
        assert_eq!(
            topology_error(&text),
            "tunnel[0].between[1]: no node named \"sever\" (did you mean \"server\"?)"
        );
    }

    #[test]
    fn a_tunnel_end_that_is_ipv4_only_or_a_host_forwarding_for_others_is_rejected() {
        let text = preset_text("tunnel-host-host").replace(
            "between = [\"client\", \"server\"]\n",
            "between = [\"middle\", \"server\"]\n",
        );
        let err = topology_error(&text);
        assert!(
            err.starts_with("tunnel[0].between[0]: \"middle\" is ipv4-only"),
            "{err}"
        );
        // router-router with the routers made hosts
        let text = preset_text("tunnel-router-router").replacen(
            "name = \"router1\"\nrole = \"router\"",
            "name = \"router1\"",
            1,
        );
        let err = topology_error(&text);
        assert!(
            err.starts_with("tunnel[0].between[0]: \"router1\" forwards"),
            "{err}"
        );
    }

    #[test]
    fn a_tunnel_without_an_outer_path_or_listed_backwards_is_rejected() {
        // 4in6 over the IPv4-only middle: no IPv6 path between the ends
        let text =
            preset_text("tunnel-router-router").replace("kind = \"6in4\"", "kind = \"4in6\"");
        let err = topology_error(&text);
        assert!(
            err.starts_with("tunnel[0].between: no IPv6 path joins \"router1\" and \"router2\""),
            "{err}"
        );
        let text = preset_text("tunnels").replace(
            "between = [\"router1\", \"router2\"]\n\n[[tunnel]]",
            "between = [\"router2\", \"router1\"]\n\n[[tunnel]]",
        );
        let err = topology_error(&text);
        assert!(
            err.starts_with("tunnel[1].between:") && err.contains("first"),
            "{err}"
        );
    }

    #[test]
    fn a_router_to_host_6in4_tunnel_is_not_a_placement() {
        let text = preset_text("tunnels").replace(
            "between = [\"client\", \"router2\"]",
            "between = [\"router1\", \"server\"]",
        );
        let err = topology_error(&text);
        assert!(
            err.starts_with("tunnel[2].between: a tunnel from router"),
            "{err}"
        );
    }

    #[test]
    fn tunnel_mtu_limits_and_subnet_keys_point_at_the_key() {
        let base = preset_text("tunnel-host-host");
        let text = base.replace("kind = \"6in4\"", "kind = \"6in4\"\nmtu_bytes = 1490");
        assert!(topology_error(&text).starts_with("tunnel[0].mtu_bytes: 1490 exceeds the path MTU"));
        let text = base.replace("kind = \"6in4\"", "kind = \"6in4\"\nmtu_bytes = 1200");
        assert!(topology_error(&text).contains("below the IPv6 minimum of 1280"));
        let text = base.replace("kind = \"6in4\"", "kind = \"6in4\"\nipv4 = \"10.9.0.0/24\"");
        assert!(topology_error(&text).starts_with("tunnel[0].ipv4: a 6in4 tunnel carries IPv6"));
        let text = base.replace(
            "kind = \"6in4\"",
            "kind = \"6in4\"\nimplementation = \"srv6\"",
        );
        let err = topology_error(&text);
        assert!(
            err.starts_with("tunnel[0].implementation: \"srv6\" does not implement 6in4"),
            "{err}"
        );
        let smaller = base.replacen(
            "between = [\"client\", \"middle\"]",
            "between = [\"client\", \"middle\"]\nmtu_bytes = 1400",
            1,
        );
        let topology = Topology::from_toml("t", &smaller).unwrap();
        assert_eq!(
            topology.tunnels()[0].mtu_bytes,
            1380,
            "the smallest link on the path counts"
        );
    }

    #[test]
    fn overlapping_tunnel_subnets_point_at_the_key() {
        let text = preset_text("tunnel-host-host").replacen(
            "between = [\"client\", \"middle\"]",
            "between = [\"client\", \"middle\"]\nipv6 = \"fd00:dead:cafe::/48\"",
            1,
        );
        // the middle is IPv4-only, but the link's IPv6 subnet still may not overlap
        assert_eq!(
            topology_error(&text),
            "tunnel[0].ipv6: fd00:dead:cafe:1::/64 overlaps link[0]'s fd00:dead:cafe::/48"
        );
        let text = preset_text("tunnels").replacen(
            "kind = \"6in4\"\nbetween = [\"router1\", \"router2\"]",
            "kind = \"6in4\"\nbetween = [\"router1\", \"router2\"]\nipv6 = \"fd00:dead:cafe:1::/64\"",
            1,
        );
        assert_eq!(
            topology_error(&text),
            "tunnel[1].ipv6: fd00:dead:cafe:1::/64 overlaps tunnel[0]'s fd00:dead:cafe:1::/64"
        );
    }

    #[test]
    fn an_invalid_nat64_prefix_or_pool_points_at_the_key() {
        let base = preset_text("nat64");
        let with =
            |extra: &str| base.replace("node = \"router\"", &format!("node = \"router\"\n{extra}"));
        assert!(topology_error(&with("prefix = \"64:ff9b::/95\""))
            .starts_with("translator[0].prefix: `64:ff9b::/95` is not a NAT64 prefix"));
        assert!(topology_error(&with("prefix = \"fd00:dead:beef:1::/64\""))
            .starts_with("translator[0].prefix: fd00:dead:beef:1::/64 overlaps link[0]"));
        assert!(topology_error(&with("pool = \"192.88.99.0/25\""))
            .starts_with("translator[0].pool: 192.88.99.0/25 overlaps link[1]"));
        assert!(topology_error(&with("implementation = \"tayga2\""))
            .contains("(did you mean \"tayga\"?)"));
        let network_specific =
            Topology::from_toml("t", &with("prefix = \"fd00:64::/96\"")).unwrap();
        assert_eq!(
            network_specific.translators()[0].prefix.to_string(),
            "fd00:64::/96"
        );
    }

    #[test]
    fn the_well_known_prefix_refuses_a_private_server_address() {
        let text = preset_text("nat64").replace("ipv4 = \"192.88.99.0/24\"\n", "");
        let err = topology_error(&text);
        assert!(
            err.starts_with("translator[0].prefix: the Well-Known Prefix 64:ff9b::/96 must not carry the non-global IPv4 address 10.180.2.2"),
            "{err}"
        );
        let fixed = text.replace(
            "node = \"router\"",
            "node = \"router\"\nprefix = \"fd00:64::/96\"",
        );
        Topology::from_toml("t", &fixed).unwrap();
        assert!(is_non_global("198.51.100.7".parse().unwrap()));
        assert!(!is_non_global("192.88.99.2".parse().unwrap()));
    }

    #[test]
    fn a_translator_off_the_path_or_on_a_host_is_rejected() {
        let base = preset_text("nat64");
        let err = topology_error(&base.replace("node = \"router\"", "node = \"server\""));
        assert!(
            err.starts_with("translator[0].node: \"server\" must be a dual-stack router"),
            "{err}"
        );
        let err = topology_error(&base.replace("node = \"router\"", "node = \"routr\""));
        assert!(err.contains("(did you mean \"router\"?)"), "{err}");
        let err = topology_error(&base.replace("kind = \"nat64\"", "kind = \"nat46\""));
        assert!(err.starts_with("translator[0].kind: \"nat46\""), "{err}");
    }

    #[test]
    fn a_link_between_an_ipv4_only_and_an_ipv6_only_node_carries_nothing() {
        let text = preset_text("nat64")
            .replace(
                "name = \"client\"",
                "name = \"client\"\nstack = \"ipv6-only\"",
            )
            .replace(
                "name = \"router\"\nrole = \"router\"",
                "name = \"router\"\nrole = \"router\"\nstack = \"ipv4-only\"",
            );
        let err = topology_error(&text);
        assert!(
            err.starts_with("link[0].between: \"client\" is ipv6-only and \"router\" is ipv4-only"),
            "{err}"
        );
        let text = preset_text("nat64").replace("stack = \"ipv4-only\"", "stack = \"ipv4only\"");
        assert!(topology_error(&text).contains("(did you mean \"ipv4-only\"?)"));
    }
}

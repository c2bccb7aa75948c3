//! The testbed as a record stored with results ([`TestbedFacts`]): a number
//! measured on it must say where it was measured.

use dualperf_model::testbed::{TestbedEgress, TestbedLink, TestbedMechanism, TestbedNode};
use dualperf_model::{IpFamily, TestbedFacts};

use crate::arms::{translator_arm, tunnel_arm};
use crate::mechanism::{node_sysctls, notes as mechanism_notes, Implementations};
use crate::naming::{interface_name, namespace_name, LinkEnd, RunId};
use crate::topology::routes::routes_of;
use crate::topology::{family_index, Topology};

/// Describes `topology` as built for run `run` with `implementations`;
/// `notes` are the missing-feature notes (see [`crate::Capabilities::notes`]).
pub fn testbed_facts(
    topology: &Topology,
    run: &RunId,
    implementations: &Implementations,
    notes: Vec<String>,
) -> TestbedFacts {
    let name_of = |node: usize| topology.nodes()[node].name.clone();
    let nodes = topology
        .nodes()
        .iter()
        .enumerate()
        .map(|(index, node)| {
            let mut addresses: Vec<String> = topology
                .links()
                .iter()
                .filter_map(|link| {
                    let end = link.end_of(index)?;
                    let pair = link.addresses(end);
                    Some(
                        IpFamily::ALL
                            .into_iter()
                            .filter(|f| topology.link_carries(link, *f))
                            .map(|f| pair[family_index(f)].to_string())
                            .collect::<Vec<_>>(),
                    )
                })
                .flatten()
                .collect();
            for tunnel in topology.tunnels() {
                for side in 0..2 {
                    if tunnel.carries[side] == index {
                        addresses.push(format!(
                            "{}/{} (tunnel, on lo)",
                            tunnel.subnet.address(side),
                            tunnel.subnet.host_prefix_len()
                        ));
                    }
                }
            }
            let routes = routes_of(topology, index)
                .into_iter()
                .map(|route| {
                    let interface = interface_name(run, route.out_link, route.out_end);
                    format!("{} via {} dev {interface}", route.destination, route.via)
                })
                .collect();
            let sysctls = node_sysctls(topology, index, implementations);
            TestbedNode {
                name: node.name.clone(),
                netns: namespace_name(run, &node.name),
                role: node.role.key().to_string(),
                addresses,
                forwarding: sysctls.iter().any(|s| s == "net.ipv4.ip_forward=1"),
                routes,
                sysctls,
            }
        })
        .collect();
    let links = topology
        .links()
        .iter()
        .enumerate()
        .map(|(index, link)| {
            let egress: Vec<TestbedEgress> = LinkEnd::BOTH
                .into_iter()
                .filter_map(|end| {
                    link.egress[end.index()]
                        .as_ref()
                        .map(|shaping| TestbedEgress {
                            from: name_of(link.node(end)),
                            to: name_of(link.node(end.peer())),
                            rate_qdisc: shaping.rate.map(|(q, _)| q.key().to_string()),
                            rate_bits_per_second: shaping.rate.map(|(_, r)| r.bits_per_second()),
                            queue_limit_packets: shaping.queue_limit_packets,
                            delay_us: shaping.delay.as_micros() as u64,
                            jitter_us: shaping.jitter.as_micros() as u64,
                            loss_ratio: shaping.loss_ratio,
                            emulation: shaping
                                .needs_netem()
                                .then(|| implementations.link_emulation.key().to_string()),
                        })
                })
                .collect();
            let shaping = LinkEnd::BOTH
                .into_iter()
                .filter_map(|end| {
                    link.egress[end.index()].as_ref().map(|shaping| {
                        format!(
                            "{}→{}: {}",
                            name_of(link.node(end)),
                            name_of(link.node(end.peer())),
                            implementations.link_emulation.describe_shaping(shaping)
                        )
                    })
                })
                .collect::<Vec<_>>();
            TestbedLink {
                between: [name_of(link.ends[0]), name_of(link.ends[1])],
                interfaces: [
                    interface_name(run, index, LinkEnd::A),
                    interface_name(run, index, LinkEnd::B),
                ],
                mtu_bytes: link.mtu_bytes,
                shaping: (!shaping.is_empty()).then(|| shaping.join("; ")),
                subnets: vec![link.subnets.v4.to_string(), link.subnets.v6.to_string()],
                egress,
            }
        })
        .collect();
    TestbedFacts {
        name: topology.name().to_string(),
        description: topology.description().to_string(),
        nodes,
        links,
        client_node: topology
            .client()
            .map(|n| n.name.clone())
            .unwrap_or_default(),
        server_node: topology
            .server()
            .map(|n| n.name.clone())
            .unwrap_or_default(),
        notes,
        run_id: run.to_string(),
        mechanisms: mechanism_facts(topology, implementations),
        diffserv: None,
        calibration: None,
        link_rate: None,
    }
}

/// One record per tunnel and translator: where it runs, which
/// implementation, the tunnel MTU, the arm it serves and notes.
pub fn mechanism_facts(
    topology: &Topology,
    implementations: &Implementations,
) -> Vec<TestbedMechanism> {
    let name_of = |node: usize| topology.nodes()[node].name.clone();
    let mut out = Vec::new();
    for (index, (tunnel, implementation)) in topology
        .tunnels()
        .iter()
        .zip(&implementations.tunnels)
        .enumerate()
    {
        out.push(TestbedMechanism {
            kind: tunnel.kind.key().to_string(),
            between: tunnel.ends.iter().map(|&n| name_of(n)).collect(),
            carries: tunnel.carries.iter().map(|&n| name_of(n)).collect(),
            implementation: implementation.key().to_string(),
            mtu_bytes: Some(tunnel.mtu_bytes),
            arm: tunnel_arm(topology, index).map(|arm| arm.id.to_string()),
            notes: mechanism_notes(*implementation, Some(tunnel.mtu_bytes)),
        });
    }
    for (index, (translator, implementation)) in topology
        .translators()
        .iter()
        .zip(&implementations.translators)
        .enumerate()
    {
        out.push(TestbedMechanism {
            kind: translator.kind.key().to_string(),
            between: vec![name_of(translator.node)],
            carries: [topology.client, topology.server]
                .into_iter()
                .flatten()
                .map(name_of)
                .collect(),
            implementation: implementation.key().to_string(),
            mtu_bytes: None,
            arm: translator_arm(topology, index).map(|arm| arm.id.to_string()),
            notes: mechanism_notes(*implementation, None),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preset;

    #[test]
    fn bottleneck_facts_record_the_shaped_directions_and_the_router_routes() {
        let topology = preset::load("bottleneck").unwrap();
        let facts = testbed_facts(
            &topology,
            &RunId::new("f1").unwrap(),
            &Implementations::default(),
            vec!["note".into()],
        );
        assert_eq!(facts.client_node, "client");
        assert_eq!(facts.server_node, "server");
        assert_eq!(facts.links[1].egress.len(), 2);
        assert_eq!(
            facts.links[1].egress[0].rate_bits_per_second,
            Some(10_000_000)
        );
        assert!(facts.links[1]
            .shaping
            .as_deref()
            .unwrap()
            .contains("router1→router2: htb 10.000 Mbit/s"));
        assert_eq!(facts.links[0].shaping, None);
        assert!(facts.nodes[1].forwarding && !facts.nodes[0].forwarding);
        assert!(facts.nodes[0]
            .routes
            .contains(&"10.180.3.0/24 via 10.180.1.2 dev dspf1-0a".to_string()));
        assert_eq!(
            facts.nodes[0].addresses,
            ["10.180.1.1/24", "fd00:dead:beef:1::1/64"]
        );
    }

    #[test]
    fn facts_record_each_mechanism_its_implementation_arm_and_tunnel_addresses() {
        let topology = preset::load("tunnels").unwrap();
        let implementations = Implementations::assumed(&topology);
        let facts = testbed_facts(
            &topology,
            &RunId::new("f2").unwrap(),
            &implementations,
            Vec::new(),
        );
        let summary: Vec<(String, String, Option<String>)> = facts
            .mechanisms
            .iter()
            .map(|m| (m.between.join("-"), m.implementation.clone(), m.arm.clone()))
            .collect();
        assert_eq!(
            summary,
            [
                (
                    "client-server".to_string(),
                    "bpf-lwt".to_string(),
                    Some("v6-6in4-host-host".to_string())
                ),
                (
                    "router1-router2".to_string(),
                    "bpf-lwt".to_string(),
                    Some("v6-6in4-router-router".to_string())
                ),
                (
                    "client-router2".to_string(),
                    "bpf-lwt".to_string(),
                    Some("v6-6in4-host-router".to_string())
                ),
            ]
        );
        assert!(facts
            .mechanisms
            .iter()
            .all(|m| m.carries == ["client", "server"]));
        assert!(facts.nodes[0]
            .addresses
            .contains(&"fd00:dead:cafe:1::1/128 (tunnel, on lo)".to_string()));
        let nat64 = preset::load("nat64").unwrap();
        let facts = testbed_facts(
            &nat64,
            &RunId::new("f2").unwrap(),
            &Implementations::assumed(&nat64),
            Vec::new(),
        );
        assert_eq!(facts.mechanisms[0].implementation, "tayga");
        assert_eq!(facts.mechanisms[0].arm.as_deref(), Some("v6-nat64"));
        assert!(facts.mechanisms[0]
            .notes
            .iter()
            .any(|n| n.contains("one core")));
        // the IPv4-only server lists no IPv6 address
        assert_eq!(facts.nodes[2].addresses, ["192.88.99.2/24"]);
        let json = serde_json::to_string(&facts).unwrap();
        let back: dualperf_model::TestbedFacts = serde_json::from_str(&json).unwrap();
        assert_eq!(back, facts);
    }
}

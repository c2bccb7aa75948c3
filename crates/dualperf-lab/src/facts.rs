//! The testbed as a record stored with results ([`TestbedFacts`]): a number
//! measured on it must say where it was measured.

use dualperf_model::testbed::{TestbedEgress, TestbedLink, TestbedNode};
use dualperf_model::TestbedFacts;

use crate::naming::{interface_name, namespace_name, LinkEnd, RunId};
use crate::plan::sysctls;
use crate::routes::routes_of;
use crate::topology::{Role, Topology};

/// Describes `topology` as built for run `run`; `notes` are the
/// missing-feature notes (see [`crate::Capabilities::notes`]).
pub fn testbed_facts(topology: &Topology, run: &RunId, notes: Vec<String>) -> TestbedFacts {
    let name_of = |node: usize| topology.nodes()[node].name.clone();
    let nodes = topology
        .nodes()
        .iter()
        .enumerate()
        .map(|(index, node)| {
            let addresses = topology
                .links()
                .iter()
                .filter_map(|link| link.end_of(index).map(|end| link.addresses(end)))
                .flat_map(|pair| pair.map(|a| a.to_string()))
                .collect();
            let routes = routes_of(topology, index)
                .into_iter()
                .flat_map(|route| {
                    let interface = interface_name(run, route.out_link, route.out_end);
                    [
                        format!(
                            "{} via {} dev {interface}",
                            route.destination.v4, route.via[0]
                        ),
                        format!(
                            "{} via {} dev {interface}",
                            route.destination.v6, route.via[1]
                        ),
                    ]
                })
                .collect();
            TestbedNode {
                name: node.name.clone(),
                netns: namespace_name(run, &node.name),
                role: node.role.key().to_string(),
                addresses,
                forwarding: node.role == Role::Router,
                routes,
                sysctls: sysctls(node.role),
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
                            shaping.describe()
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preset;

    #[test]
    fn bottleneck_facts_record_the_shaped_directions_and_the_router_routes() {
        let topology = preset::load("bottleneck").unwrap();
        let facts = testbed_facts(&topology, &RunId::new("f1").unwrap(), vec!["note".into()]);
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
}

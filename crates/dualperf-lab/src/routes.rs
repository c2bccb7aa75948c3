//! Static routes along shortest paths, for both families.
//!
//! Every node needs a route to the subnet of every link it is not on. The
//! route follows a shortest path counted in hops (breadth-first search over
//! links in topology order, so ties resolve the same way every time) and
//! points at the neighbour's address on the first link of that path:
//!
//! ```text
//! ip -n dsp-RUN-client route add 10.180.2.0/24 via 10.180.1.2 dev dspRUN-0a
//! ip -n dsp-RUN-client -6 route add fd00:dead:beef:2::/64 via fd00:dead:beef:1::2 dev dspRUN-0a
//! ```
//!
//! The same next hop serves both families, so IPv4 and IPv6 packets take
//! the same path: a comparison must not differ in topology.

use std::collections::VecDeque;
use std::net::IpAddr;

use crate::addressing::LinkSubnets;
use crate::naming::LinkEnd;
use crate::topology::{Link, Topology};

/// One static route of one node, for both families at once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Route {
    /// The destination link's subnets.
    pub destination: LinkSubnets,
    /// Index of the link the packets leave by.
    pub out_link: usize,
    /// This node's end of that link.
    pub out_end: LinkEnd,
    /// The neighbour's IPv4 and IPv6 address on that link: the next hop.
    pub via: [IpAddr; 2],
}

/// Hop counts from node `from` to every node; `None` where no path exists.
pub fn hop_distances(node_count: usize, links: &[Link], from: usize) -> Vec<Option<usize>> {
    search(node_count, links, from).0
}

/// The first link of a path (its index) and the origin's end of it.
type FirstHop = (usize, LinkEnd);

/// Breadth-first search: distances and, per node, the first link (and our
/// end of it) on a shortest path from `from`.
fn search(
    node_count: usize,
    links: &[Link],
    from: usize,
) -> (Vec<Option<usize>>, Vec<Option<FirstHop>>) {
    let mut distance = vec![None; node_count];
    let mut first_hop: Vec<Option<FirstHop>> = vec![None; node_count];
    distance[from] = Some(0);
    let mut queue = VecDeque::from([from]);
    while let Some(node) = queue.pop_front() {
        let here = distance[node].expect("queued nodes have a distance");
        for (index, link) in links.iter().enumerate() {
            let Some(end) = link.end_of(node) else {
                continue;
            };
            let neighbour = link.node(end.peer());
            if distance[neighbour].is_none() {
                distance[neighbour] = Some(here + 1);
                first_hop[neighbour] = if node == from {
                    Some((index, end))
                } else {
                    first_hop[node]
                };
                queue.push_back(neighbour);
            }
        }
    }
    (distance, first_hop)
}

/// The static routes node `node` needs to reach every link subnet it is not on.
pub fn routes_of(topology: &Topology, node: usize) -> Vec<Route> {
    let links = topology.links();
    let (distance, first_hop) = search(topology.nodes().len(), links, node);
    let mut routes = Vec::new();
    for link in links {
        if link.end_of(node).is_some() {
            continue;
        }
        let [a, b] = link.ends;
        let Some((da, db)) = distance[a].zip(distance[b]) else {
            continue;
        };
        let target = if db < da { b } else { a };
        let (out_link, out_end) =
            first_hop[target].expect("a reachable node other than the origin has a first hop");
        let [v4, v6] = links[out_link].addresses(out_end.peer());
        routes.push(Route {
            destination: link.subnets,
            out_link,
            out_end,
            via: [v4.address, v6.address],
        });
    }
    routes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(nodes: usize) -> Topology {
        let mut text = String::from("description = \"chain\"\n");
        for i in 0..nodes {
            text += &format!("[[node]]\nname = \"n{i}\"\nrole = \"router\"\n");
        }
        for i in 1..nodes {
            text += &format!("[[link]]\nbetween = [\"n{}\", \"n{i}\"]\n", i - 1);
        }
        Topology::from_toml("chain", &text).unwrap()
    }

    #[test]
    fn an_end_of_a_chain_routes_every_far_subnet_via_its_only_neighbour() {
        let topology = chain(4);
        let routes = routes_of(&topology, 0);
        assert_eq!(routes.len(), 2);
        for route in &routes {
            assert_eq!(route.out_link, 0);
            assert_eq!(route.out_end, LinkEnd::A);
            assert_eq!(route.via[0].to_string(), "10.180.1.2");
            assert_eq!(route.via[1].to_string(), "fd00:dead:beef:1::2");
        }
        assert_eq!(routes[1].destination.v4.to_string(), "10.180.3.0/24");
    }

    #[test]
    fn a_middle_node_routes_each_side_toward_that_side() {
        let topology = chain(4);
        let routes = routes_of(&topology, 1);
        assert_eq!(routes.len(), 1);
        assert_eq!(routes[0].destination.v4.to_string(), "10.180.3.0/24");
        assert_eq!(routes[0].via[0].to_string(), "10.180.2.2");
    }

    #[test]
    fn directly_connected_nodes_need_no_routes() {
        let topology = chain(2);
        assert!(routes_of(&topology, 0).is_empty());
        assert!(routes_of(&topology, 1).is_empty());
    }

    #[test]
    fn hop_distances_count_links() {
        let topology = chain(3);
        assert_eq!(
            hop_distances(3, topology.links(), 0),
            vec![Some(0), Some(1), Some(2)]
        );
    }
}

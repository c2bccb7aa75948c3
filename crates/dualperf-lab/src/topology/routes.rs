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
//! Each family is routed over the links whose two ends speak it (see
//! `stack` in the topology). On a dual-stack path the same next hop serves
//! both families, so IPv4 and IPv6 packets take the same path: a comparison
//! must not differ in topology.

use std::collections::VecDeque;
use std::net::IpAddr;

use dualperf_model::IpFamily;

use crate::naming::LinkEnd;
use crate::topology::{family_index, Link, Node, Topology};

/// One static route of one node to a link subnet, in one family.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Route {
    /// The family.
    pub family: IpFamily,
    /// The destination link subnet, e.g. `10.180.2.0/24`.
    pub destination: String,
    /// Index of the link the packets leave by.
    pub out_link: usize,
    /// This node's end of that link.
    pub out_end: LinkEnd,
    /// The neighbour's address on that link: the next hop.
    pub via: IpAddr,
}

/// One step of a path: from `node`, out of its end `out_end` of link
/// `link`, to `next`.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct Hop {
    /// The node the packet leaves.
    pub node: usize,
    /// The link it leaves by.
    pub link: usize,
    /// `node`'s end of that link.
    pub out_end: LinkEnd,
    /// The node it reaches.
    pub next: usize,
}

/// True when both ends of `link` speak `family` (`None`: any link).
pub fn link_carries(nodes: &[Node], link: &Link, family: Option<IpFamily>) -> bool {
    family.is_none_or(|family| link.ends.iter().all(|&n| nodes[n].stack.has(family)))
}

/// Hop counts from node `from` to every node over all links; `None` where
/// no path exists.
pub fn hop_distances(node_count: usize, links: &[Link], from: usize) -> Vec<Option<usize>> {
    let (distance, _) = search_links(node_count, links, &|_| true, from);
    distance
}

/// The arriving hop of every node on a shortest path from `from`.
type Parents = Vec<Option<Hop>>;

/// Breadth-first search over the links `usable` accepts, in topology order
/// (ties resolve the same way every time): distances and, per node, the hop
/// that first reached it.
fn search_links(
    node_count: usize,
    links: &[Link],
    usable: &dyn Fn(&Link) -> bool,
    from: usize,
) -> (Vec<Option<usize>>, Parents) {
    let mut distance = vec![None; node_count];
    let mut parent: Parents = vec![None; node_count];
    distance[from] = Some(0);
    let mut queue = VecDeque::from([from]);
    while let Some(node) = queue.pop_front() {
        let here = distance[node].expect("queued nodes have a distance");
        for (index, link) in links.iter().enumerate() {
            if !usable(link) {
                continue;
            }
            let Some(end) = link.end_of(node) else {
                continue;
            };
            let neighbour = link.node(end.peer());
            if distance[neighbour].is_none() {
                distance[neighbour] = Some(here + 1);
                parent[neighbour] = Some(Hop {
                    node,
                    link: index,
                    out_end: end,
                    next: neighbour,
                });
                queue.push_back(neighbour);
            }
        }
    }
    (distance, parent)
}

fn search(
    nodes: &[Node],
    links: &[Link],
    family: Option<IpFamily>,
    from: usize,
) -> (Vec<Option<usize>>, Parents) {
    search_links(
        nodes.len(),
        links,
        &|link| link_carries(nodes, link, family),
        from,
    )
}

/// The hops of a shortest path from `from` to `to` over links that carry
/// `family` (`None`: any link), in order; empty when `from == to`, `None`
/// when no such path exists.
pub fn path(
    nodes: &[Node],
    links: &[Link],
    family: Option<IpFamily>,
    from: usize,
    to: usize,
) -> Option<Vec<Hop>> {
    if nodes
        .get(from)
        .is_some_and(|n| family.is_some_and(|f| !n.stack.has(f)))
    {
        return None;
    }
    let (_, parent) = search(nodes, links, family, from);
    let mut hops = Vec::new();
    let mut node = to;
    while node != from {
        let hop = parent[node]?;
        hops.push(hop);
        node = hop.node;
    }
    hops.reverse();
    Some(hops)
}

/// The static routes node `node` needs to reach every link subnet it is not
/// on, per family, over links that carry that family. The route follows a
/// shortest path and points at the neighbour's address on its first link.
pub fn routes_of(topology: &Topology, node: usize) -> Vec<Route> {
    let nodes = topology.nodes();
    let links = topology.links();
    let mut routes = Vec::new();
    for family in IpFamily::ALL {
        if !nodes[node].stack.has(family) {
            continue;
        }
        let (distance, parent) = search(nodes, links, Some(family), node);
        let first_hop = |target: usize| {
            let mut hop = parent[target]?;
            while hop.node != node {
                hop = parent[hop.node]?;
            }
            Some(hop)
        };
        for link in links {
            if link.end_of(node).is_some() || !topology.link_carries(link, family) {
                continue;
            }
            let [a, b] = link.ends;
            let Some((da, db)) = distance[a].zip(distance[b]) else {
                continue;
            };
            let target = if db < da { b } else { a };
            let hop =
                first_hop(target).expect("a reachable node other than the origin has a first hop");
            let via = links[hop.link].addresses(hop.out_end.peer())[family_index(family)].address;
            let destination = match family {
                IpFamily::V4 => link.subnets.v4.to_string(),
                IpFamily::V6 => link.subnets.v6.to_string(),
            };
            routes.push(Route {
                family,
                destination,
                out_link: hop.link,
                out_end: hop.out_end,
                via,
            });
        }
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

    fn of_family(routes: &[Route], family: IpFamily) -> Vec<&Route> {
        routes.iter().filter(|r| r.family == family).collect()
    }

    #[test]
    fn an_end_of_a_chain_routes_every_far_subnet_via_its_only_neighbour() {
        let topology = chain(4);
        let routes = routes_of(&topology, 0);
        assert_eq!(routes.len(), 4, "two far subnets, both families");
        for route in &routes {
            assert_eq!(route.out_link, 0);
            assert_eq!(route.out_end, LinkEnd::A);
        }
        let v4 = of_family(&routes, IpFamily::V4);
        let v6 = of_family(&routes, IpFamily::V6);
        assert_eq!((v4.len(), v6.len()), (2, 2));
        assert!(v4.iter().all(|r| r.via.to_string() == "10.180.1.2"));
        assert!(v6
            .iter()
            .all(|r| r.via.to_string() == "fd00:dead:beef:1::2"));
        assert_eq!(v4[1].destination, "10.180.3.0/24");
        assert_eq!(v6[1].destination, "fd00:dead:beef:3::/64");
    }

    #[test]
    fn a_middle_node_routes_each_side_toward_that_side() {
        let topology = chain(4);
        let routes = routes_of(&topology, 1);
        let v4 = of_family(&routes, IpFamily::V4);
        assert_eq!(v4.len(), 1);
        assert_eq!(v4[0].destination, "10.180.3.0/24");
        assert_eq!(v4[0].via.to_string(), "10.180.2.2");
        assert_eq!(of_family(&routes, IpFamily::V6).len(), 1);
    }

    #[test]
    fn an_ipv4_only_middle_carries_no_ipv6_routes() {
        let text = r#"
            description = "v4-only middle"
            [[node]]
            name = "a"
            [[node]]
            name = "m"
            role = "router"
            stack = "ipv4-only"
            [[node]]
            name = "b"
            [[link]]
            between = ["a", "m"]
            [[link]]
            between = ["m", "b"]
        "#;
        let topology = Topology::from_toml("t", text).unwrap();
        let routes = routes_of(&topology, 0);
        assert_eq!(routes.len(), 1);
        assert_eq!(routes[0].family, IpFamily::V4);
        assert!(routes_of(&topology, 1)
            .iter()
            .all(|r| r.family == IpFamily::V4));
        let nodes = topology.nodes();
        assert!(path(nodes, topology.links(), Some(IpFamily::V6), 0, 2).is_none());
        let hops = path(nodes, topology.links(), Some(IpFamily::V4), 0, 2).unwrap();
        assert_eq!(hops.iter().map(|h| h.next).collect::<Vec<_>>(), [1, 2]);
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

//! The build plan: the ordered kernel commands that turn a [`Topology`] into
//! a testbed. It is pure (nothing runs here), so `--dry-run` prints exactly
//! what [`crate::Testbed::build`] executes, and tests can read it without root.
//!
//! Order matters:
//! 1. namespaces, then per namespace `lo` up and the sysctls (forwarding per
//!    role; IPv6 duplicate address detection off *before* links exist, so
//!    addresses are usable at once instead of "tentative" for a second);
//! 2. veth pairs, created directly inside their two namespaces (they never
//!    appear in the host's namespace), with their MTU;
//! 3. addresses (`nodad`) and links up;
//! 4. shaping qdiscs;
//! 5. static routes.

use crate::command::KernelCommand;
use crate::naming::{interface_name, namespace_name, LinkEnd, RunId};
use crate::routes::routes_of;
use crate::shaping::shaping_commands;
use crate::topology::{Role, Topology};

/// What a successful step created, so the testbed can own it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Creates {
    /// A network namespace.
    Namespace {
        /// Its name.
        netns: String,
    },
    /// A veth pair, named by its end A.
    Link {
        /// Namespace of end A.
        netns: String,
        /// Interface name of end A.
        interface: String,
    },
}

/// One command of the plan and what it creates, if anything.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The command.
    pub command: KernelCommand,
    /// What it creates (addresses, qdiscs and routes die with their link or
    /// namespace and are not tracked separately).
    pub creates: Option<Creates>,
}

impl Step {
    fn plain(command: KernelCommand) -> Self {
        Step {
            command,
            creates: None,
        }
    }
}

/// The `sysctl` settings a node gets, as `key=value` words.
pub fn sysctls(role: Role) -> Vec<String> {
    let forwarding = match role {
        Role::Host => "0",
        Role::Router => "1",
    };
    vec![
        "net.ipv6.conf.all.accept_dad=0".to_string(),
        "net.ipv6.conf.default.accept_dad=0".to_string(),
        format!("net.ipv4.ip_forward={forwarding}"),
        format!("net.ipv6.conf.all.forwarding={forwarding}"),
    ]
}

/// The commands that build `topology` for run `run`, in order.
pub fn build_plan(topology: &Topology, run: &RunId) -> Vec<Step> {
    let netns_of = |node: usize| namespace_name(run, &topology.nodes()[node].name);
    let mut steps = Vec::new();
    for (index, node) in topology.nodes().iter().enumerate() {
        let netns = netns_of(index);
        steps.push(Step {
            command: KernelCommand::ip(["netns", "add", netns.as_str()]),
            creates: Some(Creates::Namespace {
                netns: netns.clone(),
            }),
        });
        steps.push(Step::plain(KernelCommand::ip([
            "-n",
            netns.as_str(),
            "link",
            "set",
            "lo",
            "up",
        ])));
        let mut words = vec!["-q".to_string(), "-w".to_string()];
        words.extend(sysctls(node.role));
        steps.push(Step::plain(KernelCommand::in_netns(
            &netns, "sysctl", words,
        )));
    }
    for (index, link) in topology.links().iter().enumerate() {
        let [a, b] = [LinkEnd::A, LinkEnd::B]
            .map(|end| (netns_of(link.node(end)), interface_name(run, index, end)));
        let mtu = link.mtu_bytes.to_string();
        steps.push(Step {
            command: KernelCommand::ip([
                "link", "add", &a.1, "netns", &a.0, "mtu", &mtu, "type", "veth", "peer", "name",
                &b.1, "netns", &b.0, "mtu", &mtu,
            ]),
            creates: Some(Creates::Link {
                netns: a.0.clone(),
                interface: a.1.clone(),
            }),
        });
    }
    for (index, link) in topology.links().iter().enumerate() {
        for end in LinkEnd::BOTH {
            let netns = netns_of(link.node(end));
            let interface = interface_name(run, index, end);
            let [v4, v6] = link.addresses(end);
            steps.push(Step::plain(KernelCommand::ip([
                "-n",
                &netns,
                "addr",
                "add",
                &v4.to_string(),
                "dev",
                &interface,
            ])));
            steps.push(Step::plain(KernelCommand::ip([
                "-n",
                &netns,
                "-6",
                "addr",
                "add",
                &v6.to_string(),
                "dev",
                &interface,
                "nodad",
            ])));
            steps.push(Step::plain(KernelCommand::ip([
                "-n", &netns, "link", "set", &interface, "up",
            ])));
        }
    }
    for (index, link) in topology.links().iter().enumerate() {
        for end in LinkEnd::BOTH {
            if let Some(shaping) = &link.egress[end.index()] {
                let netns = netns_of(link.node(end));
                let interface = interface_name(run, index, end);
                steps.extend(
                    shaping_commands(&netns, &interface, link.mtu_bytes, shaping)
                        .into_iter()
                        .map(Step::plain),
                );
            }
        }
    }
    for node in 0..topology.nodes().len() {
        let netns = netns_of(node);
        for route in routes_of(topology, node) {
            let interface = interface_name(run, route.out_link, route.out_end);
            let destinations = [
                route.destination.v4.to_string(),
                route.destination.v6.to_string(),
            ];
            for (family, (destination, via)) in ["-4", "-6"]
                .into_iter()
                .zip(destinations.iter().zip(route.via))
            {
                steps.push(Step::plain(KernelCommand::ip([
                    "-n",
                    &netns,
                    family,
                    "route",
                    "add",
                    destination,
                    "via",
                    &via.to_string(),
                    "dev",
                    &interface,
                ])));
            }
        }
    }
    steps
}

/// The commands that remove what [`build_plan`] creates: every namespace
/// (which takes its veth ends, addresses, qdiscs and routes with it).
/// Processes still running inside must be stopped first (see `cleanup`).
pub fn teardown_plan(topology: &Topology, run: &RunId) -> Vec<KernelCommand> {
    topology
        .nodes()
        .iter()
        .map(|node| KernelCommand::ip(["netns", "del", namespace_name(run, &node.name).as_str()]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preset;

    fn plan_text(preset_name: &str) -> Vec<String> {
        let topology = preset::load(preset_name).unwrap();
        build_plan(&topology, &RunId::new("t1").unwrap())
            .iter()
            .map(|s| s.command.to_string())
            .collect()
    }

    #[test]
    fn the_router_plan_creates_three_namespaces_and_two_veth_pairs() {
        let lines = plan_text("router");
        assert_eq!(
            lines
                .iter()
                .filter(|l| l.starts_with("ip netns add "))
                .count(),
            3
        );
        assert!(lines.contains(
            &"ip link add dspt1-0a netns dsp-t1-client mtu 1500 type veth peer name dspt1-0b netns dsp-t1-router mtu 1500"
                .to_string()
        ));
        assert!(lines.contains(
            &"ip netns exec dsp-t1-router sysctl -q -w net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0 net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1"
                .to_string()
        ));
    }

    #[test]
    fn the_client_routes_both_families_via_the_router() {
        let lines = plan_text("router");
        assert!(lines.contains(
            &"ip -n dsp-t1-client -4 route add 10.180.2.0/24 via 10.180.1.2 dev dspt1-0a"
                .to_string()
        ));
        assert!(lines.contains(
            &"ip -n dsp-t1-client -6 route add fd00:dead:beef:2::/64 via fd00:dead:beef:1::2 dev dspt1-0a".to_string()
        ));
    }

    #[test]
    fn the_bottleneck_plan_shapes_both_directions_between_the_routers() {
        let lines = plan_text("bottleneck");
        let shaped: Vec<&String> = lines
            .iter()
            .filter(|l| l.contains("htb rate 10000000bit"))
            .collect();
        assert_eq!(shaped.len(), 2, "{lines:#?}");
    }

    #[test]
    fn every_namespace_created_is_removed_by_the_teardown_plan() {
        let topology = preset::load("two-routers").unwrap();
        let run = RunId::new("t1").unwrap();
        let created: Vec<String> = build_plan(&topology, &run)
            .into_iter()
            .filter_map(|s| match s.creates {
                Some(Creates::Namespace { netns }) => Some(netns),
                _ => None,
            })
            .collect();
        let removed: Vec<String> = teardown_plan(&topology, &run)
            .iter()
            .map(|c| c.args()[2].clone())
            .collect();
        assert_eq!(created, removed);
    }
}

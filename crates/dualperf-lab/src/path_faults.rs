//! Path faults on purpose (issue 27), for `dualperf lab path-faults`: each
//! [`PathFault`] is a small change to a built `path-faults` testbed
//! (client – router1 – router2 – server), made with `ip` and `nft` in one
//! node and undone when its [`AppliedFault`] is dropped. The smaller MTU
//! sits in the middle of the path, not on the server's link: there the
//! server's own MSS would tell TCP, as a real tunnel in the middle does not.
//!
//! | fault | where | how |
//! |---|---|---|
//! | [`PathFault::SmallMtu`] | router1 → router2 link | MTU [`FAULT_MTU`] on both ends; router1 sends Packet Too Big |
//! | [`PathFault::PtbBlackHole`] | the same link | as `SmallMtu`, and router1 drops the ICMPv6 Packet Too Big and ICMP Fragmentation Needed it sends (`nft`, output hook) |
//! | [`PathFault::V6FragmentsDropped`] | router2 | `nft`: `exthdr frag exists drop` (forward) |
//! | [`PathFault::HopByHopDropped`] | router2 | `exthdr hbh exists drop` |
//! | [`PathFault::DestOptionsDropped`] | router2 | `exthdr dst exists drop` |
//! | [`PathFault::Tunnel6in4`] | router1 → router2 | none to add: the preset's 6in4 tunnel (MTU 1480) is the fault, probed on its own arm |
//!
//! The nft table is `dsp_fault` (the `dsp` prefix of everything the lab
//! creates); removing the namespace removes it too.

use std::net::IpAddr;

use crate::command::{KernelCommand, Runner};
use crate::error::LabError;
use crate::namespace::UndoCommand;
use crate::naming::{interface_name, namespace_name, LinkEnd, RunId};
use crate::testbed::Testbed;
use crate::topology::Topology;

/// The smaller MTU of the faulty link, bytes.
pub const FAULT_MTU: u32 = 1400;
/// The nft table faults live in.
pub const FAULT_TABLE: &str = "dsp_fault";

/// One fault (or none: the clean control path).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathFault {
    /// Nothing wrong: the control.
    Clean,
    /// A link with a smaller MTU; Packet Too Big delivered.
    SmallMtu,
    /// A link with a smaller MTU and Packet Too Big filtered: a black hole.
    PtbBlackHole,
    /// A router dropping IPv6 packets with a Fragment header.
    V6FragmentsDropped,
    /// A router dropping IPv6 packets with a Hop-by-Hop Options header.
    HopByHopDropped,
    /// A router dropping IPv6 packets with a Destination Options header.
    DestOptionsDropped,
    /// The 6in4 tunnel between the routers (MTU 1480).
    Tunnel6in4,
}

impl PathFault {
    /// Every case, the control first.
    pub const ALL: [PathFault; 7] = [
        PathFault::Clean,
        PathFault::SmallMtu,
        PathFault::PtbBlackHole,
        PathFault::V6FragmentsDropped,
        PathFault::HopByHopDropped,
        PathFault::DestOptionsDropped,
        PathFault::Tunnel6in4,
    ];

    /// Its name (`--faults` takes these).
    pub fn key(self) -> &'static str {
        match self {
            PathFault::Clean => "clean",
            PathFault::SmallMtu => "small-mtu",
            PathFault::PtbBlackHole => "ptb-black-hole",
            PathFault::V6FragmentsDropped => "v6-fragments-dropped",
            PathFault::HopByHopDropped => "hbh-dropped",
            PathFault::DestOptionsDropped => "dst-dropped",
            PathFault::Tunnel6in4 => "6in4-tunnel",
        }
    }

    /// The fault named `key`.
    pub fn from_key(key: &str) -> Option<PathFault> {
        PathFault::ALL.into_iter().find(|f| f.key() == key)
    }

    /// One sentence: what is broken and where.
    pub fn description(self) -> String {
        match self {
            PathFault::Clean => "no fault (control)".into(),
            PathFault::SmallMtu => format!("router1 -> router2 link at MTU {FAULT_MTU}, Packet Too Big delivered"),
            PathFault::PtbBlackHole => format!(
                "router1 -> router2 link at MTU {FAULT_MTU}, router1 drops its Packet Too Big / Fragmentation Needed"
            ),
            PathFault::V6FragmentsDropped => "router2 drops IPv6 packets with a Fragment header".into(),
            PathFault::HopByHopDropped => "router2 drops IPv6 packets with a Hop-by-Hop Options header".into(),
            PathFault::DestOptionsDropped => "router2 drops IPv6 packets with a Destination Options header".into(),
            PathFault::Tunnel6in4 => "IPv6 in a 6in4 tunnel router1 -> router2 (MTU 1480)".into(),
        }
    }

    /// The commands that make the fault, each with the command that undoes
    /// it (`None`: undone with an earlier step, e.g. a rule with its table).
    ///
    /// The commands are those of run `run` (its namespace and veth names),
    /// so `--dry-run` can print them before anything exists.
    ///
    /// # Errors
    /// [`LabError::UnknownNode`] when the topology is not the `path-faults` shape.
    pub fn commands(
        self,
        topology: &Topology,
        run: &RunId,
    ) -> Result<Vec<(KernelCommand, Option<KernelCommand>)>, LabError> {
        let nft_drop = |node: &str,
                        hook: &str,
                        rule: &[&str]|
         -> Result<Vec<(KernelCommand, Option<KernelCommand>)>, LabError> {
            let netns = netns(topology, run, node)?;
            let chain_spec = format!("{{ type filter hook {hook} priority 0 ; policy accept ; }}");
            let mut add_rule = vec!["add", "rule", "inet", FAULT_TABLE, "fault"];
            add_rule.extend_from_slice(rule);
            add_rule.push("drop");
            Ok(vec![
                (
                    KernelCommand::in_netns(&netns, "nft", ["add", "table", "inet", FAULT_TABLE]),
                    Some(KernelCommand::in_netns(
                        &netns,
                        "nft",
                        ["delete", "table", "inet", FAULT_TABLE],
                    )),
                ),
                (
                    KernelCommand::in_netns(
                        &netns,
                        "nft",
                        [
                            "add",
                            "chain",
                            "inet",
                            FAULT_TABLE,
                            "fault",
                            chain_spec.as_str(),
                        ],
                    ),
                    None,
                ),
                (KernelCommand::in_netns(&netns, "nft", add_rule), None),
            ])
        };
        Ok(match self {
            PathFault::Clean | PathFault::Tunnel6in4 => Vec::new(),
            PathFault::SmallMtu => small_mtu(topology, run)?,
            PathFault::PtbBlackHole => {
                // the filter first, the MTU second: undone in reverse, the
                // MTU is back before PTB may pass again, so a connection
                // still retransmitting into the hole never teaches the
                // client the fault's PMTU for the next case
                let netns = netns(topology, run, "router1")?;
                let mut commands =
                    nft_drop("router1", "output", &["icmpv6", "type", "packet-too-big"])?;
                commands.push((
                    KernelCommand::in_netns(
                        &netns,
                        "nft",
                        [
                            "add",
                            "rule",
                            "inet",
                            FAULT_TABLE,
                            "fault",
                            "icmp",
                            "type",
                            "destination-unreachable",
                            "icmp",
                            "code",
                            "frag-needed",
                            "drop",
                        ],
                    ),
                    None,
                ));
                commands.extend(small_mtu(topology, run)?);
                commands
            }
            PathFault::V6FragmentsDropped => {
                nft_drop("router2", "forward", &["exthdr", "frag", "exists"])?
            }
            PathFault::HopByHopDropped => {
                nft_drop("router2", "forward", &["exthdr", "hbh", "exists"])?
            }
            PathFault::DestOptionsDropped => {
                nft_drop("router2", "forward", &["exthdr", "dst", "exists"])?
            }
        })
    }
}

/// The router1 – router2 link at [`FAULT_MTU`], both ends.
fn small_mtu(
    topology: &Topology,
    run: &RunId,
) -> Result<Vec<(KernelCommand, Option<KernelCommand>)>, LabError> {
    let (router1, router2) = (
        node_index(topology, "router1")?,
        node_index(topology, "router2")?,
    );
    let (index, link) = topology
        .links()
        .iter()
        .enumerate()
        .find(|(_, link)| link.end_of(router1).is_some() && link.end_of(router2).is_some())
        .ok_or_else(|| LabError::UnknownNode {
            name: "a router1 - router2 link".into(),
            nodes: "path-faults".into(),
        })?;
    let mut commands = Vec::new();
    for end in LinkEnd::BOTH {
        let node = &topology.nodes()[link.node(end)].name;
        let netns = namespace_name(run, node);
        let device = interface_name(run, index, end);
        let set = |mtu: u32| {
            KernelCommand::in_netns(
                &netns,
                "ip",
                [
                    "link",
                    "set",
                    "dev",
                    device.as_str(),
                    "mtu",
                    &mtu.to_string(),
                ],
            )
        };
        commands.push((set(FAULT_MTU), Some(set(link.mtu_bytes))));
    }
    Ok(commands)
}

/// The namespace of `node`, if the topology has it.
fn netns(topology: &Topology, run: &RunId, node: &str) -> Result<String, LabError> {
    node_index(topology, node).map(|_| namespace_name(run, node))
}

fn node_index(topology: &Topology, name: &str) -> Result<usize, LabError> {
    topology
        .node_index(name)
        .ok_or_else(|| LabError::UnknownNode {
            name: name.to_string(),
            nodes: topology
                .nodes()
                .iter()
                .map(|n| n.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// A fault in place; dropping it undoes it (last change first).
#[derive(Debug)]
pub struct AppliedFault {
    undo: Vec<UndoCommand>,
}

impl Drop for AppliedFault {
    fn drop(&mut self) {
        while let Some(undo) = self.undo.pop() {
            drop(undo);
        }
    }
}

/// Makes `fault` in `testbed`; on a failed step, what was done is undone.
///
/// # Errors
/// The failing command's [`LabError::Command`].
pub fn apply(
    testbed: &Testbed,
    fault: PathFault,
    runner: &Runner,
) -> Result<AppliedFault, LabError> {
    let mut applied = AppliedFault { undo: Vec::new() };
    for (command, undo) in fault.commands(testbed.topology(), testbed.run_id())? {
        runner.run(&command)?;
        if let Some(undo) = undo {
            applied.undo.push(UndoCommand::adopt(runner, undo));
        }
    }
    Ok(applied)
}

/// Forgets cached path MTUs in `node` (`ip route flush cache`, both
/// families), so one fault's Packet Too Big does not shape the next case.
///
/// # Errors
/// [`LabError::Command`].
pub fn flush_route_cache(testbed: &Testbed, node: &str, runner: &Runner) -> Result<(), LabError> {
    let netns = testbed.netns(node)?;
    for family in ["-4", "-6"] {
        runner.run(&KernelCommand::in_netns(
            &netns,
            "ip",
            [family, "route", "flush", "cache"],
        ))?;
    }
    Ok(())
}

/// Every address of `node` on its links (both families): a router answers
/// from the address of whichever link faces the prober.
pub fn node_addresses(topology: &Topology, node: &str) -> Vec<IpAddr> {
    let Some(index) = topology.node_index(node) else {
        return Vec::new();
    };
    topology
        .links()
        .iter()
        .filter_map(|link| link.end_of(index).map(|end| link.addresses(end)))
        .flat_map(|pair| pair.map(|a| a.address))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fault_has_a_key_that_names_it_back() {
        for fault in PathFault::ALL {
            assert_eq!(PathFault::from_key(fault.key()), Some(fault));
            assert!(!fault.description().is_empty());
        }
        assert_eq!(PathFault::from_key("nonsense"), None);
    }

    #[test]
    fn each_fault_is_made_in_its_node_and_undone() {
        let topology = crate::preset::load("path-faults").unwrap();
        let run = RunId::new("t0").unwrap();
        let text = |fault: PathFault| {
            fault
                .commands(&topology, &run)
                .unwrap()
                .iter()
                .map(|(make, undo)| {
                    format!(
                        "{make} / {}",
                        undo.as_ref().map(|u| u.to_string()).unwrap_or_default()
                    )
                })
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert!(text(PathFault::Clean).is_empty());
        let hole = text(PathFault::PtbBlackHole);
        assert!(
            hole.contains(
                "dsp-t0-router1 nft add rule inet dsp_fault fault icmpv6 type packet-too-big drop"
            ),
            "{hole}"
        );
        assert!(hole.contains("icmp code frag-needed drop"), "{hole}");
        assert!(hole.contains("hook output"), "{hole}");
        assert!(
            hole.contains(
                "mtu 1400 / ip netns exec dsp-t0-router2 ip link set dev dspt0-1b mtu 1500"
            ),
            "{hole}"
        );
        let first_mtu = hole.find("mtu 1400").unwrap();
        assert!(
            hole.find("packet-too-big").unwrap() < first_mtu,
            "the filter before the MTU"
        );
        assert!(text(PathFault::HopByHopDropped)
            .contains("dsp-t0-router2 nft add rule inet dsp_fault fault exthdr hbh exists drop"));
        assert!(text(PathFault::V6FragmentsDropped).contains("exthdr frag exists drop"));
    }

    #[test]
    fn the_routers_of_the_preset_have_an_address_per_link_and_family() {
        let topology = crate::preset::load("path-faults").unwrap();
        assert_eq!(node_addresses(&topology, "router2").len(), 4);
        assert_eq!(node_addresses(&topology, "client").len(), 2);
        assert!(node_addresses(&topology, "nobody").is_empty());
    }
}

//! Receive-side steering of each router to a CPU of its own, so the CPU a
//! router spends forwarding can be attributed (issue 12, router CPU).
//!
//! Namespaces share one kernel: a router has no process, and its forwarding
//! runs in softirq context on the CPU that processes the packet's receive.
//! With RPS (`/sys/class/net/IF/queues/rx-0/rps_cpus`, set inside the node's
//! namespace) on every interface of a router, the receive processing of
//! every packet arriving at that router — its nftables hooks, routing,
//! forwarding, qdisc enqueue and, while the qdisc lets it, the transmit into
//! the next namespace — runs on the chosen CPU. Routers get CPUs from the
//! highest down (the first router the highest CPU); with fewer CPUs than
//! routers they share, and the attribution says so. What else runs in
//! softirq on that CPU (the receive path of a host behind the router,
//! which has no RPS, and other work on the machine) is counted with it.

use crate::command::KernelCommand;
use crate::naming::{interface_name, namespace_name, RunId};
use crate::topology::{Role, Topology};

/// One router's steering: its CPU and the commands that pin it there.
#[derive(Clone, Debug, PartialEq)]
pub struct RouterSteering {
    /// The router node.
    pub node: String,
    /// The CPU its interfaces' receive processing goes to.
    pub cpu: u32,
    /// Its interfaces.
    pub interfaces: Vec<String>,
    /// `ip netns exec NETNS sh -c 'echo MASK > …/rps_cpus'`, one per interface.
    pub commands: Vec<KernelCommand>,
}

impl RouterSteering {
    /// `NODE:CPU`, as the measuring child's `--router-cpus` takes it.
    pub fn child_arg(&self) -> String {
        format!("{}:{}", self.node, self.cpu)
    }

    /// One line for the result, e.g. "edge: CPU 1 (rps_cpus on 3 interfaces)".
    pub fn describe(&self) -> String {
        format!(
            "{}: CPU {} (rps_cpus on {} interface{})",
            self.node,
            self.cpu,
            self.interfaces.len(),
            if self.interfaces.len() == 1 { "" } else { "s" }
        )
    }
}

/// The steering of every router of `topology` over `cpus` CPUs.
pub fn router_steering(topology: &Topology, run: &RunId, cpus: u32) -> Vec<RouterSteering> {
    let cpus = cpus.max(1);
    topology
        .nodes()
        .iter()
        .enumerate()
        .filter(|(_, node)| node.role == Role::Router)
        .enumerate()
        .map(|(rank, (index, node))| {
            let cpu = cpus - 1 - (rank as u32 % cpus);
            let netns = namespace_name(run, &node.name);
            let interfaces: Vec<String> = topology
                .links()
                .iter()
                .enumerate()
                .filter_map(|(link, l)| l.end_of(index).map(|end| interface_name(run, link, end)))
                .collect();
            let mask = format!("{:x}", 1u64 << cpu.min(63));
            let commands = interfaces
                .iter()
                .map(|interface| {
                    KernelCommand::in_netns(
                        &netns,
                        "sh",
                        [
                            "-c".to_string(),
                            format!(
                                "echo {mask} > /sys/class/net/{interface}/queues/rx-0/rps_cpus"
                            ),
                        ],
                    )
                })
                .collect();
            RouterSteering {
                node: node.name.clone(),
                cpu,
                interfaces,
                commands,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_router_of_the_diffserv_preset_gets_its_own_cpu_on_every_interface() {
        let topology =
            Topology::from_toml("diffserv", include_str!("../presets/diffserv.toml")).unwrap();
        let run = RunId::new("t1").unwrap();
        let steering = router_steering(&topology, &run, 2);
        let nodes: Vec<(&str, u32, usize)> = steering
            .iter()
            .map(|s| (s.node.as_str(), s.cpu, s.interfaces.len()))
            .collect();
        assert_eq!(nodes, [("edge", 1, 3), ("core", 0, 2)]);
        let text = steering[0].commands[0].args().join(" ");
        assert!(text.contains("echo 2 > /sys/class/net/"), "{text}");
        assert_eq!(steering[1].child_arg(), "core:0");
        // One CPU: both share it.
        assert!(router_steering(&topology, &run, 1)
            .iter()
            .all(|s| s.cpu == 0));
    }
}

//! The build plan: the ordered steps (kernel commands, and the few files
//! the mechanisms need) that turn a [`Topology`] into a testbed. It is pure (nothing runs here), so `--dry-run` prints exactly
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
//! 5. static routes;
//! 6. transition mechanisms ([`crate::mechanism`]): the work directory with
//!    BPF objects and TAYGA's configuration, tunnel devices or encapsulating
//!    routes, decapsulators, carried addresses and their routes, translators.

use dualperf_model::IpFamily;

use crate::command::KernelCommand;
use crate::emulation::LinkEmulation;
use crate::mechanism::{mechanism_steps, node_sysctls, Implementations};
use crate::naming::{interface_name, namespace_name, LinkEnd, RunId};
use crate::shaping::shaping_commands;
use crate::topology::routes::routes_of;
use crate::topology::Topology;

pub use crate::step::{sysctls, Action, Creates, FileOrigin, Step};

/// The steps that build `topology` for run `run` with the mechanism
/// implementations `implementations` (see [`Implementations::choose`]), in order.
pub fn build_plan(
    topology: &Topology,
    run: &RunId,
    implementations: &Implementations,
) -> Vec<Step> {
    let netns_of = |node: usize| namespace_name(run, &topology.nodes()[node].name);
    let mut steps = Vec::new();
    for index in 0..topology.nodes().len() {
        let netns = netns_of(index);
        steps.push(Step::creating(
            KernelCommand::ip(["netns", "add", netns.as_str()]),
            Creates::Namespace {
                netns: netns.clone(),
            },
        ));
        steps.push(Step::plain(KernelCommand::ip([
            "-n",
            netns.as_str(),
            "link",
            "set",
            "lo",
            "up",
        ])));
        let mut words = vec!["-q".to_string(), "-w".to_string()];
        words.extend(node_sysctls(topology, index, implementations));
        steps.push(Step::plain(KernelCommand::in_netns(
            &netns, "sysctl", words,
        )));
    }
    for (index, link) in topology.links().iter().enumerate() {
        let [a, b] = [LinkEnd::A, LinkEnd::B]
            .map(|end| (netns_of(link.node(end)), interface_name(run, index, end)));
        let mtu = link.mtu_bytes.to_string();
        steps.push(Step::creating(
            KernelCommand::ip([
                "link", "add", &a.1, "netns", &a.0, "mtu", &mtu, "type", "veth", "peer", "name",
                &b.1, "netns", &b.0, "mtu", &mtu,
            ]),
            Creates::Link {
                netns: a.0.clone(),
                interface: a.1.clone(),
            },
        ));
    }
    for (index, link) in topology.links().iter().enumerate() {
        for end in LinkEnd::BOTH {
            let netns = netns_of(link.node(end));
            let interface = interface_name(run, index, end);
            let [v4, v6] = link.addresses(end);
            if topology.link_carries(link, IpFamily::V4) {
                steps.push(Step::plain(KernelCommand::ip([
                    "-n",
                    &netns,
                    "addr",
                    "add",
                    &v4.to_string(),
                    "dev",
                    &interface,
                ])));
            }
            if topology.link_carries(link, IpFamily::V6) {
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
            }
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
                    shaping_commands(
                        &netns,
                        &interface,
                        link.mtu_bytes,
                        shaping,
                        implementations.link_emulation == LinkEmulation::Netem,
                    )
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
            let family = match route.family {
                IpFamily::V4 => "-4",
                IpFamily::V6 => "-6",
            };
            steps.push(Step::plain(KernelCommand::ip([
                "-n",
                &netns,
                family,
                "route",
                "add",
                &route.destination,
                "via",
                &route.via.to_string(),
                "dev",
                &interface,
            ])));
        }
    }
    steps.extend(mechanism_steps(topology, run, implementations));
    if let Some(domain) = topology.diffserv() {
        steps.extend(
            crate::diffserv::diffserv_commands(topology, run, domain)
                .into_iter()
                .map(Step::plain),
        );
    }
    steps
}

/// The commands that remove what [`build_plan`] creates: every namespace
/// (which takes its veth ends, addresses, qdiscs and routes with it).
/// Processes still running inside must be stopped first (see `cleanup`).
///
/// With mechanisms, the daemons are stopped (`pkill -F PIDFILE`) and the
/// devices and instances removed first, last created first, and the work
/// directory goes after the namespaces.
pub fn teardown_plan(
    topology: &Topology,
    run: &RunId,
    implementations: &Implementations,
) -> Vec<KernelCommand> {
    let steps = build_plan(topology, run, implementations);
    let mut commands: Vec<KernelCommand> = steps
        .iter()
        .rev()
        .filter_map(|step| match &step.creates {
            Some(Creates::Daemon { pid_file, .. }) => Some(KernelCommand::new(
                "pkill",
                ["-F".to_string(), pid_file.display().to_string()],
            )),
            Some(Creates::Undo { command }) => Some(command.clone()),
            _ => None,
        })
        .collect();
    commands.extend(
        topology.nodes().iter().map(|node| {
            KernelCommand::ip(["netns", "del", namespace_name(run, &node.name).as_str()])
        }),
    );
    if let Some(dir) = crate::mechanism::planned_work_dir(&steps) {
        commands.push(KernelCommand::new(
            "rm",
            ["-rf".to_string(), dir.display().to_string()],
        ));
    }
    commands
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preset;

    fn plan_text(preset_name: &str) -> Vec<String> {
        let topology = preset::load(preset_name).unwrap();
        build_plan(
            &topology,
            &RunId::new("t1").unwrap(),
            &Implementations::assumed(&topology),
        )
        .iter()
        .map(|s| s.to_string())
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
        let implementations = Implementations::assumed(&topology);
        let created: Vec<String> = build_plan(&topology, &run, &implementations)
            .into_iter()
            .filter_map(|s| match s.creates {
                Some(Creates::Namespace { netns }) => Some(netns),
                _ => None,
            })
            .collect();
        let removed: Vec<String> = teardown_plan(&topology, &run, &implementations)
            .iter()
            .map(|c| c.args()[2].clone())
            .collect();
        assert_eq!(created, removed);
    }

    fn lines_with(
        preset_name: &str,
        implementations: impl Fn(&Topology) -> Implementations,
    ) -> (Vec<String>, Vec<String>) {
        let topology = preset::load(preset_name).unwrap();
        let run = RunId::new("t1").unwrap();
        let chosen = implementations(&topology);
        let build = build_plan(&topology, &run, &chosen)
            .iter()
            .map(|s| s.to_string())
            .collect();
        let teardown = teardown_plan(&topology, &run, &chosen)
            .iter()
            .map(|c| c.to_string())
            .collect();
        (build, teardown)
    }

    /// True when one step prints `line` (a step may print several lines).
    fn has(lines: &[String], line: &str) -> bool {
        lines.iter().any(|l| l.lines().any(|x| x == line))
    }

    #[test]
    fn the_bpf_6in4_plan_attaches_the_patched_objects_with_the_tunnel_mtu() {
        let (lines, teardown) = lines_with("tunnel-host-host", Implementations::assumed);
        assert!(has(
            &lines,
            "ip -n dsp-t1-client -6 addr add fd00:dead:cafe:1::1/128 dev lo nodad"
        ));
        assert!(has(&lines, "ip -n dsp-t1-client -6 route add fd00:dead:cafe:1::2/128 encap bpf xmit obj /tmp/dsp-t1/t0-client-encap.o section lwt_xmit headroom 20 dev dspt1-0a src fd00:dead:cafe:1::1"), "{lines:#?}");
        assert!(has(&lines, "tc -n dsp-t1-server filter add dev dspt1-1b ingress pref 10 bpf da obj /tmp/dsp-t1/t0-server-decap.o sec tc"));
        assert!(has(&lines, "clang -O2 -target bpf -I/usr/include/x86_64-linux-gnu -DTUN_SRC=0x0ab40101 -DTUN_DST=0x0ab40202 -c crates/dualperf-lab/bpf/encap6in4.c -o /tmp/dsp-t1/t0-client-encap.o"));
        // the IPv4-only middle gets no IPv6 address, and IPv6 disabled
        assert!(!lines
            .iter()
            .any(|l| l.starts_with("ip -n dsp-t1-middle -6")));
        assert!(lines
            .iter()
            .any(|l| l.starts_with("ip netns exec dsp-t1-middle sysctl")
                && l.contains("net.ipv6.conf.all.disable_ipv6=1")));
        assert_eq!(teardown.last().unwrap(), "rm -rf /tmp/dsp-t1");
    }

    #[test]
    fn the_files_written_are_the_embedded_objects_patched_for_each_end() {
        let topology = preset::load("tunnel-host-host").unwrap();
        let steps = build_plan(
            &topology,
            &RunId::new("t1").unwrap(),
            &Implementations::assumed(&topology),
        );
        let objects: Vec<_> = steps
            .iter()
            .filter_map(|s| match &s.action {
                Action::WriteFile {
                    contents,
                    origin:
                        FileOrigin::Bpf {
                            program,
                            local,
                            peer,
                        },
                    ..
                } => Some((contents.clone(), *program, *local, *peer)),
                _ => None,
            })
            .collect();
        assert_eq!(objects.len(), 4, "encap and decap at both ends");
        for (contents, program, local, peer) in objects {
            assert_eq!(contents, crate::bpf::patched(program, local, peer));
        }
    }

    #[test]
    fn with_sit_the_tunnel_is_a_device_removed_on_teardown() {
        let (lines, teardown) = lines_with("tunnel-router-router", |t| Implementations {
            tunnels: vec![crate::Implementation::Sit; t.tunnels().len()],
            translators: Vec::new(),
            ..Default::default()
        });
        assert!(has(&lines, "ip -n dsp-t1-router1 link add dspt1-t0 type sit local 10.180.2.1 remote 10.180.3.2 ttl 64"), "{lines:#?}");
        assert!(has(
            &lines,
            "ip -n dsp-t1-router1 link set dspt1-t0 mtu 1480 up"
        ));
        assert!(has(
            &lines,
            "ip -n dsp-t1-router1 -6 route add fd00:dead:cafe:1::2/128 dev dspt1-t0"
        ));
        assert!(has(&lines, "ip -n dsp-t1-client -6 route add fd00:dead:cafe:1::2/128 via fd00:dead:beef:1::2 dev dspt1-0a src fd00:dead:cafe:1::1"));
        assert!(
            !lines.iter().any(|l| l.contains("mkdir")),
            "sit needs no files"
        );
        assert_eq!(teardown[0], "ip -n dsp-t1-router2 link del dspt1-t0");
        assert_eq!(teardown[1], "ip -n dsp-t1-router1 link del dspt1-t0");
    }

    #[test]
    fn with_ip6tnl_4in6_uses_an_ipip6_device_without_encapsulation_limit() {
        let (lines, _) = lines_with("four-in-six", |t| Implementations {
            tunnels: vec![crate::Implementation::Ip6tnl; t.tunnels().len()],
            translators: Vec::new(),
            ..Default::default()
        });
        assert!(has(&lines, "ip -n dsp-t1-router1 link add dspt1-t0 type ip6tnl mode ipip6 local fd00:dead:beef:2::1 remote fd00:dead:beef:3::2 encaplimit none hoplimit 64"), "{lines:#?}");
        assert!(has(
            &lines,
            "ip -n dsp-t1-router1 link set dspt1-t0 mtu 1460 up"
        ));
        assert!(has(
            &lines,
            "ip -n dsp-t1-router1 -4 route add 10.181.1.2/32 dev dspt1-t0"
        ));
    }

    #[test]
    fn the_srv6_plan_routes_the_segment_ids_and_clamps_tcp_on_router_ends() {
        let (lines, _) = lines_with("four-in-six", Implementations::assumed);
        assert!(has(&lines, "ip -n dsp-t1-router1 -4 route add 10.181.1.2/32 encap seg6 mode encap.red segs fd00:dead:5e6::2 dev dspt1-1a mtu lock 1524"), "{lines:#?}");
        assert!(has(&lines, "ip -n dsp-t1-router2 -6 route add fd00:dead:5e6::2/128 encap seg6local action End.DX4 nh4 10.180.4.2 dev dspt1-2b"));
        assert!(has(&lines, "ip -n dsp-t1-core -6 route add fd00:dead:5e6::2/128 via fd00:dead:beef:3::2 dev dspt1-2a"));
        assert!(has(&lines, "ip netns exec dsp-t1-router1 nft add rule ip dualperf_4in6_0 pre ip daddr 10.181.1.2 tcp flags syn tcp option maxseg size set 1420"));
    }

    #[test]
    fn the_tayga_plan_writes_its_configuration_and_owns_the_daemon() {
        let (lines, teardown) = lines_with("nat64", Implementations::assumed);
        let conf = lines
            .iter()
            .find(|l| l.starts_with("cat > /tmp/dsp-t1/tayga-0.conf"))
            .unwrap();
        assert!(
            conf.contains("tun-device dspt1-x0\n")
                && conf.contains("prefix 64:ff9b::/96\n")
                && conf.contains("dynamic-pool 192.168.255.0/24\n"),
            "{conf}"
        );
        assert!(has(
            &lines,
            "ip netns exec dsp-t1-router tayga -c /tmp/dsp-t1/tayga-0.conf --mktun"
        ));
        assert!(has(
            &lines,
            "ip -n dsp-t1-client -6 route add 64:ff9b::/96 via fd00:dead:beef:1::2 dev dspt1-0a"
        ));
        assert!(has(&lines, "ip netns exec dsp-t1-router tayga -c /tmp/dsp-t1/tayga-0.conf --pidfile /tmp/dsp-t1/tayga-0.pid"));
        assert_eq!(teardown[0], "pkill -F /tmp/dsp-t1/tayga-0.pid");
        assert_eq!(teardown[1], "ip -n dsp-t1-router link del dspt1-x0");
        // the IPv4-only server has no IPv6 address
        assert!(!lines
            .iter()
            .any(|l| l.starts_with("ip -n dsp-t1-server -6")));
    }

    #[test]
    fn with_jool_nat64_is_one_instance_removed_on_teardown() {
        let (lines, teardown) = lines_with("nat64", |_| Implementations {
            tunnels: Vec::new(),
            translators: vec![crate::Implementation::Jool],
            ..Default::default()
        });
        assert!(has(&lines, "ip netns exec dsp-t1-router jool instance add dspt1n0 --netfilter --pool6 64:ff9b::/96"), "{lines:#?}");
        assert_eq!(
            teardown[0],
            "ip netns exec dsp-t1-router jool instance remove dspt1n0"
        );
        assert!(!lines.iter().any(|l| l.contains("tayga")));
    }
}

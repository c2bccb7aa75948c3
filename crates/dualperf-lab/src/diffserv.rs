//! A DiffServ domain on one edge router (the `[diffserv]` table of a
//! topology; issue 12, the DiffServ paper's testbed), built from what this
//! kernel has without `prio` or `police` (docs: ../shared/design/kernel-recipes.md §4):
//!
//! - **Conditioner** on the ingress hook of every access interface of the
//!   edge router (an nftables `netdev` table): EF (DSCP 46) from a source
//!   that is not premium is remarked to 0; EF from premium sources is
//!   policed to `ef_share` of `access_rate` by one named packet-rate `limit`
//!   shared by IPv4 and IPv6, and the excess remarked to 0. The limiter
//!   counts packets of `ef_packet_bytes`, because nftables' byte-rate limiter
//!   is a one-second bucket that lets a full second of excess through.
//!   Named counters record each outcome.
//! - **Classifier** in the `inet` forward hook (not at ingress: IPv4
//!   forwarding rewrites `skb->priority` from the TOS): EF (and, if given,
//!   the IPv6 flow label `ef_flow_label`) → htb class 1:10, LBE (`lbe_dscp`,
//!   default CS1 = 8 as in the paper) → 1:30, the rest → 1:20 by default.
//! - **Scheduler** on the edge router's core interface: htb at `core_rate`
//!   with EF 1:10 (prio 0, rate = ceil = the EF allowance plus 5 % for
//!   link-layer headers the policer does not count), BE 1:20 (prio 1, may
//!   borrow up to the link) and LBE 1:30 (prio 2, 1 % guaranteed), each
//!   with a pfifo queue; `gso_max_segs 1` so htb sees MTU-sized packets.

use std::net::IpAddr;

use dualperf_model::IpFamily;

use crate::command::KernelCommand;
use crate::naming::{interface_name, namespace_name, RunId};
pub use crate::topology::diffserv::{DiffServ, RawDiffServ};
use crate::topology::Topology;

/// nftables table names (one per testbed namespace, so fixed names are fine).
pub(crate) const CONDITIONER: &str = "dualperf_ds_cond";
const CLASSIFIER: &str = "dualperf_ds_cls";

fn kbit(bps: u64) -> String {
    format!("{}kbit", (bps / 1000).max(8))
}

/// The commands that build the domain of `topology` for `run`, in order.
pub fn diffserv_commands(
    topology: &Topology,
    run: &RunId,
    domain: &DiffServ,
) -> Vec<KernelCommand> {
    let netns = namespace_name(run, &topology.nodes()[domain.edge].name);
    let link_end = |link: usize| {
        topology.links()[link]
            .end_of(domain.edge)
            .expect("validated: the edge router is on its links")
    };
    let core_if = interface_name(run, domain.core_link, link_end(domain.core_link));
    let nft = |args: Vec<String>| KernelCommand::in_netns(&netns, "nft", args);
    let words = |text: &str| {
        text.split_whitespace()
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let mut commands = Vec::new();
    // Scheduler on the core interface.
    // MTU-sized packets into htb: at most one segment per GSO packet (the
    // `ip` equivalent of `ethtool -K tso off gso off`, which needs ethtool).
    commands.push(KernelCommand::ip(words(&format!(
        "-n {netns} link set dev {core_if} gso_max_segs 1"
    ))));
    let core = domain.core_rate.bits_per_second();
    let ef = domain.ef_rate_bps() * 105 / 100;
    let lbe = (core / 100).max(8_000);
    let be = core.saturating_sub(ef + lbe);
    let tc = |text: String| KernelCommand::tc(words(&format!("-n {netns} {text}")));
    commands.push(tc(format!(
        "qdisc replace dev {core_if} root handle 1: htb default 20 r2q 100"
    )));
    commands.push(tc(format!(
        "class add dev {core_if} parent 1: classid 1:1 htb rate {0} ceil {0} burst 15k cburst 15k",
        kbit(core)
    )));
    for (class, rate, ceil, prio, limit) in [
        (10, ef, ef, 0, domain.queue_packets[0]),
        (20, be, core, 1, domain.queue_packets[1]),
        (30, lbe, core, 2, domain.queue_packets[2]),
    ] {
        commands.push(tc(format!(
            "class add dev {core_if} parent 1:1 classid 1:{class} htb rate {} ceil {} prio {prio} burst 15k cburst 15k",
            kbit(rate),
            kbit(ceil)
        )));
        commands.push(tc(format!(
            "qdisc add dev {core_if} parent 1:{class} handle {class}: pfifo limit {limit}"
        )));
    }
    // Conditioner on the access interfaces.
    commands.push(nft(words(&format!("add table netdev {CONDITIONER}"))));
    commands.push(nft(words(&format!(
        "add limit netdev {CONDITIONER} ef_police {{ rate over {}/second burst {} packets ; }}",
        domain.ef_packets_per_second(),
        domain.ef_burst_packets
    ))));
    for counter in [
        "unauth_v4",
        "unauth_v6",
        "excess_v4",
        "excess_v6",
        "ef_ok_v4",
        "ef_ok_v6",
    ] {
        commands.push(nft(words(&format!(
            "add counter netdev {CONDITIONER} {counter}"
        ))));
    }
    let premium = |family: IpFamily| -> Vec<String> {
        domain
            .premium
            .iter()
            .filter_map(|&node| topology.address(node, family))
            .map(|a| a.address.to_string())
            .collect()
    };
    for (index, &link) in domain.access_links.iter().enumerate() {
        let interface = interface_name(run, link, link_end(link));
        let chain = format!("access{index}");
        commands.push(nft(vec![
            "add".into(),
            "chain".into(),
            "netdev".into(),
            CONDITIONER.into(),
            chain.clone(),
            format!(
                "{{ type filter hook ingress device \"{interface}\" priority -500 ; policy accept ; }}"
            ),
        ]));
        let rule = |text: String| {
            nft(words(&format!(
                "add rule netdev {CONDITIONER} {chain} {text}"
            )))
        };
        for (family, word, tag) in [(IpFamily::V4, "ip", "v4"), (IpFamily::V6, "ip6", "v6")] {
            let allowed = premium(family);
            let source = if allowed.is_empty() {
                String::new()
            } else {
                format!("{word} saddr != {{ {} }} ", allowed.join(", "))
            };
            commands.push(rule(format!(
                "{word} dscp ef {source}counter name unauth_{tag} {word} dscp set cs0"
            )));
        }
        for (word, tag) in [("ip", "v4"), ("ip6", "v6")] {
            commands.push(rule(format!(
                "{word} dscp ef limit name ef_police counter name excess_{tag} {word} dscp set cs0"
            )));
        }
        for (word, tag) in [("ip", "v4"), ("ip6", "v6")] {
            commands.push(rule(format!("{word} dscp ef counter name ef_ok_{tag}")));
        }
    }
    // Classifier in the forward hook.
    commands.push(nft(words(&format!("add table inet {CLASSIFIER}"))));
    commands.push(nft(vec![
        "add".into(),
        "chain".into(),
        "inet".into(),
        CLASSIFIER.into(),
        "classify".into(),
        "{ type filter hook forward priority 0 ; policy accept ; }".into(),
    ]));
    let classify = |text: String| {
        nft(words(&format!(
            "add rule inet {CLASSIFIER} classify oifname \"{core_if}\" {text}"
        )))
    };
    if let Some(label) = domain.ef_flow_label {
        commands.push(classify(format!(
            "ip6 flowlabel {label} counter meta priority set 1:10 accept"
        )));
    }
    for word in ["ip", "ip6"] {
        commands.push(classify(format!(
            "{word} dscp ef counter meta priority set 1:10"
        )));
        commands.push(classify(format!(
            "{word} dscp {} counter meta priority set 1:30",
            domain.lbe_dscp.value()
        )));
    }
    commands
}

/// Where the sink of a premium source's traffic is: IPv4 and IPv6 address
/// of `node`, for tests and batteries.
pub fn node_addresses(topology: &Topology, node: usize) -> Vec<IpAddr> {
    IpFamily::ALL
        .into_iter()
        .filter_map(|f| topology.address(node, f).map(|a| a.address))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn preset() -> Topology {
        Topology::from_toml("diffserv", include_str!("../presets/diffserv.toml")).unwrap()
    }

    #[test]
    fn the_preset_polices_ef_at_ten_percent_in_packets_and_schedules_ef_first() {
        let topology = preset();
        let domain = topology.diffserv().expect("the preset has a domain");
        assert_eq!(domain.ef_rate_bps(), 10_000_000);
        assert_eq!(domain.ef_packets_per_second(), 1199);
        assert_eq!(domain.access_links.len(), 2);
        let run = RunId::new("t1").unwrap();
        let text: Vec<String> = diffserv_commands(&topology, &run, domain)
            .iter()
            .map(|c| format!("{} {}", c.program(), c.args().join(" ")))
            .collect();
        let all = text.join("\n");
        assert!(
            all.contains("rate over 1199/second burst 10 packets"),
            "{all}"
        );
        assert!(
            all.contains("classid 1:10 htb rate 10500kbit ceil 10500kbit prio 0"),
            "{all}"
        );
        assert!(all.contains("ip dscp ef ip saddr != {"), "{all}");
        assert!(
            all.contains(
                "ip6 dscp ef limit name ef_police counter name excess_v6 ip6 dscp set cs0"
            ),
            "{all}"
        );
        assert!(
            all.contains("ip6 flowlabel 74565 counter meta priority set 1:10 accept"),
            "{all}"
        );
        assert!(
            all.contains("ip dscp 8 counter meta priority set 1:30"),
            "{all}"
        );
    }

    #[test]
    fn bad_keys_are_named() {
        let text = include_str!("../presets/diffserv.toml");
        for (from, to, key) in [
            ("ef_share = 0.10", "ef_share = 1.5", "diffserv.ef_share"),
            ("edge = \"edge\"", "edge = \"premium\"", "diffserv.edge"),
            (
                "lbe_dscp = \"cs1\"",
                "lbe_dscp = \"ef\"",
                "diffserv.lbe_dscp",
            ),
            ("core = \"core\"", "core = \"nowhere\"", "diffserv.core"),
        ] {
            assert!(text.contains(from), "{from}");
            match Topology::from_toml("x", &text.replace(from, to)) {
                Err(crate::LabError::Topology { source, .. }) => {
                    assert_eq!(source.key, key, "{source:?}")
                }
                other => panic!("{key}: {other:?}"),
            }
        }
    }
}

//! From [`RawTopology`] to [`Topology`]: every check happens here, once, and
//! every error names the key it is about.

use std::collections::HashSet;

use dualperf_model::BitRate;

use super::raw::{RawLink, RawShaping, RawTopology};
use super::suggest::did_you_mean;
use super::{
    parse_duration, Link, Node, RateQdisc, Role, Shaping, Stack, Topology, DEFAULT_MTU_BYTES,
    DEFAULT_QUEUE_LIMIT_PACKETS, MAX_MTU_BYTES, MIN_MTU_BYTES,
};
use dualperf_model::IpFamily;

use crate::addressing::{self, Ipv4Subnet, Ipv6Subnet};
use crate::error::TopologyError;
use crate::naming::MAX_LINKS;
use crate::topology::routes;

#[path = "validate_mechanisms.rs"]
mod mechanisms;

/// Longest node name, characters (namespace names stay short and readable).
const MAX_NODE_NAME_CHARS: usize = 32;

type Result<T> = std::result::Result<T, TopologyError>;

/// Validates `raw`; `name` becomes the topology's name.
pub(super) fn validate(name: &str, raw: RawTopology) -> Result<Topology> {
    if raw.description.trim().is_empty() {
        return Err(TopologyError::at(
            "description",
            "must say in one line what this testbed is for",
        ));
    }
    // The description reaches the terminal, reports and `--dry-run`
    // comments a root shell reads: one line, no control character.
    if let Some(c) = raw.description.trim().chars().find(|c| c.is_control()) {
        return Err(TopologyError::at(
            "description",
            format!(
                "holds the control character {}; it must be one line of text",
                c.escape_default()
            ),
        ));
    }
    let nodes = validate_nodes(&raw)?;
    let names: Vec<&str> = nodes.iter().map(|n| n.name.as_str()).collect();
    if raw.link.len() > MAX_LINKS {
        return Err(TopologyError::at(
            "link",
            format!("at most {MAX_LINKS} links are supported"),
        ));
    }
    let mut links = Vec::with_capacity(raw.link.len());
    let mut given_subnets = Vec::with_capacity(raw.link.len());
    for (index, link) in raw.link.iter().enumerate() {
        let key = format!("link[{index}]");
        let ends = resolve_between(&key, link, &names)?;
        let mtu_bytes = link.mtu_bytes.unwrap_or(DEFAULT_MTU_BYTES);
        if !(MIN_MTU_BYTES..=MAX_MTU_BYTES).contains(&mtu_bytes) {
            return Err(TopologyError::at(
                format!("{key}.mtu_bytes"),
                format!(
                    "{mtu_bytes} is out of range {MIN_MTU_BYTES}..={MAX_MTU_BYTES} (IPv6 needs at least 1280, RFC 8200 §5)"
                ),
            ));
        }
        let v4 = link
            .ipv4
            .as_deref()
            .map(|t| {
                t.parse::<Ipv4Subnet>()
                    .map_err(|m| TopologyError::at(format!("{key}.ipv4"), m))
            })
            .transpose()?;
        let v6 = link
            .ipv6
            .as_deref()
            .map(|t| {
                t.parse::<Ipv6Subnet>()
                    .map_err(|m| TopologyError::at(format!("{key}.ipv6"), m))
            })
            .transpose()?;
        given_subnets.push((v4, v6));
        let egress = validate_egress(&key, link, ends, &names)?;
        links.push((ends, mtu_bytes, egress));
    }
    check_subnet_overlap(&given_subnets)?;
    let subnets = addressing::assign(&given_subnets).map_err(|index| {
        TopologyError::at(
            format!("link[{index}]"),
            "no free automatic subnet left in 10.180.0.0/16; give ipv4/ipv6",
        )
    })?;
    let links: Vec<Link> = links
        .into_iter()
        .zip(subnets)
        .map(|((ends, mtu_bytes, egress), subnets)| Link {
            ends,
            mtu_bytes,
            subnets,
            egress,
        })
        .collect();
    check_connected(&nodes, &links)?;
    check_link_families(&nodes, &links)?;
    let client = resolve_role_node("client", raw.client.as_deref(), &names)?;
    let server = resolve_role_node("server", raw.server.as_deref(), &names)?;
    if client.is_some() && client == server {
        return Err(TopologyError::at("server", "must differ from client"));
    }
    let ends = ClientServer { client, server };
    let tunnels = mechanisms::validate_tunnels(&raw.tunnel, &nodes, &links, &names, ends)?;
    let translators =
        mechanisms::validate_translators(&raw.translator, &nodes, &links, &names, ends, &tunnels)?;
    let roles: Vec<Role> = nodes.iter().map(|n| n.role).collect();
    let diffserv = raw
        .diffserv
        .as_ref()
        .map(|d| super::diffserv::validate(d, &names, &roles, &links))
        .transpose()?;
    Ok(Topology {
        name: name.to_string(),
        description: raw.description.trim().to_string(),
        nodes,
        links,
        client,
        server,
        tunnels,
        translators,
        diffserv,
    })
}

fn validate_nodes(raw: &RawTopology) -> Result<Vec<Node>> {
    if raw.node.len() < 2 {
        return Err(TopologyError::at(
            "node",
            "a testbed needs at least two [[node]] tables",
        ));
    }
    let mut seen = HashSet::new();
    let mut nodes = Vec::with_capacity(raw.node.len());
    for (index, node) in raw.node.iter().enumerate() {
        let key = format!("node[{index}].name");
        let name = node.name.as_str();
        let valid = !name.is_empty()
            && name.len() <= MAX_NODE_NAME_CHARS
            && name.starts_with(|c: char| c.is_ascii_lowercase())
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
        if !valid {
            return Err(TopologyError::at(
                key,
                format!(
                    "\"{name}\" must be 1..={MAX_NODE_NAME_CHARS} characters of a-z, 0-9 and -, starting with a letter"
                ),
            ));
        }
        if !seen.insert(name) {
            return Err(TopologyError::at(
                key,
                format!("\"{name}\" is used by an earlier node; node names must be unique"),
            ));
        }
        let role = match node.role.as_deref() {
            None | Some("host") => Role::Host,
            Some("router") => Role::Router,
            Some(other) => {
                return Err(TopologyError::at(
                    format!("node[{index}].role"),
                    format!(
                        "\"{other}\" is not a role; use \"host\" or \"router\"{}",
                        did_you_mean(other, ["host", "router"])
                    ),
                ))
            }
        };
        let stack = match node.stack.as_deref() {
            None | Some("dual") => Stack::Dual,
            Some("ipv4-only") => Stack::Ipv4Only,
            Some("ipv6-only") => Stack::Ipv6Only,
            Some(other) => {
                return Err(TopologyError::at(
                    format!("node[{index}].stack"),
                    format!(
                    "\"{other}\" is not a stack; use \"dual\", \"ipv4-only\" or \"ipv6-only\"{}",
                    did_you_mean(other, ["dual", "ipv4-only", "ipv6-only"])
                ),
                ))
            }
        };
        nodes.push(Node {
            name: name.to_string(),
            role,
            stack,
        });
    }
    Ok(nodes)
}

/// The topology's client and server node, when it names them.
#[derive(Clone, Copy, Debug)]
pub(super) struct ClientServer {
    pub client: Option<usize>,
    pub server: Option<usize>,
}

fn check_link_families(nodes: &[Node], links: &[Link]) -> Result<()> {
    for (index, link) in links.iter().enumerate() {
        let [a, b] = link.ends.map(|n| &nodes[n]);
        if !IpFamily::ALL
            .iter()
            .any(|&f| a.stack.has(f) && b.stack.has(f))
        {
            return Err(TopologyError::at(
                format!("link[{index}].between"),
                format!(
                    "\"{}\" is {} and \"{}\" is {}: no address family crosses this link",
                    a.name,
                    a.stack.key(),
                    b.name,
                    b.stack.key()
                ),
            ));
        }
    }
    Ok(())
}

pub(super) fn resolve_node(key: &str, name: &str, names: &[&str]) -> Result<usize> {
    names.iter().position(|n| *n == name).ok_or_else(|| {
        TopologyError::at(
            key,
            format!(
                "no node named \"{name}\"{}",
                did_you_mean(name, names.iter().copied())
            ),
        )
    })
}

fn resolve_between(key: &str, link: &RawLink, names: &[&str]) -> Result<[usize; 2]> {
    if link.between.len() != 2 {
        return Err(TopologyError::at(
            format!("{key}.between"),
            format!("must name exactly two nodes, found {}", link.between.len()),
        ));
    }
    let a = resolve_node(&format!("{key}.between[0]"), &link.between[0], names)?;
    let b = resolve_node(&format!("{key}.between[1]"), &link.between[1], names)?;
    if a == b {
        return Err(TopologyError::at(
            format!("{key}.between"),
            "a link must join two different nodes",
        ));
    }
    Ok([a, b])
}

fn resolve_role_node(key: &str, given: Option<&str>, names: &[&str]) -> Result<Option<usize>> {
    match given {
        Some(name) => resolve_node(key, name, names).map(Some),
        None => Ok(names.iter().position(|n| *n == key)),
    }
}

fn validate_egress(
    key: &str,
    link: &RawLink,
    ends: [usize; 2],
    names: &[&str],
) -> Result<[Option<Shaping>; 2]> {
    let both = link.both_directions();
    let link_names = [names[ends[0]], names[ends[1]]];
    for sender in link.egress.keys() {
        if !link_names.contains(&sender.as_str()) {
            return Err(TopologyError::at(
                format!("{key}.egress.{sender}"),
                format!(
                    "\"{sender}\" is not on this link (it joins \"{}\" and \"{}\"){}",
                    link_names[0],
                    link_names[1],
                    did_you_mean(sender, link_names)
                ),
            ));
        }
    }
    let mut egress = [None, None];
    for (slot, sender) in egress.iter_mut().zip(link_names) {
        let (raw, shaping_key) = match link.egress.get(sender) {
            Some(over) => (both.overridden_by(over), format!("{key}.egress.{sender}")),
            None => (both.clone(), key.to_string()),
        };
        *slot = validate_shaping(&shaping_key, &raw)?;
    }
    Ok(egress)
}

/// Highest link rate a topology may ask for: 1 Tbit/s.
pub(super) const MAX_LINK_RATE: BitRate = BitRate::from_bits_per_second(1_000_000_000_000);
/// Longest queue in front of a shaper, packets.
pub(super) const MAX_QUEUE_LIMIT_PACKETS: u32 = 1_000_000;

fn validate_shaping(key: &str, raw: &RawShaping) -> Result<Option<Shaping>> {
    let rate = raw
        .rate
        .as_deref()
        .map(|t| {
            t.parse::<BitRate>()
                .map_err(|e| TopologyError::at(format!("{key}.rate"), e.to_string()))
        })
        .transpose()?;
    if rate.is_some_and(|r| r.bits_per_second() == 0) {
        return Err(TopologyError::at(
            format!("{key}.rate"),
            "must be above zero; leave it out for an unshaped link",
        ));
    }
    if let Some(rate) = rate.filter(|r| *r > MAX_LINK_RATE) {
        return Err(TopologyError::at(
            format!("{key}.rate"),
            format!("{rate} exceeds the maximum of {MAX_LINK_RATE}"),
        ));
    }
    let qdisc = match raw.qdisc.as_deref() {
        None | Some("htb") => RateQdisc::Htb,
        Some("tbf") => RateQdisc::Tbf,
        Some(other) => {
            return Err(TopologyError::at(
                format!("{key}.qdisc"),
                format!(
                    "\"{other}\" is not a rate qdisc; use \"htb\" or \"tbf\"{}",
                    did_you_mean(other, ["htb", "tbf"])
                ),
            ))
        }
    };
    if raw.qdisc.is_some() && rate.is_none() {
        return Err(TopologyError::at(
            format!("{key}.qdisc"),
            "a rate qdisc needs a `rate`",
        ));
    }
    let duration = |field: &str, text: &Option<String>| {
        text.as_deref()
            .map(|t| parse_duration(t).map_err(|m| TopologyError::at(format!("{key}.{field}"), m)))
            .transpose()
            .map(Option::unwrap_or_default)
    };
    let delay = duration("delay", &raw.delay)?;
    let jitter = duration("jitter", &raw.jitter)?;
    if !jitter.is_zero() && delay.is_zero() {
        return Err(TopologyError::at(
            format!("{key}.jitter"),
            "jitter varies a delay; set `delay` too",
        ));
    }
    let loss_ratio = match (&raw.loss, raw.loss_ratio) {
        (Some(_), Some(_)) => {
            return Err(TopologyError::at(
                format!("{key}.loss"),
                "give `loss` (a percentage) or `loss_ratio`, not both",
            ))
        }
        (Some(text), None) => parse_loss_percent(text).ok_or_else(|| {
            TopologyError::at(
                format!("{key}.loss"),
                format!("\"{text}\" is not a percentage such as \"1%\" or \"0.5%\""),
            )
        })?,
        (None, ratio) => ratio.unwrap_or(0.0),
    };
    if !(0.0..=1.0).contains(&loss_ratio) {
        return Err(TopologyError::at(
            format!("{key}.loss_ratio"),
            format!("{loss_ratio} is outside 0.0..=1.0"),
        ));
    }
    if raw.queue_limit_packets == Some(0) {
        return Err(TopologyError::at(
            format!("{key}.queue_limit_packets"),
            "must be at least 1",
        ));
    }
    if let Some(limit) = raw
        .queue_limit_packets
        .filter(|&n| n > MAX_QUEUE_LIMIT_PACKETS)
    {
        return Err(TopologyError::at(
            format!("{key}.queue_limit_packets"),
            format!("{limit} exceeds the maximum of {MAX_QUEUE_LIMIT_PACKETS}"),
        ));
    }
    let shaping = Shaping {
        rate: rate.map(|r| (qdisc, r)),
        queue_limit_packets: raw
            .queue_limit_packets
            .unwrap_or(DEFAULT_QUEUE_LIMIT_PACKETS),
        delay,
        jitter,
        loss_ratio,
    };
    if shaping.rate.is_none() && !shaping.needs_netem() {
        if raw.queue_limit_packets.is_some() {
            return Err(TopologyError::at(
                format!("{key}.queue_limit_packets"),
                "a queue limit needs a `rate` or netem settings to sit in front of",
            ));
        }
        return Ok(None);
    }
    Ok(Some(shaping))
}

/// `"1%"` → 0.01; `None` unless it is a number followed by `%` in 0..=100.
fn parse_loss_percent(text: &str) -> Option<f64> {
    let percent: f64 = text.trim().strip_suffix('%')?.trim().parse().ok()?;
    (0.0..=100.0).contains(&percent).then_some(percent / 100.0)
}

fn check_subnet_overlap(given: &[(Option<Ipv4Subnet>, Option<Ipv6Subnet>)]) -> Result<()> {
    for (i, (a4, a6)) in given.iter().enumerate() {
        for (j, (b4, b6)) in given.iter().enumerate().skip(i + 1) {
            if let (Some(a), Some(b)) = (a4, b4) {
                if a.overlaps(b) {
                    return Err(TopologyError::at(
                        format!("link[{j}].ipv4"),
                        format!("{b} overlaps link[{i}]'s {a}"),
                    ));
                }
            }
            if let (Some(a), Some(b)) = (a6, b6) {
                if a.overlaps(b) {
                    return Err(TopologyError::at(
                        format!("link[{j}].ipv6"),
                        format!("{b} overlaps link[{i}]'s {a}"),
                    ));
                }
            }
        }
    }
    Ok(())
}

fn check_connected(nodes: &[Node], links: &[Link]) -> Result<()> {
    let distances = routes::hop_distances(nodes.len(), links, 0);
    if let Some(unreached) = distances.iter().position(Option::is_none) {
        return Err(TopologyError::at(
            "link",
            format!(
                "no path of links joins node \"{}\" to node \"{}\"",
                nodes[0].name, nodes[unreached].name
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::parse_loss_percent;
    use crate::error::LabError;
    use crate::topology::Topology;

    const ROUTED: &str = r#"
        description = "host - router - host"
        [[node]]
        name = "client"
        [[node]]
        name = "router"
        role = "router"
        [[node]]
        name = "server"
        [[link]]
        between = ["client", "router"]
        [[link]]
        between = ["router", "server"]
    "#;

    fn topology_error(text: &str) -> String {
        match Topology::from_toml("t", text) {
            Err(LabError::Topology { source, .. }) => source.to_string(),
            Err(other) => panic!("expected a topology error, got {other}"),
            Ok(_) => panic!("topology was accepted"),
        }
    }

    #[test]
    fn a_routed_topology_validates_with_defaults() {
        let topology = Topology::from_toml("t", ROUTED).unwrap();
        assert_eq!(topology.nodes().len(), 3);
        assert_eq!(topology.links()[0].mtu_bytes, 1500);
        assert_eq!(topology.client().unwrap().name, "client");
        assert_eq!(topology.server().unwrap().name, "server");
        assert!(topology.links().iter().all(|l| l.egress == [None, None]));
    }

    #[test]
    fn a_misspelt_node_in_a_link_suggests_the_right_name() {
        let text = ROUTED.replace(
            r#"between = ["router", "server"]"#,
            r#"between = ["router", "sever"]"#,
        );
        assert_eq!(
            topology_error(&text),
            r#"link[1].between[1]: no node named "sever" (did you mean "server"?)"#
        );
    }

    #[test]
    fn an_unknown_key_is_a_parse_error_naming_the_key() {
        let text = ROUTED.replace(r#"role = "router""#, "role = \"router\"\nforwarding = true");
        let err = Topology::from_toml("t", &text).unwrap_err();
        assert!(matches!(err, LabError::Parse { .. }), "{err}");
        assert!(
            err.to_string().contains("unknown field `forwarding`"),
            "{err}"
        );
    }

    #[test]
    fn loss_is_a_percentage_and_excludes_loss_ratio() {
        assert_eq!(parse_loss_percent("1%"), Some(0.01));
        assert_eq!(parse_loss_percent(" 0.5 % "), Some(0.005));
        assert_eq!(parse_loss_percent("1"), None);
        assert_eq!(parse_loss_percent("101%"), None);
        let link = |keys: &str| {
            format!(
                "description = \"d\"\n[[node]]\nname = \"client\"\n[[node]]\nname = \"server\"\n[[link]]\nbetween = [\"client\", \"server\"]\n{keys}\n"
            )
        };
        let t = Topology::from_toml(
            "t",
            &link("delay = \"50ms\"\njitter = \"2ms\"\nloss = \"1%\""),
        )
        .unwrap();
        let shaping = t.links()[0].egress[0].as_ref().unwrap();
        assert_eq!(shaping.loss_ratio, 0.01);
        assert_eq!(shaping.delay, std::time::Duration::from_millis(50));
        let both = Topology::from_toml("t", &link("loss = \"1%\"\nloss_ratio = 0.01")).unwrap_err();
        assert!(
            both.to_string().contains("not both") || format!("{both:?}").contains("not both"),
            "{both:?}"
        );
    }

    #[test]
    fn a_misspelt_shaping_key_is_rejected_not_ignored() {
        let text = format!("{ROUTED}rat = \"10Mbit\"\n");
        let err = Topology::from_toml("t", &text).unwrap_err().to_string();
        assert!(err.contains("unknown field `rat`"), "{err}");
    }

    #[test]
    fn duplicate_node_names_are_rejected() {
        let text = ROUTED.replace(r#"name = "server""#, r#"name = "client""#);
        assert_eq!(
            topology_error(&text),
            r#"node[2].name: "client" is used by an earlier node; node names must be unique"#
        );
    }

    #[test]
    fn mtu_below_the_ipv6_minimum_is_rejected() {
        let text = format!("{ROUTED}mtu_bytes = 1000\n");
        assert!(topology_error(&text)
            .starts_with("link[1].mtu_bytes: 1000 is out of range 1280..=65535"));
    }

    #[test]
    fn mtu_above_the_veth_maximum_is_rejected_and_the_extremes_are_accepted() {
        assert!(topology_error(&format!("{ROUTED}mtu_bytes = 65536\n"))
            .starts_with("link[1].mtu_bytes"));
        Topology::from_toml("t", &format!("{ROUTED}mtu_bytes = 1280\n")).unwrap();
        Topology::from_toml("t", &format!("{ROUTED}mtu_bytes = 65535\n")).unwrap();
    }

    #[test]
    fn a_disconnected_node_is_rejected() {
        let text = format!("{ROUTED}[[node]]\nname = \"island\"\n");
        assert_eq!(
            topology_error(&text),
            r#"link: no path of links joins node "client" to node "island""#
        );
    }

    #[test]
    fn a_link_from_a_node_to_itself_is_rejected() {
        let text = ROUTED.replace(
            r#"between = ["client", "router"]"#,
            r#"between = ["client", "client"]"#,
        );
        assert_eq!(
            topology_error(&text),
            "link[0].between: a link must join two different nodes"
        );
    }

    #[test]
    fn an_unknown_role_suggests_router() {
        let text = ROUTED.replace(r#"role = "router""#, r#"role = "ruoter""#);
        assert!(topology_error(&text).contains(r#"(did you mean "router"?)"#));
    }

    #[test]
    fn egress_overrides_apply_to_their_direction_only() {
        let text = format!("{ROUTED}rate = \"20Mbit\"\n[link.egress.server]\nrate = \"5Mbit\"\n");
        let topology = Topology::from_toml("t", &text).unwrap();
        let link = &topology.links()[1];
        let router_egress = link.egress[0].as_ref().unwrap();
        let server_egress = link.egress[1].as_ref().unwrap();
        assert_eq!(router_egress.rate.unwrap().1.bits_per_second(), 20_000_000);
        assert_eq!(server_egress.rate.unwrap().1.bits_per_second(), 5_000_000);
    }

    #[test]
    fn egress_for_a_node_not_on_the_link_is_rejected_with_a_suggestion() {
        let text = format!("{ROUTED}rate = \"20Mbit\"\n[link.egress.servre]\nrate = \"5Mbit\"\n");
        let err = topology_error(&text);
        assert!(
            err.starts_with("link[1].egress.servre: \"servre\" is not on this link"),
            "{err}"
        );
        assert!(err.contains(r#"(did you mean "server"?)"#), "{err}");
    }

    #[test]
    fn extreme_values_are_errors_with_their_maximum_not_panics() {
        // Issue 16 fault 8: delay = "1e20s" made `lab --dry-run` exit 101.
        for (line, key, maximum) in [
            ("delay = \"1e20s\"\n", "link[1].delay", "60 s"),
            (
                "delay = \"1ms\"\njitter = \"1e300s\"\n",
                "link[1].jitter",
                "60 s",
            ),
            ("rate = \"1e30\"\n", "link[1].rate", "1000.000 Gbit/s"),
            (
                "rate = \"1M\"\nqueue_limit_packets = 4294967295\n",
                "link[1].queue_limit_packets",
                "1000000",
            ),
        ] {
            let error = topology_error(&format!("{ROUTED}{line}"));
            assert!(
                error.starts_with(key) && error.contains(maximum),
                "{line}: {error}"
            );
        }
    }

    #[test]
    fn bad_rates_durations_and_ratios_name_their_key() {
        assert!(topology_error(&format!("{ROUTED}rate = \"fast\"\n")).starts_with("link[1].rate:"));
        assert!(topology_error(&format!("{ROUTED}delay = \"15\"\n")).starts_with("link[1].delay:"));
        assert!(topology_error(&format!("{ROUTED}loss_ratio = 1.5\n"))
            .starts_with("link[1].loss_ratio:"));
        assert!(
            topology_error(&format!("{ROUTED}jitter = \"1ms\"\n")).starts_with("link[1].jitter:")
        );
        assert!(topology_error(&format!("{ROUTED}qdisc = \"tbf\"\n")).starts_with("link[1].qdisc:"));
    }

    #[test]
    fn overlapping_user_subnets_are_rejected() {
        let text = ROUTED
            .replace(
                r#"between = ["client", "router"]"#,
                "between = [\"client\", \"router\"]\nipv4 = \"10.9.0.0/16\"",
            )
            .replace(
                r#"between = ["router", "server"]"#,
                "between = [\"router\", \"server\"]\nipv4 = \"10.9.3.0/24\"",
            );
        assert_eq!(
            topology_error(&text),
            "link[1].ipv4: 10.9.3.0/24 overlaps link[0]'s 10.9.0.0/16"
        );
    }

    #[test]
    fn an_explicit_client_that_does_not_exist_is_rejected() {
        let text = format!("client = \"clinet\"\n{ROUTED}");
        assert_eq!(
            topology_error(&text),
            r#"client: no node named "clinet" (did you mean "client"?)"#
        );
    }

    #[test]
    fn user_given_subnets_are_used() {
        let text = ROUTED.replace(
            r#"between = ["client", "router"]"#,
            "between = [\"client\", \"router\"]\nipv4 = \"192.168.7.0/24\"\nipv6 = \"fd07::/64\"",
        );
        let topology = Topology::from_toml("t", &text).unwrap();
        let [v4, v6] = topology.primary_addresses(0).unwrap();
        assert_eq!(v4.to_string(), "192.168.7.1/24");
        assert_eq!(v6.to_string(), "fd07::1/64");
        assert_eq!(topology.links()[1].subnets.v4.to_string(), "10.180.1.0/24");
    }
}

//! Every preset builds, both families reach the server end to end, and
//! packets really cross the routers: each router decrements the IPv4 TTL and
//! the IPv6 hop limit by one (RFC 791, RFC 8200 §3), so the echo reply from
//! the server arrives with 64 minus the number of routers on the path.

use std::process::Command;

use dualperf_model::IpFamily;

use super::{build_preset, host_interfaces_of, namespaces_of, require_net_admin};

/// Initial TTL / hop limit of Linux (`net.ipv4.ip_default_ttl`, `net.ipv6.conf.*.hop_limit`).
const INITIAL_TTL: u32 = 64;

/// A first echo slower than this waited for neighbour discovery to retry
/// (1 s): the testbed was handed over before its links were ready.
const FIRST_ECHO_LIMIT_MS: f64 = 500.0;

/// Pings `target` once from inside `netns` and returns the reply's TTL / hop
/// limit and round-trip time in milliseconds.
fn ping(netns: &str, family: IpFamily, target: &str) -> (u32, f64) {
    let flag = match family {
        IpFamily::V4 => "-4",
        IpFamily::V6 => "-6",
    };
    let output = Command::new("ip")
        .args([
            "netns", "exec", netns, "ping", flag, "-c", "1", "-W", "2", target,
        ])
        .output()
        .expect("`ping` is installed (package iputils-ping)");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "ping {target} from {netns} failed: {stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let field = |name: &str| {
        stdout
            .split_whitespace()
            .find_map(|word| word.strip_prefix(name))
            .unwrap_or_else(|| panic!("no {name} in ping output: {stdout}"))
            .to_string()
    };
    (
        field("ttl=").parse().expect("ttl is a number"),
        field("time=").parse().expect("time is a number"),
    )
}

fn check_preset(name: &str, routers_on_path: u32) {
    let testbed = build_preset(name);
    let run = testbed.run_id().clone();
    let client = testbed.netns("client").unwrap();
    for family in IpFamily::ALL {
        let server = testbed.address("server", family).unwrap().to_string();
        let (ttl, rtt_ms) = ping(&client, family, &server);
        assert_eq!(
            ttl,
            INITIAL_TTL - routers_on_path,
            "{name} {family}: reply from {server} had ttl {ttl}"
        );
        assert!(
            rtt_ms < FIRST_ECHO_LIMIT_MS,
            "{name} {family}: first echo took {rtt_ms} ms"
        );
    }
    assert!(!namespaces_of(&run).is_empty());
    drop(testbed);
    assert!(
        namespaces_of(&run).is_empty(),
        "namespaces left: {:?}",
        namespaces_of(&run)
    );
    assert!(host_interfaces_of(&run).is_empty());
}

#[test]
fn p2p_reaches_the_server_over_both_families_with_no_hop() {
    require_net_admin!();
    check_preset("p2p", 0);
}

#[test]
fn router_reaches_the_server_over_both_families_through_one_forwarding_hop() {
    require_net_admin!();
    check_preset("router", 1);
}

#[test]
fn two_routers_reaches_the_server_over_both_families_through_two_forwarding_hops() {
    require_net_admin!();
    check_preset("two-routers", 2);
}

#[test]
fn bottleneck_reaches_the_server_over_both_families_through_two_forwarding_hops() {
    require_net_admin!();
    check_preset("bottleneck", 2);
}

#[test]
fn a_router_node_reaches_the_far_subnet_too() {
    require_net_admin!();
    let testbed = build_preset("two-routers");
    let router1 = testbed.netns("router1").unwrap();
    for family in IpFamily::ALL {
        let server = testbed.address("server", family).unwrap().to_string();
        assert_eq!(ping(&router1, family, &server).0, INITIAL_TTL - 1);
    }
}

/// Pings with the don't-fragment bit and `payload` bytes; true when answered.
fn ping_unfragmented(netns: &str, family: IpFamily, target: &str, payload: u32) -> bool {
    let flag = match family {
        IpFamily::V4 => "-4",
        IpFamily::V6 => "-6",
    };
    let size = payload.to_string();
    Command::new("ip")
        .args([
            "netns", "exec", netns, "ping", flag, "-M", "do", "-s", &size, "-c", "1", "-W", "2",
            target,
        ])
        .output()
        .expect("`ping` is installed (package iputils-ping)")
        .status
        .success()
}

#[test]
fn a_link_mtu_lets_full_size_packets_through_unfragmented_and_stops_larger_ones() {
    require_net_admin!();
    let text = r#"
        description = "jumbo p2p"
        [[node]]
        name = "client"
        [[node]]
        name = "server"
        [[link]]
        between = ["client", "server"]
        mtu_bytes = 9000
    "#;
    let testbed = super::build(&dualperf_lab::Topology::from_toml("jumbo", text).unwrap());
    let client = testbed.netns("client").unwrap();
    for family in IpFamily::ALL {
        // ICMP echo header 8 bytes, IP header 20 (IPv4) or 40 (IPv6) bytes.
        let largest = 9000 - 8 - family.ip_header_bytes();
        let server = testbed.address("server", family).unwrap().to_string();
        assert!(
            ping_unfragmented(&client, family, &server, largest),
            "{family}: {largest} bytes did not pass"
        );
        assert!(
            !ping_unfragmented(&client, family, &server, largest + 1),
            "{family}: {} bytes passed",
            largest + 1
        );
    }
}

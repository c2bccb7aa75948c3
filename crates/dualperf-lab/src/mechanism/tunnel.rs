//! The kernel steps of one tunnel (6in4 and 4in6) with the implementation
//! chosen for it: kernel devices where they exist, else LWT-BPF + tc-BPF
//! (6in4) or SRv6 (4in6).

use super::*;

pub(super) fn tunnel_steps(
    ctx: &mut Ctx<'_>,
    index: usize,
    tunnel: &Tunnel,
    implementation: Implementation,
) {
    let (inner, outer) = (tunnel.kind.inner(), tunnel.kind.outer());
    let [x, y] = tunnel.ends;
    let [c, s] = tunnel.carries;
    let carried = [tunnel.subnet.address(0), tunnel.subnet.address(1)];
    // 1. the carried addresses, on the carried nodes' loopback
    for (side, node) in [c, s].into_iter().enumerate() {
        let address = host_prefix(carried[side]);
        match inner {
            IpFamily::V4 => ctx.ip(node, &["addr", "add", &address, "dev", "lo"]),
            IpFamily::V6 => ctx.ip(node, &["-6", "addr", "add", &address, "dev", "lo", "nodad"]),
        }
    }
    // 2. native routes between each carried node and its tunnel end
    let client_side = ctx.hops(inner, c, x);
    ctx.route_along(&client_side, inner, carried[1], Some(carried[0]));
    let back_to_client = ctx.hops(inner, x, c);
    ctx.route_along(&back_to_client, inner, carried[0], None);
    let server_side = ctx.hops(inner, y, s);
    ctx.route_along(&server_side, inner, carried[1], None);
    let back_to_end = ctx.hops(inner, s, y);
    ctx.route_along(&back_to_end, inner, carried[0], Some(carried[1]));
    // 3. the tunnel itself, between the ends' outer addresses
    let towards = [ctx.hops(outer, x, y), ctx.hops(outer, y, x)];
    let first = [towards[0][0], towards[1][0]];
    let (interface, outer_address): (Vec<String>, Vec<IpAddr>) =
        first.iter().map(|hop| ctx.local_end(hop, outer)).unzip();
    let out_mtu: Vec<u32> = first
        .iter()
        .map(|hop| ctx.topology.links()[hop.link].mtu_bytes)
        .collect();
    // what each end encapsulates: the far carried address, with the near one as source when local
    let encap_for = [
        (carried[1], (x == c).then_some(carried[0])),
        (carried[0], (y == s).then_some(carried[1])),
    ];
    let ends = [x, y];
    match implementation {
        Implementation::BpfLwt => {
            for side in 0..2 {
                let node = ends[side];
                let (local, peer) = (v4(outer_address[side]), v4(outer_address[1 - side]));
                let stem = format!("t{index}-{}", ctx.name(node));
                let encap = ctx.write(
                    &format!("{stem}-encap.o"),
                    bpf::patched(Program::Encap, local, peer),
                    FileOrigin::Bpf {
                        program: Program::Encap,
                        local,
                        peer,
                    },
                );
                let decap = ctx.write(
                    &format!("{stem}-decap.o"),
                    bpf::patched(Program::Decap, local, peer),
                    FileOrigin::Bpf {
                        program: Program::Decap,
                        local,
                        peer,
                    },
                );
                let headroom = (out_mtu[side] - tunnel.mtu_bytes)
                    .min(MAX_LWT_HEADROOM)
                    .to_string();
                let (destination, src) = encap_for[side];
                let dest = host_prefix(destination);
                let encap_path = encap.display().to_string();
                let src_text = src.map(|s| s.to_string());
                let mut words = vec![
                    "-6",
                    "route",
                    "add",
                    dest.as_str(),
                    "encap",
                    "bpf",
                    "xmit",
                    "obj",
                    encap_path.as_str(),
                    "section",
                    "lwt_xmit",
                    "headroom",
                    headroom.as_str(),
                    "dev",
                    interface[side].as_str(),
                ];
                if let Some(src) = &src_text {
                    words.extend(["src", src.as_str()]);
                }
                ctx.ip(node, &words);
                let iface = interface[side].clone();
                ctx.ensure_clsact(node, &iface);
                let pref = (10 + index).to_string();
                let decap_path = decap.display().to_string();
                ctx.ip_tc(
                    node,
                    &[
                        "filter",
                        "add",
                        "dev",
                        &iface,
                        "ingress",
                        "pref",
                        &pref,
                        "bpf",
                        "da",
                        "obj",
                        &decap_path,
                        "sec",
                        "tc",
                    ],
                );
            }
        }
        Implementation::Sit | Implementation::Ip6tnl => {
            let device = mechanism_interface_name(ctx.run, 't', index);
            let mtu = tunnel.mtu_bytes.to_string();
            for side in 0..2 {
                let node = ends[side];
                let (local, remote) = (
                    outer_address[side].to_string(),
                    outer_address[1 - side].to_string(),
                );
                let mut words = vec!["link", "add", device.as_str(), "type"];
                if implementation == Implementation::Sit {
                    words.extend(["sit", "local", &local, "remote", &remote, "ttl", "64"]);
                } else {
                    words.extend([
                        "ip6tnl",
                        "mode",
                        "ipip6",
                        "local",
                        &local,
                        "remote",
                        &remote,
                        "encaplimit",
                        "none",
                        "hoplimit",
                        "64",
                    ]);
                }
                let netns = ctx.netns(node);
                let mut all = vec!["-n", netns.as_str()];
                all.extend(words);
                ctx.steps.push(Step::creating(
                    KernelCommand::ip(all),
                    Creates::Undo {
                        command: KernelCommand::ip(["-n", &netns, "link", "del", &device]),
                    },
                ));
                ctx.ip(node, &["link", "set", &device, "mtu", &mtu, "up"]);
                let (destination, src) = encap_for[side];
                let dest = host_prefix(destination);
                let src_text = src.map(|s| s.to_string());
                let mut words = vec![
                    family_flag(inner),
                    "route",
                    "add",
                    dest.as_str(),
                    "dev",
                    device.as_str(),
                ];
                if let Some(src) = &src_text {
                    words.extend(["src", src.as_str()]);
                }
                ctx.ip(node, &words);
            }
        }
        Implementation::Srv6 => {
            let sid = [Tunnel::srv6_sid(index, 0), Tunnel::srv6_sid(index, 1)];
            // each end's segment id is routed to it from the other end
            for side in 0..2 {
                let hops = towards[1 - side].clone();
                let destination = IpAddr::V6(sid[side]);
                ctx.route_along(&hops, IpFamily::V6, destination, None);
            }
            // the route MTU: the kernel subtracts SEG6_HEADROOM from it
            let mtu = (tunnel.mtu_bytes + SEG6_HEADROOM).to_string();
            let mss = (tunnel.mtu_bytes - 40).to_string();
            for side in 0..2 {
                let node = ends[side];
                let (destination, src) = encap_for[side];
                let dest = host_prefix(destination);
                let peer_sid = sid[1 - side].to_string();
                let src_text = src.map(|s| s.to_string());
                let mut words = vec![
                    "-4",
                    "route",
                    "add",
                    dest.as_str(),
                    "encap",
                    "seg6",
                    "mode",
                    "encap.red",
                    "segs",
                    peer_sid.as_str(),
                    "dev",
                    interface[side].as_str(),
                ];
                if let Some(src) = &src_text {
                    words.extend(["src", src.as_str()]);
                }
                words.extend(["mtu", "lock", mtu.as_str()]);
                ctx.ip(node, &words);
                if src.is_none() {
                    // A router end encapsulates forwarded packets on input,
                    // before ip_forward: no IPv4 MTU check there, so clamp
                    // TCP's MSS to fit the tunnel (see `notes`).
                    let netns = ctx.netns(node);
                    let table = format!("dualperf_4in6_{index}");
                    let far = destination.to_string();
                    for words in [
                        vec!["add", "table", "ip", table.as_str()],
                        vec![
                            "add",
                            "chain",
                            "ip",
                            table.as_str(),
                            "pre",
                            "{ type filter hook prerouting priority mangle ; }",
                        ],
                        vec![
                            "add",
                            "rule",
                            "ip",
                            table.as_str(),
                            "pre",
                            "ip",
                            "daddr",
                            far.as_str(),
                            "tcp",
                            "flags",
                            "syn",
                            "tcp",
                            "option",
                            "maxseg",
                            "size",
                            "set",
                            mss.as_str(),
                        ],
                    ] {
                        ctx.run(KernelCommand::in_netns(&netns, "nft", words));
                    }
                }
                // decapsulate at the own segment id, then route to the carried
                // address: itself when the end carries, else the next hop
                let (carried_here, towards_carried) = if side == 0 {
                    (carried[0], &back_to_client)
                } else {
                    (carried[1], &server_side)
                };
                let nh4 = match towards_carried.first() {
                    Some(hop) => ctx.next_hop(hop, IpFamily::V4),
                    None => carried_here,
                }
                .to_string();
                let own_sid = host_prefix(IpAddr::V6(sid[side]));
                ctx.ip(
                    node,
                    &[
                        "-6",
                        "route",
                        "add",
                        &own_sid,
                        "encap",
                        "seg6local",
                        "action",
                        "End.DX4",
                        "nh4",
                        &nh4,
                        "dev",
                        interface[side].as_str(),
                    ],
                );
            }
        }
        Implementation::Tayga | Implementation::Jool => {
            unreachable!("validation pairs tunnels with tunnel implementations")
        }
    }
}

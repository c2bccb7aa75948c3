//! The steps of one NAT64 translator with the implementation chosen for
//! it: Jool where its module loads, else TAYGA on a TUN device with
//! nftables masquerade.

use super::*;

pub(super) fn translator_steps(
    ctx: &mut Ctx<'_>,
    index: usize,
    translator: &Translator,
    implementation: Implementation,
) {
    let topology = ctx.topology;
    let r = translator.node;
    let client = topology
        .client
        .expect("validated: a translator has a client");
    let server = topology
        .server
        .expect("validated: a translator has a server");
    // the client side routes the prefix to the translator
    let to_router = ctx.hops(IpFamily::V6, client, r);
    let prefix = translator.prefix.to_string();
    for hop in &to_router {
        let (interface, _) = ctx.local_end(hop, IpFamily::V6);
        let via = ctx.next_hop(hop, IpFamily::V6).to_string();
        ctx.ip(
            hop.node,
            &[
                "-6", "route", "add", &prefix, "via", &via, "dev", &interface,
            ],
        );
    }
    let netns = ctx.netns(r);
    match implementation {
        Implementation::Tayga => {
            let device = mechanism_interface_name(ctx.run, 'x', index);
            let data_dir = ctx.dir.join(format!("tayga-{index}"));
            ctx.steps.push(Step {
                action: Action::MakeDir(data_dir.clone()),
                creates: None,
            });
            let tayga_v6 = tayga_ipv6_address(index);
            let conf = format!(
                "tun-device {device}\nipv4-addr {}\nipv6-addr {tayga_v6}\nprefix {prefix}\ndynamic-pool {}\ndata-dir {}\n",
                translator.pool.host(1).address,
                translator.pool,
                data_dir.display()
            );
            let conf_path = ctx.write(
                &format!("tayga-{index}.conf"),
                conf.into_bytes(),
                FileOrigin::Text,
            );
            let conf_text = conf_path.display().to_string();
            ctx.steps.push(Step::creating(
                KernelCommand::in_netns(&netns, "tayga", ["-c", conf_text.as_str(), "--mktun"]),
                Creates::Undo {
                    command: KernelCommand::ip(["-n", &netns, "link", "del", &device]),
                },
            ));
            ctx.ip(r, &["link", "set", &device, "up"]);
            let towards_server = ctx.hops(IpFamily::V4, r, server);
            let (v4_interface, router_v4) = ctx.local_end(&towards_server[0], IpFamily::V4);
            let (_, router_v6) = ctx.local_end(&ctx.hops(IpFamily::V6, r, client)[0], IpFamily::V6);
            ctx.ip(r, &["addr", "add", &host_prefix(router_v4), "dev", &device]);
            ctx.ip(
                r,
                &[
                    "-6",
                    "addr",
                    "add",
                    &host_prefix(router_v6),
                    "dev",
                    &device,
                    "nodad",
                ],
            );
            ctx.ip(
                r,
                &["route", "add", &translator.pool.to_string(), "dev", &device],
            );
            ctx.ip(r, &["-6", "route", "add", &prefix, "dev", &device]);
            // RFC 6146's NAPT: the pool leaves masqueraded behind the router's
            // address, so the server needs no route back to the pool
            let table = format!("dualperf_nat64_{index}");
            let pool = translator.pool.to_string();
            for words in [
                vec!["add", "table", "ip", table.as_str()],
                vec![
                    "add",
                    "chain",
                    "ip",
                    table.as_str(),
                    "post",
                    "{ type nat hook postrouting priority srcnat ; }",
                ],
                vec![
                    "add",
                    "rule",
                    "ip",
                    table.as_str(),
                    "post",
                    "oifname",
                    v4_interface.as_str(),
                    "ip",
                    "saddr",
                    pool.as_str(),
                    "masquerade",
                ],
            ] {
                ctx.run(KernelCommand::in_netns(&netns, "nft", words));
            }
            let pid_file = ctx.dir.join(format!("tayga-{index}.pid"));
            let pid_text = pid_file.display().to_string();
            ctx.steps.push(Step::creating(
                KernelCommand::in_netns(
                    &netns,
                    "tayga",
                    ["-c", conf_text.as_str(), "--pidfile", pid_text.as_str()],
                ),
                Creates::Daemon {
                    netns: netns.clone(),
                    pid_file,
                },
            ));
        }
        Implementation::Jool => {
            let instance = format!("dsp{}n{index}", ctx.run);
            ctx.steps.push(Step::creating(
                KernelCommand::in_netns(
                    &netns,
                    "jool",
                    [
                        "instance",
                        "add",
                        instance.as_str(),
                        "--netfilter",
                        "--pool6",
                        prefix.as_str(),
                    ],
                ),
                Creates::Undo {
                    command: KernelCommand::in_netns(
                        &netns,
                        "jool",
                        ["instance", "remove", instance.as_str()],
                    ),
                },
            ));
        }
        _ => unreachable!("validation pairs translators with translator implementations"),
    }
}

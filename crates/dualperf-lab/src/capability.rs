//! Which kernel features this machine has, found by trying them.
//!
//! Reading `/proc/modules` or the kernel config says little: modules load on
//! demand, may be built in, and containers hide both. So every feature is
//! probed by doing what a testbed would do, in a throwaway namespace
//! (`dsp-<run>-probe`) that is deleted afterwards: add a qdisc to its `lo`
//! (`tc qdisc add dev lo root netem`), add a tunnel device
//! (`ip link add NAME type sit`), add an nftables table, set the forwarding
//! sysctls, attach the embedded 6in4 BPF programs, add SRv6 routes, create a
//! TUN device for TAYGA, add a Jool instance. A feature that fails is
//! reported with what provides it and what its absence disables;
//! [`crate::mechanism::support`] turns them into the implementation each
//! transition mechanism would use (what `dualperf doctor` lists).

use std::fmt;
use std::path::Path;

pub use crate::feature::Feature;

use crate::command::{KernelCommand, Runner};
use crate::error::LabError;
use crate::namespace::Namespace;
use crate::naming::{namespace_name, RunId};

impl Feature {
    /// Every feature, in report order.
    pub const ALL: [Feature; 21] = [
        Feature::Veth,
        Feature::Ipv6,
        Feature::Forwarding,
        Feature::Htb,
        Feature::Tbf,
        Feature::Netem,
        Feature::Prio,
        Feature::FqCodel,
        Feature::Sfq,
        Feature::Sit,
        Feature::Gre,
        Feature::Ipip,
        Feature::Ip6tnl,
        Feature::Vxlan,
        Feature::Nftables,
        Feature::LwtBpf,
        Feature::Seg6,
        Feature::Tayga,
        Feature::Jool,
        Feature::TcBpf,
        Feature::Tap,
    ];

    /// Short name, e.g. `qdisc netem`.
    pub fn label(self) -> &'static str {
        match self {
            Feature::Veth => "veth pairs",
            Feature::Ipv6 => "IPv6",
            Feature::Forwarding => "forwarding",
            Feature::Htb => "qdisc htb",
            Feature::Tbf => "qdisc tbf",
            Feature::Netem => "qdisc netem",
            Feature::Prio => "qdisc prio",
            Feature::FqCodel => "qdisc fq_codel",
            Feature::Sfq => "qdisc sfq",
            Feature::Sit => "tunnel sit (6in4)",
            Feature::Gre => "tunnel gre",
            Feature::Ipip => "tunnel ipip",
            Feature::Ip6tnl => "tunnel ip6tnl",
            Feature::Vxlan => "vxlan",
            Feature::Nftables => "nftables",
            Feature::LwtBpf => "6in4 with BPF",
            Feature::Seg6 => "SRv6 (seg6)",
            Feature::Tayga => "TAYGA",
            Feature::Jool => "Jool",
            Feature::TcBpf => "tc BPF egress",
            Feature::Tap => "TAP devices",
        }
    }

    /// How to get it: the module to load or the package to install.
    pub fn remedy(self) -> String {
        match self {
            Feature::Ipv6 => "boot with IPv6 enabled (no ipv6.disable=1)".into(),
            Feature::Forwarding => "allow writing the forwarding sysctls (a container may forbid it)".into(),
            Feature::LwtBpf => "a kernel >= 6.3 with CONFIG_LWTUNNEL_BPF and CONFIG_NET_CLS_BPF, and iproute2 that loads BPF objects".into(),
            Feature::Seg6 => "a kernel with CONFIG_IPV6_SEG6_LWTUNNEL".into(),
            Feature::Tayga => "install TAYGA: apt-get install tayga (dev/install-deps does)".into(),
            Feature::Jool => "install Jool (Debian packages jool-dkms and jool-tools) and load it: modprobe jool".into(),
            Feature::Nftables => "install nftables (apt-get install nftables) and load `nf_tables`".into(),
            other => format!("load kernel module `{m}`: modprobe {m}", m = other.module()),
        }
    }

    /// The program this feature needs on `PATH`, if any.
    pub fn program(self) -> Option<&'static str> {
        match self {
            Feature::Tayga => Some("tayga"),
            Feature::Jool => Some("jool"),
            Feature::Nftables => Some("nft"),
            _ => None,
        }
    }

    /// The kernel module (or setting) that provides it.
    pub fn module(self) -> &'static str {
        match self {
            Feature::Veth => "veth",
            Feature::Ipv6 => "ipv6",
            Feature::Forwarding => "net.ipv4.ip_forward / net.ipv6.conf.all.forwarding",
            Feature::Htb => "sch_htb",
            Feature::Tbf => "sch_tbf",
            Feature::Netem => "sch_netem",
            Feature::Prio => "sch_prio",
            Feature::FqCodel => "sch_fq_codel",
            Feature::Sfq => "sch_sfq",
            Feature::Sit => "sit",
            Feature::Gre => "ip_gre",
            Feature::Ipip => "ipip",
            Feature::Ip6tnl => "ip6_tunnel",
            Feature::Vxlan => "vxlan",
            Feature::Nftables => "nf_tables",
            Feature::LwtBpf => "lwt_bpf, cls_bpf (Linux >= 6.3)",
            Feature::Seg6 => "CONFIG_IPV6_SEG6_LWTUNNEL",
            Feature::Tayga => "package tayga",
            Feature::Jool => "jool",
            Feature::TcBpf => "cls_bpf, sch_ingress (clsact)",
            Feature::Tap => "tun",
        }
    }

    /// What a missing feature disables.
    pub fn disables(self) -> &'static str {
        match self {
            Feature::Veth => "every testbed (links are veth pairs)",
            Feature::Ipv6 => "every IPv6 measurement",
            Feature::Forwarding => "routers: only the p2p testbed works",
            Feature::Htb => {
                "link rates with qdisc = \"htb\" (the default, e.g. the bottleneck preset)"
            }
            Feature::Tbf => "link rates with qdisc = \"tbf\"",
            Feature::Netem => "netem for delay, jitter and loss on links (the cls_bpf loss program and the user-space delay line are used instead, if present)",
            Feature::Prio => "strict-priority queues (DiffServ EF scenarios)",
            Feature::FqCodel => "fq_codel AQM comparisons",
            Feature::Sfq => "stochastic fair queueing comparisons",
            Feature::Sit => {
                "6in4 tunnels with the kernel device (the BPF recipe is used instead, if present)"
            }
            Feature::Gre => "GRE tunnel testbeds",
            Feature::Ipip => "IPv4-in-IPv4 tunnel testbeds",
            Feature::Ip6tnl => {
                "4in6 tunnels with the kernel device (SRv6 is used instead, if present)"
            }
            Feature::Vxlan => "VXLAN overlay testbeds",
            Feature::Nftables => {
                "NAT64 with TAYGA (masquerade), DSCP marking and policing scenarios"
            }
            Feature::LwtBpf => {
                "6in4 tunnels where sit is missing (the tunnel, tunnels and tunnel-* presets)"
            }
            Feature::Seg6 => "4in6 tunnels where ip6tnl is missing (the four-in-six preset)",
            Feature::Tayga => "NAT64 where Jool is missing (the nat64 preset)",
            Feature::Jool => "NAT64 in the kernel (TAYGA in user space is used instead)",
            Feature::TcBpf => "link loss where netem is missing (the cls_bpf loss program)",
            Feature::Tap => "link delay and jitter where netem is missing (the user-space delay line)",
        }
    }

    /// The commands that exercise the feature inside `netns`; `files` is a
    /// scratch directory for the BPF objects.
    fn probe(self, netns: &str, files: &Path) -> ProbeSteps {
        let one = |decide: KernelCommand, cleanup: Vec<KernelCommand>| ProbeSteps {
            prepare: Vec::new(),
            decide: vec![decide],
            cleanup,
        };
        let qdisc = |words: &[&str]| {
            let mut args = vec![
                "-n", netns, "qdisc", "add", "dev", "lo", "root", "handle", "1:",
            ];
            args.extend(words);
            one(
                KernelCommand::tc(args),
                vec![KernelCommand::tc([
                    "-n", netns, "qdisc", "del", "dev", "lo", "root",
                ])],
            )
        };
        let device = |words: &[&str]| {
            let mut args = vec!["-n", netns, "link", "add", "dspprobe0", "type"];
            args.extend(words);
            one(
                KernelCommand::ip(args),
                vec![KernelCommand::ip(["-n", netns, "link", "del", "dspprobe0"])],
            )
        };
        let lo_up = KernelCommand::ip(["-n", netns, "link", "set", "lo", "up"]);
        match self {
            Feature::Veth => device(&["veth", "peer", "name", "dspprobe1"]),
            Feature::Ipv6 => one(
                KernelCommand::ip([
                    "-n",
                    netns,
                    "-6",
                    "addr",
                    "add",
                    "fd00:dead:beef::1/128",
                    "dev",
                    "lo",
                    "nodad",
                ]),
                Vec::new(),
            ),
            Feature::Forwarding => one(
                KernelCommand::in_netns(
                    netns,
                    "sysctl",
                    [
                        "-q",
                        "-w",
                        "net.ipv4.ip_forward=1",
                        "net.ipv6.conf.all.forwarding=1",
                    ],
                ),
                Vec::new(),
            ),
            Feature::Htb => qdisc(&["htb"]),
            Feature::Tbf => qdisc(&[
                "tbf", "rate", "1mbit", "burst", "32kbit", "latency", "400ms",
            ]),
            Feature::Netem => qdisc(&["netem"]),
            Feature::Prio => qdisc(&["prio"]),
            Feature::FqCodel => qdisc(&["fq_codel"]),
            Feature::Sfq => qdisc(&["sfq"]),
            Feature::Sit => device(&["sit"]),
            Feature::Gre => device(&["gre", "remote", "192.0.2.1", "local", "192.0.2.2"]),
            Feature::Ipip => device(&["ipip"]),
            Feature::Ip6tnl => device(&["ip6tnl"]),
            Feature::Vxlan => device(&["vxlan", "id", "42", "dstport", "4789"]),
            Feature::Nftables => one(
                KernelCommand::in_netns(netns, "nft", ["add", "table", "inet", "dualperf_probe"]),
                Vec::new(),
            ),
            Feature::LwtBpf => {
                let encap = files.join("probe-encap.o").display().to_string();
                let decap = files.join("probe-decap.o").display().to_string();
                ProbeSteps {
                    prepare: vec![lo_up],
                    decide: vec![
                        KernelCommand::ip([
                            "-n",
                            netns,
                            "-6",
                            "route",
                            "add",
                            "fd00:dead:beef::/64",
                            "encap",
                            "bpf",
                            "xmit",
                            "obj",
                            &encap,
                            "section",
                            "lwt_xmit",
                            "headroom",
                            "20",
                            "dev",
                            "lo",
                        ]),
                        KernelCommand::tc(["-n", netns, "qdisc", "add", "dev", "lo", "clsact"]),
                        KernelCommand::tc([
                            "-n", netns, "filter", "add", "dev", "lo", "ingress", "pref", "1",
                            "bpf", "da", "obj", &decap, "sec", "tc",
                        ]),
                    ],
                    cleanup: Vec::new(),
                }
            }
            Feature::Seg6 => ProbeSteps {
                prepare: vec![lo_up],
                decide: vec![
                    KernelCommand::ip([
                        "-n",
                        netns,
                        "route",
                        "add",
                        "192.0.2.1/32",
                        "encap",
                        "seg6",
                        "mode",
                        "encap.red",
                        "segs",
                        "fd00:dead:beef::2",
                        "dev",
                        "lo",
                    ]),
                    KernelCommand::ip([
                        "-n",
                        netns,
                        "-6",
                        "route",
                        "add",
                        "fd00:dead:beef::3/128",
                        "encap",
                        "seg6local",
                        "action",
                        "End.DX4",
                        "nh4",
                        "192.0.2.1",
                        "dev",
                        "lo",
                    ]),
                ],
                cleanup: Vec::new(),
            },
            Feature::Tayga => one(
                KernelCommand::ip([
                    "-n",
                    netns,
                    "tuntap",
                    "add",
                    "dev",
                    "dspprobe0",
                    "mode",
                    "tun",
                ]),
                vec![KernelCommand::ip(["-n", netns, "link", "del", "dspprobe0"])],
            ),
            Feature::TcBpf => {
                let linkem = files.join("probe-linkem.o").display().to_string();
                // The 6in4 probe may have added the clsact already.
                ProbeSteps {
                    prepare: vec![KernelCommand::tc([
                        "-n", netns, "qdisc", "add", "dev", "lo", "clsact",
                    ])],
                    decide: vec![KernelCommand::tc([
                        "-n", netns, "filter", "add", "dev", "lo", "egress", "pref", "1", "bpf",
                        "da", "obj", &linkem, "sec", "tc",
                    ])],
                    cleanup: Vec::new(),
                }
            }
            Feature::Tap => one(
                KernelCommand::ip([
                    "-n",
                    netns,
                    "tuntap",
                    "add",
                    "dev",
                    "dspprobe0",
                    "mode",
                    "tap",
                ]),
                vec![KernelCommand::ip(["-n", netns, "link", "del", "dspprobe0"])],
            ),
            Feature::Jool => ProbeSteps {
                prepare: if find_program("modprobe") {
                    vec![KernelCommand::new("modprobe", ["jool"])]
                } else {
                    Vec::new()
                },
                decide: vec![KernelCommand::in_netns(
                    netns,
                    "jool",
                    [
                        "instance",
                        "add",
                        "dspprobe",
                        "--netfilter",
                        "--pool6",
                        "64:ff9b::/96",
                    ],
                )],
                cleanup: vec![KernelCommand::in_netns(
                    netns,
                    "jool",
                    ["instance", "remove", "dspprobe"],
                )],
            },
        }
    }
}

/// How a feature is tried: preparations (failures ignored), the commands
/// that decide (all must succeed), then clean-up (failures ignored; the
/// scratch namespace dies anyway).
struct ProbeSteps {
    prepare: Vec<KernelCommand>,
    decide: Vec<KernelCommand>,
    cleanup: Vec<KernelCommand>,
}

/// True when `program` is an executable file in a directory of `PATH`.
pub fn find_program(program: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::env::var_os("PATH")
        .map(|path| {
            std::env::split_paths(&path).any(|dir| {
                std::fs::metadata(dir.join(program))
                    .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
                    .unwrap_or(false)
            })
        })
        .unwrap_or(false)
}

/// The running kernel's release as (major, minor), from `uname -r`'s
/// source `/proc/sys/kernel/osrelease`.
fn kernel_version() -> Option<(u32, u32)> {
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").ok()?;
    let mut parts = release.trim().split(['.', '-']);
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

impl fmt::Display for Feature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// Whether a feature works here.
#[derive(Clone, Debug, Eq, PartialEq)]
pub enum Availability {
    /// The probe succeeded.
    Present,
    /// The probe failed; `detail` is what the kernel or tool said.
    Missing {
        /// First line of the failing command's stderr.
        detail: String,
    },
}

/// The probed availability of every requested feature.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Capabilities {
    results: Vec<(Feature, Availability)>,
}

impl Capabilities {
    /// Probes `features` in a scratch namespace `dsp-<run>-probe`, deleted afterwards.
    ///
    /// # Errors
    /// [`LabError::NamespacesUnavailable`] if the scratch namespace cannot be
    /// created (no root or CAP_NET_ADMIN, or no namespace support).
    pub fn probe(
        runner: &Runner,
        run: &RunId,
        features: &[Feature],
    ) -> Result<Capabilities, LabError> {
        let netns = namespace_name(run, "probe");
        let scratch =
            Namespace::create(runner, &netns).map_err(|err| LabError::NamespacesUnavailable {
                reason: match err {
                    LabError::Command { stderr, .. } => stderr,
                    other => other.to_string(),
                },
            })?;
        let files = std::env::temp_dir().join(format!("{netns}-files"));
        let files_ready = std::fs::create_dir_all(&files)
            .and_then(|_| std::fs::write(files.join("probe-encap.o"), crate::bpf::ENCAP_6IN4))
            .and_then(|_| std::fs::write(files.join("probe-decap.o"), crate::bpf::DECAP_6IN4))
            .and_then(|_| {
                std::fs::write(
                    files.join("probe-linkem.o"),
                    crate::bpf::link_emulation_object(0.0, 0),
                )
            });
        let mut results = Vec::with_capacity(features.len());
        for &feature in features {
            results.push((feature, probe_one(runner, feature, scratch.name(), &files)?));
        }
        if files_ready.is_ok() {
            let _ = std::fs::remove_dir_all(&files);
        }
        drop(scratch);
        Ok(Capabilities { results })
    }

    /// Capabilities as given (for tests and for callers that probed elsewhere).
    pub fn from_results(results: Vec<(Feature, Availability)>) -> Capabilities {
        Capabilities { results }
    }

    /// Probes every [`Feature`].
    ///
    /// # Errors
    /// As [`Capabilities::probe`].
    pub fn probe_all(runner: &Runner, run: &RunId) -> Result<Capabilities, LabError> {
        Self::probe(runner, run, &Feature::ALL)
    }

    /// Each probed feature and its availability, in probe order.
    pub fn results(&self) -> &[(Feature, Availability)] {
        &self.results
    }

    /// True when `feature` was probed and works.
    pub fn has(&self, feature: Feature) -> bool {
        self.results
            .iter()
            .any(|(f, a)| *f == feature && *a == Availability::Present)
    }

    /// The probed features that are missing.
    pub fn missing(&self) -> Vec<Feature> {
        self.results
            .iter()
            .filter(|(_, a)| *a != Availability::Present)
            .map(|(f, _)| *f)
            .collect()
    }

    /// One sentence per missing feature, for result notes: what is missing,
    /// its module, and what that disables.
    pub fn notes(&self) -> Vec<String> {
        self.missing()
            .into_iter()
            .map(|f| {
                format!(
                    "{} missing (`{}`): no {}",
                    f.label(),
                    f.module(),
                    f.disables()
                )
            })
            .collect()
    }
}

/// Tries `feature` in the scratch namespace `netns`.
fn probe_one(
    runner: &Runner,
    feature: Feature,
    netns: &str,
    files: &Path,
) -> Result<Availability, LabError> {
    if let Some(program) = feature.program() {
        if !find_program(program) {
            return Ok(Availability::Missing {
                detail: format!("`{program}` is not installed (not on PATH)"),
            });
        }
    }
    if feature == Feature::LwtBpf && kernel_version().is_some_and(|v| v < (6, 3)) {
        return Ok(Availability::Missing {
            detail: "Linux < 6.3 lacks BPF_F_ADJ_ROOM_DECAP_L3_IPV6, which the decapsulator needs"
                .into(),
        });
    }
    let steps = feature.probe(netns, files);
    for command in &steps.prepare {
        let _ = runner.output(command);
    }
    let mut availability = Availability::Present;
    for command in &steps.decide {
        let output = match runner.output(command) {
            Ok(output) => output,
            Err(LabError::Spawn { source, .. }) => {
                availability = Availability::Missing {
                    detail: format!("`{}` cannot start: {source}", command.program()),
                };
                break;
            }
            Err(other) => return Err(other),
        };
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let detail = stderr
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("failed without a message")
                .trim()
                .to_string();
            availability = Availability::Missing { detail };
            break;
        }
    }
    for command in &steps.cleanup {
        let _ = runner.output(command);
    }
    Ok(availability)
}

/// True when this process can create network namespaces (tries one).
pub fn can_create_namespaces() -> bool {
    let runner = Runner::new(false);
    let run = RunId::unique();
    Namespace::create(&runner, &namespace_name(&run, "check")).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_feature_names_a_module_and_what_it_disables() {
        for feature in Feature::ALL {
            assert!(!feature.module().is_empty());
            assert!(!feature.disables().is_empty());
        }
    }

    #[test]
    fn notes_name_the_missing_module() {
        let capabilities = Capabilities {
            results: vec![
                (Feature::Htb, Availability::Present),
                (
                    Feature::Netem,
                    Availability::Missing {
                        detail: "unknown".into(),
                    },
                ),
            ],
        };
        assert_eq!(capabilities.missing(), vec![Feature::Netem]);
        assert!(capabilities.notes()[0].contains("`sch_netem`"));
        assert!(capabilities.has(Feature::Htb) && !capabilities.has(Feature::Netem));
    }
}

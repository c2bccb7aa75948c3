//! Which kernel features this machine has, found by trying them.
//!
//! Reading `/proc/modules` or the kernel config says little: modules load on
//! demand, may be built in, and containers hide both. So every feature is
//! probed by doing what a testbed would do, in a throwaway namespace
//! (`dsp-<run>-probe`) that is deleted afterwards: add a qdisc to its `lo`
//! (`tc qdisc add dev lo root netem`), add a tunnel device
//! (`ip link add NAME type sit`), add an nftables table, set the forwarding
//! sysctls. A feature that fails is reported with the kernel module that
//! provides it and what its absence disables.

use std::fmt;

use crate::command::{KernelCommand, Runner};
use crate::error::LabError;
use crate::namespace::Namespace;
use crate::naming::{namespace_name, RunId};

/// A kernel feature some testbed or measurement may need.
#[derive(Clone, Copy, Debug, Eq, Hash, PartialEq, Ord, PartialOrd)]
pub enum Feature {
    /// Virtual Ethernet pairs: every link.
    Veth,
    /// IPv6 enabled in new namespaces.
    Ipv6,
    /// IPv4 and IPv6 forwarding sysctls.
    Forwarding,
    /// Hierarchical token bucket qdisc.
    Htb,
    /// Token bucket filter qdisc.
    Tbf,
    /// Network emulator qdisc.
    Netem,
    /// Strict-priority qdisc.
    Prio,
    /// Fair queueing with controlled delay qdisc.
    FqCodel,
    /// Stochastic fair queueing qdisc.
    Sfq,
    /// IPv6-in-IPv4 (6in4) tunnel device.
    Sit,
    /// GRE tunnel device.
    Gre,
    /// IPv4-in-IPv4 tunnel device.
    Ipip,
    /// IPv4/IPv6-in-IPv6 tunnel device.
    Ip6tnl,
    /// VXLAN overlay device.
    Vxlan,
    /// nftables packet filtering and mangling.
    Nftables,
}

impl Feature {
    /// Every feature, in report order.
    pub const ALL: [Feature; 15] = [
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
            Feature::Netem => "delay, jitter and loss on links",
            Feature::Prio => "strict-priority queues (DiffServ EF scenarios)",
            Feature::FqCodel => "fq_codel AQM comparisons",
            Feature::Sfq => "stochastic fair queueing comparisons",
            Feature::Sit => "6in4 tunnel testbeds (seed 003)",
            Feature::Gre => "GRE tunnel testbeds",
            Feature::Ipip => "IPv4-in-IPv4 tunnel testbeds",
            Feature::Ip6tnl => "IPv6 tunnel testbeds",
            Feature::Vxlan => "VXLAN overlay testbeds",
            Feature::Nftables => "NAT64, DSCP marking and policing scenarios",
        }
    }

    /// The commands that exercise the feature inside `netns` (the last one
    /// decides; state dies with the namespace).
    fn probe_commands(self, netns: &str) -> Vec<KernelCommand> {
        let qdisc = |words: &[&str]| {
            let mut args = vec![
                "-n", netns, "qdisc", "add", "dev", "lo", "root", "handle", "1:",
            ];
            args.extend(words);
            vec![
                KernelCommand::tc(args),
                KernelCommand::tc(["-n", netns, "qdisc", "del", "dev", "lo", "root"]),
            ]
        };
        let device = |words: &[&str]| {
            let mut args = vec!["-n", netns, "link", "add", "dspprobe0", "type"];
            args.extend(words);
            vec![
                KernelCommand::ip(args),
                KernelCommand::ip(["-n", netns, "link", "del", "dspprobe0"]),
            ]
        };
        match self {
            Feature::Veth => device(&["veth", "peer", "name", "dspprobe1"]),
            Feature::Ipv6 => vec![KernelCommand::ip([
                "-n",
                netns,
                "-6",
                "addr",
                "add",
                "fd00:dead:beef::1/128",
                "dev",
                "lo",
                "nodad",
            ])],
            Feature::Forwarding => vec![KernelCommand::in_netns(
                netns,
                "sysctl",
                [
                    "-q",
                    "-w",
                    "net.ipv4.ip_forward=1",
                    "net.ipv6.conf.all.forwarding=1",
                ],
            )],
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
            Feature::Nftables => {
                vec![KernelCommand::in_netns(
                    netns,
                    "nft",
                    ["add", "table", "inet", "dualperf_probe"],
                )]
            }
        }
    }
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
        let mut results = Vec::with_capacity(features.len());
        for &feature in features {
            let mut availability = Availability::Present;
            for (index, command) in feature.probe_commands(scratch.name()).iter().enumerate() {
                let output = runner.output(command)?;
                // Only the first command decides; the others clean up.
                if index == 0 && !output.status.success() {
                    let stderr = String::from_utf8_lossy(&output.stderr);
                    let detail = stderr
                        .lines()
                        .next()
                        .unwrap_or("failed without a message")
                        .trim()
                        .to_string();
                    availability = Availability::Missing { detail };
                    break;
                }
            }
            results.push((feature, availability));
        }
        drop(scratch);
        Ok(Capabilities { results })
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
                    "{} missing (kernel module `{}`): no {}",
                    f.label(),
                    f.module(),
                    f.disables()
                )
            })
            .collect()
    }
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

//! Transition mechanisms in the kernel: which implementation each tunnel
//! and translator gets on this kernel, and the steps that build it.
//!
//! | mechanism | preferred (kernel device / module) | otherwise (kernel-recipes) |
//! |---|---|---|
//! | 6in4 | `sit` | `bpf-lwt`: LWT-BPF encapsulating route + tc-BPF decapsulator ([`crate::bpf`]) |
//! | 4in6 | `ip6tnl` (mode ipip6, no encapsulation limit) | `srv6`: `seg6` `encap.red` with one segment + `End.DX4` |
//! | NAT64 | `jool` (if its module loads) | `tayga` (user space, TUN) + nftables masquerade |
//!
//! A topology may force one with `implementation = "…"`. Every tunnel
//! carries exactly the traffic between its two carried addresses (see
//! [`crate::topology::transition`]): each carried node gets its address on
//! `lo`; the nodes between a carried node and its tunnel end route the far
//! carried address towards the end; the end encapsulates it towards the
//! other end; the far side routes it natively to the carried node.
//!
//! Path MTU: the encapsulating route or device has the tunnel MTU (1480 for
//! 6in4 and 1460 for 4in6 on 1500-byte links), the outer header has DF set,
//! so a packet larger than the tunnel MTU is answered with ICMPv6 Packet Too
//! Big (or ICMP fragmentation needed) by the encapsulator, never fragmented
//! on the way.

mod translator;
mod tunnel;

use translator::translator_steps;
use tunnel::tunnel_steps;

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::path::{Path, PathBuf};

use dualperf_model::IpFamily;

use crate::bpf::{self, Program};
use crate::capability::{Capabilities, Feature};
use crate::command::KernelCommand;
use crate::error::{LabError, MissingFeature};
use crate::naming::{interface_name, mechanism_interface_name, namespace_name, work_dir, RunId};
use crate::step::{sysctls, Action, Creates, FileOrigin, Step};
use crate::topology::routes::{path, Hop};
use crate::topology::transition::{Implementation, MechanismKind, Translator, Tunnel, TunnelKind};
use crate::topology::{family_index, Stack, Topology};

/// LWT-BPF headroom limit (`LWT_BPF_MAX_HEADROOM`), bytes.
const MAX_LWT_HEADROOM: u32 = 256;
/// What a one-segment `seg6` encapsulation counts as headroom: the IPv6
/// header and the segment routing header it would have without
/// `encap.red` (40 + 24 bytes), which the kernel subtracts from the route MTU.
const SEG6_HEADROOM: u32 = 64;

/// The implementation of every tunnel and translator of a topology, in
/// topology order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Implementations {
    /// One per `[[tunnel]]`.
    pub tunnels: Vec<Implementation>,
    /// One per `[[translator]]`.
    pub translators: Vec<Implementation>,
    /// How links get delay, jitter and loss.
    pub link_emulation: crate::emulation::LinkEmulation,
}

/// The features an implementation needs.
pub fn requirements(implementation: Implementation) -> &'static [Feature] {
    match implementation {
        Implementation::Sit => &[Feature::Sit],
        Implementation::BpfLwt => &[Feature::LwtBpf],
        Implementation::Ip6tnl => &[Feature::Ip6tnl],
        Implementation::Srv6 => &[Feature::Seg6, Feature::Nftables],
        Implementation::Tayga => &[Feature::Tayga, Feature::Nftables],
        Implementation::Jool => &[Feature::Jool],
    }
}

/// The first of `mechanism`'s candidates whose features `capabilities` has,
/// or every feature the last candidate (the recipe one) lacks.
pub fn best(
    mechanism: MechanismKind,
    capabilities: &Capabilities,
) -> Result<Implementation, Vec<Feature>> {
    let candidates = Implementation::candidates(mechanism);
    for candidate in candidates {
        if requirements(candidate).iter().all(|f| capabilities.has(*f)) {
            return Ok(candidate);
        }
    }
    Err(requirements(candidates[1])
        .iter()
        .copied()
        .filter(|f| !capabilities.has(*f))
        .collect())
}

/// What this machine would use for one kind of mechanism: the line
/// `dualperf doctor` prints for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MechanismSupport {
    /// The mechanism.
    pub mechanism: MechanismKind,
    /// The implementation a topology without `implementation = …` gets,
    /// or the features the recipe implementation lacks.
    pub choice: Result<Implementation, Vec<Feature>>,
}

impl MechanismSupport {
    /// E.g. `6in4 tunnels`.
    pub fn label(&self) -> String {
        match self.mechanism {
            MechanismKind::Tunnel(kind) => format!("{kind} tunnels"),
            MechanismKind::Translator(_) => "NAT64".to_string(),
        }
    }

    /// E.g. `bpf-lwt (LWT-BPF encapsulating route + …; sit missing)` or
    /// `NONE: needs TAYGA (install TAYGA: apt-get install tayga …)`.
    pub fn describe(&self) -> String {
        let [device, _] = Implementation::candidates(self.mechanism);
        match &self.choice {
            Ok(implementation) if *implementation == device => {
                format!("{implementation} ({})", implementation.describe())
            }
            Ok(implementation) => format!(
                "{implementation} ({}; {device} is not available here)",
                implementation.describe()
            ),
            Err(features) => format!(
                "NONE: needs {}",
                features
                    .iter()
                    .map(|f| format!("{} ({})", f.label(), f.remedy()))
                    .collect::<Vec<_>>()
                    .join(" and ")
            ),
        }
    }
}

/// The implementation each kind of mechanism would get with `capabilities`
/// (probed with every [`Feature`]), in `doctor` order: 6in4, 4in6, NAT64.
pub fn support(capabilities: &Capabilities) -> Vec<MechanismSupport> {
    MechanismKind::ALL
        .into_iter()
        .map(|mechanism| MechanismSupport {
            mechanism,
            choice: best(mechanism, capabilities),
        })
        .collect()
}

fn describe_tunnel(topology: &Topology, index: usize) -> String {
    let tunnel = &topology.tunnels()[index];
    let [a, b] = tunnel.ends.map(|n| topology.nodes()[n].name.as_str());
    format!("tunnel[{index}] ({} {a}—{b})", tunnel.kind)
}

fn describe_translator(topology: &Topology, index: usize) -> String {
    let translator = &topology.translators()[index];
    format!(
        "translator[{index}] (nat64 on {})",
        topology.nodes()[translator.node].name
    )
}

impl Implementations {
    /// Chooses for every mechanism of `topology`: the forced implementation
    /// if the topology names one, else the kernel device or module, else the
    /// recipe mechanism.
    ///
    /// # Errors
    /// [`LabError::MissingFeatures`] naming every mechanism that no
    /// available implementation can build, and what to install or load.
    pub fn choose(
        topology: &Topology,
        capabilities: &Capabilities,
    ) -> Result<Implementations, LabError> {
        let mut missing = Vec::new();
        let mut pick = |mechanism: MechanismKind,
                        forced: Option<Implementation>,
                        what: String|
         -> Implementation {
            match forced {
                Some(implementation) => {
                    for feature in requirements(implementation) {
                        if !capabilities.has(*feature) {
                            missing.push(MissingFeature {
                                feature: *feature,
                                needed_by: format!(
                                    "{what} with implementation = \"{implementation}\""
                                ),
                            });
                        }
                    }
                    implementation
                }
                None => match best(mechanism, capabilities) {
                    Ok(implementation) => implementation,
                    Err(features) => {
                        let [device, recipe] = Implementation::candidates(mechanism);
                        for feature in features {
                            missing.push(MissingFeature {
                                feature,
                                needed_by: format!(
                                    "{what} (neither \"{device}\" nor \"{recipe}\" works here; this is what \"{recipe}\" lacks)"
                                ),
                            });
                        }
                        recipe
                    }
                },
            }
        };
        let tunnels = topology
            .tunnels()
            .iter()
            .enumerate()
            .map(|(i, t)| {
                pick(
                    MechanismKind::Tunnel(t.kind),
                    t.implementation,
                    describe_tunnel(topology, i),
                )
            })
            .collect();
        let translators = topology
            .translators()
            .iter()
            .enumerate()
            .map(|(i, t)| {
                pick(
                    MechanismKind::Translator(t.kind),
                    t.implementation,
                    describe_translator(topology, i),
                )
            })
            .collect();
        let link_emulation = match crate::emulation::LinkEmulation::choose(topology, capabilities) {
            Ok(emulation) => emulation,
            Err(more) => {
                missing.extend(more);
                crate::emulation::LinkEmulation::Netem
            }
        };
        if missing.is_empty() {
            Ok(Implementations {
                tunnels,
                translators,
                link_emulation,
            })
        } else {
            Err(LabError::MissingFeatures { missing })
        }
    }

    /// Without probing the kernel: the forced implementation, else the
    /// recipe mechanism (`bpf-lwt`, `srv6`, `tayga`), which needs no kernel
    /// module beyond a recent kernel. For a `--dry-run` that cannot probe.
    pub fn assumed(topology: &Topology) -> Implementations {
        Implementations {
            tunnels: topology
                .tunnels()
                .iter()
                .map(|t| {
                    t.implementation
                        .unwrap_or(Implementation::candidates(MechanismKind::Tunnel(t.kind))[1])
                })
                .collect(),
            translators: topology
                .translators()
                .iter()
                .map(|t| {
                    t.implementation
                        .unwrap_or(Implementation::candidates(MechanismKind::Translator(t.kind))[1])
                })
                .collect(),
            link_emulation: crate::emulation::LinkEmulation::BpfDelayLine,
        }
    }

    /// For `--dry-run`: what [`Testbed::build`](crate::Testbed::build)
    /// would choose here when the kernel can be probed (root, namespaces),
    /// else [`Implementations::assumed`]; the note says which, for a
    /// comment line above the printed plan.
    pub fn for_dry_run(topology: &Topology, runner: &crate::Runner) -> (Implementations, String) {
        if topology.tunnels().is_empty() && topology.translators().is_empty() {
            return (Implementations::default(), String::new());
        }
        let run = RunId::unique();
        match Capabilities::probe_all(runner, &run) {
            Ok(capabilities) => match Implementations::choose(topology, &capabilities) {
                Ok(chosen) => {
                    let note = describe_choice(topology, &chosen);
                    (
                        chosen,
                        format!("implementations chosen for this kernel: {note}"),
                    )
                }
                Err(err) => (
                    Implementations::assumed(topology),
                    format!(
                        "this machine cannot build it ({err}); showing the recipe implementations"
                    ),
                ),
            },
            Err(err) => {
                let assumed = Implementations::assumed(topology);
                let note = describe_choice(topology, &assumed);
                (
                    assumed,
                    format!("kernel not probed ({err}); assuming {note}"),
                )
            }
        }
    }

    /// True when nothing needs a file in the work directory.
    fn needs_work_dir(&self) -> bool {
        self.tunnels.contains(&Implementation::BpfLwt)
            || self.translators.contains(&Implementation::Tayga)
    }
}

/// `tunnel[0] 6in4: bpf-lwt, translator[0] nat64: tayga`.
pub fn describe_choice(topology: &Topology, implementations: &Implementations) -> String {
    let tunnels = topology
        .tunnels()
        .iter()
        .zip(&implementations.tunnels)
        .enumerate()
        .map(|(i, (t, imp))| format!("tunnel[{i}] {}: {imp}", t.kind));
    let translators = topology
        .translators()
        .iter()
        .zip(&implementations.translators)
        .enumerate()
        .map(|(i, (t, imp))| format!("translator[{i}] {}: {imp}", t.kind.key()));
    tunnels.chain(translators).collect::<Vec<_>>().join(", ")
}

/// Sets `key` to `value` in `settings`, replacing an earlier value.
fn set(settings: &mut Vec<(String, String)>, key: &str, value: &str) {
    match settings.iter_mut().find(|(k, _)| k == key) {
        Some(entry) => entry.1 = value.to_string(),
        None => settings.push((key.to_string(), value.to_string())),
    }
}

/// Every sysctl of node `node`, as `key=value` words: its role's
/// ([`crate::step::sysctls`]), its stack's (IPv6 disabled on an IPv4-only
/// node) and those the mechanisms it ends need (forwarding, SRv6, no
/// reverse-path filter on 4in6 ends).
pub fn node_sysctls(
    topology: &Topology,
    node: usize,
    implementations: &Implementations,
) -> Vec<String> {
    let mut settings: Vec<(String, String)> = sysctls(topology.nodes()[node].role)
        .into_iter()
        .filter_map(|w| {
            w.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
        })
        .collect();
    if topology.nodes()[node].stack == Stack::Ipv4Only {
        set(&mut settings, "net.ipv6.conf.all.disable_ipv6", "1");
        set(&mut settings, "net.ipv6.conf.default.disable_ipv6", "1");
    }
    for (tunnel, implementation) in topology.tunnels().iter().zip(&implementations.tunnels) {
        if tunnel.kind != TunnelKind::FourInSix || !tunnel.ends.contains(&node) {
            continue;
        }
        // The decapsulated IPv4 packet is routed again (End.DX4 or the
        // ip6tnl device's receive path): forwarding on, and no reverse-path
        // filter, whose source check the carried addresses would fail.
        set(&mut settings, "net.ipv4.ip_forward", "1");
        set(&mut settings, "net.ipv6.conf.all.forwarding", "1");
        set(&mut settings, "net.ipv4.conf.all.rp_filter", "0");
        set(&mut settings, "net.ipv4.conf.default.rp_filter", "0");
        if *implementation == Implementation::Srv6 {
            set(&mut settings, "net.ipv6.conf.all.seg6_enabled", "1");
            set(&mut settings, "net.ipv6.conf.default.seg6_enabled", "1");
        }
    }
    settings
        .into_iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect()
}

/// Context shared by the step builders.
struct Ctx<'a> {
    topology: &'a Topology,
    run: &'a RunId,
    dir: PathBuf,
    steps: Vec<Step>,
    /// Interfaces that already have a clsact qdisc: (netns, interface).
    clsact: Vec<(String, String)>,
}

impl Ctx<'_> {
    fn netns(&self, node: usize) -> String {
        namespace_name(self.run, &self.topology.nodes()[node].name)
    }

    fn name(&self, node: usize) -> &str {
        &self.topology.nodes()[node].name
    }

    fn run(&mut self, command: KernelCommand) {
        self.steps.push(Step::plain(command));
    }

    fn ip(&mut self, node: usize, words: &[&str]) {
        let netns = self.netns(node);
        let mut all = vec!["-n", netns.as_str()];
        all.extend_from_slice(words);
        self.run(KernelCommand::ip(all));
    }

    fn hops(&self, family: IpFamily, from: usize, to: usize) -> Vec<Hop> {
        path(
            self.topology.nodes(),
            self.topology.links(),
            Some(family),
            from,
            to,
        )
        .expect("validation guarantees the path")
    }

    /// The interface and `family` address of `hop.node` on `hop`'s link.
    fn local_end(&self, hop: &Hop, family: IpFamily) -> (String, IpAddr) {
        let link = &self.topology.links()[hop.link];
        (
            interface_name(self.run, hop.link, hop.out_end),
            link.addresses(hop.out_end)[family_index(family)].address,
        )
    }

    /// The `family` address of `hop.next` on `hop`'s link: the next hop.
    fn next_hop(&self, hop: &Hop, family: IpFamily) -> IpAddr {
        self.topology.links()[hop.link].addresses(hop.out_end.peer())[family_index(family)].address
    }

    /// Routes `destination` (a host address) at every node of `hops` but the
    /// last towards the last; the first node's route gets `src` if given.
    fn route_along(
        &mut self,
        hops: &[Hop],
        family: IpFamily,
        destination: IpAddr,
        src: Option<IpAddr>,
    ) {
        for (position, hop) in hops.iter().enumerate() {
            let (interface, _) = self.local_end(hop, family);
            let via = self.next_hop(hop, family).to_string();
            let dest = host_prefix(destination);
            let mut words = vec![
                family_flag(family),
                "route",
                "add",
                dest.as_str(),
                "via",
                via.as_str(),
                "dev",
                interface.as_str(),
            ];
            let src_text = src.filter(|_| position == 0).map(|s| s.to_string());
            if let Some(src) = &src_text {
                words.extend(["src", src.as_str()]);
            }
            self.ip(hop.node, &words);
        }
    }

    fn write(&mut self, name: &str, contents: Vec<u8>, origin: FileOrigin) -> PathBuf {
        let path = self.dir.join(name);
        self.steps.push(Step {
            action: Action::WriteFile {
                path: path.clone(),
                contents,
                origin,
            },
            creates: None,
        });
        path
    }

    fn ensure_clsact(&mut self, node: usize, interface: &str) {
        let key = (self.netns(node), interface.to_string());
        if !self.clsact.contains(&key) {
            self.ip_tc(node, &["qdisc", "add", "dev", interface, "clsact"]);
            self.clsact.push(key);
        }
    }

    fn ip_tc(&mut self, node: usize, words: &[&str]) {
        let netns = self.netns(node);
        let mut all = vec!["-n", netns.as_str()];
        all.extend_from_slice(words);
        self.run(KernelCommand::tc(all));
    }
}

fn family_flag(family: IpFamily) -> &'static str {
    match family {
        IpFamily::V4 => "-4",
        IpFamily::V6 => "-6",
    }
}

fn host_prefix(address: IpAddr) -> String {
    match address {
        IpAddr::V4(a) => format!("{a}/32"),
        IpAddr::V6(a) => format!("{a}/128"),
    }
}

fn v4(address: IpAddr) -> Ipv4Addr {
    match address {
        IpAddr::V4(a) => a,
        IpAddr::V6(_) => unreachable!("an IPv4 address"),
    }
}

/// The steps that build every tunnel and translator of `topology`.
pub fn mechanism_steps(
    topology: &Topology,
    run: &RunId,
    implementations: &Implementations,
) -> Vec<Step> {
    let mut ctx = Ctx {
        topology,
        run,
        dir: work_dir(run),
        steps: Vec::new(),
        clsact: Vec::new(),
    };
    if implementations.needs_work_dir() {
        let dir = ctx.dir.clone();
        ctx.steps.push(Step {
            action: Action::MakeDir(dir.clone()),
            creates: Some(Creates::Directory { path: dir }),
        });
    }
    for (index, tunnel) in topology.tunnels().iter().enumerate() {
        let implementation = implementations.tunnels[index];
        tunnel_steps(&mut ctx, index, tunnel, implementation);
    }
    for (index, translator) in topology.translators().iter().enumerate() {
        let implementation = implementations.translators[index];
        translator_steps(&mut ctx, index, translator, implementation);
    }
    ctx.steps
}

/// TAYGA's own IPv6 address (the source of the ICMPv6 errors it sends):
/// `fd00:dead:64:<index>::1`.
pub fn tayga_ipv6_address(index: usize) -> Ipv6Addr {
    Ipv6Addr::new(0xfd00, 0xdead, 0x64, index as u16, 0, 0, 0, 1)
}

/// The work directory of `run` if the plan uses one.
pub fn planned_work_dir(steps: &[Step]) -> Option<&Path> {
    steps.iter().find_map(|s| match &s.creates {
        Some(Creates::Directory { path }) => Some(path.as_path()),
        _ => None,
    })
}

/// Notes for the facts: how the implementation behaves.
pub fn notes(implementation: Implementation, mtu_bytes: Option<u32>) -> Vec<String> {
    let mut notes = vec![implementation.describe().to_string()];
    match implementation {
        Implementation::BpfLwt => notes.push(
            "outer DF set and no reassembly at the decapsulator: an ICMPv4 fragmentation-needed from the middle is not turned into ICMPv6 Packet Too Big (sit would)".into(),
        ),
        Implementation::Tayga => notes.push(
            "TAYGA forwards every packet in user space on one core (about 500-700 Mbit/s of full-size TCP on a 2-vCPU VM): when its CPU is near 100 %, TAYGA is the bottleneck, not IPv6".into(),
        ),
        Implementation::Srv6 => {
            notes.push(
                "one segment with encap.red: no segment routing header, so the wire format is RFC 2473 IPv4-in-IPv6 (next header 4)".into(),
            );
            notes.push(
                "a router end encapsulates forwarded IPv4 before ip_forward: it does not decrement the TTL, and a forwarded packet larger than the tunnel MTU is dropped without ICMP (the IPv6 Packet Too Big goes to the router itself); TCP's MSS is clamped to fit (ip6tnl has neither limitation)".into(),
            );
        }
        _ => {}
    }
    if let Some(mtu) = mtu_bytes {
        notes.push(format!(
            "tunnel MTU {mtu} bytes: larger packets get Packet Too Big / fragmentation needed from the encapsulator; larger UDP datagrams are fragmented by the sender"
        ));
    }
    notes
}

/// The sysctl settings as a map, for tests.
#[cfg(test)]
fn as_map(words: &[String]) -> std::collections::BTreeMap<String, String> {
    words
        .iter()
        .filter_map(|w| w.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capability::Availability;
    use crate::preset;

    fn caps(present: &[Feature]) -> Capabilities {
        Capabilities::from_results(
            Feature::ALL
                .iter()
                .map(|f| {
                    let availability = if present.contains(f) {
                        Availability::Present
                    } else {
                        Availability::Missing {
                            detail: "probe failed".into(),
                        }
                    };
                    (*f, availability)
                })
                .collect(),
        )
    }

    #[test]
    fn the_kernel_device_wins_and_the_recipe_is_the_fallback() {
        let six = MechanismKind::Tunnel(TunnelKind::SixInFour);
        assert_eq!(
            best(six, &caps(&[Feature::Sit, Feature::LwtBpf])),
            Ok(Implementation::Sit)
        );
        assert_eq!(
            best(six, &caps(&[Feature::LwtBpf])),
            Ok(Implementation::BpfLwt)
        );
        assert_eq!(best(six, &caps(&[])), Err(vec![Feature::LwtBpf]));
        let nat = MechanismKind::Translator(crate::topology::TranslatorKind::Nat64);
        assert_eq!(
            best(nat, &caps(&[Feature::Tayga, Feature::Nftables])),
            Ok(Implementation::Tayga)
        );
        assert_eq!(
            best(nat, &caps(&[Feature::Tayga])),
            Err(vec![Feature::Nftables])
        );
    }

    #[test]
    fn doctor_lines_name_the_choice_and_what_is_missing() {
        let lines: Vec<String> = support(&caps(&[Feature::LwtBpf, Feature::Ip6tnl]))
            .iter()
            .map(|s| format!("{}: {}", s.label(), s.describe()))
            .collect();
        assert!(
            lines[0].starts_with("6in4 tunnels: bpf-lwt (LWT-BPF"),
            "{lines:?}"
        );
        assert!(
            lines[0].ends_with("sit is not available here)"),
            "{lines:?}"
        );
        assert!(
            lines[1].starts_with("4in6 tunnels: ip6tnl (kernel ip6tnl"),
            "{lines:?}"
        );
        assert!(
            lines[2].starts_with("NAT64: NONE: needs TAYGA"),
            "{lines:?}"
        );
        assert!(lines[2].contains("apt-get install tayga"), "{lines:?}");
    }

    #[test]
    fn a_nat64_without_tayga_or_jool_names_what_to_install() {
        let topology = preset::load("nat64").unwrap();
        let err = Implementations::choose(&topology, &caps(&[Feature::Nftables])).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("translator[0] (nat64 on router)"), "{text}");
        assert!(text.contains("apt-get install tayga"), "{text}");
        assert!(text.contains("nothing was built"), "{text}");
    }

    #[test]
    fn a_forced_implementation_the_kernel_lacks_is_reported() {
        let text = preset::PRESETS
            .iter()
            .find(|(n, _)| *n == "tunnel-host-host")
            .unwrap()
            .1
            .replace(
                "kind = \"6in4\"",
                "kind = \"6in4\"\nimplementation = \"sit\"",
            );
        let topology = Topology::from_toml("t", &text).unwrap();
        let err = Implementations::choose(&topology, &caps(&[Feature::LwtBpf])).unwrap_err();
        assert!(
            err.to_string().contains("implementation = \"sit\""),
            "{err}"
        );
        assert!(err.to_string().contains("modprobe sit"), "{err}");
    }

    #[test]
    fn four_in_six_ends_forward_without_reverse_path_filter_and_enable_srv6() {
        let topology = preset::load("four-in-six").unwrap();
        let implementations = Implementations::assumed(&topology);
        let end = topology.tunnels()[0].ends[0];
        let map = as_map(&node_sysctls(&topology, end, &implementations));
        assert_eq!(map["net.ipv4.conf.all.rp_filter"], "0");
        assert_eq!(map["net.ipv6.conf.all.seg6_enabled"], "1");
        assert_eq!(map["net.ipv4.ip_forward"], "1");
        let core = topology.node_index("core").unwrap();
        let map = as_map(&node_sysctls(&topology, core, &implementations));
        assert!(!map.contains_key("net.ipv6.conf.all.seg6_enabled"));
    }
}

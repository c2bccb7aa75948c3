//! Link emulation (delay, jitter, loss on a link direction): netem where the
//! kernel has it, otherwise the cls_bpf loss program and the user-space
//! delay line (kernel-recipes §5).
//!
//! With netem, the emulation is a qdisc in the plan ([`crate::shaping`]).
//! Without it, the plan only builds the rate limiter, and after the plan
//! [`start_user_space`] attaches, on the sending end of every emulated
//! direction, the `linkem` program ([`crate::bpf::link_emulation_object`]):
//! it drops `loss_ratio` of the IP packets and redirects the rest to a
//! [`DelayLine`] when the direction has a delay. Packets leave through the
//! root qdisc afterwards, so a rate limiter still applies.

use std::fmt;

use crate::capability::{Capabilities, Feature};
use crate::command::{KernelCommand, Runner};
use crate::delay_line::{DelayLine, DelayLineConfig};
use crate::delay_line_process::DelayLineHost;
use crate::error::{LabError, MissingFeature};
use crate::naming::{interface_name, namespace_name, work_dir, LinkEnd, RunId, INTERFACE_PREFIX};
use crate::topology::{Shaping, Topology};

/// Most frames one delay line holds: 1 s at 1 Mpps.
pub const DELAY_LINE_CAPACITY_PACKETS: usize = 1_000_000;

/// How delay, jitter and loss are made on this testbed.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub enum LinkEmulation {
    /// The netem qdisc (under the rate limiter's class, if any).
    #[default]
    Netem,
    /// Loss in a cls_bpf program on clsact egress, delay and jitter in the
    /// lab's user-space delay line (TAP + AF_PACKET).
    BpfDelayLine,
}

impl LinkEmulation {
    /// `shaping` described as this emulation makes it, e.g.
    /// `htb 10.000 Mbit/s, bpf-delay-line delay 50ms …` ([`Shaping::describe`]
    /// names netem, which this kernel may lack).
    pub fn describe_shaping(self, shaping: &Shaping) -> String {
        let text = shaping.describe();
        match self {
            LinkEmulation::Netem => text,
            other => text.replace("netem delay", &format!("{} delay", other.key())),
        }
    }

    /// `"netem"` or `"bpf-delay-line"`: what results record.
    pub fn key(self) -> &'static str {
        match self {
            LinkEmulation::Netem => "netem",
            LinkEmulation::BpfDelayLine => "bpf-delay-line",
        }
    }

    /// What it is, for `doctor` and notes.
    pub fn describe(self) -> &'static str {
        match self {
            LinkEmulation::Netem => "netem qdisc",
            LinkEmulation::BpfDelayLine => {
                "loss in a cls_bpf program, delay and jitter in the user-space delay line (TAP + AF_PACKET)"
            }
        }
    }

    /// The best emulation the kernel offers: netem, else the BPF program
    /// and the delay line; `None` when neither works.
    pub fn best(capabilities: &Capabilities) -> Option<LinkEmulation> {
        if capabilities.has(Feature::Netem) {
            Some(LinkEmulation::Netem)
        } else if capabilities.has(Feature::TcBpf) && capabilities.has(Feature::Tap) {
            Some(LinkEmulation::BpfDelayLine)
        } else {
            None
        }
    }

    /// The emulation for `topology`: netem when it is there, else the BPF
    /// recipe; the missing features when a direction needs emulation and
    /// neither works.
    pub fn choose(
        topology: &Topology,
        capabilities: &Capabilities,
    ) -> Result<LinkEmulation, Vec<MissingFeature>> {
        let directions = emulated_directions(topology);
        let Some(first) = directions.first() else {
            return Ok(LinkEmulation::Netem);
        };
        match LinkEmulation::best(capabilities) {
            Some(emulation) => Ok(emulation),
            None => Err([Feature::TcBpf, Feature::Tap]
                .into_iter()
                .filter(|f| !capabilities.has(*f))
                .map(|feature| MissingFeature {
                    feature,
                    needed_by: format!(
                        "{} delay/jitter/loss (no netem here, and the BPF delay line lacks this)",
                        first.label
                    ),
                })
                .collect()),
        }
    }
}

impl fmt::Display for LinkEmulation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// One direction of a link with delay, jitter or loss.
#[derive(Clone, Debug, PartialEq)]
pub struct EmulatedDirection {
    /// Link index.
    pub link: usize,
    /// The sending end.
    pub end: LinkEnd,
    /// `link[0] router→server`.
    pub label: String,
}

/// Every direction of `topology` that needs delay, jitter or loss.
pub fn emulated_directions(topology: &Topology) -> Vec<EmulatedDirection> {
    let mut out = Vec::new();
    for (index, link) in topology.links().iter().enumerate() {
        for end in LinkEnd::BOTH {
            if link.egress[end.index()]
                .as_ref()
                .is_some_and(|s| s.needs_netem())
            {
                let names = link.ends.map(|n| topology.nodes()[n].name.as_str());
                out.push(EmulatedDirection {
                    link: index,
                    end,
                    label: format!(
                        "link[{index}] {}→{}",
                        names[end.index()],
                        names[1 - end.index()]
                    ),
                });
            }
        }
    }
    out
}

/// The TAP device of the delay line on `link`'s `end`: `dsp<run>-<link>c`
/// (end A) or `…d` (end B), as long as the veth names.
pub fn tap_name(run: &RunId, link: usize, end: LinkEnd) -> String {
    let letter = match end {
        LinkEnd::A => 'c',
        LinkEnd::B => 'd',
    };
    format!("{INTERFACE_PREFIX}{run}-{link}{letter}")
}

/// Attaches the loss program and starts a delay line for every emulated
/// direction of `topology`; the returned delay lines stop when dropped.
///
/// # Errors
/// [`LabError::Command`] when tc refuses the program, [`LabError::DelayLine`]
/// when a delay line cannot start.
pub fn start_user_space(
    runner: &Runner,
    topology: &Topology,
    run: &RunId,
    host: &DelayLineHost,
) -> Result<UserSpace, LabError> {
    let mut lines = Vec::new();
    let mut daemons = Vec::new();
    for direction in emulated_directions(topology) {
        let link = &topology.links()[direction.link];
        let shaping = link.egress[direction.end.index()]
            .as_ref()
            .expect("emulated directions are shaped");
        let netns = namespace_name(run, &topology.nodes()[link.node(direction.end)].name);
        let interface = interface_name(run, direction.link, direction.end);
        let delay_ifindex = if shaping.delay.is_zero() {
            0
        } else {
            let config = DelayLineConfig {
                netns: netns.clone(),
                interface: interface.clone(),
                tap: tap_name(run, direction.link, direction.end),
                mtu_bytes: link.mtu_bytes,
                delay: shaping.delay,
                jitter: shaping.jitter,
                capacity_packets: DELAY_LINE_CAPACITY_PACKETS,
            };
            let failed = |source| LabError::DelayLine {
                direction: direction.label.clone(),
                source,
            };
            let (ifindex, hosted) = match host {
                DelayLineHost::Thread => {
                    let line = DelayLine::start(config.clone()).map_err(failed)?;
                    let ifindex = line.ifindex();
                    lines.push(line);
                    (ifindex, "a thread of this process")
                }
                DelayLineHost::Process { exe } => {
                    let (daemon, ifindex) =
                        crate::delay_line_process::spawn(exe, &config, &work_dir(run))
                            .map_err(failed)?;
                    daemons.push(daemon);
                    (ifindex, "a process of its own")
                }
            };
            if runner.is_verbose() {
                eprintln!(
                    "+ delay line in {netns} ({hosted}): {interface} → TAP {} (ifindex {ifindex}) → {interface}, delay {:?} jitter {:?}",
                    config.tap,
                    shaping.delay,
                    shaping.jitter
                );
            }
            ifindex
        };
        let object = crate::bpf::link_emulation_object(shaping.loss_ratio, delay_ifindex);
        let path = std::env::temp_dir().join(format!("{netns}-linkem-{}.o", direction.link));
        std::fs::write(&path, object).map_err(|source| LabError::WorkFile {
            path: path.clone(),
            source,
        })?;
        let file = path.display().to_string();
        let clsact = KernelCommand::tc(["-n", &netns, "qdisc", "add", "dev", &interface, "clsact"]);
        if let Err(err) = runner.run(&clsact) {
            // An existing clsact (a tunnel's decapsulator on this end) is fine.
            if !matches!(&err, LabError::Command { stderr, .. } if stderr.contains("File exists")) {
                let _ = std::fs::remove_file(&path);
                return Err(err);
            }
        }
        let filter = KernelCommand::tc([
            "-n", &netns, "filter", "add", "dev", &interface, "egress", "pref", "1", "bpf", "da",
            "obj", &file, "sec", "tc",
        ]);
        let attached = runner.run(&filter);
        let _ = std::fs::remove_file(&path); // tc loaded it; the kernel holds the program
        attached?;
    }
    Ok(UserSpace { lines, daemons })
}

/// The user-space parts of a testbed's link emulation, stopped when dropped.
#[derive(Debug, Default)]
pub struct UserSpace {
    /// Delay lines running as threads of this process.
    pub lines: Vec<DelayLine>,
    /// Delay lines running as processes of their own.
    pub daemons: Vec<crate::namespace::Daemon>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capability::Availability;

    fn topology(egress: &str) -> Topology {
        let text = format!(
            r#"
            description = "d"
            [[node]]
            name = "client"
            [[node]]
            name = "server"
            [[link]]
            between = ["client", "server"]
            [link.egress.client]
            {egress}
            "#
        );
        Topology::from_toml("t", &text).unwrap()
    }

    fn caps(present: &[Feature]) -> Capabilities {
        Capabilities::from_results(
            Feature::ALL
                .iter()
                .map(|f| {
                    let a = if present.contains(f) {
                        Availability::Present
                    } else {
                        Availability::Missing {
                            detail: "no".into(),
                        }
                    };
                    (*f, a)
                })
                .collect(),
        )
    }

    #[test]
    fn netem_first_then_the_bpf_delay_line_else_the_missing_features() {
        let t = topology(r#"delay = "50ms""#);
        assert_eq!(emulated_directions(&t).len(), 1);
        assert_eq!(emulated_directions(&t)[0].label, "link[0] client→server");
        assert_eq!(
            LinkEmulation::choose(&t, &caps(&[Feature::Netem, Feature::TcBpf, Feature::Tap])),
            Ok(LinkEmulation::Netem)
        );
        assert_eq!(
            LinkEmulation::choose(&t, &caps(&[Feature::TcBpf, Feature::Tap])),
            Ok(LinkEmulation::BpfDelayLine)
        );
        let missing = LinkEmulation::choose(&t, &caps(&[Feature::TcBpf])).unwrap_err();
        assert_eq!(missing.len(), 1);
        assert_eq!(missing[0].feature, Feature::Tap);
        let plain = topology(r#"rate = "10Mbit""#);
        assert!(emulated_directions(&plain).is_empty());
        assert_eq!(
            LinkEmulation::choose(&plain, &caps(&[])),
            Ok(LinkEmulation::Netem)
        );
    }

    #[test]
    fn tap_names_fit_an_interface_name() {
        let run = RunId::new("abcdefg").unwrap();
        let name = tap_name(&run, 999, LinkEnd::B);
        assert_eq!(name, "dspabcdefg-999d");
        assert!(name.len() <= crate::naming::MAX_INTERFACE_NAME_BYTES);
    }
}

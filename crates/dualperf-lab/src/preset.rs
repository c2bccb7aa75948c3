//! Built-in topologies, embedded in the binary, and loading a topology by
//! preset name or file path.

use std::path::Path;

use crate::error::LabError;
use crate::topology::Topology;

/// The preset `dualperf lab` builds when none is named.
pub const DEFAULT_PRESET: &str = "router";

/// Every built-in topology: name and TOML text, in the order `lab list` shows them.
pub const PRESETS: &[(&str, &str)] = &[
    ("p2p", include_str!("../presets/p2p.toml")),
    ("router", include_str!("../presets/router.toml")),
    ("two-routers", include_str!("../presets/two-routers.toml")),
    ("bottleneck", include_str!("../presets/bottleneck.toml")),
    ("tunnels", include_str!("../presets/tunnels.toml")),
    (
        "tunnel-host-host",
        include_str!("../presets/tunnel-host-host.toml"),
    ),
    (
        "tunnel-router-router",
        include_str!("../presets/tunnel-router-router.toml"),
    ),
    (
        "tunnel-host-router",
        include_str!("../presets/tunnel-host-router.toml"),
    ),
    ("four-in-six", include_str!("../presets/four-in-six.toml")),
    ("nat64", include_str!("../presets/nat64.toml")),
    ("diffserv", include_str!("../presets/diffserv.toml")),
    ("realtime", include_str!("../presets/realtime.toml")),
    ("rrul", include_str!("../presets/rrul.toml")),
    ("path-faults", include_str!("../presets/path-faults.toml")),
    ("calibrate", include_str!("../presets/calibrate.toml")),
    ("stack-cost", include_str!("../presets/stack-cost.toml")),
    ("gigabit", include_str!("../presets/gigabit.toml")),
];

/// The presets with transition mechanisms (issue 11): `tunnels` offers
/// native IPv4 and IPv6 and the three 6in4 placements as arms, for
/// `dualperf lab tunnels`.
pub const TRANSITION_PRESETS: [&str; 6] = [
    "tunnels",
    "tunnel-host-host",
    "tunnel-router-router",
    "tunnel-host-router",
    "four-in-six",
    "nat64",
];

/// Every preset, validated, in list order.
///
/// # Panics
/// If an embedded preset does not validate; a unit test guards this.
pub fn all() -> Vec<Topology> {
    PRESETS
        .iter()
        .map(|(name, text)| {
            Topology::from_toml(name, text).expect("embedded presets validate (tested)")
        })
        .collect()
}

/// Loads a preset by name, or else a TOML file by path.
///
/// # Errors
/// [`LabError::UnknownTopology`] if `name` is neither a preset nor an
/// existing file; [`LabError::ReadTopology`] if the file cannot be read; the
/// parse and validation errors of [`Topology::from_toml`].
pub fn load(name: &str) -> Result<Topology, LabError> {
    if let Some((preset, text)) = PRESETS.iter().find(|(preset, _)| *preset == name) {
        return Topology::from_toml(preset, text);
    }
    let path = Path::new(name);
    if !path.exists() {
        let names: Vec<&str> = PRESETS.iter().map(|(n, _)| *n).collect();
        return Err(LabError::UnknownTopology {
            name: name.to_string(),
            suggestion: crate::topology::did_you_mean(name, names.iter().copied()),
            presets: names.join(", "),
        });
    }
    let text = read_bounded(path).map_err(|source| LabError::ReadTopology {
        path: path.into(),
        source,
    })?;
    Topology::from_toml(name, &text)
}

/// Largest topology file, bytes (1 MiB; the presets are under 4 KiB).
pub const MAX_TOPOLOGY_BYTES: u64 = 1 << 20;

/// Reads a topology file of at most [`MAX_TOPOLOGY_BYTES`] (`/dev/zero`
/// or a huge file is refused, not read until memory runs out).
fn read_bounded(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open(path)?
        .take(MAX_TOPOLOGY_BYTES + 1)
        .read_to_string(&mut text)?;
    if text.len() as u64 > MAX_TOPOLOGY_BYTES {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("larger than the {MAX_TOPOLOGY_BYTES}-byte (1 MiB) limit of a topology file"),
        ));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_validates_and_has_a_client_and_a_server() {
        for topology in all() {
            assert!(topology.client().is_some(), "{}", topology.name());
            assert!(topology.server().is_some(), "{}", topology.name());
            assert!(!topology.description().is_empty());
        }
    }

    #[test]
    fn the_bottleneck_preset_shapes_the_link_between_the_routers_at_ten_megabits() {
        let topology = load("bottleneck").unwrap();
        let link = &topology.links()[1];
        for egress in &link.egress {
            let (_, rate) = egress.as_ref().unwrap().rate.unwrap();
            assert_eq!(rate.bits_per_second(), 10_000_000);
        }
    }

    #[test]
    fn the_gigabit_preset_is_one_link_at_one_gigabit_with_htb() {
        use crate::topology::RateQdisc;
        let topology = load("gigabit").unwrap();
        assert_eq!(topology.links().len(), 1);
        for egress in &topology.links()[0].egress {
            let shaping = egress.as_ref().unwrap();
            let (qdisc, rate) = shaping.rate.unwrap();
            assert_eq!(
                (qdisc, rate.bits_per_second()),
                (RateQdisc::Htb, 1_000_000_000)
            );
            assert_eq!(shaping.queue_limit_packets, 1000);
        }
    }

    #[test]
    fn an_unknown_name_lists_the_presets_and_suggests_one() {
        let err = load("ruoter").unwrap_err().to_string();
        assert!(
            err.contains("p2p, router, two-routers, bottleneck"),
            "{err}"
        );
        assert!(err.contains("did you mean"), "{err}");
    }
}

//! The rate `dualperf lab` gives a testbed's links (issue 23).
//!
//! Over unshaped veth the namespaces of a testbed exchange data at memory
//! speed, so on a small machine a throughput trial measures the CPU
//! scheduler, not the path: the paired IPv6 − IPv4 differences scatter by
//! 7–19 % per pair on two cores. With every link shaped to a rate the
//! machine sustains with headroom, the link sets the pace and the same
//! comparison resolves a fraction of a percent. So a topology that sets no
//! rate of its own gets [`DEFAULT_LINK_RATE`] on every link, both
//! directions, as `htb` with a `pfifo` queue of
//! [`DEFAULT_QUEUE_LIMIT_PACKETS`](crate::topology::DEFAULT_QUEUE_LIMIT_PACKETS)
//! (no netem, tbf or police: see `shaping`). `--link-rate none` keeps the
//! unshaped, CPU-bound path, whose honest headline is the stacks' CPU cost
//! (`dualperf lab stack-cost`). A topology that sets rates (`bottleneck`,
//! `realtime`, `rrul`, a DiffServ domain) keeps exactly its own.

use std::str::FromStr;

use dualperf_model::{BitRate, LinkRate};

use crate::error::LabError;
use crate::topology::{RateQdisc, Shaping, Topology, DEFAULT_QUEUE_LIMIT_PACKETS};

/// The rate every link of a topology without rates gets: 100 Mbit/s (the
/// seeds' testbeds' rate).
///
/// Chosen by measurement on the 2-vCPU development machine with other
/// engineers' builds on the same cores (load average 9–10; issue 23,
/// NOTES-wt-testbed.md). Unshaped, the router testbed carried TCP at
/// 1.5–1.8 Gbit/s at 1408 B and 170–300 Mbit/s at 64–256 B, UDP at
/// 135–155 kpps whatever the size. The default battery
/// (`bench/lab-precision.sh`): at 200 Mbit/s tcp-stream 64 and 1024 B
/// were still cpu-bound and the median goodput CI half-width was 17 %; at
/// 100 Mbit/s every tcp-stream size was network-bound, median ±0.50 %
/// (IPv6 1.1–1.7 % slower, the header predicts 1.4 %), RTT p50 ±0.3 %.
/// 64 B datagrams need 118 kpps (IPv4) at this rate and stay packet-rate
/// bound on a loaded machine, which the per-point regime says
/// (`dualperf_stats::regime`).
pub const DEFAULT_LINK_RATE: BitRate = BitRate::from_mbit(100);

/// Slowest rate `--link-rate` accepts: 1 Mbit/s (a slower link makes the
/// default battery's trials too short to carry a 16 KiB message).
pub const MIN_LINK_RATE: BitRate = BitRate::from_mbit(1);
/// Fastest rate `--link-rate` accepts: 100 Gbit/s (htb's rate is a 64-bit
/// byte rate; faster than veth can go is meaningless).
pub const MAX_LINK_RATE: BitRate = BitRate::from_bits_per_second(100_000_000_000);

/// What the user asked for with `--link-rate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkRateChoice {
    /// Shape links without a rate to this rate.
    Rate(BitRate),
    /// `none`: leave every link unshaped.
    Unshaped,
}

impl Default for LinkRateChoice {
    fn default() -> Self {
        LinkRateChoice::Rate(DEFAULT_LINK_RATE)
    }
}

impl FromStr for LinkRateChoice {
    type Err = LabError;

    /// `none`, or a rate with the rate parser's suffixes (`400M`,
    /// `1.5G`, `250Mbit`) from [`MIN_LINK_RATE`] to [`MAX_LINK_RATE`].
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if text.trim().eq_ignore_ascii_case("none") {
            return Ok(LinkRateChoice::Unshaped);
        }
        let invalid = |reason: String| LabError::InvalidLinkRate {
            text: text.to_string(),
            reason,
        };
        let rate: BitRate = text
            .parse()
            .map_err(|e| invalid(format!("{e}, or `none` for unshaped links")))?;
        if rate < MIN_LINK_RATE || rate > MAX_LINK_RATE {
            return Err(invalid(format!(
                "outside {MIN_LINK_RATE} to {MAX_LINK_RATE}"
            )));
        }
        Ok(LinkRateChoice::Rate(rate))
    }
}

/// True when `topology` shapes rates itself: a link direction with a rate,
/// or a DiffServ domain (whose conditioner owns the core link's qdiscs).
pub fn sets_own_rates(topology: &Topology) -> bool {
    topology.diffserv().is_some()
        || topology.links().iter().any(|link| {
            link.egress
                .iter()
                .any(|shaping| shaping.as_ref().is_some_and(|s| s.rate.is_some()))
        })
}

/// The slowest rate any link direction of `topology` is shaped to (its
/// bottleneck), `None` when no link sets a rate: the UDP rate `lab -b`
/// defaults to on a topology with its own rates (10 Mbit/s on `bottleneck`).
pub fn slowest_rate(topology: &Topology) -> Option<BitRate> {
    topology
        .links()
        .iter()
        .flat_map(|link| link.egress.iter().flatten())
        .filter_map(|shaping| shaping.rate.map(|(_, rate)| rate))
        .min()
}

/// `topology` with `choice` applied, and what was applied: a topology that
/// sets its own rates comes back unchanged ([`LinkRate::Topology`]);
/// otherwise every link direction gets the rate as htb, keeping any delay
/// or loss it has ([`LinkRate::Shaped`]), or stays as it is with
/// [`LinkRateChoice::Unshaped`].
pub fn apply(mut topology: Topology, choice: LinkRateChoice) -> (Topology, LinkRate) {
    if sets_own_rates(&topology) {
        return (topology, LinkRate::Topology);
    }
    let LinkRateChoice::Rate(rate) = choice else {
        return (topology, LinkRate::Unshaped);
    };
    for link in &mut topology.links {
        for egress in &mut link.egress {
            let shaping = egress.get_or_insert_with(|| Shaping {
                rate: None,
                queue_limit_packets: DEFAULT_QUEUE_LIMIT_PACKETS,
                delay: std::time::Duration::ZERO,
                jitter: std::time::Duration::ZERO,
                loss_ratio: 0.0,
            });
            shaping.rate = Some((RateQdisc::Htb, rate));
        }
    }
    (
        topology,
        LinkRate::Shaped {
            bits_per_second: rate.bits_per_second(),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preset;

    #[test]
    fn none_and_rates_with_suffixes_parse_and_nonsense_is_refused() {
        let parse = |text: &str| text.parse::<LinkRateChoice>().unwrap();
        assert_eq!(parse("none"), LinkRateChoice::Unshaped);
        assert_eq!(parse("400M"), LinkRateChoice::Rate(BitRate::from_mbit(400)));
        assert_eq!(
            parse("1.5G"),
            LinkRateChoice::Rate(BitRate::from_mbit(1500))
        );
        let err = "fast".parse::<LinkRateChoice>().unwrap_err().to_string();
        assert!(err.contains("`none`"), "{err}");
        for out in ["0", "10k", "200G"] {
            let err = out.parse::<LinkRateChoice>().unwrap_err();
            assert!(err.to_string().contains("outside"), "{out}: {err}");
        }
    }

    #[test]
    fn the_default_shapes_every_direction_of_router_with_htb() {
        let (topology, applied) = apply(preset::load("router").unwrap(), Default::default());
        assert_eq!(
            applied,
            LinkRate::Shaped {
                bits_per_second: 100_000_000
            }
        );
        for link in topology.links() {
            for egress in &link.egress {
                let shaping = egress.as_ref().unwrap();
                assert_eq!(
                    shaping.rate,
                    Some((RateQdisc::Htb, BitRate::from_mbit(100)))
                );
                assert!(!shaping.needs_netem());
            }
        }
    }

    #[test]
    fn the_slowest_rate_is_the_bottleneck_and_none_without_rates() {
        let slowest = |name: &str| slowest_rate(&preset::load(name).unwrap());
        assert_eq!(slowest("bottleneck"), Some(BitRate::from_mbit(10)));
        assert_eq!(slowest("router"), None);
        let (shaped, _) = apply(preset::load("router").unwrap(), Default::default());
        assert_eq!(slowest_rate(&shaped), Some(DEFAULT_LINK_RATE));
    }

    #[test]
    fn none_leaves_links_alone_and_topologies_with_rates_keep_their_own() {
        let router = preset::load("router").unwrap();
        let (same, applied) = apply(router.clone(), LinkRateChoice::Unshaped);
        assert_eq!((same, applied), (router, LinkRate::Unshaped));
        for name in ["bottleneck", "realtime", "rrul", "diffserv"] {
            let topology = preset::load(name).unwrap();
            let (same, applied) = apply(topology.clone(), Default::default());
            assert_eq!((same, applied), (topology, LinkRate::Topology), "{name}");
        }
    }
}

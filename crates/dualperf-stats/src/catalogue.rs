//! Every metric dualperf reports: its machine name (which carries the unit),
//! its unit for people, which direction is better, the definition it
//! follows, how a verdict words a difference, and how to print a value.
//!
//! One table, so that the name a user sees in the terminal, the JSON key,
//! the CSV `metric` column and the SQL row are the same word.

use dualperf_model::{Metric, TestKind};

/// What kind of number a metric is, which decides how it is printed.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Quantity {
    /// Bits per second, printed as kbit/s, Mbit/s, Gbit/s.
    BitRate,
    /// Nanoseconds, printed as ns, µs, ms or s.
    Nanoseconds,
    /// A ratio in 0..=1, printed as a percentage.
    Ratio,
    /// Events per second, printed with k/M prefixes and the given suffix.
    PerSecond(&'static str),
    /// A count, printed with the given noun.
    Count(&'static str),
    /// CPU cores kept busy (CPU seconds per second).
    Cores,
    /// CPU microseconds per MiB moved.
    MicrosecondsPerMib,
}

/// How a verdict words a difference: "IPv6 {verb} 4.8 % {more|less}".
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct Wording {
    /// "is", "has", "uses" …
    pub verb: &'static str,
    /// When IPv6's value is larger, e.g. "faster", "higher latency".
    pub more: &'static str,
    /// When IPv6's value is smaller, e.g. "slower", "lower latency".
    pub less: &'static str,
}

/// One metric's definition.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MetricDefinition {
    /// Machine key with its unit, e.g. `goodput_bps`.
    pub name: &'static str,
    /// Unit for people, e.g. "bit/s".
    pub unit: &'static str,
    /// True when larger values are better.
    pub higher_is_better: bool,
    /// The definition followed (RFC and section, or the formula).
    pub definition: &'static str,
    /// How a verdict words a difference.
    pub wording: Wording,
    /// How values are printed.
    pub quantity: Quantity,
}

impl MetricDefinition {
    /// The model's [`Metric`] for this definition.
    pub fn to_metric(&self) -> Metric {
        Metric {
            name: self.name.to_string(),
            unit: self.unit.to_string(),
            higher_is_better: self.higher_is_better,
            definition: self.definition.to_string(),
        }
    }

    /// A value of this metric in human units, e.g. "9.41 Gbit/s", "38.2 µs", "0.12 %".
    pub fn format_value(&self, value: f64) -> String {
        self.quantity.format(value)
    }
}

impl Quantity {
    /// A value in human units with three significant digits.
    pub fn format(self, value: f64) -> String {
        match self {
            Quantity::BitRate => scaled(
                value,
                &[(1e9, "Gbit/s"), (1e6, "Mbit/s"), (1e3, "kbit/s")],
                "bit/s",
            ),
            Quantity::Nanoseconds => scaled(value, &[(1e9, "s"), (1e6, "ms"), (1e3, "µs")], "ns"),
            Quantity::Ratio => format!("{} %", significant(value * 100.0)),
            Quantity::PerSecond(suffix) => {
                let unit_k = format!("k{suffix}");
                let unit_m = format!("M{suffix}");
                if value.abs() >= 1e6 {
                    format!("{} {unit_m}", significant(value / 1e6))
                } else if value.abs() >= 1e3 {
                    format!("{} {unit_k}", significant(value / 1e3))
                } else {
                    format!("{} {suffix}", significant(value))
                }
            }
            Quantity::Count(noun) => format!("{} {noun}", significant(value)),
            Quantity::Cores => format!("{} cores", significant(value)),
            Quantity::MicrosecondsPerMib => format!("{} µs/MiB", significant(value)),
        }
    }
}

/// `value` divided by the first scale it reaches, with that unit.
fn scaled(value: f64, scales: &[(f64, &str)], base_unit: &str) -> String {
    for &(scale, unit) in scales {
        if value.abs() >= scale {
            return format!("{} {unit}", significant(value / scale));
        }
    }
    format!("{} {base_unit}", significant(value))
}

/// Three significant digits for values of 1 and above, two for smaller
/// ones ("941", "94.1", "9.41", "0.85", "0.0012"); integers stay integers.
pub fn significant(value: f64) -> String {
    let magnitude = value.abs();
    if value == value.trunc() && magnitude < 1e15 {
        return format!("{value:.0}");
    }
    let decimals = if magnitude >= 100.0 {
        0
    } else if magnitude >= 10.0 {
        1
    } else if magnitude >= 1.0 {
        2
    } else {
        // Two significant digits below 1, at most 9 decimals.
        (1 - magnitude.log10().floor() as i64).clamp(2, 9) as usize
    };
    format!("{value:.decimals$}")
}

const FASTER: Wording = Wording {
    verb: "is",
    more: "faster",
    less: "slower",
};
const LATENCY: Wording = Wording {
    verb: "has",
    more: "higher latency",
    less: "lower latency",
};
const LOSS: Wording = Wording {
    verb: "has",
    more: "more loss",
    less: "less loss",
};
const CPU: Wording = Wording {
    verb: "uses",
    more: "more CPU",
    less: "less CPU",
};

/// Throughput and rate definitions.
const THROUGHPUT: &[MetricDefinition] = &[
    MetricDefinition {
        name: "goodput_bps",
        unit: "bit/s",
        higher_is_better: true,
        definition: "receiver application bytes × 8 / measured interval (RFC 6349 §3 for TCP)",
        wording: FASTER,
        quantity: Quantity::BitRate,
    },
    MetricDefinition {
        name: "sender_throughput_bps",
        unit: "bit/s",
        higher_is_better: true,
        definition: "sender application bytes written × 8 / measured interval",
        wording: FASTER,
        quantity: Quantity::BitRate,
    },
    MetricDefinition {
        name: "wire_throughput_bps",
        unit: "bit/s",
        higher_is_better: true,
        definition: "goodput × link bytes per payload byte (header model: Ethernet with on-wire extras, the trial's path MTU)",
        wording: FASTER,
        quantity: Quantity::BitRate,
    },
    MetricDefinition {
        name: "sent_pps",
        unit: "packets/s",
        higher_is_better: true,
        definition: "datagrams sent / measured interval",
        wording: FASTER,
        quantity: Quantity::PerSecond("pps"),
    },
    MetricDefinition {
        name: "received_pps",
        unit: "packets/s",
        higher_is_better: true,
        definition: "datagrams received / measured interval",
        wording: FASTER,
        quantity: Quantity::PerSecond("pps"),
    },
    MetricDefinition {
        name: "transactions_per_second",
        unit: "transactions/s",
        higher_is_better: true,
        definition: "request/response transactions completed / measured interval",
        wording: FASTER,
        quantity: Quantity::PerSecond("tps"),
    },
    MetricDefinition {
        name: "connections_per_second",
        unit: "connections/s",
        higher_is_better: true,
        definition: "TCP connections established / measured interval",
        wording: FASTER,
        quantity: Quantity::PerSecond("conn/s"),
    },
];

/// Voice quality definitions.
const VOICE: &[MetricDefinition] = &[MetricDefinition {
    name: "voice_mos",
    unit: "MOS",
    higher_is_better: true,
    definition: "ITU-T G.107 E-model (Cole-Rosenbluth) for G.711 with PLC: Ta = OWD p50 + PDV p99.9 buffer + probe interval",
    wording: Wording { verb: "has", more: "better voice quality (MOS)", less: "worse voice quality (MOS)" },
    quantity: Quantity::Count("MOS"),
}];

/// Loss, duplication, reordering and TCP retransmission definitions.
const DELIVERY: &[MetricDefinition] = &[
    MetricDefinition {
        name: "loss_ratio",
        unit: "ratio",
        higher_is_better: false,
        definition:
            "RFC 7680: lost / sent, a datagram not received within the waiting time is lost",
        wording: LOSS,
        quantity: Quantity::Ratio,
    },
    MetricDefinition {
        name: "loss_episodes",
        unit: "episodes",
        higher_is_better: false,
        definition: "runs of consecutive lost datagrams (RFC 7680 losses, RFC 3357 loss periods)",
        wording: Wording {
            verb: "has",
            more: "more loss episodes",
            less: "fewer loss episodes",
        },
        quantity: Quantity::Count("episodes"),
    },
    MetricDefinition {
        name: "reordered_ratio",
        unit: "ratio",
        higher_is_better: false,
        definition: "RFC 4737 §4.1: reordered / received, reordered when sequence < NextExp",
        wording: Wording {
            verb: "has",
            more: "more reordering",
            less: "less reordering",
        },
        quantity: Quantity::Ratio,
    },
    MetricDefinition {
        name: "max_reorder_extent_packets",
        unit: "packets",
        higher_is_better: false,
        definition: "RFC 4737 §4.2.1: largest reordering extent",
        wording: Wording {
            verb: "has",
            more: "deeper reordering",
            less: "shallower reordering",
        },
        quantity: Quantity::Count("packets"),
    },
    MetricDefinition {
        name: "duplicate_packets",
        unit: "packets",
        higher_is_better: false,
        definition:
            "copies received after the first (RFC 5560; excluded from reordering, RFC 4737 §3.3)",
        wording: Wording {
            verb: "has",
            more: "more duplicates",
            less: "fewer duplicates",
        },
        quantity: Quantity::Count("packets"),
    },
    MetricDefinition {
        name: "retransmitted_segments",
        unit: "segments",
        higher_is_better: false,
        definition: "TCP segments retransmitted, TCP_INFO tcpi_total_retrans",
        wording: Wording {
            verb: "has",
            more: "more retransmissions",
            less: "fewer retransmissions",
        },
        quantity: Quantity::Count("segments"),
    },
    MetricDefinition {
        name: "tcp_efficiency_ratio",
        unit: "ratio",
        higher_is_better: true,
        definition: "RFC 6349 §3.3.2: (bytes sent − bytes retransmitted) / bytes sent",
        wording: Wording {
            verb: "is",
            more: "more efficient",
            less: "less efficient",
        },
        quantity: Quantity::Ratio,
    },
];

/// Builds a latency-distribution definition.
const fn latency(
    name: &'static str,
    definition: &'static str,
    wording: Wording,
) -> MetricDefinition {
    MetricDefinition {
        name,
        unit: "ns",
        higher_is_better: false,
        definition,
        wording,
        quantity: Quantity::Nanoseconds,
    }
}

const CONNECT: Wording = Wording {
    verb: "has",
    more: "slower connection setup",
    less: "faster connection setup",
};
const ONE_WAY: Wording = Wording {
    verb: "has",
    more: "higher one-way delay",
    less: "lower one-way delay",
};
const VARIATION: Wording = Wording {
    verb: "has",
    more: "more delay variation",
    less: "less delay variation",
};

/// Delay definitions.
const DELAY: &[MetricDefinition] = &[
    latency(
        "rtt_mean_ns",
        "mean round-trip time per transaction (exact sum / count)",
        LATENCY,
    ),
    latency(
        "rtt_sd_ns",
        "standard deviation of per-transaction round-trip times",
        Wording {
            verb: "has",
            more: "more RTT spread",
            less: "less RTT spread",
        },
    ),
    latency("rtt_min_ns", "smallest round-trip time", LATENCY),
    latency(
        "rtt_p50_ns",
        "median round-trip time (HDR histogram, nearest rank)",
        LATENCY,
    ),
    latency(
        "rtt_p90_ns",
        "90th percentile round-trip time (HDR histogram, nearest rank)",
        LATENCY,
    ),
    latency(
        "rtt_p99_ns",
        "99th percentile round-trip time (HDR histogram, nearest rank)",
        LATENCY,
    ),
    latency(
        "rtt_p999_ns",
        "99.9th percentile round-trip time (HDR histogram, nearest rank)",
        LATENCY,
    ),
    latency(
        "connect_mean_ns",
        "mean connect() start to established",
        CONNECT,
    ),
    latency("connect_min_ns", "smallest connection setup time", CONNECT),
    latency(
        "connect_p50_ns",
        "median connection setup time (HDR histogram, nearest rank)",
        CONNECT,
    ),
    latency(
        "connect_p90_ns",
        "90th percentile connection setup time",
        CONNECT,
    ),
    latency(
        "connect_p99_ns",
        "99th percentile connection setup time",
        CONNECT,
    ),
    latency("owd_min_ns", "RFC 7679 one-way delay, minimum", ONE_WAY),
    latency("owd_mean_ns", "RFC 7679 one-way delay, mean", ONE_WAY),
    latency("owd_p50_ns", "RFC 7679 one-way delay, median", ONE_WAY),
    latency(
        "owd_p99_ns",
        "RFC 7679 one-way delay, 99th percentile",
        ONE_WAY,
    ),
    latency(
        "pdv_p50_ns",
        "RFC 5481 PDV D(i) − D(min), median",
        VARIATION,
    ),
    latency(
        "pdv_p99_ns",
        "RFC 5481 PDV D(i) − D(min), 99th percentile",
        VARIATION,
    ),
    latency(
        "pdv_999_ns",
        "RFC 8219 §5: D(99.9th percentile) − D(min)",
        VARIATION,
    ),
    latency(
        "ipdv_mean_abs_ns",
        "RFC 3393 IPDV |D(i) − D(i−1)|, mean",
        VARIATION,
    ),
    latency(
        "ipdv_p99_abs_ns",
        "RFC 3393 IPDV |D(i) − D(i−1)|, 99th percentile",
        VARIATION,
    ),
    latency(
        "jitter_ns",
        "RFC 3550 §6.4.1 interarrival jitter, J += (|D(i−1,i)| − J)/16",
        Wording {
            verb: "has",
            more: "more jitter",
            less: "less jitter",
        },
    ),
];

/// CPU definitions.
const COST: &[MetricDefinition] = &[
    MetricDefinition {
        name: "client_cpu_cores",
        unit: "cores",
        higher_is_better: false,
        definition: "client process (user + system CPU time) / wall time (getrusage)",
        wording: CPU,
        quantity: Quantity::Cores,
    },
    MetricDefinition {
        name: "server_cpu_cores",
        unit: "cores",
        higher_is_better: false,
        definition: "server process (user + system CPU time) / wall time, as the server reports",
        wording: CPU,
        quantity: Quantity::Cores,
    },
    MetricDefinition {
        name: "system_busy_ratio",
        unit: "ratio",
        higher_is_better: false,
        definition: "/proc/stat: (user + nice + system + irq + softirq + steal) / all jiffies",
        wording: CPU,
        quantity: Quantity::Ratio,
    },
    MetricDefinition {
        name: "softirq_ratio",
        unit: "ratio",
        higher_is_better: false,
        definition: "/proc/stat: softirq / all jiffies (network stack work outside processes)",
        wording: Wording {
            verb: "uses",
            more: "more softirq time",
            less: "less softirq time",
        },
        quantity: Quantity::Ratio,
    },
    MetricDefinition {
        name: "client_service_demand_us_per_mib",
        unit: "µs/MiB",
        higher_is_better: false,
        definition: "netperf service demand: client CPU µs per MiB delivered",
        wording: Wording {
            verb: "costs",
            more: "more CPU per MiB",
            less: "less CPU per MiB",
        },
        quantity: Quantity::MicrosecondsPerMib,
    },
    MetricDefinition {
        name: "server_service_demand_us_per_mib",
        unit: "µs/MiB",
        higher_is_better: false,
        definition: "netperf service demand: server CPU µs per MiB delivered",
        wording: Wording {
            verb: "costs",
            more: "more CPU per MiB",
            less: "less CPU per MiB",
        },
        quantity: Quantity::MicrosecondsPerMib,
    },
];

/// The metrics that headline a point of each test kind, in order of
/// preference: the first one the analysis has is the point's verdict.
///
/// Throughput for streams; median RTT for request/response (robust to the
/// odd stalled transaction, unlike the papers' duration / count mean);
/// median setup time for connects; for probes the median one-way delay,
/// else (clocks not shared) the mean |IPDV|, else loss.
pub fn headline_metrics(kind: TestKind) -> &'static [&'static str] {
    match kind {
        TestKind::TcpStream | TestKind::UdpStream => &["goodput_bps"],
        TestKind::TcpRr | TestKind::UdpRr => &["rtt_p50_ns", "rtt_mean_ns"],
        TestKind::TcpConnect => &["connect_p50_ns", "connect_mean_ns"],
        TestKind::UdpProbe => &["owd_p50_ns", "ipdv_mean_abs_ns", "jitter_ns", "loss_ratio"],
    }
}

/// Latency under load: the probe stream that ran beside a tcp-stream or
/// udp-stream trial (`dualperf run --probe`), measured like `udp-probe`.
const LOADED: &[MetricDefinition] = &[
    latency(
        "loaded_owd_p50_ns",
        "RFC 7679 one-way delay of the probe stream beside the load, median",
        ONE_WAY,
    ),
    latency(
        "loaded_owd_p99_ns",
        "RFC 7679 one-way delay of the probe stream beside the load, 99th percentile",
        ONE_WAY,
    ),
    latency(
        "loaded_pdv_p99_ns",
        "RFC 5481 PDV D(i) − D(min) of the probe stream beside the load, 99th percentile",
        ONE_WAY,
    ),
    latency(
        "loaded_jitter_ns",
        "RFC 3550 §6.4.1 interarrival jitter of the probe stream beside the load",
        Wording {
            verb: "has",
            more: "more jitter",
            less: "less jitter",
        },
    ),
    MetricDefinition {
        name: "loaded_reordered_ratio",
        unit: "ratio",
        higher_is_better: false,
        definition: "RFC 4737 reordered ratio of the probe stream beside the load",
        wording: Wording {
            verb: "has",
            more: "more reordering",
            less: "less reordering",
        },
        quantity: Quantity::Ratio,
    },
    MetricDefinition {
        name: "loaded_loss_ratio",
        unit: "ratio",
        higher_is_better: false,
        definition: "RFC 7680 loss ratio of the probe stream beside the load",
        wording: LOSS,
        quantity: Quantity::Ratio,
    },
];

/// Every metric, in the order tables list them.
pub fn all() -> impl Iterator<Item = &'static MetricDefinition> {
    THROUGHPUT
        .iter()
        .chain(DELAY)
        .chain(LOADED)
        .chain(DELIVERY)
        .chain(VOICE)
        .chain(COST)
}

/// The definition of the metric named `name`.
pub fn definition(name: &str) -> Option<&'static MetricDefinition> {
    all().find(|d| d.name == name)
}

/// Position of `name` in table order (unknown names sort last).
pub fn order_of(name: &str) -> usize {
    all().position(|d| d.name == name).unwrap_or(usize::MAX)
}

/// The definition of `name`.
///
/// # Panics
/// When `name` is not in the catalogue: metric names are written in this
/// crate, so an unknown one is a typo caught by the tests.
pub(crate) fn known(name: &str) -> &'static MetricDefinition {
    definition(name).unwrap_or_else(|| panic!("metric `{name}` is missing from the catalogue"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn metric_names_are_unique() {
        let names: HashSet<&str> = all().map(|d| d.name).collect();
        assert_eq!(names.len(), all().count());
    }

    #[test]
    fn every_name_carries_its_unit() {
        let suffixes = [
            "_bps",
            "_pps",
            "_per_second",
            "_ns",
            "_ratio",
            "_episodes",
            "_packets",
            "_segments",
            "_cores",
            "_us_per_mib",
            "_mos",
        ];
        for definition in all() {
            assert!(
                suffixes.iter().any(|s| definition.name.ends_with(s)),
                "{} has no unit suffix",
                definition.name
            );
        }
    }

    #[test]
    fn values_print_in_human_units() {
        assert_eq!(Quantity::BitRate.format(9.41e9), "9.41 Gbit/s");
        assert_eq!(Quantity::BitRate.format(941.5e6), "942 Mbit/s");
        assert_eq!(Quantity::Nanoseconds.format(38_200.0), "38.2 µs");
        assert_eq!(Quantity::Nanoseconds.format(512.0), "512 ns");
        assert_eq!(Quantity::Ratio.format(0.0012), "0.12 %");
        assert_eq!(Quantity::PerSecond("pps").format(812_345.0), "812 kpps");
        assert_eq!(Quantity::Count("segments").format(3.0), "3 segments");
        assert_eq!(Quantity::Cores.format(0.853), "0.85 cores");
        assert_eq!(Quantity::Ratio.format(0.000_012_34), "0.0012 %");
    }
}

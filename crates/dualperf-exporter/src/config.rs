//! The exporter's configuration file (TOML), validated up front.
//!
//! ```toml
//! listen = "127.0.0.1:9518"   # where /metrics is served (loopback by default)
//! duty_cycle = 0.25           # at most this fraction of wall time is spent measuring
//!
//! [defaults]                  # anything a [[target]] may say, for every target
//! interval = "5m"             # compare each target this often
//! jitter = "30s"              # plus a random 0 to 30 s
//! tests = ["tcp-stream", "udp-rr", "udp-probe"]
//!
//! [[target]]
//! name = "lon-1"              # the `target` label
//! host = "lon-1.example.net"  # resolved to A and AAAA before every comparison
//! ```
//!
//! Every key is checked before anything runs: unknown keys (a typo is an
//! error, not a silently ignored setting), values out of range, intervals
//! a target cannot keep (shorter than one comparison, or more comparisons an
//! hour than its rate limit allows) and more targets than the duty cycle
//! leaves time for. Each error names the line and the key.

use std::fmt;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use dualperf_model::{BitRate, IpFamily, PeerKind, TestKind};
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use toml::Spanned;

use crate::schedule::TargetSchedule;

/// Where `/metrics` is served unless `listen` says otherwise (loopback).
pub const DEFAULT_LISTEN: &str = "127.0.0.1:9518";
/// Default fraction of wall time the exporter may spend measuring.
pub const DEFAULT_DUTY_CYCLE: f64 = 0.25;
/// Default interval between two comparisons of one target.
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(300);
/// Default jitter added to every start.
pub const DEFAULT_JITTER: Duration = Duration::from_secs(30);
/// Default per-target rate limit: comparisons per hour.
pub const DEFAULT_MAX_RUNS_PER_HOUR: u32 = 60;
/// Shortest interval accepted.
pub const MIN_INTERVAL: Duration = Duration::from_secs(1);
/// Longest comparison accepted: the exporter runs short comparisons.
pub const MAX_COMPARISON: Duration = Duration::from_secs(300);
/// Longest measured time of one trial.
pub const MAX_TRIAL_TIME: Duration = Duration::from_secs(60);
/// Shortest measured time of one trial.
pub const MIN_TRIAL_TIME: Duration = Duration::from_millis(10);
/// Longest warm-up of one trial.
pub const MAX_WARMUP: Duration = Duration::from_secs(10);
/// Most repetitions of a point per arm.
pub const MAX_REPEAT: u32 = 20;
/// Most parallel streams.
pub const MAX_PARALLEL: u32 = 16;
/// What a trial costs beyond its warm-up and measured time (control
/// handshake, data connections, the server's report), for estimates.
pub const TRIAL_OVERHEAD: Duration = Duration::from_millis(150);
/// Default tests: goodput, round trips, and one-way delay with loss and jitter.
pub const DEFAULT_TESTS: [TestKind; 3] = [TestKind::TcpStream, TestKind::UdpRr, TestKind::UdpProbe];

/// A validated configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Address of the `/metrics` server.
    pub listen: SocketAddr,
    /// Most of the wall time (0 to 1) spent measuring.
    pub duty_cycle: f64,
    /// The targets, in file order.
    pub targets: Vec<Target>,
    /// The `/probe` modules, by name.
    pub modules: Vec<Module>,
    /// Probes measured at once; more are answered 503.
    pub probe_concurrency: usize,
}

impl Config {
    /// The module called `name`.
    pub fn module(&self, name: &str) -> Option<&Module> {
        self.modules.iter().find(|m| m.name == name)
    }
}

/// One host to compare (running `dualperf serve`, an iperf3 server or a
/// STAMP reflector), and how.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    /// Which implementation answers at the host.
    pub peer: PeerKind,
    /// Name, the `target` label.
    pub name: String,
    /// Host name resolved to its A and AAAA before every comparison.
    pub host: Option<String>,
    /// IPv4 address (wins over `host`).
    pub v4: Option<Ipv4Addr>,
    /// IPv6 address (wins over `host`).
    pub v6: Option<Ipv6Addr>,
    /// Control port of the server.
    pub port: u16,
    /// Families measured (one native arm each), in arm order.
    pub families: Vec<IpFamily>,
    /// The family every other one is compared with.
    pub baseline: IpFamily,
    /// File holding the server's `--auth-key`.
    pub auth_key_file: Option<PathBuf>,
    /// The two hosts' clocks are synchronised: report one-way delay between them.
    pub clocks_synchronised: bool,
    /// When it is compared.
    pub schedule: TargetSchedule,
    /// What one comparison measures.
    pub measurement: Measurement,
}

/// What one comparison of a target measures.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    /// Test kinds, in order, without repeats.
    pub tests: Vec<TestKind>,
    /// Sizes in bytes; `None`: each test's default size.
    pub sizes: Option<Vec<u32>>,
    /// Measured time per trial.
    pub time: Duration,
    /// Warm-up per trial.
    pub warmup: Duration,
    /// Repetitions of every point per family.
    pub repeat: u32,
    /// Parallel streams of tcp-stream and udp-stream.
    pub parallel: u32,
    /// UDP rate per stream (required with udp-stream).
    pub bitrate: Option<BitRate>,
}

impl Target {
    /// Number of measurement points (tests × sizes; tcp-connect has one).
    pub fn points(&self) -> usize {
        let sizes = self.measurement.sizes.as_ref().map_or(1, Vec::len);
        self.measurement
            .tests
            .iter()
            .map(|&kind| {
                if kind == TestKind::TcpConnect {
                    1
                } else {
                    sizes
                }
            })
            .sum()
    }

    /// Trials in one comparison.
    pub fn trials(&self) -> usize {
        self.points() * self.families.len() * self.measurement.repeat as usize
    }

    /// About how long one comparison takes.
    pub fn estimated_comparison(&self) -> Duration {
        let per_trial = self.measurement.warmup + self.measurement.time + TRIAL_OVERHEAD;
        per_trial * u32::try_from(self.trials()).unwrap_or(u32::MAX)
    }
}

impl Config {
    /// Parses and validates the configuration in `text`.
    ///
    /// # Errors
    /// Every problem found, each with its line and key.
    pub fn parse(text: &str) -> Result<Config, ConfigErrors> {
        let raw: RawConfig = toml::from_str(text).map_err(|error| {
            ConfigErrors(vec![ConfigError {
                line: error.span().map(|span| line_of(text, span.start)),
                key: String::new(),
                message: error.message().trim().to_string(),
            }])
        })?;
        // Every string reaches some output (metric labels, logs, the
        // terminal): a control character in one is refused, not escaped.
        if let Ok(table) = toml::from_str::<toml::Table>(text) {
            let mut errors = Vec::new();
            control_characters(&toml::Value::Table(table), "", &mut errors);
            if !errors.is_empty() {
                return Err(ConfigErrors(errors));
            }
        }
        Validator {
            text,
            errors: Vec::new(),
        }
        .config(raw)
    }

    /// Fraction of the wall time the targets' comparisons need at their intervals.
    pub fn planned_duty_cycle(&self) -> f64 {
        self.targets
            .iter()
            .map(|t| t.estimated_comparison().as_secs_f64() / t.schedule.interval.as_secs_f64())
            .sum()
    }
}

/// Adds an error for every string under `value` holding a control
/// character (a newline, ESC), naming its key.
fn control_characters(value: &toml::Value, key: &str, errors: &mut Vec<ConfigError>) {
    match value {
        toml::Value::String(text) => {
            if let Some(c) = text.chars().find(|c| c.is_control()) {
                errors.push(ConfigError {
                    line: None,
                    key: key.to_string(),
                    message: format!(
                        "holds the control character {}; strings here are printed and exported",
                        c.escape_default()
                    ),
                });
            }
        }
        toml::Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                control_characters(item, &format!("{key}[{index}]"), errors);
            }
        }
        toml::Value::Table(table) => {
            for (name, item) in table {
                let path = if key.is_empty() {
                    name.clone()
                } else {
                    format!("{key}.{name}")
                };
                control_characters(item, &path, errors);
            }
        }
        _ => {}
    }
}

/// One problem in a configuration file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// Line of the offending key or value, from 1 (`None`: a missing key).
    pub line: Option<usize>,
    /// The key, e.g. `target "lon-1": interval` (empty when the parser's
    /// message names it).
    pub key: String,
    /// What is wrong and what would be right.
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(line) = self.line {
            write!(f, "line {line}: ")?;
        }
        if !self.key.is_empty() {
            write!(f, "{}: ", self.key)?;
        }
        f.write_str(&self.message)
    }
}

/// Every problem found in a configuration file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigErrors(pub Vec<ConfigError>);

impl fmt::Display for ConfigErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, error) in self.0.iter().enumerate() {
            if index > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{error}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigErrors {}

/// A duration as the file says it: `"30s"`, `"5m"`, `"1h"`, `"250ms"`, or
/// a number of seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
struct HumanDuration(Duration);

impl<'de> Deserialize<'de> for HumanDuration {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct DurationVisitor;
        impl Visitor<'_> for DurationVisitor {
            type Value = HumanDuration;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a duration such as \"30s\", \"5m\", \"1h\", \"250ms\" or seconds")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<HumanDuration, E> {
                parse_duration(text).map(HumanDuration).map_err(E::custom)
            }
            fn visit_i64<E: de::Error>(self, seconds: i64) -> Result<HumanDuration, E> {
                u64::try_from(seconds)
                    .map(|s| HumanDuration(Duration::from_secs(s)))
                    .map_err(|_| E::custom(format!("{seconds} s: a duration is not negative")))
            }
            fn visit_f64<E: de::Error>(self, seconds: f64) -> Result<HumanDuration, E> {
                Duration::try_from_secs_f64(seconds)
                    .map(HumanDuration)
                    .map_err(|_| E::custom(format!("{seconds} s is not a duration")))
            }
        }
        deserializer.deserialize_any(DurationVisitor)
    }
}

/// Parses `"30s"`, `"5m"`, `"1h"`, `"250ms"`, `"1.5s"` or `"20"` (seconds),
/// with the one duration parser ([`dualperf_model::units::parse_duration`];
/// `1m30s` too), up to a year.
///
/// # Errors
/// A message with examples.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    const YEAR: Duration = Duration::from_secs(366 * 86_400);
    dualperf_model::units::parse_duration(text, YEAR).map_err(|e| e.to_string())
}

/// Formats a duration the way the file says it, e.g. `5m`, `30s`, `1.5s`.
pub fn format_duration(duration: Duration) -> String {
    let seconds = duration.as_secs_f64();
    if seconds >= 3600.0 && seconds % 3600.0 == 0.0 {
        format!("{}h", seconds / 3600.0)
    } else if seconds >= 60.0 && seconds % 60.0 == 0.0 {
        format!("{}m", seconds / 60.0)
    } else if seconds < 1.0 {
        format!("{}ms", duration.as_millis())
    } else {
        format!("{}s", (seconds * 10.0).round() / 10.0)
    }
}

mod module;
mod role;
#[cfg(test)]
mod tests;
mod validate;

pub use module::{
    Module, DEFAULT_PROBE_CONCURRENCY, DEFAULT_PROBE_TIMEOUT, MAX_PROBE_CONCURRENCY,
    MAX_PROBE_TIMEOUT,
};

use validate::{line_of, RawConfig, Validator};

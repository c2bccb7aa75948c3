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

use dualperf_model::{BitRate, IpFamily, TestKind};
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
}

/// One host running `dualperf serve`, and how to compare it.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
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

/// Parses `"30s"`, `"5m"`, `"1h"`, `"250ms"`, `"1.5s"` or `"20"` (seconds).
///
/// # Errors
/// A message with examples.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let scale = match unit.trim() {
        "ms" => 0.001,
        "" | "s" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        _ => f64::NAN,
    };
    number
        .parse::<f64>()
        .ok()
        .filter(|_| scale.is_finite())
        .and_then(|n| Duration::try_from_secs_f64(n * scale).ok())
        .ok_or_else(|| {
            format!("`{text}` is not a duration (examples: \"30s\", \"5m\", \"1h\", \"250ms\")")
        })
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

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    listen: Option<Spanned<String>>,
    duty_cycle: Option<Spanned<f64>>,
    defaults: Option<Spanned<RawTarget>>,
    #[serde(default, rename = "target")]
    targets: Vec<Spanned<RawTarget>>,
}

#[derive(Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTarget {
    name: Option<Spanned<String>>,
    host: Option<Spanned<String>>,
    v4: Option<Spanned<String>>,
    v6: Option<Spanned<String>>,
    port: Option<Spanned<u16>>,
    families: Option<Spanned<Vec<String>>>,
    baseline: Option<Spanned<String>>,
    auth_key_file: Option<Spanned<String>>,
    clocks_synchronised: Option<bool>,
    interval: Option<Spanned<HumanDuration>>,
    jitter: Option<Spanned<HumanDuration>>,
    max_runs_per_hour: Option<Spanned<u32>>,
    tests: Option<Spanned<Vec<String>>>,
    sizes: Option<Spanned<Vec<i64>>>,
    time: Option<Spanned<HumanDuration>>,
    warmup: Option<Spanned<HumanDuration>>,
    repeat: Option<Spanned<u32>>,
    parallel: Option<Spanned<u32>>,
    bitrate: Option<Spanned<String>>,
}

/// A target's setting: its own, else the `[defaults]` one.
macro_rules! setting {
    ($target:expr, $defaults:expr, $field:ident) => {
        $target.$field.clone().or_else(|| $defaults.$field.clone())
    };
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

struct Validator<'a> {
    text: &'a str,
    errors: Vec<ConfigError>,
}

impl Validator<'_> {
    fn error<T>(&mut self, at: Option<&Spanned<T>>, key: &str, message: impl Into<String>) {
        self.errors.push(ConfigError {
            line: at.map(|s| line_of(self.text, s.span().start)),
            key: key.to_string(),
            message: message.into(),
        });
    }

    fn config(mut self, raw: RawConfig) -> Result<Config, ConfigErrors> {
        let listen = match &raw.listen {
            None => DEFAULT_LISTEN.parse().expect("the default address parses"),
            Some(text) => text.get_ref().parse().unwrap_or_else(|_| {
                self.error(
                    Some(text),
                    "listen",
                    format!(
                        "`{}` is not an address and port (e.g. \"{DEFAULT_LISTEN}\" or \"[::1]:9518\")",
                        text.get_ref()
                    ),
                );
                DEFAULT_LISTEN.parse().expect("the default address parses")
            }),
        };
        let duty_cycle = match &raw.duty_cycle {
            None => DEFAULT_DUTY_CYCLE,
            Some(value) => {
                let cycle = *value.get_ref();
                if !(cycle > 0.0 && cycle <= 1.0) {
                    self.error(
                        Some(value),
                        "duty_cycle",
                        format!(
                            "{cycle} is outside (0, 1]: it is the fraction of time spent measuring"
                        ),
                    );
                }
                cycle
            }
        };
        let defaults = raw.defaults.map(Spanned::into_inner).unwrap_or_default();
        for (key, field) in [
            ("name", &defaults.name),
            ("host", &defaults.host),
            ("v4", &defaults.v4),
            ("v6", &defaults.v6),
        ] {
            if field.is_some() {
                self.error(
                    field.as_ref(),
                    &format!("defaults.{key}"),
                    "belongs to a [[target]], not to [defaults]",
                );
            }
        }
        if raw.targets.is_empty() {
            self.errors.push(ConfigError {
                line: None,
                key: "target".into(),
                message: "no [[target]]: name at least one host running `dualperf serve`".into(),
            });
        }
        let mut targets: Vec<Target> = Vec::new();
        for (index, raw_target) in raw.targets.iter().enumerate() {
            let line = line_of(self.text, raw_target.span().start);
            if let Some(target) = self.target(index, line, raw_target.get_ref(), &defaults) {
                if targets.iter().any(|t| t.name == target.name) {
                    self.error(
                        raw_target.get_ref().name.as_ref(),
                        &format!("target \"{}\": name", target.name),
                        "another [[target]] has this name; names must be unique",
                    );
                }
                targets.push(target);
            }
        }
        let config = Config {
            listen,
            duty_cycle,
            targets,
        };
        if self.errors.is_empty() && config.planned_duty_cycle() > duty_cycle {
            let needs: Vec<String> = config
                .targets
                .iter()
                .map(|t| {
                    format!(
                        "{} {} every {}",
                        t.name,
                        format_duration(t.estimated_comparison()),
                        format_duration(t.schedule.interval)
                    )
                })
                .collect();
            self.error(
                raw.duty_cycle.as_ref(),
                "duty_cycle",
                format!(
                    "too many targets for the duty cycle: {} targets need about {:.0} % of the time ({}), duty_cycle = {duty_cycle} allows {:.0} %; lengthen intervals, shorten comparisons or raise duty_cycle",
                    config.targets.len(),
                    config.planned_duty_cycle() * 100.0,
                    needs.join(", "),
                    duty_cycle * 100.0
                ),
            );
        }
        if self.errors.is_empty() {
            Ok(config)
        } else {
            Err(ConfigErrors(self.errors))
        }
    }

    /// Validates one `[[target]]`; `None` when it has errors (recorded).
    fn target(
        &mut self,
        index: usize,
        line: usize,
        raw: &RawTarget,
        defaults: &RawTarget,
    ) -> Option<Target> {
        let before = self.errors.len();
        let name = match &raw.name {
            Some(name) => {
                let text = name.get_ref().clone();
                let valid = !text.is_empty()
                    && text.len() <= 64
                    && text
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "._:-".contains(c));
                if !valid {
                    self.error(
                        Some(name),
                        "target: name",
                        format!("`{text}`: use 1 to 64 letters, digits, `.`, `_`, `:` or `-`"),
                    );
                }
                text
            }
            None => {
                self.errors.push(ConfigError {
                    line: Some(line),
                    key: format!("target #{}", index + 1),
                    message: "has no name (the `target` label)".into(),
                });
                format!("#{}", index + 1)
            }
        };
        let key = |field: &str| format!("target \"{name}\": {field}");

        let v4 = raw.v4.as_ref().and_then(|text| {
            text.get_ref()
                .parse::<Ipv4Addr>()
                .map_err(|_| {
                    self.error(
                        Some(text),
                        &key("v4"),
                        format!("`{}` is not an IPv4 address", text.get_ref()),
                    );
                })
                .ok()
        });
        let v6 = raw.v6.as_ref().and_then(|text| {
            text.get_ref()
                .trim_matches(|c| c == '[' || c == ']')
                .parse::<Ipv6Addr>()
                .map_err(|_| {
                    self.error(
                        Some(text),
                        &key("v6"),
                        format!("`{}` is not an IPv6 address", text.get_ref()),
                    );
                })
                .ok()
        });
        let host = raw.host.as_ref().map(|h| h.get_ref().trim().to_string());
        if host.as_deref() == Some("") {
            self.error(raw.host.as_ref(), &key("host"), "is empty");
        }

        let families_setting = setting!(raw, defaults, families);
        let mut families = Vec::new();
        match &families_setting {
            None => families.extend(IpFamily::ALL),
            Some(list) => {
                for word in list.get_ref() {
                    match IpFamily::ALL.into_iter().find(|f| f.key() == word) {
                        Some(family) if !families.contains(&family) => families.push(family),
                        Some(_) => self.error(
                            Some(list),
                            &key("families"),
                            format!("`{word}` appears twice"),
                        ),
                        None => self.error(
                            Some(list),
                            &key("families"),
                            format!("`{word}` is not a family: use \"v4\" and \"v6\""),
                        ),
                    }
                }
                if list.get_ref().is_empty() {
                    self.error(
                        Some(list),
                        &key("families"),
                        "is empty: measure \"v4\", \"v6\" or both",
                    );
                }
            }
        }
        for &family in &families {
            let has = match family {
                IpFamily::V4 => v4.is_some() || raw.v4.is_some(),
                IpFamily::V6 => v6.is_some() || raw.v6.is_some(),
            };
            if !has && host.is_none() {
                self.errors.push(ConfigError {
                    line: Some(line),
                    key: key("host"),
                    message: format!(
                        "{} is measured but the target has neither host nor {}",
                        family.label(),
                        family.key()
                    ),
                });
            }
        }
        let baseline_setting = setting!(raw, defaults, baseline);
        let baseline = match &baseline_setting {
            None => {
                if families.contains(&IpFamily::V4) {
                    IpFamily::V4
                } else {
                    families.first().copied().unwrap_or(IpFamily::V4)
                }
            }
            Some(word) => match IpFamily::ALL
                .into_iter()
                .find(|f| f.key() == word.get_ref())
            {
                Some(family) if families.contains(&family) => family,
                _ => {
                    self.error(
                        Some(word),
                        &key("baseline"),
                        format!("`{}` is not one of the measured families", word.get_ref()),
                    );
                    IpFamily::V4
                }
            },
        };

        let port = setting!(raw, defaults, port);
        let port = match &port {
            Some(p) if *p.get_ref() == 0 => {
                self.error(Some(p), &key("port"), "0 is not a port");
                0
            }
            Some(p) => *p.get_ref(),
            None => 5180,
        };

        let schedule = self.schedule(raw, defaults, &key);
        let measurement = self.measurement(raw, defaults, &key);
        if self.errors.len() > before {
            return None;
        }
        let target = Target {
            name,
            host,
            v4,
            v6,
            port,
            families,
            baseline,
            auth_key_file: setting!(raw, defaults, auth_key_file)
                .map(|p| PathBuf::from(p.into_inner())),
            clocks_synchronised: raw
                .clocks_synchronised
                .or(defaults.clocks_synchronised)
                .unwrap_or(false),
            schedule,
            measurement,
        };
        self.reachable(&target, raw, defaults);
        (self.errors.len() == before).then_some(target)
    }

    fn schedule(
        &mut self,
        raw: &RawTarget,
        defaults: &RawTarget,
        key: &dyn Fn(&str) -> String,
    ) -> TargetSchedule {
        let interval_setting = setting!(raw, defaults, interval);
        let interval = interval_setting
            .as_ref()
            .map_or(DEFAULT_INTERVAL, |i| i.get_ref().0);
        if interval < MIN_INTERVAL {
            self.error(
                interval_setting.as_ref(),
                &key("interval"),
                format!(
                    "{} is below the {} minimum",
                    format_duration(interval),
                    format_duration(MIN_INTERVAL)
                ),
            );
        }
        let jitter_setting = setting!(raw, defaults, jitter);
        let jitter = jitter_setting
            .as_ref()
            .map_or(DEFAULT_JITTER.min(interval), |j| j.get_ref().0);
        if jitter > interval {
            self.error(
                jitter_setting.as_ref(),
                &key("jitter"),
                format!(
                    "{} exceeds the interval ({})",
                    format_duration(jitter),
                    format_duration(interval)
                ),
            );
        }
        let limit_setting = setting!(raw, defaults, max_runs_per_hour);
        let max_runs_per_hour = limit_setting
            .as_ref()
            .map_or(DEFAULT_MAX_RUNS_PER_HOUR, |l| *l.get_ref());
        if max_runs_per_hour == 0 {
            self.error(
                limit_setting.as_ref(),
                &key("max_runs_per_hour"),
                "must be at least 1",
            );
        }
        TargetSchedule {
            interval,
            jitter,
            max_runs_per_hour: max_runs_per_hour.max(1),
        }
    }

    fn measurement(
        &mut self,
        raw: &RawTarget,
        defaults: &RawTarget,
        key: &dyn Fn(&str) -> String,
    ) -> Measurement {
        let mut tests = Vec::new();
        match setting!(raw, defaults, tests) {
            None => tests.extend(DEFAULT_TESTS),
            Some(list) => {
                for word in list.get_ref() {
                    match word.parse::<TestKind>() {
                        Ok(kind) if !tests.contains(&kind) => tests.push(kind),
                        Ok(_) => self.error(
                            Some(&list),
                            &key("tests"),
                            format!("`{word}` appears twice"),
                        ),
                        Err(message) => self.error(Some(&list), &key("tests"), message),
                    }
                }
                if list.get_ref().is_empty() {
                    self.error(
                        Some(&list),
                        &key("tests"),
                        "is empty: name at least one test",
                    );
                }
            }
        }
        let sizes = setting!(raw, defaults, sizes).map(|list| {
            let mut sizes: Vec<u32> = Vec::new();
            for &size in list.get_ref() {
                match u32::try_from(size) {
                    Ok(size) if (1..=65_536).contains(&size) && !sizes.contains(&size) => {
                        sizes.push(size)
                    }
                    Ok(size) if sizes.contains(&size) => {
                        self.error(Some(&list), &key("sizes"), format!("{size} appears twice"))
                    }
                    _ => self.error(
                        Some(&list),
                        &key("sizes"),
                        format!("{size} B is outside 1 to 65536 B"),
                    ),
                }
            }
            if list.get_ref().is_empty() {
                self.error(
                    Some(&list),
                    &key("sizes"),
                    "is empty: leave it out for each test's default size",
                );
            }
            sizes
        });
        let time_setting = setting!(raw, defaults, time);
        let time = time_setting
            .as_ref()
            .map_or(Duration::from_secs(1), |t| t.get_ref().0);
        if !(MIN_TRIAL_TIME..=MAX_TRIAL_TIME).contains(&time) {
            self.error(
                time_setting.as_ref(),
                &key("time"),
                format!(
                    "{} is outside {} to {} per trial",
                    format_duration(time),
                    format_duration(MIN_TRIAL_TIME),
                    format_duration(MAX_TRIAL_TIME)
                ),
            );
        }
        let warmup_setting = setting!(raw, defaults, warmup);
        let warmup = warmup_setting
            .as_ref()
            .map_or(Duration::from_millis(250), |w| w.get_ref().0);
        if warmup > MAX_WARMUP {
            self.error(
                warmup_setting.as_ref(),
                &key("warmup"),
                format!(
                    "{} exceeds {}",
                    format_duration(warmup),
                    format_duration(MAX_WARMUP)
                ),
            );
        }
        let repeat_setting = setting!(raw, defaults, repeat);
        let repeat = repeat_setting.as_ref().map_or(3, |r| *r.get_ref());
        if !(1..=MAX_REPEAT).contains(&repeat) {
            self.error(
                repeat_setting.as_ref(),
                &key("repeat"),
                format!("{repeat} is outside 1 to {MAX_REPEAT}"),
            );
        }
        let parallel_setting = setting!(raw, defaults, parallel);
        let parallel = parallel_setting.as_ref().map_or(1, |p| *p.get_ref());
        if !(1..=MAX_PARALLEL).contains(&parallel) {
            self.error(
                parallel_setting.as_ref(),
                &key("parallel"),
                format!("{parallel} is outside 1 to {MAX_PARALLEL}"),
            );
        }
        let bitrate_setting = setting!(raw, defaults, bitrate);
        let bitrate = bitrate_setting.as_ref().and_then(|text| {
            text.get_ref()
                .parse::<BitRate>()
                .map_err(|e| self.error(Some(text), &key("bitrate"), e.to_string()))
                .ok()
        });
        if tests.contains(&TestKind::UdpStream) && bitrate_setting.is_none() {
            self.error(
                setting!(raw, defaults, tests).as_ref(),
                &key("tests"),
                "udp-stream without a bitrate would send as fast as it can: set bitrate (e.g. \"10M\")",
            );
        }
        Measurement {
            tests,
            sizes,
            time,
            warmup,
            repeat,
            parallel,
            bitrate,
        }
    }

    /// The target can keep its interval: one comparison fits in it, the
    /// rate limit allows it, and the comparison is short.
    fn reachable(&mut self, target: &Target, raw: &RawTarget, defaults: &RawTarget) {
        let key = |field: &str| format!("target \"{}\": {field}", target.name);
        let comparison = target.estimated_comparison();
        let interval = target.schedule.interval;
        let interval_setting = setting!(raw, defaults, interval);
        if comparison > MAX_COMPARISON {
            self.errors.push(ConfigError {
                line: raw.name.as_ref().map(|n| line_of(self.text, n.span().start)),
                key: key("tests"),
                message: format!(
                    "one comparison ({} trials) takes about {}, more than the {} of a short comparison: fewer tests, sizes, repetitions or a shorter time",
                    target.trials(),
                    format_duration(comparison),
                    format_duration(MAX_COMPARISON)
                ),
            });
        } else if comparison > interval {
            self.error(
                interval_setting.as_ref(),
                &key("interval"),
                format!(
                    "unreachable interval: {} is shorter than one comparison of this target (about {}, {} trials)",
                    format_duration(interval),
                    format_duration(comparison),
                    target.trials()
                ),
            );
        }
        let per_hour = 3600.0 / interval.as_secs_f64();
        let limit = target.schedule.max_runs_per_hour;
        if per_hour > f64::from(limit) + 1e-9 {
            let limit_setting = setting!(raw, defaults, max_runs_per_hour);
            self.error(
                interval_setting.as_ref().or(None),
                &key("interval"),
                format!(
                    "unreachable interval: every {} is {per_hour:.0} comparisons an hour, but the target's rate limit (max_runs_per_hour{}) is {limit}",
                    format_duration(interval),
                    if limit_setting.is_some() { "" } else { ", default" }
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"
[[target]]
name = "loop"
v4 = "127.0.0.1"
v6 = "::1"
"#;

    fn errors(text: &str) -> String {
        Config::parse(text).unwrap_err().to_string()
    }

    #[test]
    fn a_minimal_file_gets_the_defaults() {
        let config = Config::parse(MINIMAL).unwrap();
        assert_eq!(config.listen, "127.0.0.1:9518".parse().unwrap());
        assert!(config.listen.ip().is_loopback());
        let target = &config.targets[0];
        assert_eq!(target.families, IpFamily::ALL);
        assert_eq!(target.baseline, IpFamily::V4);
        assert_eq!(target.schedule.interval, DEFAULT_INTERVAL);
        assert_eq!(target.measurement.tests, DEFAULT_TESTS);
        assert_eq!((target.points(), target.trials()), (3, 18));
        assert!(config.planned_duty_cycle() < 0.25);
    }

    #[test]
    fn defaults_apply_unless_a_target_says_otherwise() {
        let config = Config::parse(
            r#"
[defaults]
interval = "10m"
tests = ["tcp-rr"]
sizes = [64, 1024]
[[target]]
name = "a"
host = "a.example"
[[target]]
name = "b"
host = "b.example"
interval = 120
time = "500ms"
"#,
        )
        .unwrap();
        let [a, b] = &config.targets[..] else {
            panic!()
        };
        assert_eq!(a.schedule.interval, Duration::from_secs(600));
        assert_eq!(b.schedule.interval, Duration::from_secs(120));
        assert_eq!(b.measurement.tests, [TestKind::TcpRr]);
        assert_eq!(b.measurement.time, Duration::from_millis(500));
        assert_eq!(a.points(), 2);
    }

    #[test]
    fn an_unknown_key_is_an_error_on_its_line() {
        let text = format!("{MINIMAL}intervall = \"5m\"\n");
        let message = errors(&text);
        assert!(
            message.starts_with("line 6: unknown field `intervall`"),
            "{message}"
        );
        assert!(message.contains("`interval`"), "{message}");
        let top = errors("listen = \"127.0.0.1:1\"\nduty = 0.5\n");
        assert!(top.starts_with("line 2: unknown field `duty`"), "{top}");
    }

    #[test]
    fn a_bad_value_names_its_line_and_key() {
        let text = r#"
[[target]]
name = "lon-1"
host = "lon-1.example.net"
interval = "5 minutes"
"#;
        let message = errors(text);
        assert!(message.starts_with("line 5:"), "{message}");
        assert!(
            message.contains("`5 minutes` is not a duration"),
            "{message}"
        );
        let text = r#"
[[target]]
name = "lon-1"
host = "lon-1.example.net"
tests = ["tcp-pingpong"]
repeat = 0
"#;
        let message = errors(text);
        assert!(
            message.contains("line 5: target \"lon-1\": tests: unknown test `tcp-pingpong`"),
            "{message}"
        );
        assert!(
            message.contains("line 6: target \"lon-1\": repeat: 0 is outside 1 to 20"),
            "{message}"
        );
    }

    #[test]
    fn an_interval_shorter_than_a_comparison_is_unreachable() {
        let text = r#"
[[target]]
name = "a"
host = "a.example"
interval = "5s"
max_runs_per_hour = 3600
"#;
        let message = errors(text);
        assert!(
            message.starts_with("line 5: target \"a\": interval: unreachable interval: 5s is shorter than one comparison"),
            "{message}"
        );
    }

    #[test]
    fn an_interval_beyond_the_rate_limit_is_unreachable() {
        let text = r#"
[[target]]
name = "a"
host = "a.example"
tests = ["tcp-rr"]
interval = "30s"
"#;
        let message = errors(text);
        assert!(message.contains("120 comparisons an hour"), "{message}");
        assert!(
            message.contains("max_runs_per_hour, default) is 60"),
            "{message}"
        );
    }

    #[test]
    fn too_many_targets_for_the_duty_cycle_is_an_error_at_the_duty_cycle() {
        let mut text = String::from("duty_cycle = 0.1\n[defaults]\ninterval = \"1m\"\n");
        for index in 0..4 {
            text.push_str(&format!(
                "[[target]]\nname = \"t{index}\"\nhost = \"t{index}.example\"\n"
            ));
        }
        let message = errors(&text);
        assert!(
            message.starts_with(
                "line 1: duty_cycle: too many targets for the duty cycle: 4 targets need about"
            ),
            "{message}"
        );
        assert!(message.contains("t0 "), "{message}");
    }

    #[test]
    fn targets_need_unique_names_and_an_address_per_family() {
        let text = r#"
[[target]]
name = "a"
v4 = "192.0.2.7"
[[target]]
name = "a"
host = "a.example"
"#;
        let message = errors(text);
        assert!(message.contains("line 2: target \"a\": host: IPv6 is measured but the target has neither host nor v6"), "{message}");
        let only_v4 = "[[target]]\nname = \"a\"\nv4 = \"192.0.2.7\"\nfamilies = [\"v4\"]\n";
        let config = Config::parse(only_v4).unwrap();
        assert_eq!(config.targets[0].families, [IpFamily::V4]);
        let twice = errors(
            "[[target]]\nname = \"a\"\nhost = \"x\"\n[[target]]\nname = \"a\"\nhost = \"y\"\n",
        );
        assert!(
            twice.contains("line 5: target \"a\": name: another [[target]] has this name"),
            "{twice}"
        );
    }

    #[test]
    fn udp_stream_needs_a_bitrate_and_defaults_cannot_name_a_host() {
        let text = "[defaults]\nhost = \"x\"\n[[target]]\nname = \"a\"\nhost = \"a\"\ntests = [\"udp-stream\"]\n";
        let message = errors(text);
        assert!(
            message.contains("line 2: defaults.host: belongs to a [[target]]"),
            "{message}"
        );
        assert!(
            message.contains("udp-stream without a bitrate"),
            "{message}"
        );
    }

    #[test]
    fn durations_read_as_people_write_them() {
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_duration("20"), Ok(Duration::from_secs(20)));
        assert!(parse_duration("5 minutes").is_err());
        assert!(parse_duration("-1s").is_err());
        assert_eq!(format_duration(Duration::from_secs(300)), "5m");
        assert_eq!(format_duration(Duration::from_millis(12_400)), "12.4s");
        assert_eq!(format_duration(Duration::from_millis(250)), "250ms");
    }

    #[test]
    fn no_target_at_all_is_an_error() {
        assert!(errors("").contains("no [[target]]"));
    }
}

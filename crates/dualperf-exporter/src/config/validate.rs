//! Validation of the raw configuration: every key checked, every problem
//! collected with its line, before anything runs.

use super::role::{default_port, default_tests, Role};
use super::*;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawConfig {
    listen: Option<Spanned<String>>,
    duty_cycle: Option<Spanned<f64>>,
    defaults: Option<Spanned<RawTarget>>,
    #[serde(default, rename = "target")]
    targets: Vec<Spanned<RawTarget>>,
    #[serde(default, rename = "module")]
    modules: std::collections::BTreeMap<String, Spanned<RawTarget>>,
    probe_concurrency: Option<Spanned<u32>>,
}

#[derive(Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTarget {
    pub(super) name: Option<Spanned<String>>,
    pub(super) host: Option<Spanned<String>>,
    pub(super) v4: Option<Spanned<String>>,
    pub(super) v6: Option<Spanned<String>>,
    pub(super) port: Option<Spanned<u16>>,
    pub(super) families: Option<Spanned<Vec<String>>>,
    pub(super) baseline: Option<Spanned<String>>,
    pub(super) auth_key_file: Option<Spanned<String>>,
    pub(super) clocks_synchronised: Option<bool>,
    pub(super) interval: Option<Spanned<HumanDuration>>,
    pub(super) jitter: Option<Spanned<HumanDuration>>,
    pub(super) max_runs_per_hour: Option<Spanned<u32>>,
    pub(super) tests: Option<Spanned<Vec<String>>>,
    pub(super) sizes: Option<Spanned<Vec<i64>>>,
    pub(super) time: Option<Spanned<HumanDuration>>,
    pub(super) warmup: Option<Spanned<HumanDuration>>,
    pub(super) repeat: Option<Spanned<u32>>,
    pub(super) parallel: Option<Spanned<u32>>,
    pub(super) bitrate: Option<Spanned<String>>,
    pub(super) peer: Option<Spanned<String>>,
    pub(super) timeout: Option<Spanned<HumanDuration>>,
}

/// A target's setting: its own, else the `[defaults]` one.
macro_rules! setting {
    ($target:expr, $defaults:expr, $field:ident) => {
        $target.$field.clone().or_else(|| $defaults.$field.clone())
    };
}

pub(super) fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

pub(super) struct Validator<'a> {
    pub(super) text: &'a str,
    pub(super) errors: Vec<ConfigError>,
}

impl Validator<'_> {
    pub(super) fn error<T>(
        &mut self,
        at: Option<&Spanned<T>>,
        key: &str,
        message: impl Into<String>,
    ) {
        self.errors.push(ConfigError {
            line: at.map(|s| line_of(self.text, s.span().start)),
            key: key.to_string(),
            message: message.into(),
        });
    }

    pub(super) fn config(mut self, raw: RawConfig) -> Result<Config, ConfigErrors> {
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
        if raw.targets.is_empty() && raw.modules.is_empty() {
            self.errors.push(ConfigError {
                line: None,
                key: "target".into(),
                message: "no [[target]] and no [module.NAME]: name at least one host to compare, or a module for /probe".into(),
            });
        }
        let mut targets: Vec<Target> = Vec::new();
        for (index, raw_target) in raw.targets.iter().enumerate() {
            let line = line_of(self.text, raw_target.span().start);
            if let Some(target) =
                self.target(index, line, raw_target.get_ref(), &defaults, Role::Target)
            {
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
        let modules = self.modules(&raw.modules, &defaults);
        let probe_concurrency = self.probe_concurrency(raw.probe_concurrency.as_ref());
        let config = Config {
            listen,
            duty_cycle,
            targets,
            modules,
            probe_concurrency,
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

    /// Validates one `[[target]]`, or the settings of a `[module.NAME]`
    /// (`role`); `None` when it has errors (recorded).
    pub(super) fn target(
        &mut self,
        index: usize,
        line: usize,
        raw: &RawTarget,
        defaults: &RawTarget,
        role: Role,
    ) -> Option<Target> {
        let before = self.errors.len();
        let name = match (&role, &raw.name) {
            (Role::Module(name), _) => name.clone(),
            (Role::Target, Some(name)) => {
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
            (Role::Target, None) => {
                self.errors.push(ConfigError {
                    line: Some(line),
                    key: format!("target #{}", index + 1),
                    message: "has no name (the `target` label)".into(),
                });
                format!("#{}", index + 1)
            }
        };
        let key = |field: &str| role.key(&name, field);
        self.role_keys(raw, &role, &key);

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
            if !has && host.is_none() && role == Role::Target {
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

        let peer = self.peer(raw, defaults, &key);
        let port = setting!(raw, defaults, port);
        let port = match &port {
            Some(p) if *p.get_ref() == 0 => {
                self.error(Some(p), &key("port"), "0 is not a port");
                0
            }
            Some(p) => *p.get_ref(),
            None => default_port(peer),
        };

        let schedule = self.schedule(raw, defaults, &key);
        let measurement = self.measurement(raw, defaults, &key, peer);
        self.peer_tests(raw, defaults, &key, peer, &measurement);
        if self.errors.len() > before {
            return None;
        }
        let target = Target {
            peer,
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
        if role == Role::Target {
            self.reachable(&target, raw, defaults);
        }
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
        peer: PeerKind,
    ) -> Measurement {
        let mut tests = Vec::new();
        match setting!(raw, defaults, tests) {
            None => tests.extend(default_tests(peer)),
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

//! The peer a target or module measures against (`peer = "iperf3"`), and
//! the `[module.NAME]` tables of the `/probe` endpoint: a module is a
//! target without a host (the scraper names the host in `?target=`), with a
//! `timeout` instead of a schedule.
//!
//! ```toml
//! probe_concurrency = 1        # probes measured at once; more get 503
//!
//! [module.iperf3_tcp]
//! peer = "iperf3"              # dualperf (default) | iperf3 | stamp
//! tests = ["tcp-stream"]       # an iperf3 server runs tcp-stream and udp-stream
//! time = "2s"
//! repeat = 1
//! timeout = "30s"              # the probe gives up after this
//! ```

pub(super) use super::role::Role;
use super::validate::{RawTarget, Validator};
use super::*;
use dualperf_model::PeerKind;

/// Default `timeout` of a module: a probe answers within this.
pub const DEFAULT_PROBE_TIMEOUT: Duration = Duration::from_secs(60);
/// Longest `timeout` of a module.
pub const MAX_PROBE_TIMEOUT: Duration = Duration::from_secs(300);
/// Default `probe_concurrency`: one probe measures at a time (two
/// measurements at once would share the path and disturb each other).
pub const DEFAULT_PROBE_CONCURRENCY: usize = 1;
/// Largest `probe_concurrency`.
pub const MAX_PROBE_CONCURRENCY: u32 = 16;

/// A `[module.NAME]`: how `/probe?module=NAME` measures the target it is given.
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    /// The module's name (the `module` label).
    pub name: String,
    /// The measurement, as a target without host or addresses (its
    /// `schedule` is unused); its `name` is the module's.
    pub target: Target,
    /// The probe gives up (and says so) after this.
    pub timeout: Duration,
}

/// The tests a peer can run; `None`: every test.
fn peer_can_run(peer: PeerKind) -> Option<&'static [TestKind]> {
    match peer {
        PeerKind::Dualperf => None,
        PeerKind::Iperf3 => Some(&[TestKind::TcpStream, TestKind::UdpStream]),
        // Hook for the STAMP client: the tests a STAMP reflector serves.
        PeerKind::Stamp => Some(&[TestKind::UdpProbe]),
    }
}

impl Validator<'_> {
    /// `peer`: dualperf, iperf3 or stamp.
    pub(super) fn peer(
        &mut self,
        raw: &RawTarget,
        defaults: &RawTarget,
        key: &dyn Fn(&str) -> String,
    ) -> PeerKind {
        let setting = raw.peer.clone().or_else(|| defaults.peer.clone());
        let Some(word) = setting else {
            return PeerKind::Dualperf;
        };
        match [PeerKind::Dualperf, PeerKind::Iperf3, PeerKind::Stamp]
            .into_iter()
            .find(|peer| peer.name() == word.get_ref())
        {
            Some(peer) => peer,
            None => {
                self.error(
                    Some(&word),
                    &key("peer"),
                    format!(
                        "`{}` is not a peer: use \"dualperf\", \"iperf3\" or \"stamp\"",
                        word.get_ref()
                    ),
                );
                PeerKind::Dualperf
            }
        }
    }

    /// Every test is one `peer` can run.
    pub(super) fn peer_tests(
        &mut self,
        raw: &RawTarget,
        defaults: &RawTarget,
        key: &dyn Fn(&str) -> String,
        peer: PeerKind,
        measurement: &Measurement,
    ) {
        let Some(allowed) = peer_can_run(peer) else {
            return;
        };
        let setting = raw.tests.clone().or_else(|| defaults.tests.clone());
        for kind in &measurement.tests {
            if !allowed.contains(kind) {
                let runs: Vec<&str> = allowed.iter().map(|k| k.name()).collect();
                self.error(
                    setting.as_ref(),
                    &key("tests"),
                    format!(
                        "{kind} needs a dualperf peer: {peer} peers run {}",
                        runs.join(" and ")
                    ),
                );
            }
        }
    }

    /// Keys that belong to the other role.
    pub(super) fn role_keys(&mut self, raw: &RawTarget, role: &Role, key: &dyn Fn(&str) -> String) {
        match role {
            Role::Target => {
                if raw.timeout.is_some() {
                    self.error(
                        raw.timeout.as_ref(),
                        &key("timeout"),
                        "belongs to a [module.NAME] (a target keeps its schedule)",
                    );
                }
            }
            Role::Module(_) => {
                for (field, value) in [
                    ("name", &raw.name),
                    ("host", &raw.host),
                    ("v4", &raw.v4),
                    ("v6", &raw.v6),
                ] {
                    if value.is_some() {
                        self.error(
                            value.as_ref(),
                            &key(field),
                            "a module has no host: /probe?target=… names it",
                        );
                    }
                }
            }
        }
    }

    /// The `[module.NAME]` tables.
    pub(super) fn modules(
        &mut self,
        raw: &std::collections::BTreeMap<String, Spanned<RawTarget>>,
        defaults: &RawTarget,
    ) -> Vec<Module> {
        let mut modules = Vec::new();
        for (index, (name, table)) in raw.iter().enumerate() {
            let line = line_of_span(self.text, table.span().start);
            let valid = !name.is_empty()
                && name.len() <= 64
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c));
            if !valid {
                self.errors.push(ConfigError {
                    line: Some(line),
                    key: format!("module \"{name}\""),
                    message: "use 1 to 64 letters, digits, `.`, `_` or `-` in a module's name"
                        .into(),
                });
                continue;
            }
            let table = table.get_ref();
            let role = Role::Module(name.clone());
            let Some(target) = self.target(index, line, table, defaults, role) else {
                continue;
            };
            let timeout = table
                .timeout
                .as_ref()
                .map_or(DEFAULT_PROBE_TIMEOUT, |t| t.get_ref().0);
            let key = format!("module \"{name}\": timeout");
            if timeout.is_zero() || timeout > MAX_PROBE_TIMEOUT {
                self.error(
                    table.timeout.as_ref(),
                    &key,
                    format!(
                        "{} is outside 1ms to {}",
                        format_duration(timeout),
                        format_duration(MAX_PROBE_TIMEOUT)
                    ),
                );
            } else if target.estimated_comparison() > timeout {
                self.error(
                    table.timeout.as_ref(),
                    &key,
                    format!(
                        "one probe ({} trials) takes about {}, longer than the timeout {}: fewer tests, repetitions or a shorter time, or a longer timeout (below Prometheus' scrape_timeout)",
                        target.trials(),
                        format_duration(target.estimated_comparison()),
                        format_duration(timeout)
                    ),
                );
            }
            modules.push(Module {
                name: name.clone(),
                target,
                timeout,
            });
        }
        modules
    }

    /// `probe_concurrency`: 1 to [`MAX_PROBE_CONCURRENCY`].
    pub(super) fn probe_concurrency(&mut self, setting: Option<&Spanned<u32>>) -> usize {
        match setting {
            None => DEFAULT_PROBE_CONCURRENCY,
            Some(value) if (1..=MAX_PROBE_CONCURRENCY).contains(value.get_ref()) => {
                *value.get_ref() as usize
            }
            Some(value) => {
                self.error(
                    Some(value),
                    "probe_concurrency",
                    format!(
                        "{} is outside 1 to {MAX_PROBE_CONCURRENCY}",
                        value.get_ref()
                    ),
                );
                DEFAULT_PROBE_CONCURRENCY
            }
        }
    }
}

fn line_of_span(text: &str, offset: usize) -> usize {
    super::validate::line_of(text, offset)
}

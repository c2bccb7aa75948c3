//! `/probe?target=HOST&module=NAME`, in the style of Prometheus'
//! blackbox_exporter: the scraper names what is measured (Prometheus'
//! service discovery and relabelling decide the targets), the exporter
//! compares IPv4 and IPv6 against it now, with the settings of a
//! configured module, and answers with that comparison's samples.
//!
//! - Every measurement sample carries the `family` label (and the arm);
//!   `dualperf_headline_ratio` is the IPv6/IPv4 ratio of the headline
//!   metric; `dualperf_probe_success{family=…}` says whether every trial of
//!   the family succeeded; `dualperf_probe_duration_seconds` how long the
//!   probe took.
//! - At most `probe_concurrency` probes measure at once; another request
//!   is answered `503` at once (measurements running together would share
//!   the path and disturb each other).
//! - A probe that outlives its module's `timeout` is answered with
//!   `dualperf_probe_success 0` for every family; the comparison is told
//!   to stop after its current trial and keeps its slot until it has.
//! - Bad input (no target, an unknown module, a target that is not a host
//!   or address) is a `400` with the reason.
//!
//! How a comparison runs is the caller's ([`ProbeRun`]): this module is
//! free of the engine and of DNS.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Instant;

use dualperf_model::{IpFamily, RunResult, TrialOutcome};

use crate::config::Module;
use crate::openmetrics::{encode, Family, Format, Part, Sample};
use crate::snapshot::{total_samples, RunSnapshot};

/// Runs one comparison of `target` with `module`'s settings; the flag is
/// raised when the probe gave up (stop after the current trial).
pub type ProbeRun =
    Arc<dyn Fn(&Module, &ProbeTarget, Arc<AtomicBool>) -> Result<RunResult, String> + Send + Sync>;

/// Longest `target` accepted, characters (a DNS name is at most 253).
const MAX_TARGET_CHARS: usize = 260;

/// The host (and optional port) a probe names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProbeTarget {
    /// A DNS name or an IP address (IPv6 without brackets).
    pub host: String,
    /// The port, when the target names one (else the module's).
    pub port: Option<u16>,
}

impl ProbeTarget {
    /// Parses `host`, `host:port`, `192.0.2.7[:port]`, `2001:db8::7` or
    /// `[2001:db8::7]:port`.
    ///
    /// # Errors
    /// A message saying what is wrong.
    pub fn parse(text: &str) -> Result<ProbeTarget, String> {
        let text = text.trim();
        if text.is_empty() {
            return Err("target is empty".into());
        }
        if text.len() > MAX_TARGET_CHARS {
            return Err(format!(
                "target is longer than {MAX_TARGET_CHARS} characters"
            ));
        }
        let bad_port = |port: &str| format!("`{port}` in `{text}` is not a port (1 to 65535)");
        let parse_port = |port: &str| -> Result<u16, String> {
            port.parse::<u16>()
                .ok()
                .filter(|&p| p != 0)
                .ok_or_else(|| bad_port(port))
        };
        let (host, port) = if let Some(rest) = text.strip_prefix('[') {
            let (address, after) = rest
                .split_once(']')
                .ok_or_else(|| format!("`{text}`: `[` without `]`"))?;
            let port = match after.strip_prefix(':') {
                Some(port) => Some(parse_port(port)?),
                None if after.is_empty() => None,
                None => return Err(format!("`{text}`: expected `:port` after `]`")),
            };
            (address.to_string(), port)
        } else if text.parse::<std::net::Ipv6Addr>().is_ok() {
            (text.to_string(), None)
        } else {
            match text.rsplit_once(':') {
                Some((host, port)) => (host.to_string(), Some(parse_port(port)?)),
                None => (text.to_string(), None),
            }
        };
        let is_address = host.parse::<std::net::IpAddr>().is_ok();
        let is_name = !host.is_empty()
            && host.split('.').all(|label| {
                !label.is_empty()
                    && label.len() <= 63
                    && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                    && !label.starts_with('-')
            });
        if !is_address && !is_name {
            return Err(format!("`{host}` is neither an IP address nor a host name"));
        }
        Ok(ProbeTarget { host, port })
    }
}

/// A probe's answer: HTTP status, content type, body.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbeAnswer {
    /// Status line text, e.g. `200 OK`.
    pub status: &'static str,
    /// `Content-Type`.
    pub content_type: &'static str,
    /// The body.
    pub body: String,
}

impl ProbeAnswer {
    fn text(status: &'static str, message: String) -> ProbeAnswer {
        ProbeAnswer {
            status,
            content_type: "text/plain; charset=utf-8",
            body: message + "\n",
        }
    }
}

/// The `/probe` endpoint: the modules, the bound on concurrent probes and
/// the function that measures.
pub struct Prober {
    modules: Vec<Module>,
    limit: usize,
    running: Arc<AtomicUsize>,
    run: ProbeRun,
}

impl std::fmt::Debug for Prober {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prober")
            .field("modules", &self.modules.len())
            .field("limit", &self.limit)
            .finish_non_exhaustive()
    }
}

/// Holds one of the concurrent-probe slots; gives it back when dropped.
struct Slot(Arc<AtomicUsize>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// `key=value&…` with `%XX` and `+` decoded; the first value of `key`.
pub fn query_value(query: &str, key: &str) -> Option<String> {
    query.split('&').find_map(|pair| {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        (decode(name)? == key).then(|| decode(value)).flatten()
    })
}

/// Percent-decoding (RFC 3986 §2.1) with `+` as space; `None` when malformed.
fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        match bytes[index] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = std::str::from_utf8(bytes.get(index + 1..index + 3)?).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                index += 2;
            }
            byte => out.push(byte),
        }
        index += 1;
    }
    String::from_utf8(out).ok()
}

impl Prober {
    /// A prober for `modules`, measuring at most `limit` probes at once with `run`.
    pub fn new(modules: Vec<Module>, limit: usize, run: ProbeRun) -> Prober {
        Prober {
            modules,
            limit: limit.max(1),
            running: Arc::new(AtomicUsize::new(0)),
            run,
        }
    }

    /// Answers `/probe?QUERY` in `format`. Blocks while the probe measures
    /// (at most the module's timeout).
    pub fn answer(&self, query: &str, format: Format) -> ProbeAnswer {
        let Some(target) = query_value(query, "target") else {
            return ProbeAnswer::text("400 Bad Request", "target parameter is missing".into());
        };
        let target = match ProbeTarget::parse(&target) {
            Ok(target) => target,
            Err(error) => return ProbeAnswer::text("400 Bad Request", error),
        };
        let names: Vec<&str> = self.modules.iter().map(|m| m.name.as_str()).collect();
        let module = match query_value(query, "module") {
            None => {
                return ProbeAnswer::text(
                    "400 Bad Request",
                    format!("module parameter is missing; modules: {}", names.join(", ")),
                )
            }
            Some(name) => match self.modules.iter().find(|m| m.name == name) {
                Some(module) => module.clone(),
                None => {
                    return ProbeAnswer::text(
                        "400 Bad Request",
                        format!("unknown module `{name}`; modules: {}", names.join(", ")),
                    )
                }
            },
        };
        if self.running.fetch_add(1, Ordering::SeqCst) >= self.limit {
            self.running.fetch_sub(1, Ordering::SeqCst);
            return ProbeAnswer::text(
                "503 Service Unavailable",
                format!(
                    "{} probes are measuring already (probe_concurrency = {}); try again later",
                    self.limit, self.limit
                ),
            );
        }
        let slot = Slot(self.running.clone());
        let started = Instant::now();
        let stop = Arc::new(AtomicBool::new(false));
        let (sender, receiver) = mpsc::channel();
        let (run, flag, worker_module, worker_target) = (
            self.run.clone(),
            stop.clone(),
            module.clone(),
            target.clone(),
        );
        let spawned = std::thread::Builder::new()
            .name("probe".into())
            .spawn(move || {
                let _slot = slot; // released when the comparison has really ended
                let _ = sender.send(run(&worker_module, &worker_target, flag));
            });
        if let Err(error) = spawned {
            return ProbeAnswer::text(
                "500 Internal Server Error",
                format!("cannot start the probe: {error}"),
            );
        }
        let outcome = match receiver.recv_timeout(module.timeout) {
            Ok(outcome) => outcome,
            Err(_) => {
                stop.store(true, Ordering::SeqCst);
                Err(format!(
                    "timed out after {} (module timeout)",
                    crate::config::format_duration(module.timeout)
                ))
            }
        };
        let body = render_probe(
            &module,
            &target.host,
            outcome.as_ref().ok(),
            started.elapsed().as_secs_f64(),
            format,
        );
        let body = match (&outcome, format) {
            // The reason, as a comment before the samples (the 0.0.4 text
            // allows free comments; OpenMetrics does not).
            (Err(error), Format::PrometheusText) => {
                format!("# probe failed: {}\n{body}", error.replace('\n', " "))
            }
            _ => body,
        };
        ProbeAnswer {
            status: "200 OK",
            content_type: format.content_type(),
            body,
        }
    }
}

/// The samples of one probe: the comparison's (series labelled with target,
/// arm, family, test, size; the headline ratio per compared arm), success
/// per family and the duration. `None`: nothing measured (success 0).
pub fn render_probe(
    module: &Module,
    target: &str,
    result: Option<&RunResult>,
    duration_seconds: f64,
    format: Format,
) -> String {
    let mut samples: Vec<Sample> = Vec::new();
    if let Some(result) = result {
        let snapshot = RunSnapshot::of_run(target, result);
        samples.extend(snapshot.samples.iter().cloned());
        for total in &snapshot.totals {
            samples.extend(total_samples(
                total.family,
                &total.labels,
                total.count,
                total.sum_seconds,
            ));
        }
    }
    for &family in &module.target.families {
        let success = result.is_some_and(|result| family_succeeded(result, family));
        samples.push(Sample {
            family: Family::ProbeSuccess,
            labels: vec![
                ("target", target.to_string()),
                ("module", module.name.clone()),
                ("family", family.key().to_string()),
            ],
            part: Part::Value,
            value: f64::from(u8::from(success)),
        });
    }
    samples.push(Sample {
        family: Family::ProbeDuration,
        labels: vec![
            ("target", target.to_string()),
            ("module", module.name.clone()),
        ],
        part: Part::Value,
        value: duration_seconds,
    });
    encode(&samples, format)
}

/// Every planned trial of `family` ran and succeeded.
fn family_succeeded(result: &RunResult, family: IpFamily) -> bool {
    let arms = result
        .config
        .arms
        .iter()
        .filter(|a| a.family == family)
        .count();
    let planned = result.config.points.len() * arms * result.config.repeat as usize;
    let trials: Vec<_> = result
        .trials
        .iter()
        .filter(|t| t.family == family)
        .collect();
    planned > 0
        && trials.len() == planned
        && trials
            .iter()
            .all(|t| matches!(t.outcome, TrialOutcome::Ok(_)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use std::time::Duration;

    fn config() -> Config {
        Config::parse(
            r#"
[module.tcp]
peer = "iperf3"
time = "100ms"
warmup = "0s"
repeat = 1
timeout = "2s"
"#,
        )
        .unwrap()
    }

    #[test]
    fn targets_parse_as_hosts_addresses_and_ports() {
        let parse = |t: &str| ProbeTarget::parse(t);
        assert_eq!(
            parse("[2001:db8::7]:5201").unwrap(),
            ProbeTarget {
                host: "2001:db8::7".into(),
                port: Some(5201)
            }
        );
        assert_eq!(parse("2001:db8::7").unwrap().port, None);
        assert_eq!(parse("192.0.2.7:80").unwrap().port, Some(80));
        assert_eq!(
            parse("iperf.example.net").unwrap().host,
            "iperf.example.net"
        );
        for bad in [
            "",
            "a b",
            "host:0",
            "host:99999",
            "[::1",
            "[::1]x",
            "-x.example",
            "a..b",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        assert!(parse(&"a".repeat(300)).is_err());
    }

    #[test]
    fn queries_are_percent_decoded() {
        assert_eq!(
            query_value("module=tcp&target=%5B%3A%3A1%5D%3A5201", "target").as_deref(),
            Some("[::1]:5201")
        );
        assert_eq!(query_value("a=1+2", "a").as_deref(), Some("1 2"));
        assert_eq!(query_value("a=%zz", "a"), None);
        assert_eq!(query_value("b=1", "a"), None);
    }

    #[test]
    fn bad_requests_say_why_and_measure_nothing() {
        let calls = Arc::new(AtomicUsize::new(0));
        let counter = calls.clone();
        let prober = Prober::new(
            config().modules,
            1,
            Arc::new(move |_, _, _| {
                counter.fetch_add(1, Ordering::SeqCst);
                Err("no network in unit tests".into())
            }),
        );
        let answer = prober.answer("module=tcp", Format::PrometheusText);
        assert_eq!(answer.status, "400 Bad Request");
        let answer = prober.answer("target=x&module=nope", Format::PrometheusText);
        assert!(
            answer.body.contains("unknown module `nope`; modules: tcp"),
            "{answer:?}"
        );
        let answer = prober.answer("target=a%20b&module=tcp", Format::PrometheusText);
        assert_eq!(answer.status, "400 Bad Request");
        assert_eq!(calls.load(Ordering::SeqCst), 0);
        // A probe whose comparison fails answers 200 with success 0 per family.
        let answer = prober.answer("target=::1&module=tcp", Format::PrometheusText);
        assert_eq!(answer.status, "200 OK");
        assert!(
            answer.body.starts_with("# probe failed: no network"),
            "{}",
            answer.body
        );
        assert!(answer
            .body
            .contains(r#"dualperf_probe_success{target="::1",module="tcp",family="v6"} 0"#));
        assert!(answer.body.contains(r#"family="v4"} 0"#));
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn concurrency_is_bounded_and_a_slow_probe_times_out() {
        let release = Arc::new(AtomicBool::new(false));
        let hold = release.clone();
        let prober = Arc::new(Prober::new(
            config().modules,
            1,
            Arc::new(move |_, _, stop: Arc<AtomicBool>| {
                // Measures until told to stop (as a stopped comparison does
                // after its trial) or released by the test.
                while !stop.load(Ordering::SeqCst) && !hold.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(10));
                }
                Err("stopped".into())
            }),
        ));
        let first = {
            let prober = prober.clone();
            std::thread::spawn(move || prober.answer("target=::1&module=tcp", Format::OpenMetrics))
        };
        std::thread::sleep(Duration::from_millis(200));
        let busy = prober.answer("target=127.0.0.1&module=tcp", Format::OpenMetrics);
        assert_eq!(busy.status, "503 Service Unavailable");
        let first = first.join().unwrap();
        assert!(first.body.contains(r#"family="v6"} 0"#), "{}", first.body);
        assert!(first.body.ends_with("# EOF\n"));
        assert!(
            !first.body.contains("probe failed"),
            "no free comments in OpenMetrics"
        );
        release.store(true, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(100));
        // The slot is free again once the timed-out comparison has ended.
        let again = prober.answer("target=127.0.0.1&module=tcp", Format::OpenMetrics);
        assert_eq!(again.status, "200 OK");
    }
}

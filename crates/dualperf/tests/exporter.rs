//! `dualperf exporter` and `dualperf run --openmetrics` end to end, on
//! loopback only: configuration errors, SIGTERM in the middle of a
//! comparison, the textfile, and a real Prometheus (Debian's `prometheus`
//! package) scraping the exporter and answering queries — the dashboard's
//! included.
//!
//! Tests that need `prometheus` or `promtool` skip when it is missing,
//! unless `DUALPERF_REQUIRE_PRIVILEGED` is set (CI as root): then they
//! fail. Every process a test starts is killed when the test ends, passed
//! or failed, and its temporary folder removed.
//!
//! With `DUALPERF_UPDATE_SCREENSHOT=1` the Prometheus test keeps measuring
//! for a few minutes and saves Prometheus's graph page, rendered by
//! headless Chromium, as `docs/prometheus-graph.png`.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use dualperf_exporter::http::get;

#[path = "common/ports.rs"]
mod ports;

/// A temporary folder, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let path = std::env::temp_dir().join(format!("dpe-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A child process whose standard error is collected; killed on drop.
struct Process {
    name: &'static str,
    child: Child,
    log: Arc<Mutex<String>>,
}

impl Process {
    fn start(name: &'static str, command: &mut Command) -> Process {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("starting {name}: {e}"));
        let log = Arc::new(Mutex::new(String::new()));
        let sink = log.clone();
        let stderr = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let mut log = sink.lock().unwrap();
                log.push_str(&line);
                log.push('\n');
            }
        });
        Process { name, child, log }
    }

    fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// Waits for a line of standard error containing `needle`; returns it.
    fn wait_for_line(&mut self, needle: &str, timeout: Duration) -> String {
        let started = Instant::now();
        loop {
            if let Some(line) = self.log().lines().find(|l| l.contains(needle)) {
                return line.to_string();
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "{} exited ({status}) before saying `{needle}`:\n{}",
                    self.name,
                    self.log()
                );
            }
            assert!(
                started.elapsed() < timeout,
                "{} did not say `{needle}` within {timeout:?}:\n{}",
                self.name,
                self.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits for the process to exit.
    fn wait(&mut self, timeout: Duration) -> ExitStatus {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                // Let the reader thread take the last lines.
                std::thread::sleep(Duration::from_millis(100));
                return status;
            }
            assert!(
                started.elapsed() < timeout,
                "{} still running after {timeout:?}:\n{}",
                self.name,
                self.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        if std::thread::panicking() {
            eprintln!("--- {} ---\n{}", self.name, self.log());
        }
    }
}

fn dualperf() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_dualperf"));
    command.env(
        "DUALPERF_DB",
        std::env::temp_dir().join(format!("dpe-db-{}.sqlite", std::process::id())),
    );
    command
}

/// `dualperf serve` on a free port (all addresses; the tests send only to
/// 127.0.0.1 and ::1), and its port.
fn serve() -> (Process, u16) {
    let mut server = Process::start("dualperf serve", dualperf().args(["serve", "-p", "0"]));
    let line = server.wait_for_line("control port", Duration::from_secs(10));
    let port = line
        .rsplit("control port ")
        .next()
        .and_then(|rest| rest.trim_end_matches(')').parse().ok())
        .unwrap_or_else(|| panic!("no port in `{line}`"));
    (server, port)
}

/// A loopback target: both families against the server on `port`.
fn exporter_config(port: u16, interval: &str) -> String {
    format!(
        r#"duty_cycle = 1.0

[defaults]
tests = ["tcp-stream", "udp-rr", "udp-probe"]
time = "100ms"
warmup = "0s"
repeat = 2
interval = "{interval}"
jitter = "0s"
max_runs_per_hour = 3600

[[target]]
name = "loopback"
v4 = "127.0.0.1"
v6 = "::1"
port = {port}
"#
    )
}

/// Starts `dualperf exporter` on a free loopback port; returns it and its address.
fn exporter(config: &Path) -> (Process, SocketAddr) {
    let mut exporter = Process::start(
        "dualperf exporter",
        dualperf()
            .args(["exporter", "--listen", "127.0.0.1:0", "--config"])
            .arg(config),
    );
    let line = exporter.wait_for_line("serving http://", Duration::from_secs(10));
    let address = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("no address in `{line}`"));
    (exporter, address)
}

/// Whether `program` runs here; panics when it is required but missing.
fn available(program: &str, package: &str) -> bool {
    let found = Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        assert!(
            std::env::var_os("DUALPERF_REQUIRE_PRIVILEGED").is_none(),
            "{program} is missing (apt-get install {package}); it is required in CI"
        );
        eprintln!("skipped: {program} not installed (apt-get install {package})");
    }
    found
}

#[test]
fn a_bad_configuration_is_refused_before_anything_runs() {
    let directory = TempDir::new("exporter-bad");
    let config = directory.0.join("exporter.toml");
    std::fs::write(
        &config,
        "[[target]]\nname = \"a\"\nhost = \"a.example\"\nintervall = \"5m\"\n",
    )
    .unwrap();
    let output = dualperf()
        .args(["exporter", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{}:4: unknown field `intervall`",
            config.display()
        )),
        "{stderr}"
    );

    std::fs::write(
        &config,
        "[[target]]\nname = \"a\"\nv4 = \"127.0.0.1\"\nv6 = \"::1\"\ninterval = \"5s\"\nmax_runs_per_hour = 3600\n",
    )
    .unwrap();
    let output = dualperf()
        .args(["exporter", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            ":5: target \"a\": interval: unreachable interval: 5s is shorter than one comparison"
        ),
        "{stderr}"
    );
}

#[test]
fn check_prints_the_schedule_without_measuring() {
    let directory = TempDir::new("exporter-check");
    let config = directory.0.join("exporter.toml");
    std::fs::write(&config, exporter_config(9, "10s")).unwrap();
    let output = dualperf()
        .args(["exporter", "--check", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(
        stdout.contains("loopback") && stdout.contains("12"),
        "{stdout}"
    );
    assert!(stdout.contains("duty_cycle caps it at 100 %"), "{stdout}");
}

#[test]
fn sigterm_stops_the_exporter_in_the_middle_of_a_comparison() {
    let directory = TempDir::new("exporter-sigterm");
    let (_server, port) = serve();
    let config = directory.0.join("exporter.toml");
    // A comparison of 12 trials takes seconds; the first starts at once.
    std::fs::write(&config, exporter_config(port, "10s")).unwrap();
    let (mut exporter, address) = exporter(&config);
    std::thread::sleep(Duration::from_millis(800));
    let started = Instant::now();
    // SAFETY: kill(2) on the pid of a child this test started and still owns.
    let sent = unsafe { libc::kill(exporter.child.id() as libc::pid_t, libc::SIGTERM) };
    assert_eq!(sent, 0);
    let status = exporter.wait(Duration::from_secs(15));
    let log = exporter.log();
    assert!(status.success(), "{status}\n{log}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "took {:?}",
        started.elapsed()
    );
    assert!(
        log.contains("loopback: interrupted; this comparison is not recorded"),
        "{log}"
    );
    assert!(log.contains("stopped after 0 comparisons"), "{log}");
    assert!(
        get(address, "/metrics", None).is_err(),
        "/metrics is closed after a stop"
    );
}

#[test]
fn run_openmetrics_writes_a_textfile_for_node_exporter() {
    let directory = TempDir::new("run-openmetrics");
    let file = directory.0.join("dualperf.prom");
    let output = dualperf()
        .args([
            "run",
            "--loopback",
            "--tests",
            "udp-rr,udp-probe",
            "-t",
            "0.2",
            "--warmup",
            "0",
            "--repeat",
            "2",
            "--no-store",
            "--openmetrics",
        ])
        .arg(&file)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.ends_with("# EOF\n"), "{text}");
    for family in ["v4", "v6"] {
        assert!(
            text.contains(&format!(
                "dualperf_rtt_seconds{{target=\"127.0.0.1,::1\",arm=\"{family}\",family=\"{family}\",test=\"udp-rr\",size_bytes=\"64\",quantile=\"0.5\"}} "
            )),
            "{text}"
        );
    }
    assert!(text.contains("dualperf_last_run_success{target=\"127.0.0.1,::1\"} 1\n"));
    let names: Vec<_> = std::fs::read_dir(&directory.0)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "no temporary file left: {names:?}");
    if available("promtool", "prometheus") {
        let (ok, said) = dualperf_fixtures::promtool::promtool_check("promtool", &text);
        assert!(ok && said.trim().is_empty(), "{said}\n{text}");
    }
}

/// Percent-encodes a query parameter.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Prometheus's HTTP API: GET `path` and the `data` of a successful answer.
fn api(prometheus: SocketAddr, path: &str) -> serde_json::Value {
    let (status, _, body) = get(prometheus, path, None).unwrap();
    let value: serde_json::Value =
        serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: {status}: {e}: {body}"));
    assert_eq!(value["status"], "success", "{path}: {body}");
    value["data"].clone()
}

/// An instant query: (labels, value) per series.
fn query(prometheus: SocketAddr, expr: &str) -> Vec<(serde_json::Value, f64)> {
    let data = api(prometheus, &format!("/api/v1/query?query={}", encode(expr)));
    data["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|series| {
            let value = series["value"][1].as_str().unwrap().parse().unwrap();
            (series["metric"].clone(), value)
        })
        .collect()
}

/// Asserts that `expr` has a series for both families, each value in `range`.
fn both_families(prometheus: SocketAddr, expr: &str, range: std::ops::RangeInclusive<f64>) {
    let series = query(prometheus, expr);
    for family in ["v4", "v6"] {
        let values: Vec<f64> = series
            .iter()
            .filter(|(labels, _)| labels["family"] == family && labels["target"] == "loopback")
            .map(|(_, v)| *v)
            .collect();
        assert!(
            !values.is_empty(),
            "{expr}: no {family} series in {series:?}"
        );
        for value in values {
            assert!(
                range.contains(&value),
                "{expr} {family}: {value} outside {range:?}"
            );
        }
    }
}

/// Polls `check` every half second until it is true or `timeout` passes.
fn eventually(
    what: &str,
    timeout: Duration,
    mut check: impl FnMut() -> bool,
    log: &dyn Fn() -> String,
) {
    let started = Instant::now();
    while !check() {
        assert!(
            started.elapsed() < timeout,
            "{what}: not within {timeout:?}\n{}",
            log()
        );
        std::thread::sleep(Duration::from_millis(500));
    }
}

#[test]
fn prometheus_scrapes_the_exporter_and_answers_for_both_families() {
    if !available("prometheus", "prometheus") || !available("promtool", "prometheus") {
        return;
    }
    let screenshot = std::env::var_os("DUALPERF_UPDATE_SCREENSHOT").is_some();
    let directory = TempDir::new("exporter-prometheus");
    let (_server, port) = serve();
    let config = directory.0.join("exporter.toml");
    std::fs::write(
        &config,
        exporter_config(port, if screenshot { "10s" } else { "5s" }),
    )
    .unwrap();
    let (exporter, metrics) = exporter(&config);

    let prometheus_address: SocketAddr = ([127, 0, 0, 1], ports::free_tcp_port()).into();
    let scrape = directory.0.join("prometheus.yml");
    std::fs::write(
        &scrape,
        format!(
            "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: dualperf\n    static_configs:\n      - targets: [\"{metrics}\"]\n"
        ),
    )
    .unwrap();
    let prometheus = Process::start(
        "prometheus",
        Command::new("prometheus")
            .arg(format!("--config.file={}", scrape.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                directory.0.join("data").display()
            ))
            .arg(format!("--web.listen-address={prometheus_address}"))
            .arg("--log.level=warn"),
    );
    let logs = || {
        format!(
            "--- exporter ---\n{}\n--- prometheus ---\n{}",
            exporter.log(),
            prometheus.log()
        )
    };
    eventually(
        "Prometheus ready",
        Duration::from_secs(60),
        || {
            get(prometheus_address, "/-/ready", None)
                .is_ok_and(|(status, _, _)| status.contains("200"))
        },
        &logs,
    );
    // Two scrapes that carry a finished comparison.
    eventually(
        "two scrapes with data",
        Duration::from_secs(90),
        || {
            query(
                prometheus_address,
                "count_over_time(dualperf_last_run_success{job=\"dualperf\"}[5m])",
            )
            .first()
            .is_some_and(|(_, count)| *count >= 2.0)
        },
        &logs,
    );

    let targets = api(prometheus_address, "/api/v1/targets");
    let active = &targets["activeTargets"][0];
    assert_eq!(active["health"], "up", "{targets}");
    assert_eq!(active["lastError"], "", "{targets}");
    // Prometheus negotiated OpenMetrics: only that format carries units and info.
    let metadata = api(
        prometheus_address,
        "/api/v1/targets/metadata?match_target=%7Bjob%3D%22dualperf%22%7D",
    );
    let metadata_of = |name: &str| {
        metadata
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["metric"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no metadata for {name}: {metadata}"))
    };
    assert_eq!(
        metadata_of("dualperf_goodput_bytes_per_second")["unit"],
        "bytes_per_second"
    );
    assert_eq!(metadata_of("dualperf_rtt_seconds")["type"], "summary");
    assert_eq!(metadata_of("dualperf_exporter_build")["type"], "info");

    both_families(
        prometheus_address,
        "dualperf_goodput_bytes_per_second",
        1e5..=1e12,
    );
    both_families(
        prometheus_address,
        "dualperf_rtt_seconds{quantile=\"0.5\"}",
        1e-7..=0.1,
    );
    both_families(prometheus_address, "dualperf_rtt_seconds_count", 1.0..=1e9);
    both_families(
        prometheus_address,
        "dualperf_one_way_delay_seconds{quantile=\"0.5\"}",
        1e-8..=0.1,
    );
    both_families(prometheus_address, "dualperf_loss_ratio", 0.0..=1.0);
    both_families(prometheus_address, "dualperf_jitter_seconds", 0.0..=0.1);
    let ratios = query(prometheus_address, "dualperf_headline_ratio");
    assert_eq!(ratios.len(), 3, "one per test: {ratios:?}");
    for (labels, ratio) in &ratios {
        assert_eq!(
            (&labels["arm"], &labels["baseline"]),
            (&"v6".into(), &"v4".into())
        );
        assert!(*ratio > 0.0 && *ratio < 100.0, "{labels}: {ratio}");
    }
    let success = query(prometheus_address, "dualperf_last_run_success");
    assert_eq!(success.len(), 1);
    assert_eq!(success[0].1, 1.0, "{}", logs());
    let age = query(
        prometheus_address,
        "time() - dualperf_last_run_timestamp_seconds",
    );
    assert!(age[0].1 > -5.0 && age[0].1 < 120.0, "{age:?}");
    let runs = query(
        prometheus_address,
        "dualperf_runs_total{result=\"success\"}",
    );
    assert!(runs[0].1 >= 1.0, "{runs:?}");

    // Every query of the Grafana dashboard is valid PromQL and finds data.
    let dashboard: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../contrib/grafana/dualperf.json"),
        )
        .unwrap(),
    )
    .unwrap();
    for panel in dashboard["panels"].as_array().unwrap() {
        for target in panel["targets"].as_array().unwrap() {
            let expr = target["expr"]
                .as_str()
                .unwrap()
                .replace("$target", "loopback")
                .replace("$test", ".*")
                .replace("$__rate_interval", "1m")
                .replace("$__range", "5m");
            let found = query(prometheus_address, &expr);
            assert!(
                !found.is_empty(),
                "panel {}: `{expr}` finds nothing",
                panel["title"]
            );
        }
    }

    // What `curl` gets is what promtool accepts.
    let (status, content_type, text) = get(metrics, "/metrics", None).unwrap();
    assert!(status.contains("200") && content_type.starts_with("text/plain; version=0.0.4"));
    let (ok, said) = dualperf_fixtures::promtool::promtool_check("promtool", &text);
    assert!(ok && said.trim().is_empty(), "promtool: {said}\n{text}");

    if screenshot {
        save_screenshot(prometheus_address, &logs);
    }
}

/// Keeps measuring for a few minutes, then saves Prometheus's graph page
/// as docs/prometheus-graph.png (headless Chromium).
fn save_screenshot(prometheus: SocketAddr, logs: &dyn Fn() -> String) {
    let minutes: u64 = std::env::var("DUALPERF_SCREENSHOT_MINUTES")
        .ok()
        .and_then(|m| m.parse().ok())
        .unwrap_or(4);
    std::thread::sleep(Duration::from_secs(minutes * 60));
    let expr = "dualperf_goodput_bytes_per_second{target=\"loopback\"}";
    let url = format!(
        "http://{prometheus}/graph?g0.expr={}&g0.tab=0&g0.range_input={minutes}m",
        encode(expr)
    );
    let output = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/prometheus-graph.png");
    let profile = std::env::temp_dir().join(format!("dpe-chromium-{}", std::process::id()));
    let status = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--hide-scrollbars",
            "--virtual-time-budget=20000",
            "--window-size=1400,900",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", output.display()))
        .arg(&url)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    let _ = std::fs::remove_dir_all(&profile);
    assert!(status.success(), "chromium: {status}\n{}", logs());
    eprintln!("saved {} from {url}", output.display());
}

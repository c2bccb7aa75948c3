//! `dualperf exporter`'s `/probe` endpoint scraped by a real Prometheus
//! (Debian's `prometheus`), blackbox_exporter style: Prometheus' relabelling
//! turns two static targets into `/probe?target=…&module=iperf3_tcp`, the
//! exporter compares IPv4 and IPv6 against two Debian `iperf3 -s` servers
//! (loopback, one port each), and Prometheus stores goodput per family,
//! the IPv6/IPv4 headline ratio and `dualperf_probe_success` per family.
//!
//! The two target names resolve to 127.0.0.1 and ::1 through a hosts file
//! bind-mounted over /etc/hosts in a mount namespace of the exporter's own
//! (`unshare --mount`): the machine's /etc/hosts is never touched. Needs
//! root, `unshare`, `iperf3` and `prometheus`; skips without them unless
//! DUALPERF_REQUIRE_PRIVILEGED is set, then it fails.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

#[path = "common/ports.rs"]
mod ports;
#[path = "common/privileged.rs"]
mod privileged;

use ports::{free_tcp_port as free_port, listening};

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use dualperf_exporter::http::get;

/// A scratch folder, removed on drop.
struct Folder(PathBuf);

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A child process, killed on drop; its standard error goes to `log`.
struct Process {
    child: Child,
    log: PathBuf,
}

impl Process {
    fn start(command: &mut Command, log: PathBuf) -> Process {
        let file = std::fs::File::create(&log).unwrap();
        let child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(file)
            .spawn()
            .unwrap();
        Process { child, log }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An instant query: (labels, value) per series.
fn query(prometheus: SocketAddr, expr: &str) -> Vec<(serde_json::Value, f64)> {
    let encoded: String = expr
        .bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect();
    let Ok((_, _, body)) = get(prometheus, &format!("/api/v1/query?query={encoded}"), None) else {
        return Vec::new();
    };
    let value: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
    value["data"]["result"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|series| {
            let value = series["value"][1]
                .as_str()
                .unwrap_or("NaN")
                .parse()
                .unwrap_or(f64::NAN);
            (series["metric"].clone(), value)
        })
        .collect()
}

/// The series of `expr` for `target` and `family`.
fn values(series: &[(serde_json::Value, f64)], target: &str, family: &str) -> Vec<f64> {
    series
        .iter()
        .filter(|(labels, _)| labels["target"] == target && labels["family"] == family)
        .map(|(_, value)| *value)
        .collect()
}

#[test]
fn prometheus_probes_two_iperf3_targets_through_the_exporter() {
    if !privileged::ready(&["unshare", "iperf3", "prometheus"]) {
        return;
    }
    let folder = Folder(std::env::temp_dir().join(format!("dpprobe-{}", std::process::id())));
    std::fs::create_dir_all(&folder.0).unwrap();
    let dir = &folder.0;
    let hosts = dir.join("hosts");
    std::fs::write(&hosts, "127.0.0.1 dual-a dual-b\n::1 dual-a dual-b\n").unwrap();

    let (port_a, port_b) = (free_port(), free_port());
    let mut servers = Vec::new();
    for port in [port_a, port_b] {
        servers.push(Process::start(
            Command::new("iperf3").args(["-s", "-p", &port.to_string()]),
            dir.join(format!("iperf3-{port}.log")),
        ));
        listening(([127, 0, 0, 1], port).into(), "iperf3 -s");
    }

    let exporter_port = free_port();
    let config = dir.join("exporter.toml");
    std::fs::write(
        &config,
        format!(
            "listen = \"127.0.0.1:{exporter_port}\"\nprobe_concurrency = 2\n\n[module.iperf3_tcp]\npeer = \"iperf3\"\ntests = [\"tcp-stream\"]\ntime = \"500ms\"\nwarmup = \"0s\"\nrepeat = 1\ntimeout = \"4s\"\n"
        ),
    )
    .unwrap();
    let script = format!(
        "mount --bind {} /etc/hosts && exec {} exporter --config {}",
        hosts.display(),
        env!("CARGO_BIN_EXE_dualperf"),
        config.display()
    );
    let exporter = Process::start(
        Command::new("unshare").args(["--mount", "--propagation", "private", "sh", "-c", &script]),
        dir.join("exporter.log"),
    );
    let exporter_address: SocketAddr = ([127, 0, 0, 1], exporter_port).into();
    listening(exporter_address, "dualperf exporter");

    // One probe by hand first: 400 for a bad target, then a real answer.
    let (status, _, body) = get(
        exporter_address,
        "/probe?module=iperf3_tcp&target=a%20b",
        None,
    )
    .unwrap();
    assert!(status.contains("400"), "{status}: {body}");

    let prometheus_port = free_port();
    let prometheus_address: SocketAddr = ([127, 0, 0, 1], prometheus_port).into();
    let scrape = dir.join("prometheus.yml");
    std::fs::write(
        &scrape,
        [
            "global:".to_string(),
            "  scrape_interval: 5s".into(),
            "  scrape_timeout: 5s".into(),
            "  evaluation_interval: 5s".into(),
            "scrape_configs:".into(),
            "  - job_name: dualperf_probe".into(),
            "    metrics_path: /probe".into(),
            "    params:".into(),
            "      module: [iperf3_tcp]".into(),
            "    static_configs:".into(),
            format!("      - targets: [\"dual-a:{port_a}\", \"dual-b:{port_b}\"]"),
            "    relabel_configs:".into(),
            "      - source_labels: [__address__]".into(),
            "        target_label: __param_target".into(),
            "      - source_labels: [__param_target]".into(),
            "        target_label: instance".into(),
            "      - target_label: __address__".into(),
            format!("        replacement: 127.0.0.1:{exporter_port}"),
        ]
        .join("\n"),
    )
    .unwrap();
    let prometheus = Process::start(
        Command::new("prometheus")
            .arg(format!("--config.file={}", scrape.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.join("data").display()
            ))
            .arg(format!("--web.listen-address={prometheus_address}")),
        dir.join("prometheus.log"),
    );
    let logs = || {
        format!(
            "--- exporter ---\n{}\n--- prometheus ---\n{}",
            exporter.log(),
            prometheus.log()
        )
    };

    // Both targets probed, both families measured and successful.
    let started = Instant::now();
    loop {
        let success = query(prometheus_address, "dualperf_probe_success");
        let complete = ["dual-a", "dual-b"].iter().all(|target| {
            ["v4", "v6"]
                .iter()
                .all(|family| values(&success, target, family) == [1.0])
        });
        if complete {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(40),
            "no successful probe of both families of both targets: {success:?}\n{}",
            logs()
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    let goodput = query(prometheus_address, "dualperf_goodput_bytes_per_second");
    let ratio = query(prometheus_address, "dualperf_headline_ratio");
    for target in ["dual-a", "dual-b"] {
        for family in ["v4", "v6"] {
            let measured = values(&goodput, target, family);
            assert_eq!(measured.len(), 1, "{target} {family}: {goodput:?}");
            // Loopback TCP: far above 10 MB/s on any machine.
            assert!(measured[0] > 1e7, "{target} {family}: {measured:?}");
        }
        // The IPv6 arm against the IPv4 baseline.
        let ratios = values(&ratio, target, "v6");
        assert_eq!(ratios.len(), 1, "{target}: {ratio:?}");
        assert!((0.1..10.0).contains(&ratios[0]), "{target}: {ratios:?}");
    }
    let up = query(prometheus_address, "up{job=\"dualperf_probe\"}");
    assert_eq!(up.len(), 2, "{up:?}");
    drop(servers);
}

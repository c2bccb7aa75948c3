//! `dualperf exporter`'s `/probe` with a STAMP module: the third peer kind
//! behind the blackbox-style endpoint (dualperf and iperf3 peers are covered
//! by `exporter_probe.rs`, with a real Prometheus). A `dualperf serve
//! --stamp` reflector on loopback answers; `/probe?target=localhost:PORT&
//! module=stamp` must measure both families (localhost is 127.0.0.1 and
//! ::1) and report success, the per-family probe samples and the ratio.
//! Loopback only; no privileges needed.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};

use dualperf_exporter::http::get;

#[path = "common/ports.rs"]
mod ports;
use ports::{free_tcp_port, free_udp_port, listening};

/// A child process, killed on drop.
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn resolves_both_families(host: &str) -> bool {
    use std::net::ToSocketAddrs;
    let addresses: Vec<SocketAddr> = (host, 1)
        .to_socket_addrs()
        .map(Iterator::collect)
        .unwrap_or_default();
    addresses.iter().any(SocketAddr::is_ipv4) && addresses.iter().any(SocketAddr::is_ipv6)
}

#[test]
fn a_stamp_module_probes_both_families_of_a_reflector() {
    if !resolves_both_families("localhost") {
        eprintln!("skipped: localhost does not resolve to both 127.0.0.1 and ::1 here");
        return;
    }
    let dir = std::env::temp_dir().join(format!("dpprobe-stamp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (control, stamp) = (free_tcp_port(), free_udp_port());
    let _reflector = Process(
        Command::new(env!("CARGO_BIN_EXE_dualperf"))
            .args([
                "serve",
                "-p",
                &control.to_string(),
                "--stamp",
                "--stamp-port",
                &stamp.to_string(),
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    listening(([127, 0, 0, 1], control).into(), "dualperf serve");

    let exporter_port = free_tcp_port();
    let config = dir.join("exporter.toml");
    std::fs::write(
        &config,
        format!(
            "listen = \"127.0.0.1:{exporter_port}\"\n\n[module.stamp]\npeer = \"stamp\"\ntests = [\"udp-probe\"]\ntime = \"500ms\"\nwarmup = \"0s\"\nrepeat = 1\ntimeout = \"10s\"\n"
        ),
    )
    .unwrap();
    let _exporter = Process(
        Command::new(env!("CARGO_BIN_EXE_dualperf"))
            .args(["exporter", "--config"])
            .arg(&config)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let exporter: SocketAddr = ([127, 0, 0, 1], exporter_port).into();
    listening(exporter, "dualperf exporter");

    let (status, _, body) = get(
        exporter,
        &format!("/probe?module=stamp&target=localhost:{stamp}"),
        None,
    )
    .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(status.contains("200"), "{status}: {body}");
    for family in ["v4", "v6"] {
        let success = body
            .lines()
            .find(|l| {
                l.starts_with("dualperf_probe_success")
                    && l.contains(&format!("family=\"{family}\""))
            })
            .unwrap_or_else(|| panic!("no success line for {family}:\n{body}"));
        assert!(success.trim_end().ends_with(" 1"), "{success}\n{body}");
        assert!(
            body.lines().any(|l| !l.starts_with('#')
                && !l.starts_with("dualperf_probe_")
                && l.contains(&format!("family=\"{family}\""))),
            "no measurement sample for {family}:\n{body}"
        );
    }
}

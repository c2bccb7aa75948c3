//! Prometheus's own linter on what the exporter serves to `curl` and what
//! `dualperf run --openmetrics` writes: `promtool check metrics` (Debian's
//! `prometheus` package) must have nothing to say. Skips when promtool is
//! missing, unless `DUALPERF_REQUIRE_PRIVILEGED` is set (CI as root), then
//! it fails.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code

use std::process::{Command, Stdio};
use std::time::Duration;

use dualperf_exporter::{render_run, ExporterFacts, Format, Registry, RunSnapshot};
use dualperf_fixtures::synthetic::synthetic_run;

fn promtool() -> Option<&'static str> {
    let found = Command::new("promtool")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        assert!(
            std::env::var_os("DUALPERF_REQUIRE_PRIVILEGED").is_none(),
            "promtool is missing (apt-get install prometheus)"
        );
        eprintln!("skipped: promtool not installed (apt-get install prometheus)");
        return None;
    }
    Some("promtool")
}

#[test]
fn promtool_finds_nothing_to_complain_about() {
    let Some(promtool) = promtool() else { return };
    let run = synthetic_run();
    let mut registry = Registry::new(&["lab-1", "lab-2"], "0.1.0", run.started_at_unix_ms);
    registry.set_busy(Duration::from_secs(40));
    registry.record(RunSnapshot::of_run("lab-1", &run));
    registry.record(RunSnapshot::of_run("lab-1", &run));
    registry.record(RunSnapshot::failed("lab-2", 1, 2));
    let facts = ExporterFacts {
        now_unix_ms: run.finished_at_unix_ms + 60_000,
        resident_memory_bytes: Some(20 << 20),
    };
    // promtool reads the 0.0.4 text (what `curl /metrics` gets); the
    // OpenMetrics rendering is checked by a real Prometheus scraping it
    // (crates/dualperf/tests/exporter_prometheus.rs). The textfile is both.
    let served = [
        (
            "0.0.4 text",
            registry.render(Format::PrometheusText, &facts),
        ),
        ("textfile", render_run("lab-1", &run)),
    ];
    for (what, text) in served {
        let (ok, said) = dualperf_fixtures::promtool::promtool_check(promtool, &text);
        assert!(ok && said.trim().is_empty(), "{what}: {said}\n{text}");
    }
}

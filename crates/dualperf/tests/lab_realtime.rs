//! `dualperf lab realtime --quick`, the OpenH323 experiments in one command:
//! in under two minutes, G.711 voice and H.261-like video on IPv4 and IPv6,
//! alone and against competing UDP and TCP loads over a 10 Mbit/s
//! bottleneck with 20 ms each way. Checks what issue 13 asks:
//!
//! - MOS per family alone ≥ 4.3, and visibly lower (by 0.5 or more) under
//!   the UDP load that overfills the bottleneck;
//! - the report draws the 50 ms series of every flow (no empty chart);
//! - the 50 ms series of the same G.711 stream, counted as captured
//!   Ethernet frames, run at the rate the header theory predicts for each
//!   family: IPv6 234/214 = 1.093 times IPv4's (20 more header bytes on
//!   214-byte frames).
//!
//! Needs root: skipped with a message locally, required when
//! DUALPERF_REQUIRE_PRIVILEGED is set.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

#[path = "common/privileged.rs"]
mod privileged;

use std::process::Command;
use std::time::{Duration, Instant};

use dualperf_model::{MetricId, RunResult, TrialOutcome};

/// Captured bytes per G.711 packet around its 172-byte UDP payload.
const V4_FRAME: f64 = 214.0;
const V6_FRAME: f64 = 234.0;

#[test]
fn the_quick_realtime_experiment_rates_voice_alone_and_under_load_with_50_ms_series() {
    if !privileged::ready(&[]) {
        return;
    }
    let folder = std::env::temp_dir().join(format!("dpt-realtime-{}", std::process::id()));
    let started = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_dualperf"))
        .args(["lab", "realtime", "--quick", "--no-store", "--results"])
        .arg(&folder)
        .output()
        .unwrap();
    let took = started.elapsed();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    eprintln!("lab realtime --quick took {took:?}\n{stdout}\n{stderr}");
    // Exit 1 only for failed trials, which are checked below.
    assert!(matches!(output.status.code(), Some(0 | 1)), "{stderr}");
    assert!(took < Duration::from_secs(120), "took {took:?}");
    assert!(stdout.contains("Real-time media"), "{stdout}");
    let run = std::fs::read_dir(&folder)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let result: RunResult =
        serde_json::from_slice(&std::fs::read(run.join("result.json")).unwrap()).unwrap();
    let report = std::fs::read_to_string(run.join("report.html")).unwrap();
    std::fs::remove_dir_all(&folder).unwrap();
    // A trial under the UDP overload may fail when its control exchanges
    // lose too many packets (the load then outlives its schedule): at most
    // one in eight, and never alone or under the TCP load.
    let failed: Vec<_> = result
        .trials
        .iter()
        .filter_map(|t| match &t.outcome {
            TrialOutcome::Failed { error } => Some((t.arm.as_str(), error.as_str())),
            TrialOutcome::Ok(_) => None,
        })
        .collect();
    assert!(
        failed.len() <= 1 && failed.iter().all(|(arm, _)| arm.ends_with("udp-load")),
        "{failed:?}"
    );
    let analysis = result.analysis.as_ref().unwrap();
    let mos = |arm: &str| {
        analysis
            .summaries
            .iter()
            .find(|s| s.point == 0 && s.arm.as_str() == arm && s.metric == MetricId::MediaMos)
            .map(|s| s.summary.mean)
            .unwrap_or_else(|| panic!("{arm}: no MOS"))
    };
    for family in ["v4", "v6"] {
        let alone = mos(family);
        let udp = mos(&format!("{family}-udp-load"));
        let tcp = mos(&format!("{family}-tcp-load"));
        eprintln!("{family}: MOS alone {alone:.2}, UDP load {udp:.2}, TCP load {tcp:.2}");
        assert!(alone >= 4.3, "{family}: MOS alone {alone}");
        assert!(
            udp <= alone - 0.5,
            "{family}: MOS under UDP load {udp}, alone {alone}"
        );
    }
    // Every media and load series chart has its lines.
    for id in [
        "media-series-0-v4",
        "media-series-0-v6",
        "load-series-0-v4",
        "load-series-1-v6",
    ] {
        let at = report
            .find(&format!("<figure id=\"{id}\""))
            .unwrap_or_else(|| panic!("no figure {id}"));
        let series: usize = report[at..]
            .split("data-series=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .and_then(|n| n.parse().ok())
            .unwrap();
        let expected = if id.starts_with("media") { 3 } else { 2 };
        assert_eq!(series, expected, "{id}");
    }
    // The 50 ms series of G.711 alone, as captured frames: IPv6's rate over
    // IPv4's is the frame ratio (the packet rates are equal).
    let wire_rate = |arm: &str, frame: f64| -> f64 {
        let (mut bits, mut seconds) = (0.0, 0.0);
        for trial in result
            .trials
            .iter()
            .filter(|t| t.point == 0 && t.arm.as_str() == arm)
        {
            let TrialOutcome::Ok(o) = &trial.outcome else {
                panic!("{arm}: a trial failed");
            };
            let samples: Vec<_> = o.intervals.iter().filter(|s| s.length_ns > 0).collect();
            // 50 ms samples (the last one may be cut short by the end).
            let mut lengths: Vec<u64> = samples.iter().map(|s| s.length_ns).collect();
            lengths.sort_unstable();
            let median = lengths[lengths.len() / 2];
            assert!(median.abs_diff(50_000_000) < 2_000_000, "{lengths:?}");
            for s in samples {
                // Payload bytes are 172 per packet, so frames = packets × frame.
                assert_eq!(s.received_bytes, s.received_packets * 172);
                bits += s.received_packets as f64 * frame * 8.0;
                seconds += s.length_ns as f64 / 1e9;
            }
        }
        bits / seconds
    };
    let (v4, v6) = (wire_rate("v4", V4_FRAME), wire_rate("v6", V6_FRAME));
    let predicted = V6_FRAME / V4_FRAME;
    eprintln!(
        "G.711 alone on the wire: IPv4 {:.1} kbit/s, IPv6 {:.1} kbit/s, ratio {:.4} (theory {predicted:.4})",
        v4 / 1e3,
        v6 / 1e3,
        v6 / v4
    );
    // One packet more or less in a 1 s trial moves the ratio by 2 %.
    assert!((v6 / v4 - predicted).abs() < 0.04, "ratio {}", v6 / v4);
}

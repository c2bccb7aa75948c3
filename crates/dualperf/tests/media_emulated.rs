//! A G.711 media stream over a link with 50 ms of delay and 1 % random loss
//! injected (netem where the kernel has it, else the user-space delay line
//! and the cls_bpf loss program): the measured one-way delay is within 1 ms
//! of the injected 50 ms, and the measured MOS (jitter buffer, late packets
//! lost) is within 0.05 of the ITU-T G.107 E-model for the measured delay
//! (+ 20 ms packetisation) and the measured loss.
//!
//! `dualperf lab FILE --tests media`, both families, 10 s each. Needs root:
//! skipped with a message locally, required when DUALPERF_REQUIRE_PRIVILEGED
//! is set.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

#[path = "common/lab_run.rs"]
mod lab_run;
#[path = "common/privileged.rs"]
mod privileged;

use dualperf_model::MetricId;
use dualperf_stats::voice::{mos, CallConditions, Codec};

const TOPOLOGY: &str = r#"
description = "router with 50 ms and 1 % random loss towards the server"
[[node]]
name = "client"
[[node]]
name = "router"
role = "router"
[[node]]
name = "server"
[[link]]
between = ["client", "router"]
[[link]]
between = ["router", "server"]
[link.egress.router]
delay = "50ms"
loss_ratio = 0.01
"#;

#[test]
fn measured_mos_matches_the_e_model_for_the_measured_delay_and_loss() {
    if !privileged::ready(&[]) {
        return;
    }
    let folder = std::env::temp_dir().join(format!("dpt-media-topology-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let topology = folder.join("emulated.toml");
    std::fs::write(&topology, TOPOLOGY).unwrap();
    let topology = topology.to_str().unwrap();
    let run = lab_run::lab(
        "media-emulated",
        &[topology, "--tests", "media", "-t", "10", "--repeat", "1"],
    );
    std::fs::remove_dir_all(&folder).unwrap();
    let (_, result) = run.succeeded();
    let analysis = result.analysis.as_ref().unwrap();
    let value = |arm: &str, metric: MetricId| {
        analysis
            .summaries
            .iter()
            .find(|s| s.arm.as_str() == arm && s.metric == metric)
            .map(|s| s.summary.mean)
            .unwrap_or_else(|| panic!("{arm}: no {metric}"))
    };
    for arm in ["v4", "v6"] {
        let owd_ms = value(arm, MetricId::OwdMeanNs) / 1e6;
        let owd_p50_ms = value(arm, MetricId::OwdP50Ns) / 1e6;
        let loss = value(arm, MetricId::LossRatio);
        let measured = value(arm, MetricId::MediaMos);
        let expected = mos(&CallConditions {
            mouth_to_ear_delay_ms: owd_ms + 20.0,
            packet_loss_percent: loss * 100.0,
            burst_ratio: 1.0,
            codec: Codec::G711_PLC,
        });
        eprintln!(
            "{arm}: one-way delay mean {owd_ms:.3} ms, p50 {owd_p50_ms:.3} ms; loss {:.2} %; \
             MOS measured {measured:.3}, E-model {expected:.3}",
            loss * 100.0
        );
        assert!(
            (owd_p50_ms - 50.0).abs() < 1.0,
            "{arm}: one-way delay p50 {owd_p50_ms} ms, injected 50 ms"
        );
        // Loose: only that the loss emulation ran and nothing else dominated.
        assert!(loss < 0.10, "{arm}: loss {loss}");
        assert!(
            (measured - expected).abs() < 0.05,
            "{arm}: MOS {measured} against the E-model's {expected}"
        );
    }
}

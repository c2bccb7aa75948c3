//! `dualperf lab rrul` and `dualperf run --experiment rrul HOST`: latency
//! under load in the style of flent's RRUL ("realtime response under load",
//! Toke Høiland-Jørgensen et al.), per family.
//!
//! | arm | load (started and warmed up before every trial) |
//! |---|---|
//! | `v4`, `v6` | none (idle) |
//! | `v4-rrul`, `v6-rrul` | [`LOAD`]: [`STREAMS`] bulk TCP streams up (client to server) and [`STREAMS`] down, in the arm's own family |
//!
//! Two points measure latency beside the load: an isochronous UDP probe
//! (one-way delay, PDV, loss; 10 ms interval, 172 B) and UDP request/response
//! (RTT). The design's contrasts: IPv6 against IPv4 idle and under the same
//! load, and the load's effect on IPv4 (loaded against idle). The report
//! needs nothing of its own: the arms, loads and contrasts are data.
//!
//! The point of the experiment is the bottleneck's queue, so it wants a
//! shaped link (the `rrul` preset: 20 Mbit/s, 100 packets, 10 ms each way).

use dualperf_model::{
    Arm, ArmId, LoadCondition, LoadFlow, LoadSpec, RunConfig, TestKind, TestSpec,
};

use crate::PlanInputs;

/// Name of the competing load.
pub const LOAD: &str = "rrul";
/// Bulk TCP streams in each direction.
pub const STREAMS: u32 = 4;
/// Probe packet interval, microseconds (100 probes/s).
const PROBE_INTERVAL_US: u64 = 10_000;
/// Probe and request size, bytes (G.711-like, as `udp-probe`'s default).
const PROBE_BYTES: u32 = 172;

/// How long and how often: measured seconds per trial, load warm-up,
/// repetitions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timing {
    /// Measured milliseconds of every trial.
    pub duration_ms: u64,
    /// Warm-up of the measured flow, milliseconds.
    pub warmup_ms: u64,
    /// Warm-up of the load before the measured flow starts (TCP fills the
    /// queue), milliseconds.
    pub load_warmup_ms: u64,
    /// Repetitions per arm.
    pub repeat: u32,
}

impl Timing {
    /// `--quick`: 2 s trials, two repetitions (under two minutes on the preset).
    pub const QUICK: Timing = Timing {
        duration_ms: 2_000,
        warmup_ms: 200,
        load_warmup_ms: 1_500,
        repeat: 2,
    };
    /// The default: 10 s trials, three repetitions.
    pub const FULL: Timing = Timing {
        duration_ms: 10_000,
        warmup_ms: 500,
        load_warmup_ms: 3_000,
        repeat: 3,
    };
}

/// The RRUL plan on `inputs.base` (the native arms towards the server,
/// targets resolved). Pure: the lab and `run --experiment rrul` call it alike.
pub fn plan(inputs: &PlanInputs) -> RunConfig {
    let mut timing = if inputs.quick {
        Timing::QUICK
    } else {
        Timing::FULL
    };
    if let Some(seconds) = inputs.time_seconds {
        timing.duration_ms = (seconds * 1000.0).round() as u64;
    }
    if let Some(repeat) = inputs.repeat {
        timing.repeat = repeat;
    }
    let base = &inputs.base;
    let load = load(timing.load_warmup_ms);
    let mut arms: Vec<Arm> = base.to_vec();
    for arm in base {
        arms.push(Arm {
            id: ArmId::new(&format!("{}-{LOAD}", arm.id)).unwrap_or_else(|_| arm.id.clone()),
            label: format!("{} under RRUL load", arm.label),
            load: LoadCondition::Under {
                load: LOAD.to_string(),
            },
            ..arm.clone()
        });
    }
    let point = |kind: TestKind| TestSpec {
        duration_ms: timing.duration_ms,
        warmup_ms: timing.warmup_ms,
        probe_interval_us: (kind == TestKind::UdpProbe).then_some(PROBE_INTERVAL_US),
        sample_interval_ms: 100,
        ..TestSpec::new(kind, PROBE_BYTES)
    };
    let baseline = base
        .iter()
        .find(|a| a.family == dualperf_model::IpFamily::V4)
        .or(base.first())
        .map_or_else(
            || ArmId::native(dualperf_model::IpFamily::V4),
            |a| a.id.clone(),
        );
    let mut config = RunConfig {
        peer: dualperf_model::PeerKind::Dualperf,
        points: vec![point(TestKind::UdpProbe), point(TestKind::UdpRr)],
        arms,
        baseline,
        repeat: timing.repeat,
        order: Default::default(),
        host: None,
        port: inputs.port,
        client_cpus: Vec::new(),
        server_cpus: Vec::new(),
        command_line: inputs.command_line.clone(),
        loads: vec![load],
        contrasts: Vec::new(),
        goal: None,
    };
    // IPv6 against IPv4 idle and under the same load; IPv4's load effect.
    config.contrasts = dualperf_model::contrasts::contrasts(&config);
    config
}

/// [`STREAMS`] bulk TCP streams up and [`STREAMS`] down, in the arm's family.
fn load(warmup_ms: u64) -> LoadSpec {
    let bulk = |reverse: bool| TestSpec {
        duration_ms: 0,
        warmup_ms: 0,
        parallel_streams: STREAMS,
        reverse,
        sample_interval_ms: 100,
        ..TestSpec::new(TestKind::TcpStream, 131_072)
    };
    let flow = |label: String, reverse: bool| LoadFlow {
        label,
        spec: bulk(reverse),
        family: None,
        marking: Default::default(),
    };
    LoadSpec {
        name: LOAD.into(),
        label: format!("RRUL load ({STREAMS} TCP streams up, {STREAMS} down)"),
        flows: vec![
            flow(format!("TCP up x{STREAMS}"), false),
            flow(format!("TCP down x{STREAMS}"), true),
        ],
        warmup_ms,
        offered: None,
    }
}

#[cfg(test)]
mod tests {
    use dualperf_model::{Contrast, Factor, IpFamily};

    use super::*;

    #[test]
    fn each_family_is_measured_idle_and_under_bulk_tcp_both_ways() {
        let base = vec![
            Arm::native(IpFamily::V4, Some("10.0.0.2".into())),
            Arm::native(IpFamily::V6, Some("fd00::2".into())),
        ];
        let config = plan(&PlanInputs {
            base,
            quick: true,
            time_seconds: None,
            repeat: None,
            port: 5211,
            command_line: Vec::new(),
        });
        assert_eq!(config.repeat, Timing::QUICK.repeat);
        let ids: Vec<&str> = config.arms.iter().map(|a| a.id.as_str()).collect();
        assert_eq!(ids, ["v4", "v6", "v4-rrul", "v6-rrul"]);
        assert_eq!(config.arms[3].target.as_deref(), Some("fd00::2"));
        let flows = &config.loads[0].flows;
        assert_eq!(
            flows
                .iter()
                .map(|f| (f.spec.reverse, f.spec.parallel_streams))
                .collect::<Vec<_>>(),
            [(false, 4), (true, 4)]
        );
        let kinds: Vec<TestKind> = config.points.iter().map(|p| p.kind).collect();
        assert_eq!(kinds, [TestKind::UdpProbe, TestKind::UdpRr]);
        let contrast = |arm: &str, baseline: &str, factor| Contrast {
            arm: ArmId::new(arm).unwrap(),
            baseline: ArmId::new(baseline).unwrap(),
            factor,
        };
        assert_eq!(
            config.contrasts,
            [
                contrast("v6", "v4", Factor::Family),
                contrast("v4-rrul", "v4", Factor::Load),
                contrast("v6-rrul", "v4-rrul", Factor::Family),
            ]
        );
    }
}

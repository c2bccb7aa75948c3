//! `dualperf lab realtime`: the OpenH323 experiments in one command.
//!
//! Bouras, Gkamas, Primpas and Stamos sent G.711 voice and H.261 CIF video
//! (about 16 KB/s) over a 10 Mbit/s bottleneck, IPv4 against IPv6, alone
//! and against competing UDP and TCP traffic started first, and plotted
//! the throughput in 50 ms intervals. This planner measures the same:
//!
//! | arm | load (started and warmed up before every trial) |
//! |---|---|
//! | `v4`, `v6` | none ("alone") |
//! | `v4-udp-load`, `v6-udp-load` | [`UDP_LOAD`]: UDP at 12 Mbit/s, 1200-byte datagrams — more than the bottleneck carries |
//! | `v4-tcp-load`, `v6-tcp-load` | [`TCP_LOAD`]: [`TCP_STREAMS`] bulk TCP streams, cubic |
//!
//! Each load flow runs in the arm's own family, in the same direction as
//! the media (client to server), so both queue at the bottleneck. Points:
//! G.711 in 20 ms packets and the H.261 CIF-like video of `--media
//! video:cif`, sampled every 50 ms (`-i` overrides). `--quick`: 1 s
//! trials, two repetitions (under two minutes); otherwise 10 s (one MOS
//! window), three.

use dualperf_lab::Topology;
use dualperf_model::{
    Arm, ArmId, LoadCondition, LoadFlow, LoadSpec, MediaProfile, RunConfig, TestKind, TestSpec,
    VoiceCodec, VoiceProfile,
};

use crate::cli::lab::args::JobArgs;
use crate::cli::run::Repeat;
use crate::cli::Failure;
use crate::pipeline::plan::{
    auto_target, choose_baseline, media_point, validate, PointOptions, MEDIA_INTERVAL_MS,
};

/// Name of the competing UDP load.
pub(crate) const UDP_LOAD: &str = "udp-12m";
/// Name of the competing TCP load.
pub(crate) const TCP_LOAD: &str = "tcp-cubic";
/// Rate of the UDP load, bit/s: 120 % of the 10 Mbit/s bottleneck.
const UDP_LOAD_BPS: u64 = 12_000_000;
/// Parallel streams of the TCP load.
pub(crate) const TCP_STREAMS: u32 = 4;

/// The plan of `lab realtime`.
///
/// # Errors
/// Usage errors for flags out of range; a topology without native arms.
pub(super) fn plan(args: &JobArgs, topology: &Topology, server: &str) -> anyhow::Result<RunConfig> {
    let base = super::native_arms(topology, server)?;
    let (time_seconds, warmup_ms, default_repeat) = match args.quick {
        true => (args.time_seconds.unwrap_or(1.0), 300, 2),
        false => (args.time_seconds.unwrap_or(10.0), 1_000, 3),
    };
    let repeat = match args.repeat {
        Some(Repeat::Count(count)) => count,
        Some(Repeat::Auto) => auto_target().min_repetitions,
        None => default_repeat,
    };
    if !(0.5..=600.0).contains(&time_seconds) {
        return Err(Failure::usage("-t for lab realtime: 0.5 to 600 seconds"));
    }
    let options = PointOptions {
        tests: vec![TestKind::Media],
        time_seconds,
        warmup_seconds: if args.quick { 0.1 } else { 0.25 },
        ..PointOptions::default()
    };
    let interval_ms = args.interval_ms.unwrap_or(MEDIA_INTERVAL_MS);
    let points = media_profiles()
        .iter()
        .map(|media| media_point(media, &options, interval_ms))
        .collect();
    let loads = vec![udp_load(warmup_ms), tcp_load(warmup_ms)];
    let mut config = RunConfig {
        peer: dualperf_model::PeerKind::Dualperf,
        loads: loads.clone(),
        points,
        baseline: choose_baseline(&base, args.baseline.as_deref())?,
        arms: arms_under(&base, &loads),
        repeat,
        order: Default::default(),
        host: None,
        port: args.port,
        client_cpus: Vec::new(),
        server_cpus: Vec::new(),
        command_line: std::env::args().collect(),
        contrasts: Vec::new(),
        goal: None,
    };
    // The design's questions, declared in the plan: IPv6 against IPv4 alone
    // and under each load; each family's load against that family alone is
    // IPv4's (the baseline family's) own contrast.
    config.contrasts = dualperf_stats::contrast::contrasts(&config);
    validate(&config)?;
    Ok(config)
}

/// G.711 voice (20 ms) and H.261 CIF-like video, as in the paper.
pub(crate) fn media_profiles() -> Vec<MediaProfile> {
    vec![
        MediaProfile::Voice(VoiceProfile {
            codec: VoiceCodec::G711,
            packet_ms: 20,
        }),
        MediaProfile::Video(crate::cli::run::VIDEO_CIF),
    ]
}

/// The base arms, then each base arm under each load.
fn arms_under(base: &[Arm], loads: &[LoadSpec]) -> Vec<Arm> {
    let mut arms: Vec<Arm> = base
        .iter()
        .map(|arm| Arm {
            label: format!("{} alone", arm.label),
            ..arm.clone()
        })
        .collect();
    for load in loads {
        let short = match load.name.as_str() {
            UDP_LOAD => "udp-load",
            _ => "tcp-load",
        };
        for arm in base {
            arms.push(Arm {
                id: ArmId::new(&format!("{}-{short}", arm.id)).unwrap_or_else(|_| arm.id.clone()),
                label: format!("{} with {}", arm.label, load.label),
                load: LoadCondition::Under {
                    load: load.name.clone(),
                },
                ..arm.clone()
            });
        }
    }
    arms
}

/// A load flow of `kind` in the measured arm's family, client to server.
fn flow(label: &str, spec: TestSpec) -> LoadFlow {
    LoadFlow {
        label: label.to_string(),
        spec,
        family: None,
        marking: Default::default(),
    }
}

fn load_spec(kind: TestKind) -> TestSpec {
    TestSpec {
        duration_ms: 0,
        warmup_ms: 0,
        sample_interval_ms: MEDIA_INTERVAL_MS,
        ..TestSpec::new(kind, 1200)
    }
}

/// UDP at 12 Mbit/s into the 10 Mbit/s bottleneck (the paper's iperf UDP).
fn udp_load(warmup_ms: u64) -> LoadSpec {
    let spec = TestSpec {
        rate: Some(dualperf_model::BitRate::from_bits_per_second(UDP_LOAD_BPS)),
        ..load_spec(TestKind::UdpStream)
    };
    LoadSpec {
        name: UDP_LOAD.into(),
        label: "UDP load (12 Mbit/s)".into(),
        flows: vec![flow("UDP 12 Mbit/s", spec)],
        warmup_ms,
        offered: None,
    }
}

/// Bulk TCP, [`TCP_STREAMS`] streams with cubic (the paper's iperf TCP).
fn tcp_load(warmup_ms: u64) -> LoadSpec {
    let spec = TestSpec {
        size_bytes: 131_072,
        parallel_streams: TCP_STREAMS,
        congestion_control: Some("cubic".into()),
        ..load_spec(TestKind::TcpStream)
    };
    LoadSpec {
        name: TCP_LOAD.into(),
        label: format!("TCP load ({TCP_STREAMS} streams, cubic)"),
        flows: vec![flow(&format!("TCP x{TCP_STREAMS}, cubic"), spec)],
        // TCP needs a little longer to fill the queue than UDP.
        warmup_ms: warmup_ms * 2,
        offered: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::IpFamily;

    #[test]
    fn every_family_is_measured_alone_and_under_both_loads() {
        let base = vec![
            Arm::native(IpFamily::V4, Some("10.0.0.2".into())),
            Arm::native(IpFamily::V6, Some("fd00::2".into())),
        ];
        let loads = vec![udp_load(500), tcp_load(500)];
        let arms = arms_under(&base, &loads);
        let ids: Vec<&str> = arms.iter().map(|a| a.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "v4",
                "v6",
                "v4-udp-load",
                "v6-udp-load",
                "v4-tcp-load",
                "v6-tcp-load"
            ]
        );
        assert_eq!(arms[2].label, "IPv4 with UDP load (12 Mbit/s)");
        assert_eq!(arms[5].target.as_deref(), Some("fd00::2"));
        assert_eq!(
            loads[1].flows[0].spec.congestion_control.as_deref(),
            Some("cubic")
        );
        assert_eq!(media_profiles().len(), 2);
    }
}

//! The plan of `dualperf lab`'s main job: the topology's links shaped
//! (`--link-rate`), the points from the flags (the full job sweeps the
//! papers' sizes, `--quick` one size per test), every arm the topology
//! offers towards the server node, the repetitions (to a precision goal by
//! default) and how the measuring child executes it.

use dualperf_lab::Topology;
use dualperf_model::{Arm, IpFamily, LinkRate, RunConfig, TestSpec};

use super::args::JobArgs;
use super::errors::to_cli_error;
use crate::cli::run::Repeat;
use crate::cli::Failure;
use crate::pipeline::plan::{
    auto_target, choose_baseline, parse_tests, points, validate, PointOptions,
};

/// Message sizes of the full lab battery: small packets, a mid size, the
/// largest unfragmented UDP payload over IPv6 on a 1500-byte MTU (1408 B,
/// the DiffServ and VoIP studies' largest), and two sizes that fragment.
const LAB_SIZES: &str = "64,256,1024,1408,4096,16384";

/// The battery's precision goal without `--precision`: a 95 % CI half-width
/// of 3 % on every headline comparison (issue 23's target for goodput).
const DEFAULT_PRECISION: f64 = 0.03;

/// `topology` with the lab's link rate (`--link-rate`, default
/// [`dualperf_lab::link_rate::DEFAULT_LINK_RATE`]) applied, and the rate as
/// recorded in the result. Asking for a rate on a topology that sets its
/// own is a usage error: the flag would silently do nothing.
pub(super) fn shape_links(
    topology: Topology,
    args: &JobArgs,
) -> anyhow::Result<(Topology, dualperf_model::LinkRate)> {
    use dualperf_lab::link_rate::{apply, LinkRateChoice};
    let by_design = super::stack_cost::link_rate_of(&topology);
    if let (Some(_), Some(LinkRateChoice::Rate(_))) = (by_design, args.link_rate) {
        return Err(Failure::usage(format!(
            "topology `{}` is unshaped by design; --link-rate applies to the other presets",
            topology.name()
        )));
    }
    let choice = by_design.or(args.link_rate).unwrap_or_default();
    let (shaped, applied) = apply(topology, choice);
    if applied == dualperf_model::LinkRate::Topology && args.link_rate.is_some() {
        return Err(Failure::usage(format!(
            "topology `{}` sets its own link rates; --link-rate applies to topologies that set none",
            shaped.name()
        )));
    }
    Ok((shaped, applied))
}

/// The traffic flags of `lab` as the pipeline's [`PointOptions`]: the full
/// job sweeps message sizes as the papers did (about 4 minutes on two
/// cores); `--quick` keeps one size per test and half-second trials.
fn point_options(
    args: &JobArgs,
    link_rate: &LinkRate,
    topology: &Topology,
) -> anyhow::Result<PointOptions> {
    let defaults = PointOptions::default();
    Ok(PointOptions {
        tests: match &args.tests {
            Some(list) => parse_tests(list)?,
            None => match crate::cli::run::default_tests(args.peer) {
                Some(list) => parse_tests(list)?,
                None => defaults.tests.clone(),
            },
        },
        sizes: match (&args.sizes, args.quick) {
            (Some(sizes), _) => sizes.clone(),
            (None, false) => LAB_SIZES.to_string(),
            (None, true) => "default".to_string(),
        },
        time_seconds: args
            .time_seconds
            .unwrap_or(if args.quick { 0.5 } else { 1.0 }),
        warmup_seconds: if args.quick { 0.1 } else { 0.25 },
        interval_ms: args.interval_ms,
        probe: args.probe,
        bitrate: args.udp_rate(udp_stream_rate(link_rate, topology)),
        send_budget: args
            .send_budget()
            .map(|budget| crate::pipeline::send_budget::BudgetOption {
                budget,
                cap_seconds: args
                    .time_seconds
                    .unwrap_or(crate::pipeline::send_budget::DEFAULT_BUDGET_CAP_SECONDS),
            }),
        ..defaults
    })
}

/// The udp-stream rate without `-b`, on links the lab shaped: a quarter
/// above the link rate ([`dualperf_stats::paced_link::PACE_OVER_LINK`]);
/// [`fit_udp_streams_to_bottleneck`] then sets each size's pace from its
/// frames (paced at the link rate, only the headers' few percent exceed
/// it and the bottleneck's queue takes seconds to fill), so the link and
/// not the sender sets the goodput. Unpaced, a UDP sender offers what its
/// core can (2.9 Gbit/s into 200, measured), burns that core on datagrams
/// the qdisc drops and starves the rest of the machine; paced it leaves
/// the CPU alone, and a sender that still cannot keep up (64 B datagrams)
/// is reported cpu-bound. A topology with its own rates: above its slowest
/// link (`bottleneck`: 10 Mbit/s, where an unpaced sender lost 99.8 % of
/// its datagrams). Unshaped links: unpaced.
fn udp_stream_rate(link_rate: &LinkRate, topology: &Topology) -> Option<dualperf_model::BitRate> {
    let link = match link_rate {
        LinkRate::Shaped { bits_per_second } => {
            dualperf_model::BitRate::from_bits_per_second(*bits_per_second)
        }
        LinkRate::Topology => dualperf_lab::link_rate::slowest_rate(topology)?,
        LinkRate::Unshaped => return None,
    };
    let paced = link.bits_per_second() as f64 * dualperf_stats::paced_link::PACE_OVER_LINK;
    Some(dualperf_model::BitRate::from_bits_per_second(
        paced.round() as u64
    ))
}

/// Longest warm-up the lab gives a udp-stream trial to fill the
/// bottleneck's queue, milliseconds: a slower fill is the user's pace
/// (`-b` just above the link), and the beyond-link warning says so.
const MAX_QUEUE_FILL_WARMUP_MS: u64 = 5_000;

/// Fits every udp-stream point to the testbed's bottleneck
/// ([`dualperf_lab::bottleneck::Bottleneck`]). Without `-b` (`paced_by_lab`),
/// a datagram that fits one packet is paced so that IPv4's frames are a
/// quarter above the link ([`dualperf_stats::paced_link::lab_pace_bps`]),
/// and a size that fragments in either family just below both
/// families' ceilings ([`dualperf_stats::paced_link::fragmented_pace_bps`]):
/// above one, a datagram is lost with any of its fragments and the
/// drop-tail queue, not the header, decides what arrives (25 % above a
/// 100 Mbit/s link, 16384 B delivered nothing). Every point that still
/// offers more than the bottleneck carries warms up for one and a half
/// times the queue's fill time, so the measured interval starts with the
/// queue full and the receiver counts what the link carries, not what the
/// queue absorbed. Other kinds keep their warm-up: a TCP sender fills the
/// queue itself in its first round trips.
fn fit_udp_streams_to_bottleneck(points: &mut [TestSpec], topology: &Topology, paced_by_lab: bool) {
    let Some(bottleneck) = dualperf_lab::bottleneck::Bottleneck::of(topology) else {
        return;
    };
    for point in points
        .iter_mut()
        .filter(|p| p.kind == dualperf_model::TestKind::UdpStream)
    {
        let streams = u64::from(point.parallel_streams.max(1));
        let mtu = dualperf_stats::overhead::DEFAULT_MTU_BYTES;
        if paced_by_lab {
            let pace = dualperf_stats::paced_link::lab_pace_bps(
                point.size_bytes,
                mtu,
                bottleneck.rate.bits_per_second(),
            );
            if let Some(total) = pace {
                let per_stream = (total / streams as f64).floor() as u64;
                point.rate = Some(dualperf_model::BitRate::from_bits_per_second(per_stream));
            }
        }
        let Some(rate) = point.rate else { continue };
        let payload = rate.bits_per_second().saturating_mul(streams) as f64;
        let Some(frames) =
            dualperf_stats::paced_link::offered_frame_bps(payload, point.size_bytes, mtu)
        else {
            continue;
        };
        let offered = dualperf_model::BitRate::from_bits_per_second(frames.floor() as u64);
        if let Some(fill) = bottleneck.fill_time(offered) {
            let warmup_ms = (fill.as_secs_f64() * 1500.0).ceil() as u64;
            point.warmup_ms = point.warmup_ms.max(warmup_ms.min(MAX_QUEUE_FILL_WARMUP_MS));
        }
    }
}

/// The lab's plan: the points from the flags, and every arm the topology
/// offers towards the server node — native IPv4 and IPv6 where both ends
/// speak them, and one arm per tunnel or translator, each aimed at the
/// server address that makes its traffic take that path.
pub(super) fn plan(
    args: &JobArgs,
    topology: &Topology,
    server: &str,
    link_rate: &LinkRate,
) -> anyhow::Result<RunConfig> {
    if let Some(config) = super::experiment::plan(args, topology, server)? {
        if args.peer != dualperf_model::PeerKind::Dualperf {
            return Err(Failure::usage(format!(
                "the `{}` experiment measures against dualperf servers; --peer {} is for \
                 plain testbeds",
                topology.name(),
                args.peer
            )));
        }
        return Ok(config);
    }
    let arms: Vec<Arm> = topology.arms(server).map_err(to_cli_error)?;
    let cpus = |list: &Option<String>| -> anyhow::Result<Vec<u32>> {
        match list {
            Some(text) => dualperf_engine::affinity::parse_cpu_list(text)
                .map_err(|e| Failure::usage(format!("CPU list: {e}"))),
            None => Ok(Vec::new()),
        }
    };
    let families: Vec<IpFamily> = arms.iter().map(|a| a.family).collect();
    // The battery repeats to a precision goal unless told a count (or
    // --quick, a first look).
    let goal = match (args.repeat, args.quick) {
        (Some(_), _) => None,
        (None, true) => crate::cli::goal::goal(args.precision, args.budget),
        (None, false) => crate::cli::goal::goal(
            Some(args.precision.unwrap_or(DEFAULT_PRECISION)),
            args.budget,
        ),
    };
    let mut config = RunConfig {
        loads: Vec::new(),
        points: {
            let mut points = points(&point_options(args, link_rate, topology)?, &families)?;
            fit_udp_streams_to_bottleneck(&mut points, topology, args.bitrate.is_none());
            points
        },
        baseline: choose_baseline(&arms, args.baseline.as_deref())?,
        arms,
        repeat: match (args.repeat, goal) {
            (Some(Repeat::Count(count)), _) => count,
            (Some(Repeat::Auto), _) => auto_target().min_repetitions,
            (None, Some(goal)) => goal.first_stage,
            (None, None) => 3,
        },
        order: Default::default(),
        host: None,
        port: args.port,
        client_cpus: cpus(&args.client_cpus)?,
        server_cpus: cpus(&args.server_cpus)?,
        command_line: std::env::args().collect(),
        contrasts: Vec::new(),
        peer: args.peer,
        goal,
    };
    super::stack_cost::adapt(&mut config, topology, args);
    validate(&config)?;
    crate::cli::run::check_stamp_plan(&config)?;
    Ok(config)
}

/// How the measuring child executes the plan: `--repeat auto` and
/// `--rerun-contended`, typed in the plan file.
pub(super) fn execution(args: &JobArgs) -> dualperf_model::Execution {
    dualperf_model::Execution {
        until_precise: (args.repeat == Some(Repeat::Auto)).then(auto_target),
        rerun_contended: args.rerun_contended,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::lab::args::parse_job_args as parse;
    use dualperf_lab::preset;

    #[test]
    fn the_plan_aims_native_arms_at_the_server_node_with_ipv4_as_baseline() {
        let topology = preset::load("router").unwrap();
        let shaped = LinkRate::Shaped {
            bits_per_second: 100_000_000,
        };
        let config = plan(&parse(&["router", "--quick"]), &topology, "server", &shaped).unwrap();
        // On shaped links udp-stream is paced a quarter above the link
        // rate; the topology in this test is the preset, not shaped, so
        // there is no queue to wait for.
        let udp = config
            .points
            .iter()
            .find(|p| p.kind == dualperf_model::TestKind::UdpStream);
        assert_eq!(
            udp.and_then(|p| p.rate).map(|r| r.bits_per_second()),
            Some(125_000_000)
        );
        assert_eq!(udp.map(|p| p.warmup_ms), Some(100));
        let targets: Vec<(&str, Option<&str>)> = config
            .arms
            .iter()
            .map(|a| (a.id.as_str(), a.target.as_deref()))
            .collect();
        assert_eq!(
            targets,
            [
                ("v4", Some("10.180.2.2")),
                ("v6", Some("fd00:dead:beef:2::2"))
            ]
        );
        assert_eq!(config.baseline.as_str(), "v4");
        // --quick: three repetitions (enough for a significance claim), one
        // size per test, half-second trials.
        assert_eq!(config.repeat, 3);
        assert!(config.points.iter().all(|p| p.duration_ms == 500));
        assert_eq!(config.points.len(), 5);
    }

    #[test]
    fn udp_stream_on_the_bottleneck_warms_up_until_its_queue_is_full() {
        let topology = preset::load("bottleneck").unwrap();
        let config = plan(
            &parse(&["bottleneck", "--quick"]),
            &topology,
            "server",
            &LinkRate::Topology,
        )
        .unwrap();
        let warmup = |kind| {
            config
                .points
                .iter()
                .find(|p| p.kind == kind)
                .map(|p| (p.rate.map(|r| r.bits_per_second()), p.warmup_ms))
        };
        // 1024 B paced so that IPv4's 1066 B frames offer 12.5 Mbit/s into
        // 10 (1.25 × 10 Mbit/s × 1024 / 1066 of payload): 100 × 1514 B fill
        // in 0.484 s, warmed 1.5 times that.
        assert_eq!(
            warmup(dualperf_model::TestKind::UdpStream),
            Some((Some(12_007_504), 727))
        );
        assert_eq!(
            warmup(dualperf_model::TestKind::TcpStream),
            Some((None, 100))
        );
        // -b at the link: only the headers' 4 % exceed it (1066 / 1024), so
        // the queue takes 2.95 s to fill and the trial warms up 4.43 s; -b
        // below the link in frames (9 Mbit/s: 9.37 of frames) fills nothing.
        let warmup_at = |rate: &str| {
            let config = plan(
                &parse(&["bottleneck", "--quick", "-b", rate]),
                &topology,
                "server",
                &LinkRate::Topology,
            )
            .unwrap();
            config
                .points
                .iter()
                .find(|p| p.kind == dualperf_model::TestKind::UdpStream)
                .map(|p| p.warmup_ms)
        };
        assert_eq!(warmup_at("10M"), Some(4430));
        assert_eq!(warmup_at("9M"), Some(100));
    }

    #[test]
    fn fragmenting_sizes_are_paced_below_the_bottleneck_without_a_warm_up() {
        let topology = preset::load("bottleneck").unwrap();
        let config = plan(
            &parse(&[
                "bottleneck",
                "--tests",
                "udp-stream",
                "--sizes",
                "1408,4096,16384",
            ]),
            &topology,
            "server",
            &LinkRate::Topology,
        )
        .unwrap();
        let paced: Vec<(u32, u64, u64)> = config
            .points
            .iter()
            .map(|p| (p.size_bytes, p.rate.unwrap().bits_per_second(), p.warmup_ms))
            .collect();
        // 1408 B: one packet, IPv4's frames (1450 B) 25 % above the link,
        // 1.25 × 10 Mbit/s × 1408 / 1450, warmed up; 4096 B: 97 %
        // of 10 Mbit/s × 4096 / 4290 (IPv6's three fragments); 16384 B:
        // twelve fragments, 16384 / 17128.
        assert_eq!(paced[0], (1408, 12_137_931, 727));
        assert_eq!(paced[1], (4096, 9_261_351, 250));
        assert_eq!(paced[2].0, 16384);
        assert!(paced[2].1 < 9_300_000 && paced[2].2 == 250, "{paced:?}");
        // -b is the user's pace at every size.
        let asked = plan(
            &parse(&[
                "bottleneck",
                "--tests",
                "udp-stream",
                "--sizes",
                "4096",
                "-b",
                "20M",
            ]),
            &topology,
            "server",
            &LinkRate::Topology,
        )
        .unwrap();
        assert_eq!(
            asked.points[0].rate.map(|r| r.bits_per_second()),
            Some(20_000_000)
        );
    }

    #[test]
    fn the_full_job_sweeps_the_lab_sizes_and_a_wrong_baseline_is_a_usage_error() {
        let topology = preset::load("router").unwrap();
        let config = plan(
            &parse(&["router", "--tests", "udp-rr"]),
            &topology,
            "server",
            &LinkRate::Unshaped,
        )
        .unwrap();
        let sizes: Vec<u32> = config.points.iter().map(|p| p.size_bytes).collect();
        assert_eq!(sizes, [64, 256, 1024, 1408, 4096, 16384]);
        assert!(plan(
            &parse(&["router", "--baseline", "v9"]),
            &topology,
            "server",
            &LinkRate::Unshaped
        )
        .is_err());
    }
}

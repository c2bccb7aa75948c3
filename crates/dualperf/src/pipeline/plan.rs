//! The typed run plan: which points (tests × sizes with their durations,
//! pacing and probes) on which arms, how often and in which order. `run`
//! builds it from flags or loads it from a file (`--plan`), `lab` builds it
//! from its flags and the testbed's addresses; both hand the same
//! [`RunConfig`] to an executor. A plan file is a `RunConfig` as JSON — or a
//! whole result, whose `config` is taken, so a stored run can be repeated.

use std::path::Path;

use anyhow::Context;
use dualperf_engine::sizes::{default_size, preset, size_for_kind, validate_size};
use dualperf_model::{
    Arm, ArmId, BitRate, Execution, IpFamily, PlanFile, PrecisionTarget, RunConfig, RunResult,
    TestKind, TestSpec,
};
use dualperf_stats::repetition::Precision;

use crate::exit::Failure;

/// Longest measured interval of one trial, seconds.
pub(crate) const MAX_TRIAL_SECONDS: f64 = 3600.0;
/// Longest warm-up of one trial, seconds.
pub(crate) const MAX_WARMUP_SECONDS: f64 = 600.0;

/// What every point of a plan shares: the flags of `run` and `lab` that
/// shape traffic, in one typed value.
#[derive(Clone, Debug)]
pub(crate) struct PointOptions {
    /// Test kinds, in order, without repeats.
    pub tests: Vec<TestKind>,
    /// Sizes: a comma-separated list of bytes, or a preset (`papers`, `small`, `default`).
    pub sizes: String,
    /// Measured seconds per trial.
    pub time_seconds: f64,
    /// Warm-up seconds per trial.
    pub warmup_seconds: f64,
    /// Parallel streams of tcp-stream and udp-stream.
    pub parallel: u32,
    /// The server sends (stream and probe kinds).
    pub reverse: bool,
    /// Target UDP payload rate per stream (udp-stream); `None`: unlimited.
    pub bitrate: Option<BitRate>,
    /// Time-series sample length, milliseconds (≥ 10); `None`: a tenth of
    /// the trial, between 10 ms and 1 s, so every trial has about ten samples.
    pub interval_ms: Option<u64>,
    /// Probe interval, milliseconds (1 to 1000).
    pub probe_interval_ms: f64,
    /// Run a probe beside every stream trial (latency under load).
    pub probe: bool,
    /// The profile of the `media` points (`--media`); G.711 20 ms when unset.
    pub media: Option<dualperf_model::MediaProfile>,
    /// A send budget for the tcp-stream and udp-stream points (`-n`/`-k`),
    /// with its time cap; `None`: every point is timed.
    pub send_budget: Option<super::send_budget::BudgetOption>,
}

impl Default for PointOptions {
    fn default() -> Self {
        PointOptions {
            tests: vec![
                TestKind::TcpStream,
                TestKind::UdpStream,
                TestKind::TcpRr,
                TestKind::UdpRr,
                TestKind::TcpConnect,
            ],
            sizes: "default".into(),
            time_seconds: 1.0,
            warmup_seconds: 0.25,
            parallel: 1,
            reverse: false,
            bitrate: None,
            interval_ms: None,
            probe_interval_ms: 10.0,
            probe: false,
            media: None,
            send_budget: None,
        }
    }
}

/// Sample interval of media points when `-i` is not given, milliseconds
/// (the OpenH323 experiments' 50 ms throughput series).
pub(crate) const MEDIA_INTERVAL_MS: u64 = 50;

/// G.711 in 20 ms packets: the media profile when none is named.
pub(crate) fn default_media() -> dualperf_model::MediaProfile {
    dualperf_model::MediaProfile::Voice(dualperf_model::VoiceProfile {
        codec: dualperf_model::VoiceCodec::G711,
        packet_ms: 20,
    })
}

/// One `media` point of `media` with the timing of `options`.
pub(crate) fn media_point(
    media: &dualperf_model::MediaProfile,
    options: &PointOptions,
    interval_ms: u64,
) -> TestSpec {
    TestSpec {
        duration_ms: (options.time_seconds * 1000.0).round() as u64,
        warmup_ms: (options.warmup_seconds * 1000.0).round() as u64,
        reverse: options.reverse,
        sample_interval_ms: interval_ms,
        media: Some(media.clone()),
        ..TestSpec::new(TestKind::Media, media.largest_packet_bytes())
    }
}

/// The test kinds named in a comma-separated list, in order, without repeats.
///
/// # Errors
/// A usage error naming an unknown test, or an empty list.
pub(crate) fn parse_tests(list: &str) -> anyhow::Result<Vec<TestKind>> {
    let mut kinds = Vec::new();
    for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let kind: TestKind = name.parse().map_err(|e: String| Failure::usage(e))?;
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    if kinds.is_empty() {
        return Err(Failure::usage("--tests names no test"));
    }
    Ok(kinds)
}

/// The sizes of one test kind: tcp-connect has one point (size 0).
pub(crate) fn sizes_for(kind: TestKind, sizes: &str) -> anyhow::Result<Vec<u32>> {
    if kind == TestKind::TcpConnect {
        return Ok(vec![0]);
    }
    if sizes == "default" {
        return Ok(vec![default_size(kind)]);
    }
    let list = match preset(sizes) {
        Some(list) => list,
        None => sizes
            .split(',')
            .map(|s| {
                dualperf_model::units::parse_size(s)
                    .ok()
                    .and_then(|size| u32::try_from(size).ok())
                    .ok_or_else(|| {
                        Failure::usage(format!(
                            "`{s}` in --sizes is not a size in bytes (1408, 1K = 1024) or a preset (papers, small, default)"
                        ))
                    })
            })
            .collect::<anyhow::Result<Vec<u32>>>()?,
    };
    Ok(list
        .into_iter()
        .map(|size| size_for_kind(kind, size))
        .collect())
}

/// The measurement points of `options`, every size checked against the
/// datagram limit of every family in `families`.
///
/// # Errors
/// Usage errors for values out of range, naming the flag and the limit.
pub(crate) fn points(
    options: &PointOptions,
    families: &[IpFamily],
) -> anyhow::Result<Vec<TestSpec>> {
    let valid = options.time_seconds > 0.0
        && options.time_seconds <= MAX_TRIAL_SECONDS
        && (0.0..=MAX_WARMUP_SECONDS).contains(&options.warmup_seconds);
    if !valid {
        return Err(Failure::usage(format!(
            "-t must be in (0, {MAX_TRIAL_SECONDS}] seconds and --warmup in [0, {MAX_WARMUP_SECONDS}]"
        )));
    }
    if options.parallel == 0 {
        return Err(Failure::usage("-P must be at least 1"));
    }
    if let Some(budget) = &options.send_budget {
        budget.check(options.reverse, &options.tests, MAX_TRIAL_SECONDS)?;
    }
    let duration_ms = (options.time_seconds * 1000.0).round() as u64;
    let interval_ms = match options.interval_ms {
        Some(ms) if ms < 10 => {
            return Err(Failure::usage(format!(
                "-i {ms} ms is below the 10 ms minimum"
            )))
        }
        Some(ms) if ms > duration_ms.max(10) => {
            return Err(Failure::usage(format!(
                "-i {} s is longer than a trial ({} s): -i is in seconds, as in iperf3 (e.g. -i 0.1 or -i 100ms)",
                ms as f64 / 1000.0,
                options.time_seconds
            )))
        }
        Some(ms) => ms,
        // Media points default to the OpenH323 experiments' 50 ms series.
        None if options.tests == [TestKind::Media] => MEDIA_INTERVAL_MS.min(duration_ms.max(10)),
        None => (duration_ms / 10).clamp(10, 1000),
    };
    if !(1.0..=1000.0).contains(&options.probe_interval_ms) {
        return Err(Failure::usage(format!(
            "--probe-interval {} ms is outside 1 to 1000 ms",
            options.probe_interval_ms
        )));
    }
    let mut points = Vec::new();
    let mut problems = Vec::new();
    for &kind in &options.tests {
        if kind == TestKind::Media {
            let media = options.media.clone().unwrap_or_else(default_media);
            let mut point = crate::pipeline::plan::media_point(&media, options, interval_ms);
            point.duration_ms = duration_ms;
            points.push(point);
            continue;
        }
        for size in sizes_for(kind, &options.sizes)? {
            for &family in families {
                if let Err(problem) = validate_size(kind, family, size) {
                    problems.push(problem);
                }
            }
            let stream = matches!(kind, TestKind::TcpStream | TestKind::UdpStream);
            let budget = options.send_budget.filter(|_| stream);
            let seconds = budget.map_or(options.time_seconds, |b| b.cap_seconds);
            points.push(TestSpec {
                duration_ms: (seconds * 1000.0).round() as u64,
                send_budget: budget.map(|b| b.budget),
                warmup_ms: (options.warmup_seconds * 1000.0).round() as u64,
                parallel_streams: if stream { options.parallel } else { 1 },
                reverse: options.reverse && (stream || kind == TestKind::UdpProbe),
                rate: if kind == TestKind::UdpStream {
                    options.bitrate
                } else {
                    None
                },
                sample_interval_ms: interval_ms,
                probe_interval_us: (kind == TestKind::UdpProbe || (options.probe && stream))
                    .then(|| (options.probe_interval_ms * 1000.0).round() as u64),
                ..TestSpec::new(kind, size)
            });
        }
    }
    if !problems.is_empty() {
        problems.dedup();
        return Err(Failure::usage(problems.join("\n")));
    }
    Ok(points)
}

/// Checks what an executor relies on: at least one arm, unique arm ids,
/// the baseline among the arms, a repeat count in range, every point's size
/// within its arm families' limits.
///
/// # Errors
/// A usage error saying what is wrong.
pub(crate) fn validate(config: &RunConfig) -> anyhow::Result<()> {
    if config.arms.is_empty() {
        return Err(Failure::usage("the plan has no arm to measure"));
    }
    for (index, arm) in config.arms.iter().enumerate() {
        if config.arms[..index].iter().any(|a| a.id == arm.id) {
            return Err(Failure::usage(format!("arm id `{}` appears twice", arm.id)));
        }
    }
    if config.arm(&config.baseline).is_none() {
        let ids: Vec<&str> = config.arms.iter().map(|a| a.id.as_str()).collect();
        return Err(Failure::usage(format!(
            "baseline `{}` is not one of the arms ({})",
            config.baseline,
            ids.join(", ")
        )));
    }
    if config.repeat == 0 {
        return Err(Failure::usage("--repeat must be at least 1"));
    }
    // The protocol's bounds on every point (the server checks the same) and
    // on the repetitions.
    crate::guard::check_plan(&config.points, config.repeat)?;
    // Every load flow as the engine will run it beside every point: the
    // same admission as a measured point (the server checks it too).
    for load in &config.loads {
        for flow in &load.flows {
            for point in &config.points {
                let spec = dualperf_engine::client::load::load_flow_spec(&flow.spec, load, point);
                dualperf_engine::limits::validate_spec(&spec).map_err(|problem| {
                    Failure::usage(format!(
                        "load `{}`, flow {}: {problem}",
                        load.name, flow.label
                    ))
                })?;
            }
        }
    }
    if config.points.is_empty() {
        return Err(Failure::usage("the plan has no measurement point"));
    }
    let mut problems = Vec::new();
    for point in &config.points {
        for family in config.families() {
            if let Err(problem) = validate_size(point.kind, family, point.size_bytes) {
                problems.push(problem);
            }
        }
    }
    if !problems.is_empty() {
        problems.dedup();
        return Err(Failure::usage(problems.join("\n")));
    }
    Ok(())
}

/// The baseline for `arms`: the arm named by the user, else native IPv4
/// when measured, else the first arm.
///
/// # Errors
/// A usage error when the named arm is not among `arms`.
pub(crate) fn choose_baseline(arms: &[Arm], asked: Option<&str>) -> anyhow::Result<ArmId> {
    if let Some(asked) = asked {
        // The id the user typed names an arm; an invalid id names none.
        let wanted = ArmId::new(asked).ok();
        return arms
            .iter()
            .find(|arm| Some(&arm.id) == wanted.as_ref())
            .map(|arm| arm.id.clone())
            .ok_or_else(|| {
                let ids: Vec<&str> = arms.iter().map(|a| a.id.as_str()).collect();
                Failure::usage(format!(
                    "--baseline {asked}: no such arm (arms: {})",
                    ids.join(", ")
                ))
            });
    }
    let v4 = ArmId::native(IpFamily::V4);
    Ok(arms
        .iter()
        .find(|arm| arm.id == v4)
        .or(arms.first())
        .map(|arm| arm.id.clone())
        .unwrap_or(v4))
}

/// Reads a plan file: a `RunConfig` as JSON (with how to execute it, a
/// [`PlanFile`], as the lab writes it), or a result (`.json` or `.json.gz`)
/// whose `config` is taken.
///
/// # Errors
/// A usage error when the file cannot be read or is neither document.
pub(crate) fn load(path: &Path) -> anyhow::Result<PlanFile> {
    let text = super::gzip::read_document(path)
        .with_context(|| format!("reading plan {}", path.display()))
        .map_err(|e| Failure::usage(format!("{e:#}")))?;
    if let Ok(plan) = serde_json::from_slice::<PlanFile>(&text) {
        return Ok(plan);
    }
    match serde_json::from_slice::<RunResult>(&text) {
        Ok(result) => Ok(PlanFile {
            config: result.config,
            execution: Execution::default(),
        }),
        Err(error) => Err(Failure::usage(format!(
            "{} is neither a dualperf plan (a run configuration) nor a result: {error}",
            path.display()
        ))),
    }
}

/// The typed target of `--repeat auto` (netperf's -I 99,5 -i 10,3).
pub(crate) fn auto_target() -> PrecisionTarget {
    let netperf = dualperf_stats::repetition::NETPERF;
    PrecisionTarget {
        confidence: netperf.confidence,
        half_width_ratio: netperf.half_width_ratio,
        min_repetitions: netperf.min_repetitions,
        max_repetitions: netperf.max_repetitions,
    }
}

/// The stats stage's stopping rule for `target`.
pub(crate) fn precision(target: &PrecisionTarget) -> Precision {
    Precision {
        confidence: target.confidence,
        half_width_ratio: target.half_width_ratio,
        min_repetitions: target.min_repetitions,
        max_repetitions: target.max_repetitions,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(tests: &str) -> PointOptions {
        PointOptions {
            tests: parse_tests(tests).unwrap(),
            ..PointOptions::default()
        }
    }

    #[test]
    fn a_media_point_carries_its_profile_and_samples_every_50_ms() {
        let mut with = options("media");
        with.time_seconds = 10.0;
        let point = &points(&with, &IpFamily::ALL).unwrap()[0];
        assert_eq!(point.kind, TestKind::Media);
        assert_eq!(point.media, Some(default_media()));
        assert_eq!((point.size_bytes, point.sample_interval_ms), (172, 50));
        with.interval_ms = Some(20);
        assert_eq!(
            points(&with, &IpFamily::ALL).unwrap()[0].sample_interval_ms,
            20
        );
    }

    #[test]
    fn tcp_connect_has_one_point_whatever_the_sizes() {
        assert_eq!(sizes_for(TestKind::TcpConnect, "papers").unwrap(), vec![0]);
        assert_eq!(
            sizes_for(TestKind::TcpStream, "papers").unwrap().last(),
            Some(&65_536)
        );
        assert_eq!(
            sizes_for(TestKind::UdpRr, "64, 128").unwrap(),
            vec![64, 128]
        );
        assert_eq!(sizes_for(TestKind::UdpStream, "1K").unwrap(), vec![1024]);
        assert!(sizes_for(TestKind::UdpRr, "huge").is_err());
    }

    #[test]
    fn udp_probe_points_carry_the_probe_interval_and_the_g711_size() {
        let mut options = options("udp-probe");
        options.probe_interval_ms = 20.0;
        let point = &points(&options, &IpFamily::ALL).unwrap()[0];
        assert_eq!(point.kind, TestKind::UdpProbe);
        assert_eq!(
            (point.size_bytes, point.probe_interval_us),
            (172, Some(20_000))
        );
    }

    #[test]
    fn probe_adds_a_probe_interval_to_load_points_only() {
        let mut with = options("tcp-stream,udp-rr");
        with.probe = true;
        let intervals: Vec<Option<u64>> = points(&with, &IpFamily::ALL)
            .unwrap()
            .iter()
            .map(|p| p.probe_interval_us)
            .collect();
        assert_eq!(intervals, vec![Some(10_000), None]);
        let without = points(&options("tcp-stream"), &IpFamily::ALL).unwrap();
        assert_eq!(without[0].probe_interval_us, None);
    }

    #[test]
    fn a_probe_interval_outside_one_to_a_thousand_ms_is_a_usage_error() {
        let mut options = options("udp-probe");
        options.probe_interval_ms = 0.5;
        let error = points(&options, &IpFamily::ALL).unwrap_err();
        assert!(error.to_string().contains("--probe-interval"), "{error}");
    }

    #[test]
    fn a_sample_interval_longer_than_the_trial_is_a_usage_error_that_names_the_unit() {
        let mut options = options("udp-rr");
        options.interval_ms = Some(50_000);
        let error = points(&options, &IpFamily::ALL).unwrap_err();
        assert!(
            error.to_string().contains("seconds, as in iperf3"),
            "{error}"
        );
    }

    #[test]
    fn by_default_every_trial_has_about_ten_samples() {
        let mut options = options("udp-rr");
        options.time_seconds = 0.3;
        assert_eq!(
            points(&options, &IpFamily::ALL).unwrap()[0].sample_interval_ms,
            30
        );
        options.time_seconds = 60.0;
        assert_eq!(
            points(&options, &IpFamily::ALL).unwrap()[0].sample_interval_ms,
            1000
        );
    }

    #[test]
    fn a_udp_size_above_the_ipv4_limit_is_refused_only_when_ipv4_is_measured() {
        let mut options = options("udp-stream");
        options.sizes = "65520".into();
        assert!(points(&options, &IpFamily::ALL).is_err());
        assert!(points(&options, &[IpFamily::V6]).is_ok());
    }

    #[test]
    fn the_baseline_is_ipv4_unless_named_and_a_wrong_name_is_a_usage_error() {
        let arms = vec![
            Arm::native(IpFamily::V6, None),
            Arm::native(IpFamily::V4, None),
        ];
        assert_eq!(choose_baseline(&arms, None).unwrap().as_str(), "v4");
        assert_eq!(choose_baseline(&arms, Some("v6")).unwrap().as_str(), "v6");
        let error = choose_baseline(&arms, Some("v7")).unwrap_err();
        assert!(error.to_string().contains("arms: v6, v4"), "{error}");
    }

    #[test]
    fn a_plan_with_a_baseline_outside_its_arms_is_refused() {
        let config = RunConfig {
            peer: dualperf_model::PeerKind::Dualperf,
            loads: Vec::new(),
            points: points(&options("tcp-rr"), &IpFamily::ALL).unwrap(),
            arms: vec![Arm::native(IpFamily::V6, Some("::1".into()))],
            baseline: ArmId::native(IpFamily::V4),
            repeat: 1,
            order: Default::default(),
            host: None,
            port: 1,
            client_cpus: vec![],
            server_cpus: vec![],
            command_line: vec![],
            contrasts: Vec::new(),
            goal: None,
        };
        let error = validate(&config).unwrap_err();
        assert!(error.to_string().contains("baseline `v4`"), "{error}");
    }

    /// Send budgets (`-n`/`-k`) through the plan (pipeline/send_budget.rs).
    mod send_budget {
        use super::*;
        use crate::pipeline::send_budget::BudgetOption;
        use dualperf_model::{IpFamily, SendBudget};

        fn budgeted(tests: &str, budget: SendBudget) -> PointOptions {
            PointOptions {
                tests: parse_tests(tests).unwrap(),
                send_budget: Some(BudgetOption {
                    budget,
                    cap_seconds: 30.0,
                }),
                ..PointOptions::default()
            }
        }

        #[test]
        fn stream_points_carry_the_budget_and_the_cap_and_the_others_stay_timed() {
            let options = budgeted("udp-stream,tcp-stream,tcp-rr", SendBudget::Packets(1000));
            let points = points(&options, &IpFamily::ALL).unwrap();
            for point in &points {
                match point.kind {
                    TestKind::UdpStream | TestKind::TcpStream => {
                        assert_eq!(point.send_budget, Some(SendBudget::Packets(1000)));
                        assert_eq!(point.duration_ms, 30_000);
                    }
                    _ => {
                        assert_eq!(point.send_budget, None);
                        assert_eq!(point.duration_ms, 1_000);
                    }
                }
            }
        }

        #[test]
        fn a_budget_without_a_stream_point_with_reverse_or_of_zero_is_a_usage_error() {
            let message = |options: &PointOptions| {
                let error = points(options, &IpFamily::ALL).unwrap_err();
                error.downcast_ref::<Failure>().unwrap().message.clone()
            };
            assert!(message(&budgeted("tcp-rr", SendBudget::Bytes(1))).contains("neither"));
            let mut reverse = budgeted("tcp-stream", SendBudget::Packets(5));
            reverse.reverse = true;
            assert!(message(&reverse).contains("-R"));
            // The server sends a udp-stream budget (-u -k N -R).
            let mut udp_reverse = budgeted("udp-stream", SendBudget::Packets(5));
            udp_reverse.reverse = true;
            assert!(points(&udp_reverse, &IpFamily::ALL).is_ok());
            assert!(message(&budgeted("udp-stream", SendBudget::Packets(0))).contains("0"));
            let mut uncapped = budgeted("udp-stream", SendBudget::Packets(5));
            uncapped.send_budget.as_mut().unwrap().cap_seconds = 0.0;
            assert!(message(&uncapped).contains("time cap"));
        }
    }
}

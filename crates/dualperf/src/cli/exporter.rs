//! `dualperf exporter`: compares IPv4 and IPv6 against every configured
//! host running `dualperf serve`, on a bounded schedule, and serves the
//! results on `/metrics` for Prometheus (docs/monitoring.md).
//!
//! The configuration, the schedule, the exposition and the `/metrics`
//! server live in `dualperf-exporter`; this file wires the engine's client
//! (one comparison = one `RunConfig` through `Client::run_plan`) and the
//! stats stage (`analyse`) into its driver, and handles SIGTERM/Ctrl-C.
//! Also the textfile of `dualperf run --openmetrics FILE`.

mod probe;

use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use anyhow::Context;
use dualperf_engine::client::{Client, ClientOptions};
use dualperf_exporter::driver::{resident_memory_bytes, unix_ms};
use dualperf_exporter::{
    drive, Config, DriverOptions, DriverTarget, ExporterFacts, MetricsServer, Outcome, Registry,
    StopSignal, Target,
};
use dualperf_model::{Arm, ArmId, IpFamily, RepetitionOrder, RunConfig, RunResult};

use super::Failure;
use crate::pipeline::output::write_atomically;
use crate::pipeline::plan::{points, validate, PointOptions};

const EXAMPLES: &str = "Examples:
  dualperf exporter --config /etc/dualperf/exporter.toml
  dualperf exporter --config exporter.toml --check        validate, print the schedule, exit
  curl -s http://127.0.0.1:9518/metrics | promtool check metrics

A minimal configuration (every key: docs/monitoring.md):
  [[target]]
  name = \"lon-1\"
  host = \"lon-1.example.net\"     # runs `dualperf serve`";

/// Arguments of `dualperf exporter`.
///
/// Runs short IPv4/IPv6 comparisons against the configured targets (hosts
/// running `dualperf serve`), one at a time, each target every `interval`
/// plus jitter, within a per-target rate limit and a duty-cycle cap, and
/// serves the latest results on /metrics in OpenMetrics text (loopback,
/// port 9518, unless `listen` says otherwise). SIGTERM or Ctrl-C stops it
/// cleanly, after the current trial.
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment, after_help = EXAMPLES)]
pub(crate) struct Args {
    /// The configuration file (TOML).
    #[arg(long, value_name = "FILE")]
    pub config: PathBuf,
    /// Validate the configuration, print the schedule it gives and exit.
    #[arg(long)]
    pub check: bool,
    /// Serve /metrics here instead of at the file's `listen` (port 0: any free port).
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<SocketAddr>,
    /// Stop after N comparisons [default: run until stopped].
    #[arg(long, value_name = "N")]
    pub max_runs: Option<u64>,
}

/// A target ready to compare: its configuration, its plan with the arms'
/// addresses still open, its key.
pub(super) struct Prepared {
    pub(super) target: Target,
    pub(super) plan: RunConfig,
    pub(super) auth_key: Option<Vec<u8>>,
}

/// Runs `dualperf exporter`.
pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    let path = args.config.display().to_string();
    let text = super::files::read_text_capped(
        &args.config,
        super::files::MAX_CONFIG_BYTES,
        "the configuration file",
    )?;
    let config = Config::parse(&text).map_err(|errors| {
        let lines: Vec<String> = errors
            .0
            .iter()
            .map(|e| {
                let at = e.line.map_or(path.clone(), |line| format!("{path}:{line}"));
                let key = if e.key.is_empty() {
                    String::new()
                } else {
                    format!("{}: ", e.key)
                };
                format!("{at}: {key}{}", e.message)
            })
            .collect();
        Failure::usage(lines.join("\n"))
    })?;
    let prepared = config
        .targets
        .iter()
        .map(|target| {
            prepare(target)
                .map_err(|e| Failure::usage(format!("{path}: target \"{}\": {e:#}", target.name)))
        })
        .collect::<anyhow::Result<Vec<Prepared>>>()?;
    let modules = config
        .modules
        .iter()
        .map(|module| {
            prepare(&module.target)
                .map_err(|e| Failure::usage(format!("{path}: module \"{}\": {e:#}", module.name)))
        })
        .collect::<anyhow::Result<Vec<Prepared>>>()?;
    let listen = args.listen.unwrap_or(config.listen);
    if args.check {
        print_schedule(&config, &prepared, listen);
        return Ok(ExitCode::SUCCESS);
    }

    let server = MetricsServer::bind(listen)
        .map_err(|e| Failure::usage(format!("cannot serve /metrics on {listen}: {e}")))?;
    let names: Vec<&str> = prepared.iter().map(|p| p.target.name.as_str()).collect();
    let registry = Arc::new(Mutex::new(Registry::new(
        &names,
        env!("CARGO_PKG_VERSION"),
        unix_ms(),
    )));
    let shared = registry.clone();
    let prober = (!modules.is_empty())
        .then(|| Arc::new(probe::prober(&config, modules, std::env::args().collect())));
    let mut http = server
        .spawn_with_probe(
            Arc::new(move |format| {
                let facts = ExporterFacts {
                    now_unix_ms: unix_ms(),
                    resident_memory_bytes: resident_memory_bytes(),
                };
                match shared.lock() {
                    Ok(registry) => registry.render(format, &facts),
                    Err(poisoned) => poisoned.into_inner().render(format, &facts),
                }
            }),
            prober,
        )
        .context("starting the /metrics server")?;
    if prepared.is_empty() {
        eprintln!(
            "dualperf exporter: serving http://{}/metrics; no scheduled targets",
            http.address()
        );
    } else {
        eprintln!(
            "dualperf exporter: serving http://{}/metrics; {} targets, measuring about {:.0} % of the time (cap {:.0} %)",
            http.address(),
            prepared.len(),
            config.planned_duty_cycle() * 100.0,
            config.duty_cycle * 100.0
        );
    }
    if !config.modules.is_empty() {
        let names: Vec<&str> = config.modules.iter().map(|m| m.name.as_str()).collect();
        eprintln!(
            "dualperf exporter: /probe?target=HOST&module=NAME with modules {} (at most {} at once)",
            names.join(", "),
            config.probe_concurrency
        );
    }

    let stop = StopSignal::new();
    let raised = stop.clone();
    let _ = ctrlc::set_handler(move || {
        if !raised.is_stopped() {
            eprintln!("dualperf exporter: stopping (after the current trial, if one runs)");
        }
        raised.stop();
    });
    let targets: Vec<DriverTarget> = prepared
        .iter()
        .map(|p| DriverTarget {
            name: p.target.name.clone(),
            schedule: p.target.schedule,
        })
        .collect();
    let seed = unix_ms() ^ (u64::from(std::process::id()) << 32);
    let command_line: Vec<String> = std::env::args().collect();
    let flag = stop.flag();
    if prepared.is_empty() {
        // Only /probe: serve until stopped.
        while !stop.is_stopped() {
            stop.sleep(std::time::Duration::from_secs(1));
        }
        http.stop();
        eprintln!("dualperf exporter: stopped");
        return Ok(ExitCode::SUCCESS);
    }
    let summary = drive(
        &targets,
        DriverOptions {
            duty_cycle: config.duty_cycle,
            limit: args.max_runs,
            seed,
        },
        &registry,
        &stop,
        &mut |index| compare(&prepared[index], &command_line, &flag),
        &mut |line| eprintln!("dualperf exporter: {line}"),
    );
    http.stop();
    eprintln!(
        "dualperf exporter: {} after {} comparisons ({} fully successful)",
        if summary.stopped { "stopped" } else { "done" },
        summary.recorded,
        summary.succeeded
    );
    Ok(ExitCode::SUCCESS)
}

/// The plan of one comparison of `target` (arms without addresses yet),
/// checked as `run` checks its plans, and its key.
fn prepare(target: &Target) -> anyhow::Result<Prepared> {
    let measurement = &target.measurement;
    let options = PointOptions {
        tests: measurement.tests.clone(),
        sizes: measurement
            .sizes
            .as_ref()
            .map_or("default".to_string(), |sizes| {
                sizes
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(",")
            }),
        time_seconds: measurement.time.as_secs_f64(),
        warmup_seconds: measurement.warmup.as_secs_f64(),
        parallel: measurement.parallel,
        reverse: false,
        bitrate: measurement.bitrate,
        interval_ms: None,
        probe_interval_ms: 10.0,
        probe: false,
        media: None,
        send_budget: None,
    };
    let plan = RunConfig {
        peer: target.peer,
        loads: Vec::new(),
        points: points(&options, &target.families)?,
        arms: target
            .families
            .iter()
            .map(|&family| Arm::native(family, None))
            .collect(),
        baseline: ArmId::native(target.baseline),
        repeat: measurement.repeat,
        order: RepetitionOrder::Interleaved,
        host: Some(target.host.clone().unwrap_or_else(|| target.name.clone())),
        port: target.port,
        client_cpus: Vec::new(),
        server_cpus: Vec::new(),
        command_line: Vec::new(),
        contrasts: Vec::new(),
        goal: None,
    };
    validate(&plan)?;
    let auth_key = match &target.auth_key_file {
        None => None,
        Some(file) => {
            let key = super::files::read_text_capped(
                file,
                super::files::MAX_KEY_FILE_BYTES,
                "auth_key_file",
            )?;
            Some(key.trim_end_matches(['\r', '\n']).as_bytes().to_vec())
        }
    };
    Ok(Prepared {
        target: target.clone(),
        plan,
        auth_key,
    })
}

/// One comparison of a prepared target: addresses resolved now (a name's
/// A and AAAA may change), the plan run by the engine's client, analysed once.
pub(super) fn compare(
    prepared: &Prepared,
    command_line: &[String],
    stop: &Arc<std::sync::atomic::AtomicBool>,
) -> Outcome {
    let target = &prepared.target;
    let mut plan = prepared.plan.clone();
    for arm in &mut plan.arms {
        match address(target, arm.family) {
            Ok(address) => arm.target = Some(address.to_string()),
            Err(error) => return Outcome::Failed(error),
        }
    }
    plan.command_line = command_line.to_vec();
    let client = Client::new(ClientOptions {
        auth_key: prepared.auth_key.clone(),
        client_cpus: Vec::new(),
        server_cpus: Vec::new(),
        stop: Some(stop.clone()),
        clocks_synchronised: target.clocks_synchronised,
        server_in_process: false,
        path_pids: Vec::new(),
        live_intervals: false,
        interval_sink: None,
        source_addresses: Vec::new(),
        control_wait: None,
    });
    let mut result = client.run_plan(&plan, &mut |_| {});
    result.analysis = Some(dualperf_stats::analyse(&result));
    Outcome::Measured(Box::new(result))
}

/// The target's address in `family`: configured, else the host's first
/// address of that family.
fn address(target: &Target, family: IpFamily) -> Result<IpAddr, String> {
    let configured = match family {
        IpFamily::V4 => target.v4.map(IpAddr::V4),
        IpFamily::V6 => target.v6.map(IpAddr::V6),
    };
    if let Some(address) = configured {
        return Ok(address);
    }
    let host = target
        .host
        .as_deref()
        .ok_or_else(|| format!("no {} address", family.label()))?;
    let addresses = (host, target.port)
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve `{host}`: {e}"))?;
    addresses
        .map(|a| a.ip().to_canonical())
        .find(|a| IpFamily::of(a) == family)
        .ok_or_else(|| format!("`{host}` has no {} address", family.label()))
}

fn print_schedule(config: &Config, prepared: &[Prepared], listen: SocketAddr) {
    use dualperf_exporter::config::format_duration;
    println!("/metrics on http://{listen}/metrics");
    println!(
        "{:<20} {:>6} {:>12} {:>9} {:>8} {:>6}  tests",
        "target", "trials", "comparison", "interval", "jitter", "max/h"
    );
    for p in prepared {
        let t = &p.target;
        let tests: Vec<&str> = t.measurement.tests.iter().map(|k| k.name()).collect();
        println!(
            "{:<20} {:>6} {:>12} {:>9} {:>8} {:>6}  {}",
            t.name,
            p.plan.points.len() * p.plan.arms.len() * p.plan.repeat as usize,
            format!("~{}", format_duration(t.estimated_comparison())),
            format_duration(t.schedule.interval),
            format_duration(t.schedule.jitter),
            t.schedule.max_runs_per_hour,
            tests.join(",")
        );
    }
    println!(
        "measuring about {:.1} % of the time; duty_cycle caps it at {:.0} %",
        config.planned_duty_cycle() * 100.0,
        config.duty_cycle * 100.0
    );
}

/// Writes `result` as OpenMetrics text to `path` atomically, for
/// node_exporter's textfile collector (`dualperf run --openmetrics FILE`).
/// The `target` label is the host the user named, else the arms' addresses.
///
/// # Errors
/// When the file cannot be written.
pub(crate) fn write_textfile(result: &RunResult, path: &Path) -> anyhow::Result<()> {
    let target = result.config.host.clone().unwrap_or_else(|| {
        let addresses: Vec<&str> = result
            .config
            .arms
            .iter()
            .filter_map(|arm| arm.target.as_deref())
            .collect();
        addresses.join(",")
    });
    let text = dualperf_exporter::render_run(&target, result);
    write_atomically(path, text.as_bytes())?;
    eprintln!("dualperf: wrote {}", path.display());
    Ok(())
}

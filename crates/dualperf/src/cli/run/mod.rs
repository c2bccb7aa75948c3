//! `dualperf run`: measure arms side by side (native IPv4 and IPv6 by
//! default) against a `dualperf serve` (or an in-process one with
//! `--loopback`). Builds the plan from flags (or reads it with `--plan`),
//! executes it in this process and hands the result to the one pipeline
//! (`crate::pipeline`): analysed once, saved, then printed.
//!
//! Exit codes: 0 when every trial ran, 1 when any failed, 130 on Ctrl-C or
//! SIGTERM, 2 on usage errors (including sizes above a family's datagram limit).

use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::atomic::Ordering;

use dualperf_engine::client::ClientOptions;
use dualperf_model::Execution;

// Helpers of this subcommand, in files next to this one (cli/run/*.rs).
mod args;
pub(crate) use args::{parse_interval_ms, parse_peer, parse_repeat, Args, Repeat, DEFAULT_TESTS};
mod bidir;
mod families;
mod iperf3;
mod json_stream;
mod load;
mod loopback;
mod media;
pub(crate) use media::VIDEO_CIF;
mod output;
mod peer;
pub(crate) use peer::{check_stamp_plan, default_tests};
mod plan;
mod title;
mod tuning;
mod wire;

use crate::pipeline::execute::{self, Repetitions, MEASURE_ONLY_FLAG};
use crate::pipeline::finish::{finish, View};
use crate::pipeline::output::write_json;
use crate::pipeline::plan::{choose_baseline, validate};
use crate::pipeline::progress::ProgressView;
use loopback::LoopbackPeer;
use output::{exit_code, json_on_stdout};
use plan::{plan_from_file, plan_from_flags};

/// Runs `dualperf run`; with `-T` every line it prints, errors included,
/// carries the title.
pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    if let Some(path) = &args.iperf3.logfile {
        iperf3::redirect_to_logfile(path)?;
    }
    let Some(title) = args.iperf3.title.clone() else {
        return run_measured(args);
    };
    let json_on_stdout = json_on_stdout(&args) || args.iperf3.json_stream;
    let _titled = title::prefix_lines(&title, json_on_stdout)
        .map_err(|e| super::Failure::environment(format!("-T: redirecting the output: {e}")))?;
    Ok(match run_measured(args) {
        Ok(code) => code,
        Err(error) => super::report_error(&error),
    })
}

/// `dualperf run` itself.
fn run_measured(mut args: Args) -> anyhow::Result<ExitCode> {
    debug_assert_eq!(MEASURE_ONLY_FLAG, "--measure-only");
    let socket_tuning = tuning::socket_tuning(&args.iperf3)?;
    if args.iperf3.bidir && args.tests == DEFAULT_TESTS && !args.udp && args.media.is_none() {
        // iperf3's --bidir is one TCP test.
        args.tests = "tcp-stream".into();
    }
    let source_addresses = tuning::source_addresses(&args.iperf3)?;
    args.dscp = args.dscp.or(args.iperf3.tos);
    args.warmup = args.iperf3.omit.unwrap_or(args.warmup);
    let parse_cpus = |text: &Option<String>| -> anyhow::Result<Vec<u32>> {
        match (text, args.pin) {
            (Some(text), _) => dualperf_engine::affinity::parse_cpu_list(text)
                .map_err(|e| super::Failure::usage(format!("CPU list: {e}"))),
            (None, true) => Ok(vec![0]),
            (None, false) => Ok(Vec::new()),
        }
    };
    peer::check_flags(&args)?;
    let client_cpus = parse_cpus(&args.client_cpus)?;
    let server_cpus = parse_cpus(&args.server_cpus)?;
    // An in-process far end for --loopback; it stops when `far_end` drops.
    let far_end = LoopbackPeer::start(&args)?;
    let loopback_port = far_end.as_ref().map(LoopbackPeer::port);
    let (mut config, execution) = match &args.plan {
        Some(path) => plan_from_file(&args, path, loopback_port)?,
        None => (plan_from_flags(&args, loopback_port)?, Execution::default()),
    };
    // Flags win over the plan file's execution (the lab writes one).
    let until_precise = match args.repeat {
        Some(Repeat::Auto) => Some(crate::pipeline::plan::auto_target()),
        _ => execution.until_precise,
    };
    let rerun_contended = match args.rerun_contended {
        0 => execution.rerun_contended,
        n => n,
    };
    iperf3::apply_congestion(&mut config, args.iperf3.congestion.as_deref());
    tuning::check_peer(config.peer, &socket_tuning, &source_addresses)?;
    tuning::apply(&mut config, socket_tuning);
    if args.iperf3.bidir {
        bidir::apply(&mut config)?;
    }
    if args.client_cpus.is_some() || args.pin {
        config.client_cpus = client_cpus;
    }
    if args.server_cpus.is_some() || args.pin {
        config.server_cpus = server_cpus;
    }
    if let Some(baseline) = &args.baseline {
        config.baseline = choose_baseline(&config.arms, Some(baseline))?;
    }
    // The recorded command line never carries a secret (--auth-key is redacted).
    config.command_line = super::secret::redact_command_line(&std::env::args().collect::<Vec<_>>());
    validate(&config)?;
    peer::check_points(&config)?;
    peer::check_stamp_plan(&config)?;
    // Only a dualperf serve answers path probes (issue 27).
    if config.peer == dualperf_model::PeerKind::Dualperf {
        for note in super::path::preflight::notes(&config) {
            eprintln!("dualperf: {note}");
        }
    }
    let auth_key =
        super::secret::load_auth_key(args.auth_key_file.as_deref(), args.auth_key.as_deref())?;
    if config.peer == dualperf_model::PeerKind::Stamp {
        if let Some(key) = &auth_key {
            dualperf_engine::stamp::auth::StampKey::new(key).map_err(super::Failure::usage)?;
        }
    }

    let stop = crate::guard::stop_flag();
    let options = ClientOptions {
        auth_key,
        client_cpus: config.client_cpus.clone(),
        server_cpus: config.server_cpus.clone(),
        stop: None,
        clocks_synchronised: args.clocks_synchronised,
        server_in_process: args.loopback,
        path_pids: args.path_pids.clone(),
        live_intervals: args.iperf3.json_stream
            || crate::pipeline::progress::live_intervals_wanted(
                args.no_intervals,
                args.measure_only.is_some(),
                json_on_stdout(&args),
            ),
        interval_sink: None,
        source_addresses: source_addresses.clone(),
        control_wait: args.iperf3.rcv_timeout,
    };
    let routers = dualperf_engine::router_cpu::RouterCpuMeter::parse(&args.router_cpus)?;
    let tty = std::io::stderr().is_terminal();
    let capture = match args.verify_wire && args.measure_only.is_none() {
        true => Some(wire::start(&config)?),
        false => None,
    };
    if let Some(goal) = crate::cli::goal::goal(args.precision, args.budget) {
        config.goal = Some(goal);
        config.repeat = goal.first_stage;
    }
    let target = until_precise.as_ref().map(crate::pipeline::plan::precision);
    let repetitions = match (config.goal, &target) {
        (Some(goal), _) => Repetitions::ToGoal(goal),
        (None, Some(target)) => Repetitions::UntilPrecise(target),
        (None, None) => Repetitions::Fixed,
    };
    let mut view = match repetitions {
        Repetitions::Fixed => ProgressView::new(&config, tty),
        _ => ProgressView::until_precise(&config, tty),
    }
    .with_intervals(&options);
    // --json-stream lines for every kind of run (a precision goal's too).
    if args.iperf3.json_stream {
        view = view.with_stream(json_stream::sink());
    }
    let mut result = execute::in_process(
        &config,
        options,
        Some(stop.clone()),
        &mut view,
        repetitions,
        rerun_contended,
        &routers,
    );
    let interrupted = stop.load(Ordering::SeqCst);
    if let Some(capture) = capture {
        wire::finish(capture, &mut result)?;
    }

    if let Some(raw) = &args.measure_only {
        write_json(raw, &result, false)?;
        return Ok(exit_code(&result, interrupted));
    }
    let outputs = output::outputs(&args)?;
    let result = finish(
        result,
        &outputs,
        View {
            verbose: args.verbose,
            quiet: args.iperf3.json_stream,
            more: "--verbose",
        },
    )?;
    if args.iperf3.json_stream {
        json_stream::emit("end", serde_json::to_value(&result)?);
    }
    for line in tuning::granted_lines(&result, &socket_tuning, &source_addresses) {
        eprintln!("{line}");
    }
    if args.iperf3.bidir {
        for line in bidir::direction_lines(&result) {
            super::say(&line);
        }
    }
    output::epilogue(&args, &result)?;
    Ok(exit_code(&result, interrupted))
}

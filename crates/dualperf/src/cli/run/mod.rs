//! `dualperf run`: measure IPv4 and IPv6 side by side against a
//! `dualperf serve` (or an in-process one with `--loopback`), print a table,
//! and write every raw value with `--json`.
//!
//! Exit codes: 0 when every trial ran, 1 when any failed, 130 on Ctrl-C or
//! SIGTERM, 2 on usage errors (including sizes above a family's datagram limit).

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::Ordering;

use dualperf_engine::client::{Client, ClientOptions, Progress};
use dualperf_engine::server::{Server, ServerConfig, ServerHandle};
use dualperf_model::{BitRate, IpFamily, RepetitionOrder, RunConfig, TestKind};

// Helpers of this subcommand, in files next to this one (cli/run/*.rs).
mod finish;
mod json;
mod plan;
pub mod table;

use plan::{build_config, resolve_targets, Targets};

/// Examples shown at the end of `dualperf run --help`.
const RUN_EXAMPLES: &str = "Examples:
  dualperf run --loopback                      127.0.0.1 against ::1, server in-process
  dualperf run --loopback --repeat 5 --csv out.csv
  dualperf run hostb.example.net               both families against `dualperf serve` on hostb
  dualperf run --v4 192.0.2.7 --v6 2001:db8::7 --sizes papers --json result.json
  dualperf run hostb -6 --tests tcp-stream -P 4 --reverse -t 10
  dualperf run hostb --tests udp-stream -b 100M --sizes 64,1408
  dualperf run hostb --tests tcp-stream --probe    one-way delay under load
  dualperf run --loopback --tests tcp-rr,udp-rr --pin   both ends on CPU 0";

/// Arguments of `dualperf run`.
///
/// Size presets for --sizes: `papers` = 64,128,256,512,1024,1408,2048,4096,
/// 8192,16384,32768,65507 (64 KiB for TCP); `small` = 64,512,1408; `default`
/// = one size per test: tcp-stream 128 KiB writes, udp-stream 1024 B,
/// tcp-rr/udp-rr 64 B.
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment, after_help = RUN_EXAMPLES)]
pub struct Args {
    /// Server host name or address; resolved to its A and AAAA addresses.
    pub host: Option<String>,
    /// Start a server in this process and compare 127.0.0.1 with ::1.
    #[arg(long, conflicts_with = "host")]
    pub loopback: bool,
    /// IPv4 address of the server (instead of resolving HOST).
    #[arg(long, value_name = "ADDR")]
    pub v4: Option<std::net::Ipv4Addr>,
    /// IPv6 address of the server (instead of resolving HOST).
    #[arg(long, value_name = "ADDR")]
    pub v6: Option<std::net::Ipv6Addr>,
    /// Measure IPv4 only.
    #[arg(short = '4', conflicts_with = "only_v6")]
    pub only_v4: bool,
    /// Measure IPv6 only.
    #[arg(short = '6')]
    pub only_v6: bool,
    /// Server control port.
    #[arg(short, long, default_value_t = dualperf_engine::DEFAULT_PORT)]
    pub port: u16,
    /// Tests to run, comma-separated: tcp-stream,udp-stream,tcp-rr,udp-rr,tcp-connect,udp-probe.
    #[arg(
        long,
        value_name = "LIST",
        default_value = "tcp-stream,udp-stream,tcp-rr,udp-rr,tcp-connect"
    )]
    pub tests: String,
    /// Message sizes in bytes, comma-separated, or a preset: `papers` =
    /// 64,128,256,512,1024,1408,2048,4096,8192,16384,32768,65507 (the seed
    /// papers' sweep; 64 KiB for TCP), `small` = 64,512,1408, `default` = one
    /// size per test (tcp-stream 128 KiB writes, udp-stream 1024 B, rr 64 B).
    /// UDP sizes above a family's maximum datagram (65507 B IPv4, 65527 B
    /// IPv6) are rejected; sizes above the path MTU are sent fragmented.
    #[arg(long, value_name = "LIST|PRESET", default_value = "default")]
    pub sizes: String,
    /// Measured seconds per trial (warm-up excluded).
    #[arg(short = 't', long = "time", value_name = "SECS", default_value_t = 1.0)]
    pub time: f64,
    /// Warm-up seconds per trial, excluded from the results.
    #[arg(long, value_name = "SECS", default_value_t = 0.25)]
    pub warmup: f64,
    /// Repetitions of every point per family [default: 3; 2 with --quick].
    /// More repetitions give narrower confidence intervals.
    #[arg(long, value_name = "R")]
    pub repeat: Option<u32>,
    /// Order of repetitions: interleaved (v4, v6, v4 …) or blocked.
    #[arg(long, value_enum, default_value = "interleaved")]
    pub order: OrderArg,
    /// Parallel streams (tcp-stream, udp-stream).
    #[arg(short = 'P', long, value_name = "N", default_value_t = 1)]
    pub parallel: u32,
    /// The server sends, the client receives.
    #[arg(short = 'R', long)]
    pub reverse: bool,
    /// Target UDP payload rate per stream (e.g. 100M); unlimited if unset
    /// (unlike iperf3's 1 Mbit/s default: mind shared paths).
    #[arg(short = 'b', long, value_name = "RATE")]
    pub bitrate: Option<BitRate>,
    /// Length of one time-series sample, milliseconds (at least 10).
    #[arg(
        short = 'i',
        long = "interval",
        value_name = "MS",
        default_value_t = 1000
    )]
    pub interval_ms: u64,
    /// Write the full result (schema dualperf.run v1) to this file.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write the comparison as tidy CSV (one row per point × metric × family).
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Results database the run is appended to
    /// [default: $XDG_DATA_HOME/dualperf/results.sqlite].
    #[arg(long, value_name = "PATH", env = "DUALPERF_DB")]
    pub db: Option<PathBuf>,
    /// Also print the raw per-family table (every counter, no statistics).
    #[arg(long)]
    pub raw_table: bool,
    /// Declare the two hosts' clocks synchronised (PTP, NTP…): one-way delay
    /// is then reported between hosts too, with an error bound of half the
    /// minimum RTT. Without it, one-way delay is reported only when both ends
    /// share one kernel clock (loopback, a namespace lab).
    #[arg(long)]
    pub clocks_synchronised: bool,
    /// Do not append the run to the results database (wins over --db).
    #[arg(long)]
    pub no_store: bool,
    /// A quick look: 0.5 s per trial, two repetitions (about 15 s in all).
    #[arg(long)]
    pub quick: bool,
    /// File holding the shared secret of a server started with a key
    /// (also: DUALPERF_AUTH_KEY).
    #[arg(long, value_name = "FILE", conflicts_with = "auth_key")]
    pub auth_key_file: Option<PathBuf>,
    /// The shared secret on the command line (visible in `ps`: prefer
    /// --auth-key-file or DUALPERF_AUTH_KEY); never recorded.
    #[arg(long, value_name = "KEY")]
    pub auth_key: Option<String>,
    /// Pin the client's measuring threads to these CPUs (e.g. 0 or 0,2-3).
    #[arg(long, value_name = "LIST")]
    pub client_cpus: Option<String>,
    /// Ask the server to pin its measuring threads to these CPUs.
    #[arg(long, value_name = "LIST")]
    pub server_cpus: Option<String>,
    /// Shorthand for --client-cpus 0 --server-cpus 0 (request/response on one CPU).
    #[arg(long)]
    pub pin: bool,
    /// udp-probe: one probe every MS milliseconds (isochronous, RFC 3432;
    /// default 10 ms, a G.711 cadence; 1 to 1000). The probe payload is
    /// the udp-probe size (--sizes; default 172 B).
    #[arg(long, value_name = "MS", default_value_t = 10.0)]
    pub probe_interval: f64,
    /// Latency under load: run a udp-probe stream (--probe-interval, 172 B)
    /// alongside every tcp-stream and udp-stream trial, in the same
    /// direction, and report its one-way delay, jitter and loss.
    #[arg(long)]
    pub probe: bool,
}

/// `--order` values.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum OrderArg {
    /// v4, v6, v4, v6 …
    Interleaved,
    /// v4, v4, …, v6, v6 …
    Blocked,
}

impl From<OrderArg> for RepetitionOrder {
    fn from(order: OrderArg) -> Self {
        match order {
            OrderArg::Interleaved => RepetitionOrder::Interleaved,
            OrderArg::Blocked => RepetitionOrder::Blocked,
        }
    }
}

/// Runs `dualperf run`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let parse_cpus = |text: &Option<String>| -> anyhow::Result<Vec<u32>> {
        match (text, args.pin) {
            (Some(text), _) => dualperf_engine::affinity::parse_cpu_list(text)
                .map_err(|e| super::Failure::usage(format!("CPU list: {e}"))),
            (None, true) => Ok(vec![0]),
            (None, false) => Ok(Vec::new()),
        }
    };
    let client_cpus = parse_cpus(&args.client_cpus)?;
    let server_cpus = parse_cpus(&args.server_cpus)?;
    let families = match (args.only_v4, args.only_v6) {
        (true, _) => vec![IpFamily::V4],
        (_, true) => vec![IpFamily::V6],
        _ => IpFamily::ALL.to_vec(),
    };
    // An in-process server for --loopback; it stops when `_server` drops.
    let mut _server: Option<ServerHandle> = None;
    let (targets, port) = if args.loopback {
        let handle = Server::bind(ServerConfig {
            port: 0,
            ..Default::default()
        })
        .map_err(|e| super::Failure::environment(format!("starting the loopback server: {e}")))?
        .spawn();
        let port = handle.port();
        _server = Some(handle);
        (
            Targets {
                v4: Some("127.0.0.1".into()),
                v6: Some("::1".into()),
            },
            port,
        )
    } else {
        (
            resolve_targets(args.host.as_deref(), args.v4, args.v6, args.port)?,
            args.port,
        )
    };
    let mut config: RunConfig = build_config(&args, families, targets, port)?;
    config.client_cpus = client_cpus.clone();
    config.server_cpus = server_cpus.clone();
    config.command_line = super::secret::redact_command_line(&std::env::args().collect::<Vec<_>>());
    let auth_key =
        super::secret::load_auth_key(args.auth_key_file.as_deref(), args.auth_key.as_deref())?;
    super::guard::check_plan(&config.points, config.repeat)?;

    let stop = super::guard::stop_flag();
    let client = Client::new(ClientOptions {
        auth_key,
        client_cpus,
        server_cpus,
        stop: Some(stop.clone()),
        clocks_synchronised: args.clocks_synchronised,
    });
    let tty = std::io::stderr().is_terminal();
    let mut on_progress = |progress: &Progress| {
        if let (
            true,
            Progress::TrialStarted {
                index,
                total,
                spec,
                family,
                repetition,
            },
        ) = (tty, progress)
        {
            eprint!(
                "\r\x1b[2K[{}/{}] {} over {} (repetition {})",
                index + 1,
                total,
                spec.label(),
                family,
                repetition + 1
            );
            let _ = std::io::stderr().flush();
        }
        if let Progress::TrialFinished { trial, .. } = progress {
            if let dualperf_model::TrialOutcome::Failed { error } = &trial.outcome {
                eprintln!(
                    "{}dualperf: {} over {} failed: {error}",
                    if tty { "\r\x1b[2K" } else { "" },
                    trial.spec.label(),
                    trial.family
                );
            }
        }
    };
    let mut result = client.run_plan(&config, &mut on_progress);
    if tty {
        eprint!("\r\x1b[2K");
    }
    if stop.load(Ordering::SeqCst) {
        result.complete = false;
        if result.errors.is_empty() {
            result.errors.push("interrupted by Ctrl-C".into());
        }
    }
    finish::analyse(&mut result);
    finish::print_tables(&result, args.raw_table);
    if args.loopback {
        println!("\nCPU: with --loopback the server runs in this process, so both CPU rows show the whole process.");
    }
    let database = if args.no_store {
        None
    } else {
        Some(super::report::database_path(args.db.as_deref())?)
    };
    finish::save(
        &result,
        &finish::Destinations {
            database: database.as_deref(),
            json: args.json.as_deref(),
            csv: args.csv.as_deref(),
        },
    )?;
    let failed = result
        .trials
        .iter()
        .filter(|t| matches!(t.outcome, dualperf_model::TrialOutcome::Failed { .. }))
        .count();
    if result.complete {
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!(
            "dualperf: {failed} of {} trials failed; {}",
            result.trials.len(),
            result.errors.join("; ")
        );
        Ok(ExitCode::from(super::guard::exit_code(&stop)))
    }
}

/// The test kinds named in `--tests`, in order, without repeats.
fn parse_tests(list: &str) -> anyhow::Result<Vec<TestKind>> {
    let mut kinds = Vec::new();
    for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let kind: TestKind = name.parse().map_err(|e: String| super::Failure::usage(e))?;
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    if kinds.is_empty() {
        return Err(super::Failure::usage("--tests names no test"));
    }
    Ok(kinds)
}

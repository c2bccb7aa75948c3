//! The main job, `dualperf lab [PRESET|FILE]`: build a testbed, measure IPv4
//! against IPv6 across it, keep the result, remove the testbed.
//!
//! 1. load and validate the topology (exit 2 if it is wrong);
//! 2. build it under a fresh run id (exit 3 without root, namespaces or a
//!    needed kernel feature), with a Ctrl-C/SIGTERM handler raising a flag;
//! 3. [`measure`]: start `dualperf serve -p PORT` in the server node, wait
//!    until it listens (its socket table polled inside the node, no probe
//!    connection),
//!    run `dualperf run --v4 A --v6 B -p PORT --json FILE …` in the client
//!    node with its stdout passed through (that is the side-by-side table);
//! 4. attach the testbed's [`TestbedFacts`](dualperf_model::TestbedFacts) to
//!    the `RunResult` and rewrite `results/<stamp>-<run>/result.json`;
//! 5. remove the testbed — also after an error or an interrupt;
//! 6. append the run to the results database and write the HTML report
//!    `results/<stamp>-<run>/report.html` next to the JSON.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context};
use dualperf_lab::{preset, BuildOptions, LabError, RunId, Testbed, Topology};
use dualperf_model::{IpFamily, RunResult};

use super::errors::{describe, to_cli_error};
use super::signal::interrupt_flag;
use crate::cli::Failure;

/// How long the server gets to start listening.
const SERVER_START_TIMEOUT: Duration = Duration::from_secs(15);
/// One round of waiting for the server's port before checking the server is alive.
const LISTEN_POLL: Duration = Duration::from_millis(300);
/// Upper bound on one client run; the default battery stays under 10 minutes.
const CLIENT_TIMEOUT: Duration = Duration::from_secs(15 * 60);

/// Message sizes of the full lab battery: small packets, a mid size, the
/// largest unfragmented UDP payload over IPv6 on a 1500-byte MTU (1408 B,
/// seed 002/004's largest), and two sizes that fragment.
const LAB_SIZES: &str = "64,256,1024,1408,4096,16384";

/// Options of the main job.
#[derive(clap::Args, Debug)]
pub struct JobArgs {
    /// Built-in topology (see `dualperf lab list`) or path to a topology TOML file.
    #[arg(default_value = preset::DEFAULT_PRESET)]
    pub topology: String,
    /// A first look in under a minute: fewer tests, sizes and repetitions.
    #[arg(long)]
    pub quick: bool,
    /// Run a udp-probe stream beside every tcp-stream and udp-stream trial
    /// (latency under load: one-way delay, PDV, loss; passed to `dualperf run`).
    #[arg(long)]
    pub probe: bool,
    /// Repetitions of each test (passed to `dualperf run`).
    #[arg(long, value_name = "R")]
    pub repeat: Option<u32>,
    /// Tests to run, comma-separated (passed to `dualperf run`).
    #[arg(long, value_name = "LIST")]
    pub tests: Option<String>,
    /// Message sizes in bytes, comma-separated, or a preset (passed to
    /// `dualperf run`) [default: 64,256,1024,1408,4096,16384; one size with --quick].
    #[arg(long, value_name = "LIST")]
    pub sizes: Option<String>,
    /// Seconds per throughput trial (passed to `dualperf run`).
    #[arg(short = 't', long = "time", value_name = "SECS")]
    pub time_seconds: Option<u32>,
    /// CPUs to pin the client to, e.g. `0` (passed to `dualperf run`).
    #[arg(long, value_name = "LIST", requires = "server_cpus")]
    pub client_cpus: Option<String>,
    /// CPUs to pin the server to, e.g. `1` (passed to `dualperf run`).
    #[arg(long, value_name = "LIST", requires = "client_cpus")]
    pub server_cpus: Option<String>,
    /// TCP/UDP port the server listens on inside the testbed.
    #[arg(short = 'p', long, default_value_t = 5211)]
    pub port: u16,
    /// Folder that receives `<stamp>-<run>/result.json` and `report.html`.
    #[arg(long, value_name = "DIR", default_value = "results")]
    pub results: PathBuf,
    /// Results database the run is appended to
    /// [default: $XDG_DATA_HOME/dualperf/results.sqlite].
    #[arg(long, value_name = "PATH", env = "DUALPERF_DB")]
    pub db: Option<PathBuf>,
    /// Do not append the run to the results database (wins over --db).
    #[arg(long)]
    pub no_store: bool,
    /// The dualperf executable that provides `serve` and `run` (default: this one).
    #[arg(long, value_name = "PATH")]
    pub engine: Option<PathBuf>,
    /// Print the commands that would build the testbed and run the measurement; change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Echo every kernel command before it runs.
    #[arg(short, long)]
    pub verbose: bool,
}

/// The traffic step's inputs: which binary, which port, which `run` options,
/// where the JSON goes.
#[derive(Debug, Clone)]
pub struct Traffic {
    /// The dualperf executable (resolved here: inside `ip netns exec`,
    /// `/proc/self/exe` would name `ip`).
    pub exe: PathBuf,
    /// Server port.
    pub port: u16,
    /// Extra `dualperf run` options (`--quick`, `--repeat`, …).
    pub run_options: Vec<OsString>,
    /// Where `dualperf run` writes its JSON.
    pub json: PathBuf,
}

/// How the traffic step ended.
#[derive(Debug)]
pub struct Measured {
    /// `dualperf run`'s exit code.
    pub client_exit_code: i32,
}

/// Runs `dualperf lab [PRESET|FILE]`.
pub fn run(args: JobArgs) -> anyhow::Result<ExitCode> {
    let topology = preset::load(&args.topology).map_err(to_cli_error)?;
    let (client, server) = match (topology.client(), topology.server()) {
        (Some(c), Some(s)) => (c.name.clone(), s.name.clone()),
        _ => {
            return Err(Failure::usage(format!(
                "topology `{}` needs a client and a server node: name nodes `client` and `server`, \
                 or set `client = \"…\"` and `server = \"…\"` at the top of the file",
                topology.name()
            )))
        }
    };
    let run = if args.dry_run {
        RunId::unique()
    } else {
        dualperf_lab::cleanup::unused_run_id(&dualperf_lab::Runner::new(false))
            .map_err(to_cli_error)?
    };
    let folder = args
        .results
        .join(format!("{}-{run}", utc_stamp(SystemTime::now())));
    let traffic = Traffic {
        exe: match &args.engine {
            Some(path) => path.clone(),
            None => std::env::current_exe().context("finding the dualperf executable")?,
        },
        port: args.port,
        run_options: run_options(&args),
        json: folder.join("result.json"),
    };
    if args.dry_run {
        print_dry_run(&topology, &run, &traffic, &client, &server);
        return Ok(ExitCode::SUCCESS);
    }
    let interrupt = interrupt_flag()?;
    let options = BuildOptions {
        verbose: args.verbose,
        interrupt: Some(interrupt.clone()),
    };
    eprintln!(
        "dualperf: building `{}` ({}) as run {run}",
        topology.name(),
        topology.description()
    );
    let testbed = match Testbed::build(&topology, &run, &options) {
        Ok(testbed) => testbed,
        Err(_) if interrupt.load(Ordering::SeqCst) => return interrupted(),
        Err(err) => return Err(to_cli_error(err)),
    };
    let missing: Vec<String> = testbed
        .capabilities()
        .missing()
        .iter()
        .map(|f| format!("{} ({})", f.label(), f.module()))
        .collect();
    if !missing.is_empty() {
        // The full notes go into the result; one line here.
        eprintln!(
            "dualperf: note: this kernel lacks {}; see `dualperf doctor`",
            missing.join(", ")
        );
    }
    std::fs::create_dir_all(&folder)
        .with_context(|| format!("creating results folder {}", folder.display()))?;
    let outcome = measure(&testbed, &client, &server, &traffic, &interrupt);
    let facts = testbed.facts();
    let teardown = testbed.teardown();
    if let Err(err) = &teardown {
        eprintln!(
            "dualperf: warning: {}; run `dualperf lab clean`",
            describe(err)
        );
    }
    let measured = match outcome {
        Ok(measured) => measured,
        Err(_) if interrupt.load(Ordering::SeqCst) => return interrupted(),
        Err(err) => return Err(err),
    };
    let result = attach_facts(&traffic.json, facts)?;
    eprintln!("dualperf: results in {}", traffic.json.display());
    println!("results: {}", traffic.json.display());
    keep(&result, &args, &folder)?;
    Ok(if measured.client_exit_code == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn interrupted() -> anyhow::Result<ExitCode> {
    eprintln!("dualperf: interrupted; the testbed has been removed");
    Ok(ExitCode::from(130))
}

/// The `dualperf run` options the job passes through.
fn run_options(args: &JobArgs) -> Vec<OsString> {
    let mut options: Vec<OsString> = Vec::new();
    if args.quick {
        options.push("--quick".into());
    }
    if args.probe {
        options.push("--probe".into());
    }
    let mut pair = |flag: &str, value: Option<String>| {
        if let Some(value) = value {
            options.push(flag.into());
            options.push(value.into());
        }
    };
    pair("--repeat", args.repeat.map(|r| r.to_string()));
    pair("--tests", args.tests.clone());
    // The full job sweeps message sizes, as the papers did (about 4 minutes
    // on two cores); --quick keeps one size per test.
    let sizes = match (&args.sizes, args.quick) {
        (Some(sizes), _) => Some(sizes.clone()),
        (None, false) => Some(LAB_SIZES.to_string()),
        (None, true) => None,
    };
    pair("--sizes", sizes);
    pair("-t", args.time_seconds.map(|t| t.to_string()));
    pair("--client-cpus", args.client_cpus.clone());
    pair("--server-cpus", args.server_cpus.clone());
    options
}

/// `serve` arguments: `serve -p PORT`.
fn server_args(traffic: &Traffic) -> Vec<OsString> {
    vec!["serve".into(), "-p".into(), traffic.port.to_string().into()]
}

/// `run` arguments: `run --v4 A --v6 B -p PORT --json FILE OPTIONS…`.
fn client_args(traffic: &Traffic, v4: &str, v6: &str) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec![
        "run".into(),
        "--v4".into(),
        v4.into(),
        "--v6".into(),
        v6.into(),
        "-p".into(),
        traffic.port.to_string().into(),
        "--json".into(),
        traffic.json.clone().into(),
        // The lab stores the run itself, once the testbed facts are attached.
        "--no-store".into(),
    ];
    args.extend(traffic.run_options.iter().cloned());
    args
}

/// The traffic step: server in `server`, client in `client`, on a built testbed.
///
/// # Errors
/// If a process cannot start, the server never listens, the client does not
/// finish in time, or `interrupt` is raised (processes are stopped first).
pub fn measure(
    testbed: &Testbed,
    client: &str,
    server: &str,
    traffic: &Traffic,
    interrupt: &AtomicBool,
) -> anyhow::Result<Measured> {
    // The server logs a line per session; keep them next to the result
    // instead of between the client's progress lines.
    let server_log_path = traffic.json.with_file_name("server.log");
    let server_log = std::fs::File::create(&server_log_path)
        .with_context(|| format!("creating {}", server_log_path.display()))?;
    let mut server_process = testbed
        .spawn(
            server,
            traffic.exe.clone(),
            &server_args(traffic),
            Stdio::null(),
            Stdio::from(server_log),
        )
        .map_err(anyhow::Error::new)?;
    let deadline = Instant::now() + SERVER_START_TIMEOUT;
    // Short waits in a loop, so a server that dies at start is reported at once.
    while let Err(err) =
        testbed.wait_for_listening_port(server, traffic.port, LISTEN_POLL, Some(interrupt))
    {
        if let Some(status) = server_process.try_wait()? {
            bail!(
                "`dualperf serve` in node `{server}` exited ({status}) before listening on port {} (see {})",
                traffic.port,
                server_log_path.display()
            );
        }
        if matches!(err, LabError::Interrupted) || Instant::now() >= deadline {
            return Err(anyhow::Error::new(err)
                .context(format!("waiting for `dualperf serve` in node `{server}`")));
        }
    }
    let v4 = testbed.address(server, IpFamily::V4)?.to_string();
    let v6 = testbed.address(server, IpFamily::V6)?.to_string();
    let mut client_process = testbed
        .spawn(
            client,
            traffic.exe.clone(),
            &client_args(traffic, &v4, &v6),
            Stdio::inherit(),
            Stdio::inherit(),
        )
        .map_err(anyhow::Error::new)?;
    let status = client_process.wait(Some(interrupt), Some(CLIENT_TIMEOUT))?;
    server_process.stop();
    Ok(Measured {
        client_exit_code: status.code().unwrap_or(1),
    })
}

/// Appends the run (with its testbed) to the results database and writes the
/// HTML report into the run's folder, printing where both went.
fn keep(result: &RunResult, args: &JobArgs, folder: &Path) -> anyhow::Result<()> {
    if !args.no_store {
        let database = crate::cli::report::database_path(args.db.as_deref())?;
        let mut store = dualperf_store::Store::open(&database)
            .with_context(|| format!("opening results database {}", database.display()))?;
        store
            .save_run(result)
            .with_context(|| format!("storing run {}", result.run_id))?;
        eprintln!(
            "dualperf: stored run {} in {}",
            result.run_id,
            database.display()
        );
    }
    let report = folder.join("report.html");
    crate::cli::report::write_report(result, dualperf_report::Format::Html, Some(&report))?;
    println!("report: {}", report.display());
    Ok(())
}

/// Reads the `RunResult` the client wrote, sets its `testbed`, writes it back.
fn attach_facts(json: &Path, facts: dualperf_model::TestbedFacts) -> anyhow::Result<RunResult> {
    let text = std::fs::read_to_string(json)
        .with_context(|| format!("`dualperf run` wrote no result file {}", json.display()))?;
    let mut result: RunResult = serde_json::from_str(&text)
        .with_context(|| format!("reading the run result {}", json.display()))?;
    result.testbed = Some(facts);
    let temporary = json.with_extension("json.tmp");
    std::fs::write(&temporary, serde_json::to_string_pretty(&result)?)
        .with_context(|| format!("writing {}", temporary.display()))?;
    std::fs::rename(&temporary, json).with_context(|| format!("replacing {}", json.display()))?;
    Ok(result)
}

fn print_dry_run(topology: &Topology, run: &RunId, traffic: &Traffic, client: &str, server: &str) {
    println!(
        "# dualperf lab {}: {}",
        topology.name(),
        topology.description()
    );
    println!("# build (as root):");
    for step in dualperf_lab::plan::build_plan(topology, run) {
        println!("{}", step.command);
    }
    println!("# then wait until every veth shows an fe80:: address (ip -n NETNS -6 addr show scope link)");
    let netns = |node: &str| dualperf_lab::naming::namespace_name(run, node);
    let index = topology.node_index(server).expect("server node exists");
    let [v4, v6] = topology
        .primary_addresses(index)
        .expect("every node has a link");
    let line = |node: &str, args: Vec<OsString>| {
        let mut words = vec![
            "netns".to_string(),
            "exec".into(),
            netns(node),
            traffic.exe.display().to_string(),
        ];
        words.extend(args.iter().map(|a| a.to_string_lossy().into_owned()));
        dualperf_lab::KernelCommand::ip(words).to_string()
    };
    println!("# measure:");
    println!("{} &", line(server, server_args(traffic)));
    println!(
        "{}",
        line(
            client,
            client_args(traffic, &v4.address.to_string(), &v6.address.to_string())
        )
    );
    println!("# tear down:");
    println!("kill %1");
    for command in dualperf_lab::plan::teardown_plan(topology, run) {
        println!("{command}");
    }
}

/// `YYYYMMDDTHHMMSSZ` in UTC, for results folder names.
fn utc_stamp(time: SystemTime) -> String {
    let seconds = time
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (days, rest) = (seconds / 86_400, seconds % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}{month:02}{day:02}T{:02}{:02}{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    /// The main job's traffic step on a real testbed, with a stand-in engine
    /// (iperf3 behind the `serve`/`run` arguments, `testdata/iperf3-engine.sh`)
    /// because the engine is a separate stage: server started in the server
    /// node, found listening over both families, client run with its output
    /// passed through, result rewritten with the testbed, nothing left behind.
    #[test]
    fn the_traffic_step_runs_server_and_client_in_their_nodes_and_records_the_testbed() {
        if !dualperf_lab::can_create_namespaces() {
            assert!(
                std::env::var_os("DUALPERF_REQUIRE_PRIVILEGED").is_none(),
                "needs CAP_NET_ADMIN"
            );
            eprintln!("skipped: needs CAP_NET_ADMIN");
            return;
        }
        let has_iperf3 = std::process::Command::new("iperf3")
            .arg("--version")
            .output()
            .is_ok();
        assert!(
            has_iperf3 || std::env::var_os("DUALPERF_REQUIRE_PRIVILEGED").is_none(),
            "needs iperf3"
        );
        if !has_iperf3 {
            eprintln!("skipped: needs iperf3 for the stand-in engine");
            return;
        }
        let folder = std::env::temp_dir().join(format!("dualperf-lab-job-{}", std::process::id()));
        std::fs::create_dir_all(&folder).unwrap();
        let engine = folder.join("engine.sh");
        std::fs::write(&engine, include_str!("testdata/iperf3-engine.sh")).unwrap();
        std::fs::set_permissions(&engine, std::fs::Permissions::from_mode(0o755)).unwrap();
        let topology = preset::load("router").unwrap();
        let testbed =
            Testbed::build(&topology, &RunId::unique(), &BuildOptions::default()).unwrap();
        let prefix = dualperf_lab::naming::run_namespace_prefix(testbed.run_id());
        let traffic = Traffic {
            exe: engine,
            port: 5299,
            run_options: vec![],
            json: folder.join("result.json"),
        };
        let measured = measure(
            &testbed,
            "client",
            "server",
            &traffic,
            &AtomicBool::new(false),
        )
        .unwrap();
        assert_eq!(measured.client_exit_code, 0);
        attach_facts(&traffic.json, testbed.facts()).unwrap();
        let result: RunResult =
            serde_json::from_str(&std::fs::read_to_string(&traffic.json).unwrap()).unwrap();
        let facts = result.testbed.expect("testbed attached");
        assert_eq!(
            (facts.name.as_str(), facts.client_node.as_str()),
            ("router", "client")
        );
        assert_eq!(
            result.config.targets.v6.as_deref(),
            Some("fd00:dead:beef:2::2")
        );
        testbed.teardown().unwrap();
        let left = std::process::Command::new("ip")
            .args(["netns", "list"])
            .output()
            .unwrap();
        assert!(!String::from_utf8_lossy(&left.stdout).contains(&prefix));
        std::fs::remove_dir_all(&folder).unwrap();
    }

    #[test]
    fn the_stamp_of_a_known_instant_is_its_utc_date_and_time() {
        let instant = UNIX_EPOCH + Duration::from_secs(1_795_305_600 + 3_723); // 2026-11-22 01:02:03 UTC
        assert_eq!(utc_stamp(instant), "20261122T010203Z");
        assert_eq!(utc_stamp(UNIX_EPOCH), "19700101T000000Z");
    }

    #[test]
    fn the_client_gets_both_server_addresses_the_port_and_the_passed_options() {
        let traffic = Traffic {
            exe: "/usr/bin/dualperf".into(),
            port: 5211,
            run_options: vec!["--quick".into()],
            json: "results/x/result.json".into(),
        };
        let args: Vec<String> = client_args(&traffic, "10.180.2.2", "fd00:dead:beef:2::2")
            .into_iter()
            .map(|a| a.into_string().unwrap())
            .collect();
        assert_eq!(
            args,
            [
                "run",
                "--v4",
                "10.180.2.2",
                "--v6",
                "fd00:dead:beef:2::2",
                "-p",
                "5211",
                "--json",
                "results/x/result.json",
                "--no-store",
                "--quick"
            ]
        );
    }
}

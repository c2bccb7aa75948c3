//! The main job, `dualperf lab [PRESET|FILE]`: build a testbed, measure its
//! arms across it, keep the result, remove the testbed.
//!
//! 1. load and validate the topology (exit 2 if it is wrong);
//! 2. build the plan (`crate::pipeline::plan`): the points from the flags,
//!    the arms from the server node's addresses — the same `RunConfig` type
//!    `dualperf run` builds; one run id names the results folder, the JSON,
//!    the database row and the report;
//! 3. build the testbed (exit 3 without root, namespaces or a needed kernel
//!    feature), with a Ctrl-C/SIGTERM handler raising a flag;
//! 4. [`measure`]: start `dualperf serve -p PORT` in the server node, wait
//!    until it listens (its socket table polled inside the node, no probe
//!    connection), then run the measuring child `dualperf run --plan
//!    plan.json --measure-only raw.json` in the client node: the plan
//!    crosses the namespace boundary as the typed value, never as flags;
//! 5. remove the testbed — also after an error or an interrupt;
//! 6. finish through the one pipeline (`crate::pipeline::finish`): attach
//!    the testbed's facts, analyse once, write `result.json`, store the run,
//!    write `report.html`, then print the verdicts.

use dualperf_lab::shell::{comment, quote as shell_quote};
use std::ffi::OsString;
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::Ordering;

use anyhow::{bail, Context};
use dualperf_lab::{preset, BuildOptions, RunId, Testbed, Topology};
use dualperf_model::{Arm, IpFamily, LinkRate, RunConfig};

use super::args::JobArgs;
use super::errors::{describe, to_cli_error};
use super::measure::{measure, server_args, stamp_child_args, Traffic};
use super::signal::interrupt_flag;
use crate::cli::run::Repeat;
use crate::cli::Failure;
use crate::pipeline::execute::{child_args, read_raw, write_plan};
use crate::pipeline::finish::{finish, Outputs, View};
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

/// Runs `dualperf lab [PRESET|FILE]`.
pub(crate) fn run(args: JobArgs) -> anyhow::Result<ExitCode> {
    let topology = preset::load(&args.topology).map_err(to_cli_error)?;
    super::experiment::check_rate_flags(&args, topology.name())?;
    if topology.name() == "path-faults" {
        return super::experiment::path_faults::run(&args, &topology);
    }
    let (topology, link_rate) = shape_links(topology, &args)?;
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
    let started_at = dualperf_engine::clock::unix_ms();
    let run_id = dualperf_model::run_id(started_at, &run.to_string());
    let folder = args.results.join(&run_id);
    let mut experiment = super::experiment::for_topology(&args, &topology, &server, &run)?;
    if experiment.is_some() && args.peer != dualperf_model::PeerKind::Dualperf {
        return Err(Failure::usage(format!(
            "the `{}` experiment measures against dualperf servers; --peer {} is for plain testbeds",
            topology.name(),
            args.peer
        )));
    }
    let config = match &experiment {
        Some(experiment) => experiment.config().clone(),
        None => plan(&args, &topology, &server, &link_rate)?,
    };
    // Router CPU for every preset with routers: the experiment's own
    // steering, else the lab's (`super::routers`).
    let experiment_routers = experiment
        .as_ref()
        .map(|e| e.child_routers())
        .unwrap_or_default();
    let steering = match experiment_routers.is_empty() {
        true => super::routers::plan(&topology, &run, &config),
        false => Vec::new(),
    };
    let traffic = Traffic {
        exe: match &args.engine {
            Some(path) => path.clone(),
            None => std::env::current_exe().context("finding the dualperf executable")?,
        },
        port: args.port,
        plan: folder.join("plan.json"),
        raw: folder.join("raw.json"),
        routers: match experiment_routers.is_empty() {
            true => super::routers::child_args(&steering),
            false => experiment_routers,
        },
        peer: args.peer,
    };
    if args.dry_run {
        let plan = dualperf_model::PlanFile {
            config: config.clone(),
            execution: execution(&args),
        };
        print_dry_run(&topology, &run, &traffic, &plan, &client, &server);
        return Ok(ExitCode::SUCCESS);
    }
    if args.verify_wire {
        crate::pipeline::verify_wire::require_tool()?;
    }
    let interrupt = interrupt_flag()?;
    let options = BuildOptions {
        verbose: args.verbose,
        interrupt: Some(interrupt.clone()),
        delay_lines: Default::default(),
    };
    eprintln!(
        "dualperf: building `{}` ({}) as run {run_id}",
        topology.name(),
        topology.description()
    );
    eprintln!(
        "dualperf: {}",
        dualperf_report::present::regime::link_rate_words(&link_rate)
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
    // The arms' targets are the topology's own addressing, fixed before the
    // build; the built testbed must answer on them.
    for arm in config.arms.iter().filter(|arm| arm.is_plain_native()) {
        let built = testbed.address(&server, arm.family)?.to_string();
        if arm.target.as_deref() != Some(built.as_str()) {
            bail!(
                "the testbed gave the server {built}, the plan expected {:?} for {}",
                arm.target,
                arm.label
            );
        }
    }
    std::fs::create_dir_all(&folder)
        .with_context(|| format!("creating results folder {}", folder.display()))?;
    if let Some(experiment) = experiment.as_mut() {
        experiment.prepare(&testbed)?;
    }
    super::routers::steer(&steering, args.verbose)?;
    write_plan(&traffic.plan, &config, &execution(&args))?;
    // User-space forwarders (TAYGA for NAT64) are watched: one that wanted
    // nearly a whole core limits its arm, and the result must say so rather
    // than let the difference read as IPv6's.
    let daemons: Vec<(i32, dualperf_lab::SchedStat)> = testbed
        .daemon_pids()
        .into_iter()
        .filter_map(|pid| dualperf_lab::SchedStat::of(pid).map(|stat| (pid, stat)))
        .collect();
    let capture = match args.verify_wire {
        true => Some(super::wire::start(&testbed, &server, &folder, args.port)?),
        false => None,
    };
    let measuring = std::time::Instant::now();
    let outcome = measure(&testbed, &client, &server, &traffic, &interrupt);
    let wall_ns = measuring.elapsed().as_nanos() as u64;
    let captured = capture.map(crate::pipeline::verify_wire::Capture::stop);
    let mut facts = testbed.facts();
    facts.notes.extend(super::routers::note(&steering));
    facts.link_rate = Some(link_rate);
    for (pid, before) in &daemons {
        if let Some(after) = dualperf_lab::SchedStat::of(*pid) {
            let (ran, wanted) = after.shares_since(before, wall_ns);
            let arms = config.arms.len().max(1) as f64;
            facts.notes.push(format!(
                "user-space forwarder (pid {pid}) ran {:.0} % and wanted {:.0} % of one core \
                 averaged over the whole run; its arm ran about 1/{arms} of the time, so while \
                 it forwarded it wanted up to {:.0} % (near 100 %: it, not the address family, \
                 limits that arm)",
                ran * 100.0,
                wanted * 100.0,
                (wanted * arms * 100.0).min(100.0)
            ));
        }
    }
    let interrupted_run = interrupt.load(Ordering::SeqCst);
    if let (Some(experiment), Ok(_), false) = (experiment.as_mut(), &outcome, interrupted_run) {
        let (testbed, server) = (&testbed, server.as_str());
        let (traffic, interrupt) = (&traffic, interrupt.as_ref());
        let step = super::experiment::Step {
            testbed,
            server,
            traffic,
            interrupt,
        };
        experiment.after(&step, &mut facts);
    }
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
    let mut result = match read_raw(&traffic.raw) {
        Ok(result) => result,
        Err(err) if interrupted_run => {
            eprintln!("dualperf: nothing measured was saved ({err:#})");
            return interrupted();
        }
        Err(err) => return Err(err),
    };
    if let Some(captured) = &captured {
        super::wire::check(&mut result, captured)?;
    }
    result.run_id = run_id;
    result.testbed = Some(facts);
    result.config.command_line = config.command_line.clone();
    let outputs = Outputs {
        json: Some(folder.join("result.json")),
        pretty: false,
        csv: None,
        html: Some(folder.join("report.html")),
        raw: args.raw,
        database: if args.no_store {
            None
        } else {
            Some(crate::cli::report::database_path(args.db.as_deref())?)
        },
    };
    let result = finish(
        result,
        &outputs,
        View {
            verbose: args.table,
            quiet: experiment.as_ref().is_some_and(|e| e.replaces_verdicts()),
            more: "--table",
        },
    )?;
    if let Some(experiment) = &experiment {
        experiment.print(&result);
    }
    let _ = std::fs::remove_file(&traffic.raw);
    crate::cli::say(&format!("results: {}", folder.display()));
    if interrupt.load(Ordering::SeqCst) {
        return interrupted();
    }
    Ok(if measured.client_exit_code == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `topology` with the lab's link rate (`--link-rate`, default
/// [`dualperf_lab::link_rate::DEFAULT_LINK_RATE`]) applied, and the rate as
/// recorded in the result. Asking for a rate on a topology that sets its
/// own is a usage error: the flag would silently do nothing.
fn shape_links(
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

fn interrupted() -> anyhow::Result<ExitCode> {
    eprintln!("dualperf: interrupted; the testbed has been removed");
    Ok(ExitCode::from(130))
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

/// The udp-stream rate without `-b`, on links the lab shaped: the link rate as payload,
/// a few percent more than the link carries once the headers are on, so
/// the link and not the sender sets the goodput. Unpaced, a UDP sender
/// offers what its core can (2.9 Gbit/s into 200, measured), burns that
/// core on datagrams the qdisc drops and starves the rest of the machine;
/// paced at the link rate it leaves the CPU alone, and a sender that still
/// cannot keep up (64 B datagrams) is reported cpu-bound. A topology with
/// its own rates: its slowest link (`bottleneck`: 10 Mbit/s, where an
/// unpaced sender lost 99.8 % of its datagrams). Unshaped links: unpaced.
pub(crate) fn udp_stream_rate(
    link_rate: &LinkRate,
    topology: &Topology,
) -> Option<dualperf_model::BitRate> {
    match link_rate {
        LinkRate::Shaped { bits_per_second } => Some(
            dualperf_model::BitRate::from_bits_per_second(*bits_per_second),
        ),
        LinkRate::Topology => dualperf_lab::link_rate::slowest_rate(topology),
        LinkRate::Unshaped => None,
    }
}

/// The lab's plan: the points from the flags, and every arm the topology
/// offers towards the server node — native IPv4 and IPv6 where both ends
/// speak them, and one arm per tunnel or translator, each aimed at the
/// server address that makes its traffic take that path.
fn plan(
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
        points: points(&point_options(args, link_rate, topology)?, &families)?,
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
fn execution(args: &JobArgs) -> dualperf_model::Execution {
    dualperf_model::Execution {
        until_precise: (args.repeat == Some(Repeat::Auto)).then(auto_target),
        rerun_contended: args.rerun_contended,
    }
}

fn print_dry_run(
    topology: &Topology,
    run: &RunId,
    traffic: &Traffic,
    config: &dualperf_model::PlanFile,
    client: &str,
    server: &str,
) {
    println!(
        "{}",
        comment(&format!(
            "dualperf lab {}: {}",
            topology.name(),
            topology.description()
        ))
    );
    let (implementations, note) =
        dualperf_lab::Implementations::for_dry_run(topology, &dualperf_lab::Runner::new(false));
    if !note.is_empty() {
        println!("{}", comment(&note));
    }
    println!("# build (as root):");
    for step in dualperf_lab::plan::build_plan(topology, run, &implementations) {
        println!("{step}");
    }
    println!("# then wait until every veth shows an fe80:: address (ip -n NETNS -6 addr show scope link)");
    let netns = |node: &str| dualperf_lab::naming::namespace_name(run, node);
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
    println!("# the plan (arms, points, repetitions) the measuring child reads:");
    println!(
        "mkdir -p {}",
        shell_quote(
            &traffic
                .plan
                .parent()
                .unwrap_or(Path::new("."))
                .display()
                .to_string()
        )
    );
    println!(
        "{}",
        dualperf_lab::shell::here_document(
            &traffic.plan.display().to_string(),
            &serde_json::to_string_pretty(config).unwrap_or_default()
        )
    );
    println!("# measure:");
    println!("{} &", line(server, server_args(traffic)));
    println!(
        "{}",
        line(
            client,
            stamp_child_args(child_args(&traffic.plan, &traffic.raw, &[]), traffic.peer),
        )
    );
    println!("# tear down:");
    println!("kill %1");
    for command in dualperf_lab::plan::teardown_plan(topology, run, &implementations) {
        println!("{command}");
    }
    println!(
        "{}",
        comment(&format!(
            "then: dualperf report {} (or import it)",
            traffic.raw.display()
        ))
    );
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
            plan: folder.join("plan.json"),
            raw: folder.join("raw.json"),
            routers: Vec::new(),
            peer: Default::default(),
        };
        let args = parse(&["router", "--quick", "-p", "5299"]);
        let mut config = plan(&args, &topology, "server", &LinkRate::Unshaped).unwrap();
        config.arms[1].label = "IPv6 (as planned)".into();
        write_plan(&traffic.plan, &config, &execution(&args)).unwrap();
        let measured = measure(
            &testbed,
            "client",
            "server",
            &traffic,
            &std::sync::atomic::AtomicBool::new(false),
        )
        .unwrap();
        assert_eq!(measured.client_exit_code, 0);
        // The child measured exactly the plan it was handed.
        let result = read_raw(&traffic.raw).unwrap();
        assert_eq!(result.config, config);
        assert_eq!(
            result.config.arms[1].target.as_deref(),
            Some("fd00:dead:beef:2::2")
        );
        let facts = testbed.facts();
        assert_eq!(
            (facts.name.as_str(), facts.client_node.as_str()),
            ("router", "client")
        );
        testbed.teardown().unwrap();
        let left = std::process::Command::new("ip")
            .args(["netns", "list"])
            .output()
            .unwrap();
        assert!(!String::from_utf8_lossy(&left.stdout).contains(&prefix));
        std::fs::remove_dir_all(&folder).unwrap();
    }

    /// `dualperf lab ARGS…` parsed as clap would.
    fn parse(args: &[&str]) -> JobArgs {
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            args: JobArgs,
        }
        let all = std::iter::once("lab").chain(args.iter().copied());
        <Cli as clap::Parser>::try_parse_from(all).unwrap().args
    }

    #[test]
    fn the_plan_aims_native_arms_at_the_server_node_with_ipv4_as_baseline() {
        let topology = preset::load("router").unwrap();
        let shaped = LinkRate::Shaped {
            bits_per_second: 100_000_000,
        };
        let config = plan(&parse(&["router", "--quick"]), &topology, "server", &shaped).unwrap();
        // On shaped links udp-stream is paced at the link rate.
        let udp = config
            .points
            .iter()
            .find(|p| p.kind == dualperf_model::TestKind::UdpStream);
        assert_eq!(
            udp.and_then(|p| p.rate).map(|r| r.bits_per_second()),
            Some(100_000_000)
        );
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

    #[test]
    fn shell_quoting_leaves_plain_paths_alone() {
        assert_eq!(
            shell_quote("results/a-b/plan.json"),
            "results/a-b/plan.json"
        );
        assert_eq!(shell_quote("my results/x"), "'my results/x'");
    }
}

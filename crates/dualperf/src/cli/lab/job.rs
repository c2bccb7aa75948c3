//! The main job, `dualperf lab [PRESET|FILE]`: build a testbed, measure its
//! arms across it, keep the result, remove the testbed.
//!
//! 1. load and validate the topology (exit 2 if it is wrong);
//! 2. build the plan (`plan.rs`, on `crate::pipeline::plan`): the points from the flags,
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

use std::process::ExitCode;
use std::sync::atomic::Ordering;

use anyhow::{bail, Context};
use dualperf_lab::{preset, BuildOptions, RunId, Testbed};

use super::args::JobArgs;
use super::dry_run::print_dry_run;
use super::errors::{describe, to_cli_error};
use super::measure::{measure, Traffic};
use super::plan::{execution, plan, shape_links};
use super::signal::interrupt_flag;
use crate::cli::Failure;
use crate::pipeline::execute::{read_raw, write_plan};
use crate::pipeline::finish::{finish, Outputs, View};

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

fn interrupted() -> anyhow::Result<ExitCode> {
    eprintln!("dualperf: interrupted; the testbed has been removed");
    Ok(ExitCode::from(130))
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;
    use crate::cli::lab::args::parse_job_args as parse;
    use dualperf_model::LinkRate;

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
}

//! Nothing is left behind: not after a drop, not after a failure half-way
//! through building, not after an interrupt, not after `kill -9` (then
//! `lab clean` removes it), and a topology needing a missing kernel feature
//! builds nothing at all.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use dualperf_lab::naming::{namespace_name, run_namespace_prefix};
use dualperf_lab::{
    cleanup, preset, BuildOptions, Feature, LabError, RunId, Runner, Testbed, Topology,
};

use super::helpers::{HELPER_VARIABLE, RUN_VARIABLE};
use super::{build_preset, host_interfaces_of, is_running, namespaces_of, require_net_admin};

/// Deletes a namespace the test created by hand, also when the test fails.
struct HandMadeNamespace(String);

impl Drop for HandMadeNamespace {
    fn drop(&mut self) {
        let _ = Command::new("ip").args(["netns", "del", &self.0]).status();
    }
}

/// Removes everything of a run when the test ends, also when it fails, so a
/// failing test leaves nothing behind either.
struct CleanRunOnDrop(RunId);

impl Drop for CleanRunOnDrop {
    fn drop(&mut self) {
        let _ = cleanup::clean(&Runner::new(false), &run_namespace_prefix(&self.0));
    }
}

#[test]
fn dropping_a_testbed_removes_namespaces_links_and_processes() {
    require_net_admin!();
    let testbed = build_preset("two-routers");
    let run = testbed.run_id().clone();
    let netns = testbed.netns("router2").unwrap();
    let sleeper = Command::new("ip")
        .args(["netns", "exec", &netns, "sleep", "600"])
        .spawn()
        .unwrap();
    let pid = sleeper.id();
    assert_eq!(namespaces_of(&run).len(), 4);
    drop(testbed);
    assert!(
        namespaces_of(&run).is_empty(),
        "left: {:?}",
        namespaces_of(&run)
    );
    assert!(host_interfaces_of(&run).is_empty());
    let mut sleeper = sleeper;
    sleeper.wait().unwrap();
    assert!(!is_running(pid));
}

#[test]
fn a_failure_half_way_removes_what_was_built_and_spares_a_foreign_namespace() {
    require_net_admin!();
    let run = RunId::unique();
    // A namespace that exists before the build and is not the testbed's: the
    // build fails on it after creating "client" and "router".
    let foreign = HandMadeNamespace(namespace_name(&run, "server"));
    assert!(Command::new("ip")
        .args(["netns", "add", &foreign.0])
        .status()
        .unwrap()
        .success());
    let err = Testbed::build(
        &preset::load("router").unwrap(),
        &run,
        &BuildOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(err, LabError::Command { .. }), "{err}");
    assert_eq!(
        namespaces_of(&run),
        vec![foreign.0.clone()],
        "only the foreign namespace may remain"
    );
}

#[test]
fn an_interrupt_during_the_build_removes_everything_built_so_far() {
    require_net_admin!();
    let run = RunId::unique();
    let _guard = CleanRunOnDrop(run.clone());
    let interrupt = Arc::new(AtomicBool::new(false));
    let first_namespace = format!("/run/netns/{}", namespace_name(&run, "client"));
    let watcher = {
        let interrupt = Arc::clone(&interrupt);
        std::thread::spawn(move || {
            // Plays the Ctrl-C handler: fires as soon as building has started.
            while !Path::new(&first_namespace).exists() {
                std::thread::yield_now();
            }
            interrupt.store(true, Ordering::SeqCst);
        })
    };
    let options = BuildOptions {
        verbose: false,
        interrupt: Some(interrupt),
        delay_lines: Default::default(),
    };
    let result = Testbed::build(&preset::load("two-routers").unwrap(), &run, &options);
    watcher.join().unwrap();
    assert!(matches!(result, Err(LabError::Interrupted)), "{result:?}");
    assert!(
        namespaces_of(&run).is_empty(),
        "left: {:?}",
        namespaces_of(&run)
    );
}

#[test]
fn a_delayed_link_builds_with_netem_or_the_delay_line_and_leaves_nothing() {
    require_net_admin!();
    let run = RunId::unique();
    let _guard = CleanRunOnDrop(run.clone());
    let runner = Runner::new(false);
    let has_netem = dualperf_lab::Capabilities::probe(&runner, &run, &[Feature::Netem])
        .unwrap()
        .has(Feature::Netem);
    let text = r#"
        description = "delayed link"
        [[node]]
        name = "client"
        [[node]]
        name = "server"
        [[link]]
        between = ["client", "server"]
        delay = "10ms"
    "#;
    let result = Testbed::build(
        &Topology::from_toml("delayed", text).unwrap(),
        &run,
        &BuildOptions::default(),
    );
    // Delay is emulated by netem where the kernel has it, otherwise by the
    // lab's own delay line (cls_bpf + TAP); the facts say which ran.
    let testbed = result.unwrap();
    let facts = testbed.facts();
    let emulation: Vec<_> = facts
        .links
        .iter()
        .flat_map(|l| l.egress.iter())
        .map(|e| e.emulation.clone())
        .collect();
    let expected = if has_netem { "netem" } else { "bpf-delay-line" };
    assert!(
        !emulation.is_empty() && emulation.iter().all(|e| e.as_deref() == Some(expected)),
        "{emulation:?}"
    );
    drop(testbed);
    assert!(
        namespaces_of(&run).is_empty(),
        "left: {:?}",
        namespaces_of(&run)
    );
}

#[test]
fn a_lab_killed_with_sigkill_is_removed_by_clean() {
    require_net_admin!();
    let run = RunId::unique();
    let _guard = CleanRunOnDrop(run.clone());
    let mut helper = Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "helpers::hold_a_testbed",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(HELPER_VARIABLE, "hold")
        .env(RUN_VARIABLE, run.as_str())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(helper.stdout.take().unwrap()).lines();
    let sleeper: u32 = loop {
        let line = lines.next().expect("helper printed `ready PID`").unwrap();
        // The test harness prints "test NAME ... " on the same line first.
        if let Some((_, pid)) = line.split_once("ready ") {
            break pid.trim().parse().unwrap();
        }
    };
    helper.kill().unwrap(); // SIGKILL: no destructor runs
    helper.wait().unwrap();
    assert_eq!(
        namespaces_of(&run).len(),
        3,
        "the killed run left its namespaces"
    );
    assert!(
        is_running(sleeper),
        "the orphan in the server node survived the kill"
    );

    let report = cleanup::clean(&Runner::new(false), &run_namespace_prefix(&run)).unwrap();
    assert_eq!(report.namespaces.len(), 3);
    assert!(report.processes.contains(&(sleeper as i32)), "{report:?}");
    assert!(
        namespaces_of(&run).is_empty(),
        "left: {:?}",
        namespaces_of(&run)
    );
    assert!(host_interfaces_of(&run).is_empty());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
    while is_running(sleeper) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(!is_running(sleeper), "process {sleeper} still runs");
}

//! Privileged integration tests of the lab: real namespaces, veths, kernel
//! forwarding, qdiscs and sockets. They skip without CAP_NET_ADMIN and fail
//! instead when `DUALPERF_REQUIRE_PRIVILEGED` is set (CI).
//!
//! Every test builds its testbed under its own [`RunId`] (pid + counter), so
//! tests running in parallel never touch each other's namespaces.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test and example code: a failed unwrap is a failed run

use std::process::Command;

use dualperf_lab::naming::run_namespace_prefix;
use dualperf_lab::{preset, BuildOptions, RunId, Testbed, Topology};

mod clean_owner;
mod emulation;
mod helpers;
mod processes;
mod reachability;
mod shaping;
mod teardown;
mod transition;

/// Skips the calling test without CAP_NET_ADMIN, or fails it when CI demands privileges.
macro_rules! require_net_admin {
    () => {
        if !dualperf_lab::can_create_namespaces() {
            assert!(
                std::env::var_os("DUALPERF_REQUIRE_PRIVILEGED").is_none(),
                "privileged test cannot run: CAP_NET_ADMIN missing"
            );
            eprintln!("skipped: needs CAP_NET_ADMIN");
            return;
        }
    };
}
pub(crate) use require_net_admin;

/// Builds `topology` under a fresh run id.
pub fn build(topology: &Topology) -> Testbed {
    Testbed::build(topology, &RunId::unique(), &BuildOptions::default()).expect("testbed builds")
}

/// Builds a preset under a fresh run id.
pub fn build_preset(name: &str) -> Testbed {
    build(&preset::load(name).expect("preset loads"))
}

/// Namespaces whose names start with the run's prefix.
pub fn namespaces_of(run: &RunId) -> Vec<String> {
    let output = Command::new("ip")
        .args(["netns", "list"])
        .output()
        .expect("ip runs");
    let prefix = run_namespace_prefix(run);
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| n.starts_with(&prefix))
        .map(str::to_string)
        .collect()
}

/// Interfaces in the host namespace whose names carry the run's interface prefix.
pub fn host_interfaces_of(run: &RunId) -> Vec<String> {
    let output = Command::new("ip")
        .args(["-o", "link", "show"])
        .output()
        .expect("ip runs");
    let prefix = format!("dsp{run}-");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|l| l.split(": ").nth(1))
        .filter(|n| n.starts_with(&prefix))
        .map(str::to_string)
        .collect()
}

/// True while process `pid` exists and is not a zombie.
pub fn is_running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|stat| {
            stat.rsplit_once(") ")
                .is_some_and(|(_, rest)| !rest.starts_with('Z'))
        })
        .unwrap_or(false)
}

//! Builds a preset (or topology file), prints what a script needs to drive
//! traffic through it, and keeps it up until standard input closes; then the
//! testbed is removed. Used by `bench/transition-goodput.sh`.
//!
//! ```text
//! cargo run -p dualperf-lab --example hold -- tunnels
//! run k3x9a
//! node client dsp-k3x9a-client
//! arm v6-6in4-host-host v6 fd00:dead:cafe:1::2 IPv6 via 6in4, host to host
//! mechanism 6in4 bpf-lwt client,server
//! daemon 12345
//! ready
//! ```

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test and example code: a failed unwrap is a failed run

use std::io::Read;

use dualperf_lab::{cleanup, preset, BuildOptions, Runner, Testbed};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let name = std::env::args().nth(1).ok_or("usage: hold PRESET|FILE")?;
    let topology = preset::load(&name)?;
    let server = topology
        .server()
        .ok_or("the topology names no server")?
        .name
        .clone();
    let arms = topology.arms(&server)?;
    let run = cleanup::unused_run_id(&Runner::new(false))?;
    let testbed = Testbed::build(&topology, &run, &BuildOptions::default())?;
    println!("run {run}");
    for node in topology.nodes() {
        println!("node {} {}", node.name, testbed.netns(&node.name)?);
    }
    for arm in &arms {
        println!(
            "arm {} {} {} {}",
            arm.id,
            arm.family.key(),
            arm.target.as_deref().unwrap_or("-"),
            arm.label
        );
    }
    for mechanism in testbed.facts().mechanisms {
        println!(
            "mechanism {} {} {}",
            mechanism.kind,
            mechanism.implementation,
            mechanism.between.join(",")
        );
    }
    for pid in testbed.daemon_pids() {
        println!("daemon {pid}");
    }
    println!("ready");
    let mut rest = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut rest);
    testbed.teardown()?;
    Ok(())
}

//! Router CPU for every preset with routers (issue 24, item 7): the lab
//! steers each router's receive processing to a CPU of its own
//! ([`dualperf_lab::steering`], RPS inside the router's namespace) and the
//! measuring child records each router's softirq time per trial
//! (`--router-cpus`, `dualperf_engine::router_cpu`), so every result of a
//! routed testbed — router, two-routers, the tunnels, NAT64, 4in6,
//! bottleneck, realtime, path-faults — carries per-router CPU for each arm.
//! The DiffServ experiment steers its routers itself; a preset without
//! routers steers nothing.
//!
//! RPS moves a router's forwarding off the sending CPU: every packet
//! crossing it is handed to the router's CPU (an inter-processor interrupt
//! when that is another CPU), for IPv4 and IPv6 alike. The steering is
//! stated in the result's testbed notes.

use anyhow::Context;
use dualperf_lab::steering::{router_steering, RouterSteering};
use dualperf_lab::{RunId, Topology};
use dualperf_model::RunConfig;

/// The steering of `topology`'s routers over this machine's CPUs; empty
/// for a topology without routers, and when `config` pins the ends to CPUs
/// (`stack-cost`, `--client-cpus`/`--server-cpus`): a router steered onto
/// an end's CPU would mix its forwarding into that end's CPU figures,
/// which such a run exists to measure.
pub(crate) fn plan(topology: &Topology, run: &RunId, config: &RunConfig) -> Vec<RouterSteering> {
    if !config.client_cpus.is_empty() || !config.server_cpus.is_empty() {
        return Vec::new();
    }
    // SAFETY: sysconf has no preconditions.
    let cpus = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) }.max(1) as u32;
    router_steering(topology, run, cpus)
}

/// `--router-cpus` entries for the measuring child.
pub(crate) fn child_args(steering: &[RouterSteering]) -> Vec<String> {
    steering.iter().map(RouterSteering::child_arg).collect()
}

/// Applies the steering on the built testbed.
///
/// # Errors
/// A command that failed (the job then stops: a router CPU figure without
/// its steering would count the wrong CPU).
pub(crate) fn steer(steering: &[RouterSteering], verbose: bool) -> anyhow::Result<()> {
    let runner = dualperf_lab::Runner::new(verbose);
    for router in steering {
        for command in &router.commands {
            runner.run(command).with_context(|| {
                format!("steering router {} to CPU {}", router.node, router.cpu)
            })?;
        }
    }
    Ok(())
}

/// The testbed note that says how router CPU was counted; `None` without
/// routers.
pub(crate) fn note(steering: &[RouterSteering]) -> Option<String> {
    if steering.is_empty() {
        return None;
    }
    let shared = {
        let mut cpus: Vec<u32> = steering.iter().map(|s| s.cpu).collect();
        cpus.sort_unstable();
        cpus.dedup();
        cpus.len() < steering.len()
    };
    let described: Vec<String> = steering.iter().map(RouterSteering::describe).collect();
    Some(format!(
        "router CPU = softirq time of the CPU each router's receive processing was steered to \
         ({}), over each trial; it includes anything else the kernel did in softirq on that CPU \
         (docs/metrics.md, Router CPU){}",
        described.join("; "),
        if shared {
            "; fewer CPUs than routers, so routers share CPUs and each figure counts all of them"
        } else {
            ""
        }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_with_routers_gets_a_router_cpu_per_router_and_p2p_none() {
        let run = RunId::new("t1").unwrap();
        let unpinned = dualperf_fixtures::config(Vec::new(), Vec::new());
        for (preset, routers) in [
            ("router", 1),
            ("two-routers", 2),
            ("tunnel-router-router", 3),
            ("nat64", 1),
            ("bottleneck", 2),
            ("p2p", 0),
        ] {
            let topology = dualperf_lab::preset::load(preset).unwrap();
            let steering = plan(&topology, &run, &unpinned);
            assert_eq!(steering.len(), routers, "{preset}");
            let args = child_args(&steering);
            assert_eq!(args.len(), routers, "{preset}");
            assert!(args.iter().all(|a| a.contains(':')), "{preset}: {args:?}");
            assert_eq!(note(&steering).is_some(), routers > 0, "{preset}");
        }
        // Ends pinned to CPUs (stack-cost): no router is steered onto them.
        let topology = dualperf_lab::preset::load("router").unwrap();
        let mut pinned = unpinned.clone();
        pinned.client_cpus = vec![0];
        pinned.server_cpus = vec![1];
        assert!(plan(&topology, &run, &pinned).is_empty());
    }
}

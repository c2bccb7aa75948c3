//! `dualperf lab stack-cost`: the unshaped, CPU-bound comparison made
//! explicit (issue 23). Over unshaped veth the CPUs set the rate, so the
//! goodput of two stacks scatters with the scheduler; what stays stable is
//! what each stack costs: CPU time per MiB (service demand) and per packet
//! at each end. The preset is the `router` testbed with the links left
//! unshaped ([`LinkRateChoice::Unshaped`]), the client and the server
//! pinned to CPUs of their own (0 and 1, unless `--client-cpus` and
//! `--server-cpus` say otherwise), and the stream tests only (unless
//! `--tests` says otherwise); the terminal adds the CPU-cost table
//! (`dualperf_report::terminal::render_cpu_cost`), as it does for any run
//! on unshaped links.

use dualperf_lab::link_rate::LinkRateChoice;
use dualperf_lab::Topology;
use dualperf_model::{RunConfig, TestKind};

use super::args::JobArgs;

/// The preset's name.
pub(crate) const PRESET: &str = "stack-cost";

/// The link rate `topology`'s preset asks for, if it asks for one: the
/// stack-cost preset is unshaped by design.
pub(crate) fn link_rate_of(topology: &Topology) -> Option<LinkRateChoice> {
    (topology.name() == PRESET).then_some(LinkRateChoice::Unshaped)
}

/// Pins the ends and keeps the stream points of the battery `config`, for
/// the stack-cost preset; other topologies' plans are left alone.
pub(crate) fn adapt(config: &mut RunConfig, topology: &Topology, args: &JobArgs) {
    if topology.name() != PRESET {
        return;
    }
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    if args.client_cpus.is_none() && cpus >= 2 {
        config.client_cpus = vec![0];
        config.server_cpus = vec![1];
    }
    if args.tests.is_none() {
        config
            .points
            .retain(|p| matches!(p.kind, TestKind::TcpStream | TestKind::UdpStream));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_stack_cost_preset_is_unshaped_by_design() {
        let stack = dualperf_lab::preset::load(PRESET).unwrap();
        assert_eq!(link_rate_of(&stack), Some(LinkRateChoice::Unshaped));
        let router = dualperf_lab::preset::load("router").unwrap();
        assert_eq!(link_rate_of(&router), None);
        // Same testbed as router otherwise.
        assert_eq!(stack.links().len(), router.links().len());
    }
}

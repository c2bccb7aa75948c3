//! `dualperf lab --dry-run`: the shell script of what the job would do —
//! build the testbed, write the plan, start the server and the measuring
//! child in their nodes, tear down — printed, nothing run.

use std::ffi::OsString;
use std::path::Path;

use dualperf_lab::shell::{comment, quote as shell_quote};
use dualperf_lab::{RunId, Topology};

use super::measure::{server_args, stamp_child_args, Traffic};
use crate::pipeline::execute::child_args;

/// Prints the steps of the job on `topology` as shell commands.
pub(super) fn print_dry_run(
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
    use super::*;

    #[test]
    fn shell_quoting_leaves_plain_paths_alone() {
        assert_eq!(
            shell_quote("results/a-b/plan.json"),
            "results/a-b/plan.json"
        );
        assert_eq!(shell_quote("my results/x"), "'my results/x'");
    }
}

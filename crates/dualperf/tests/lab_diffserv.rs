//! End to end: `dualperf lab diffserv`, cut down (one datagram size, one
//! repetition, 0.2 s trials) so it stays short, runs the DiffServ
//! experiments through the one pipeline: every arm's trials carry their
//! load flows' observations and the routers' CPU, the conditioner checks
//! count remarked EF, and the terminal prints the per-class verdicts and the
//! load-step table. Needs root, nft and tc: skipped with a message locally,
//! required when DUALPERF_REQUIRE_PRIVILEGED is set.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

#[path = "common/privileged.rs"]
mod privileged;

use std::process::Command;

use dualperf_model::{RemarkCase, RunResult, TrialOutcome};

#[test]
fn lab_diffserv_records_load_flows_router_cpu_and_the_conditioner_checks() {
    if !privileged::ready(&["nft"]) {
        return;
    }
    let folder = std::env::temp_dir().join(format!("dpe-diffserv-{}", std::process::id()));
    let db = std::env::temp_dir().join(format!("dpe-diffserv-{}.sqlite", std::process::id()));
    let output = Command::new(env!("CARGO_BIN_EXE_dualperf"))
        .args([
            "lab", "diffserv", "--quick", "--sizes", "1408", "--repeat", "1",
        ])
        .args(["-t", "0.2", "-p", "5293", "--db"])
        .arg(&db)
        .arg("--results")
        .arg(&folder)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let run = std::fs::read_dir(&folder)
        .ok()
        .and_then(|mut entries| entries.next())
        .map(|entry| entry.unwrap().path());
    let result: Option<RunResult> = run.as_ref().and_then(|run| {
        std::fs::read(run.join("result.json"))
            .ok()
            .map(|bytes| serde_json::from_slice(&bytes).unwrap())
    });
    let _ = std::fs::remove_dir_all(&folder);
    // The database holds the run's per-flow and per-router analysis as
    // analysed (issue 22): read back equal, without recomputing.
    let stored = dualperf_store::Store::open_read_only(&db)
        .ok()
        .map(|store| {
            let id = result
                .as_ref()
                .map(|r| r.run_id.clone())
                .unwrap_or_default();
            (store.flow_analysis_stored(&id), store.load_run(&id))
        });
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }
    let result = result.unwrap_or_else(|| panic!("no result\n{stdout}\n{stderr}"));
    let (flows_stored, loaded) = stored.expect("a results database");
    assert!(flows_stored.unwrap(), "the flow analysis is stored");
    let (loaded, analysed) = (
        loaded.unwrap().analysis.unwrap(),
        result.analysis.clone().unwrap(),
    );
    assert!(!loaded.load_comparisons.is_empty() && !loaded.routers.is_empty());
    assert_eq!(loaded.load_flows, analysed.load_flows);
    assert_eq!(loaded.load_comparisons, analysed.load_comparisons);
    assert_eq!(loaded.routers, analysed.routers);
    for heading in [
        "Per class",
        "Verdicts per class",
        "Load-step table",
        "Conditioner",
    ] {
        assert!(stdout.contains(heading), "{heading}:\n{stdout}\n{stderr}");
    }
    // 2 idle + 4 loaded + flow label + 1 size × 3 steps × 3 columns.
    assert_eq!(result.config.arms.len(), 16);
    let ok: Vec<_> = result
        .trials
        .iter()
        .filter_map(|t| match &t.outcome {
            TrialOutcome::Ok(o) => Some((t, o)),
            TrialOutcome::Failed { .. } => None,
        })
        .collect();
    assert!(ok.len() >= 14, "{} of 16 trials ran\n{stderr}", ok.len());
    for (trial, observations) in &ok {
        let loaded = trial.arm.as_str() != "v4-ef" && trial.arm.as_str() != "v6-ef";
        assert_eq!(!observations.loads.is_empty(), loaded, "{}", trial.arm);
        let routers: Vec<&str> = observations
            .routers
            .iter()
            .map(|r| r.node.as_str())
            .collect();
        assert_eq!(routers, ["edge", "core"], "{}", trial.arm);
    }
    let analysis = result.analysis.as_ref().unwrap();
    assert!(!analysis.load_flows.is_empty());
    assert!(!analysis.routers.is_empty());
    let findings = result.testbed.as_ref().unwrap().diffserv.as_ref().unwrap();
    assert_eq!(findings.steering.len(), 2, "{findings:?}");
    let policing: Vec<_> = findings
        .checks
        .iter()
        .filter(|c| c.case == RemarkCase::Policing)
        .collect();
    let unauthorised: Vec<_> = findings
        .checks
        .iter()
        .filter(|c| c.case == RemarkCase::Unauthorised)
        .collect();
    assert_eq!((policing.len(), unauthorised.len()), (2, 2), "{findings:?}");
    for check in policing {
        assert!(
            check.kept_ef_packets > 0 && check.excess_remarked_packets > 0,
            "{check:?}"
        );
    }
    for check in unauthorised {
        assert!(check.unauthorised_remarked_packets > 0, "{check:?}");
        assert_eq!(check.kept_ef_packets, 0, "{check:?}");
    }
}

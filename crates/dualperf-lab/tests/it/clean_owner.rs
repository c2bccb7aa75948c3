//! Issue 16 fault 9: `lab clean` deleted every `dsp-` namespace, also those
//! of a run still in progress. Now it removes only runs whose owner process
//! is gone (their owner lock is free), and `--force` the rest.
//!
//! The two runs here have ids that start with a digit and carry this
//! process's id — `RunId::unique` always starts with a letter — and the
//! clean-up is restricted to their common prefix, so no other run on this
//! host (another test, another session) is ever looked at.

use std::process::Command;

use dualperf_lab::naming::{namespace_name, run_namespace_prefix};
use dualperf_lab::state::{self, RunOwner};
use dualperf_lab::{cleanup, RunId, Runner};

use super::{namespaces_of, require_net_admin};

/// Deletes the test's namespaces at the end, also when it fails.
struct Namespaces(Vec<String>);

impl Drop for Namespaces {
    fn drop(&mut self) {
        for netns in &self.0 {
            let _ = Command::new("ip")
                .args(["netns", "del", netns])
                .stderr(std::process::Stdio::null())
                .status();
        }
    }
}

fn base36(mut value: u64) -> String {
    let digits = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(digits[(value % 36) as usize]);
        value /= 36;
        if value == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap()
}

#[test]
fn clean_spares_a_run_whose_owner_lives_and_force_removes_it() {
    require_net_admin!();
    // "9" + pid in base 36 (at most 5 characters) + one letter per run.
    let base = format!("9{}", base36(u64::from(std::process::id())));
    let live = RunId::new(format!("{base}l")).unwrap();
    let dead = RunId::new(format!("{base}d")).unwrap();
    let dir = std::env::temp_dir().join(format!("dualperf-clean-owner-{}", std::process::id()));
    let names = vec![namespace_name(&live, "node"), namespace_name(&dead, "node")];
    let _guard = Namespaces(names.clone());
    for netns in &names {
        assert!(Command::new("ip")
            .args(["netns", "add", netns])
            .status()
            .unwrap()
            .success());
    }
    // The live run's owner is this process; the dead one's left a lock
    // file nobody holds (its owner was killed).
    let lock = state::lock_run(&dir, live.as_str()).unwrap();
    std::fs::write(dir.join(format!("{dead}.lock")), "999999").unwrap();
    let prefix = format!("dsp-{base}");
    let runner = Runner::new(false);

    let report = cleanup::clean_runs(&runner, std::slice::from_ref(&dir), &prefix, false).unwrap();
    assert_eq!(report.runs, vec![dead.to_string()], "{report:?}");
    assert!(namespaces_of(&dead).is_empty());
    assert_eq!(
        namespaces_of(&live),
        vec![namespace_name(&live, "node")],
        "the live run was removed: {report:?}"
    );
    assert_eq!(report.spared.len(), 1);
    assert_eq!(report.spared[0].pid, Some(std::process::id() as i32));
    assert_eq!(state::run_owner(&dir, dead.as_str()), RunOwner::Gone);
    assert!(!dir.join(format!("{dead}.lock")).exists());

    let forced = cleanup::clean_runs(&runner, std::slice::from_ref(&dir), &prefix, true).unwrap();
    assert_eq!(forced.runs, vec![live.to_string()]);
    assert!(namespaces_of(&live).is_empty());
    drop(lock);
    let _ = std::fs::remove_dir_all(&dir);
    // Sanity: the prefix really is this test's own.
    assert!(run_namespace_prefix(&live).starts_with(&prefix));
}

//! Issue 29: runs started at once into one new database are all stored —
//! creating and migrating the file is safe under concurrency, and run ids
//! are unique even for processes that are PID 1 of their own PID namespace
//! (containers) and start in the same second.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

#[path = "common/privileged.rs"]
mod privileged;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const RUNS: usize = 8;

fn scratch(name: &str) -> PathBuf {
    let directory =
        std::env::temp_dir().join(format!("dpe-concurrent-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&directory);
    std::fs::create_dir_all(&directory).unwrap();
    directory
}

/// One short run into `database`, its results folder under `directory`;
/// `wrap` runs the binary through another program (e.g. `unshare`).
fn short_run(database: &Path, directory: &Path, wrap: &[&str]) -> Command {
    let binary = env!("CARGO_BIN_EXE_dualperf");
    let mut command = match wrap.split_first() {
        Some((program, args)) => {
            let mut command = Command::new(program);
            command.args(args).arg(binary);
            command
        }
        None => Command::new(binary),
    };
    command
        .args([
            "run",
            "--loopback",
            "--tests",
            "tcp-connect",
            "-t",
            "0.3",
            "--warmup",
            "0",
            "--repeat",
            "1",
            "--no-intervals",
            "--db",
        ])
        .arg(database)
        .env("XDG_DATA_HOME", directory)
        .env_remove("DUALPERF_DB");
    command
}

/// Starts [`RUNS`] runs at once and waits for all of them.
fn run_all_at_once(database: &Path, directory: &Path, wrap: &[&str]) -> Vec<Output> {
    let children: Vec<_> = (0..RUNS)
        .map(|_| {
            short_run(database, directory, wrap)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    children
        .into_iter()
        .map(|child| child.wait_with_output().unwrap())
        .collect()
}

/// Checks every run succeeded and the database holds [`RUNS`] distinct runs.
fn assert_all_stored(outputs: &[Output], database: &Path) {
    // Exit 1 is a failed trial (16 processes on a small machine can starve
    // a 0.3 s tcp-connect trial); the run is stored all the same.
    let failed: Vec<_> = outputs
        .iter()
        .filter(|o| {
            !(o.status.success()
                || o.status.code() == Some(1)
                    && String::from_utf8_lossy(&o.stderr).contains("stored run"))
        })
        .collect();
    let store = dualperf_store::Store::open_read_only(database).unwrap();
    let mut ids: Vec<_> = store
        .list_runs()
        .unwrap()
        .into_iter()
        .map(|run| run.run_id)
        .collect();
    ids.sort();
    ids.dedup();
    eprintln!(
        "{RUNS} runs started at once: {} failed, {} distinct runs stored",
        failed.len(),
        ids.len()
    );
    if let Some(output) = failed.first() {
        panic!(
            "exit {:?}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    assert_eq!(ids.len(), RUNS, "{ids:?}");
}

#[test]
fn eight_runs_started_at_once_into_one_new_database_are_all_stored() {
    let directory = scratch("plain");
    let database = directory.join("new.sqlite");
    let outputs = run_all_at_once(&database, &directory, &[]);
    assert_all_stored(&outputs, &database);
    std::fs::remove_dir_all(&directory).unwrap();
}

#[test]
fn eight_runs_as_pid_1_of_their_own_pid_namespaces_are_all_stored() {
    if !privileged::ready(&["unshare"]) {
        return;
    }
    let directory = scratch("pidns");
    let database = directory.join("new.sqlite");
    let outputs = run_all_at_once(&database, &directory, &["unshare", "--pid", "--fork"]);
    assert_all_stored(&outputs, &database);
    std::fs::remove_dir_all(&directory).unwrap();
}

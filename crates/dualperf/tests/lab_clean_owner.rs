//! Issue 29: `lab clean` run with another `XDG_RUNTIME_DIR` (`sudo` vs
//! `sudo -E`) removed a live run's namespaces and processes, and always
//! removed `lab up` testbeds. Ownership no longer depends on the
//! environment: a live run and a testbed left up are both spared, and `lab
//! down` removes the latter.
//!
//! Every `lab clean` here is restricted to the test's own run (`--run`), so
//! no other testbed on this host is ever looked at.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

#[path = "common/privileged.rs"]
mod privileged;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Two runtime directories, as two shells of one root would have them.
struct Dirs {
    owner: PathBuf,
    cleaner: PathBuf,
}

impl Dirs {
    fn new(name: &str) -> Dirs {
        let base = std::env::temp_dir().join(format!("dpe-xdg-{name}-{}", std::process::id()));
        let dirs = Dirs {
            owner: base.join("owner"),
            cleaner: base.join("cleaner"),
        };
        std::fs::create_dir_all(&dirs.owner).unwrap();
        std::fs::create_dir_all(&dirs.cleaner).unwrap();
        dirs
    }
}

/// Removes the test's run at the end, also when it fails.
struct RunGuard(Option<String>);

impl Drop for RunGuard {
    fn drop(&mut self) {
        if let Some(run) = &self.0 {
            let _ = dualperf(Path::new("/tmp"))
                .args(["lab", "clean", "--force", "--run", run])
                .output();
        }
    }
}

fn dualperf(runtime_dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_dualperf"));
    command.env("XDG_RUNTIME_DIR", runtime_dir);
    command
}

fn namespaces_of(run: &str) -> Vec<String> {
    let output = Command::new("ip").args(["netns", "list"]).output().unwrap();
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| name.starts_with(&format!("dsp-{run}-")))
        .map(str::to_string)
        .collect()
}

fn clean(dirs: &Dirs, run: &str) -> Output {
    let output = dualperf(&dirs.cleaner)
        .args(["lab", "clean", "--run", run])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    output
}

#[test]
fn lab_clean_under_another_runtime_dir_spares_a_testbed_left_up() {
    if !privileged::ready(&["ip"]) {
        return;
    }
    let dirs = Dirs::new("up");
    let up = dualperf(&dirs.owner)
        .args(["lab", "up", "p2p"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&up.stdout).into_owned();
    assert!(up.status.success(), "{up:?}");
    let run = stdout
        .split(" is up as run ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap()
        .to_string();
    let mut guard = RunGuard(Some(run.clone()));
    let before = namespaces_of(&run);
    assert!(!before.is_empty());
    let output = clean(&dirs, &run);
    let said = String::from_utf8_lossy(&output.stdout);
    eprintln!("{said}");
    assert_eq!(
        namespaces_of(&run),
        before,
        "removed a testbed left up: {said}"
    );
    assert!(said.contains("lab up"), "{said}");
    // `lab down` from the other environment finds and removes it.
    let down = dualperf(&dirs.cleaner)
        .args(["lab", "down", "--run", &run])
        .output()
        .unwrap();
    assert!(down.status.success(), "{down:?}");
    assert!(namespaces_of(&run).is_empty());
    guard.0 = None;
    let _ = std::fs::remove_dir_all(dirs.owner.parent().unwrap());
}

/// Waits until `child` owns a run (its pid in an owner lock of the system
/// state directory) whose server namespace is up; its run id.
fn wait_for_run_of(child: &mut Child) -> String {
    let pid = child.id().to_string();
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(20) {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the lab run ended early"
        );
        let owned = std::fs::read_dir("/run/dualperf")
            .into_iter()
            .flatten()
            .filter_map(|entry| entry.ok())
            .filter_map(|entry| {
                let name = entry.file_name().into_string().ok()?;
                let run = name.strip_suffix(".lock")?.to_string();
                let holder = std::fs::read_to_string(entry.path()).ok()?;
                (holder.trim() == pid).then_some(run)
            })
            .find(|run| namespaces_of(run).iter().any(|n| n.ends_with("-server")));
        if let Some(run) = owned {
            return run;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("no testbed appeared");
}

#[test]
fn lab_clean_under_another_runtime_dir_spares_a_live_run() {
    if !privileged::ready(&["ip"]) {
        return;
    }
    let dirs = Dirs::new("live");
    let mut lab = dualperf(&dirs.owner)
        .args([
            "lab",
            "p2p",
            "--tests",
            "tcp-rr",
            "--sizes",
            "64",
            "-t",
            "2",
            "--repeat",
            "1",
            "--no-store",
        ])
        .current_dir(&dirs.owner)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let run = wait_for_run_of(&mut lab);
    let _guard = RunGuard(Some(run.clone()));
    let before = namespaces_of(&run);
    let output = clean(&dirs, &run);
    let said = String::from_utf8_lossy(&output.stdout);
    eprintln!("{said}");
    assert!(said.contains("still runs"), "{said}");
    assert_eq!(namespaces_of(&run), before, "removed a live run: {said}");
    let finished = lab.wait_with_output().unwrap();
    assert!(
        finished.status.success(),
        "the live run failed after `lab clean`: {}",
        String::from_utf8_lossy(&finished.stderr)
    );
    assert!(namespaces_of(&run).is_empty(), "the run left namespaces");
    let _ = std::fs::remove_dir_all(dirs.owner.parent().unwrap());
}

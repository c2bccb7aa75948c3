//! Finding and removing what dualperf created: namespaces with the `dsp-`
//! prefix, the processes running inside them, and stray veth ends with the
//! `dsp` interface prefix in the host namespace.
//!
//! This is what `dualperf lab clean` runs after a crash or `kill -9`
//! ([`clean_runs`]: only runs no live process and no `lab up` record
//! holds, looked up in every state directory, see [`crate::state`] for the
//! owner locks), and what every
//! [`crate::namespace::Namespace`] handle runs when it drops ([`clean`]). It
//! only ever touches names with dualperf's prefixes.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::state::{self, RunLock, RunOwner};

use crate::command::{KernelCommand, Runner};
use crate::error::LabError;
use crate::naming::{
    run_namespace_prefix, RunId, INTERFACE_PREFIX, MAX_RUN_ID_CHARS, NAMESPACE_PREFIX,
};

/// How long processes get to exit after SIGTERM before SIGKILL.
const TERM_GRACE: Duration = Duration::from_millis(1000);

/// What a clean-up removed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CleanReport {
    /// Namespaces deleted.
    pub namespaces: Vec<String>,
    /// Processes signalled inside them.
    pub processes: Vec<i32>,
    /// Stray interfaces deleted from the host namespace.
    pub interfaces: Vec<String>,
    /// Runs removed (their namespaces, interfaces and lock files).
    pub runs: Vec<String>,
    /// Runs left alone because their owner process still runs.
    pub spared: Vec<SparedRun>,
}

/// A run [`clean_runs`] left alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SparedRun {
    /// The run id.
    pub run_id: String,
    /// Its owner's process id, when the lock file says.
    pub pid: Option<i32>,
    /// Whose it is: a live process, or a `lab up` record.
    pub owner: Owner,
}

/// What holds a run [`clean_runs`] spares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    /// A live process holds the run's owner lock.
    Process,
    /// A `lab up` record: the testbed stays until `lab down`.
    LabUp,
}

/// Owner locks of the runs this process allocated, held until it exits
/// (the kernel releases them then, whatever way it exits).
static HELD_LOCKS: Mutex<Vec<RunLock>> = Mutex::new(Vec::new());

/// Names of all network namespaces (`ip netns list`).
///
/// # Errors
/// [`LabError::Spawn`] / [`LabError::Command`] if `ip` fails.
pub fn list_namespaces(runner: &Runner) -> Result<Vec<String>, LabError> {
    let output = runner.run(&KernelCommand::ip(["netns", "list"]))?;
    // Lines look like "dsp-a1-client (id: 3)" or just "dsp-a1-client".
    Ok(String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_string)
        .collect())
}

/// A fresh run id that no existing namespace uses (a namespace left by a
/// crashed run with a recycled pid would otherwise make `ip netns add` fail).
///
/// # Errors
/// As [`list_namespaces`].
///
/// The run is recorded as this process's: its owner lock
/// ([`state::lock_run`] in [`state::state_dir`]) is held until the process
/// exits (or [`release_run`]), so `lab clean` leaves it alone meanwhile. If
/// the lock cannot be written (a read-only state directory), the run
/// proceeds unrecorded.
pub fn unused_run_id(runner: &Runner) -> Result<RunId, LabError> {
    let existing = list_namespaces(runner)?;
    let dir = state::state_dir();
    let mut run = RunId::unique();
    // RunId::unique varies its last character per call: 36 tries cover them all.
    for _ in 0..36 {
        let taken = existing
            .iter()
            .any(|n| n.starts_with(&run_namespace_prefix(&run)))
            || state::run_owner(&dir, run.as_str()) != RunOwner::Gone;
        if !taken {
            break;
        }
        run = RunId::unique();
    }
    // Lock files of owners that are gone tell nothing a missing file does
    // not: tidy them, so finished runs leave no litter behind.
    for stale in state::locked_run_ids(&dir) {
        state::remove_stale_lock(&dir, &stale);
    }
    if let Ok(lock) = state::lock_run(&dir, run.as_str()) {
        HELD_LOCKS
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(lock);
    }
    Ok(run)
}

/// Gives up this process's ownership of `run` (its testbed is gone): its
/// lock file is removed.
pub fn release_run(run: &RunId) {
    let dir = state::state_dir();
    let path = dir.join(format!("{run}.lock"));
    HELD_LOCKS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .retain(|lock| lock.path() != path);
}

/// The run id of a namespace named `dsp-<run>-<node>`.
fn namespace_run(name: &str) -> Option<&str> {
    let rest = name.strip_prefix(NAMESPACE_PREFIX)?;
    let (run, node) = rest.split_once('-')?;
    (!run.is_empty() && !node.is_empty()).then_some(run)
}

/// The run id of an interface named `dsp<run>-<link><a|b>`.
fn interface_run(name: &str) -> Option<&str> {
    if !is_dualperf_interface(name) {
        return None;
    }
    name.strip_prefix(INTERFACE_PREFIX)?
        .split_once('-')
        .map(|(run, _)| run)
}

/// `lab clean`: removes every run whose name starts with `prefix` (which
/// must start with `dsp-`; `dsp-` for all) that nobody holds — its
/// namespaces, the processes inside, its stray veth ends in the host
/// namespace and its lock files — and spares, unless `force`, runs whose
/// owner process still runs or that a `lab up` record keeps. Owner locks
/// and records are looked up in every one of `lock_dirs`
/// ([`state::owner_dirs`] for the command), so an owner started with
/// another environment counts.
///
/// # Panics
/// If `prefix` does not start with `dsp-`.
///
/// # Errors
/// [`LabError::Command`] for the first namespace or interface that cannot
/// be deleted (the others are still attempted).
pub fn clean_runs(
    runner: &Runner,
    lock_dirs: &[PathBuf],
    prefix: &str,
    force: bool,
) -> Result<CleanReport, LabError> {
    assert!(
        prefix.starts_with(NAMESPACE_PREFIX),
        "clean-up only touches dualperf's `dsp-` namespaces"
    );
    let interface_prefix = format!("{INTERFACE_PREFIX}{}", &prefix[NAMESPACE_PREFIX.len()..]);
    let namespaces: Vec<String> = list_namespaces(runner)?
        .into_iter()
        .filter(|n| n.starts_with(prefix))
        .collect();
    let output = runner.run(&KernelCommand::ip(["-o", "link", "show"]))?;
    let interfaces: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split(": ").nth(1))
        .map(|name| name.split('@').next().unwrap_or(name).to_string())
        .filter(|name| name.starts_with(&interface_prefix) && interface_run(name).is_some())
        .collect();
    let mut runs: Vec<String> = namespaces
        .iter()
        .filter_map(|n| namespace_run(n))
        .chain(interfaces.iter().filter_map(|i| interface_run(i)))
        .map(str::to_string)
        .chain(
            lock_dirs
                .iter()
                .flat_map(|dir| state::locked_run_ids(dir))
                .filter(|run| format!("{NAMESPACE_PREFIX}{run}-").starts_with(prefix)),
        )
        .collect();
    runs.sort();
    runs.dedup();
    let records: Vec<String> = lock_dirs
        .iter()
        .filter_map(|dir| state::load_all(dir).ok())
        .flatten()
        .map(|record| record.run_id)
        .collect();
    let mut report = CleanReport::default();
    let mut first_error = None;
    for run in runs {
        if !force {
            if let Some(spared) = owner_of(lock_dirs, &records, &run) {
                report.spared.push(spared);
                continue;
            }
        }
        let run_prefix = format!("{NAMESPACE_PREFIX}{run}-");
        for netns in namespaces.iter().filter(|n| n.starts_with(&run_prefix)) {
            match remove_namespace(runner, netns) {
                Ok(pids) => {
                    report.processes.extend(pids);
                    report.namespaces.push(netns.clone());
                }
                Err(err) => {
                    first_error.get_or_insert(err);
                }
            }
        }
        for interface in interfaces.iter().filter(|i| interface_run(i) == Some(&run)) {
            // Deleting one end of a veth deletes its peer too: a second
            // deletion of the same pair finds nothing, which is fine.
            match runner.run(&KernelCommand::ip(["link", "del", interface])) {
                Ok(_) => report.interfaces.push(interface.clone()),
                Err(err) => {
                    if interface_exists(runner, interface) {
                        first_error.get_or_insert(err);
                    }
                }
            }
        }
        for dir in lock_dirs {
            if force {
                let _ = std::fs::remove_file(dir.join(format!("{run}.lock")));
            } else {
                state::remove_stale_lock(dir, &run);
            }
        }
        report.runs.push(run);
    }
    match first_error {
        Some(err) => Err(err),
        None => Ok(report),
    }
}

/// Who holds `run`, asked in every directory an owner may have written to
/// (so an owner started with another `XDG_RUNTIME_DIR` counts): a live
/// process holding its lock, else a `lab up` record; `None`: nobody.
fn owner_of(lock_dirs: &[PathBuf], records: &[String], run: &str) -> Option<SparedRun> {
    for dir in lock_dirs {
        if let RunOwner::Alive { pid } = state::run_owner(dir, run) {
            return Some(SparedRun {
                run_id: run.to_string(),
                pid,
                owner: Owner::Process,
            });
        }
    }
    records.iter().any(|r| r == run).then(|| SparedRun {
        run_id: run.to_string(),
        pid: None,
        owner: Owner::LabUp,
    })
}

fn interface_exists(runner: &Runner, name: &str) -> bool {
    runner
        .run(&KernelCommand::ip(["link", "show", "dev", name]))
        .is_ok()
}

/// Process ids inside `netns` (`ip netns pids NETNS`), never this process.
///
/// # Errors
/// [`LabError::Command`] if `ip` fails (e.g. the namespace is gone).
pub fn namespace_pids(runner: &Runner, netns: &str) -> Result<Vec<i32>, LabError> {
    let output = runner.run(&KernelCommand::ip(["netns", "pids", netns]))?;
    let own = std::process::id() as i32;
    Ok(String::from_utf8_lossy(&output.stdout)
        .split_whitespace()
        .filter_map(|word| word.parse().ok())
        .filter(|pid| *pid != own)
        .collect())
}

/// True while `pid` exists and is not a zombie.
fn is_running(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state letter follows the parenthesised command name.
        Ok(stat) => stat
            .rsplit_once(") ")
            .map(|(_, rest)| !rest.starts_with('Z'))
            .unwrap_or(false),
        Err(_) => false,
    }
}

/// Sends `signal` to `pid`; a process that is already gone is not an error.
fn signal(pid: i32, signal: libc::c_int) {
    // SAFETY: kill(2) has no memory-safety preconditions; the pid came from
    // `ip netns pids` and is not this process.
    unsafe {
        libc::kill(pid, signal);
    }
}

/// Stops every process inside `netns`: SIGTERM, up to a second's grace, then
/// SIGKILL. Returns the pids signalled.
///
/// # Errors
/// As [`namespace_pids`].
pub fn stop_processes(runner: &Runner, netns: &str) -> Result<Vec<i32>, LabError> {
    let pids = namespace_pids(runner, netns)?;
    if pids.is_empty() {
        return Ok(pids);
    }
    for &pid in &pids {
        signal(pid, libc::SIGTERM);
    }
    let deadline = Instant::now() + TERM_GRACE;
    while pids.iter().any(|&pid| is_running(pid)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    for &pid in pids.iter().filter(|&&pid| is_running(pid)) {
        signal(pid, libc::SIGKILL);
    }
    Ok(pids)
}

/// Stops the processes in `netns` and deletes it. Equivalent to
/// `kill $(ip netns pids NETNS); ip netns del NETNS`.
///
/// # Errors
/// [`LabError::Command`] if `ip netns del` fails.
pub fn remove_namespace(runner: &Runner, netns: &str) -> Result<Vec<i32>, LabError> {
    // A namespace whose pids cannot be listed is deleted all the same.
    let pids = stop_processes(runner, netns).unwrap_or_default();
    runner.run(&KernelCommand::ip(["netns", "del", netns]))?;
    Ok(pids)
}

/// True for interface names of the form [`crate::naming::interface_name`] builds.
fn is_dualperf_interface(name: &str) -> bool {
    let Some(rest) = name.strip_prefix(INTERFACE_PREFIX) else {
        return false;
    };
    let Some((run, link)) = rest.split_once('-') else {
        return false;
    };
    let run_ok = !run.is_empty()
        && run.len() <= MAX_RUN_ID_CHARS
        && run
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    let link_ok = link.len() >= 2
        && link[..link.len() - 1].bytes().all(|b| b.is_ascii_digit())
        && (link.ends_with('a') || link.ends_with('b'));
    run_ok && link_ok
}

/// Removes every namespace whose name starts with `prefix` (which must
/// itself start with `dsp-`), the processes inside, and stray dualperf veth
/// ends in the host namespace.
///
/// # Panics
/// If `prefix` does not start with `dsp-`: clean-up must never touch other
/// programs' namespaces.
///
/// # Errors
/// [`LabError::Command`] for the first namespace that cannot be deleted (the
/// others are still attempted).
pub fn clean(runner: &Runner, prefix: &str) -> Result<CleanReport, LabError> {
    assert!(
        prefix.starts_with(NAMESPACE_PREFIX),
        "clean-up only touches dualperf's `dsp-` namespaces"
    );
    let mut report = CleanReport::default();
    let mut first_error = None;
    for netns in list_namespaces(runner)?
        .into_iter()
        .filter(|n| n.starts_with(prefix))
    {
        match remove_namespace(runner, &netns) {
            Ok(pids) => {
                report.processes.extend(pids);
                // The run's work directory (pid files, a delay line's log,
                // TAYGA's files) goes with its last namespace.
                if let Some(run) = namespace_run(&netns) {
                    let dir = std::env::temp_dir().join(format!("{NAMESPACE_PREFIX}{run}"));
                    if dir.is_dir() {
                        let _ = std::fs::remove_dir_all(&dir);
                    }
                }
                report.namespaces.push(netns);
            }
            Err(err) => {
                first_error.get_or_insert(err);
            }
        }
    }
    if prefix == NAMESPACE_PREFIX {
        let output = runner.run(&KernelCommand::ip(["-o", "link", "show"]))?;
        let stray: Vec<String> = String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|line| line.split(": ").nth(1))
            .map(|name| name.split('@').next().unwrap_or(name).to_string())
            .filter(|name| is_dualperf_interface(name))
            .collect();
        for interface in stray {
            match runner.run(&KernelCommand::ip(["link", "del", &interface])) {
                Ok(_) => report.interfaces.push(interface),
                Err(err) => {
                    first_error.get_or_insert(err);
                }
            }
        }
    }
    match first_error {
        Some(err) => Err(err),
        None => Ok(report),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_interfaces_named_like_ours_are_recognised() {
        assert!(is_dualperf_interface("dspa1b2-0a"));
        assert!(is_dualperf_interface("dspabcdefg-999b"));
        assert!(!is_dualperf_interface("dsp"));
        assert!(!is_dualperf_interface("dspa1-0c"));
        assert!(!is_dualperf_interface("eth0"));
        assert!(!is_dualperf_interface("dspA1-0a"));
        assert!(!is_dualperf_interface("dsp-probe"));
    }

    #[test]
    #[should_panic(expected = "dsp-")]
    fn cleaning_a_foreign_prefix_is_refused() {
        let _ = clean(&Runner::new(false), "netns-of-someone-else");
    }

    #[test]
    fn run_ids_are_read_from_namespace_and_interface_names() {
        assert_eq!(namespace_run("dsp-k3x9a-router"), Some("k3x9a"));
        assert_eq!(namespace_run("dsp-k3x9a-node-with-dashes"), Some("k3x9a"));
        assert_eq!(namespace_run("dsp-"), None);
        assert_eq!(namespace_run("other-k3-x"), None);
        assert_eq!(interface_run("dspk3x9a-0a"), Some("k3x9a"));
        assert_eq!(interface_run("eth0"), None);
    }

    #[test]
    #[should_panic(expected = "dsp-")]
    fn cleaning_runs_under_a_foreign_prefix_is_refused() {
        let _ = clean_runs(
            &Runner::new(false),
            &[std::path::PathBuf::from("/nonexistent")],
            "x-",
            false,
        );
    }

    #[test]
    fn this_process_is_running_and_a_made_up_pid_is_not() {
        assert!(is_running(std::process::id() as i32));
        assert!(!is_running(i32::MAX));
    }
}

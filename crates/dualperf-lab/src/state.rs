//! State files of testbeds left up by `dualperf lab up`, so that `lab down`,
//! `lab status` and `lab exec` find them from another process, and the
//! owner lock of every run, so that `lab clean` spares runs in progress.
//!
//! One JSON file per run, `<dir>/<run>.json`, where `<dir>` is
//! `/run/dualperf` for root whatever its environment (`sudo` and `sudo -E`
//! agree), `$XDG_RUNTIME_DIR/dualperf` for another user when set. `lab
//! clean` looks for owners in every such directory ([`owner_dirs`]). The file holds the [`TestbedFacts`] (node → namespace,
//! addresses, links), which is all the other subcommands need.
//!
//! Owner locks: `<dir>/<run>.lock` holds the owner's process id and is
//! locked with `flock(2)` by the process that allocated the run for as long
//! as that process lives ([`lock_run`]). The kernel releases the lock when
//! the owner exits, however it exits (`kill -9` included), so "the lock is
//! held" means exactly "the owner still runs" — no pid can be recycled into
//! a false positive. [`run_owner`] asks without disturbing the owner.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use dualperf_model::TestbedFacts;
use serde::{Deserialize, Serialize};

use crate::error::LabError;

/// What `lab up` records about a testbed it left up.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LabState {
    /// The run id (`dsp-<run>-<node>` namespaces).
    pub run_id: String,
    /// When it was built, milliseconds since the Unix epoch.
    pub created_unix_ms: u64,
    /// The testbed as built.
    pub facts: TestbedFacts,
}

/// The system-wide state directory: where root (who builds testbeds: the
/// namespaces are system-wide) keeps state files and owner locks, whatever
/// its environment says.
pub const SYSTEM_STATE_DIR: &str = "/run/dualperf";

/// The directory this process writes state files and owner locks into:
/// [`SYSTEM_STATE_DIR`] for root, whatever `XDG_RUNTIME_DIR` says (`sudo`
/// and `sudo -E` must agree on who owns a testbed); for another user
/// `$XDG_RUNTIME_DIR/dualperf` when set.
pub fn state_dir() -> PathBuf {
    // SAFETY: geteuid(2) cannot fail and touches no memory.
    let root = unsafe { libc::geteuid() } == 0;
    match std::env::var_os("XDG_RUNTIME_DIR") {
        Some(dir) if !dir.is_empty() && !root => Path::new(&dir).join("dualperf"),
        _ => PathBuf::from(SYSTEM_STATE_DIR),
    }
}

/// Every directory an owner lock or a `lab up` record may be in, whoever
/// wrote it and with whatever environment: this process's
/// [`state_dir`], [`SYSTEM_STATE_DIR`], `$XDG_RUNTIME_DIR/dualperf` and
/// every `/run/user/UID/dualperf`; those that exist, each once. `lab clean`
/// asks them all before it calls a run ownerless.
pub fn owner_dirs() -> Vec<PathBuf> {
    let mut dirs = vec![state_dir(), PathBuf::from(SYSTEM_STATE_DIR)];
    if let Some(dir) = std::env::var_os("XDG_RUNTIME_DIR").filter(|d| !d.is_empty()) {
        dirs.push(Path::new(&dir).join("dualperf"));
    }
    if let Ok(users) = std::fs::read_dir("/run/user") {
        dirs.extend(
            users
                .filter_map(|u| u.ok())
                .map(|u| u.path().join("dualperf")),
        );
    }
    let mut unique: Vec<PathBuf> = Vec::new();
    for dir in dirs {
        if dir.is_dir() && !unique.contains(&dir) {
            unique.push(dir);
        }
    }
    unique
}

/// Largest state file, bytes (1 MiB; a record is a few KiB).
pub const MAX_STATE_BYTES: u64 = 1 << 20;

fn state_path(dir: &Path, run_id: &str) -> PathBuf {
    dir.join(format!("{run_id}.json"))
}

/// Writes `state` into `dir` (created if needed) and returns the file's path.
///
/// # Errors
/// [`LabError::State`] if the directory or file cannot be written.
pub fn save(dir: &Path, state: &LabState) -> Result<PathBuf, LabError> {
    let path = state_path(dir, &state.run_id);
    let error = |source| LabError::State {
        path: path.clone(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(error)?;
    let text =
        serde_json::to_string_pretty(state).expect("state is plain data and always serialises");
    std::fs::write(&path, text).map_err(error)?;
    Ok(path)
}

/// Every state file in `dir`, oldest first; a missing directory means none.
///
/// # Errors
/// [`LabError::State`] if the directory or a file cannot be read,
/// [`LabError::StateContent`] if a file does not parse.
pub fn load_all(dir: &Path) -> Result<Vec<LabState>, LabError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(LabError::State {
                path: dir.into(),
                source,
            })
        }
    };
    let mut states = Vec::new();
    for entry in entries {
        let path = entry
            .map_err(|source| LabError::State {
                path: dir.into(),
                source,
            })?
            .path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let mut text = String::new();
        File::open(&path)
            .and_then(|file| file.take(MAX_STATE_BYTES + 1).read_to_string(&mut text))
            .map_err(|source| LabError::State {
                path: path.clone(),
                source,
            })?;
        if text.len() as u64 > MAX_STATE_BYTES {
            return Err(LabError::StateContent {
                path: path.clone(),
                message: format!("larger than {MAX_STATE_BYTES} bytes (1 MiB)"),
            });
        }
        let state: LabState = serde_json::from_str(&text).map_err(|e| LabError::StateContent {
            path: path.clone(),
            message: e.to_string(),
        })?;
        states.push(state);
    }
    states.sort_by_key(|s| s.created_unix_ms);
    Ok(states)
}

/// Deletes the state file of `run_id` in `dir`; a missing file is fine.
///
/// # Errors
/// [`LabError::State`] if it exists and cannot be deleted.
pub fn remove(dir: &Path, run_id: &str) -> Result<(), LabError> {
    let path = state_path(dir, run_id);
    match std::fs::remove_file(&path) {
        Err(err) if err.kind() != std::io::ErrorKind::NotFound => {
            Err(LabError::State { path, source: err })
        }
        _ => Ok(()),
    }
}

/// The owner lock of one run, held for as long as this value lives (or,
/// kept in a static, as long as the process does). Dropping it removes the
/// lock file.
#[derive(Debug)]
pub struct RunLock {
    _file: File,
    path: PathBuf,
}

impl RunLock {
    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for RunLock {
    fn drop(&mut self) {
        // Unlinked while still locked: nobody can mistake it for a stale one.
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Who owns a run, as far as its lock file tells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunOwner {
    /// A live process holds the run's lock (its pid, if the file says).
    Alive {
        /// The owner's process id.
        pid: Option<i32>,
    },
    /// No lock file, or nobody holds it: the owner is gone.
    Gone,
}

fn lock_path(dir: &Path, run_id: &str) -> PathBuf {
    dir.join(format!("{run_id}.lock"))
}

/// Tries `flock(LOCK_EX | LOCK_NB)`; false when another open file holds it.
fn try_lock(file: &File) -> std::io::Result<bool> {
    // SAFETY: flock(2) on a descriptor this `File` owns.
    let result = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if result == 0 {
        return Ok(true);
    }
    let error = std::io::Error::last_os_error();
    if error.kind() == std::io::ErrorKind::WouldBlock {
        Ok(false)
    } else {
        Err(error)
    }
}

/// Takes the owner lock of `run_id` in `dir` (created if needed) for this
/// process and writes its pid into it.
///
/// # Errors
/// [`LabError::State`] if the file cannot be created, or another live
/// process already owns the run.
pub fn lock_run(dir: &Path, run_id: &str) -> Result<RunLock, LabError> {
    let path = lock_path(dir, run_id);
    let error = |source| LabError::State {
        path: path.clone(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(error)?;
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(error)?;
    if !try_lock(&file).map_err(error)? {
        return Err(error(std::io::Error::new(
            std::io::ErrorKind::WouldBlock,
            "another live process owns this run",
        )));
    }
    file.set_len(0).map_err(error)?;
    write!(file, "{}", std::process::id()).map_err(error)?;
    Ok(RunLock { _file: file, path })
}

/// Whether the owner of `run_id` still runs. Never blocks and never
/// disturbs a live owner (a lock taken to ask is released at once).
pub fn run_owner(dir: &Path, run_id: &str) -> RunOwner {
    let Ok(mut file) = OpenOptions::new()
        .read(true)
        .write(true)
        .open(lock_path(dir, run_id))
    else {
        return RunOwner::Gone;
    };
    match try_lock(&file) {
        Ok(false) => {
            let mut text = String::new();
            let _ = file.read_to_string(&mut text);
            RunOwner::Alive {
                pid: text.trim().parse().ok(),
            }
        }
        // Locked by us now, or unlockable: nobody holds it.
        _ => RunOwner::Gone,
    }
}

/// Deletes the lock file of `run_id` if its owner is gone; a live owner's
/// lock is kept. Returns whether a file was deleted.
pub fn remove_stale_lock(dir: &Path, run_id: &str) -> bool {
    let path = lock_path(dir, run_id);
    let Ok(file) = OpenOptions::new().read(true).write(true).open(&path) else {
        return false;
    };
    // Delete while holding the lock, so a live owner is never raced.
    matches!(try_lock(&file), Ok(true)) && std::fs::remove_file(&path).is_ok()
}

/// Run ids that have a lock file in `dir` (live or stale).
pub fn locked_run_ids(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut ids: Vec<String> = entries
        .filter_map(|entry| entry.ok())
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            name.strip_suffix(".lock").map(str::to_string)
        })
        .collect();
    ids.sort();
    ids
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_lock_means_alive_and_a_released_one_means_gone() {
        let dir = std::env::temp_dir().join(format!("dualperf-lock-test-{}", std::process::id()));
        assert_eq!(run_owner(&dir, "l1"), RunOwner::Gone);
        let lock = lock_run(&dir, "l1").unwrap();
        assert_eq!(
            run_owner(&dir, "l1"),
            RunOwner::Alive {
                pid: Some(std::process::id() as i32)
            }
        );
        // Asking did not take it away, and nobody else can take it.
        assert!(lock_run(&dir, "l1").is_err());
        assert!(!remove_stale_lock(&dir, "l1"));
        assert_eq!(locked_run_ids(&dir), vec!["l1".to_string()]);
        drop(lock);
        assert_eq!(run_owner(&dir, "l1"), RunOwner::Gone);
        // A lock file left by a dead owner (here: written, never locked).
        std::fs::write(dir.join("l2.lock"), "999999").unwrap();
        assert_eq!(run_owner(&dir, "l2"), RunOwner::Gone);
        assert!(remove_stale_lock(&dir, "l2"));
        assert!(locked_run_ids(&dir).is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn saved_state_loads_back_and_removes() {
        let dir = std::env::temp_dir().join(format!("dualperf-state-test-{}", std::process::id()));
        let state = LabState {
            run_id: "s1".into(),
            created_unix_ms: 5,
            facts: TestbedFacts {
                name: "router".into(),
                ..Default::default()
            },
        };
        save(&dir, &state).unwrap();
        assert_eq!(load_all(&dir).unwrap(), vec![state]);
        remove(&dir, "s1").unwrap();
        assert!(load_all(&dir).unwrap().is_empty());
        remove(&dir, "s1").unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_missing_directory_holds_no_state() {
        assert!(load_all(Path::new("/nonexistent/dualperf-state"))
            .unwrap()
            .is_empty());
    }
}

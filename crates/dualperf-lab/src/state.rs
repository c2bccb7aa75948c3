//! State files of testbeds left up by `dualperf lab up`, so that `lab down`,
//! `lab status` and `lab exec` find them from another process.
//!
//! One JSON file per run, `<dir>/<run>.json`, where `<dir>` is
//! `$XDG_RUNTIME_DIR/dualperf` when that variable is set and `/run/dualperf`
//! otherwise. The file holds the [`TestbedFacts`] (node → namespace,
//! addresses, links), which is all the other subcommands need.

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

/// The directory state files live in.
pub fn state_dir() -> PathBuf {
    match std::env::var_os("XDG_RUNTIME_DIR") {
        Some(dir) if !dir.is_empty() => Path::new(&dir).join("dualperf"),
        _ => PathBuf::from("/run/dualperf"),
    }
}

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
        let text = std::fs::read_to_string(&path).map_err(|source| LabError::State {
            path: path.clone(),
            source,
        })?;
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

#[cfg(test)]
mod tests {
    use super::*;

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

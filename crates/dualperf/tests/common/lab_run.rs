//! Running `dualperf lab …` from a test: the command with `--no-store` and
//! a results folder of its own, what it printed, how long it took, and the
//! one run's `result.json` read back (the folder is removed).

#![allow(dead_code)] // each test binary uses its own part of the common code

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use dualperf_model::RunResult;

/// What one `dualperf lab` command did.
pub struct LabRun {
    pub stdout: String,
    pub stderr: String,
    /// The exit code (`None`: killed by a signal).
    pub code: Option<i32>,
    pub took: Duration,
    /// The run's result, when it wrote one.
    pub result: Option<RunResult>,
}

/// Runs `dualperf lab ARGS --no-store --results FOLDER`, FOLDER named
/// after `name` and this process, and reads back its one result.
pub fn lab(name: &str, args: &[&str]) -> LabRun {
    let folder: PathBuf = std::env::temp_dir().join(format!("dpt-{name}-{}", std::process::id()));
    let started = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_dualperf"))
        .arg("lab")
        .args(args)
        .args(["--no-store", "--results"])
        .arg(&folder)
        .output()
        .expect("dualperf runs");
    let took = started.elapsed();
    let result = std::fs::read_dir(&folder)
        .ok()
        .and_then(|mut runs| runs.next())
        .and_then(|run| run.ok())
        .and_then(|run| std::fs::read(run.path().join("result.json")).ok())
        .map(|json| serde_json::from_slice(&json).expect("result.json parses"));
    let _ = std::fs::remove_dir_all(&folder);
    LabRun {
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        code: output.status.code(),
        took,
        result,
    }
}

impl LabRun {
    /// The result of a run that succeeded; panics with what it printed
    /// otherwise.
    pub fn succeeded(self) -> (String, RunResult) {
        assert_eq!(self.code, Some(0), "{}\n{}", self.stdout, self.stderr);
        let result = self
            .result
            .unwrap_or_else(|| panic!("no result.json\n{}\n{}", self.stdout, self.stderr));
        (self.stdout, result)
    }
}

//! Running `dualperf lab …` from a test: the command with `--no-store` and
//! a results folder of its own, what it printed, how long it took, and the
//! one run's folder read back — `result.json`, `plan.json`, `report.html`
//! and the names of the files left there (the folder is removed).

#![allow(dead_code)] // each test binary uses its own part of the common code

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use dualperf_model::{PlanFile, RunResult};

/// What one `dualperf lab` command did.
pub struct LabRun {
    pub stdout: String,
    pub stderr: String,
    /// The exit code (`None`: killed by a signal).
    pub code: Option<i32>,
    pub took: Duration,
    /// The run's result, when it wrote one.
    pub result: Option<RunResult>,
    /// The plan the measuring child read, when the run wrote one.
    pub plan: Option<PlanFile>,
    /// The HTML report, when the run wrote one.
    pub report: Option<String>,
    /// The names of the files in the run's folder.
    pub files: Vec<String>,
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
    let run = std::fs::read_dir(&folder)
        .ok()
        .and_then(|mut runs| runs.next())
        .and_then(|run| run.ok())
        .map(|run| run.path());
    let read = |name: &str| {
        run.as_ref()
            .and_then(|run| std::fs::read(run.join(name)).ok())
    };
    let result =
        read("result.json").map(|json| serde_json::from_slice(&json).expect("result.json parses"));
    let plan =
        read("plan.json").map(|json| serde_json::from_slice(&json).expect("plan.json parses"));
    let report = read("report.html").map(|html| String::from_utf8_lossy(&html).into_owned());
    let files = run
        .as_ref()
        .and_then(|run| std::fs::read_dir(run).ok())
        .map(|entries| {
            entries
                .filter_map(|entry| entry.ok())
                .map(|entry| entry.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    let _ = std::fs::remove_dir_all(&folder);
    LabRun {
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        code: output.status.code(),
        took,
        result,
        plan,
        report,
        files,
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

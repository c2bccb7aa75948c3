//! The metric catalogue is the only place a metric name is spelled: every
//! other crate uses `MetricId`. This test reads every Rust source file of
//! the workspace and fails on a string literal that is exactly a metric
//! name (`"goodput_bps"`), pointing at the file and line, so a typo or a
//! second spelling cannot creep back in.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

use std::path::{Path, PathBuf};

use dualperf_model::MetricId;

/// The one file allowed to spell metric names: the catalogue itself.
const CATALOGUE: &str = "crates/dualperf-model/src/metric.rs";

fn rust_files(directory: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(directory) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if path.is_dir() {
            if name != "target" && name != ".git" && name != "fixtures" {
                rust_files(&path, found);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

#[test]
fn no_metric_name_is_spelled_outside_the_catalogue() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    rust_files(&workspace.join("crates"), &mut files);
    assert!(files.len() > 50, "found only {} Rust files", files.len());
    let mut offences = Vec::new();
    for file in files {
        let relative = file
            .strip_prefix(&workspace)
            .unwrap_or(&file)
            .to_string_lossy()
            .replace('\\', "/");
        if relative == CATALOGUE || relative.ends_with("tests/metric_names.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for (number, line) in text.lines().enumerate() {
            for metric in MetricId::ALL {
                let quoted = format!("\"{}\"", metric.name());
                if line.contains(&quoted) {
                    offences.push(format!(
                        "{relative}:{}: {quoted} — use MetricId::{metric:?}",
                        number + 1
                    ));
                }
            }
        }
    }
    assert!(
        offences.is_empty(),
        "metric names spelled outside {CATALOGUE}:\n{}",
        offences.join("\n")
    );
}

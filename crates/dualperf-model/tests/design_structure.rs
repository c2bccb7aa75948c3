//! Experiment structure travels as types, never as strings: no source
//! outside tests finds an arm's family, class, load or step by building or
//! parsing an arm id, a load name or a label. This test reads every Rust
//! source file of the workspace (test files and `#[cfg(test)]` modules
//! excluded) and fails on the patterns that did exactly that before
//! experiments became designs (`format!("{}-s{percent}-{size}")` to find a
//! step's arm, `id.strip_prefix("v4-s")`, `label.starts_with("BE UDP")`,
//! an arm id compared with a literal), pointing at the file and line.
//!
//! Planners may still *derive* an id from the levels they give an arm (the
//! id is a name, like a file name); the stored-result upgrade of loads
//! written before levels existed is the one reader of load names
//! (`dualperf-model/src/design.rs`, `legacy_level`).

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code

use std::path::{Path, PathBuf};

/// Patterns that find structure in ids, names or labels.
const FORBIDDEN: [(&str, &str); 8] = [
    ("id.as_str().strip_prefix(", "parses an arm id"),
    ("arm.as_str().strip_prefix(", "parses an arm id"),
    ("id.as_str().split", "parses an arm id"),
    (".label.starts_with(", "finds structure in a label"),
    (".label.contains(", "finds structure in a label"),
    ("arm.as_str() == ", "compares an arm id with text"),
    ("id.as_str() == ", "compares an arm id with text"),
    (
        "\"{}-s{percent}-{size}\"",
        "builds a step arm's id to look it up",
    ),
];

/// Directories of planners: they derive ids from levels, which is allowed.
const PLANNERS: [&str; 2] = [
    "crates/dualperf/src/cli/lab/experiment/",
    "crates/dualperf-lab/src/arms.rs",
];

fn rust_files(directory: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(directory) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if path.is_dir() {
            if name != "target" && name != "tests" && name != "fixtures" {
                rust_files(&path, found);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            let file = name.to_string_lossy();
            if file != "tests.rs" && !file.ends_with("_tests.rs") {
                found.push(path);
            }
        }
    }
}

/// The text of `source` before its first `#[cfg(test)]` (tests sit at the end
/// of a module by this project's convention).
fn non_test_part(source: &str) -> &str {
    source.split("#[cfg(test)]").next().unwrap_or(source)
}

#[test]
fn no_source_finds_experiment_structure_in_ids_names_or_labels() {
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
        let text = std::fs::read_to_string(&file).unwrap();
        for (number, line) in non_test_part(&text).lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for (pattern, why) in FORBIDDEN {
                let planner = PLANNERS.iter().any(|p| relative.starts_with(p));
                if code.contains(pattern) && !(planner && pattern.starts_with('"')) {
                    offences.push(format!("{relative}:{}: `{pattern}` {why}", number + 1));
                }
            }
        }
    }
    assert!(
        offences.is_empty(),
        "experiment structure read from strings (use the arms' levels, LoadSpec::offered, \
         RunConfig::contrasts):\n{}",
        offences.join("\n")
    );
}

#[test]
fn the_check_finds_what_it_forbids() {
    let sample = "let arm = format!(\"{}-s{percent}-{size}\", p);\nif f.label.starts_with(\"BE UDP\") {}\n#[cfg(test)]\nmod tests { fn x() { a.id.as_str() == \"v4\"; } }";
    let code = non_test_part(sample);
    let hits: Vec<&str> = FORBIDDEN
        .iter()
        .filter(|(pattern, _)| code.contains(pattern))
        .map(|(pattern, _)| *pattern)
        .collect();
    assert_eq!(hits, [".label.starts_with(", "\"{}-s{percent}-{size}\""]);
}

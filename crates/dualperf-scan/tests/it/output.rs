//! Snapshots of the three output formats, and SARIF validated against the
//! official SARIF 2.1.0 JSON schema (`fixtures/schema/sarif-2.1.0-rtm.5.json`,
//! vendored from the MIT-licensed npm package `@microsoft/jest-sarif`, which
//! ships the OASIS schema file unchanged).

use std::path::PathBuf;

use dualperf_scan::output::{to_json, to_sarif, to_text, TextOptions};
use dualperf_scan::{scan_paths, ScanOptions, ScanReport};

/// Scans a few fixture directories by relative path (tests run in the crate
/// directory), so paths and fingerprints in snapshots are machine-independent.
fn sample_report() -> ScanReport {
    let paths: Vec<PathBuf> = [
        "fixtures/inet-ntoa",
        "fixtures/host-port-join",
        "fixtures/ipv4-literal/tests",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    scan_paths(&paths, &ScanOptions::default()).unwrap()
}

#[test]
fn text_output_lists_findings_then_a_porting_plan() {
    insta::assert_snapshot!(to_text(&sample_report(), TextOptions::default()));
}

#[test]
fn json_output_carries_summary_plan_and_findings() {
    insta::assert_snapshot!(to_json(&sample_report()));
}

#[test]
fn sarif_output_snapshot() {
    insta::assert_snapshot!(to_sarif(&sample_report()));
}

fn sarif_validator() -> jsonschema::Validator {
    let schema_text = std::fs::read_to_string("fixtures/schema/sarif-2.1.0-rtm.5.json").unwrap();
    // The official file's `run.language` pattern ends in a stray `]`, legal in
    // ECMA-262 regexes but rejected by Rust's; escape it (in memory only) so the
    // schema compiles. The meaning of the pattern is unchanged.
    let schema_text = schema_text.replace("[a-zA-Z]{2}]?$", "[a-zA-Z]{2}\\\\]?$");
    let schema: serde_json::Value = serde_json::from_str(&schema_text).unwrap();
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft4)
        .with_pattern_options(jsonschema::PatternOptions::fancy_regex())
        .build(&schema)
        .expect("the SARIF schema compiles")
}

#[test]
fn sarif_output_validates_against_the_official_sarif_2_1_0_schema() {
    let validator = sarif_validator();
    let log: serde_json::Value = serde_json::from_str(&to_sarif(&sample_report())).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&log)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "SARIF schema violations: {errors:#?}");
    assert_eq!(log["version"], "2.1.0");
    assert_eq!(
        log["runs"][0]["tool"]["driver"]["rules"]
            .as_array()
            .unwrap()
            .len(),
        dualperf_scan::RULES.len()
    );
}

#[test]
fn sarif_uris_are_relative_to_the_scan_root() {
    let log: serde_json::Value = serde_json::from_str(&to_sarif(&sample_report())).unwrap();
    let uris: Vec<&str> = log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert!(uris.contains(&"print.c"), "{uris:?}");
    assert!(
        uris.iter()
            .all(|u| !u.starts_with("fixtures/") && !u.starts_with('/')),
        "{uris:?}"
    );
    let rooted = scan_paths(
        &[PathBuf::from("fixtures/inet-ntoa")],
        &ScanOptions {
            root: Some(PathBuf::from("fixtures")),
            ..Default::default()
        },
    )
    .unwrap();
    let log: serde_json::Value = serde_json::from_str(&to_sarif(&rooted)).unwrap();
    assert_eq!(
        log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "inet-ntoa/print.c"
    );
    assert!(sarif_validator().is_valid(&log));
}

#[test]
fn the_schema_check_can_fail_for_a_broken_log() {
    let validator = sarif_validator();
    let mut log: serde_json::Value = serde_json::from_str(&to_sarif(&sample_report())).unwrap();
    log["runs"][0]["results"][0]["level"] = "fatal".into();
    assert!(
        !validator.is_valid(&log),
        "an invalid level must be rejected by the schema"
    );
}

#[test]
fn an_empty_scan_renders_no_findings_in_every_format() {
    let report = scan_paths(
        &[PathBuf::from("fixtures/negative")],
        &ScanOptions::default(),
    )
    .unwrap();
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
    assert!(to_text(&report, TextOptions::default()).contains("No IPv4-only constructs found."));
    let sarif: serde_json::Value = serde_json::from_str(&to_sarif(&report)).unwrap();
    assert_eq!(sarif["runs"][0]["results"].as_array().unwrap().len(), 0);
    assert!(sarif_validator().is_valid(&sarif));
}

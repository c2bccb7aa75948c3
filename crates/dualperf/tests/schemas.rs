//! The published JSON Schemas (`docs/schemas/*.schema.json`) are generated
//! from the Rust types of the machine outputs (the result, `scan --json`,
//! `check --json`) and checked here: a test fails when a committed schema
//! differs from the generated one (`DUALPERF_BLESS=1 cargo test -p dualperf
//! --test schemas` rewrites them), and real outputs are validated against
//! the committed files.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

use std::path::PathBuf;
use std::process::Command;

use dualperf_fixtures::schema::{
    assert_valid, published_schema_path, strict_schema, validation_errors,
};
use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::Value;

/// The serialise-side schema of `T`, strict (no unknown properties), with `$id` and title.
fn generate<T: JsonSchema>(file: &str, title: &str) -> Value {
    let schema = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>();
    let mut value = strict_schema(serde_json::to_value(schema).unwrap());
    let object = value.as_object_mut().unwrap();
    object.insert(
        "$id".into(),
        format!("https://example.invalid/dualperf/schemas/{file}").into(),
    );
    object.insert("title".into(), title.into());
    value
}

/// Every published schema: (file name, generated schema).
fn generated() -> Vec<(&'static str, Value)> {
    vec![
        (
            "result.schema.json",
            generate::<dualperf_model::RunResult>(
                "result.schema.json",
                "dualperf result (schema dualperf.run)",
            ),
        ),
        (
            "scan.schema.json",
            generate::<dualperf_scan::output::ScanDocument<'static>>(
                "scan.schema.json",
                "dualperf scan --json",
            ),
        ),
        (
            "check.schema.json",
            generate::<dualperf_check::CheckDocument>(
                "check.schema.json",
                "dualperf check --json (schema dualperf.check)",
            ),
        ),
    ]
}

#[test]
fn the_published_schemas_are_the_ones_the_types_generate() {
    let bless = std::env::var_os("DUALPERF_BLESS").is_some_and(|v| v == "1");
    let mut stale = Vec::new();
    for (file, schema) in generated() {
        let path = published_schema_path(file);
        let text = format!("{}\n", serde_json::to_string_pretty(&schema).unwrap());
        if bless {
            std::fs::write(&path, &text).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "these published schemas differ from the Rust types: {stale:?}; \
         rerun with DUALPERF_BLESS=1 to rewrite them and commit the change"
    );
}

#[test]
fn a_synthetic_analysed_run_validates_against_the_result_schema() {
    let result = dualperf_fixtures::synthetic::synthetic_run();
    assert!(result.analysis.is_some());
    assert_valid(
        "result.schema.json",
        &serde_json::to_value(&result).unwrap(),
    );
}

#[test]
fn a_field_the_schema_does_not_know_fails_validation_with_its_path() {
    let mut value =
        serde_json::to_value(dualperf_fixtures::synthetic::small_synthetic_run()).unwrap();
    value["trials"][0]["outcome"]["added_later_ns"] = 1.into();
    let errors = validation_errors("result.schema.json", &value);
    assert!(
        errors.iter().any(|e| e.starts_with("/trials/0/outcome")),
        "{errors:#?}"
    );
    value["trials"][0]["outcome"]
        .as_object_mut()
        .unwrap()
        .remove("added_later_ns");
    value["schema_version"] = "two".into();
    let errors = validation_errors("result.schema.json", &value);
    assert!(
        errors.iter().any(|e| e.starts_with("/schema_version")),
        "{errors:#?}"
    );
}

#[test]
fn a_scan_of_the_fixture_tree_validates_against_the_scan_schema() {
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../dualperf-scan/fixtures");
    let report =
        dualperf_scan::scan_paths(&[fixtures], &dualperf_scan::ScanOptions::default()).unwrap();
    assert!(!report.findings.is_empty());
    let text = dualperf_scan::output::to_json(&report);
    let value: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        value["schema_version"],
        dualperf_scan::output::SCAN_SCHEMA_VERSION
    );
    assert_valid("scan.schema.json", &value);
}

fn dualperf_json(args: &[&str]) -> Value {
    let output = Command::new(env!("CARGO_BIN_EXE_dualperf"))
        .args(args)
        .output()
        .expect("running dualperf");
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?} printed no JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

#[test]
fn check_local_json_validates_against_the_check_schema() {
    let value = dualperf_json(&["check", "--local", "--json"]);
    assert_eq!(value["schema"], dualperf_check::CHECK_SCHEMA);
    assert!(value["local"]["cells"]
        .as_array()
        .is_some_and(|c| !c.is_empty()));
    assert_valid("check.schema.json", &value);
}

#[test]
fn check_host_json_has_durations_in_milliseconds_and_validates() {
    // Port 1 on ::1: nothing listens there on a test machine; only loopback is touched.
    let value = dualperf_json(&["check", "[::1]:1", "--json", "--timeout-ms", "500"]);
    let resolution = &value["host"]["resolution"]["v6"];
    assert!(resolution["elapsed_ms"].is_number(), "{value:#}");
    assert!(!value.to_string().contains("\"secs\""), "{value:#}");
    assert_valid("check.schema.json", &value);
}

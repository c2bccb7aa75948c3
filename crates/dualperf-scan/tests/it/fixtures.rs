//! Every fixture declares its expected findings inline (`expect: rule-id, ...`
//! in a trailing comment); the scan must find exactly those, no more, no less.
//! Negative fixtures (dual-stack code, APIs named in comments) expect nothing.

use std::collections::BTreeMap;
use std::path::Path;

use dualperf_scan::{scan_paths, Language, ScanOptions, RULES};
use regex::Regex;

use crate::fixtures_dir;

/// (path relative to fixtures/, line, rule) → count.
type Expectations = BTreeMap<(String, usize, String), usize>;

fn expected_findings(root: &Path) -> Expectations {
    let marker = Regex::new(r"expect: ([a-z0-9-]+(?:\s*,\s*[a-z0-9-]+)*)").unwrap();
    let mut expected = Expectations::new();
    for entry in walk(root) {
        if Language::of_path(&entry).is_none() {
            continue;
        }
        let text = std::fs::read_to_string(&entry).unwrap();
        let relative = entry
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        for (number, line) in text.lines().enumerate() {
            if let Some(captures) = marker.captures(line) {
                for rule in captures[1].split(',') {
                    *expected
                        .entry((relative.clone(), number + 1, rule.trim().to_string()))
                        .or_default() += 1;
                }
            }
        }
    }
    expected
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[test]
fn every_fixture_produces_exactly_its_expected_findings() {
    let root = fixtures_dir();
    let report = scan_paths(std::slice::from_ref(&root), &ScanOptions::default()).unwrap();
    let prefix = format!("{}/", root.to_string_lossy().replace('\\', "/"));
    let mut found = Expectations::new();
    for finding in &report.findings {
        let relative = finding
            .path
            .strip_prefix(&prefix)
            .unwrap_or(&finding.path)
            .to_string();
        *found
            .entry((relative, finding.line, finding.rule.to_string()))
            .or_default() += 1;
    }
    let expected = expected_findings(&root);
    let missing: Vec<_> = expected
        .iter()
        .filter(|(k, v)| found.get(*k) != Some(v))
        .collect();
    let unexpected: Vec<_> = found
        .iter()
        .filter(|(k, v)| expected.get(*k) != Some(v))
        .collect();
    assert!(
        missing.is_empty() && unexpected.is_empty(),
        "missing (expected, count): {missing:#?}\nunexpected (found, count): {unexpected:#?}"
    );
    assert!(
        report.files_scanned >= 70,
        "only {} fixture files scanned",
        report.files_scanned
    );
}

#[test]
fn every_rule_has_a_fixture_for_every_language_it_applies_to() {
    let root = fixtures_dir();
    let expected = expected_findings(&root);
    for rule in RULES {
        for language in rule.languages {
            let covered = expected.keys().any(|(path, _, id)| {
                id == rule.id
                    && Language::of_path(Path::new(path)) == Some(*language)
                    && path.starts_with(rule.id)
            });
            assert!(
                covered,
                "rule {} has no {} fixture in fixtures/{}/",
                rule.id,
                language.name(),
                rule.id
            );
        }
    }
}

#[test]
fn negative_fixtures_cover_every_source_language() {
    let negatives = walk(&fixtures_dir().join("negative"));
    for language in Language::ALL.iter().filter(|l| **l != Language::Config) {
        assert!(
            negatives
                .iter()
                .any(|p| Language::of_path(p) == Some(*language)),
            "no negative fixture for {}",
            language.name()
        );
    }
}

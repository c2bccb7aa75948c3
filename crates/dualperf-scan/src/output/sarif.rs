//! SARIF 2.1.0 (OASIS Static Analysis Results Interchange Format), the input
//! of code-scanning dashboards. Every rule is listed in
//! `runs[0].tool.driver.rules` with its documentation; each result points at
//! its rule by id and index and carries its fingerprint in
//! `partialFingerprints` so dashboards track it across line shifts. Artifact
//! URIs are relative to the scan root (`uriBaseId` `SRCROOT`), and neither
//! they nor the fingerprints depend on where the tree lives.

use serde_json::{json, Value};

use crate::rules::{rule_index, RULES};
use crate::ScanReport;

/// A relative URI reference for a root-relative path (RFC 3986: spaces and
/// other reserved characters percent-encoded, `/` kept).
fn uri_of(path: &str) -> String {
    let mut uri = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=:@".contains(&byte) {
            uri.push(char::from(byte));
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    uri
}

/// The schema URI written into the log.
pub(super) const SARIF_SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// Renders `report` as a SARIF 2.1.0 log (pretty JSON).
pub fn to_sarif(report: &ScanReport) -> String {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|rule| {
            json!({
                "id": rule.id,
                "name": rule.id,
                "shortDescription": { "text": rule.what },
                "fullDescription": { "text": rule.why },
                "help": { "text": rule.fix, "markdown": rule.to_markdown() },
                "defaultConfiguration": { "level": rule.severity.name() },
                "properties": {
                    "tags": ["ipv6", "portability"],
                    "languages": rule.languages.iter().map(|l| l.name()).collect::<Vec<_>>(),
                },
            })
        })
        .collect();
    let results: Vec<Value> = report
        .findings
        .iter()
        .map(|f| {
            json!({
                "ruleId": f.rule,
                "ruleIndex": rule_index(f.rule).expect("findings only carry ids from the rule table"),
                "level": f.severity.name(),
                "message": { "text": f.message },
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": { "uri": uri_of(&f.root_path), "uriBaseId": "SRCROOT" },
                        "region": {
                            "startLine": f.line,
                            "startColumn": f.column,
                            "snippet": { "text": f.snippet },
                        },
                    },
                }],
                "partialFingerprints": { "dualperfLineHash/v1": f.fingerprint },
            })
        })
        .collect();
    let log = json!({
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "dualperf-scan",
                    "informationUri": "https://example.invalid/dualperf/docs/rules.md",
                    "semanticVersion": env!("CARGO_PKG_VERSION"),
                    "rules": rules,
                },
            },
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    });
    serde_json::to_string_pretty(&log).expect("SARIF logs always serialise")
}

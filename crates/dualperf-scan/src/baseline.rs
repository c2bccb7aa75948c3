//! Baselines: the findings a project has accepted for now, so CI fails only
//! on new ones. A finding is identified by its fingerprint (rule, path and
//! normalised line text, see [`crate::finding::fingerprint`]), so it stays
//! known when lines above it move. Identical lines are counted: a baseline
//! with two copies of a fingerprint absorbs two findings, not three.

use std::collections::HashMap;
use std::path::Path;

use crate::{Finding, ScanError, ScanReport};

/// The on-disk format (JSON), versioned.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Baseline {
    /// Format version; currently 1.
    pub version: u32,
    /// One entry per accepted finding.
    pub findings: Vec<BaselineEntry>,
}

/// One accepted finding.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct BaselineEntry {
    /// Rule id.
    pub rule: String,
    /// File path as shown in the output.
    pub path: String,
    /// Fingerprint (16 hex digits).
    pub fingerprint: String,
    /// Line number when the baseline was written (informative only).
    pub line: usize,
}

impl Baseline {
    /// The baseline that accepts every finding of `report`.
    pub fn from_findings(findings: &[Finding]) -> Baseline {
        let findings = findings
            .iter()
            .map(|f| BaselineEntry {
                rule: f.rule.to_string(),
                path: f.path.clone(),
                fingerprint: f.fingerprint.clone(),
                line: f.line,
            })
            .collect();
        Baseline {
            version: 1,
            findings,
        }
    }

    /// Reads a baseline file.
    ///
    /// # Errors
    /// [`ScanError::Baseline`] if unreadable, [`ScanError::BaselineFormat`] if not a baseline.
    pub fn load(path: &Path) -> Result<Baseline, ScanError> {
        let text = std::fs::read_to_string(path).map_err(|source| ScanError::Baseline {
            path: path.into(),
            source,
        })?;
        let baseline: Baseline =
            serde_json::from_str(&text).map_err(|e| ScanError::BaselineFormat {
                path: path.into(),
                reason: e.to_string(),
            })?;
        if baseline.version != 1 {
            return Err(ScanError::BaselineFormat {
                path: path.into(),
                reason: format!("unsupported version {}", baseline.version),
            });
        }
        Ok(baseline)
    }

    /// Writes the baseline as pretty JSON.
    ///
    /// # Errors
    /// [`ScanError::Baseline`] if the file cannot be written.
    pub fn save(&self, path: &Path) -> Result<(), ScanError> {
        let text = serde_json::to_string_pretty(self).expect("a baseline always serialises");
        std::fs::write(path, text + "\n").map_err(|source| ScanError::Baseline {
            path: path.into(),
            source,
        })
    }

    /// Removes from `report` every finding the baseline accepts and counts them
    /// in [`ScanReport::baselined`].
    pub fn filter(&self, report: &mut ScanReport) {
        let mut remaining: HashMap<&str, usize> = HashMap::new();
        for entry in &self.findings {
            *remaining.entry(entry.fingerprint.as_str()).or_default() += 1;
        }
        let before = report.findings.len();
        report.findings.retain(
            |finding| match remaining.get_mut(finding.fingerprint.as_str()) {
                Some(count) if *count > 0 => {
                    *count -= 1;
                    false
                }
                _ => true,
            },
        );
        report.baselined += before - report.findings.len();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{scan_source, Language};

    #[test]
    fn a_baselined_finding_stays_known_when_lines_are_added_above_it() {
        let old = scan_source("void f(void) {\n  inet_addr(h);\n}\n", Language::C, "a.c");
        let baseline = Baseline::from_findings(&old);
        let new_source =
            "#include <x.h>\n\nvoid f(void) {\n    inet_addr(h);\n  inet_ntoa(a);\n}\n";
        let mut report = ScanReport {
            findings: scan_source(new_source, Language::C, "a.c"),
            ..Default::default()
        };
        baseline.filter(&mut report);
        let rules: Vec<&str> = report.findings.iter().map(|f| f.rule).collect();
        assert_eq!(rules, ["inet-ntoa"]);
        assert_eq!(report.baselined, 1);
    }

    #[test]
    fn identical_lines_are_counted_not_merged() {
        let one = scan_source("x = inet_addr(h);\n", Language::C, "a.c");
        let baseline = Baseline::from_findings(&one);
        let mut report = ScanReport {
            findings: scan_source("x = inet_addr(h);\nx = inet_addr(h);\n", Language::C, "a.c"),
            ..Default::default()
        };
        baseline.filter(&mut report);
        assert_eq!(report.findings.len(), 1);
    }
}

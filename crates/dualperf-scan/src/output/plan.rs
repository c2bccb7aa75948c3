//! The porting plan: findings grouped by rule (what to replace, with what)
//! and by file (where to work, busiest file first), the way seed 000's
//! porting procedure works through a checker's report.

use std::collections::BTreeMap;

use crate::rule::Severity;
use crate::rules::rule;
use crate::ScanReport;

/// Findings of one rule.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RulePlan {
    /// Rule id.
    pub rule: &'static str,
    /// The rule's default severity.
    pub severity: Severity,
    /// Number of findings.
    pub count: usize,
    /// Number of files with at least one.
    pub files: usize,
    /// How to fix them (the rule's `fix`).
    pub fix: &'static str,
}

/// Findings in one file.
#[derive(Clone, Debug, serde::Serialize)]
pub struct FilePlan {
    /// The file.
    pub path: String,
    /// Number of findings.
    pub count: usize,
    /// Findings per rule, most frequent first.
    pub rules: Vec<(&'static str, usize)>,
}

/// The whole plan.
#[derive(Clone, Debug, serde::Serialize)]
pub struct PortingPlan {
    /// Rules, errors first, then by count.
    pub by_rule: Vec<RulePlan>,
    /// Files, most findings first.
    pub by_file: Vec<FilePlan>,
}

/// Groups the findings of `report` into a plan.
pub fn porting_plan(report: &ScanReport) -> PortingPlan {
    let mut rules: BTreeMap<&'static str, (usize, std::collections::BTreeSet<&str>)> =
        BTreeMap::new();
    let mut files: BTreeMap<&str, BTreeMap<&'static str, usize>> = BTreeMap::new();
    for finding in &report.findings {
        let entry = rules.entry(finding.rule).or_default();
        entry.0 += 1;
        entry.1.insert(&finding.path);
        *files
            .entry(&finding.path)
            .or_default()
            .entry(finding.rule)
            .or_default() += 1;
    }
    let mut by_rule: Vec<RulePlan> = rules
        .into_iter()
        .map(|(id, (count, paths))| {
            let documented = rule(id).expect("findings only carry ids from the rule table");
            RulePlan {
                rule: id,
                severity: documented.severity,
                count,
                files: paths.len(),
                fix: documented.fix,
            }
        })
        .collect();
    by_rule.sort_by(|a, b| {
        (a.severity, std::cmp::Reverse(a.count), a.rule).cmp(&(
            b.severity,
            std::cmp::Reverse(b.count),
            b.rule,
        ))
    });
    let mut by_file: Vec<FilePlan> = files
        .into_iter()
        .map(|(path, counts)| {
            let mut rules: Vec<(&'static str, usize)> = counts.into_iter().collect();
            rules.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
            FilePlan {
                path: path.to_string(),
                count: rules.iter().map(|r| r.1).sum(),
                rules,
            }
        })
        .collect();
    by_file.sort_by(|a, b| b.count.cmp(&a.count).then(a.path.cmp(&b.path)));
    PortingPlan { by_rule, by_file }
}

//! The porting plan: findings grouped by rule (what to replace, with what)
//! and by file (where to work, busiest file first), the way seed 000's
//! porting procedure works through a checker's report.

use std::collections::BTreeMap;

use crate::rule::Severity;
use crate::rules::rule;
use crate::ScanReport;

/// Findings of one rule.
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct RulePlan {
    /// Rule id.
    pub rule: &'static str,
    /// The rule's default severity.
    pub severity: Severity,
    /// Number of findings.
    pub count: usize,
    /// Of those, findings at note severity (probably data or dual-stack branches).
    pub notes: usize,
    /// Number of files with at least one.
    pub files: usize,
    /// How to fix them (the rule's `fix`).
    pub fix: &'static str,
}

/// Findings in one file.
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct FilePlan {
    /// The file.
    pub path: String,
    /// Number of findings.
    pub count: usize,
    /// Of those, findings at error or warning severity.
    pub actionable: usize,
    /// Findings per rule, most frequent first.
    pub rules: Vec<(&'static str, usize)>,
}

/// The whole plan.
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct PortingPlan {
    /// Rules, errors first, then by count.
    pub by_rule: Vec<RulePlan>,
    /// Files, most error and warning findings first, then most findings.
    pub by_file: Vec<FilePlan>,
}

/// Groups the findings of `report` into a plan.
pub fn porting_plan(report: &ScanReport) -> PortingPlan {
    type RuleCounts<'a> = (usize, usize, std::collections::BTreeSet<&'a str>);
    let mut rules: BTreeMap<&'static str, RuleCounts<'_>> = BTreeMap::new();
    let mut files: BTreeMap<&str, BTreeMap<&'static str, usize>> = BTreeMap::new();
    let mut actionable: BTreeMap<&str, usize> = BTreeMap::new();
    for finding in &report.findings {
        let is_note = finding.severity == Severity::Note;
        let entry = rules.entry(finding.rule).or_default();
        entry.0 += 1;
        entry.1 += usize::from(is_note);
        entry.2.insert(&finding.path);
        *files
            .entry(&finding.path)
            .or_default()
            .entry(finding.rule)
            .or_default() += 1;
        *actionable.entry(&finding.path).or_default() += usize::from(!is_note);
    }
    let mut by_rule: Vec<RulePlan> = rules
        .into_iter()
        .map(|(id, (count, notes, paths))| {
            let documented = rule(id).expect("findings only carry ids from the rule table");
            RulePlan {
                rule: id,
                severity: documented.severity,
                count,
                notes,
                files: paths.len(),
                fix: documented.fix,
            }
        })
        .collect();
    by_rule.sort_by(|a, b| {
        let key = |r: &RulePlan| (r.severity, std::cmp::Reverse(r.count - r.notes), r.rule);
        key(a).cmp(&key(b))
    });
    let mut by_file: Vec<FilePlan> = files
        .into_iter()
        .map(|(path, counts)| {
            let mut rules: Vec<(&'static str, usize)> = counts.into_iter().collect();
            rules.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
            FilePlan {
                path: path.to_string(),
                count: rules.iter().map(|r| r.1).sum(),
                actionable: actionable[path],
                rules,
            }
        })
        .collect();
    by_file.sort_by(|a, b| {
        (b.actionable, b.count)
            .cmp(&(a.actionable, a.count))
            .then(a.path.cmp(&b.path))
    });
    PortingPlan { by_rule, by_file }
}

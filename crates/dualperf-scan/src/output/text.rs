//! Grep-like text: `path:line:column rule-id [severity] message`, the source
//! line under it, then the porting plan.

use std::fmt::Write;

use super::plan::porting_plan;
use crate::ScanReport;

/// What the text output contains.
#[derive(Clone, Copy, Debug)]
pub struct TextOptions {
    /// Print every finding (otherwise only the plan).
    pub findings: bool,
    /// Print the porting plan.
    pub plan: bool,
    /// Print the source line under each finding.
    pub snippets: bool,
}

impl Default for TextOptions {
    fn default() -> Self {
        TextOptions {
            findings: true,
            plan: true,
            snippets: true,
        }
    }
}

/// Renders `report` as text.
pub fn to_text(report: &ScanReport, options: TextOptions) -> String {
    let mut out = String::new();
    if options.findings {
        for f in &report.findings {
            let _ = writeln!(
                out,
                "{}:{}:{} {} [{}] {}",
                f.path,
                f.line,
                f.column,
                f.rule,
                f.severity.name(),
                f.message
            );
            if options.snippets {
                let _ = writeln!(out, "    | {}", f.snippet.trim());
            }
        }
        if !report.findings.is_empty() {
            out.push('\n');
        }
    }
    if options.plan {
        write_plan(&mut out, report);
    }
    out
}

fn write_plan(out: &mut String, report: &ScanReport) {
    let plan = porting_plan(report);
    let _ = writeln!(
        out,
        "Porting plan: {} findings in {} files ({} files, {} lines scanned; {} suppressed inline, {} in baseline, {} skipped as generated/large)",
        report.findings.len(),
        plan.by_file.len(),
        report.files_scanned,
        report.lines_scanned,
        report.suppressed,
        report.baselined,
        report.skipped_files,
    );
    if plan.by_rule.is_empty() {
        let _ = writeln!(out, "\nNo IPv4-only constructs found.");
        return;
    }
    let _ = writeln!(out, "\nBy rule (replace these constructs):");
    for r in &plan.by_rule {
        let notes = if r.notes > 0 {
            format!(" ({} notes)", r.notes)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "  {:<20} {:<8} {:>5} in {:>3} files{notes}",
            r.rule,
            r.severity.name(),
            r.count,
            r.files
        );
        let _ = writeln!(out, "      fix: {}", first_sentence(r.fix));
    }
    let _ = writeln!(
        out,
        "\nBy file (work through in this order: errors and warnings first; notes are probably data):"
    );
    for (index, file) in plan.by_file.iter().enumerate() {
        let rules: Vec<String> = file
            .rules
            .iter()
            .map(|(rule, count)| format!("{rule} x{count}"))
            .collect();
        let _ = writeln!(
            out,
            "  {:>3}. {}  ({}{})  {}",
            index + 1,
            file.path,
            file.actionable,
            if file.count > file.actionable {
                format!(" + {} notes", file.count - file.actionable)
            } else {
                String::new()
            },
            rules.join(", ")
        );
    }
    let _ = writeln!(out, "\n`dualperf scan --explain RULE` says why each rule breaks IPv6 and shows a before/after example.");
}

/// The first sentence of a fix text (the full text is in `--explain`).
fn first_sentence(text: &str) -> &str {
    match text.find(". ") {
        Some(end) => &text[..=end],
        None => text,
    }
}

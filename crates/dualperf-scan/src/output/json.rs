//! JSON output: the findings, the counters and the porting plan.

use super::plan::porting_plan;
use crate::ScanReport;

/// Renders `report` as pretty JSON (`{"tool", "version", "summary", "plan", "findings"}`).
pub fn to_json(report: &ScanReport) -> String {
    let value = serde_json::json!({
        "tool": "dualperf-scan",
        "format_version": 1,
        "summary": {
            "findings": report.findings.len(),
            "files_scanned": report.files_scanned,
            "lines_scanned": report.lines_scanned,
            "skipped_files": report.skipped_files,
            "unreadable_files": report.unreadable_files,
            "suppressed": report.suppressed,
            "baselined": report.baselined,
        },
        "plan": porting_plan(report),
        "findings": report.findings,
    });
    serde_json::to_string_pretty(&value).expect("scan reports always serialise")
}

//! JSON output: the findings, the counters and the porting plan, as typed
//! serde structs so that the published schema
//! (`docs/schemas/scan.schema.json`) is derived from what is written.

use super::plan::{porting_plan, PortingPlan};
use crate::{Finding, ScanReport};

/// The `tool` field of the document.
pub const SCAN_TOOL: &str = "dualperf-scan";
/// Version of the scan JSON: 2 renamed `format_version` to `schema_version`
/// (as in every dualperf output) and fixed the field order.
pub const SCAN_SCHEMA_VERSION: u32 = 2;

/// The `dualperf scan --json` document.
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct ScanDocument<'a> {
    /// Always [`SCAN_TOOL`].
    pub tool: &'static str,
    /// [`SCAN_SCHEMA_VERSION`] when written.
    pub schema_version: u32,
    /// Counters of the scan.
    pub summary: ScanSummary,
    /// Findings grouped by rule and by file.
    pub plan: PortingPlan,
    /// Every finding, sorted by path, line, column and rule.
    pub findings: &'a [Finding],
}

/// Counters of one scan.
#[derive(Clone, Copy, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct ScanSummary {
    /// Findings reported.
    pub findings: usize,
    /// Files parsed and matched.
    pub files_scanned: usize,
    /// Lines in the scanned files.
    pub lines_scanned: usize,
    /// Files skipped as generated or too large.
    pub skipped_files: usize,
    /// Files that could not be read.
    pub unreadable_files: usize,
    /// Findings dropped by inline suppression comments.
    pub suppressed: usize,
    /// Findings dropped because the baseline lists them.
    pub baselined: usize,
}

/// The document for `report`.
pub fn scan_document(report: &ScanReport) -> ScanDocument<'_> {
    ScanDocument {
        tool: SCAN_TOOL,
        schema_version: SCAN_SCHEMA_VERSION,
        summary: ScanSummary {
            findings: report.findings.len(),
            files_scanned: report.files_scanned,
            lines_scanned: report.lines_scanned,
            skipped_files: report.skipped_files,
            unreadable_files: report.unreadable_files,
            suppressed: report.suppressed,
            baselined: report.baselined,
        },
        plan: porting_plan(report),
        findings: &report.findings,
    }
}

/// Renders `report` as pretty JSON (`{"tool", "schema_version", "summary", "plan", "findings"}`).
pub fn to_json(report: &ScanReport) -> String {
    serde_json::to_string_pretty(&scan_document(report)).expect("scan reports always serialise")
}

//! Rendering a [`crate::ScanReport`]: grep-like text with a porting plan,
//! JSON, and SARIF 2.1.0 for code-scanning dashboards.

mod json;
mod plan;
mod sarif;
mod text;

pub use json::{scan_document, to_json, ScanDocument, ScanSummary, SCAN_SCHEMA_VERSION, SCAN_TOOL};
pub use plan::{porting_plan, FilePlan, PortingPlan, RulePlan};
pub use sarif::to_sarif;
pub use text::{to_text, TextOptions};

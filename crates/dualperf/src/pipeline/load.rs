//! Reading a stored result back from its file: `result.json`, or the
//! results folder that holds it. A result without an analysis (written by
//! schema v1, or a measuring child's raw result) is analysed on the way in,
//! by the same stats stage as a fresh run.

use std::path::{Path, PathBuf};

use anyhow::Context;
use dualperf_model::RunResult;

use crate::cli::Failure;

/// The file a path names: `PATH` itself, or `PATH/result.json` for a results folder.
pub(crate) fn result_file(path: &Path) -> PathBuf {
    if path.is_dir() {
        path.join("result.json")
    } else {
        path.to_path_buf()
    }
}

/// True when `text` names an existing result file or results folder
/// (rather than a run id in the database).
pub(crate) fn is_result_path(text: &str) -> bool {
    let path = Path::new(text);
    result_file(path).is_file()
}

/// Reads and, when needed, analyses the result at `path`.
///
/// # Errors
/// A usage error when the file is missing, truncated or not a dualperf result.
pub(crate) fn load_result(path: &Path) -> anyhow::Result<RunResult> {
    let file = result_file(path);
    let text = std::fs::read_to_string(&file)
        .with_context(|| format!("reading {}", file.display()))
        .map_err(|e| Failure::usage(format!("{e:#}")))?;
    let mut result: RunResult = serde_json::from_str(&text).map_err(|e| {
        Failure::usage(format!(
            "{} is not a complete dualperf result: {e}",
            file.display()
        ))
    })?;
    if result.analysis.is_none() {
        result.analysis = Some(dualperf_stats::analyse(&result));
    }
    Ok(result)
}

//! Reading a stored result back from its file: `result.json` (or
//! `result.json.gz`, see [`super::gzip`]), or the results folder that holds it. A result without an analysis (written by
//! schema v1, or a measuring child's raw result) is analysed on the way in,
//! by the same stats stage as a fresh run.

use std::path::{Path, PathBuf};

use dualperf_model::RunResult;

use crate::exit::Failure;

/// The file a path names: `PATH` itself, or `PATH/result.json` (else
/// `PATH/result.json.gz`) for a results folder.
pub(crate) fn result_file(path: &Path) -> PathBuf {
    if path.is_dir() {
        let plain = path.join("result.json");
        let compressed = path.join("result.json.gz");
        if !plain.is_file() && compressed.is_file() {
            compressed
        } else {
            plain
        }
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
    let text = super::gzip::read_document(&file).map_err(|e| Failure::usage(format!("{e:#}")))?;
    let mut result: RunResult = serde_json::from_slice(&text).map_err(|e| {
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

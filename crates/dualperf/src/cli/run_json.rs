//! Writing the `--json` result atomically: a temporary file in the same
//! directory, flushed to disk, then renamed over the target, so a reader
//! (or a crash) never sees half a document.

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use dualperf_model::RunResult;

/// Writes `result` as pretty JSON to `path` via a temporary file and a rename.
pub fn write_json_atomically(path: &Path, result: &RunResult) -> anyhow::Result<()> {
    let directory = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "result.json".into());
    let temporary = directory.join(format!(".{name}.{}.tmp", std::process::id()));
    let body = serde_json::to_vec_pretty(result).context("encoding the result as JSON")?;
    let write = || -> std::io::Result<()> {
        let mut file = std::fs::File::create(&temporary)?;
        file.write_all(&body)?;
        file.write_all(b"\n")?;
        file.sync_all()?;
        std::fs::rename(&temporary, path)
    };
    if let Err(error) = write() {
        let _ = std::fs::remove_file(&temporary);
        return Err(error).with_context(|| format!("writing {}", path.display()));
    }
    Ok(())
}

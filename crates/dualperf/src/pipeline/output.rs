//! Writing result files atomically: a temporary file in the same directory,
//! flushed to disk, then renamed over the target, so a reader (or a crash)
//! never sees half a document. `-` as a path means standard output.

use std::io::Write;
use std::path::Path;

use anyhow::Context;

/// True when `path` is `-`, meaning standard output.
pub(crate) fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Writes `body` to `path` via a temporary file and a rename, or to
/// standard output when `path` is `-`.
///
/// # Errors
/// When the directory is not writable or the disk is full; the temporary
/// file is removed and an existing `path` is left as it was.
pub(crate) fn write_atomically(path: &Path, body: &[u8]) -> anyhow::Result<()> {
    if is_stdout(path) {
        let mut stdout = std::io::stdout().lock();
        return stdout
            .write_all(body)
            .and_then(|()| stdout.flush())
            .context("writing to standard output");
    }
    let directory = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    let temporary = directory.join(format!(".{name}.{}.tmp", std::process::id()));
    let write = || -> std::io::Result<()> {
        let mut file = std::fs::File::create(&temporary)?;
        file.write_all(body)?;
        file.sync_all()?;
        std::fs::rename(&temporary, path)
    };
    if let Err(error) = write() {
        let _ = std::fs::remove_file(&temporary);
        return Err(error).with_context(|| format!("writing {}", path.display()));
    }
    Ok(())
}

/// Renders `run` in `format` and writes it to `path` atomically (`lab`,
/// `run` and `report` all write their reports through here).
///
/// # Errors
/// Rendering or file errors.
pub(crate) fn write_report(
    run: &dualperf_model::RunResult,
    format: dualperf_report::Format,
    path: &Path,
) -> anyhow::Result<()> {
    let text = dualperf_report::render(run, format)
        .with_context(|| format!("rendering run {}", run.run_id))?;
    write_atomically(path, text.as_bytes())
}

/// Writes `value` as JSON (compact, or indented with `pretty`) plus a newline,
/// gzip-compressed when the file name ends in `.gz` (`out.json.gz`).
///
/// # Errors
/// As [`write_atomically`].
pub(crate) fn write_json<T: serde::Serialize>(
    path: &Path,
    value: &T,
    pretty: bool,
) -> anyhow::Result<()> {
    let mut body = if pretty {
        serde_json::to_vec_pretty(value)
    } else {
        serde_json::to_vec(value)
    }
    .context("encoding JSON")?;
    body.push(b'\n');
    if !is_stdout(path) && super::gzip::is_gzip_name(path) {
        body = super::gzip::compress(&body);
    }
    write_atomically(path, &body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_document_appears_whole_and_no_temporary_file_remains() {
        let directory = std::env::temp_dir().join(format!("dpe-json-{}", std::process::id()));
        std::fs::create_dir_all(&directory).unwrap();
        let path = directory.join("out.json");
        let value = serde_json::json!({"run_id": "x", "trials": [1, 2, 3]});
        write_json(&path, &value, false).unwrap();
        let back: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(back, value);
        let names: Vec<_> = std::fs::read_dir(&directory)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("out.json")]);
        std::fs::remove_dir_all(&directory).unwrap();
    }

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temporary() {
        let directory = std::env::temp_dir().join(format!("dpe-json-ro-{}", std::process::id()));
        std::fs::create_dir_all(&directory).unwrap();
        let missing = directory.join("no-such-dir").join("out.json");
        assert!(write_atomically(&missing, b"{}").is_err());
        assert_eq!(std::fs::read_dir(&directory).unwrap().count(), 0);
        std::fs::remove_dir_all(&directory).unwrap();
    }

    #[test]
    fn a_dash_means_standard_output() {
        assert!(is_stdout(Path::new("-")));
        assert!(!is_stdout(Path::new("./-")));
    }
}

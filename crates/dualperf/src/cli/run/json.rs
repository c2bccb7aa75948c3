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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_document_appears_whole_and_no_temporary_file_remains() {
        let directory = std::env::temp_dir().join(format!("dpe-json-{}", std::process::id()));
        std::fs::create_dir_all(&directory).unwrap();
        let path = directory.join("out.json");
        let result = RunResult {
            schema: "dualperf.run".into(),
            schema_version: 1,
            run_id: "x".into(),
            started_at_unix_ms: 0,
            finished_at_unix_ms: 0,
            config: dualperf_model::RunConfig {
                points: vec![],
                families: vec![],
                repeat: 1,
                order: Default::default(),
                targets: Default::default(),
                host: None,
                port: 5180,
                client_cpus: vec![],
                server_cpus: vec![],
                command_line: vec![],
            },
            client_host: Default::default(),
            server_host: None,
            testbed: None,
            trials: vec![],
            analysis: None,
            complete: true,
            errors: vec![],
        };
        write_json_atomically(&path, &result).unwrap();
        let back: RunResult = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(back, result);
        let names: Vec<_> = std::fs::read_dir(&directory)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("out.json")]);
        std::fs::remove_dir_all(&directory).unwrap();
    }
}

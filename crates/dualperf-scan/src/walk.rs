//! Walking source trees in parallel (the `ignore` crate, as in ripgrep):
//! `.gitignore`, `.ignore` and hidden files are honoured, and vendored or
//! generated code is skipped unless [`ScanOptions::all`] is set.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::language::Language;
use crate::source_file::{is_generated, FileScanner};
use crate::{ScanError, ScanOptions, ScanReport};

/// Directories holding other people's code, skipped unless `--all`.
pub const VENDORED_DIRECTORIES: &[&str] = &[
    "vendor",
    "third_party",
    "third-party",
    "thirdparty",
    "node_modules",
    "bower_components",
    "external",
    "deps",
];

/// Files larger than this are skipped (amalgamations, minified bundles), in bytes.
pub const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// Scans every supported file under `paths` (files or directories).
///
/// # Errors
/// [`ScanError::MissingPath`] if a path does not exist; unreadable files
/// inside a tree are counted in [`ScanReport::unreadable_files`], not fatal.
pub fn scan_paths(paths: &[PathBuf], options: &ScanOptions) -> Result<ScanReport, ScanError> {
    for path in paths {
        if !path.exists() {
            return Err(ScanError::MissingPath { path: path.clone() });
        }
    }
    let report = Mutex::new(ScanReport::default());
    for root in paths {
        let mut builder = ignore::WalkBuilder::new(root);
        builder
            .threads(options.threads)
            .hidden(true)
            .git_ignore(true)
            .require_git(false);
        if !options.all {
            builder.filter_entry(|entry| {
                let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
                let name = entry.file_name().to_str().unwrap_or("");
                let vendored = is_dir && entry.depth() > 0 && VENDORED_DIRECTORIES.contains(&name);
                let bundled = name.ends_with(".min.js") || name.ends_with("-lock.json");
                !(vendored || bundled)
            });
        }
        builder.build_parallel().run(|| {
            let mut scanner = FileScanner::default();
            let report = &report;
            Box::new(move |entry| {
                if let Ok(entry) = entry {
                    if entry.file_type().is_some_and(|t| t.is_file()) {
                        scan_one(&mut scanner, root, entry.path(), options, report);
                    }
                }
                ignore::WalkState::Continue
            })
        });
    }
    let mut report = report
        .into_inner()
        .expect("no scanning thread panicked while holding the report");
    report.sort();
    Ok(report)
}

fn scan_one(
    scanner: &mut FileScanner,
    root: &Path,
    path: &Path,
    options: &ScanOptions,
    report: &Mutex<ScanReport>,
) {
    let Some(language) = Language::of_path(path) else {
        return;
    };
    if !options.languages.is_empty() && !options.languages.contains(&language) {
        return;
    }
    let too_large = std::fs::metadata(path)
        .map(|m| m.len() > MAX_FILE_BYTES)
        .unwrap_or(false);
    let source = match std::fs::read(path) {
        Ok(bytes) if !too_large => String::from_utf8_lossy(&bytes).into_owned(),
        Ok(_) => {
            report.lock().expect("report lock").skipped_files += 1;
            return;
        }
        Err(_) => {
            report.lock().expect("report lock").unreadable_files += 1;
            return;
        }
    };
    if !options.all && is_generated(&source) {
        report.lock().expect("report lock").skipped_files += 1;
        return;
    }
    let relative = path.strip_prefix(root).unwrap_or(path);
    let relative = if relative.as_os_str().is_empty() {
        Path::new(path.file_name().unwrap_or_default())
    } else {
        relative
    };
    let display = display_path(path);
    let result = scanner.scan_source(&source, language, &display, relative);
    let mut report = report.lock().expect("report lock");
    report.files_scanned += 1;
    report.lines_scanned += result.lines;
    report.suppressed += result.suppressed;
    report.findings.extend(result.findings);
}

/// A path as shown in output: relative as given, `./` removed, forward slashes.
fn display_path(path: &Path) -> String {
    let text = path.to_string_lossy().replace('\\', "/");
    text.strip_prefix("./").map(str::to_string).unwrap_or(text)
}

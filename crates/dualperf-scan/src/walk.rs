//! Walking source trees in parallel (the `ignore` crate, as in ripgrep):
//! `.gitignore`, `.ignore` and hidden files are honoured unless
//! [`ScanOptions::no_ignore`] / [`ScanOptions::hidden`] are set (ripgrep's
//! `--no-ignore` and `--hidden`), and vendored or generated code is skipped
//! unless [`ScanOptions::all`] is set.

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
    let explicit_root = match &options.root {
        Some(root) => Some(
            root.canonicalize()
                .map_err(|_| ScanError::MissingPath { path: root.clone() })?,
        ),
        None => None,
    };
    for root in paths {
        let prefix = root_prefix(root, explicit_root.as_deref());
        let mut builder = ignore::WalkBuilder::new(root);
        let honour_ignores = !options.no_ignore;
        builder
            .threads(options.threads)
            .hidden(!options.hidden)
            .git_ignore(honour_ignores)
            .git_global(honour_ignores)
            .git_exclude(honour_ignores)
            .ignore(honour_ignores)
            .parents(honour_ignores)
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
            let prefix = &prefix;
            Box::new(move |entry| {
                if let Ok(entry) = entry {
                    if entry.file_type().is_some_and(|t| t.is_file()) {
                        scan_one(&mut scanner, root, prefix, entry.path(), options, report);
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

/// Where a scanned path sits below the scan root: `Some("")` when it is the
/// root (the default), `Some("src/net")` for `dualperf scan --root . src/net`,
/// `None` when it is outside `--root` (paths are then shown as reached). A
/// scanned file counts as its directory.
fn root_prefix(scanned: &Path, root: Option<&Path>) -> Option<PathBuf> {
    let directory = if scanned.is_file() {
        scanned.parent().unwrap_or(Path::new(""))
    } else {
        scanned
    };
    let Some(root) = root else {
        return Some(PathBuf::new());
    };
    let directory = if directory.as_os_str().is_empty() {
        Path::new(".")
    } else {
        directory
    };
    let directory = directory.canonicalize().ok()?;
    directory.strip_prefix(root).ok().map(Path::to_path_buf)
}

fn scan_one(
    scanner: &mut FileScanner,
    root: &Path,
    prefix: &Option<PathBuf>,
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
    // The path below the scanned directory (for a scanned file: its name),
    // then under the root's prefix.
    let below = if root.is_file() {
        Path::new(path.file_name().unwrap_or_default())
    } else {
        path.strip_prefix(root).unwrap_or(path)
    };
    let root_path = match prefix {
        Some(prefix) => display_path(&prefix.join(below)),
        None => display.clone(),
    };
    let result = scanner.scan_source_in(&source, language, &display, relative, &root_path);
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

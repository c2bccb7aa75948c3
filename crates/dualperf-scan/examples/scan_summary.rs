//! `dualperf scan --summary PATH...` (default options: `.gitignore` honoured,
//! vendored and generated code skipped) without building the whole
//! `dualperf` binary: `bench/scan/speed.sh` times this when
//! `target/release/dualperf` is not built. Prints one line: files scanned,
//! lines scanned, findings.
//!
//! `cargo run -q --release -p dualperf-scan --example scan_summary -- PATH...`

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test and example code: a failed unwrap is a failed run

use std::path::PathBuf;

use dualperf_scan::{scan_paths, Language, ScanOptions};

fn main() {
    let mut languages = Vec::new();
    let mut paths = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--language" {
            for name in args.next().unwrap_or_default().split(',') {
                let language = Language::ALL.into_iter().find(|l| {
                    l.name().eq_ignore_ascii_case(name) || name == "cpp" && *l == Language::Cpp
                });
                match language {
                    Some(language) => languages.push(language),
                    None => {
                        eprintln!("scan_summary: unknown language `{name}`");
                        std::process::exit(2);
                    }
                }
            }
        } else {
            paths.push(PathBuf::from(arg));
        }
    }
    let options = ScanOptions {
        languages,
        ..Default::default()
    };
    match scan_paths(&paths, &options) {
        Ok(report) => println!(
            "{} {} {}",
            report.files_scanned,
            report.lines_scanned,
            report.findings.len()
        ),
        Err(error) => {
            eprintln!("scan_summary: {error}");
            std::process::exit(2);
        }
    }
}

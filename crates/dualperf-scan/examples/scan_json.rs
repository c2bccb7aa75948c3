//! `dualperf scan --all --json PATH...` without building the whole `dualperf`
//! binary: the corpus harness (`bench/scan/corpus.py`) runs this by default.
//!
//! `cargo run -q -p dualperf-scan --example scan_json -- PATH...`

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test and example code: a failed unwrap is a failed run

use std::path::PathBuf;

use dualperf_scan::output::to_json;
use dualperf_scan::{scan_paths, ScanOptions};

fn main() {
    let paths: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    let options = ScanOptions {
        all: true,
        ..Default::default()
    };
    match scan_paths(&paths, &options) {
        Ok(report) => println!("{}", to_json(&report)),
        Err(error) => {
            eprintln!("scan_json: {error}");
            std::process::exit(2);
        }
    }
}

//! The IPv4-dependency scanner behind `dualperf scan`.
//!
//! Seed 000 (Bouras et al., *Porting and performance aspects from IPv4 to
//! IPv6: the case of OpenH323*, §5–§7) ported half a million lines of C++ by
//! running an automatic checker (Microsoft's Checkv4.exe), fixing what it
//! reported, and then hunting the subtle dependencies no tool found:
//! addresses assumed to be 4 bytes long, hard-coded loopback addresses, TOS
//! options. This crate is that checker for today's languages, including the
//! subtle rules.
//!
//! Stages: [`walk`] finds files (parallel, `.gitignore`-aware like ripgrep,
//! with `--no-ignore`/`--hidden`; vendored and generated code skipped),
//! [`prefilter`] skips files that contain none of the texts their language's
//! rules need, [`clex`] lexes C, C++ and Java by hand and [`token`] flattens the tree-sitter
//! tree of the other languages into [`token`]s (the parent's kind carried on
//! the cursor walk, and a flag for tokens inside a branch on the address
//! family), [`matcher`] applies the [`rules::RULES`] table, judging each use
//! (the `socket()` call, the class that fixes the family, the field read
//! away from its struct) rather than the file, [`suppression`] drops
//! findings marked `dualperf-scan: ignore[rule-id]`, [`baseline`] drops
//! findings already known, and [`output`] renders text (with a porting plan),
//! JSON or SARIF 2.1.0 (paths and fingerprints relative to the scan root).
//!
//! Measured, not assumed: `bench/scan/corpus.py` scans the old side of real
//! IPv6 ports (PyPI, npm and Debian packages at two versions, a Debian IPv6
//! patch, or a git commit) and reports the share of IPv4-dependency hunks
//! found and the findings outside the changed lines, for the developers'
//! corpus, the commits the byte-layout rules were tuned on, and a held-out
//! set; `bench/scan/speed.sh` times scans of redis (C), rocketmq (Java) and
//! curl against ripgrep. Figures in `docs/porting-toolkit.md`.
//!
//! Invariant: a comment never produces a finding, and a string literal
//! produces only findings about its text (an address literal, host:port or
//! dotted-quad handling, an IPv4 family or network name), because both
//! arrive at the matcher as single tokens.
//!
//! ```
//! use dualperf_scan::{scan_source, Language};
//! let findings = scan_source("int ip = inet_addr(\"10.0.0.1\"); // inet_addr\n", Language::C, "a.c");
//! let rules: Vec<&str> = findings.iter().map(|f| f.rule).collect();
//! assert_eq!(rules, ["inet-addr", "ipv4-literal"]);
//! ```

pub mod baseline;
pub mod clex;
pub mod finding;
pub mod language;
pub mod literal;
pub mod matcher;
pub mod output;
pub mod prefilter;
pub mod rule;
pub mod rules;
pub mod source_file;
pub mod suppression;
pub mod token;
pub mod walk;

use std::path::{Path, PathBuf};

pub use baseline::Baseline;
pub use finding::Finding;
pub use language::Language;
pub use rule::{Rule, Severity};
pub use rules::{rule, rules_markdown, RULES};
pub use walk::scan_paths;

/// What to scan and how.
#[derive(Clone, Debug, Default)]
pub struct ScanOptions {
    /// Also scan vendored directories, minified files and generated code.
    pub all: bool,
    /// Only these languages (empty: all).
    pub languages: Vec<Language>,
    /// Walker threads (0: one per core).
    pub threads: usize,
    /// Also scan files that `.gitignore`, `.ignore` and git's exclude files
    /// hide (ripgrep's `--no-ignore`).
    pub no_ignore: bool,
    /// Also scan hidden files and directories (ripgrep's `--hidden`).
    pub hidden: bool,
    /// The directory that SARIF paths and fingerprints are relative to
    /// (default: each scanned path itself), so they do not depend on where
    /// the tree lives.
    pub root: Option<PathBuf>,
}

/// Everything one scan found, plus counters for the summary.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct ScanReport {
    /// Findings sorted by path, line, column and rule.
    pub findings: Vec<Finding>,
    /// Files parsed and matched.
    pub files_scanned: usize,
    /// Lines in the scanned files.
    pub lines_scanned: usize,
    /// Files skipped as generated or too large.
    pub skipped_files: usize,
    /// Files that could not be read.
    pub unreadable_files: usize,
    /// Findings dropped by inline suppression comments.
    pub suppressed: usize,
    /// Findings dropped because the baseline lists them.
    pub baselined: usize,
}

impl ScanReport {
    /// Sorts findings into their stable output order.
    pub fn sort(&mut self) {
        self.findings.sort_by(|a, b| {
            (&a.path, a.line, a.column, a.rule).cmp(&(&b.path, b.line, b.column, b.rule))
        });
    }
}

/// Why a scan could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScanError {
    /// A path given to scan does not exist.
    #[error("no such file or directory: `{}`", path.display())]
    MissingPath {
        /// The path.
        path: PathBuf,
    },
    /// A baseline file could not be read or written.
    #[error("baseline file `{}`", path.display())]
    Baseline {
        /// The baseline path.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A baseline file is not a dualperf baseline.
    #[error("baseline file `{}` is not valid: {reason}", path.display())]
    BaselineFormat {
        /// The baseline path.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
}

/// Scans one in-memory source text as if it were the file `path` (whose name
/// decides whether it is test code). Convenient for editors and tests.
pub fn scan_source(source: &str, language: Language, path: &str) -> Vec<Finding> {
    source_file::FileScanner::default()
        .scan_source(source, language, path, Path::new(path))
        .findings
}

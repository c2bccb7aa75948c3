//! `dualperf scan`: find IPv4-only constructs in source trees and print them
//! as a porting plan (text), JSON or SARIF 2.1.0.
//!
//! Exit codes: 0 no findings remain, 1 findings remain (after suppressions
//! and the baseline), 2 usage errors (unknown rule, missing path, bad baseline).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use dualperf_scan::output::{to_json, to_sarif, to_text, TextOptions};
use dualperf_scan::{rule, scan_paths, Baseline, Language, ScanOptions, RULES};

/// Arguments of `dualperf scan`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// Files or directories to scan (default: the current directory).
    pub paths: Vec<PathBuf>,
    /// Print findings and plan as JSON.
    #[arg(long, conflicts_with = "sarif")]
    pub json: bool,
    /// Print a SARIF 2.1.0 log (for code-scanning dashboards).
    #[arg(long)]
    pub sarif: bool,
    /// Explain one rule (what it finds, why it breaks IPv6, how to fix it) and exit.
    #[arg(long, value_name = "RULE")]
    pub explain: Option<String>,
    /// List every rule and exit.
    #[arg(long)]
    pub list_rules: bool,
    /// Also scan vendored directories, minified and generated files.
    #[arg(long)]
    pub all: bool,
    /// Also scan files hidden by .gitignore, .ignore and git's exclude files (like ripgrep).
    #[arg(long)]
    pub no_ignore: bool,
    /// Also scan hidden files and directories (like ripgrep).
    #[arg(long)]
    pub hidden: bool,
    /// Directory that SARIF paths and baseline fingerprints are relative to (default: each scanned path).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Only these languages (c, cpp, python, go, java, javascript, typescript, rust, config).
    #[arg(long = "language", value_name = "LANG", value_delimiter = ',')]
    pub languages: Vec<String>,
    /// Drop findings listed in this baseline file (so CI fails only on new ones).
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Write every current finding to this baseline file, then exit 0.
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
    /// Text output: print only the porting plan, not each finding.
    #[arg(long)]
    pub summary: bool,
    /// Text output: do not print the source line under each finding.
    #[arg(long)]
    pub no_snippets: bool,
    /// Walker threads (0: one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
}

/// Runs `dualperf scan`.
pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut stdout = std::io::stdout().lock();
    if let Some(id) = &args.explain {
        let Some(rule) = rule(id) else {
            let known: Vec<&str> = RULES.iter().map(|r| r.id).collect();
            return Err(super::Failure::usage(format!(
                "no rule `{id}`; rules are: {}",
                known.join(", ")
            )));
        };
        stdout.write_all(rule.to_text().as_bytes())?;
        return Ok(ExitCode::SUCCESS);
    }
    if args.list_rules {
        for rule in RULES {
            writeln!(
                stdout,
                "{:<20} {:<8} {}",
                rule.id,
                rule.severity.name(),
                rule.what
            )?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let languages = args
        .languages
        .iter()
        .map(|name| parse_language(name))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let options = ScanOptions {
        all: args.all,
        languages,
        threads: args.threads,
        no_ignore: args.no_ignore,
        hidden: args.hidden,
        root: args.root.clone(),
    };
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    let mut report =
        scan_paths(&paths, &options).map_err(|e| super::Failure::usage(e.to_string()))?;
    if let Some(path) = &args.write_baseline {
        Baseline::from_findings(&report.findings).save(path)?;
        eprintln!(
            "dualperf scan: wrote {} findings to baseline {}",
            report.findings.len(),
            path.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(path) = &args.baseline {
        let baseline = Baseline::load(path).map_err(|e| super::Failure::usage(format!("{e:#}")))?;
        baseline.filter(&mut report);
    }
    let rendered = if args.sarif {
        to_sarif(&report)
    } else if args.json {
        to_json(&report)
    } else {
        to_text(
            &report,
            TextOptions {
                findings: !args.summary,
                plan: true,
                snippets: !args.no_snippets,
            },
        )
    };
    stdout.write_all(rendered.as_bytes())?;
    if !rendered.ends_with('\n') {
        stdout.write_all(b"\n")?;
    }
    Ok(if report.findings.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn parse_language(name: &str) -> anyhow::Result<Language> {
    Language::ALL
        .into_iter()
        .find(|l| {
            let lower = name.to_ascii_lowercase();
            l.name().eq_ignore_ascii_case(&lower)
                || (lower == "cpp" && *l == Language::Cpp)
                || (lower == "js" && *l == Language::JavaScript)
                || (lower == "ts" && *l == Language::TypeScript)
        })
        .ok_or_else(|| super::Failure::usage(format!("unknown language `{name}`")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct TestCli {
        #[command(flatten)]
        args: Args,
    }

    fn fixture(name: &str) -> String {
        format!(
            "{}/../dualperf-scan/fixtures/{name}",
            env!("CARGO_MANIFEST_DIR")
        )
    }

    fn run_with(arguments: &[&str]) -> anyhow::Result<ExitCode> {
        let cli = TestCli::try_parse_from(std::iter::once("scan").chain(arguments.iter().copied()))
            .expect("test arguments parse");
        run(cli.args)
    }

    fn usage_code(error: &anyhow::Error) -> Option<u8> {
        error
            .downcast_ref::<super::super::Failure>()
            .map(|f| f.code)
    }

    #[test]
    fn findings_exit_1_and_clean_code_exits_0() {
        assert_eq!(
            run_with(&["--summary", &fixture("inet-addr")]).unwrap(),
            ExitCode::from(1)
        );
        assert_eq!(
            run_with(&["--summary", &fixture("negative")]).unwrap(),
            ExitCode::SUCCESS
        );
    }

    #[test]
    fn usage_errors_exit_2() {
        let missing = run_with(&["/nonexistent/dualperf-scan"]).unwrap_err();
        assert_eq!(usage_code(&missing), Some(2));
        let unknown_rule = run_with(&["--explain", "no-such-rule"]).unwrap_err();
        assert_eq!(usage_code(&unknown_rule), Some(2));
        let unknown_language =
            run_with(&["--language", "cobol", &fixture("negative")]).unwrap_err();
        assert_eq!(usage_code(&unknown_language), Some(2));
        let missing_root =
            run_with(&["--root", "/nonexistent/dualperf-root", &fixture("negative")]).unwrap_err();
        assert_eq!(usage_code(&missing_root), Some(2));
    }

    #[test]
    fn no_ignore_hidden_and_root_reach_the_scanner() {
        let path = fixture("inet-ntoa");
        assert_eq!(
            run_with(&[
                "--summary",
                "--no-ignore",
                "--hidden",
                "--root",
                &path,
                &path
            ])
            .unwrap(),
            ExitCode::from(1)
        );
    }

    #[test]
    fn a_written_baseline_makes_the_next_scan_clean() {
        let baseline =
            std::env::temp_dir().join(format!("dualperf-cli-baseline-{}.json", std::process::id()));
        let baseline_text = baseline.to_string_lossy().into_owned();
        let path = fixture("inet-ntoa");
        assert_eq!(
            run_with(&["--write-baseline", &baseline_text, &path]).unwrap(),
            ExitCode::SUCCESS
        );
        assert_eq!(
            run_with(&["--summary", "--baseline", &baseline_text, &path]).unwrap(),
            ExitCode::SUCCESS
        );
        std::fs::remove_file(baseline).unwrap();
    }
}

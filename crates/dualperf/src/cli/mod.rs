//! Command-line interface: one module per subcommand, each with an `Args`
//! struct (its doc comments are the `--help` text) and a `run` function.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub(crate) mod addr;
pub(crate) mod check;
pub(crate) mod completions;
pub(crate) mod doctor;
pub(crate) mod exporter;
pub(crate) mod files;
pub(crate) mod goal;
pub(crate) mod history;
pub(crate) mod import;
pub(crate) mod lab;
pub(crate) mod overhead;
pub(crate) mod path;
pub(crate) mod report;
pub(crate) mod run;
pub(crate) mod scan;
pub(crate) mod secret;
pub(crate) mod serve;

pub(crate) use crate::exit::{report_error, Failure};

/// Measure IPv4 and IPv6 side by side: throughput, latency, one-way delay,
/// jitter, loss, reordering and CPU, on real hosts or on emulated testbeds,
/// with statistics that say whether a difference is real.
///
/// Quick start:
///   dualperf lab --quick          build a routed testbed, compare, clean up
///   dualperf run --loopback       compare 127.0.0.1 with ::1 on this host
///   dualperf serve                (on host B)   then   dualperf run B   (on host A)
///   dualperf -s / dualperf -c B   the same, with iperf3's words
#[derive(Parser, Debug)]
#[command(
    name = "dualperf",
    version,
    propagate_version = true,
    verbatim_doc_comment
)]
pub(crate) struct Cli {
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// Every subcommand.
#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    /// Serve measurement sessions over IPv4 and IPv6 (the far end of `run`).
    Serve(serve::Args),
    /// Measure IPv4 and IPv6 side by side against a `dualperf serve`.
    Run(Box<run::Args>),
    /// Build emulated testbeds in network namespaces and measure on them.
    Lab(lab::Args),
    /// Report which kernel features and privileges dualperf can use here.
    Doctor(doctor::Args),
    /// Header-overhead theory: payload, overhead and expected goodput per family.
    Overhead(overhead::Args),
    /// Render stored runs as HTML, Markdown or CSV.
    Report(report::Args),
    /// List stored runs.
    History(history::Args),
    /// Compare IPv4 and IPv6 against many hosts on a schedule and serve /metrics to Prometheus.
    Exporter(exporter::Args),
    /// Add result files (another host's --json, a copied results folder) to the database.
    Import(import::Args),
    /// Find IPv4-only constructs in source code.
    Scan(scan::Args),
    /// Test dual-stack behaviour for real: this host's socket API or a remote host.
    Check(check::Args),
    /// Analyse an IP address: canonical form, kind, reverse-DNS name.
    Addr(addr::Args),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(completions::CompletionArgs),
    /// Print the manual page (roff), e.g. into /usr/local/share/man/man1/dualperf.1.
    Man(completions::ManArgs),
    /// Find path MTU black holes, dropped fragments and extension headers, per family and hop.
    Path(path::Args),
}

/// iperf3's habits at the top level: when the line starts with a flag and
/// holds `-c HOST` anywhere (`dualperf -p 5201 -c HOST`), it is `dualperf run
/// …`; when it holds `-s`, `dualperf serve …`. In that iperf3 mode the
/// client's `-V` means verbose (`--verbose`) and `-v` the version, as in
/// iperf3; `dualperf -V` alone, and every subcommand, keep clap's meaning
/// (`-V` = version) so scripts that ask for the version still get it.
/// Anything else is left as it is.
pub(crate) fn iperf3_words(mut args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let first = args.get(1).and_then(|a| a.to_str()).unwrap_or("");
    if !first.starts_with('-') {
        return args;
    }
    let word = |a: &std::ffi::OsString| a.to_str().unwrap_or("").to_string();
    let client = args.iter().skip(1).map(word).any(|a| {
        a == "-c"
            || a == "--client"
            || a.starts_with("--client=")
            || a.starts_with("-c") && a.len() > 2 && !a[2..].starts_with('-')
    });
    let server = args
        .iter()
        .skip(1)
        .position(|a| a == "-s" || a == "--server");
    if client {
        args.insert(1, "run".into());
        for arg in args.iter_mut().skip(2) {
            if arg == "-V" {
                *arg = "--verbose".into();
            } else if arg == "-v" {
                *arg = "--version".into();
            }
        }
    } else if let Some(index) = server {
        args.remove(index + 1);
        args.insert(1, "serve".into());
        for arg in args.iter_mut().skip(2) {
            if arg == "-v" {
                *arg = "--version".into();
            }
        }
    }
    args
}

/// Prints one line on standard output; a closed pipe (`| head`) ends the
/// printing quietly instead of panicking — by then results are saved.
pub(crate) fn say(line: &str) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{line}");
}

/// Runs the chosen subcommand.
pub(crate) fn dispatch(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Serve(args) => serve::run(args),
        Command::Run(args) => run::run(*args),
        Command::Lab(args) => lab::run(args),
        Command::Doctor(args) => doctor::run(args),
        Command::Overhead(args) => overhead::run(args),
        Command::Report(args) => report::run(args),
        Command::History(args) => history::run(args),
        Command::Exporter(args) => exporter::run(args),
        Command::Import(args) => import::run(args),
        Command::Scan(args) => scan::run(args),
        Command::Check(args) => check::run(args),
        Command::Addr(args) => addr::run(args),
        Command::Completions(args) => completions::completions(args),
        Command::Man(args) => completions::man(args),
        Command::Path(args) => path::run(args),
    }
}

#[cfg(test)]
mod iperf3_tests {
    use super::*;

    fn words(args: &[&str]) -> Vec<String> {
        iperf3_words(args.iter().map(Into::into).collect())
            .into_iter()
            .map(|a| a.into_string().unwrap())
            .collect()
    }

    #[test]
    fn a_client_flag_first_means_run_and_a_server_flag_means_serve() {
        assert_eq!(
            words(&["dualperf", "-c", "127.0.0.1", "-J"]),
            ["dualperf", "run", "-c", "127.0.0.1", "-J"]
        );
        assert_eq!(
            words(&["dualperf", "-s", "-p", "5201"]),
            ["dualperf", "serve", "-p", "5201"]
        );
        assert_eq!(words(&["dualperf", "lab", "-c"]), ["dualperf", "lab", "-c"]);
    }

    #[test]
    fn iperf3_flags_work_anywhere_on_the_line() {
        assert_eq!(
            words(&["dualperf", "-p", "5201", "-s"]),
            ["dualperf", "serve", "-p", "5201"]
        );
        assert_eq!(
            words(&["dualperf", "-u", "-b", "10M", "-c", "::1", "-V"]),
            [
                "dualperf",
                "run",
                "-u",
                "-b",
                "10M",
                "-c",
                "::1",
                "--verbose"
            ]
        );
        assert_eq!(
            words(&["dualperf", "-c", "h", "-v"]),
            ["dualperf", "run", "-c", "h", "--version"]
        );
        assert_eq!(words(&["dualperf", "-chost"])[1], "run");
        // Not iperf3 mode: the version flag and subcommands are untouched.
        assert_eq!(words(&["dualperf", "-V"]), ["dualperf", "-V"]);
        assert_eq!(
            words(&["dualperf", "run", "-s", "-V"]),
            ["dualperf", "run", "-s", "-V"]
        );
    }
}

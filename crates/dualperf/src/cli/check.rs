//! `dualperf check`: dual-stack behaviour tested for real.
//!
//! * `dualperf check --local` prints the OpenH323 porting study's Table I measured with
//!   loopback sockets on this host.
//! * `dualperf check HOST[:PORT]` (also `[v6]:port`) resolves A and AAAA,
//!   connects over each family, and says which family an RFC 8305 client
//!   would use. Exit code 1 when a fault is found (e.g. AAAA exists but IPv6
//!   does not connect), 2 for a malformed target.

use std::process::ExitCode;
use std::time::Duration;

use dualperf_check::{
    check_host, measure_local, render_host, render_table, CheckDocument, SystemResolver, Target,
};

/// Arguments of `dualperf check`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// HOST[:PORT] to check: a name, an IPv4 literal, or an IPv6 literal (bare or `[v6]:port`).
    #[arg(required_unless_present = "local", conflicts_with = "local")]
    pub target: Option<String>,
    /// Measure this host's socket API on loopback and print Table I.
    #[arg(long)]
    pub local: bool,
    /// Port when HOST has none.
    #[arg(long, default_value_t = 443)]
    pub port: u16,
    /// Connection timeout per attempt, in milliseconds.
    #[arg(long, default_value_t = 3000)]
    pub timeout_ms: u64,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs `dualperf check`.
pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.local {
        let matrix = measure_local().map_err(|e| super::Failure::environment(format!("{e:#}")))?;
        if args.json {
            println!(
                "{}",
                serde_json::to_string_pretty(&CheckDocument::local(matrix))?
            );
        } else {
            print!("{}", render_table(&matrix));
        }
        return Ok(ExitCode::SUCCESS);
    }
    let text = args.target.as_deref().unwrap_or_default();
    let target =
        Target::parse(text, args.port).map_err(|e| super::Failure::usage(e.to_string()))?;
    let report = check_host(
        &target,
        &SystemResolver,
        Duration::from_millis(args.timeout_ms),
    );
    let clean = report.faults.is_empty();
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&CheckDocument::host(report))?
        );
    } else {
        print!("{}", render_host(&report));
    }
    Ok(if clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_malformed_target_is_a_usage_error() {
        let args = Args {
            target: Some("[::1".into()),
            local: false,
            port: 443,
            timeout_ms: 100,
            json: false,
        };
        let error = run(args).unwrap_err();
        assert_eq!(
            error
                .downcast_ref::<super::super::Failure>()
                .map(|f| f.code),
            Some(2)
        );
    }

    #[test]
    fn a_closed_loopback_port_is_reported_as_a_fault() {
        // Port 1 on ::1: nothing listens there on a test machine; only loopback is touched.
        let args = Args {
            target: Some("[::1]:1".into()),
            local: false,
            port: 443,
            timeout_ms: 500,
            json: true,
        };
        assert_eq!(run(args).unwrap(), ExitCode::from(1));
    }
}

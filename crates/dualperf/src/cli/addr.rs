//! `dualperf addr ADDRESS`: RFC 5952 canonical form, expanded form, kind
//! (mapped, compatible, NAT64, 6to4, Teredo, unique-local, link-local,
//! documentation, multicast scope...) and reverse-DNS name of one address.

use std::process::ExitCode;

use dualperf_check::address::{analyse, render};

/// Arguments of `dualperf addr`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The address: IPv6 in any notation (`2001:db8::1`, `::ffff:192.0.2.1`, `fe80::1%eth0`, `[::1]`) or IPv4.
    pub address: String,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs `dualperf addr`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let report = analyse(&args.address).map_err(|e| super::Failure::usage(e.to_string()))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", render(&report));
    }
    Ok(ExitCode::SUCCESS)
}

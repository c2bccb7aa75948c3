//! `dualperf addr ADDRESS`: RFC 5952 canonical form, expanded form, kind
//! (mapped, compatible, NAT64, 6to4, Teredo, unique-local, link-local,
//! documentation, multicast scope...) and reverse-DNS name of one address.

use std::process::ExitCode;

use dualperf_check::address::{analyse, render};

/// Arguments of `dualperf addr`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// The address: IPv6 in any notation (`2001:db8::1`, `::ffff:192.0.2.1`, `fe80::1%eth0`, `[::1]`) or IPv4.
    pub address: String,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs `dualperf addr`.
pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    let report = analyse(&args.address).map_err(|e| super::Failure::usage(e.to_string()))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", render(&report));
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_invalid_address_is_a_usage_error() {
        let error = run(Args {
            address: "2001:db8::1::2".into(),
            json: false,
        })
        .unwrap_err();
        let code = error
            .downcast_ref::<super::super::Failure>()
            .map(|f| f.code);
        assert_eq!(code, Some(2));
        assert!(error.to_string().contains("2001:db8::1::2"));
    }

    #[test]
    fn a_valid_address_succeeds() {
        assert_eq!(
            run(Args {
                address: "fe80::1%eth0".into(),
                json: true
            })
            .unwrap(),
            ExitCode::SUCCESS
        );
    }
}

//! `dualperf path`: where is IPv4 or IPv6 "up but broken"? Per family:
//! the path MTU (packetization-layer search and classic PMTUD), Packet Too
//! Big black holes, fragments, IPv6 extension headers, each placed at a
//! hop, and TCP's MSS — against a `dualperf serve` (its UDP responder) or
//! any host (ICMP echo, TCP). The probing is `dualperf_path`; this file
//! parses flags, resolves the target and prints ([`summary`]).

use std::net::{IpAddr, ToSocketAddrs};
use std::process::ExitCode;

use dualperf_path::exthdr::{ExtHeader, ExtKind};
use dualperf_path::probe::{probe_family, Options, TransportChoice};
use dualperf_path::transport::TransportKind;
use dualperf_path::{judge, Bounds, FamilyVerdicts, PathEvidence};
use serde::Serialize;

use super::Failure;

mod bulk;
pub(crate) mod preflight;
pub(crate) mod summary;

/// Find path MTU black holes, dropped fragments and dropped IPv6 extension headers, per family and hop.
///
/// Against a `dualperf serve` (its UDP responder on the serve port) the
/// path MTU is measured one way with acknowledged, unfragmentable UDP
/// probes; against any other host with ICMP echo (root). Every ICMP
/// error (Packet Too Big, Time Exceeded) is read with the router that sent
/// it. Probes go only to the addresses given, paced and counted.
#[derive(clap::Args, Debug)]
#[command(
    verbatim_doc_comment,
    after_help = "Examples:
  dualperf path server.example               both families of a host running `dualperf serve`
  dualperf path --v4 192.0.2.7 --v6 2001:db8::7
  dualperf path --v6 2001:db8::7 --transport echo   any host: ICMP echo (root) and TCP
  dualperf path HOST --json > path.json      the full evidence of every probe
  dualperf path HOST --rate 10 --max-probes 100 --max-hops 8   gentler
Exit codes: 0 nothing found, 1 a fault (black hole, drop, unreachable), 2 usage, 3 nothing testable without root"
)]
pub(crate) struct Args {
    /// Host name or address; both families where it has them.
    #[arg(required_unless_present_any = ["v4", "v6"])]
    pub host: Option<String>,
    /// The IPv4 address to probe (instead of, or overriding, HOST's).
    #[arg(long, value_name = "ADDR")]
    pub v4: Option<std::net::Ipv4Addr>,
    /// The IPv6 address to probe (instead of, or overriding, HOST's).
    #[arg(long, value_name = "ADDR")]
    pub v6: Option<std::net::Ipv6Addr>,
    /// The `dualperf serve` port (UDP for probes, TCP for the MSS).
    #[arg(short = 'p', long, default_value_t = dualperf_engine::DEFAULT_PORT)]
    pub port: u16,
    /// TCP port for the MSS check [default: the serve port]; 0 skips it.
    #[arg(long, value_name = "PORT")]
    pub tcp_port: Option<u16>,
    /// How probes are answered: auto (the responder, else ICMP echo), responder, echo.
    #[arg(long, default_value = "auto", value_parser = ["auto", "responder", "echo"])]
    pub transport: String,
    /// Probes per second at most, per family.
    #[arg(long, value_name = "PPS", default_value_t = 50)]
    pub rate: u32,
    /// Probes in total at most, per family.
    #[arg(long, value_name = "N", default_value_t = 400)]
    pub max_probes: u32,
    /// Highest hop limit (TTL) of a sweep.
    #[arg(long, value_name = "HOPS", default_value_t = 16)]
    pub max_hops: u8,
    /// Seconds per family at most.
    #[arg(long, value_name = "SECS", default_value_t = 60)]
    pub max_time: u64,
    /// Milliseconds to wait for each probe's answer.
    #[arg(long, value_name = "MS", default_value_t = 500)]
    pub wait: u64,
    /// The largest packet the MTU search tries, bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 9000, value_parser = clap::value_parser!(u32).range(576..=65535))]
    pub ceiling: u32,
    /// Datagram sizes of the fragment test, bytes, comma-separated.
    #[arg(long, value_name = "LIST", default_value = "2000,4000")]
    pub fragment_sizes: String,
    /// IPv6 extension headers to try: Destination Options (`dstN`) and
    /// Hop-by-Hop (`hbhN`) headers of N bytes, a Fragment header on a small
    /// packet (`frag8`, responder only), or `none`.
    #[arg(
        long,
        value_name = "LIST",
        default_value = "dst8,dst64,hbh8,hbh64,frag8"
    )]
    pub ext_headers: String,
    /// Skip the one-second bulk TCP transfer (`tcp-stream`) to `dualperf serve`.
    #[arg(long)]
    pub no_bulk: bool,
    /// Print the full evidence and the verdicts as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The JSON document of `dualperf path --json`.
#[derive(Debug, Serialize, serde::Deserialize)]
pub(crate) struct PathDocument {
    /// Every probe and what came back.
    pub evidence: PathEvidence,
    /// The verdicts drawn from it, per family.
    pub verdicts: Vec<FamilyVerdicts>,
}

/// Parses `dst8,hbh64` into headers.
pub(crate) fn parse_ext_headers(text: &str) -> anyhow::Result<Vec<ExtHeader>> {
    if text.trim() == "none" {
        return Ok(Vec::new());
    }
    text.split(',')
        .map(|item| {
            let item = item.trim().to_ascii_lowercase();
            let (kind, bytes) = if let Some(rest) = item.strip_prefix("dst") {
                (ExtKind::DestinationOptions, rest)
            } else if let Some(rest) = item.strip_prefix("hbh") {
                (ExtKind::HopByHop, rest)
            } else if let Some(rest) = item.strip_prefix("frag") {
                (ExtKind::Fragment, rest)
            } else {
                return Err(Failure::usage(format!(
                    "--ext-headers: `{item}` is not dstN, hbhN or frag8 (e.g. dst8, hbh64)"
                )));
            };
            bytes
                .parse::<u16>()
                .ok()
                .and_then(|b| ExtHeader::new(kind, b))
                .ok_or_else(|| {
                    Failure::usage(format!(
                        "--ext-headers: `{item}`: the length must be a multiple of 8 from 8 to 256 (a Fragment header: 8)"
                    ))
                })
        })
        .collect()
}

fn parse_sizes(text: &str) -> anyhow::Result<Vec<u32>> {
    text.split(',')
        .map(|item| {
            dualperf_model::units::parse_size(item)
                .ok()
                .and_then(|size| u32::try_from(size).ok())
                .filter(|size| (1_281..=65_000).contains(size))
                .ok_or_else(|| {
                    Failure::usage(format!(
                        "--fragment-sizes: `{item}` is not a size from 1281 to 65000 bytes"
                    ))
                })
        })
        .collect()
}

/// The addresses to probe: `--v4`/`--v6`, else HOST's first of each family.
fn targets(args: &Args) -> anyhow::Result<Vec<IpAddr>> {
    let mut v4 = args.v4.map(IpAddr::V4);
    let mut v6 = args.v6.map(IpAddr::V6);
    if let Some(host) = &args.host {
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let resolved: Vec<IpAddr> = match host.parse::<IpAddr>() {
            Ok(ip) => vec![ip],
            Err(_) => (host, 0)
                .to_socket_addrs()
                .map_err(|e| Failure::usage(format!("cannot resolve `{host}`: {e}")))?
                .map(|a| a.ip().to_canonical())
                .collect(),
        };
        v4 = v4.or(resolved.iter().copied().find(IpAddr::is_ipv4));
        v6 = v6.or(resolved.iter().copied().find(IpAddr::is_ipv6));
    }
    let targets: Vec<IpAddr> = v4.into_iter().chain(v6).collect();
    if targets.is_empty() {
        return Err(Failure::usage("no address to probe"));
    }
    Ok(targets)
}

/// The probe options from the flags.
fn options(args: &Args) -> anyhow::Result<Options> {
    let bounds = Bounds {
        packets_per_second: args.rate,
        max_probes: args.max_probes,
        max_hops: args.max_hops,
        max_time_ms: args.max_time.saturating_mul(1000),
        wait_ms: args.wait,
    };
    bounds.validate().map_err(|e| {
        Failure::usage(format!(
            "{e} (--rate, --max-probes, --max-hops, --max-time SECS, --wait MS)"
        ))
    })?;
    Ok(Options {
        bounds,
        port: args.port,
        tcp_port: match args.tcp_port {
            Some(0) => None,
            Some(port) => Some(port),
            None => Some(args.port),
        },
        transport: match args.transport.as_str() {
            "responder" => TransportChoice::Responder,
            "echo" => TransportChoice::Echo,
            _ => TransportChoice::Auto,
        },
        ceiling: args.ceiling,
        fragment_sizes: parse_sizes(&args.fragment_sizes)?,
        ext_headers: parse_ext_headers(&args.ext_headers)?,
    })
}

/// Runs `dualperf path`.
pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    let options = options(&args)?;
    let targets = targets(&args)?;
    let mut evidence = PathEvidence {
        bounds: options.bounds.clone(),
        families: Vec::new(),
    };
    for target in targets {
        if !args.json {
            eprintln!("dualperf path: probing {target} …");
        }
        let mut family = probe_family(target, &options);
        let served = matches!(family.transport, Some(TransportKind::Responder { .. }));
        match (family.tcp.as_mut(), served, args.no_bulk) {
            (Some(tcp), true, false) if tcp.mss.is_some() && tcp.port == args.port => {
                tcp.bulk = Some(bulk::measure(target, args.port));
            }
            (_, _, true) => family.skip("TCP bulk transfer", "--no-bulk"),
            _ => family.skip(
                "TCP bulk transfer",
                "needs a dualperf serve on the serve port (its tcp-stream); \
                 a stall is only inferred from the MSS against the path MTU",
            ),
        }
        evidence.families.push(family);
    }
    let verdicts: Vec<FamilyVerdicts> = evidence.families.iter().map(judge).collect();
    let nothing_tested = evidence.families.iter().all(|f| f.transport.is_none());
    let privileges = evidence.families.iter().any(|f| f.lacks_privilege);
    let fault = verdicts.iter().any(FamilyVerdicts::has_fault);
    if args.json {
        let document = PathDocument { evidence, verdicts };
        super::say(&serde_json::to_string_pretty(&document)?);
    } else {
        for (family, verdict) in evidence.families.iter().zip(&verdicts) {
            for line in summary::lines(family, verdict) {
                super::say(&line);
            }
        }
    }
    Ok(if nothing_tested && privileges {
        ExitCode::from(crate::exit::ENVIRONMENT)
    } else if fault {
        ExitCode::from(crate::exit::FINDING)
    } else {
        ExitCode::SUCCESS
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extension_header_lists_parse_and_bad_ones_are_usage_errors() {
        let headers = parse_ext_headers("dst8, HBH64").unwrap();
        assert_eq!(headers.len(), 2);
        assert_eq!(headers[1].kind, ExtKind::HopByHop);
        assert_eq!(headers[1].bytes, 64);
        assert!(parse_ext_headers("none").unwrap().is_empty());
        assert_eq!(
            parse_ext_headers("frag8").unwrap()[0].kind,
            ExtKind::Fragment
        );
        for bad in ["dst7", "rh0", "hbh512", "dst", "frag16"] {
            let error = parse_ext_headers(bad).unwrap_err();
            assert_eq!(
                error.downcast_ref::<Failure>().map(|f| f.code),
                Some(2),
                "{bad}"
            );
        }
        assert!(parse_sizes("2000,4000").is_ok());
        assert!(parse_sizes("100").is_err());
    }
}

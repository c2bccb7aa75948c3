//! `dualperf serve`: the far end of `dualperf run`, one process for both
//! families. Logs one line per session event on stderr.

use std::net::IpAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use dualperf_engine::limits::ServerLimits;
use dualperf_engine::server::{Server, ServerConfig};
use dualperf_model::BitRate;

/// Arguments of `dualperf serve`.
///
/// Listens on TCP port 5180 (after RFC 5180, "IPv6 Benchmarking Methodology
/// for Network Interconnect Devices") on every address of both families
/// through one dual-stack socket; IPv4 clients are counted as IPv4.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  dualperf serve                          both families, port 5180
  dualperf serve -B 2001:db8::7 -p 6000   one address, another port
  dualperf serve --auth-key \"$SECRET\" --max-sessions 2")]
pub struct Args {
    /// Control port.
    #[arg(short, long, default_value_t = dualperf_engine::DEFAULT_PORT)]
    pub port: u16,
    /// Listen on this address only (default: all addresses, both families).
    #[arg(short = 'B', long = "bind", value_name = "ADDR")]
    pub bind: Option<IpAddr>,
    /// Longest test accepted, warm-up included, in seconds.
    #[arg(long, default_value_t = 60, value_name = "SECS")]
    pub max_duration: u64,
    /// Highest rate this server sends UDP at per stream (e.g. 1G); unlimited if unset.
    #[arg(long, value_name = "RATE")]
    pub max_rate: Option<BitRate>,
    /// Most parallel streams in one test.
    #[arg(long, default_value_t = 16, value_name = "N")]
    pub max_streams: u32,
    /// Most sessions served at once; more are refused as busy.
    #[arg(long, default_value_t = 4, value_name = "N")]
    pub max_sessions: u32,
    /// Seconds a new connection has to complete the handshake.
    #[arg(long, default_value_t = 5, value_name = "SECS")]
    pub handshake_timeout: u64,
    /// Seconds a session may stay silent between messages.
    #[arg(long, default_value_t = 30, value_name = "SECS")]
    pub idle_timeout: u64,
    /// Shared secret clients must prove (HMAC-SHA256 challenge; never sent in clear).
    #[arg(long, value_name = "KEY")]
    pub auth_key: Option<String>,
}

/// Runs `dualperf serve` until the process is stopped.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.max_duration == 0 || args.max_streams == 0 || args.max_sessions == 0 {
        return Err(super::Failure::usage(
            "--max-duration, --max-streams and --max-sessions must be at least 1",
        ));
    }
    let limits = ServerLimits {
        max_duration: Duration::from_secs(args.max_duration),
        max_rate: args.max_rate,
        max_parallel_streams: args.max_streams,
        max_sessions: args.max_sessions,
        handshake_timeout: Duration::from_secs(args.handshake_timeout.max(1)),
        idle_timeout: Duration::from_secs(args.idle_timeout.max(1)),
    };
    let config = ServerConfig {
        bind: args.bind,
        port: args.port,
        limits,
        auth_key: args.auth_key.map(String::into_bytes),
        log: Some(Arc::new(|line: &str| eprintln!("dualperf serve: {line}"))),
    };
    let server = Server::bind(config)
        .map_err(|e| super::Failure::usage(format!("{:#}", anyhow::Error::new(e))))?;
    let addresses: Vec<String> = server
        .local_addresses()
        .iter()
        .map(|a| a.to_string())
        .collect();
    eprintln!(
        "dualperf serve: listening on {} (control port {})",
        addresses.join(", "),
        server.port()
    );
    server.run();
    Ok(ExitCode::SUCCESS)
}

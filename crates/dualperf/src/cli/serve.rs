//! `dualperf serve`: the far end of `dualperf run`, one process for both
//! families. Logs one line per session event on stderr; a session's last
//! line says what it moved (bytes each way, seconds, Mbit/s), as iperf3's
//! server prints its summary. iperf3's `-1` serves one client's run;
//! `-D` is refused with the reason (run it under systemd instead).

use std::net::IpAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use dualperf_engine::limits::ServerLimits;
use dualperf_engine::server::{Server, ServerConfig};
use dualperf_model::BitRate;

use super::secret;

/// Arguments of `dualperf serve`.
///
/// Listens on TCP port 5180 (after RFC 5180, "IPv6 Benchmarking Methodology
/// for Network Interconnect Devices") on every address of both families
/// through one dual-stack socket; IPv4 clients are counted as IPv4.
///
/// Every limit has a documented range (docs/server-limits.md); a value
/// outside it is a usage error (exit code 2).
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  dualperf serve                          both families, port 5180
  dualperf serve -B 2001:db8::7 -p 6000   one address, another port
  dualperf serve --auth-key-file /etc/dualperf.key --max-sessions 2
  DUALPERF_AUTH_KEY=\"$SECRET\" dualperf serve --no-host-facts
  dualperf serve --stamp                  also a STAMP reflector on UDP 862
  dualperf serve --stamp --stamp-port 8620 --stamp-stateless --auth-key-file key
  dualperf -s -1                          serve one client's run, then exit")]
pub(crate) struct Args {
    /// Control port.
    #[arg(short, long, default_value_t = dualperf_engine::DEFAULT_PORT)]
    pub port: u16,
    /// Listen on this address only (default: all addresses, both families).
    #[arg(short = 'B', long = "bind", value_name = "ADDR")]
    pub bind: Option<IpAddr>,
    /// Longest test accepted, warm-up included, in seconds (1 to 86400).
    #[arg(long, default_value_t = 60, value_name = "SECS")]
    pub max_duration: u64,
    /// Highest rate this server sends UDP at per stream (e.g. 1G); unlimited if unset.
    #[arg(long, value_name = "RATE")]
    pub max_rate: Option<BitRate>,
    /// Most parallel streams in one test (1 to 128).
    #[arg(long, default_value_t = 16, value_name = "N")]
    pub max_streams: u32,
    /// Most sessions served at once (1 to 1024); more are refused as busy.
    /// A slot is taken only once a client has completed its handshake.
    #[arg(long, default_value_t = 4, value_name = "N")]
    pub max_sessions: u32,
    /// Most sessions one source (IPv4 address, IPv6 /64) holds at once
    /// [default: no limit below --max-sessions].
    #[arg(long, value_name = "N")]
    pub max_sessions_per_source: Option<u32>,
    /// Memory one session's test may need (buffers, samples), MiB (1 to 16384).
    #[arg(long, default_value_t = 64, value_name = "MIB")]
    pub max_session_memory: u64,
    /// Seconds a new connection has to complete the whole handshake,
    /// authentication included (1 to 300).
    #[arg(long, default_value_t = 5, value_name = "SECS")]
    pub handshake_timeout: u64,
    /// Connections in the handshake at once (1 to 4096); a newcomer beyond
    /// it pushes out the oldest.
    #[arg(long, default_value_t = 64, value_name = "N")]
    pub max_pending_handshakes: u32,
    /// Connections in the handshake at once from one source (IPv4 address,
    /// IPv6 /64); a newcomer beyond it pushes out that source's oldest.
    #[arg(long, default_value_t = 8, value_name = "N")]
    pub max_handshakes_per_source: u32,
    /// Seconds one control message of a session may take (1 to 86400).
    #[arg(long, default_value_t = 30, value_name = "SECS")]
    pub idle_timeout: u64,
    /// File holding the shared secret clients must prove (HMAC-SHA256
    /// challenge; never sent in clear). Also: DUALPERF_AUTH_KEY.
    #[arg(long, value_name = "FILE", conflicts_with = "auth_key")]
    pub auth_key_file: Option<PathBuf>,
    /// The shared secret on the command line (visible in `ps`: prefer
    /// --auth-key-file or DUALPERF_AUTH_KEY).
    #[arg(long, value_name = "KEY")]
    pub auth_key: Option<String>,
    /// Accept a shared key shorter than 16 bytes, with a warning (such a
    /// key can be guessed online).
    #[arg(long)]
    pub insecure_short_key: bool,
    /// Never send this host's facts (hostname, kernel, addresses) to clients.
    #[arg(long)]
    pub no_host_facts: bool,
    /// Also answer STAMP test packets (RFC 8762 Session-Reflector, RFC 8972
    /// Class-of-Service TLV) on UDP --stamp-port, both families; with
    /// --auth-key-file the reflector runs in authenticated mode (HMAC key of
    /// 16 bytes or more). Binding port 862 needs root or CAP_NET_BIND_SERVICE.
    #[arg(long)]
    pub stamp: bool,
    /// UDP port of the STAMP reflector.
    #[arg(long, default_value_t = dualperf_engine::stamp::DEFAULT_PORT, value_name = "PORT", requires = "stamp")]
    pub stamp_port: u16,
    /// Echo the sender's sequence numbers (stateless reflector) instead of
    /// numbering replies per session (stateful, which lets senders tell
    /// forward from reverse loss).
    #[arg(long, requires = "stamp")]
    pub stamp_stateless: bool,
    /// Most STAMP sessions (sender address, port and SSID) numbered at once
    /// (1 to 65536); a session idle for 60 s is forgotten.
    #[arg(long, default_value_t = 64, value_name = "N", requires = "stamp")]
    pub stamp_max_sessions: u32,
    /// Most STAMP packets answered per second, all senders together (1 to 1000000).
    #[arg(long, default_value_t = 10_000, value_name = "PPS", requires = "stamp")]
    pub stamp_max_rate: u32,
    /// Refused: iperf3's daemon mode (`-D`); run serve under systemd
    /// (contrib/dualperf-serve.service). See docs/iperf3-flags.md.
    #[arg(short = 'D', long = "daemon", hide = true)]
    pub daemon: bool,
    /// Serve one client's run, then exit (iperf3's one-off mode). A
    /// dualperf run opens one session per trial, so serve exits once a
    /// session has ended and none has been open for --one-off-quiet seconds.
    #[arg(short = '1', long = "one-off")]
    pub one_off: bool,
    /// With -1: seconds without an open session after which the client's
    /// run counts as over (0.5 to 60).
    #[arg(long, value_name = "SECS", default_value_t = 2.0, requires = "one_off")]
    pub one_off_quiet: f64,
}

/// The reason each iperf3 server flag dualperf lacks is refused, or `Ok`.
fn refuse_missing(args: &Args) -> anyhow::Result<()> {
    if args.daemon {
        return Err(super::Failure::usage(
            "-D/--daemon is not supported: run serve in the foreground under a supervisor (contrib/dualperf-serve.service for systemd)",
        ));
    }
    if !(0.5..=60.0).contains(&args.one_off_quiet) {
        return Err(super::Failure::usage(
            "--one-off-quiet must be 0.5 to 60 seconds",
        ));
    }
    Ok(())
}

/// The STAMP reflector the flags ask for, checked against the flags' ranges.
///
/// # Errors
/// A usage error naming the flag, or a key shorter than 16 bytes.
pub(crate) fn stamp_config(
    args: &Args,
    key: Option<&[u8]>,
) -> anyhow::Result<dualperf_engine::stamp::reflector::ReflectorConfig> {
    if !(1..=65_536).contains(&args.stamp_max_sessions) {
        return Err(super::Failure::usage(
            "--stamp-max-sessions must be 1 to 65536",
        ));
    }
    if !(1..=1_000_000).contains(&args.stamp_max_rate) {
        return Err(super::Failure::usage(
            "--stamp-max-rate must be 1 to 1000000",
        ));
    }
    let key = key
        .map(dualperf_engine::stamp::auth::StampKey::new)
        .transpose()
        .map_err(super::Failure::usage)?;
    Ok(dualperf_engine::stamp::reflector::ReflectorConfig {
        bind: args.bind.into_iter().collect(),
        port: args.stamp_port,
        key,
        stateful: !args.stamp_stateless,
        max_sessions: args.stamp_max_sessions as usize,
        idle_timeout: Duration::from_secs(60),
        max_packet_rate: args.stamp_max_rate,
    })
}

/// Starts the STAMP reflector in a thread of its own (it runs as long as
/// the process).
fn start_stamp(args: &Args, key: Option<&[u8]>) -> anyhow::Result<()> {
    use dualperf_engine::stamp::reflector::Reflector;
    let config = stamp_config(args, key)?;
    let mode = if config.key.is_some() {
        "authenticated"
    } else {
        "unauthenticated"
    };
    let state = if config.stateful {
        "stateful"
    } else {
        "stateless"
    };
    let reflector = Reflector::bind(config).map_err(|e| {
        let text = format!(
            "binding the STAMP reflector to UDP port {}: {e}",
            args.stamp_port
        );
        if e.kind() == std::io::ErrorKind::PermissionDenied {
            super::Failure::environment(format!(
                "{text} (ports below 1024 need root or CAP_NET_BIND_SERVICE; or --stamp-port)"
            ))
        } else {
            super::Failure::usage(text)
        }
    })?;
    let addresses: Vec<String> = reflector
        .local_addresses()
        .iter()
        .map(|a| a.to_string())
        .collect();
    eprintln!(
        "dualperf serve: STAMP reflector ({state}, {mode}) on {}",
        addresses.join(", ")
    );
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    std::thread::spawn(move || reflector.run(stop));
    Ok(())
}

/// The limits the flags ask for, checked against their documented ranges.
///
/// # Errors
/// A usage error naming the flag and its range.
pub(crate) fn limits(args: &Args) -> anyhow::Result<ServerLimits> {
    let max_session_memory = args.max_session_memory.saturating_mul(1 << 20);
    let limits = ServerLimits {
        max_duration: Duration::from_secs(args.max_duration),
        max_rate: args.max_rate,
        max_parallel_streams: args.max_streams,
        max_sessions: args.max_sessions,
        max_sessions_per_source: args.max_sessions_per_source,
        handshake_timeout: Duration::from_secs(args.handshake_timeout),
        idle_timeout: Duration::from_secs(args.idle_timeout),
        max_session_memory,
        max_pending_handshakes: args.max_pending_handshakes,
        max_handshakes_per_source: args.max_handshakes_per_source,
    };
    limits.validate().map_err(super::Failure::usage)?;
    Ok(limits)
}

/// Runs `dualperf serve` until the process is stopped.
pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    refuse_missing(&args)?;
    let limits = limits(&args)?;
    let auth_key = secret::load_auth_key(args.auth_key_file.as_deref(), args.auth_key.as_deref())?;
    if let Some(key) = &auth_key {
        secret::check_key_length(key, args.insecure_short_key)?;
    }
    let config = ServerConfig {
        bind: args.bind,
        port: args.port,
        limits,
        auth_key,
        host_facts: !args.no_host_facts,
        log: Some(Arc::new(|line: &str| eprintln!("dualperf serve: {line}"))),
    };
    if args.stamp {
        start_stamp(&args, config.auth_key.as_deref())?;
    }
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
    if !args.one_off {
        server.run();
        return Ok(ExitCode::SUCCESS);
    }
    serve_one_client(server, Duration::from_secs_f64(args.one_off_quiet));
    eprintln!("dualperf serve: -1: the client's sessions are over; exiting");
    Ok(ExitCode::SUCCESS)
}

/// `-1`: serves until at least one session has ended and no session has
/// been open for `quiet` (the gap between a run's trials is milliseconds).
fn serve_one_client(server: Server, quiet: Duration) {
    let mut handle = server.spawn();
    let mut idle_since: Option<std::time::Instant> = None;
    loop {
        std::thread::sleep(Duration::from_millis(50));
        if handle.sessions_ended() == 0 || handle.active_sessions() > 0 {
            idle_since = None;
            continue;
        }
        let since = *idle_since.get_or_insert_with(std::time::Instant::now);
        if since.elapsed() >= quiet {
            break;
        }
    }
    handle.stop();
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    fn limits_of(args: &[&str]) -> anyhow::Result<ServerLimits> {
        let all = std::iter::once("serve").chain(args.iter().copied());
        limits(&Cli::try_parse_from(all).unwrap().args)
    }

    #[test]
    fn iperf3_daemon_is_refused_with_a_reason() {
        let one_off = Cli::try_parse_from(["serve", "-1"]).unwrap().args;
        assert!(refuse_missing(&one_off).is_ok());
        let args = Cli::try_parse_from(["serve", "-D"]).unwrap().args;
        let error = refuse_missing(&args).unwrap_err();
        let failure = error.downcast_ref::<super::super::Failure>().unwrap();
        assert_eq!(failure.code, crate::exit::USAGE);
        assert!(failure.message.contains("not supported: "), "{failure}");
        assert!(
            failure.message.contains("dualperf-serve.service"),
            "{failure}"
        );
        let quiet = Cli::try_parse_from(["serve", "-1", "--one-off-quiet", "0"])
            .unwrap()
            .args;
        assert!(refuse_missing(&quiet).is_err());
    }

    #[test]
    fn the_defaults_are_valid() {
        let limits = limits_of(&[]).unwrap();
        assert_eq!(limits.max_session_memory, 64 << 20);
        assert_eq!(limits.max_sessions, 4);
    }

    #[test]
    fn extreme_values_are_usage_errors_naming_the_flag() {
        for (args, flag) in [
            (
                &["--idle-timeout", "18446744073709551615"][..],
                "--idle-timeout",
            ),
            (&["--handshake-timeout", "0"][..], "--handshake-timeout"),
            (
                &["--max-duration", "18446744073709551615"][..],
                "--max-duration",
            ),
            (
                &["--max-session-memory", "18446744073709551615"][..],
                "--max-session-memory",
            ),
            (&["--max-streams", "4294967295"][..], "--max-streams"),
            (&["--max-sessions", "0"][..], "--max-sessions"),
        ] {
            let error = limits_of(args).unwrap_err();
            let failure = error.downcast_ref::<super::super::Failure>().unwrap();
            assert_eq!(failure.code, crate::exit::USAGE);
            assert!(failure.message.contains(flag), "{args:?}: {failure}");
        }
    }
}

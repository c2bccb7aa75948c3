//! `dualperf check HOST[:PORT]`: resolve A and AAAA, connect over each
//! family, time both, say which family an RFC 8305 client would use, and
//! flag the classic fault "AAAA exists but IPv6 does not connect".

use std::net::{IpAddr, SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use dualperf_model::{IpFamily, PerFamily};

use crate::happy_eyeballs::{decide, Decision, Delays, FamilyTimes};
use crate::resolve::{resolve_both, FamilyResolution, Resolver};
use crate::target::Target;

/// At most this many addresses per family are tried.
pub const MAX_ADDRESSES_PER_FAMILY: usize = 3;

/// The outcome of connecting over one family.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Connection {
    /// The address tried last (the one that connected, if any).
    pub address: SocketAddr,
    /// True if a TCP connection was established.
    pub connected: bool,
    /// Time of the successful (or last failed) attempt; JSON `elapsed_ms`, milliseconds.
    #[serde(rename = "elapsed_ms", serialize_with = "crate::json::ms")]
    #[schemars(rename = "elapsed_ms", with = "f64")]
    pub elapsed: Duration,
    /// The error of the last failed attempt.
    pub error: Option<String>,
}

/// Everything `check HOST` found.
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct HostReport {
    /// Host as given (brackets removed).
    pub host: String,
    /// Port.
    pub port: u16,
    /// A and AAAA answers.
    pub resolution: PerFamily<FamilyResolution>,
    /// Connection per family (`None`: no address of that family).
    pub connection: PerFamily<Option<Connection>>,
    /// The RFC 8305 decision.
    pub happy_eyeballs: Decision,
    /// Faults found, in words.
    pub faults: Vec<String>,
}

/// Checks `target` with `resolver`, connecting with `timeout` per attempt.
pub fn check_host(target: &Target, resolver: &dyn Resolver, timeout: Duration) -> HostReport {
    let resolution = resolve_both(resolver, &target.host);
    let connection = PerFamily {
        v4: connect_family(&resolution.v4.addresses, target.port, timeout),
        v6: connect_family(&resolution.v6.addresses, target.port, timeout),
    };
    let times = |r: &FamilyResolution, c: &Option<Connection>| FamilyTimes {
        resolved_after: r.elapsed,
        has_address: !r.addresses.is_empty(),
        connect: c.as_ref().map(|c| (c.elapsed, c.connected)),
    };
    let decision = decide(
        PerFamily {
            v4: times(&resolution.v4, &connection.v4),
            v6: times(&resolution.v6, &connection.v6),
        },
        Delays::default(),
    );
    let faults = faults(&resolution, &connection, &decision);
    HostReport {
        host: target.host.clone(),
        port: target.port,
        resolution,
        connection,
        happy_eyeballs: decision,
        faults,
    }
}

fn connect_family(addresses: &[IpAddr], port: u16, timeout: Duration) -> Option<Connection> {
    let mut last = None;
    for address in addresses.iter().take(MAX_ADDRESSES_PER_FAMILY) {
        let destination = SocketAddr::new(*address, port);
        let start = Instant::now();
        let result = TcpStream::connect_timeout(&destination, timeout);
        let elapsed = start.elapsed();
        match result {
            Ok(_) => {
                return Some(Connection {
                    address: destination,
                    connected: true,
                    elapsed,
                    error: None,
                })
            }
            Err(e) => {
                last = Some(Connection {
                    address: destination,
                    connected: false,
                    elapsed,
                    error: Some(e.to_string()),
                })
            }
        }
    }
    last
}

fn faults(
    resolution: &PerFamily<FamilyResolution>,
    connection: &PerFamily<Option<Connection>>,
    decision: &Decision,
) -> Vec<String> {
    let mut faults = Vec::new();
    let works = |c: &Option<Connection>| c.as_ref().is_some_and(|c| c.connected);
    if !resolution.v6.addresses.is_empty() && !works(&connection.v6) {
        let why = connection
            .v6
            .as_ref()
            .and_then(|c| c.error.clone())
            .unwrap_or_default();
        let consequence = if works(&connection.v4) {
            format!(
                "clients without Happy Eyeballs hang or fail; RFC 8305 clients fall back to IPv4 after {} ms",
                Delays::default().connection_attempt_delay.as_millis()
            )
        } else {
            "and there is no working IPv4 path to fall back to".to_string()
        };
        faults.push(format!(
            "AAAA exists but IPv6 does not connect ({why}): {consequence}"
        ));
    }
    if !resolution.v4.addresses.is_empty() && !works(&connection.v4) {
        faults.push("A exists but IPv4 does not connect".to_string());
    }
    if resolution.v6.addresses.is_empty() && works(&connection.v4) {
        faults.push("no AAAA record: IPv6-only clients cannot reach this service (except through NAT64/DNS64)".to_string());
    }
    if decision.winner == Some(IpFamily::V4) && works(&connection.v6) {
        faults
            .push("IPv6 works but is too slow: Happy Eyeballs clients end up on IPv4".to_string());
    }
    faults
}

/// The text `dualperf check HOST` prints.
pub fn render_host(report: &HostReport) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(out, "check {} port {}", report.host, report.port);
    for (family, resolution, connection) in [
        (IpFamily::V4, &report.resolution.v4, &report.connection.v4),
        (IpFamily::V6, &report.resolution.v6, &report.connection.v6),
    ] {
        let record = if family == IpFamily::V4 {
            "A   "
        } else {
            "AAAA"
        };
        let addresses: Vec<String> = resolution
            .addresses
            .iter()
            .map(ToString::to_string)
            .collect();
        let answer = if addresses.is_empty() {
            format!(
                "none ({})",
                resolution
                    .error
                    .as_deref()
                    .unwrap_or("no address of this family")
            )
        } else {
            addresses.join(", ")
        };
        let _ = writeln!(
            out,
            "  {record} {:>8.1} ms  {answer}",
            resolution.elapsed.as_secs_f64() * 1e3
        );
        match connection {
            Some(c) if c.connected => {
                let _ = writeln!(
                    out,
                    "  {family} connect {:>8.1} ms  ok to {}",
                    c.elapsed.as_secs_f64() * 1e3,
                    c.address
                );
            }
            Some(c) => {
                let _ = writeln!(
                    out,
                    "  {family} connect {:>8.1} ms  FAILED to {}: {}",
                    c.elapsed.as_secs_f64() * 1e3,
                    c.address,
                    c.error.as_deref().unwrap_or("?")
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "  {family} connect        -     not attempted (no address)"
                );
            }
        }
    }
    match (
        report.happy_eyeballs.winner,
        report.happy_eyeballs.connected_at,
    ) {
        (Some(family), Some(at)) => {
            let _ = writeln!(
                out,
                "  Happy Eyeballs (RFC 8305): uses {family}, connected after {:.1} ms",
                at.as_secs_f64() * 1e3
            );
        }
        _ => {
            let _ = writeln!(out, "  Happy Eyeballs (RFC 8305): no family connects");
        }
    }
    if report.faults.is_empty() {
        let _ = writeln!(out, "  no dual-stack faults found");
    }
    for fault in &report.faults {
        let _ = writeln!(out, "  FAULT: {fault}");
    }
    out
}

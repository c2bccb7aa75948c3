//! Which families a server can be measured in, and why not the others.
//!
//! A comparison needs both families; a measurement does not. When the user
//! names a server without asking for a family (`dualperf -c HOST`, no `-4`,
//! `-6`, `--v4` or `--v6`), a family the server lacks is left out with the
//! reason said on standard error — the name has no A / AAAA record, this
//! host has no route to the address, or the server refused the connection —
//! and the run measures the family that exists, as iperf3 would. A family
//! the user asked for is never left out: it is measured, and fails the run
//! (exit 1) if the server cannot be reached in it.
//!
//! `localhost` (and any name under `.localhost.`) is the loopback address of
//! each family, 127.0.0.1 and ::1, without asking a resolver (RFC 6761 §6.3).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpStream, UdpSocket};
use std::time::Duration;

use dualperf_model::{Arm, IpFamily};

use super::Args;
use crate::cli::Failure;

/// How long the reachability check waits for the server's control port.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// Why a family of the server is not measured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Missing {
    /// The name resolved to no address of the family (no A or AAAA record,
    /// or an address literal of the other family).
    NoAddress {
        /// The name as the user gave it.
        host: String,
    },
    /// This host has no route to the address (`connect` on a UDP socket
    /// failed: nothing is sent).
    NoRoute {
        /// The address.
        address: IpAddr,
        /// The kernel's error.
        error: String,
    },
    /// The server's control port did not accept a TCP connection.
    Unreachable {
        /// The address and port tried.
        address: SocketAddr,
        /// The error (connection refused, timed out …).
        error: String,
    },
}

impl Missing {
    /// The sentence for standard error: "IPv6 not measured: `h` has no AAAA record".
    pub(super) fn describe(&self, family: IpFamily) -> String {
        let why = match self {
            Missing::NoAddress { host } if host.parse::<IpAddr>().is_ok() => {
                format!("`{host}` is an address of the other family")
            }
            Missing::NoAddress { host } => format!(
                "`{host}` has no {} record",
                match family {
                    IpFamily::V4 => "A",
                    IpFamily::V6 => "AAAA",
                }
            ),
            Missing::NoRoute { address, error } => format!("no route to {address} ({error})"),
            Missing::Unreachable { address, error } => {
                format!("the server at {address} is not reachable ({error})")
            }
        };
        format!("{} not measured: {why}", family.label())
    }
}

/// The loopback addresses when `host` is `localhost` or a name under it
/// (RFC 6761 §6.3: resolved to loopback without a resolver).
pub(super) fn localhost(host: &str) -> Option<(Ipv4Addr, Ipv6Addr)> {
    let name = host.trim_end_matches('.').to_ascii_lowercase();
    (name == "localhost" || name.ends_with(".localhost"))
        .then_some((Ipv4Addr::LOCALHOST, Ipv6Addr::LOCALHOST))
}

/// Checks that `address` can be reached: a route exists (a UDP `connect`,
/// which sends nothing) and, with `control`, the TCP port accepts a
/// connection (closed at once; a dualperf server drops the empty handshake).
pub(super) fn check_reachable(address: IpAddr, port: u16, control: bool) -> Result<(), Missing> {
    let unspecified: IpAddr = match address {
        IpAddr::V4(_) => Ipv4Addr::UNSPECIFIED.into(),
        IpAddr::V6(_) => Ipv6Addr::UNSPECIFIED.into(),
    };
    let route =
        UdpSocket::bind((unspecified, 0)).and_then(|socket| socket.connect((address, port.max(1))));
    if let Err(error) = route {
        return Err(Missing::NoRoute {
            address,
            error: error.to_string(),
        });
    }
    if control {
        let target = SocketAddr::new(address, port);
        TcpStream::connect_timeout(&target, CONNECT_TIMEOUT).map_err(|error| {
            Missing::Unreachable {
                address: target,
                error: error.to_string(),
            }
        })?;
    }
    Ok(())
}

/// True when the user asked for `family`: `-4`/`-6`, or `--v4`/`--v6` ADDR.
fn requested(args: &Args, family: IpFamily) -> bool {
    match family {
        IpFamily::V4 => args.only_v4 || args.v4.is_some(),
        IpFamily::V6 => args.only_v6 || args.v6.is_some(),
    }
}

/// The native `arms` that can be measured against the server, saying on
/// standard error why each left out is (see the module documentation).
/// `in_process`: the server runs in this process (`--loopback`), both
/// families exist.
///
/// # Errors
/// A usage error (exit 2) when a requested family has no address; a
/// finding (exit 1) when no family at all can be reached.
pub(super) fn keep_measurable(
    args: &Args,
    arms: Vec<Arm>,
    port: u16,
    in_process: bool,
) -> anyhow::Result<Vec<Arm>> {
    let host = super::args::server_name(args)
        .unwrap_or_default()
        .to_string();
    let mut kept = Vec::new();
    let mut reasons = Vec::new();
    for arm in arms {
        let family = arm.family;
        let address = arm.target.as_deref().and_then(|t| t.parse::<IpAddr>().ok());
        let missing = match address {
            None if requested(args, family) => {
                return Err(Failure::usage(format!(
                    "no {} address for the server; give --{} ADDR or use -{}",
                    family.label(),
                    family.key(),
                    match family {
                        IpFamily::V4 => 6,
                        IpFamily::V6 => 4,
                    }
                )))
            }
            None => Some(Missing::NoAddress { host: host.clone() }),
            Some(_) if in_process || requested(args, family) => None,
            Some(address) => check_reachable(address, port, args.peer.is_dualperf()).err(),
        };
        match missing {
            None => kept.push(arm),
            Some(missing) => {
                let line = missing.describe(family);
                eprintln!("dualperf: {line}");
                reasons.push(line);
            }
        }
    }
    if kept.is_empty() {
        return Err(anyhow::Error::new(Failure {
            code: crate::exit::FINDING,
            message: format!("nothing to measure: {}", reasons.join("; ")),
        }));
    }
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn localhost_is_loopback_in_both_families_whatever_the_case() {
        let both = Some((Ipv4Addr::LOCALHOST, Ipv6Addr::LOCALHOST));
        assert_eq!(localhost("localhost"), both);
        assert_eq!(localhost("LocalHost."), both);
        assert_eq!(localhost("db.localhost"), both);
        assert_eq!(localhost("notlocalhost"), None);
        assert_eq!(localhost("localhost.example"), None);
    }

    #[test]
    fn a_closed_port_is_unreachable_and_said_so() {
        // A port just freed: nothing listens on it.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .unwrap()
            .port();
        let missing = check_reachable(Ipv4Addr::LOCALHOST.into(), port, true).unwrap_err();
        assert!(
            matches!(missing, Missing::Unreachable { .. }),
            "{missing:?}"
        );
        let line = missing.describe(IpFamily::V4);
        assert!(
            line.starts_with("IPv4 not measured: the server at 127.0.0.1:"),
            "{line}"
        );
        assert!(line.contains("refused"), "{line}");
    }

    #[test]
    fn a_missing_record_names_the_record_type() {
        let missing = Missing::NoAddress {
            host: "a-only.example".into(),
        };
        assert_eq!(
            missing.describe(IpFamily::V6),
            "IPv6 not measured: `a-only.example` has no AAAA record"
        );
        let literal = Missing::NoAddress {
            host: "127.0.0.1".into(),
        };
        assert!(literal.describe(IpFamily::V6).contains("other family"));
    }
}

//! `dualperf run --peer KIND`: which implementation answers at the far end
//! ([`PeerKind`]), and what a run against it can and cannot ask for.
//!
//! Against an iperf3 server (`--peer iperf3`) the port defaults to 5201,
//! the default battery is tcp-stream and udp-stream (all an iperf3 server
//! runs), and UDP without `-b` is sent at iperf3's own default of 1 Mbit/s
//! (a public server is shared; ask for more with `-b`).
//!
//! For a STAMP Session-Reflector (`--peer stamp`) the points are udp-probe
//! streams of STAMP test packets to UDP port 862 (unless `--port` names
//! another), and `--loopback` starts an in-process reflector instead of a
//! dualperf server (`loopback.rs`).

use dualperf_model::{BitRate, PeerKind, RunConfig, TestKind};

use dualperf_engine::client::peer::iperf3::bidir as iperf3_bidir;

use super::Args;
use crate::cli::Failure;

/// iperf3's default UDP rate (`UDP_RATE`, 1 Mbit/s), used against iperf3
/// servers when `-b` is not given.
pub(super) const IPERF3_UDP_RATE: BitRate = BitRate::from_bits_per_second(1024 * 1024);

/// The control port when `-p` is not given.
pub(super) fn default_port(peer: PeerKind) -> u16 {
    match peer {
        PeerKind::Iperf3 => dualperf_engine::client::peer::iperf3::DEFAULT_PORT,
        PeerKind::Stamp => dualperf_engine::stamp::DEFAULT_PORT,
        PeerKind::Dualperf => dualperf_engine::DEFAULT_PORT,
    }
}

/// The port of the run: `-p`, else the peer's well-known port.
pub(super) fn port(args: &Args) -> u16 {
    args.port.unwrap_or_else(|| default_port(args.peer))
}

/// The tests when `--tests` is left at its default: against an iperf3
/// server, the two it runs; against a STAMP reflector, udp-probe.
pub(crate) fn default_tests(peer: PeerKind) -> Option<&'static str> {
    match peer {
        PeerKind::Iperf3 => Some("tcp-stream,udp-stream"),
        PeerKind::Stamp => Some("udp-probe"),
        PeerKind::Dualperf => None,
    }
}

/// Flags that make no sense against `peer`, as a usage error.
///
/// # Errors
/// `--loopback` (the in-process server is dualperf's), `--load`,
/// `--probe`, `--server-cpus`/`--pin`, `--auth-key` or `--verify-wire`
/// against a peer that is not dualperf.
pub(super) fn check_flags(args: &Args) -> anyhow::Result<()> {
    if args.peer.is_dualperf() {
        return Ok(());
    }
    let stamp = args.peer == PeerKind::Stamp;
    let conflict = if args.loopback && !stamp {
        Some("--loopback (its in-process server is dualperf's own)")
    } else if !args.load.is_empty() {
        Some("--load (load flows need a dualperf peer)")
    } else if args.probe {
        Some("--probe (the probe stream needs a dualperf peer)")
    } else if args.server_cpus.is_some() || args.pin {
        Some("--server-cpus or --pin (the far end's CPUs are not the client's to choose)")
    } else if (args.auth_key.is_some() || args.auth_key_file.is_some()) && !stamp {
        Some("--auth-key (dualperf's key; iperf3's RSA authentication is not supported)")
    } else if args.verify_wire {
        Some("--verify-wire (its capture leaves out the control port, which iperf3's TCP data streams share)")
    } else {
        None
    };
    match conflict {
        Some(flag) => Err(Failure::usage(format!(
            "--peer {} cannot be combined with {flag}",
            args.peer
        ))),
        None => Ok(()),
    }
}

/// Makes `config`'s points fit `config.peer`: against iperf3, UDP points
/// without a rate get iperf3's 1 Mbit/s.
pub(super) fn adapt_points(config: &mut RunConfig) {
    if config.peer == PeerKind::Iperf3 {
        for point in &mut config.points {
            if point.kind == TestKind::UdpStream && point.rate.is_none() {
                point.rate = Some(IPERF3_UDP_RATE);
            }
        }
    }
}

/// Every point of `config` is one its peer can run.
///
/// # Errors
/// A usage error naming the first point the peer cannot run and why.
pub(super) fn check_points(config: &RunConfig) -> anyhow::Result<()> {
    if config.peer == PeerKind::Iperf3 {
        for point in &config.points {
            if point.probe_interval_us.is_some() && point.kind != TestKind::UdpProbe {
                return Err(Failure::usage(format!(
                    "{}: a probe beside the load needs a dualperf peer",
                    point.label()
                )));
            }
            for arm in &config.arms {
                dualperf_engine::client::peer::iperf3::params::TestParameters::for_point(
                    point,
                    &arm.marking,
                )
                .map_err(|e| Failure::usage(format!("--peer iperf3: {}: {e}", point.label())))?;
            }
            // The one load an iperf3 server runs is --bidir's: the point's
            // own reverse, as one bidirectional iperf3 test.
            let bidir_only = config.arms.iter().all(|arm| match config.load_of(arm) {
                Ok(None) => true,
                Ok(Some(load)) => iperf3_bidir::mirror_flow(point, load, arm).is_some(),
                Err(_) => false,
            });
            if !bidir_only {
                return Err(Failure::usage(
                    "--peer iperf3: load flows need a dualperf peer",
                ));
            }
        }
    }
    Ok(())
}

/// Checks that a STAMP plan holds only udp-probe points.
///
/// # Errors
/// A usage error naming the first other test.
pub(crate) fn check_stamp_plan(config: &RunConfig) -> anyhow::Result<()> {
    if config.peer != PeerKind::Stamp {
        return Ok(());
    }
    if !config.loads.is_empty() {
        return Err(Failure::usage(
            "a STAMP peer is measured idle: --load needs dualperf servers",
        ));
    }
    if let Some(point) = config.points.iter().find(|p| p.kind != TestKind::UdpProbe) {
        return Err(Failure::usage(format!(
            "a STAMP peer answers udp-probe streams only, not {} (use --tests udp-probe)",
            point.kind.name()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_peer_has_its_port_and_tests() {
        assert_eq!(default_port(PeerKind::Iperf3), 5201);
        assert_eq!(default_port(PeerKind::Dualperf), 5180);
        assert_eq!(default_port(PeerKind::Stamp), 862);
        assert_eq!(default_tests(PeerKind::Stamp), Some("udp-probe"));
    }
}

//! `dualperf run --peer`: which implementation answers at the far end.
//! For a STAMP Session-Reflector (`--peer stamp`) the points are
//! udp-probe streams of STAMP test packets to UDP port 862 (unless
//! `--port` names another), and `--loopback` starts an in-process
//! reflector instead of a dualperf server.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use dualperf_engine::stamp::reflector::{Reflector, ReflectorConfig};
use dualperf_model::{PeerKind, RunConfig, TestKind};

/// Parses `--peer`: `dualperf`, `iperf3` or `stamp`.
pub(crate) fn parse_peer(text: &str) -> Result<PeerKind, String> {
    [PeerKind::Dualperf, PeerKind::Iperf3, PeerKind::Stamp]
        .into_iter()
        .find(|kind| kind.name() == text)
        .ok_or_else(|| format!("unknown peer `{text}`: dualperf, iperf3 or stamp"))
}

/// The tests a STAMP peer runs when `--tests` is left at its default.
pub(crate) const STAMP_TESTS: &str = "udp-probe";

/// The port of a `--peer stamp` run: 862 unless `--port` named another.
pub(crate) fn stamp_port(port: u16) -> u16 {
    if port == dualperf_engine::DEFAULT_PORT {
        dualperf_engine::stamp::DEFAULT_PORT
    } else {
        port
    }
}

/// Checks that a STAMP plan holds only udp-probe points.
///
/// # Errors
/// A usage error naming the first other test.
pub(crate) fn check_stamp_plan(config: &RunConfig) -> anyhow::Result<()> {
    // The iperf3 client lives on another branch (issue 26): until it is
    // merged, say so rather than speak dualperf's protocol to an iperf3 server.
    if config.peer == PeerKind::Iperf3 {
        return Err(super::super::Failure::usage(
            "--peer iperf3 is not in this build yet (issue 26); use --peer dualperf or stamp",
        ));
    }
    if config.peer != PeerKind::Stamp {
        return Ok(());
    }
    if !config.loads.is_empty() {
        return Err(super::super::Failure::usage(
            "a STAMP peer is measured idle: --load needs dualperf servers",
        ));
    }
    if let Some(point) = config.points.iter().find(|p| p.kind != TestKind::UdpProbe) {
        return Err(super::super::Failure::usage(format!(
            "a STAMP peer answers udp-probe streams only, not {} (use --tests udp-probe)",
            point.kind.name()
        )));
    }
    Ok(())
}

/// An in-process STAMP reflector on both loopback families (`--loopback
/// --peer stamp`); it stops when dropped.
pub(crate) struct LoopbackReflector {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
    /// The UDP port it answers on.
    pub(crate) port: u16,
}

impl LoopbackReflector {
    /// Starts a stateful reflector on 127.0.0.1 and ::1 (one ephemeral
    /// port), authenticated when `key` is given.
    pub(crate) fn start(key: Option<Vec<u8>>) -> anyhow::Result<LoopbackReflector> {
        let key = key
            .as_deref()
            .map(dualperf_engine::stamp::auth::StampKey::new)
            .transpose()
            .map_err(super::super::Failure::usage)?;
        let reflector = Reflector::bind(ReflectorConfig {
            bind: vec![
                std::net::Ipv4Addr::LOCALHOST.into(),
                std::net::Ipv6Addr::LOCALHOST.into(),
            ],
            port: 0,
            key,
            stateful: true,
            max_sessions: 16,
            idle_timeout: Duration::from_secs(60),
            max_packet_rate: 10_000,
        })?;
        let port = reflector
            .local_addresses()
            .first()
            .map(|a| a.port())
            .unwrap_or(0);
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || reflector.run(flag));
        Ok(LoopbackReflector {
            stop,
            thread: Some(thread),
            port,
        })
    }
}

impl Drop for LoopbackReflector {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peers_parse_by_name_and_stamp_defaults_to_port_862() {
        assert_eq!(parse_peer("stamp"), Ok(PeerKind::Stamp));
        assert!(parse_peer("twamp").is_err());
        assert_eq!(stamp_port(dualperf_engine::DEFAULT_PORT), 862);
        assert_eq!(stamp_port(8620), 8620);
    }
}

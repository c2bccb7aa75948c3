//! The in-process far end of `dualperf run --loopback`: a `dualperf serve`
//! ([`Server`]) or, with `--peer stamp`, a STAMP Session-Reflector (RFC 8762)
//! on an ephemeral port of 127.0.0.1 and ::1. It stops when its
//! [`LoopbackPeer`] drops, on every way out of the run.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use dualperf_engine::server::{Server, ServerConfig, ServerHandle};
use dualperf_engine::stamp::reflector::{Reflector, ReflectorConfig};
use dualperf_model::PeerKind;

use super::Args;
use crate::cli::Failure;

/// The far end started in this process for `--loopback`.
pub(super) enum LoopbackPeer {
    /// A dualperf server (every peer but STAMP).
    Server(ServerHandle),
    /// A STAMP reflector (`--peer stamp`).
    Reflector(LoopbackReflector),
}

impl LoopbackPeer {
    /// Starts the far end `args` asks for; `None` without `--loopback`.
    ///
    /// # Errors
    /// An environment error when the socket cannot be bound; a usage error
    /// for an unusable STAMP key.
    pub(super) fn start(args: &Args) -> anyhow::Result<Option<LoopbackPeer>> {
        if !args.loopback {
            return Ok(None);
        }
        if args.peer == PeerKind::Stamp {
            let key = crate::cli::secret::load_auth_key(
                args.auth_key_file.as_deref(),
                args.auth_key.as_deref(),
            )?;
            let reflector = LoopbackReflector::start(key).map_err(|e| {
                Failure::environment(format!("starting the loopback STAMP reflector: {e}"))
            })?;
            return Ok(Some(LoopbackPeer::Reflector(reflector)));
        }
        let handle = Server::bind(ServerConfig {
            port: 0,
            ..Default::default()
        })
        .map_err(|e| Failure::environment(format!("starting the loopback server: {e}")))?
        .spawn();
        Ok(Some(LoopbackPeer::Server(handle)))
    }

    /// The port it answers on (TCP control port, or the reflector's UDP port).
    pub(super) fn port(&self) -> u16 {
        match self {
            LoopbackPeer::Server(handle) => handle.port(),
            LoopbackPeer::Reflector(reflector) => reflector.port,
        }
    }
}

/// An in-process STAMP reflector on both loopback families (`--loopback
/// --peer stamp`); it stops when dropped.
pub(super) struct LoopbackReflector {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
    /// The UDP port it answers on.
    port: u16,
}

impl LoopbackReflector {
    /// Starts a stateful reflector on 127.0.0.1 and ::1 (one ephemeral
    /// port), authenticated when `key` is given.
    fn start(key: Option<Vec<u8>>) -> anyhow::Result<LoopbackReflector> {
        let key = key
            .as_deref()
            .map(dualperf_engine::stamp::auth::StampKey::new)
            .transpose()
            .map_err(Failure::usage)?;
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

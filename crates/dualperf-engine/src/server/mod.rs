//! `dualperf serve`: listens for control sessions on both families,
//! completes every handshake in one non-blocking accept loop
//! ([`accept`]), and serves each admitted session on its own thread
//! ([`session`]), with data sockets per test ([`data`]).
//!
//! Listening: without `--bind`, one dual-stack socket on `[::]` with
//! `IPV6_V6ONLY` off serves both families (IPv4 clients appear as
//! IPv4-mapped addresses and are counted as IPv4); where that is impossible
//! it falls back to two sockets, `[::]` (IPv6 only) and `0.0.0.0`, on the
//! same port; on a host without IPv6 it listens on `0.0.0.0` alone.
//!
//! Resources: connections still in their handshake cost one descriptor and
//! a few KiB each, never a thread, and are bounded in number overall and
//! per source ([`ServerLimits::max_pending_handshakes`],
//! [`ServerLimits::max_handshakes_per_source`]); a session slot (and its
//! thread) is taken only once a handshake is complete. The server holds at
//! most `max_sessions` session threads (plus their flows while a test runs)
//! and one accept thread.

pub mod accept;
pub mod data;
pub mod listener_label;
pub mod log_budget;
pub mod path;
pub mod session;

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use socket2::{Domain, Protocol, Socket, Type};

use crate::error::{IoContext, Result};
use crate::limits::ServerLimits;
use crate::protocol::handshake::ServerHandshakeConfig;

/// Where log lines go (one line per session event). Lines are already
/// escaped: client text cannot start a new line ([`escape_log_text`]).
pub type Logger = Arc<dyn Fn(&str) + Send + Sync>;

/// How to run a server.
#[derive(Clone)]
pub struct ServerConfig {
    /// Address to listen on; `None` listens on every address of both families.
    pub bind: Option<IpAddr>,
    /// Control port; 0 picks a free one (tests).
    pub port: u16,
    /// Limits on what sessions may ask.
    pub limits: ServerLimits,
    /// Shared key clients must prove (`--auth-key-file`); `None`: open.
    pub auth_key: Option<Vec<u8>>,
    /// Whether results may carry this host's facts (hostname, kernel,
    /// addresses) when a client asks; `serve --no-host-facts` clears it.
    /// With a key set, only clients that proved it are ever served.
    pub host_facts: bool,
    /// Log sink; `None` discards.
    pub log: Option<Logger>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            bind: None,
            port: crate::DEFAULT_PORT,
            limits: ServerLimits::default(),
            auth_key: None,
            host_facts: true,
            log: None,
        }
    }
}

/// Escapes what could forge or hide log lines: control characters
/// (newlines, carriage returns, escape sequences) and Unicode bidirectional
/// overrides become `\u{…}` escapes; everything else is kept.
pub fn escape_log_text(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        let bidi = matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
        if c.is_control() || bidi {
            escaped.extend(c.escape_unicode());
        } else {
            escaped.push(c);
        }
    }
    escaped
}

/// The key a source is counted under: an IPv4 address (mapped or not), or
/// the /64 of an IPv6 address (one host usually holds a whole /64).
pub fn source_key(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V6(v6) => {
            let bits = u128::from(v6) & !((1u128 << 64) - 1);
            IpAddr::V6(Ipv6Addr::from(bits))
        }
        v4 => v4,
    }
}

/// What every session thread and the accept loop share.
pub(crate) struct SharedState {
    pub(crate) limits: ServerLimits,
    pub(crate) handshake: ServerHandshakeConfig,
    pub(crate) host_facts: bool,
    active_sessions: AtomicU32,
    /// Admitted sessions that have ended (served to their end or failed).
    pub(crate) sessions_ended: std::sync::atomic::AtomicU64,
    per_source: Mutex<HashMap<IpAddr, u32>>,
    stop: AtomicBool,
    log: Option<Logger>,
    log_budgets: log_budget::LogBudgets,
}

impl SharedState {
    /// Sessions being served right now, this one included.
    pub(crate) fn active_sessions(&self) -> u32 {
        self.active_sessions.load(Ordering::SeqCst)
    }

    /// Logs one line, escaped.
    pub(crate) fn log(&self, line: &str) {
        if let Some(log) = &self.log {
            log(&escape_log_text(line));
        }
    }

    /// Logs one line of `kind`, escaped, within that kind's rate limit
    /// ([`log_budget`]).
    pub(crate) fn log_event(&self, kind: log_budget::LogKind, line: &str) {
        for line in self
            .log_budgets
            .admit(kind, std::time::Instant::now(), line)
        {
            self.log(&line);
        }
    }

    /// Takes a session slot for `source`, or says why not.
    pub(crate) fn take_slot(self: &Arc<Self>, source: IpAddr) -> Result<SessionSlot, String> {
        let mut per_source = self
            .per_source
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let max = self.limits.max_sessions;
        if self.active_sessions.load(Ordering::SeqCst) >= max {
            return Err(format!(
                "server busy: {max} sessions already running; try again later"
            ));
        }
        let mine = per_source.entry(source).or_insert(0);
        if let Some(limit) = self.limits.max_sessions_per_source {
            if *mine >= limit {
                return Err(format!(
                    "server busy: your address already has {limit} sessions running (serve --max-sessions-per-source); try again later"
                ));
            }
        }
        *mine += 1;
        self.active_sessions.fetch_add(1, Ordering::SeqCst);
        Ok(SessionSlot {
            state: self.clone(),
            source,
        })
    }
}

/// A session slot; frees itself (also if a session thread unwinds).
pub(crate) struct SessionSlot {
    state: Arc<SharedState>,
    source: IpAddr,
}

impl Drop for SessionSlot {
    fn drop(&mut self) {
        let mut per_source = self
            .state
            .per_source
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(count) = per_source.get_mut(&self.source) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                per_source.remove(&self.source);
            }
        }
        self.state.active_sessions.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A bound server, not yet accepting.
pub struct Server {
    listeners: Vec<TcpListener>,
    state: Arc<SharedState>,
    /// The path-probe responder's UDP socket ([`path`]), if it could be bound.
    path_responder: Option<std::net::UdpSocket>,
}

/// A server running on a background thread; stops when dropped.
pub struct ServerHandle {
    port: u16,
    state: Arc<SharedState>,
    threads: Vec<JoinHandle<()>>,
}

fn listen_on(address: SocketAddr, dual_stack: Option<bool>) -> std::io::Result<TcpListener> {
    let socket = Socket::new(
        Domain::for_address(address),
        Type::STREAM,
        Some(Protocol::TCP),
    )?;
    socket.set_reuse_address(true)?;
    if let Some(dual) = dual_stack {
        socket.set_only_v6(!dual)?;
    }
    socket.bind(&address.into())?;
    socket.listen(128)?;
    Ok(socket.into())
}

impl Server {
    /// Binds the control listener(s).
    ///
    /// # Errors
    /// [`crate::EngineError::Socket`] when no listener could be bound (port in use,
    /// address not on this host).
    pub fn bind(config: ServerConfig) -> Result<Server> {
        let port = config.port;
        let listeners = match config.bind {
            // `--bind ::` keeps dual-stack; a specific IPv6 address is IPv6 only.
            Some(ip) => vec![listen_on(
                SocketAddr::new(ip, port),
                ip.is_ipv6().then_some(ip.is_unspecified()),
            )
            .context(|| format!("listening on {}", SocketAddr::new(ip, port)))?],
            None => {
                let any6 = SocketAddr::new(IpAddr::V6(Ipv6Addr::UNSPECIFIED), port);
                let any4 = SocketAddr::new(IpAddr::V4(Ipv4Addr::UNSPECIFIED), port);
                match listen_on(any6, Some(true)) {
                    Ok(listener) => vec![listener],
                    Err(_) => match listen_on(any6, Some(false)) {
                        Ok(v6) => {
                            let port = v6.local_addr().map(|a| a.port()).unwrap_or(port);
                            let v4 = listen_on(SocketAddr::new(any4.ip(), port), None)
                                .context(|| format!("listening on 0.0.0.0:{port}"))?;
                            vec![v6, v4]
                        }
                        Err(_) => {
                            vec![listen_on(any4, None).context(|| format!("listening on {any4}"))?]
                        }
                    },
                }
            }
        };
        let state = Arc::new(SharedState {
            handshake: ServerHandshakeConfig {
                timeout: config.limits.handshake_timeout,
                auth_key: config.auth_key,
                boot_id: crate::clock::boot_id(),
            },
            limits: config.limits,
            host_facts: config.host_facts,
            active_sessions: AtomicU32::new(0),
            per_source: Mutex::new(HashMap::new()),
            stop: AtomicBool::new(false),
            sessions_ended: std::sync::atomic::AtomicU64::new(0),
            log: config.log,
            log_budgets: log_budget::LogBudgets::new(std::time::Instant::now()),
        });
        let port = listeners
            .first()
            .and_then(|l| l.local_addr().ok())
            .map_or(port, |a| a.port());
        let path_responder = match path::bind(config.bind, port) {
            Ok(socket) => Some(socket),
            Err(err) => {
                state.log(&format!(
                    "path-probe responder off: UDP port {port} could not be bound ({err})"
                ));
                None
            }
        };
        Ok(Server {
            listeners,
            state,
            path_responder,
        })
    }

    /// The addresses the server listens on.
    pub fn local_addresses(&self) -> Vec<SocketAddr> {
        self.listeners
            .iter()
            .filter_map(|l| l.local_addr().ok())
            .collect()
    }

    /// The control port (the actual one when bound to port 0).
    pub fn port(&self) -> u16 {
        self.local_addresses()
            .first()
            .map(|a| a.port())
            .unwrap_or(0)
    }

    /// Serves on a background thread until the handle is stopped or dropped.
    pub fn spawn(self) -> ServerHandle {
        let port = self.port();
        let state = self.state.clone();
        let listeners = self.listeners;
        let loop_state = self.state.clone();
        let thread = std::thread::Builder::new()
            .name("dualperf-accept".into())
            .spawn(move || accept::run(listeners, loop_state))
            .expect("spawning a thread only fails when the process is out of resources");
        let mut threads = vec![thread];
        if let Some(socket) = self.path_responder {
            threads.extend(path::spawn(socket, state.clone()));
        }
        ServerHandle {
            port,
            state,
            threads,
        }
    }

    /// Serves in the calling thread's stead until the process ends.
    pub fn run(self) {
        let mut handle = self.spawn();
        for thread in handle.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

impl ServerHandle {
    /// The control port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Sessions being served right now.
    pub fn active_sessions(&self) -> u32 {
        self.state.active_sessions.load(Ordering::SeqCst)
    }

    /// Admitted sessions that have ended so far (`serve -1` stops once a
    /// client's sessions are over).
    pub fn sessions_ended(&self) -> u64 {
        self.state.sessions_ended.load(Ordering::SeqCst)
    }

    /// Stops accepting; running sessions finish on their own.
    pub fn stop(&mut self) {
        self.state.stop.store(true, Ordering::SeqCst);
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

impl Drop for ServerHandle {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_and_bidi_overrides_are_escaped_in_log_lines() {
        assert_eq!(
            escape_log_text("bad\nsession from 1.2.3.4: ok\r\x1b[2K"),
            "bad\\u{a}session from 1.2.3.4: ok\\u{d}\\u{1b}[2K"
        );
        assert_eq!(escape_log_text("a\u{202e}b"), "a\\u{202e}b");
        assert_eq!(escape_log_text("µs — ok"), "µs — ok");
    }

    #[test]
    fn ipv6_sources_count_per_64_and_mapped_ipv4_as_ipv4() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::2".parse().unwrap();
        assert_eq!(source_key(a), source_key(b));
        assert_eq!(
            source_key("::ffff:192.0.2.1".parse().unwrap()),
            "192.0.2.1".parse::<IpAddr>().unwrap()
        );
    }
}

//! `dualperf serve`: listens for control sessions on both families and
//! serves each on its own thread ([`session`]), with data sockets per test
//! ([`data`]).
//!
//! Listening: without `--bind`, one dual-stack socket on `[::]` with
//! `IPV6_V6ONLY` off serves both families (IPv4 clients appear as
//! IPv4-mapped addresses and are counted as IPv4); where that is impossible
//! it falls back to two sockets, `[::]` (IPv6 only) and `0.0.0.0`, on the
//! same port; on a host without IPv6 it listens on `0.0.0.0` alone.

pub mod data;
pub mod session;

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use dualperf_model::IpFamily;
use socket2::{Domain, Protocol, Socket, Type};

use crate::error::{IoContext, Result};
use crate::limits::ServerLimits;
use crate::protocol::{frame, message, Message};

/// Where log lines go (one line per session event).
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
    /// Shared key clients must prove (`--auth-key`); `None`: open.
    pub auth_key: Option<Vec<u8>>,
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
            log: None,
        }
    }
}

/// What every session thread shares.
pub(crate) struct SharedState {
    pub(crate) limits: ServerLimits,
    pub(crate) auth_key: Option<Vec<u8>>,
    pub(crate) boot_id: String,
    active_sessions: AtomicU32,
    stop: AtomicBool,
    log: Option<Logger>,
}

impl SharedState {
    /// Sessions being served right now, this one included.
    pub(crate) fn active_sessions(&self) -> u32 {
        self.active_sessions.load(Ordering::SeqCst)
    }

    fn log(&self, line: &str) {
        if let Some(log) = &self.log {
            log(line);
        }
    }
}

/// A bound server, not yet accepting.
pub struct Server {
    listeners: Vec<TcpListener>,
    state: Arc<SharedState>,
}

/// A server running on background threads; stops when dropped.
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
            limits: config.limits,
            auth_key: config.auth_key,
            boot_id: crate::clock::boot_id(),
            active_sessions: AtomicU32::new(0),
            stop: AtomicBool::new(false),
            log: config.log,
        });
        Ok(Server { listeners, state })
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

    /// Serves on background threads until the handle is stopped or dropped.
    pub fn spawn(self) -> ServerHandle {
        let port = self.port();
        let state = self.state.clone();
        let threads = self
            .listeners
            .into_iter()
            .map(|listener| {
                let state = self.state.clone();
                std::thread::Builder::new()
                    .name("dualperf-accept".into())
                    .spawn(move || accept_loop(listener, state))
                    .expect("spawning a thread only fails when the process is out of resources")
            })
            .collect();
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

/// Waits up to `timeout` for the listener to become readable.
fn wait_readable(listener: &TcpListener, timeout: Duration) -> bool {
    let mut poll = libc::pollfd {
        fd: listener.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd.
    unsafe { libc::poll(&mut poll, 1, timeout.as_millis() as libc::c_int) > 0 }
}

/// Decrements the session count even if a session thread unwinds.
struct SessionSlot(Arc<SharedState>);

impl Drop for SessionSlot {
    fn drop(&mut self) {
        self.0.active_sessions.fetch_sub(1, Ordering::SeqCst);
    }
}

fn accept_loop(listener: TcpListener, state: Arc<SharedState>) {
    while !state.stop.load(Ordering::SeqCst) {
        if !wait_readable(&listener, Duration::from_millis(200)) {
            continue;
        }
        let (stream, peer) = match listener.accept() {
            Ok(accepted) => accepted,
            Err(error) => {
                state.log(&format!("accept failed: {error}"));
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
        };
        let family = IpFamily::of(&peer.ip());
        let max = state.limits.max_sessions;
        if state.active_sessions.fetch_add(1, Ordering::SeqCst) >= max {
            state.active_sessions.fetch_sub(1, Ordering::SeqCst);
            state.log(&format!(
                "session from {peer} ({family}): refused, busy ({max} sessions running)"
            ));
            let _ = std::thread::Builder::new()
                .name("dualperf-busy".into())
                .spawn(move || refuse_busy(stream, max));
            continue;
        }
        let slot = SessionSlot(state.clone());
        let spawned = std::thread::Builder::new()
            .name(format!("dualperf-session-{peer}"))
            .spawn(move || {
                let state = slot.0.clone();
                state.log(&format!("session from {peer}: family {family}"));
                let end = session::serve(stream, peer, &state);
                match end.error {
                    None => state.log(&format!(
                        "session from {peer} ({family}): {} tests, closed by peer",
                        end.tests
                    )),
                    Some(error) => state.log(&format!(
                        "session from {peer} ({family}): ended after {} tests: {}",
                        end.tests,
                        crate::protocol::error_chain(&error)
                    )),
                }
                drop(slot);
            });
        if let Err(error) = spawned {
            state.log(&format!(
                "session from {peer}: cannot start a thread: {error}"
            ));
        }
    }
}

/// Reads the hello (so closing does not reset the connection before the
/// client reads the answer), answers "busy", and closes.
fn refuse_busy(mut stream: TcpStream, max: u32) {
    let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
    let _ = frame::read_frame(&mut stream);
    let busy = Message::Error {
        message: format!("server busy: {max} sessions already running; try again later"),
    };
    let _ = frame::write_frame(&mut stream, &message::encode(&busy));
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let _ = frame::read_frame(&mut stream);
}

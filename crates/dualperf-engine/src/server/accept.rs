//! The accept loop: one thread, non-blocking sockets and `poll(2)`, driving
//! a [`ServerHandshake`] per connection until it is admitted (then a
//! session thread takes the connection over) or closed.
//!
//! Why `poll` and not a pool of handshake threads: a connection that has
//! not finished its handshake has proved nothing, so it must cost as little
//! as possible — here one descriptor and a few KiB, no thread. With at most
//! [`ServerLimits::max_pending_handshakes`] (default 64) connections in the
//! set, `poll` over all of them is as cheap as epoll and needs no extra
//! descriptor or unsafe bookkeeping.
//!
//! Bounds, whatever peers do:
//!
//! - every handshake has one deadline (`--handshake-timeout`) from its
//!   arrival, authentication included;
//! - at most `max_pending_handshakes` connections are in the handshake, and
//!   at most `max_handshakes_per_source` from one source (an IPv4 address
//!   or an IPv6 /64); a newcomer beyond either limit pushes out the oldest
//!   of them (a slow-loris peer must keep opening connections faster than a
//!   legitimate handshake completes — milliseconds — to shut anyone out);
//! - a refusal (bad hello, wrong key, busy, timeout) is an error frame, then
//!   half a second at most of draining what the peer still sends, so that
//!   closing does not reset the connection before the peer reads why;
//! - handshake log lines are rate-limited (20 per second, then one summary),
//!   so a flood cannot flood the log;
//! - a failed authentication closes the source's gate for
//!   [`AUTH_FAILURE_DELAY`]: no answer to a challenge from that source (an
//!   IPv4 address or an IPv6 /64) is read meanwhile, on any of its
//!   connections, so guessing the key runs at one try per second per
//!   source however many connections it opens.
//!
//! [`ServerLimits::max_pending_handshakes`]: crate::limits::ServerLimits::max_pending_handshakes

use std::collections::{HashMap, VecDeque};
use std::io::{Read, Write};
use std::net::{IpAddr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use dualperf_model::IpFamily;

use super::log_budget::LogKind;
use super::{session, source_key, SessionSlot, SharedState};
use crate::protocol::handshake::{ServerAction, ServerHandshake};
use crate::protocol::Channel;

/// How long a refused connection may still send before it is closed.
const DRAIN: Duration = Duration::from_millis(500);
/// Most bytes drained from a refused connection.
const DRAIN_BYTES: usize = 64 * 1024;
/// Longest sleep in `poll`, so that a stop request is noticed.
const TICK: Duration = Duration::from_millis(200);
/// How long a source's answers to challenges wait after one of them failed.
pub const AUTH_FAILURE_DELAY: Duration = Duration::from_secs(1);
/// Handshake log lines per second before they are summarised.
const LOG_LINES_PER_SECOND: u32 = 20;

enum Phase {
    Handshake,
    /// Refused: flushing the error frame, then draining until `until`.
    Closing {
        until: Instant,
        shut: bool,
        drained: usize,
    },
}

struct Pending {
    stream: TcpStream,
    peer: SocketAddr,
    source: IpAddr,
    arrived: Instant,
    machine: ServerHandshake,
    out: Vec<u8>,
    phase: Phase,
    slot: Option<SessionSlot>,
}

/// Rate limit for handshake log lines.
struct LogBudget {
    window: Instant,
    used: u32,
    suppressed: u64,
}

impl LogBudget {
    fn log(&mut self, state: &SharedState, now: Instant, line: &str) {
        if now.duration_since(self.window) >= Duration::from_secs(1) {
            if self.suppressed > 0 {
                state.log(&format!(
                    "{} more handshake events in the last second not logged",
                    self.suppressed
                ));
            }
            (self.window, self.used, self.suppressed) = (now, 0, 0);
        }
        if self.used < LOG_LINES_PER_SECOND {
            self.used += 1;
            state.log(line);
        } else {
            self.suppressed += 1;
        }
    }
}

struct Acceptor {
    listeners: Vec<TcpListener>,
    state: Arc<SharedState>,
    pending: HashMap<u64, Pending>,
    next_id: u64,
    budget: LogBudget,
    /// Per source: when its answers to challenges are read again.
    auth_gates: HashMap<IpAddr, Instant>,
}

/// Runs the accept loop until the server is stopped.
pub(crate) fn run(listeners: Vec<TcpListener>, state: Arc<SharedState>) {
    for listener in &listeners {
        if let Err(error) = listener.set_nonblocking(true) {
            state.log(&format!("cannot make the listener non-blocking: {error}"));
            return;
        }
    }
    let mut acceptor = Acceptor {
        listeners,
        state,
        pending: HashMap::new(),
        next_id: 0,
        auth_gates: HashMap::new(),
        budget: LogBudget {
            window: Instant::now(),
            used: 0,
            suppressed: 0,
        },
    };
    while !acceptor.state.stop.load(Ordering::SeqCst) {
        acceptor.turn();
    }
}

impl Acceptor {
    /// One round: deadlines, `poll`, then whatever became ready.
    fn turn(&mut self) {
        let now = Instant::now();
        self.expire(now);
        let mut next = now + TICK;
        let mut fds: Vec<libc::pollfd> = self
            .listeners
            .iter()
            .map(|l| libc::pollfd {
                fd: l.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            })
            .collect();
        let mut ids = Vec::with_capacity(self.pending.len());
        for (&id, pending) in &self.pending {
            let mut events = 0;
            match pending.phase {
                Phase::Handshake => {
                    next = next.min(pending.machine.deadline());
                    match self.gated_until(pending, now) {
                        Some(until) => next = next.min(until),
                        None if pending.machine.wanted() > 0 => events |= libc::POLLIN,
                        None => {}
                    }
                }
                Phase::Closing { until, .. } => {
                    next = next.min(until);
                    events |= libc::POLLIN;
                }
            }
            if !pending.out.is_empty() {
                events |= libc::POLLOUT;
            }
            fds.push(libc::pollfd {
                fd: pending.stream.as_raw_fd(),
                events,
                revents: 0,
            });
            ids.push(id);
        }
        let wait = next.saturating_duration_since(Instant::now());
        let millis = wait.as_millis().clamp(1, TICK.as_millis()) as libc::c_int;
        // SAFETY: `fds` is a valid array of `fds.len()` pollfds that lives
        // across the call.
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, millis) };
        if ready <= 0 {
            return;
        }
        let listeners = self.listeners.len();
        for (index, fd) in fds[listeners..].iter().enumerate() {
            if fd.revents != 0 {
                self.service(ids[index], fd.revents);
            }
        }
        let readable: Vec<usize> = fds[..listeners]
            .iter()
            .enumerate()
            .filter(|(_, fd)| fd.revents != 0)
            .map(|(index, _)| index)
            .collect();
        for index in readable {
            self.accept_from(index);
        }
    }

    /// When `pending` waits with its answer to the challenge because its
    /// source failed one recently; `None`: it may go on.
    fn gated_until(&self, pending: &Pending, now: Instant) -> Option<Instant> {
        if !pending.machine.awaiting_authentication() {
            return None;
        }
        self.auth_gates
            .get(&pending.source)
            .copied()
            .filter(|&until| until > now)
    }

    /// Handshakes past their deadline fail; drains past theirs close.
    fn expire(&mut self, now: Instant) {
        self.auth_gates.retain(|_, until| *until > now);
        let mut due = Vec::new();
        for (&id, pending) in &self.pending {
            match pending.phase {
                Phase::Handshake if now >= pending.machine.deadline() => due.push(id),
                Phase::Closing { until, .. } if now >= until => due.push(id),
                _ => {}
            }
        }
        for id in due {
            let Some(pending) = self.pending.get_mut(&id) else {
                continue;
            };
            match pending.phase {
                Phase::Handshake => {
                    let actions = pending.machine.handle_timeout(now);
                    self.apply(id, actions);
                }
                Phase::Closing { .. } => {
                    self.pending.remove(&id);
                }
            }
        }
    }

    fn accept_from(&mut self, index: usize) {
        // A bounded batch per round, so the pending set is serviced too.
        for _ in 0..256 {
            let (stream, peer) = match self.listeners[index].accept() {
                Ok(accepted) => accepted,
                Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => return,
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(error) => {
                    // EMFILE and the like: say so, and let the next round
                    // retry a little later rather than spin.
                    let now = Instant::now();
                    self.budget
                        .log(&self.state, now, &format!("accept failed: {error}"));
                    std::thread::sleep(Duration::from_millis(50));
                    return;
                }
            };
            self.admit_connection(stream, peer);
        }
    }

    fn admit_connection(&mut self, stream: TcpStream, peer: SocketAddr) {
        let now = Instant::now();
        if stream.set_nonblocking(true).is_err() {
            return;
        }
        let _ = stream.set_nodelay(true);
        let source = source_key(peer.ip());
        let limits = &self.state.limits;
        let from_source: Vec<(Instant, u64)> = self
            .pending
            .iter()
            .filter(|(_, p)| p.source == source)
            .map(|(&id, p)| (p.arrived, id))
            .collect();
        let evict = if from_source.len() >= limits.max_handshakes_per_source as usize {
            from_source.iter().min().map(|&(_, id)| (id, "its source"))
        } else if self.pending.len() >= limits.max_pending_handshakes as usize {
            self.pending
                .iter()
                .map(|(&id, p)| (p.arrived, id))
                .min()
                .map(|(_, id)| (id, "the server"))
        } else {
            None
        };
        if let Some((id, whose)) = evict {
            if let Some(old) = self.pending.remove(&id) {
                self.budget.log(
                    &self.state,
                    now,
                    &format!(
                        "handshake from {}: dropped after {:.1} s, too many pending handshakes from {whose}",
                        old.peer,
                        now.duration_since(old.arrived).as_secs_f64()
                    ),
                );
            }
        }
        let id = self.next_id;
        self.next_id += 1;
        self.pending.insert(
            id,
            Pending {
                stream,
                peer,
                source,
                arrived: now,
                machine: ServerHandshake::new(now, self.state.handshake.timeout),
                out: Vec::new(),
                phase: Phase::Handshake,
                slot: None,
            },
        );
    }

    /// Reads, writes or drains one connection that `poll` found ready.
    fn service(&mut self, id: u64, revents: libc::c_short) {
        let now = Instant::now();
        let Some(pending) = self.pending.get_mut(&id) else {
            return;
        };
        if revents & libc::POLLOUT != 0 && !flush(pending) {
            self.pending.remove(&id);
            return;
        }
        let mut buffer = [0u8; 4096];
        match pending.phase {
            Phase::Handshake => {
                let wanted = pending.machine.wanted().min(buffer.len());
                if wanted == 0 || revents & (libc::POLLIN | libc::POLLHUP | libc::POLLERR) == 0 {
                    return;
                }
                let answering = pending.machine.awaiting_authentication();
                if answering
                    && self
                        .auth_gates
                        .get(&pending.source)
                        .is_some_and(|&until| until > now)
                {
                    return;
                }
                let actions = match pending.stream.read(&mut buffer[..wanted]) {
                    Ok(0) => pending.machine.handle_eof(now),
                    Ok(n) => {
                        let config = &self.state.handshake;
                        pending.machine.handle_bytes(now, &buffer[..n], config)
                    }
                    Err(e)
                        if matches!(
                            e.kind(),
                            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted
                        ) =>
                    {
                        return
                    }
                    Err(e) => {
                        let peer = pending.peer;
                        self.pending.remove(&id);
                        self.budget
                            .log(&self.state, now, &format!("handshake from {peer}: {e}"));
                        return;
                    }
                };
                if answering
                    && actions
                        .iter()
                        .any(|a| matches!(a, ServerAction::Close { .. }))
                {
                    let source = pending.source;
                    self.auth_gates.insert(source, now + AUTH_FAILURE_DELAY);
                }
                self.apply(id, actions);
            }
            Phase::Closing {
                ref mut drained, ..
            } => {
                if revents & (libc::POLLIN | libc::POLLHUP | libc::POLLERR) == 0 {
                    return;
                }
                match pending.stream.read(&mut buffer) {
                    Ok(0) => {
                        self.pending.remove(&id);
                    }
                    Ok(n) => {
                        *drained += n;
                        if *drained >= DRAIN_BYTES {
                            self.pending.remove(&id);
                        }
                    }
                    Err(e)
                        if matches!(
                            e.kind(),
                            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted
                        ) => {}
                    Err(_) => {
                        self.pending.remove(&id);
                    }
                }
            }
        }
    }

    /// Carries out what a handshake machine asked for.
    fn apply(&mut self, id: u64, actions: Vec<ServerAction>) {
        let mut queue: VecDeque<ServerAction> = actions.into();
        while let Some(action) = queue.pop_front() {
            let now = Instant::now();
            let Some(pending) = self.pending.get_mut(&id) else {
                return;
            };
            match action {
                ServerAction::Send(bytes) => {
                    pending.out.extend_from_slice(&bytes);
                    if !flush(pending) {
                        self.pending.remove(&id);
                        return;
                    }
                }
                ServerAction::Admit => {
                    let answer = match self.state.take_slot(pending.source) {
                        Ok(slot) => {
                            pending.slot = Some(slot);
                            Ok(())
                        }
                        Err(reason) => Err(reason),
                    };
                    let more = pending.machine.admit(answer, &self.state.handshake);
                    queue.extend(more);
                }
                ServerAction::Established {
                    authenticated,
                    leftover,
                } => {
                    if let Some(pending) = self.pending.remove(&id) {
                        start_session(pending, authenticated, leftover, &self.state);
                    }
                    return;
                }
                ServerAction::Close { reason } => {
                    let peer = pending.peer;
                    pending.phase = Phase::Closing {
                        until: now + DRAIN,
                        shut: false,
                        drained: 0,
                    };
                    if !flush(pending) {
                        self.pending.remove(&id);
                    }
                    self.budget.log(
                        &self.state,
                        now,
                        &format!("handshake from {peer}: refused: {reason}"),
                    );
                    return;
                }
            }
        }
    }
}

/// Writes what is queued without blocking; once a closing connection's
/// queue is empty, shuts its sending side. False when the connection is broken.
fn flush(pending: &mut Pending) -> bool {
    while !pending.out.is_empty() {
        match pending.stream.write(&pending.out) {
            Ok(0) => return false,
            Ok(n) => {
                pending.out.drain(..n);
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return true,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
    if let Phase::Closing { ref mut shut, .. } = pending.phase {
        if !*shut {
            *shut = true;
            let _ = pending.stream.shutdown(Shutdown::Write);
        }
    }
    true
}

/// Hands an admitted connection to a new session thread.
fn start_session(
    pending: Pending,
    authenticated: bool,
    leftover: Vec<u8>,
    state: &Arc<SharedState>,
) {
    let Pending {
        stream,
        peer,
        out,
        slot,
        ..
    } = pending;
    let Some(slot) = slot else {
        return;
    };
    let family = IpFamily::of(&peer.ip());
    let state = state.clone();
    let thread_state = state.clone();
    let spawned = std::thread::Builder::new()
        .name("dualperf-session".into())
        .spawn(move || {
            let state = thread_state;
            let _slot = slot;
            if stream.set_nonblocking(false).is_err() {
                return;
            }
            let mut channel = Channel::with_received(stream, leftover);
            channel.set_timeout(Some(state.limits.idle_timeout));
            if !out.is_empty() && channel.send_bytes(&out).is_err() {
                return;
            }
            state.log_event(
                LogKind::SessionStarted,
                &format!(
                    "session from {peer}: family {family}{}",
                    if authenticated { ", authenticated" } else { "" }
                ),
            );
            let end = session::serve(channel, peer, &state, authenticated);
            let moved = end
                .transfer_summary()
                .map(|moved| format!("; {moved}"))
                .unwrap_or_default();
            let line = match end.error {
                None => format!(
                    "session from {peer} ({family}): {} tests, closed by peer{moved}",
                    end.tests
                ),
                Some(error) => format!(
                    "session from {peer} ({family}): ended after {} tests: {}{moved}",
                    end.tests,
                    crate::protocol::error_chain(&error)
                ),
            };
            state.log_event(LogKind::SessionEnded, &line);
            state
                .sessions_ended
                .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        });
    if let Err(error) = spawned {
        state.log(&format!(
            "session from {peer}: cannot start a thread: {error}"
        ));
    }
}

//! One control session on the server, after its handshake: tests until
//! `bye`. Every way a session can end is returned as a [`SessionEnd`] so the
//! session thread logs one line per session; nothing here panics on input,
//! and anything malformed gets an error frame before the connection closes.

use std::net::SocketAddr;
use std::time::Duration;

use dualperf_model::{IpFamily, SocketFacts, TestSpec};

use super::data;
use super::SharedState;
use crate::endpoint::{self, is_stream_sender, Role};
use crate::error::{EngineError, Result};
use crate::host_facts::collect_host_facts;
use crate::protocol::{self, Channel, FrameError, Message, Ready, ServerReport, TestRequest};
use crate::sizes::validate_size;

/// How a session ended, for the log.
#[derive(Debug)]
pub struct SessionEnd {
    /// Tests completed in the session.
    pub tests: u32,
    /// The family of the control peer.
    pub family: IpFamily,
    /// `None` for a normal `bye`, otherwise the reason.
    pub error: Option<EngineError>,
    /// Application bytes the server received over the measured intervals
    /// of the completed tests.
    pub received_bytes: u64,
    /// Application bytes the server sent over those intervals.
    pub sent_bytes: u64,
    /// Sum of the completed tests' measured intervals, nanoseconds.
    pub measured_ns: u64,
}

impl SessionEnd {
    /// What the session moved, for its log line (as iperf3's server prints
    /// its summary): "received 12.5 MB, sent 0 B in 1.50 s measured
    /// (66.7 Mbit/s in, 0 Mbit/s out)"; `None` when no test completed.
    pub fn transfer_summary(&self) -> Option<String> {
        if self.tests == 0 {
            return None;
        }
        transfer_line(self.received_bytes, self.sent_bytes, self.measured_ns)
    }
}

/// "received 12500000 B, sent 0 B in 2.00 s measured (50.0 Mbit/s in, 0.0
/// Mbit/s out)": what the server moved, for its log and the client's
/// `--get-server-output`; `None` without a measured interval.
fn transfer_line(received_bytes: u64, sent_bytes: u64, measured_ns: u64) -> Option<String> {
    if measured_ns == 0 {
        return None;
    }
    let seconds = measured_ns as f64 / 1e9;
    let rate = |bytes: u64| bytes as f64 * 8.0 / seconds / 1e6;
    Some(format!(
        "received {received_bytes} B, sent {sent_bytes} B in {seconds:.2} s measured ({:.1} Mbit/s in, {:.1} Mbit/s out)",
        rate(received_bytes),
        rate(sent_bytes)
    ))
}

/// Serves one admitted control connection (its handshake done, its slot
/// taken) to its end.
pub(crate) fn serve(
    mut channel: Channel,
    peer: SocketAddr,
    state: &SharedState,
    authenticated: bool,
) -> SessionEnd {
    let family = IpFamily::of(&peer.ip());
    let mut end = SessionEnd {
        tests: 0,
        family,
        error: None,
        received_bytes: 0,
        sent_bytes: 0,
        measured_ns: 0,
    };
    loop {
        // Waiting for a request, the session holds a slot and does nothing:
        // it gets the handshake's short deadline, not the idle timeout (four
        // hello-only connections held every slot of an open server for
        // 30 s). A client sends its request right after the handshake.
        channel.set_timeout(Some(request_wait(state)));
        let body = match channel.receive_frame() {
            Ok(body) => body,
            Err(FrameError::Closed) => {
                end.error = Some(EngineError::Protocol(FrameError::Closed.to_string()));
                return end;
            }
            Err(error) => {
                // Oversized, timed out, truncated: say why if the peer still listens.
                let error = EngineError::Protocol(protocol::error_chain(&error));
                refuse(&mut channel, &error, state);
                end.error = Some(error);
                return end;
            }
        };
        let result = match protocol::message::decode(&body) {
            Ok(Message::Request(request)) => {
                run_test(&mut channel, request, peer, state, authenticated)
            }
            Ok(Message::Bye) => return end,
            Ok(Message::Error { message }) => {
                // The peer gave up and said why: nothing to answer.
                end.error = Some(EngineError::Refused(message));
                return end;
            }
            Ok(other) => Err(EngineError::Protocol(format!(
                "unexpected message `{}`",
                message_name(&other)
            ))),
            Err(malformed) => Err(EngineError::Protocol(malformed)),
        };
        match result {
            Ok(moved) => {
                end.tests += 1;
                end.received_bytes = end.received_bytes.saturating_add(moved.received_bytes);
                end.sent_bytes = end.sent_bytes.saturating_add(moved.sent_bytes);
                end.measured_ns = end.measured_ns.saturating_add(moved.measured_ns);
            }
            Err(error) => {
                refuse(&mut channel, &error, state);
                end.error = Some(error);
                return end;
            }
        }
    }
}

/// How long a session may wait for its next request: the handshake
/// timeout (default 5 s), or the idle timeout when that is shorter.
fn request_wait(state: &SharedState) -> Duration {
    state
        .limits
        .handshake_timeout
        .min(state.limits.idle_timeout)
}

/// Sends an error frame before the session closes, within a short time.
fn refuse(channel: &mut Channel, error: &EngineError, state: &SharedState) {
    channel.set_timeout(Some(
        state.limits.handshake_timeout.min(Duration::from_secs(5)),
    ));
    let _ = channel.send(&Message::Error {
        message: protocol::error_chain(error),
    });
    let _ = channel.stream().shutdown(std::net::Shutdown::Write);
}

fn message_name(message: &Message) -> String {
    let text = String::from_utf8_lossy(&protocol::message::encode(message)).into_owned();
    serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| v.get("type").and_then(|t| t.as_str()).map(str::to_string))
        .unwrap_or_default()
}

fn check_request(request: &TestRequest, seen: IpFamily, state: &SharedState) -> Result<()> {
    if request.family != seen {
        return Err(EngineError::InvalidTest(format!(
            "the client asked for {} but reached this server over {}",
            request.family, seen
        )));
    }
    state
        .limits
        .check(&request.spec)
        .map_err(EngineError::Refused)?;
    validate_size(request.spec.kind, seen, request.spec.size_bytes)
        .map_err(EngineError::InvalidTest)?;
    Ok(())
}

/// The server's notes, plus a warning when its CPU figure (getrusage of the
/// whole process) also covers other sessions that ran at the same time.
fn server_notes(
    outcome: &endpoint::EndOutcome,
    spec: &TestSpec,
    state: &SharedState,
) -> Vec<String> {
    let mut notes = outcome.notes(spec, "server");
    let sessions = state.active_sessions();
    if sessions > 1 {
        notes.push(format!(
            "server: CPU covers the whole server process, which served {sessions} sessions at the time"
        ));
    }
    notes
}

/// What one completed test moved, as the server measured it.
#[derive(Debug, Default, Clone, Copy)]
struct Moved {
    received_bytes: u64,
    sent_bytes: u64,
    measured_ns: u64,
}

fn run_test(
    channel: &mut Channel,
    request: TestRequest,
    peer: SocketAddr,
    state: &SharedState,
    authenticated: bool,
) -> Result<Moved> {
    let spec: TestSpec = request.spec.clone();
    let seen = IpFamily::of(&peer.ip());
    check_request(&request, seen, state)?;
    let peer_ip = peer.ip().to_canonical();
    let local_ip = channel
        .stream()
        .local_addr()
        .map_err(|e| EngineError::socket("reading the control socket's local address", e))?
        .ip()
        .to_canonical();
    let mut facts = SocketFacts {
        server_cpus: request.server_cpus.clone(),
        ..Default::default()
    };
    let mut marking_notes = Vec::new();
    let (bound, data_ports) = data::bind(
        &spec,
        local_ip,
        peer_ip,
        &request.marking,
        &mut facts,
        &mut marking_notes,
    )?;
    let token = u64::from_str_radix(&protocol::auth::new_challenge()[..16], 16).unwrap_or(1);
    channel.send(&Message::Ready(Ready {
        data_ports,
        token,
        seen_family: seen,
    }))?;
    channel.set_timeout(Some(state.limits.handshake_timeout));
    channel.expect("start", |m| matches!(m, Message::Start).then_some(()))?;
    let sockets = data::tie_to_peer(bound, &spec, peer_ip, token, &request.marking, &mut facts)?;
    let running = endpoint::start(&spec, Role::Server, sockets, &request.server_cpus);
    if let Err(error) = channel.send(&Message::Started) {
        running.halt();
        running.finish();
        return Err(error);
    }
    let schedule = Duration::from_millis(spec.warmup_ms.saturating_add(spec.duration_ms));
    channel.set_timeout(Some(schedule.saturating_add(state.limits.idle_timeout)));
    let stop = channel.expect("stop", |m| match m {
        Message::Stop(stop) => Some(stop),
        _ => None,
    });
    // The client's flows are over (or it is gone): responders and receivers
    // stop; a UDP receiver still drains until its socket is quiet.
    running.halt();
    let mut outcome = running.finish();
    let stop = stop?;
    // Whether clocks are shared is the client's call (it compares boot ids).
    let udp = outcome.finish_udp(&stop.sent_per_stream, false);
    let received = outcome.received(&spec, udp.as_ref());
    let report = ServerReport {
        seen_family: Some(seen),
        measured_ns: outcome.sampler.measured_ns,
        sent: outcome.sent(&spec, Role::Server),
        received,
        sent_per_stream: if is_stream_sender(&spec, Role::Server) {
            outcome.udp_sent_per_stream()
        } else {
            Vec::new()
        },
        intervals: outcome.sampler.intervals.clone(),
        udp,
        tcp: crate::flow::sum_tcp_counters(&outcome.flows),
        cpu: outcome.sampler.process_cpu,
        socket: facts,
        // Host facts only when this server shares them, and with a key set
        // only to a client that proved it.
        host: (request.want_host_facts
            && state.host_facts
            && (authenticated || state.handshake.auth_key.is_none()))
        .then(collect_host_facts),
        notes: {
            let mut notes = server_notes(&outcome, &spec, state);
            notes.extend(marking_notes);
            notes
        },
        errors: outcome.errors("server"),
        receive_buffer_drops: outcome.receive_buffer_drops(),
        pacer: outcome.pacer_schedule(),
        output: None,
    };
    let mut report = report;
    report.output = transfer_line(report.received.bytes, report.sent.bytes, report.measured_ns)
        .map(|moved| format!("test from {peer} ({seen}): {moved}"));
    let moved = Moved {
        received_bytes: report.received.bytes,
        sent_bytes: report.sent.bytes,
        measured_ns: report.measured_ns,
    };
    channel.set_timeout(Some(state.limits.idle_timeout));
    channel.send(&Message::Results(Box::new(report)))?;
    Ok(moved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_summary_gives_bytes_time_and_rates_and_none_without_a_test() {
        let mut end = SessionEnd {
            tests: 0,
            family: IpFamily::V6,
            error: None,
            received_bytes: 0,
            sent_bytes: 0,
            measured_ns: 0,
        };
        assert_eq!(end.transfer_summary(), None);
        end.tests = 2;
        end.received_bytes = 12_500_000;
        end.measured_ns = 2_000_000_000;
        assert_eq!(
            end.transfer_summary().as_deref(),
            Some(
                "received 12500000 B, sent 0 B in 2.00 s measured (50.0 Mbit/s in, 0.0 Mbit/s out)"
            )
        );
    }
}

//! tcp-connect: connection setup time, `connect()` start to established
//! (the client's SYN → SYN-ACK → ACK), one connection after another.
//!
//! The client closes each connection with an abortive close (`SO_LINGER`
//! 0, a RST) so thousands of connections do not pile up in TIME_WAIT and
//! exhaust ephemeral ports; the socket is created before the clock starts,
//! so only `connect()` is timed.

use std::net::{IpAddr, SocketAddr, TcpListener};
use std::time::{Duration, Instant};

use socket2::{Domain, Protocol, SockAddr, Socket, Type};

use super::{is_timeout, FlowContext, FlowOutput, LATENCY_RAW_LIMIT};
use crate::latency_recorder::LatencyRecorder;
use crate::meter::Stage;
use crate::socket_options::{apply_marking, with_flow_label};
use std::os::fd::AsRawFd;

/// Connects to `target` over and over until the phase is done, each
/// connection from `source` when given (`-B`).
pub fn connect_repeatedly(
    target: SocketAddr,
    marking: dualperf_model::Marking,
    source: Option<std::net::IpAddr>,
    context: FlowContext,
) -> FlowOutput {
    let mut recorder = LatencyRecorder::new(LATENCY_RAW_LIMIT);
    let mut output = FlowOutput::default();
    let family = dualperf_model::IpFamily::of(&target.ip());
    let label = match family {
        dualperf_model::IpFamily::V6 => marking.flow_label.map(|l| l.value()),
        dualperf_model::IpFamily::V4 => None,
    };
    let address = SockAddr::from(with_flow_label(target, label));
    loop {
        let stage = context.phase.get();
        if stage == Stage::Done || Instant::now() >= context.deadline {
            break;
        }
        let socket = match Socket::new(
            Domain::for_address(target),
            Type::STREAM,
            Some(Protocol::TCP),
        ) {
            Ok(socket) => socket,
            Err(error) => {
                output.error = Some(format!("tcp-connect socket(): {error}"));
                break;
            }
        };
        if let Err(error) = apply_marking(socket.as_raw_fd(), family, &marking, Some(target.ip())) {
            output.error = Some(format!("tcp-connect marking: {error}"));
            break;
        }
        if let Err(error) = crate::tuning::bind_source(&socket, source) {
            output.error = Some(format!("tcp-connect: {error}"));
            break;
        }
        let started = Instant::now();
        let result = socket.connect_timeout(&address, Duration::from_secs(3));
        let elapsed = started.elapsed().as_nanos() as u64;
        match result {
            Ok(()) => {
                context.meter.add_sent(0, 1);
                // A connection counts in the interval it completed in: a SYN
                // dropped in the warm-up and retransmitted a second later is
                // a 1 s setup time in the measured interval, not nothing.
                if stage == Stage::Measured || context.phase.get() == Stage::Measured {
                    recorder.record(elapsed);
                    context.meter.add_latency(elapsed);
                }
                let _ = socket.set_linger(Some(Duration::ZERO));
            }
            Err(error) if error.kind() == std::io::ErrorKind::TimedOut => output.lost += 1,
            Err(error) => {
                output.error = Some(format!("tcp-connect to {target}: {error}"));
                break;
            }
        }
    }
    if output.error.is_none() && recorder.count() == 0 && context.phase.get() != Stage::Warmup {
        // Nothing measured is not a measurement: say why instead of
        // reporting a trial with no connections as if it were fine.
        output.error = Some(format!(
            "tcp-connect to {target}: no connection was established in the measured interval \
             ({} attempts timed out; the machine may have starved the client)",
            output.lost
        ));
    }
    output.latency = Some(recorder);
    output
}

/// Accepts connections on `listener` and closes them at once, until a
/// halt or the deadline. Connections from any address but `peer` are
/// counted as refused and closed.
pub fn accept_repeatedly(listener: TcpListener, peer: IpAddr, context: FlowContext) -> FlowOutput {
    let mut output = FlowOutput::default();
    if let Err(error) = listener.set_nonblocking(true) {
        output.error = Some(format!("tcp-connect listener: {error}"));
        return output;
    }
    let mut foreign = 0u64;
    while !context.phase.is_halted() && Instant::now() < context.deadline {
        match listener.accept() {
            Ok((stream, from)) => {
                if from.ip().to_canonical() == peer {
                    context.meter.add_received(0, 1);
                } else {
                    foreign += 1;
                }
                drop(stream);
            }
            Err(error) if is_timeout(&error) => std::thread::sleep(Duration::from_micros(200)),
            Err(error) if error.raw_os_error() == Some(libc::ECONNABORTED) => {}
            Err(error) => {
                output.error = Some(format!("tcp-connect accept: {error}"));
                break;
            }
        }
    }
    if foreign > 0 {
        output.note = Some(format!(
            "tcp-connect: refused {foreign} connections from other addresses"
        ));
    }
    output
}

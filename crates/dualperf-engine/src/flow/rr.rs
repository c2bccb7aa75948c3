//! tcp-rr and udp-rr: request/response ping-pong with request and response
//! of the same size (as in the seed papers). The client times every
//! transaction with the monotonic clock, from before the send to after the
//! whole response arrived; the responder echoes.
//!
//! A udp-rr request carries its sequence number in its first 8 bytes; a
//! response that does not come back within [`UDP_ANSWER_WAIT`] counts as a
//! lost transaction and the client moves on.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream, UdpSocket};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use super::{is_timeout, FlowContext, FlowOutput, LATENCY_RAW_LIMIT};
use crate::datagram::{read_hello, HELLO_BYTES};
use crate::meter::Stage;
use crate::latency_recorder::LatencyRecorder;
use crate::tcp_info::read_tcp_counters;

/// How long a udp-rr client waits for a response before counting it lost.
pub const UDP_ANSWER_WAIT: Duration = Duration::from_secs(1);

/// Fills `buffer` from `stream`, tolerating read timeouts until a halt or
/// the deadline. Returns `Ok(false)` on a clean end of stream before any byte.
fn read_full(stream: &mut TcpStream, buffer: &mut [u8], context: &FlowContext) -> io::Result<bool> {
    let mut filled = 0;
    while filled < buffer.len() {
        match stream.read(&mut buffer[filled..]) {
            Ok(0) if filled == 0 => return Ok(false),
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => filled += n,
            Err(e) if is_timeout(&e) => {
                if context.phase.is_halted() || Instant::now() >= context.deadline {
                    return Err(io::ErrorKind::TimedOut.into());
                }
            }
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

/// Client side of tcp-rr: one transaction after another until the phase is done.
pub fn tcp_request(mut stream: TcpStream, size: usize, context: FlowContext) -> FlowOutput {
    let _ = stream.set_nodelay(true);
    let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
    let request = vec![0x52_u8; size];
    let mut response = vec![0u8; size];
    let mut recorder = LatencyRecorder::new(LATENCY_RAW_LIMIT);
    let mut output = FlowOutput::default();
    loop {
        let stage = context.phase.get();
        if stage == Stage::Done || Instant::now() >= context.deadline {
            break;
        }
        let started = Instant::now();
        let result = stream
            .write_all(&request)
            .and_then(|_| read_full(&mut stream, &mut response, &context));
        let elapsed = started.elapsed().as_nanos() as u64;
        match result {
            Ok(true) => {}
            Ok(false) => {
                output.error = Some("tcp-rr: the responder closed the connection".into());
                break;
            }
            Err(error) => {
                output.error = Some(format!("tcp-rr transaction: {error}"));
                break;
            }
        }
        context.meter.add_sent(size as u64, 1);
        context.meter.add_received(size as u64, 1);
        if stage == Stage::Measured {
            recorder.record(elapsed);
            context.meter.add_latency(elapsed);
        }
    }
    output.tcp = read_tcp_counters(stream.as_raw_fd()).ok();
    let _ = stream.shutdown(Shutdown::Both);
    output.latency = Some(recorder);
    output
}

/// Responder side of tcp-rr: echoes `size`-byte requests until end of stream or a halt.
pub fn tcp_respond(mut stream: TcpStream, size: usize, context: FlowContext) -> FlowOutput {
    let _ = stream.set_nodelay(true);
    let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
    let mut buffer = vec![0u8; size];
    let mut output = FlowOutput::default();
    loop {
        match read_full(&mut stream, &mut buffer, &context) {
            Ok(true) => {}
            Ok(false) => break,
            Err(error) => {
                if !context.phase.is_halted() && Instant::now() < context.deadline {
                    output.error = Some(format!("tcp-rr responder: {error}"));
                }
                break;
            }
        }
        context.meter.add_received(size as u64, 1);
        if let Err(error) = stream.write_all(&buffer) {
            output.error = Some(format!("tcp-rr responder write: {error}"));
            break;
        }
        context.meter.add_sent(size as u64, 1);
    }
    output
}

/// Client side of udp-rr on a connected socket.
pub fn udp_request(socket: UdpSocket, size: usize, context: FlowContext) -> FlowOutput {
    let _ = socket.set_read_timeout(Some(Duration::from_millis(100)));
    let mut request = vec![0x55_u8; size];
    let mut response = vec![0u8; size.max(8) + 1];
    let mut recorder = LatencyRecorder::new(LATENCY_RAW_LIMIT);
    let mut output = FlowOutput::default();
    let mut sequence = 0u64;
    'transactions: loop {
        let stage = context.phase.get();
        if stage == Stage::Done || Instant::now() >= context.deadline {
            break;
        }
        sequence += 1;
        request[..8].copy_from_slice(&sequence.to_be_bytes());
        let started = Instant::now();
        if let Err(error) = socket.send(&request) {
            output.error = Some(format!("udp-rr send: {error}"));
            break;
        }
        context.meter.add_sent(size as u64, 1);
        loop {
            match socket.recv(&mut response) {
                Ok(n) if n >= 8 && response[..8] == sequence.to_be_bytes() => break,
                Ok(_) => continue, // a late answer to an earlier request
                Err(e) if is_timeout(&e) => {
                    if started.elapsed() >= UDP_ANSWER_WAIT {
                        output.lost += 1;
                        continue 'transactions;
                    }
                    if context.phase.is_halted() {
                        break 'transactions;
                    }
                }
                Err(error) => {
                    output.error = Some(format!("udp-rr receive: {error}"));
                    break 'transactions;
                }
            }
        }
        let elapsed = started.elapsed().as_nanos() as u64;
        context.meter.add_received(size as u64, 1);
        if stage == Stage::Measured {
            recorder.record(elapsed);
            context.meter.add_latency(elapsed);
        }
    }
    output.latency = Some(recorder);
    output
}

/// Responder side of udp-rr on a socket connected to the client: echoes
/// every datagram until a halt or the deadline.
pub fn udp_respond(socket: UdpSocket, size: usize, context: FlowContext) -> FlowOutput {
    let _ = socket.set_read_timeout(Some(Duration::from_millis(100)));
    let mut buffer = vec![0u8; size.max(HELLO_BYTES)];
    let mut output = FlowOutput::default();
    while !context.phase.is_halted() && Instant::now() < context.deadline {
        match socket.recv(&mut buffer) {
            Ok(n) if n == HELLO_BYTES && read_hello(&buffer[..n]).is_some() => {} // spare hello
            Ok(n) => {
                context.meter.add_received(n as u64, 1);
                match socket.send(&buffer[..n]) {
                    Ok(_) => context.meter.add_sent(n as u64, 1),
                    Err(error) => {
                        output.error = Some(format!("udp-rr responder send: {error}"));
                        break;
                    }
                }
            }
            Err(e) if is_timeout(&e) || e.raw_os_error() == Some(libc::ECONNREFUSED) => {}
            Err(error) => {
                output.error = Some(format!("udp-rr responder receive: {error}"));
                break;
            }
        }
    }
    output
}

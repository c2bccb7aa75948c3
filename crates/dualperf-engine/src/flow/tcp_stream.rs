//! tcp-stream: bulk transfer. The sender writes one reusable buffer of the
//! application write size until the phase is done, reads TCP_INFO, then
//! shuts its side down; the receiver reads until end of stream. A halted
//! sender closes abortively instead, discarding what it has not sent. With
//! a send budget the sender stops once its share is written.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use super::{is_timeout, FlowContext, FlowOutput};
use crate::meter::Stage;
use crate::tcp_info::read_tcp_counters;

/// Read size of the receiver, bytes: large reads keep syscalls out of the way.
const READ_BYTES: usize = 128 * 1024;

/// Writes `write_bytes`-sized buffers until the phase is done.
pub fn send(mut stream: TcpStream, write_bytes: usize, context: FlowContext) -> FlowOutput {
    let buffer = vec![0x5a_u8; write_bytes.max(1)];
    // A write blocked on a full window must still notice the end.
    let _ = stream.set_write_timeout(Some(Duration::from_millis(200)));
    let mut output = FlowOutput::default();
    // A send budget counts the bytes of whole writes of the measured
    // interval; the last write is cut to what is left.
    let mut budget_left = context
        .budget_blocks
        .map(|blocks| blocks.saturating_mul(buffer.len() as u64));
    while context.phase.get() != Stage::Done && Instant::now() < context.deadline {
        let measured = context.phase.get() == Stage::Measured;
        let chunk = match (budget_left, measured) {
            (Some(0), true) => {
                context.phase.sender_spent();
                break;
            }
            (Some(left), true) => &buffer[..(left.min(buffer.len() as u64) as usize)],
            _ => &buffer[..],
        };
        match stream.write(chunk) {
            Ok(0) => break,
            Ok(written) => {
                context.meter.add_sent(written as u64, 1);
                if let (Some(left), true) = (budget_left.as_mut(), measured) {
                    *left = left.saturating_sub(written as u64);
                    *output.budget_sent_bytes.get_or_insert(0) += written as u64;
                }
            }
            Err(error) if is_timeout(&error) => continue,
            // The receiver closed with data unread (it was halted before
            // this end): the peer's own report says whether it failed.
            Err(error)
                if matches!(
                    error.kind(),
                    std::io::ErrorKind::ConnectionReset | std::io::ErrorKind::BrokenPipe
                ) =>
            {
                output.note = Some(format!(
                    "tcp-stream send: the receiver closed first ({error})"
                ));
                break;
            }
            Err(error) => {
                if !context.phase.is_halted() {
                    output.error = Some(format!("tcp-stream send: {error}"));
                }
                break;
            }
        }
    }
    output.tcp = read_tcp_counters(stream.as_raw_fd()).ok();
    if context.phase.is_halted() {
        // A halted flow (a competing load whose measured trial ended) must
        // stop at once: a graceful close would keep flushing the send
        // buffer — megabytes, seconds on a 10 Mbit/s bottleneck — into the
        // next trial. An abortive close (`SO_LINGER` 0) discards it and
        // resets the connection.
        let _ = socket2::SockRef::from(&stream).set_linger(Some(Duration::ZERO));
        return output;
    }
    let _ = stream.shutdown(Shutdown::Write);
    // Wait for the receiver to close so the final bytes are acknowledged.
    let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
    let mut sink = [0u8; 64];
    let drain_until = Instant::now() + Duration::from_secs(2);
    while Instant::now() < drain_until && !context.phase.is_halted() {
        match stream.read(&mut sink) {
            Ok(0) => break,
            Ok(_) => {}
            Err(error) if is_timeout(&error) => {}
            Err(_) => break,
        }
    }
    output
}

/// Reads until end of stream, a halt, or the deadline.
pub fn receive(mut stream: TcpStream, context: FlowContext) -> FlowOutput {
    let mut buffer = vec![0u8; READ_BYTES];
    let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
    let mut output = FlowOutput::default();
    while !context.phase.is_halted() && Instant::now() < context.deadline {
        match stream.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => context.meter.add_received(read as u64, 1),
            Err(error) if is_timeout(&error) => continue,
            // The sender's abortive close (a halted load, see `send`) ends
            // the stream like a FIN; a sender that really failed reports
            // its own error and fails the trial from its side.
            Err(error) if error.kind() == std::io::ErrorKind::ConnectionReset => {
                output.note = Some(
                    "tcp-stream receive: the sender reset the connection (an abortive close)"
                        .into(),
                );
                break;
            }
            Err(error) => {
                output.error = Some(format!("tcp-stream receive: {error}"));
                break;
            }
        }
    }
    // Closing tells a waiting sender that everything arrived.
    let _ = stream.shutdown(Shutdown::Both);
    output
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meter::{FlowMeter, Phase};
    use std::net::TcpListener;
    use std::sync::Arc;

    fn context(phase: &Arc<Phase>) -> FlowContext {
        FlowContext {
            phase: phase.clone(),
            meter: Arc::new(FlowMeter::default()),
            cpus: Vec::new(),
            deadline: Instant::now() + Duration::from_secs(10),
            budget_blocks: None,
        }
    }

    /// A halted sender (a competing load whose trial ended) discards what
    /// it has not sent: the peer sees a reset, not the rest of the stream,
    /// and the receiver ends quietly with a note instead of failing.
    #[test]
    fn a_halted_sender_resets_instead_of_flushing_and_the_receiver_ends_without_error() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let sender = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (receiver, _) = listener.accept().unwrap();
        // A receiver that does not read yet: the sender's buffers fill.
        let phase = Arc::new(Phase::default());
        phase.set(Stage::Measured);
        let sending = {
            let context = context(&phase);
            std::thread::spawn(move || send(sender, 64 * 1024, context))
        };
        std::thread::sleep(Duration::from_millis(300));
        phase.halt();
        let started = Instant::now();
        let output = sending.join().unwrap();
        assert!(output.error.is_none(), "{:?}", output.error);
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "a halted sender returned after {:?}",
            started.elapsed()
        );
        // The receiver reads what was already delivered, then the reset.
        let receiving = Arc::new(Phase::default());
        let output = receive(receiver, context(&receiving));
        assert!(output.error.is_none(), "{:?}", output.error);
        assert!(
            output.note.as_deref().is_some_and(|n| n.contains("reset")),
            "{:?}",
            output.note
        );
    }
}

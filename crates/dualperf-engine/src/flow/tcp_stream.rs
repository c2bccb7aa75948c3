//! tcp-stream: bulk transfer. The sender writes one reusable buffer of the
//! application write size until the phase is done, reads TCP_INFO, then
//! shuts its side down; the receiver reads until end of stream. A halted
//! sender closes abortively instead, discarding what it has not sent. With
//! a send budget the sender stops once its share is written.
//! Both ends let the sampler count, for the interval series, what their
//! socket says crossed the path ([`crate::meter::carried`]).

use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use super::{is_timeout, FlowContext, FlowOutput};
use crate::meter::{ArrivalSeries, CarriedBy, Stage};
use crate::socket_options::enable_receive_timestamps;
use crate::tcp_info::read_tcp_counters;

/// Largest read of the receiver, bytes: large reads keep syscalls out of the way.
const READ_BYTES: usize = 128 * 1024;
/// Smallest read of the receiver, bytes.
const MIN_READ_BYTES: usize = 1024;
/// Arrival time one read should span at most, nanoseconds: its bytes are
/// spread over the span between stamps (crate::meter::arrivals), so a read
/// sized to the flow's rate × 2 ms keeps that spread at a 25th of a 50 ms
/// interval however late the thread runs. That is some 500 reads a second
/// at any rate below the largest read's (128 KiB per 2 ms: 524 Mbit/s);
/// at 10 Mbit/s a read is 2.5 kB.
const READ_SPAN_NS: u64 = 2_000_000;
/// Stamp time over which the flow's rate is measured for the read size, ns.
const RATE_WINDOW_NS: i64 = 100_000_000;

/// The read size for a flow receiving `bytes` in `span_ns` of stamps.
fn read_size(bytes: u64, span_ns: u64) -> usize {
    let size = u128::from(bytes) * u128::from(READ_SPAN_NS) / u128::from(span_ns.max(1));
    usize::try_from(size)
        .unwrap_or(READ_BYTES)
        .clamp(MIN_READ_BYTES, READ_BYTES)
}

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
    // The interval series count what the receiver acknowledged: written
    // bytes sit in the send buffer long before they cross the path.
    let carried = context
        .meter
        .count_carried(&stream, CarriedBy::Acknowledged);
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
    // The sampler is done with the socket (it ends before the phase does);
    // the close below must be this flow's own.
    drop(carried);
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
pub fn receive(stream: TcpStream, context: FlowContext) -> FlowOutput {
    let mut buffer = vec![0u8; READ_BYTES];
    let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
    let mut output = FlowOutput::default();
    // The interval series count bytes when they arrived, not when a read
    // that was late took them: by the kernel's stamp of each read's newest
    // segment (crate::meter::arrivals), else by the socket's own count of
    // bytes arrived (crate::meter::carried).
    let stamped = enable_receive_timestamps(stream.as_raw_fd()).is_ok();
    let carried = context.meter.count_carried(&stream, CarriedBy::Arrived);
    let (mut arrivals, mut unstamped): (Option<ArrivalSeries>, u64) = (None, 0);
    let mut newest_stamp: Option<i64> = None;
    // (first stamp, bytes since) of the rate window, and the read size.
    let (mut window, mut size): ((Option<i64>, u64), usize) = ((None, 0), READ_BYTES);
    while !context.phase.is_halted() && Instant::now() < context.deadline {
        match read_stamped(&stream, &mut buffer[..size]) {
            Ok((0, _)) => break,
            Ok((read, stamp)) => {
                context.meter.add_received(read as u64, 1);
                match (stamp, context.phase.grid()) {
                    (Some(stamp), Some(grid)) => arrivals
                        .get_or_insert_with(|| ArrivalSeries::new(grid))
                        .add_read(newest_stamp, stamp, read as u64),
                    (None, Some(_)) => unstamped += 1,
                    (_, None) => {}
                }
                newest_stamp = newest_stamp.max(stamp);
                if let Some(stamp) = stamp {
                    match window {
                        (Some(first), bytes) if stamp - first >= RATE_WINDOW_NS => {
                            size = read_size(bytes + read as u64, (stamp - first) as u64);
                            window = (Some(stamp), 0);
                        }
                        (Some(first), bytes) => window = (Some(first), bytes + read as u64),
                        (None, _) => window = (Some(stamp), 0),
                    }
                }
            }
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
    drop(carried);
    output.arrivals = arrivals.filter(|_| stamped && unstamped == 0);
    if !stamped || unstamped > 0 {
        output.note = Some(format!(
            "tcp-stream receive: {unstamped} reads without a kernel receive stamp (SO_TIMESTAMPNS {}): the interval series count reads",
            if stamped { "on" } else { "refused" }
        ));
    }
    // Closing tells a waiting sender that everything arrived.
    let _ = stream.shutdown(Shutdown::Both);
    output
}

/// One `recvmsg(2)` into `buffer`: the bytes read and the kernel's
/// `SO_TIMESTAMPNS` stamp of the newest segment they came from (CLOCK_REALTIME
/// ns), if it attached one.
fn read_stamped(stream: &TcpStream, buffer: &mut [u8]) -> std::io::Result<(usize, Option<i64>)> {
    let mut iovec = libc::iovec {
        iov_base: buffer.as_mut_ptr().cast(),
        iov_len: buffer.len(),
    };
    // Room for SCM_TIMESTAMPNS (32 bytes) and more.
    let mut control = [0u64; 8];
    // SAFETY: msghdr is plain data; zeroed is a valid empty header.
    let mut header: libc::msghdr = unsafe { std::mem::zeroed() };
    header.msg_iov = &mut iovec;
    header.msg_iovlen = 1;
    header.msg_control = control.as_mut_ptr().cast();
    header.msg_controllen = std::mem::size_of_val(&control);
    // SAFETY: every pointer in `header` refers to locals that outlive the call.
    let read = unsafe { libc::recvmsg(stream.as_raw_fd(), &mut header, 0) };
    if read < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let (stamp, _) = super::udp_stream::control_messages(&header);
    Ok((read as usize, stamp))
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

    #[test]
    fn reads_span_about_2_ms_of_the_flows_rate() {
        // 10 Mbit/s: 1.25 MB in 1 s, 2500 B per 2 ms.
        assert_eq!(read_size(1_250_000, 1_000_000_000), 2_500);
        assert_eq!(read_size(1_000, 1_000_000_000), MIN_READ_BYTES);
        assert_eq!(read_size(u64::MAX, 1), READ_BYTES);
        assert_eq!(read_size(10, 0), READ_BYTES);
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

//! udp-stream: datagrams with a sequence number and a send timestamp, sent
//! in batches with `sendmmsg(2)` and received in batches with `recvmmsg(2)`.
//!
//! The sender reads CLOCK_REALTIME once per batch and stamps every datagram
//! of the batch with it; at a target rate it paces batches against the
//! monotonic clock; with a send budget it stops after its share of
//! measured datagrams. The receiver takes the kernel's receive timestamp of
//! each datagram (`SO_TIMESTAMPNS`, CLOCK_REALTIME) where available, and
//! feeds sequence and times to the sequence tracker: no statistics here.

use std::net::UdpSocket;
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use super::{FlowContext, FlowOutput, ARRIVALS_LIMIT, LOSS_WAIT_MS, QUIET};
use crate::clock::realtime_ns;
use crate::datagram::{read_header, read_hello, write_header, Header, FLAG_WARMUP, HELLO_BYTES};
use crate::meter::{ArrivalSeries, Stage};
use crate::pacer::{default_burst, Pacer};
use crate::sequence_tracker::SequenceTracker;
use crate::socket_options::enable_receive_timestamps;

/// Datagrams per `sendmmsg` / `recvmmsg` call.
pub const BATCH: usize = 64;

/// Sends `payload_bytes` datagrams on a connected socket until the phase is
/// done, at `rate_bps` payload bits per second or unlimited.
pub fn send(
    socket: UdpSocket,
    payload_bytes: usize,
    rate_bps: Option<u64>,
    context: FlowContext,
) -> FlowOutput {
    let fd = socket.as_raw_fd();
    // Unlimited: batches as large as possible. Paced: a token bucket whose
    // burst (1 ms of traffic, 2 to 64 datagrams) bounds every batch, so a
    // stalled sender never catches up with a burst (crate::pacer).
    let clock = Instant::now();
    let elapsed_ns = || clock.elapsed().as_nanos() as u64;
    let mut pacer = rate_bps.map(|bps| {
        let interval_ns = (payload_bytes.max(1) as f64 * 8.0 * 1e9 / bps.max(1) as f64).max(1.0);
        Pacer::new(bps, payload_bytes, default_burst(interval_ns), 0)
    });
    let batch = BATCH;
    let mut buffers = vec![vec![0u8; payload_bytes]; batch];
    let mut iovecs: Vec<libc::iovec> = buffers
        .iter_mut()
        .map(|b| libc::iovec {
            iov_base: b.as_mut_ptr().cast(),
            iov_len: b.len(),
        })
        .collect();
    // SAFETY: mmsghdr is plain data; zero is a valid "no name, no control".
    let mut messages: Vec<libc::mmsghdr> = vec![unsafe { std::mem::zeroed() }; batch];
    for (message, iovec) in messages.iter_mut().zip(iovecs.iter_mut()) {
        message.msg_hdr.msg_iov = iovec;
        message.msg_hdr.msg_iovlen = 1;
    }
    let mut output = FlowOutput::default();
    let (mut warmup_sequence, mut measured_sequence) = (0u64, 0u64);
    loop {
        let stage = context.phase.get();
        if stage == Stage::Done || Instant::now() >= context.deadline {
            break;
        }
        // A send budget bounds the measured datagrams; once this stream's
        // share is out it stops and tells the phase.
        let budget_left = match (stage, context.budget_blocks) {
            (Stage::Measured, Some(blocks)) => {
                let left = blocks.saturating_sub(measured_sequence);
                if left == 0 {
                    context.phase.sender_spent();
                    break;
                }
                Some(left)
            }
            _ => None,
        };
        let wanted = budget_left.map_or(batch, |left| batch.min(left as usize));
        let granted = match pacer.as_mut().map(|p| p.grant(elapsed_ns(), wanted)) {
            None => wanted,
            Some(Ok(granted)) => granted,
            Some(Err(wait)) => {
                std::thread::sleep(wait);
                continue; // the phase may have changed while asleep
            }
        };
        let (first, flags) = match stage {
            Stage::Warmup => (warmup_sequence, FLAG_WARMUP),
            _ => (measured_sequence, 0),
        };
        let sent_ns = realtime_ns();
        for (index, buffer) in buffers.iter_mut().enumerate() {
            write_header(
                buffer,
                Header {
                    sequence: first + index as u64,
                    sent_ns,
                    flags,
                },
            );
        }
        // SAFETY: messages point at iovecs and buffers that live and do not
        // move for the whole loop; batch <= messages.len().
        let sent = unsafe { libc::sendmmsg(fd, messages.as_mut_ptr(), granted as u32, 0) };
        if sent < 0 {
            let error = std::io::Error::last_os_error();
            match error.raw_os_error() {
                // Full queue: the kernel tells us to slow down, nothing was sent.
                Some(libc::ENOBUFS) | Some(libc::EAGAIN) | Some(libc::EINTR) => {
                    if let Some(pacer) = pacer.as_mut() {
                        pacer.refund(granted);
                    }
                    std::thread::yield_now();
                    continue;
                }
                _ => {
                    if !context.phase.is_halted() {
                        output.error = Some(format!("udp-stream sendmmsg: {error}"));
                    }
                    break;
                }
            }
        }
        if let Some(pacer) = pacer.as_mut() {
            pacer.refund(granted - sent as usize);
        }
        let sent = sent as u64;
        match flags {
            FLAG_WARMUP => warmup_sequence += sent,
            _ => measured_sequence += sent,
        }
        context.meter.add_sent(sent * payload_bytes as u64, sent);
    }
    output.udp_sent = measured_sequence;
    if let Some(pacer) = &pacer {
        output.pacer = Some(dualperf_model::PacerSchedule {
            longest_stall_ns: pacer.longest_gap_ns(),
            owed_datagrams: pacer.debt_packets(),
            sent_datagrams: measured_sequence,
        });
        // A stall longer than ~2 ms is worth knowing: the rate dipped and was
        // made up at most 10 % faster afterwards (crate::pacer).
        if pacer.longest_gap_ns() > 2_000_000 || pacer.debt_packets() > 0 {
            output.note = Some(format!(
                "pacing: the sending thread stalled for up to {:.1} ms and caught up at most \
                 {:.0} % above the rate; {} datagrams still owed at the end",
                pacer.longest_gap_ns() as f64 / 1e6,
                crate::pacer::CATCH_UP_RATIO * 100.0,
                pacer.debt_packets()
            ));
        }
    }
    output
}

/// Receives until the phase is done and the socket has been quiet for
/// [`QUIET`] (or [`LOSS_WAIT_MS`] passed), recording every measured datagram.
pub fn receive(socket: UdpSocket, payload_bytes: usize, context: FlowContext) -> FlowOutput {
    receive_keeping(socket, payload_bytes, ARRIVALS_LIMIT, context)
}

/// [`receive`], keeping up to `arrivals_limit` raw arrivals (udp-probe
/// keeps a whole probe stream).
pub fn receive_keeping(
    socket: UdpSocket,
    payload_bytes: usize,
    arrivals_limit: usize,
    context: FlowContext,
) -> FlowOutput {
    receive_at(socket, payload_bytes, arrivals_limit, 0, context)
}

/// [`receive_keeping`] for datagrams whose header starts `header_offset`
/// bytes in (media: after the 12-byte RTP header).
pub fn receive_at(
    socket: UdpSocket,
    payload_bytes: usize,
    arrivals_limit: usize,
    header_offset: usize,
    context: FlowContext,
) -> FlowOutput {
    let fd = socket.as_raw_fd();
    let kernel_timestamps = enable_receive_timestamps(fd).is_ok();
    let drop_counter = enable_drop_counter(fd);
    // The kernel's counter runs from socket creation; the value carried by
    // the first measured datagram is the baseline, so warm-up drops are excluded.
    let (mut drops_baseline, mut drops_last): (Option<u32>, u32) = (None, 0);
    let _ = socket.set_read_timeout(Some(Duration::from_millis(20)));
    // One byte more than expected reveals oversized datagrams (MSG_TRUNC).
    let mut buffers = vec![vec![0u8; payload_bytes.max(64) + 1]; BATCH];
    // 64 bytes: room for SCM_TIMESTAMPNS (32) and SO_RXQ_OVFL (24).
    let mut controls = vec![[0u64; 8]; BATCH];
    let mut iovecs: Vec<libc::iovec> = buffers
        .iter_mut()
        .map(|b| libc::iovec {
            iov_base: b.as_mut_ptr().cast(),
            iov_len: b.len(),
        })
        .collect();
    // SAFETY: mmsghdr is plain data.
    let mut messages: Vec<libc::mmsghdr> = vec![unsafe { std::mem::zeroed() }; BATCH];
    let mut tracker = SequenceTracker::new(arrivals_limit);
    // Bytes per interval by their kernel stamp (crate::meter::arrivals).
    let mut arrivals: Option<ArrivalSeries> = None;
    let mut output = FlowOutput::default();
    let (mut kernel_stamped, mut user_stamped) = (0u64, 0u64);
    let mut last_arrival = Instant::now();
    let mut done_at: Option<Instant> = None;
    // The longest silence between arrivals while measuring: a path that
    // paused that long (a starved user-space forwarder, a full queue
    // draining) may pause that long again before its last datagrams arrive.
    let mut longest_gap = Duration::ZERO;
    // A budgeted receiver (the client of `-u -k N -R`): the datagram
    // numbered share − 1 is the sender's last; it ends the measured
    // interval once this end measures too (it may come in this end's
    // warm-up when the budget is tiny). A share of 0 (fewer datagrams
    // than streams) has nothing to wait for.
    let (mut last_came, mut told) = (context.budget_blocks == Some(0), false);
    loop {
        if last_came && !told && context.phase.get() == Stage::Measured {
            context.phase.sender_spent();
            told = true;
        }
        for ((message, iovec), control) in messages
            .iter_mut()
            .zip(iovecs.iter_mut())
            .zip(controls.iter_mut())
        {
            message.msg_hdr.msg_iov = iovec;
            message.msg_hdr.msg_iovlen = 1;
            message.msg_hdr.msg_control = control.as_mut_ptr().cast();
            message.msg_hdr.msg_controllen = std::mem::size_of_val(control);
            message.msg_len = 0;
        }
        // SAFETY: every pointer refers to buffers owned by this function.
        let received = unsafe {
            libc::recvmmsg(
                fd,
                messages.as_mut_ptr(),
                BATCH as u32,
                libc::MSG_WAITFORONE,
                std::ptr::null_mut(),
            )
        };
        let now = Instant::now();
        if received <= 0 {
            let error = std::io::Error::last_os_error();
            if received < 0
                && !super::is_timeout(&error)
                && error.raw_os_error() != Some(libc::ECONNREFUSED)
            {
                output.error = Some(format!("udp-stream recvmmsg: {error}"));
                break;
            }
            if context.phase.get() == Stage::Done {
                let done = *done_at.get_or_insert(now);
                let waited = now - done;
                if now - last_arrival >= quiet_after(longest_gap)
                    || waited >= Duration::from_millis(LOSS_WAIT_MS)
                {
                    break;
                }
            }
            if now >= context.deadline {
                break;
            }
            continue;
        }
        if context.phase.get() == Stage::Measured {
            longest_gap = longest_gap.max(now - last_arrival);
        }
        last_arrival = now;
        let batch_ns = realtime_ns();
        let (mut batch_bytes, mut batch_packets, mut batch_delay_ns) = (0u64, 0u64, 0u64);
        for (message, buffer) in messages.iter().zip(buffers.iter()).take(received as usize) {
            let length = message.msg_len as usize;
            let datagram = &buffer[..length.min(buffer.len())];
            if length == HELLO_BYTES && read_hello(datagram).is_some() {
                continue; // a spare copy of the client's hello
            }
            let Some(header) = datagram.get(header_offset..).and_then(read_header) else {
                continue;
            };
            if header.flags & FLAG_WARMUP != 0 {
                continue;
            }
            if context
                .budget_blocks
                .is_some_and(|share| header.sequence.saturating_add(1) >= share)
            {
                last_came = true;
            }
            let (kernel_ns, drops) = control_messages(&message.msg_hdr);
            if let Some(drops) = drops {
                drops_baseline.get_or_insert(drops);
                drops_last = drops;
            }
            let received_ns = match kernel_ns {
                Some(ns) => {
                    kernel_stamped += 1;
                    if arrivals.is_none() {
                        arrivals = context.phase.grid().map(ArrivalSeries::new);
                    }
                    if let Some(series) = arrivals.as_mut() {
                        series.add(ns, length as u64, 1);
                    }
                    ns
                }
                None => {
                    user_stamped += 1;
                    batch_ns
                }
            };
            if tracker.observe(header.sequence, header.sent_ns, received_ns) {
                output.received_bytes += length as u64;
            }
            batch_bytes += length as u64;
            // One-way delay for the per-interval mean; meaningful only when
            // the clocks are shared (the client drops it otherwise).
            batch_delay_ns += received_ns.saturating_sub(header.sent_ns).max(0) as u64;
            batch_packets += 1;
        }
        context.meter.add_received(batch_bytes, batch_packets);
        context
            .meter
            .add_latency_batch(batch_delay_ns, batch_packets);
        if now >= context.deadline || past_the_drain(&context, &mut done_at, now) {
            break;
        }
    }
    output.timestamp_source = Some(match (kernel_timestamps, kernel_stamped, user_stamped) {
        (true, _, 0) => "SO_TIMESTAMPNS",
        (_, 0, _) => "clock_gettime per recvmmsg batch",
        _ => "SO_TIMESTAMPNS, clock_gettime where the kernel gave none",
    });
    output.tracker = Some(tracker);
    // A series with datagrams missing (no kernel stamp) would draw gaps:
    // the interval series then count reads instead.
    output.arrivals = arrivals.filter(|_| user_stamped == 0);
    output.receive_buffer_drops = drop_counter
        .then(|| u64::from(drops_last.wrapping_sub(drops_baseline.unwrap_or(drops_last))));
    output
}

/// Whether a receiver still receiving must stop: the phase has been done
/// (or halted: a server halts its flows when the client says stop, and a
/// UDP receiver then still drains what is in flight) for [`LOSS_WAIT_MS`].
/// A peer that keeps sending after the end (a reverse load's server sender
/// on its own schedule) never lets `recvmmsg` time out, so the bound is
/// checked after every batch too, not only when the socket is quiet.
fn past_the_drain(context: &FlowContext, done_at: &mut Option<Instant>, now: Instant) -> bool {
    if context.phase.get() != Stage::Done {
        return false;
    }
    let done = *done_at.get_or_insert(now);
    now - done >= Duration::from_millis(LOSS_WAIT_MS)
}

/// How long the socket must stay quiet after the measured interval before
/// the receiver concludes that the datagrams still missing are lost: at
/// least [`QUIET`], and twice the longest silence seen while measuring
/// (which [`LOSS_WAIT_MS`] bounds anyway).
fn quiet_after(longest_gap: Duration) -> Duration {
    QUIET.max(longest_gap.saturating_mul(2))
}

/// Asks the kernel to attach this socket's overflow drop counter to every
/// received datagram (`SO_RXQ_OVFL`), so loss inside the receiving host can
/// be told apart from loss on the path. False where the kernel refuses.
fn enable_drop_counter(fd: std::os::fd::RawFd) -> bool {
    let on: libc::c_int = 1;
    // SAFETY: a c_int option value of the right size on a socket we own.
    unsafe {
        libc::setsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_RXQ_OVFL,
            (&on as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        ) == 0
    }
}

/// The SCM_TIMESTAMPNS receive time of a message (nanoseconds of
/// CLOCK_REALTIME) and the socket's cumulative overflow drop count
/// (SO_RXQ_OVFL), where the kernel attached them.
pub(crate) fn control_messages(header: &libc::msghdr) -> (Option<i64>, Option<u32>) {
    let (mut time_ns, mut drops) = (None, None);
    // SAFETY: the kernel filled msg_control/msg_controllen; the CMSG macros
    // walk only inside that buffer.
    unsafe {
        let mut cmsg = libc::CMSG_FIRSTHDR(header);
        while !cmsg.is_null() {
            if (*cmsg).cmsg_level == libc::SOL_SOCKET {
                if (*cmsg).cmsg_type == libc::SCM_TIMESTAMPNS {
                    let time =
                        std::ptr::read_unaligned(libc::CMSG_DATA(cmsg) as *const libc::timespec);
                    time_ns = Some(time.tv_sec * 1_000_000_000 + time.tv_nsec);
                } else if (*cmsg).cmsg_type == libc::SO_RXQ_OVFL {
                    drops = Some(std::ptr::read_unaligned(libc::CMSG_DATA(cmsg) as *const u32));
                }
            }
            cmsg = libc::CMSG_NXTHDR(header, cmsg);
        }
    }
    (time_ns, drops)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meter::{FlowMeter, Phase};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    /// A peer that never stops sending (a reverse load's server sender on
    /// its own schedule) must not keep the receiver, and so the trial,
    /// alive past the loss wait, whether the phase ended or was halted; and
    /// a halt still lets the receiver drain (what is in flight is not lost).
    #[test]
    fn a_peer_that_keeps_sending_cannot_hold_the_receiver_past_the_loss_wait() {
        for halt in [false, true] {
            let receiver = UdpSocket::bind("127.0.0.1:0").unwrap();
            let target = receiver.local_addr().unwrap();
            let stop = Arc::new(AtomicBool::new(false));
            let sending = {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let sender = UdpSocket::bind("127.0.0.1:0").unwrap();
                    let mut datagram = vec![0u8; 200];
                    let mut sequence = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        write_header(
                            &mut datagram,
                            Header {
                                sequence,
                                sent_ns: realtime_ns(),
                                flags: 0,
                            },
                        );
                        let _ = sender.send_to(&datagram, target);
                        sequence += 1;
                        std::thread::sleep(Duration::from_micros(500));
                    }
                })
            };
            let phase = Arc::new(Phase::default());
            phase.set(Stage::Measured);
            let context = FlowContext {
                phase: phase.clone(),
                meter: Arc::new(FlowMeter::default()),
                cpus: Vec::new(),
                deadline: Instant::now() + Duration::from_secs(30),
                budget_blocks: None,
            };
            let receiving = std::thread::spawn(move || receive(receiver, 200, context));
            std::thread::sleep(Duration::from_millis(200));
            let ended = Instant::now();
            if halt {
                phase.halt();
            } else {
                phase.set(Stage::Done);
            }
            let output = receiving.join().unwrap();
            let took = ended.elapsed();
            stop.store(true, Ordering::Relaxed);
            sending.join().unwrap();
            assert!(output.error.is_none(), "{:?}", output.error);
            let bound = Duration::from_millis(LOSS_WAIT_MS + 500);
            assert!(
                took < bound,
                "halt {halt}: the receiver returned after {took:?}"
            );
            // It kept receiving through the drain: datagrams after the end
            // were read, not left for a loss count.
            assert!(
                took >= Duration::from_millis(LOSS_WAIT_MS),
                "halt {halt}: the receiver stopped draining after {took:?}"
            );
        }
    }

    #[test]
    fn the_receiver_waits_twice_the_longest_silence_it_saw_while_measuring() {
        assert_eq!(quiet_after(Duration::ZERO), QUIET);
        assert_eq!(quiet_after(Duration::from_millis(20)), QUIET);
        // A forwarder that stalled for 300 ms during the run gets 600 ms to
        // deliver its backlog before the missing datagrams count as lost.
        assert_eq!(
            quiet_after(Duration::from_millis(300)),
            Duration::from_millis(600)
        );
    }
}

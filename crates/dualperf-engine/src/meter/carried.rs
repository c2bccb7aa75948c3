//! Bytes counted when they crossed the path, not when the application
//! touched them (docs/metrics.md, "Throughput over time").
//!
//! A TCP receiver reads in bursts: a thread that was not scheduled for
//! 30 ms finds 30 ms of data in its socket and reads it at once, so a
//! series of read() calls per 50 ms interval shows 20 Mbit/s on a
//! 10 Mbit/s link. A sender writes into its socket buffer long before the
//! bytes leave. The kernel's per-connection counters (`TCP_INFO`, Linux
//! 4.1+) say what the path carried: `tcpi_bytes_received` advances when
//! in-order data arrives at the receiving socket (RCV.NXT), and
//! `tcpi_bytes_acked` when the peer acknowledged it (RFC 4898
//! tcpEStatsAppHCThruOctetsAcked). The sampler reads them at each interval
//! boundary itself, so a descheduled flow thread moves nothing into the
//! wrong interval.
//!
//! A flow hands the sampler a duplicate of its socket ([`CarriedCounter`])
//! for as long as a [`CarriedCounting`] guard lives; dropping the guard
//! (before the flow closes its socket) takes the duplicate back under the
//! lock, so the sampler never reads a closed or reused descriptor and the
//! socket closes exactly when the flow closes it.

use std::net::TcpStream;
use std::os::fd::AsRawFd;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Mutex;

use super::FlowMeter;
use crate::tcp_info::read_tcp_info;

/// Which of the socket's counters measures what the path carried.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CarriedBy {
    /// A sending socket: bytes the peer acknowledged (`tcpi_bytes_acked`).
    Acknowledged = 0,
    /// A receiving socket: bytes that arrived in order (`tcpi_bytes_received`).
    Arrived = 1,
}

/// A flow's socket as the sampler reads it.
#[derive(Debug)]
pub struct CarriedCounter {
    socket: TcpStream,
    by: CarriedBy,
    /// The counter's value when counting began, bytes.
    base: u64,
}

impl CarriedCounter {
    /// The counter now, from `base`; `None` when the kernel does not tell.
    fn read(&self) -> Option<u64> {
        let info = read_tcp_info(self.socket.as_raw_fd()).ok()?;
        let value = match self.by {
            CarriedBy::Acknowledged => info.bytes_acked?,
            CarriedBy::Arrived => info.bytes_received?,
        };
        Some(value.saturating_sub(self.base))
    }
}

/// The sampler's handle on a flow's socket; see [`FlowMeter::count_carried`].
#[derive(Debug, Default)]
pub(super) struct CarriedSlot {
    socket: Mutex<Option<CarriedCounter>>,
}

/// While it lives, the sampler reads the socket's own counters; dropping it
/// stops that (drop it before closing the socket, which a local declared
/// after the socket does by itself).
#[must_use = "counting stops when the guard is dropped"]
#[derive(Debug)]
pub struct CarriedCounting<'a> {
    meter: &'a FlowMeter,
}

impl Drop for CarriedCounting<'_> {
    fn drop(&mut self) {
        let taken = match self.meter.carried.socket.lock() {
            Ok(mut slot) => slot.take(),
            Err(poisoned) => poisoned.into_inner().take(),
        };
        if let Some(value) = taken.as_ref().and_then(CarriedCounter::read) {
            self.meter.carried_bytes.fetch_max(value, Relaxed);
        }
    }
}

impl FlowMeter {
    /// Counts this flow's bytes, for the interval series, as `socket`'s
    /// kernel counter `by` says the path carried them (module docs).
    /// Without `TCP_INFO` byte counters (a kernel before 4.1, or a failed
    /// duplicate) the series keep counting the application's calls.
    pub fn count_carried(&self, socket: &TcpStream, by: CarriedBy) -> CarriedCounting<'_> {
        let counter = socket.try_clone().ok().and_then(|socket| {
            let mut counter = CarriedCounter {
                socket,
                by,
                base: 0,
            };
            counter.base = counter.read()?;
            Some(counter)
        });
        if let Some(counter) = counter {
            self.counts_carried.store(by as u8 + 1, Relaxed);
            if let Ok(mut slot) = self.carried.socket.lock() {
                *slot = Some(counter);
            }
        }
        CarriedCounting { meter: self }
    }

    /// Bytes the path carried so far (read now while the flow counts, the
    /// last value after) and which counter said so, or `None` for a flow
    /// that does not count them.
    pub(super) fn carried_now(&self) -> Option<(CarriedBy, u64)> {
        let by = match self.counts_carried.load(Relaxed) {
            1 => CarriedBy::Acknowledged,
            2 => CarriedBy::Arrived,
            _ => return None,
        };
        if let Ok(slot) = self.carried.socket.lock() {
            if let Some(value) = slot.as_ref().and_then(CarriedCounter::read) {
                self.carried_bytes.fetch_max(value, Relaxed);
            }
        }
        Some((by, self.carried_bytes.load(Relaxed)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::TcpListener;

    /// Bytes the receiver has not read yet count as carried: they crossed
    /// the path; a read() series would show them only when read.
    #[test]
    fn unread_bytes_count_as_arrived_and_acknowledged() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut sender = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (mut receiver, _) = listener.accept().unwrap();
        let (sending, receiving) = (FlowMeter::default(), FlowMeter::default());
        assert_eq!(receiving.carried_now(), None);
        let sent_guard = sending.count_carried(&sender, CarriedBy::Acknowledged);
        let received_guard = receiving.count_carried(&receiver, CarriedBy::Arrived);
        sender.write_all(&[7u8; 10_000]).unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while receiving.carried_now() != Some((CarriedBy::Arrived, 10_000))
            && std::time::Instant::now() < deadline
        {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert_eq!(receiving.carried_now(), Some((CarriedBy::Arrived, 10_000)));
        while sending.carried_now() != Some((CarriedBy::Acknowledged, 10_000))
            && std::time::Instant::now() < deadline
        {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert_eq!(
            sending.carried_now(),
            Some((CarriedBy::Acknowledged, 10_000))
        );
        // Nothing was read: the application's count is still 0.
        let mut totals = super::super::Totals::default();
        receiving.add_to(&mut totals);
        assert_eq!(totals.received.bytes, 0);
        assert_eq!(totals.carried_received_bytes, 10_000);
        // After the guard, the last value stays and the socket is the flow's alone.
        drop((sent_guard, received_guard));
        assert_eq!(receiving.carried_now(), Some((CarriedBy::Arrived, 10_000)));
        let mut buffer = vec![0u8; 10_000];
        receiver.read_exact(&mut buffer).unwrap();
        drop(sender);
        assert_eq!(
            receiver.read(&mut buffer).unwrap(),
            0,
            "the sender's close reached the peer"
        );
    }
}

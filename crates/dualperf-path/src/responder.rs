//! The responder `dualperf serve` runs beside its control listener: it
//! answers every probe datagram ([`crate::wire`]) on a UDP socket with a
//! 24-byte acknowledgement, never more bytes than it received, at most
//! [`MAX_ACKS_PER_SECOND`] per second in all.

use std::net::UdpSocket;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::wire;

/// Acknowledgements per second at most (a token bucket, burst of the same).
pub const MAX_ACKS_PER_SECOND: u32 = 2_000;

/// A token bucket of [`MAX_ACKS_PER_SECOND`].
#[derive(Debug)]
pub struct RateLimit {
    tokens: f64,
    last: Instant,
    per_second: f64,
}

impl RateLimit {
    /// A full bucket of `per_second` tokens.
    pub fn new(per_second: u32) -> Self {
        RateLimit {
            tokens: f64::from(per_second),
            last: Instant::now(),
            per_second: f64::from(per_second),
        }
    }

    /// Takes a token at `now`, if one is left.
    pub fn allow(&mut self, now: Instant) -> bool {
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + elapsed * self.per_second).min(self.per_second);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// Answers probes on `socket` until `stop` is raised (checked every 200 ms).
pub fn serve(socket: &UdpSocket, stop: &AtomicBool) {
    let _ = socket.set_read_timeout(Some(Duration::from_millis(200)));
    let mut limit = RateLimit::new(MAX_ACKS_PER_SECOND);
    let mut buffer = vec![0u8; 65_536];
    while !stop.load(Ordering::SeqCst) {
        let Ok((n, source)) = socket.recv_from(&mut buffer) else {
            continue;
        };
        if let Some(ack) = wire::answer(&buffer[..n]) {
            if limit.allow(Instant::now()) {
                let _ = socket.send_to(&ack, source);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_limit_allows_a_burst_then_refills_with_time() {
        let mut limit = RateLimit::new(3);
        let start = Instant::now();
        assert!(limit.allow(start));
        assert!(limit.allow(start));
        assert!(limit.allow(start));
        assert!(!limit.allow(start));
        assert!(limit.allow(start + Duration::from_millis(400)));
    }

    #[test]
    fn the_responder_answers_a_probe_on_loopback() {
        let server = UdpSocket::bind("127.0.0.1:0").unwrap();
        let address = server.local_addr().unwrap();
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || serve(&server, &flag));
        let client = UdpSocket::bind("127.0.0.1:0").unwrap();
        client
            .set_read_timeout(Some(Duration::from_secs(2)))
            .unwrap();
        client.send_to(&wire::probe(42, 1, 1000), address).unwrap();
        let mut buffer = [0u8; 64];
        let n = client.recv(&mut buffer).unwrap();
        let ack = wire::Header::decode(&buffer[..n]).unwrap();
        assert_eq!((ack.token, ack.seq, ack.length), (42, 1, 1000));
        stop.store(true, Ordering::SeqCst);
        thread.join().unwrap();
    }
}

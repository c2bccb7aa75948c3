//! Reflector state: the stateful sessions (RFC 8762 §4.3.1, RFC 8972 §4:
//! the reflector numbers its own replies per session, so the sender can
//! tell forward from reverse loss) and the packet-rate bound.
//!
//! A session is the sender's address and port with its SSID. The table
//! holds at most `max_sessions`; a session idle for `idle_timeout` is
//! forgotten (its numbering would restart at 0); a packet of a new session
//! while the table is full of live sessions is not answered. Memory is
//! bounded by the table: ~64 octets per session.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// A session: the sender's transport address and its SSID.
pub type SessionKey = (SocketAddr, u16);

#[derive(Clone, Copy, Debug)]
struct Session {
    next_sequence: u32,
    last_seen: Instant,
}

/// The stateful reflector's sessions.
#[derive(Debug)]
pub struct Sessions {
    sessions: HashMap<SessionKey, Session>,
    max_sessions: usize,
    idle_timeout: Duration,
}

impl Sessions {
    /// An empty table of at most `max_sessions`, forgetting a session after
    /// `idle_timeout` without packets.
    pub fn new(max_sessions: usize, idle_timeout: Duration) -> Sessions {
        Sessions {
            sessions: HashMap::with_capacity(max_sessions.min(1024)),
            max_sessions,
            idle_timeout,
        }
    }

    /// The reflector's sequence number for the next reply of session `key`
    /// (0, 1, 2 … per session), or `None` when the table is full.
    pub fn next_sequence(&mut self, key: SessionKey, now: Instant) -> Option<u32> {
        if !self.sessions.contains_key(&key) && self.sessions.len() >= self.max_sessions {
            let timeout = self.idle_timeout;
            self.sessions
                .retain(|_, s| now.saturating_duration_since(s.last_seen) < timeout);
            if self.sessions.len() >= self.max_sessions {
                return None;
            }
        }
        let session = self.sessions.entry(key).or_insert(Session {
            next_sequence: 0,
            last_seen: now,
        });
        if now.saturating_duration_since(session.last_seen) >= self.idle_timeout {
            session.next_sequence = 0;
        }
        session.last_seen = now;
        let sequence = session.next_sequence;
        session.next_sequence = sequence.wrapping_add(1);
        Some(sequence)
    }

    /// Sessions held.
    pub fn len(&self) -> usize {
        self.sessions.len()
    }

    /// True when no session is held.
    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty()
    }
}

/// A token bucket: at most `rate` packets per second, bursts of `rate / 10`
/// (at least 1).
#[derive(Clone, Debug)]
pub struct RateLimit {
    rate: f64,
    burst: f64,
    tokens: f64,
    last: Instant,
}

impl RateLimit {
    /// A bucket for `packets_per_second`.
    pub fn new(packets_per_second: u32, now: Instant) -> RateLimit {
        let rate = f64::from(packets_per_second.max(1));
        let burst = (rate / 10.0).max(1.0);
        RateLimit {
            rate,
            burst,
            tokens: burst,
            last: now,
        }
    }

    /// True when one more packet may be answered now.
    pub fn admit(&mut self, now: Instant) -> bool {
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + elapsed * self.rate).min(self.burst);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(port: u16, ssid: u16) -> SessionKey {
        (SocketAddr::from(([127, 0, 0, 1], port)), ssid)
    }

    #[test]
    fn each_session_counts_from_zero_and_the_table_is_bounded() {
        let now = Instant::now();
        let mut sessions = Sessions::new(2, Duration::from_secs(10));
        assert_eq!(sessions.next_sequence(key(1, 7), now), Some(0));
        assert_eq!(sessions.next_sequence(key(1, 7), now), Some(1));
        assert_eq!(sessions.next_sequence(key(2, 7), now), Some(0));
        assert_eq!(sessions.next_sequence(key(1, 8), now), None);
        // After the idle timeout the oldest make room.
        let later = now + Duration::from_secs(11);
        assert_eq!(sessions.next_sequence(key(1, 8), later), Some(0));
        assert_eq!(sessions.len(), 1);
    }

    #[test]
    fn the_rate_limit_admits_a_burst_then_the_rate() {
        let now = Instant::now();
        let mut limit = RateLimit::new(100, now);
        let admitted = (0..50).filter(|_| limit.admit(now)).count();
        assert_eq!(admitted, 10);
        assert!(limit.admit(now + Duration::from_millis(10)));
    }
}

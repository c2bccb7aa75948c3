//! The STAMP Session-Reflector (RFC 8762 §4.3, RFC 8972): `dualperf serve
//! --stamp`. One UDP socket per family (port 862 by default), one thread
//! each; every test packet is answered at once with its receive time (t2,
//! the kernel's), its TTL, the reflector's own sequence number (stateful)
//! or the sender's (stateless), and its TLVs processed:
//!
//! - Class of Service: DSCP2 and ECN set to what the packet arrived with;
//!   the reply is marked with DSCP1 (RP = 0);
//! - Extra Padding: echoed, U cleared;
//! - HMAC (authenticated mode): checked (I set on every TLV when it fails)
//!   and signed anew over the reply;
//! - anything else: echoed with U set.
//!
//! Bounded like `serve`: a packet-rate limit (token bucket), a session
//! table of fixed size ([`super::session`]), replies no longer than the
//! request (at most [`MAX_PACKET_BYTES`]). Authenticated packets whose HMAC
//! does not verify, and packets shorter than the base packet, are dropped.

use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use dualperf_model::IpFamily;

use super::auth::StampKey;
use super::packet::{self, Mode, ReflectedPacket, TestPacket};
use super::session::{RateLimit, Sessions};
use super::socket::{enable_receive_facts, receive, set_tos, Received};
use super::timestamp::{self, ErrorEstimate};
use super::tlv::{
    ClassOfService, TlvList, FLAG_INTEGRITY, FLAG_MALFORMED, FLAG_UNRECOGNISED,
    TYPE_CLASS_OF_SERVICE, TYPE_EXTRA_PADDING, TYPE_HMAC,
};
use crate::clock::realtime_ns;

/// Largest test packet answered, octets (a jumbo frame's payload).
pub const MAX_PACKET_BYTES: usize = 9000;

/// How the reflector behaves and what bounds it.
#[derive(Clone, Debug)]
pub struct ReflectorConfig {
    /// Listen on these addresses only (empty: every address of both
    /// families); with port 0 they share the first one's ephemeral port.
    pub bind: Vec<IpAddr>,
    /// UDP port (862, RFC 8762 §4.1, by default).
    pub port: u16,
    /// Authenticated mode with this key; open mode without.
    pub key: Option<StampKey>,
    /// Number replies per session (RFC 8762 §4.3.1); else echo the sender's.
    pub stateful: bool,
    /// Most stateful sessions held at once.
    pub max_sessions: usize,
    /// A session idle this long is forgotten.
    pub idle_timeout: Duration,
    /// Most packets answered per second, over all senders.
    pub max_packet_rate: u32,
}

impl ReflectorConfig {
    /// The packet mode.
    pub fn mode(&self) -> Mode {
        match self.key {
            Some(_) => Mode::Authenticated,
            None => Mode::Unauthenticated,
        }
    }
}

/// What the reflector needs to know of a received test packet.
#[derive(Clone, Copy, Debug)]
pub struct Arrival {
    /// Receive time, nanoseconds since the Unix epoch.
    pub received_ns: i64,
    /// TOS / Traffic Class it arrived with.
    pub tos: Option<u8>,
    /// TTL / Hop Limit it arrived with.
    pub ttl: Option<u8>,
}

/// A reply: its octets and the TOS / Traffic Class to send it with.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct Reply {
    /// The reflected packet.
    pub bytes: Vec<u8>,
    /// TOS octet for the reply (DSCP1 of a Class-of-Service TLV), if asked.
    pub tos: Option<u8>,
}

/// Builds the reply to `request`, numbered `sequence` (stateful) or with
/// the sender's number; `None` for a packet to drop (too short, or an HMAC
/// that does not verify). `now_ns` is the transmit time t3.
pub fn reflect(
    request: &[u8],
    arrival: Arrival,
    sequence: Option<u32>,
    key: Option<&StampKey>,
    now_ns: i64,
) -> Option<Reply> {
    let mode = if key.is_some() {
        Mode::Authenticated
    } else {
        Mode::Unauthenticated
    };
    let test = TestPacket::read(request, mode).ok()?;
    if let Some(key) = key {
        packet::verify(request, key).ok()?;
    }
    let format = ErrorEstimate::from_wire(test.error_estimate).format;
    let reply_sequence = sequence.unwrap_or(test.sequence);
    let reflected = ReflectedPacket {
        sequence: reply_sequence,
        timestamp: timestamp::encode(now_ns, format),
        error_estimate: ErrorEstimate::unsynchronised(format).to_wire(),
        ssid: test.ssid,
        receive_timestamp: timestamp::encode(arrival.received_ns, format),
        sender_sequence: test.sequence,
        sender_timestamp: test.timestamp,
        sender_error_estimate: test.error_estimate,
        sender_ttl: arrival.ttl.unwrap_or(0),
    };
    let mut bytes = Vec::with_capacity(request.len());
    reflected.write(mode, key, &mut bytes);
    let mut tlvs = TlvList::read(&request[mode.base_bytes()..]);
    let mut tos = None;
    let integrity_failed = key.is_some_and(|key| {
        tlvs.tlvs.last().is_some_and(|t| t.kind == TYPE_HMAC) && !tlvs.verifies(test.sequence, key)
    });
    for tlv in &mut tlvs.tlvs {
        match tlv.kind {
            TYPE_CLASS_OF_SERVICE => match ClassOfService::from_value(&tlv.value) {
                Some(asked) => {
                    let received = arrival.tos.unwrap_or(0);
                    let answer = ClassOfService {
                        dscp1: asked.dscp1,
                        dscp2: received >> 2,
                        ecn: received & 0x03,
                        rp: 0,
                    };
                    tlv.value = answer.to_value().to_vec();
                    tlv.flags &= !FLAG_UNRECOGNISED;
                    tos = Some(asked.dscp1 << 2);
                }
                None => tlv.flags |= FLAG_MALFORMED,
            },
            TYPE_EXTRA_PADDING => tlv.flags &= !FLAG_UNRECOGNISED,
            TYPE_HMAC if key.is_some() => tlv.flags &= !FLAG_UNRECOGNISED,
            _ => tlv.flags |= FLAG_UNRECOGNISED,
        }
        if integrity_failed {
            tlv.flags |= FLAG_INTEGRITY;
        }
    }
    if let (Some(key), false) = (key, integrity_failed) {
        tlvs.sign(reply_sequence, key);
    }
    tlvs.write(&mut bytes);
    bytes.truncate(request.len().max(mode.base_bytes()));
    Some(Reply { bytes, tos })
}

/// Counters of a running reflector.
#[derive(Debug, Default)]
pub struct ReflectorCounters {
    /// Replies sent.
    pub reflected: AtomicU64,
    /// Packets dropped: malformed, failed HMAC, over the rate, no session slot.
    pub dropped: AtomicU64,
}

/// A bound reflector, ready to [`run`](Reflector::run).
#[derive(Debug)]
pub struct Reflector {
    sockets: Vec<(UdpSocket, IpFamily)>,
    config: ReflectorConfig,
    /// What it did so far.
    pub counters: Arc<ReflectorCounters>,
}

fn bind_one(address: SocketAddr) -> io::Result<UdpSocket> {
    let family = if address.is_ipv4() {
        socket2::Domain::IPV4
    } else {
        socket2::Domain::IPV6
    };
    let socket = socket2::Socket::new(family, socket2::Type::DGRAM, Some(socket2::Protocol::UDP))?;
    if address.is_ipv6() {
        socket.set_only_v6(true)?;
    }
    socket.bind(&address.into())?;
    Ok(socket.into())
}

impl Reflector {
    /// Binds the port on the configured address, or on every IPv4 and
    /// every IPv6 address (one socket each; a host without IPv6 gets the
    /// IPv4 one only).
    ///
    /// # Errors
    /// The bind error (port taken, or 862 without the privilege to bind it).
    pub fn bind(config: ReflectorConfig) -> io::Result<Reflector> {
        let mut sockets: Vec<(UdpSocket, IpFamily)> = Vec::new();
        let mut port = config.port;
        if config.bind.is_empty() {
            let v4 = bind_one(SocketAddr::new(Ipv4Addr::UNSPECIFIED.into(), port))?;
            port = v4.local_addr()?.port();
            sockets.push((v4, IpFamily::V4));
            if let Ok(v6) = bind_one(SocketAddr::new(Ipv6Addr::UNSPECIFIED.into(), port)) {
                sockets.push((v6, IpFamily::V6));
            }
        }
        for &ip in &config.bind {
            let socket = bind_one(SocketAddr::new(ip, port))?;
            port = socket.local_addr()?.port();
            sockets.push((socket, IpFamily::of(&ip)));
        }
        for (socket, family) in &sockets {
            enable_receive_facts(socket, *family)?;
            socket.set_read_timeout(Some(Duration::from_millis(200)))?;
        }
        Ok(Reflector {
            sockets,
            config,
            counters: Arc::default(),
        })
    }

    /// The addresses it listens on.
    pub fn local_addresses(&self) -> Vec<SocketAddr> {
        self.sockets
            .iter()
            .filter_map(|(s, _)| s.local_addr().ok())
            .collect()
    }

    /// Answers test packets until `stop` is raised (checked every 200 ms),
    /// one thread per socket.
    pub fn run(self, stop: Arc<AtomicBool>) {
        let limit = Arc::new(std::sync::Mutex::new(RateLimit::new(
            self.config.max_packet_rate,
            Instant::now(),
        )));
        let sessions = Arc::new(std::sync::Mutex::new(Sessions::new(
            self.config.max_sessions,
            self.config.idle_timeout,
        )));
        std::thread::scope(|scope| {
            for (socket, family) in &self.sockets {
                let (limit, sessions, stop) = (limit.clone(), sessions.clone(), stop.clone());
                let config = &self.config;
                let counters = &self.counters;
                scope.spawn(move || {
                    serve_socket(socket, *family, config, &limit, &sessions, &stop, counters)
                });
            }
        });
    }
}

type Shared<T> = std::sync::Mutex<T>;

fn serve_socket(
    socket: &UdpSocket,
    family: IpFamily,
    config: &ReflectorConfig,
    limit: &Shared<RateLimit>,
    sessions: &Shared<Sessions>,
    stop: &AtomicBool,
    counters: &ReflectorCounters,
) {
    let mut buffer = vec![0u8; MAX_PACKET_BYTES];
    let mut current_tos = 0u8;
    while !stop.load(Ordering::SeqCst) {
        let received: Received = match receive(socket, &mut buffer) {
            Ok(received) => received,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                continue
            }
            Err(_) => continue,
        };
        let now = Instant::now();
        let admitted = limit.lock().map(|mut l| l.admit(now)).unwrap_or(false);
        let request = &buffer[..received.bytes];
        let ssid = TestPacket::read(request, config.mode()).map(|t| t.ssid);
        let sequence = match (config.stateful, admitted, ssid) {
            (_, false, _) | (_, _, Err(_)) => {
                counters.dropped.fetch_add(1, Ordering::Relaxed);
                continue;
            }
            (false, true, Ok(_)) => None,
            (true, true, Ok(ssid)) => {
                match sessions
                    .lock()
                    .ok()
                    .and_then(|mut s| s.next_sequence((received.from, ssid), now))
                {
                    Some(sequence) => Some(sequence),
                    None => {
                        counters.dropped.fetch_add(1, Ordering::Relaxed);
                        continue;
                    }
                }
            }
        };
        let arrival = Arrival {
            received_ns: received.received_ns,
            tos: received.tos,
            ttl: received.ttl,
        };
        let Some(reply) = reflect(
            request,
            arrival,
            sequence,
            config.key.as_ref(),
            realtime_ns(),
        ) else {
            counters.dropped.fetch_add(1, Ordering::Relaxed);
            continue;
        };
        let tos = reply.tos.unwrap_or(0);
        if tos != current_tos && set_tos(socket, family, tos).is_ok() {
            current_tos = tos;
        }
        if socket.send_to(&reply.bytes, received.from).is_ok() {
            counters.reflected.fetch_add(1, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stamp::tlv::{hmac_placeholder, Tlv};

    fn arrival() -> Arrival {
        Arrival {
            received_ns: 1_700_000_000_000_000_000,
            tos: Some(10 << 2 | 1),
            ttl: Some(63),
        }
    }

    fn request(key: Option<&StampKey>, tlvs: Vec<Tlv>) -> Vec<u8> {
        let mode = if key.is_some() {
            Mode::Authenticated
        } else {
            Mode::Unauthenticated
        };
        let mut bytes = Vec::new();
        TestPacket {
            sequence: 1,
            timestamp: 99,
            error_estimate: 1,
            ssid: 0x1234,
        }
        .write(mode, key, &mut bytes);
        let mut list = TlvList { tlvs, rest: vec![] };
        if let Some(key) = key {
            list.sign(1, key);
        }
        list.write(&mut bytes);
        bytes
    }

    #[test]
    fn the_cos_tlv_reports_what_arrived_and_asks_for_dscp1_on_the_reply() {
        let cos = ClassOfService {
            dscp1: 46,
            ..Default::default()
        };
        let bytes = request(None, vec![cos.tlv(FLAG_UNRECOGNISED)]);
        let reply = reflect(&bytes, arrival(), Some(0), None, 0).unwrap();
        assert_eq!(reply.bytes.len(), bytes.len());
        assert_eq!(reply.tos, Some(46 << 2));
        let reflected = ReflectedPacket::read(&reply.bytes, Mode::Unauthenticated).unwrap();
        assert_eq!((reflected.sequence, reflected.sender_sequence), (0, 1));
        assert_eq!((reflected.ssid, reflected.sender_ttl), (0x1234, 63));
        let tlvs = TlvList::read(&reply.bytes[44..]);
        assert_eq!(tlvs.tlvs[0].flags, 0);
        let seen = ClassOfService::from_value(&tlvs.tlvs[0].value).unwrap();
        assert_eq!((seen.dscp1, seen.dscp2, seen.ecn), (46, 10, 1));
    }

    #[test]
    fn authenticated_packets_must_verify_and_replies_are_signed() {
        let key = StampKey::new(b"0123456789abcdef").unwrap();
        let tlvs = vec![
            ClassOfService::default().tlv(FLAG_UNRECOGNISED),
            hmac_placeholder(FLAG_UNRECOGNISED),
        ];
        let bytes = request(Some(&key), tlvs);
        let reply = reflect(&bytes, arrival(), None, Some(&key), 0).unwrap();
        assert_eq!(packet::verify(&reply.bytes, &key), Ok(()));
        let list = TlvList::read(&reply.bytes[112..]);
        assert!(list.verifies(1, &key));
        let other = StampKey::new(b"fedcba9876543210").unwrap();
        assert_eq!(reflect(&bytes, arrival(), None, Some(&other), 0), None);
        assert_eq!(reflect(&bytes[..100], arrival(), None, Some(&key), 0), None);
    }

    #[test]
    fn unknown_tlvs_come_back_flagged_unrecognised() {
        let unknown = Tlv {
            flags: 0,
            kind: 200,
            value: vec![1, 2],
        };
        let bytes = request(None, vec![unknown]);
        let reply = reflect(&bytes, arrival(), None, None, 0).unwrap();
        let list = TlvList::read(&reply.bytes[44..]);
        assert_eq!(list.tlvs[0].flags, FLAG_UNRECOGNISED);
        assert_eq!(list.tlvs[0].value, vec![1, 2]);
    }
}

#[cfg(test)]
mod hostile {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn any_datagram_is_answered_no_longer_or_dropped_never_a_panic(
            request in proptest::collection::vec(any::<u8>(), 0..400),
            authenticated in any::<bool>(),
        ) {
            let key = StampKey::new(b"0123456789abcdef").unwrap();
            let key = authenticated.then_some(&key);
            let arrival = Arrival { received_ns: 0, tos: Some(0), ttl: Some(1) };
            if let Some(reply) = reflect(&request, arrival, Some(3), key, 0) {
                prop_assert!(reply.bytes.len() <= request.len());
                prop_assert!(!authenticated, "a random datagram cannot carry a valid HMAC");
            }
            let _ = TlvList::read(&request);
            let _ = ReflectedPacket::read(&request, Mode::Authenticated);
        }
    }
}

//! The STAMP Session-Sender (RFC 8762 §4.2): one trial of a `udp-probe`
//! point against a Session-Reflector (`dualperf run --peer stamp`).
//!
//! One packet every `probe_interval_us` (absolute schedule, as udp-probe)
//! for the point's duration, numbered from 1, each stamped (t1, NTP
//! format) immediately before its `send(2)`; replies are received on the
//! same connected socket with kernel receive times (t4) until
//! [`LOSS_WAIT`] after the last send. Every packet carries a
//! Class-of-Service TLV asking for the arm's DSCP (RFC 8972 §4.4), an
//! Extra Padding TLV up to the point's size, and in authenticated mode an
//! HMAC TLV. A STAMP session has no warm-up: its first packet is measured.

use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use dualperf_model::observation::{EndsPlacement, Observations};
use dualperf_model::{IpFamily, Marking, TestSpec};

use super::account::{account, ReplyRecord, Session};
use super::auth::StampKey;
use super::packet::{self, Mode, ReflectedPacket, TestPacket};
use super::socket::{enable_receive_facts, receive, set_tos};
use super::timestamp::{self, ClockFormat, ErrorEstimate};
use super::tlv::{
    extra_padding, hmac_placeholder, ClassOfService, Tlv, TlvList, FLAG_UNRECOGNISED, HEADER_BYTES,
    TYPE_CLASS_OF_SERVICE,
};
use crate::clock::realtime_ns;

/// Waiting time after the last send before a missing reply counts as lost.
pub const LOSS_WAIT: Duration = Duration::from_secs(1);
/// Most test packets in one trial.
pub const MAX_PACKETS: u64 = 100_000;
/// Shortest interval between test packets, microseconds (1000 packets/s).
pub const MIN_INTERVAL_US: u64 = 1_000;
/// Default interval, microseconds (as udp-probe: 100 packets/s).
pub const DEFAULT_INTERVAL_US: u64 = 10_000;

/// What the sender needs besides the point and the arm.
#[derive(Clone, Debug, Default)]
pub struct SenderSettings {
    /// Authenticated mode with this key; open mode without.
    pub key: Option<StampKey>,
    /// The reflector shares this host's clock (same kernel): one-way
    /// delays are exact.
    pub clocks_shared: bool,
    /// The user declares the clocks synchronised (`--clocks-synchronised`).
    pub clocks_synchronised: bool,
}

/// What one trial measured and over which addresses.
#[derive(Clone, Debug)]
pub struct StampTrial {
    /// The observations.
    pub observations: Observations,
    /// Local address of the test socket.
    pub local_address: Option<SocketAddr>,
    /// The reflector's address.
    pub remote_address: SocketAddr,
}

/// The packet plan of a point: count, interval and the TLVs that fill the size.
#[derive(Clone, Debug)]
struct Plan {
    count: u64,
    interval: Duration,
    mode: Mode,
    tlvs: Vec<Tlv>,
}

fn plan(spec: &TestSpec, mode: Mode, dscp: u8) -> Result<Plan, String> {
    let interval_us = spec.probe_interval_us.unwrap_or(DEFAULT_INTERVAL_US);
    if interval_us < MIN_INTERVAL_US {
        return Err(format!(
            "a STAMP probe interval of {interval_us} µs is below the {MIN_INTERVAL_US} µs minimum"
        ));
    }
    let count = spec.duration_ms.saturating_mul(1000) / interval_us;
    if count == 0 || count > MAX_PACKETS {
        return Err(format!(
            "{count} STAMP packets ({} ms every {interval_us} µs) is outside 1..={MAX_PACKETS}",
            spec.duration_ms
        ));
    }
    let cos = ClassOfService {
        dscp1: dscp,
        ..Default::default()
    };
    let mut tail = vec![cos.tlv(FLAG_UNRECOGNISED)];
    if mode == Mode::Authenticated {
        tail.push(hmac_placeholder(FLAG_UNRECOGNISED));
    }
    let least: usize = mode.base_bytes() + tail.iter().map(Tlv::wire_bytes).sum::<usize>();
    let size = spec.size_bytes as usize;
    let padding = size.checked_sub(least).ok_or_else(|| {
        format!("a STAMP packet here needs at least {least} bytes (the point asks for {size})")
    })?;
    let mut tlvs = Vec::new();
    match padding {
        0 => {}
        1..=3 => {
            return Err(format!(
                "a STAMP packet here is {least} bytes, or {} and more with padding (not {size})",
                least + HEADER_BYTES
            ))
        }
        n => tlvs.push(extra_padding(FLAG_UNRECOGNISED, n - HEADER_BYTES)),
    }
    tlvs.extend(tail);
    Ok(Plan {
        count,
        interval: Duration::from_micros(interval_us),
        mode,
        tlvs,
    })
}

/// A non-zero SSID, different from run to run.
fn new_ssid() -> u16 {
    let mixed = (realtime_ns() as u64 ^ u64::from(std::process::id()).rotate_left(17))
        .wrapping_mul(0x9e37_79b9_7f4a_7c15);
    ((mixed >> 48) as u16).max(1)
}

/// Runs one STAMP session against the reflector at `target` for `spec`,
/// marked as the arm's `marking` says.
///
/// # Errors
/// A sentence: a point STAMP cannot carry (size, interval, count), or a
/// socket that cannot be opened, connected or marked.
pub fn run_trial(
    target: SocketAddr,
    spec: &TestSpec,
    marking: &Marking,
    settings: &SenderSettings,
) -> Result<StampTrial, String> {
    let mode = match settings.key {
        Some(_) => Mode::Authenticated,
        None => Mode::Unauthenticated,
    };
    let dscp = marking.dscp.map_or(0, |d| d.value());
    let plan = plan(spec, mode, dscp)?;
    let family = IpFamily::of(&target.ip());
    let local: SocketAddr = match family {
        IpFamily::V4 => ([0, 0, 0, 0], 0).into(),
        IpFamily::V6 => (std::net::Ipv6Addr::UNSPECIFIED, 0).into(),
    };
    let socket = UdpSocket::bind(local).map_err(|e| format!("STAMP socket: {e}"))?;
    socket
        .connect(target)
        .map_err(|e| format!("STAMP reflector {target}: {e}"))?;
    set_tos(&socket, family, dscp << 2).map_err(|e| format!("marking DSCP {dscp}: {e}"))?;
    enable_receive_facts(&socket, family).map_err(|e| format!("STAMP socket: {e}"))?;
    socket
        .set_read_timeout(Some(Duration::from_millis(20)))
        .map_err(|e| format!("STAMP socket: {e}"))?;
    let ssid = new_ssid();
    let send_times: Arc<Vec<AtomicI64>> =
        Arc::new((0..plan.count).map(|_| AtomicI64::new(0)).collect());
    let sender_socket = socket
        .try_clone()
        .map_err(|e| format!("STAMP socket: {e}"))?;
    let started = Instant::now();
    let sending = {
        let (plan, key, times) = (plan.clone(), settings.key.clone(), send_times.clone());
        std::thread::spawn(move || send_all(&sender_socket, &plan, key.as_ref(), ssid, &times))
    };
    let mut replies = Vec::new();
    let mut rejected = 0u64;
    let mut kernel_timestamps = true;
    let mut buffer = vec![0u8; super::reflector::MAX_PACKET_BYTES];
    let mut last_send: Option<Instant> = None;
    loop {
        if last_send.is_none() && sending.is_finished() {
            last_send = Some(Instant::now());
        }
        if last_send.is_some_and(|at| at.elapsed() >= LOSS_WAIT) {
            break;
        }
        let got = match receive(&socket, &mut buffer) {
            Ok(got) => got,
            Err(_) => continue, // timeout, or ICMP unreachable: the packet is lost
        };
        match accept(
            &buffer[..got.bytes],
            mode,
            settings.key.as_ref(),
            ssid,
            &send_times,
        ) {
            Some(mut record) => {
                record.t4 = got.received_ns;
                record.reply_tos = got.tos;
                kernel_timestamps &= got.kernel_timestamp;
                replies.push(record);
            }
            None => rejected += 1,
        }
    }
    let sent = sending
        .join()
        .map_err(|_| "the STAMP send thread panicked".to_string())??;
    let measured = started.elapsed().saturating_sub(LOSS_WAIT);
    let session = Session {
        sent,
        size_bytes: spec.size_bytes,
        measured_ns: measured.as_nanos().min(u128::from(u64::MAX)) as u64,
        loss_wait_ms: LOSS_WAIT.as_millis() as u64,
        clocks_comparable: settings.clocks_shared || settings.clocks_synchronised,
        authenticated: mode == Mode::Authenticated,
        ssid,
        sent_dscp: dscp,
        sent_ecn: 0,
        rejected,
        kernel_timestamps,
    };
    let mut observations = account(&session, &replies);
    observations.notes.push(clock_note(settings));
    observations.socket.dscp = marking.dscp;
    // A reflector at an address of this host shares its kernel and clock;
    // any other is taken as another kernel (its clock is only declared).
    observations.placement = Some(if settings.clocks_shared {
        EndsPlacement::SameKernel
    } else {
        EndsPlacement::SeparateKernels
    });
    // The error bound of declared-synchronised one-way delays: half the
    // smallest round trip of the path measured (as the control RTT of
    // dualperf's own server).
    observations.control_min_rtt_ns = observations
        .latency
        .as_ref()
        .filter(|l| l.count > 0)
        .map(|l| l.min_ns);
    Ok(StampTrial {
        observations,
        local_address: socket.local_addr().ok(),
        remote_address: target,
    })
}

fn clock_note(settings: &SenderSettings) -> String {
    if settings.clocks_shared {
        "STAMP: the reflector shares this host's clock (same kernel); one-way delays are exact"
            .into()
    } else if settings.clocks_synchronised {
        "STAMP: one-way delays rest on the declaration that both clocks are synchronised \
         (--clocks-synchronised, RFC 7679 §3.7)"
            .into()
    } else {
        "STAMP: the reflector's clock is not this host's and not declared synchronised: \
         round-trip times only, no one-way delay"
            .into()
    }
}

/// Sends the plan's packets on schedule; returns how many were sent.
fn send_all(
    socket: &UdpSocket,
    plan: &Plan,
    key: Option<&StampKey>,
    ssid: u16,
    times: &[AtomicI64],
) -> Result<u64, String> {
    let origin = Instant::now();
    let error_estimate = ErrorEstimate::unsynchronised(ClockFormat::Ntp).to_wire();
    let mut bytes = Vec::with_capacity(2048);
    for index in 0..plan.count {
        let due = origin + plan.interval * index as u32;
        let now = Instant::now();
        if due > now {
            std::thread::sleep(due - now);
        }
        let sequence = index as u32 + 1;
        let t1 = realtime_ns();
        bytes.clear();
        TestPacket {
            sequence,
            timestamp: timestamp::encode(t1, ClockFormat::Ntp),
            error_estimate,
            ssid,
        }
        .write(plan.mode, key, &mut bytes);
        let mut tlvs = TlvList {
            tlvs: plan.tlvs.clone(),
            rest: Vec::new(),
        };
        if let Some(key) = key {
            tlvs.sign(sequence, key);
        }
        tlvs.write(&mut bytes);
        times[index as usize].store(t1, Ordering::Relaxed);
        match socket.send(&bytes) {
            Ok(_) => {}
            Err(e) if crate::flow::lost_at_sender(&e) => {}
            Err(e) => return Err(format!("STAMP send: {e}")),
        }
    }
    Ok(plan.count)
}

/// Reads a reply of this session; `None` when it is not one (short,
/// foreign SSID, unknown number, HMAC failure).
fn accept(
    bytes: &[u8],
    mode: Mode,
    key: Option<&StampKey>,
    ssid: u16,
    times: &[AtomicI64],
) -> Option<ReplyRecord> {
    let reply = ReflectedPacket::read(bytes, mode).ok()?;
    if let Some(key) = key {
        packet::verify(bytes, key).ok()?;
    }
    if reply.ssid != ssid || reply.sender_sequence == 0 {
        return None;
    }
    let t1 = times
        .get(reply.sender_sequence as usize - 1)?
        .load(Ordering::Relaxed);
    if t1 == 0 {
        return None;
    }
    let tlvs = TlvList::read(&bytes[mode.base_bytes()..]);
    if let Some(key) = key {
        if tlvs.tlvs.len() > 1 && !tlvs.verifies(reply.sequence, key) {
            return None;
        }
    }
    let class_of_service = tlvs.find(TYPE_CLASS_OF_SERVICE).and_then(|tlv| {
        ClassOfService::from_value(&tlv.value).map(|c| (tlv.flags, c.dscp2, c.ecn, c.rp))
    });
    let estimate = ErrorEstimate::from_wire(reply.error_estimate);
    Some(ReplyRecord {
        sender_sequence: reply.sender_sequence,
        reflector_sequence: reply.sequence,
        t1,
        t2: timestamp::decode(reply.receive_timestamp, estimate.format),
        t3: timestamp::decode(reply.timestamp, estimate.format),
        t4: 0,
        reply_tos: None,
        class_of_service,
        reflector_synchronised: estimate.synchronised,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::TestKind;

    fn spec(size: u32, duration_ms: u64, interval_us: u64) -> TestSpec {
        TestSpec {
            duration_ms,
            probe_interval_us: Some(interval_us),
            ..TestSpec::new(TestKind::UdpProbe, size)
        }
    }

    #[test]
    fn the_plan_fills_the_size_with_extra_padding_and_bounds_the_count() {
        let p = plan(&spec(172, 1000, 10_000), Mode::Unauthenticated, 46).unwrap();
        assert_eq!(p.count, 100);
        let bytes: usize = 44 + p.tlvs.iter().map(Tlv::wire_bytes).sum::<usize>();
        assert_eq!(bytes, 172);
        assert!(plan(&spec(100, 1000, 10_000), Mode::Authenticated, 0).is_err());
        assert!(plan(&spec(54, 1000, 10_000), Mode::Unauthenticated, 0).is_err());
        assert!(plan(&spec(172, 1000, 10), Mode::Unauthenticated, 0).is_err());
        assert!(plan(&spec(172, 10_000_000, 1000), Mode::Unauthenticated, 0).is_err());
    }
}

#[cfg(test)]
mod loopback {
    use super::*;
    use crate::stamp::reflector::{Reflector, ReflectorConfig};
    use dualperf_model::TestKind;
    use std::sync::atomic::AtomicBool;

    /// A session of 50 packets against dualperf's own reflector on 127.0.0.1.
    fn session(stateful: bool, key: Option<StampKey>) -> Observations {
        let reflector = Reflector::bind(ReflectorConfig {
            bind: vec![std::net::Ipv4Addr::LOCALHOST.into()],
            port: 0,
            key: key.clone(),
            stateful,
            max_sessions: 4,
            idle_timeout: Duration::from_secs(10),
            max_packet_rate: 10_000,
        })
        .unwrap();
        let target = reflector.local_addresses()[0];
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || reflector.run(flag));
        let spec = TestSpec {
            duration_ms: 100,
            probe_interval_us: Some(2_000),
            ..TestSpec::new(TestKind::UdpProbe, 172)
        };
        let settings = SenderSettings {
            key,
            clocks_shared: true,
            clocks_synchronised: false,
        };
        let trial = run_trial(target, &spec, &Marking::default(), &settings).unwrap();
        stop.store(true, Ordering::SeqCst);
        thread.join().unwrap();
        trial.observations
    }

    #[test]
    fn a_stateless_reflector_is_recognised_and_its_loss_not_split() {
        let o = session(false, None);
        let stamp = o.stamp.unwrap();
        assert_eq!((stamp.sent, stamp.replies), (50, 50));
        assert_eq!(stamp.reflector_stateful, Some(false));
        assert_eq!(stamp.forward_lost, None);
        assert!(stamp.reverse.is_none());
    }

    #[test]
    fn an_authenticated_stateful_session_counts_every_packet_both_ways() {
        let key = StampKey::new(b"0123456789abcdef").unwrap();
        let o = session(true, Some(key));
        let stamp = o.stamp.unwrap();
        assert!(stamp.authenticated);
        assert_eq!(stamp.reflector_received, Some(50));
        assert_eq!((stamp.forward_lost, stamp.reverse_lost), (Some(0), Some(0)));
        let udp = o.udp.unwrap();
        assert!(udp.clocks_shared);
        assert!(udp.arrivals.iter().all(|a| a.received_ns >= a.sent_ns));
        assert_eq!(o.latency.unwrap().count, 50);
    }
}

//! What the replies of one STAMP session tell, as the model's
//! [`Observations`]: round-trip times, the forward direction as the
//! reflector saw it, loss split by direction when the reflector numbers
//! its own replies, and the Class-of-Service check.
//!
//! Stateful or stateless is read off the numbers: the sender numbers its
//! packets from 1, a stateful reflector its replies from 0 (RFC 8762
//! §4.3.1), so a stateful reflector's number is always below the sender's
//! and a stateless one's always equal. For a stateful reflector, with `K`
//! the highest sender number answered and `R` the highest reflector number
//! received: the reflector received `R + 1` of the packets `1..=K`, so
//! `K − (R + 1)` were lost forward and `R + 1 − replies` on the way back;
//! the `sent − K` packets after the last answered one are lost in a
//! direction nobody can tell.

use std::collections::{BTreeMap, BTreeSet};

use dualperf_model::observation::{FlowCounters, Observations};
use dualperf_model::{StampClassOfService, StampObservations};

use crate::latency_recorder::LatencyRecorder;
use crate::sequence_tracker::SequenceTracker;

/// One accepted reply, times in nanoseconds since the Unix epoch.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub struct ReplyRecord {
    /// The test packet's number (from 1).
    pub sender_sequence: u32,
    /// The reply's number (the reflector's own, or the sender's echoed).
    pub reflector_sequence: u32,
    /// t1: the sender sent the test packet (sender's clock).
    pub t1: i64,
    /// t2: the reflector received it (reflector's clock).
    pub t2: i64,
    /// t3: the reflector sent the reply (reflector's clock).
    pub t3: i64,
    /// t4: the sender received the reply (sender's clock).
    pub t4: i64,
    /// The reply's TOS / Traffic Class at the sender.
    pub reply_tos: Option<u8>,
    /// The Class-of-Service TLV of the reply: (flags, DSCP2, ECN, RP).
    pub class_of_service: Option<(u8, u8, u8, u8)>,
    /// The reflector's Error Estimate S bit.
    pub reflector_synchronised: bool,
}

/// The session as a whole.
#[derive(Clone, Debug, Default)]
pub struct Session {
    /// Packets sent, numbered 1..=sent.
    pub sent: u64,
    /// UDP payload octets per packet.
    pub size_bytes: u32,
    /// From the first send to the last send plus one interval, nanoseconds.
    pub measured_ns: u64,
    /// Waiting time after the last send, milliseconds.
    pub loss_wait_ms: u64,
    /// Both ends share one clock, or the user declared them synchronised.
    pub clocks_comparable: bool,
    /// Authenticated mode.
    pub authenticated: bool,
    /// SSID used.
    pub ssid: u16,
    /// DSCP and ECN the test packets carried.
    pub sent_dscp: u8,
    /// ECN the test packets carried.
    pub sent_ecn: u8,
    /// Replies rejected (malformed, foreign, bad HMAC).
    pub rejected: u64,
    /// Receive times came from the kernel.
    pub kernel_timestamps: bool,
}

/// Longest raw series of round-trip times kept.
const RAW_LIMIT: usize = 100_000;

/// The observations of a session from its accepted `replies` in arrival order.
pub fn account(session: &Session, replies: &[ReplyRecord]) -> Observations {
    let source = if session.kernel_timestamps {
        "SO_TIMESTAMPNS"
    } else {
        "clock_gettime"
    };
    let mut notes = Vec::new();
    // Round-trip times, first copy of each test packet only.
    let mut latency = LatencyRecorder::new(RAW_LIMIT);
    let mut seen = BTreeSet::new();
    let mut turnaround_ignored = 0u64;
    for r in replies {
        if !seen.insert(r.sender_sequence) {
            continue;
        }
        let total = r.t4.saturating_sub(r.t1);
        let turnaround = r.t3.saturating_sub(r.t2);
        let rtt = if (0..=total).contains(&turnaround) {
            total - turnaround
        } else {
            turnaround_ignored += 1;
            total
        };
        latency.record(rtt.max(0) as u64);
    }
    if turnaround_ignored > 0 {
        notes.push(format!(
            "{turnaround_ignored} replies had a reflector turnaround (t3 − t2) below 0 or above \
             the round trip; their RTT is t4 − t1"
        ));
    }
    let distinct = seen.len() as u64;
    let stateful = replies.first().map(|_| {
        replies
            .iter()
            .any(|r| r.reflector_sequence != r.sender_sequence)
    });
    // Forward direction in the reflector's arrival order (stateful), else in
    // reply order.
    let mut forward_order: Vec<&ReplyRecord> = replies.iter().collect();
    if stateful == Some(true) {
        forward_order.sort_by_key(|r| r.reflector_sequence);
        forward_order.dedup_by_key(|r| r.reflector_sequence);
    }
    let mut forward = SequenceTracker::new(RAW_LIMIT);
    for r in &forward_order {
        forward.observe(u64::from(r.sender_sequence - 1), r.t1, r.t2);
    }
    let udp = forward.finish(
        session.sent,
        session.loss_wait_ms,
        source,
        session.clocks_comparable,
    );
    let mut stamp = StampObservations {
        authenticated: session.authenticated,
        ssid: session.ssid,
        sent: session.sent,
        replies: distinct,
        rejected_replies: session.rejected,
        reflector_stateful: stateful,
        reflector_clock_synchronised: replies.last().map(|r| r.reflector_synchronised),
        ..Default::default()
    };
    let highest_answered = replies.iter().map(|r| u64::from(r.sender_sequence)).max();
    stamp.unattributed_lost = session.sent - highest_answered.unwrap_or(0).min(session.sent);
    if stateful == Some(true) {
        let highest_reflected = replies.iter().map(|r| r.reflector_sequence).max();
        let reflected = highest_reflected.map_or(0, |r| u64::from(r) + 1);
        let answered = highest_answered.unwrap_or(0);
        let distinct_reflected: BTreeSet<u32> =
            replies.iter().map(|r| r.reflector_sequence).collect();
        stamp.reflector_received = Some(reflected);
        stamp.forward_lost = Some(answered.saturating_sub(reflected));
        stamp.reverse_lost = Some(reflected.saturating_sub(distinct_reflected.len() as u64));
        let mut reverse = SequenceTracker::new(RAW_LIMIT);
        for r in replies {
            reverse.observe(u64::from(r.reflector_sequence), r.t3, r.t4);
        }
        stamp.reverse = Some(reverse.finish(
            reflected,
            session.loss_wait_ms,
            source,
            session.clocks_comparable,
        ));
    } else if stateful == Some(false) {
        notes.push(
            "the reflector is stateless (it echoes the sender's numbers): loss is round-trip \
             only, not split by direction"
                .into(),
        );
    }
    stamp.class_of_service = class_of_service(session, replies);
    let size = u64::from(session.size_bytes);
    Observations {
        measured_ns: session.measured_ns,
        sender: FlowCounters {
            bytes: session.sent * size,
            packets: session.sent,
        },
        receiver: FlowCounters {
            bytes: distinct * size,
            packets: distinct,
        },
        latency: Some(latency.finish()),
        udp: Some(udp),
        notes,
        stamp: Some(Box::new(stamp)),
        ..Default::default()
    }
}

fn class_of_service(session: &Session, replies: &[ReplyRecord]) -> Option<StampClassOfService> {
    let mut cos = StampClassOfService {
        sent_dscp: session.sent_dscp,
        sent_ecn: session.sent_ecn,
        ..Default::default()
    };
    let mut received: BTreeMap<u8, u64> = BTreeMap::new();
    let mut reply: BTreeMap<u8, u64> = BTreeMap::new();
    let mut any = false;
    for r in replies {
        if let Some(tos) = r.reply_tos {
            *reply.entry(tos >> 2).or_default() += 1;
        }
        let Some((flags, dscp2, ecn, rp)) = r.class_of_service else {
            continue;
        };
        any = true;
        if flags & super::tlv::FLAG_UNRECOGNISED != 0 {
            cos.unsupported += 1;
            continue;
        }
        cos.reported += 1;
        *received.entry(dscp2).or_default() += 1;
        cos.remarked += u64::from(dscp2 != session.sent_dscp);
        cos.ecn_changed += u64::from(ecn != session.sent_ecn);
        cos.policy_refused += u64::from(rp != 0);
    }
    cos.received_dscp = received.into_iter().collect();
    cos.reply_dscp = reply.into_iter().collect();
    any.then_some(cos)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(sender: u32, reflector: u32) -> ReplyRecord {
        let t1 = i64::from(sender) * 10_000_000;
        ReplyRecord {
            sender_sequence: sender,
            reflector_sequence: reflector,
            t1,
            t2: t1 + 1_000_000,
            t3: t1 + 1_100_000,
            t4: t1 + 2_100_000,
            reply_tos: Some(0),
            class_of_service: Some((0, 0, 0, 0)),
            reflector_synchronised: false,
        }
    }

    fn session(sent: u64) -> Session {
        Session {
            sent,
            size_bytes: 100,
            measured_ns: sent * 10_000_000,
            loss_wait_ms: 1000,
            clocks_comparable: true,
            sent_dscp: 46,
            ..Default::default()
        }
    }

    #[test]
    fn a_stateful_reflector_splits_loss_by_direction() {
        // 10 sent; packet 4 lost forward (reflector numbers 0..=8 for the
        // other 9), the reply to packet 7 lost back, packet 10 lost somewhere.
        let mut replies = Vec::new();
        let mut reflector = 0;
        for sender in 1..=10u32 {
            if sender == 4 {
                continue;
            }
            if sender != 7 && sender != 10 {
                replies.push(reply(sender, reflector));
            }
            reflector += 1;
        }
        // Packet 10's reply lost too: the reflector did number it (8).
        let o = account(&session(10), &replies);
        let stamp = o.stamp.as_ref().unwrap();
        assert_eq!(stamp.reflector_stateful, Some(true));
        assert_eq!(stamp.replies, 7);
        assert_eq!(stamp.reflector_received, Some(8)); // highest answered reflector number 7
        assert_eq!(stamp.forward_lost, Some(1));
        assert_eq!(stamp.reverse_lost, Some(1));
        assert_eq!(stamp.unattributed_lost, 1);
        let udp = o.udp.as_ref().unwrap();
        assert_eq!((udp.sent, udp.received, udp.lost), (10, 7, 3));
        // RTT: (t4 − t1) − (t3 − t2) = 2.1 ms − 0.1 ms.
        assert_eq!(o.latency.as_ref().unwrap().min_ns, 2_000_000);
    }

    #[test]
    fn a_stateless_reflector_gives_round_trip_loss_only() {
        let replies: Vec<_> = (1..=5).filter(|&s| s != 3).map(|s| reply(s, s)).collect();
        let o = account(&session(5), &replies);
        let stamp = o.stamp.as_ref().unwrap();
        assert_eq!(stamp.reflector_stateful, Some(false));
        assert_eq!(stamp.forward_lost, None);
        assert_eq!(o.udp.as_ref().unwrap().lost, 1);
    }

    #[test]
    fn the_class_of_service_tlv_shows_a_remark() {
        let replies: Vec<_> = (1..=4).map(|s| reply(s, s - 1)).collect();
        let o = account(&session(4), &replies);
        let cos = o.stamp.unwrap().class_of_service.unwrap();
        assert_eq!((cos.reported, cos.remarked), (4, 4));
        assert_eq!(cos.received_dscp, vec![(0, 4)]);
    }
}

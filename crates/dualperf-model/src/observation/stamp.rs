//! What a STAMP session (RFC 8762, RFC 8972) told about one trial, beyond
//! the round-trip view every probe trial records.
//!
//! A trial against a STAMP Session-Reflector (`dualperf run --peer stamp`)
//! is a `udp-probe` point: its [`crate::Observations::latency`] holds the
//! round-trip times `(t4 − t1) − (t3 − t2)` (RFC 8762 §4.2.1: the
//! reflector's own turnaround removed), and its
//! [`crate::Observations::udp`] the forward direction as the reflector saw
//! it (sequence numbers and send times of the sender, receive times of the
//! reflector, in the reflector's arrival order when it numbers its own
//! packets). Loss there is **round-trip** loss: a packet whose reply never
//! came back is lost, whichever direction lost it. This record splits it.

use serde::{Deserialize, Serialize};

use crate::observation::UdpReceiveCounters;

/// The per-direction and Class-of-Service view of one STAMP trial.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StampObservations {
    /// True when the packets were in authenticated mode (RFC 8762 §4.2.2,
    /// HMAC-SHA-256 truncated to 16 octets).
    pub authenticated: bool,
    /// The Session-Sender Identifier the trial used (RFC 8972 §3).
    pub ssid: u16,
    /// Test packets sent.
    pub sent: u64,
    /// Distinct test packets whose reply came back (by sender sequence number).
    pub replies: u64,
    /// Replies dropped before accounting: malformed, from another session,
    /// or (authenticated mode) with an HMAC that does not verify.
    pub rejected_replies: u64,
    /// True when the reflector numbers its own packets (stateful, RFC 8762
    /// §4.3.1 / RFC 8972 §4): told apart because the sender numbers from 1
    /// and a stateful reflector from 0. `None` when no reply came back.
    pub reflector_stateful: Option<bool>,
    /// Test packets the reflector received, as its numbering tells (stateful
    /// reflectors only), up to the last packet whose reply came back.
    pub reflector_received: Option<u64>,
    /// Test packets lost on the way to the reflector (stateful reflectors only).
    pub forward_lost: Option<u64>,
    /// Replies lost on the way back (stateful reflectors only).
    pub reverse_lost: Option<u64>,
    /// Packets sent after the last one whose reply came back, and lost:
    /// which direction lost them the numbering cannot tell.
    pub unattributed_lost: u64,
    /// The reverse direction as the sender received it: the reflector's
    /// sequence numbers and transmit times, the sender's receive times.
    /// Loss counted here is meaningful for stateful reflectors only.
    pub reverse: Option<UdpReceiveCounters>,
    /// What the RFC 8972 Class-of-Service TLVs of the replies reported.
    pub class_of_service: Option<StampClassOfService>,
    /// The reflector's Error Estimate S bit (RFC 8762 §4.2.1): true when it
    /// says its clock is synchronised to UTC. `None` when no reply came back.
    pub reflector_clock_synchronised: Option<bool>,
}

/// DSCP and ECN sent against what the reflector received (RFC 8972 §4.4:
/// DSCP2 and ECN of the Class-of-Service TLV) and what came back.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StampClassOfService {
    /// DSCP the sender marked its test packets with (and asked the
    /// reflector to use for its replies, DSCP1).
    pub sent_dscp: u8,
    /// ECN codepoint the sender's packets carried (0: Not-ECT).
    pub sent_ecn: u8,
    /// Replies whose Class-of-Service TLV the reflector filled in (U flag clear).
    pub reported: u64,
    /// Replies whose Class-of-Service TLV came back unprocessed (U flag
    /// set): the reflector does not support RFC 8972 §4.4.
    pub unsupported: u64,
    /// Of `reported`: the DSCP the reflector received differed from `sent_dscp`.
    pub remarked: u64,
    /// Of `reported`: the ECN the reflector received differed from `sent_ecn`.
    pub ecn_changed: u64,
    /// The DSCP values the reflector received, with how many packets each.
    pub received_dscp: Vec<(u8, u64)>,
    /// The DSCP values the replies arrived with at the sender, with counts.
    pub reply_dscp: Vec<(u8, u64)>,
    /// Replies whose RP field says the reflector's policy refused DSCP1.
    pub policy_refused: u64,
}

impl StampClassOfService {
    /// Share of reported packets the path re-marked before the reflector.
    pub fn remarked_ratio(&self) -> Option<f64> {
        (self.reported > 0).then(|| self.remarked as f64 / self.reported as f64)
    }

    /// Share of reported packets whose ECN field changed before the reflector.
    pub fn ecn_changed_ratio(&self) -> Option<f64> {
        (self.reported > 0).then(|| self.ecn_changed as f64 / self.reported as f64)
    }
}

impl StampObservations {
    /// Forward loss ratio: lost on the way to the reflector / sent up to the
    /// last answered packet (stateful reflectors only).
    pub fn forward_loss_ratio(&self) -> Option<f64> {
        let lost = self.forward_lost?;
        let received = self.reflector_received?;
        let sent = lost + received;
        (sent > 0).then(|| lost as f64 / sent as f64)
    }

    /// Reverse loss ratio: replies lost on the way back / replies the
    /// reflector sent (stateful reflectors only).
    pub fn reverse_loss_ratio(&self) -> Option<f64> {
        let lost = self.reverse_lost?;
        let reflected = self.reflector_received?;
        (reflected > 0).then(|| lost as f64 / reflected as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_need_a_stateful_reflector() {
        let mut stamp = StampObservations {
            sent: 100,
            replies: 90,
            ..Default::default()
        };
        assert_eq!(stamp.forward_loss_ratio(), None);
        stamp.reflector_received = Some(95);
        stamp.forward_lost = Some(5);
        stamp.reverse_lost = Some(5);
        assert_eq!(stamp.forward_loss_ratio(), Some(0.05));
        assert!((stamp.reverse_loss_ratio().unwrap() - 5.0 / 95.0).abs() < 1e-12);
    }

    #[test]
    fn remarking_is_a_share_of_reported_packets() {
        let cos = StampClassOfService {
            reported: 4,
            remarked: 4,
            ..Default::default()
        };
        assert_eq!(cos.remarked_ratio(), Some(1.0));
        assert_eq!(StampClassOfService::default().remarked_ratio(), None);
    }
}

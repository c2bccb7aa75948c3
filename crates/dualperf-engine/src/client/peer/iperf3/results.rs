//! The results both ends exchange at the end of an iperf3 test
//! (`send_results` / `get_results` in iperf3's `iperf_api.c`): CPU use and
//! per-stream counters, as one JSON object each way.
//!
//! iperf3 writes numbers with cJSON, which prints integers above 2³¹ in
//! `%g` notation (`1.23456789012e+10`), so every number is read as f64 and
//! converted with bounds checks, never as an integer type directly.

use dualperf_model::{Iperf3Report, Iperf3StreamReport};
use serde::Deserialize;

use crate::error::{EngineError, Result};

/// The server's results as iperf3 sends them.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct PeerResults {
    /// Total CPU use of the server process, percent of one CPU.
    pub cpu_util_total: f64,
    /// User CPU, percent.
    pub cpu_util_user: f64,
    /// System CPU, percent.
    pub cpu_util_system: f64,
    /// 1 when the server (as sender) counted TCP retransmissions, 0 when it
    /// could not, -1 when it was the receiver.
    pub sender_has_retransmits: f64,
    /// The server's congestion control.
    #[serde(default)]
    pub congestion_used: Option<String>,
    /// One entry per stream.
    pub streams: Vec<PeerStream>,
}

/// One stream of [`PeerResults`].
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct PeerStream {
    /// iperf3's stream id.
    pub id: f64,
    /// Bytes received (server receiving) or sent after the omit period.
    pub bytes: f64,
    /// Retransmissions (server sending with TCP_INFO), else -1 (or 2^64 − 1).
    pub retransmits: f64,
    /// UDP jitter, seconds.
    pub jitter: f64,
    /// UDP datagrams counted lost.
    pub errors: f64,
    /// Lost datagrams within the omit period (iperf3 3.13 and later).
    #[serde(default)]
    pub omitted_errors: Option<f64>,
    /// UDP: highest sequence number seen (receiving) or datagrams sent.
    pub packets: f64,
    /// Datagrams within the omit period (iperf3 3.13 and later).
    #[serde(default)]
    pub omitted_packets: Option<f64>,
    /// Stream start, seconds (0).
    #[serde(default)]
    pub start_time: Option<f64>,
    /// Stream end, seconds after its start.
    #[serde(default)]
    pub end_time: Option<f64>,
}

/// A count from iperf3's JSON: finite, not negative, within u64.
fn count(value: f64, what: &str) -> Result<u64> {
    if value.is_finite() && (0.0..1.8e19).contains(&value) {
        Ok(value.round() as u64)
    } else {
        Err(EngineError::Protocol(format!(
            "the iperf3 server reported {value} as {what}"
        )))
    }
}

/// Seconds from iperf3's JSON as nanoseconds (negative or absurd: 0).
fn seconds_ns(value: f64) -> u64 {
    if value.is_finite() && (0.0..1.0e9).contains(&value) {
        (value * 1e9).round() as u64
    } else {
        0
    }
}

impl PeerResults {
    /// Parses the server's results document.
    ///
    /// # Errors
    /// [`EngineError::Protocol`] when a required key is missing or mistyped.
    pub fn from_json(value: serde_json::Value) -> Result<PeerResults> {
        serde_json::from_value(value).map_err(|e| {
            EngineError::Protocol(format!("the iperf3 server's results are not iperf3's: {e}"))
        })
    }

    /// These results with only the streams `ids` (one direction of a
    /// bidirectional test: iperf3 numbers streams alike at both ends).
    ///
    /// # Errors
    /// [`EngineError::Protocol`] when the server reported none of them.
    pub fn with_streams(&self, ids: &[i64]) -> Result<PeerResults> {
        let streams: Vec<PeerStream> = self
            .streams
            .iter()
            .filter(|s| s.id.is_finite() && ids.contains(&(s.id as i64)))
            .cloned()
            .collect();
        if streams.is_empty() {
            return Err(EngineError::Protocol(format!(
                "the iperf3 server's results name none of the streams {ids:?}"
            )));
        }
        Ok(PeerResults {
            streams,
            ..self.clone()
        })
    }

    /// The server's account in dualperf's model. `server_received` is true
    /// when the server was the receiver (dualperf sent); `omit_s` the
    /// warm-up the server was asked to leave out.
    ///
    /// # Errors
    /// A count that is negative or not a number.
    pub fn to_report(&self, server_received: bool, udp: bool, omit_s: u32) -> Result<Iperf3Report> {
        let mut streams = Vec::with_capacity(self.streams.len());
        let mut omitted_reported = true;
        let (mut packets, mut lost, mut retransmits) = (0u64, 0u64, 0u64);
        for stream in &self.streams {
            let omitted_packets = stream.omitted_packets.map(|p| count(p, "omitted packets"));
            let omitted_errors = stream.omitted_errors.map(|e| count(e, "omitted errors"));
            let (omitted_packets, omitted_errors) = match (omitted_packets, omitted_errors) {
                (Some(p), Some(e)) => (p?, e?),
                _ => {
                    omitted_reported = false;
                    (0, 0)
                }
            };
            let stream_packets = count(stream.packets, "packets")?.saturating_sub(omitted_packets);
            let stream_errors = count(stream.errors, "errors")?.saturating_sub(omitted_errors);
            packets += stream_packets;
            lost += stream_errors;
            // -1 (not counted) arrives as 2^64 − 1 from some servers
            // (an unsigned -1 printed by cJSON): anything absurd is "not counted".
            if (0.0..1e15).contains(&stream.retransmits) {
                retransmits += stream.retransmits as u64;
            }
            let interval_ns = match (stream.start_time, stream.end_time) {
                (Some(start), Some(end)) => seconds_ns(end - start),
                _ => 0,
            };
            streams.push(Iperf3StreamReport {
                id: stream.id as i64,
                bytes: count(stream.bytes, "bytes")?,
                packets: stream_packets,
                errors: stream_errors,
                jitter_ns: seconds_ns(stream.jitter),
                interval_ns,
            });
        }
        let udp_receiving = udp && server_received;
        Ok(Iperf3Report {
            server_received,
            bytes: streams.iter().map(|s| s.bytes).sum(),
            interval_ns: streams.iter().map(|s| s.interval_ns).max().unwrap_or(0),
            omit_s,
            udp_packets: udp_receiving.then_some(packets),
            udp_lost: udp_receiving.then_some(lost),
            udp_jitter_ns: udp_receiving
                .then(|| streams.iter().map(|s| s.jitter_ns).max().unwrap_or(0)),
            udp_counts_include_omit: udp_receiving && omit_s > 0 && !omitted_reported,
            retransmits: (!server_received && self.sender_has_retransmits > 0.0)
                .then_some(retransmits),
            cpu_util_total_percent: self.cpu_util_total,
            congestion_used: self.congestion_used.clone(),
            streams,
        })
    }
}

/// One of the client's streams, as it goes into the client's results.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OwnStream {
    /// iperf3's stream id.
    pub id: i64,
    /// Bytes sent (client sending) or received.
    pub bytes: u64,
    /// UDP datagrams sent, or the highest sequence number received.
    pub packets: u64,
    /// UDP datagrams counted lost (client receiving).
    pub errors: u64,
    /// UDP jitter (client receiving), seconds.
    pub jitter_s: f64,
    /// The stream's measured interval, seconds.
    pub seconds: f64,
}

/// The client's results document. The server only displays it, but
/// rejects it unless every stream id is one of its own.
pub fn own_results_json(
    streams: &[OwnStream],
    client_sent: bool,
    cpu_percent: (f64, f64, f64),
) -> serde_json::Value {
    let streams: Vec<serde_json::Value> = streams
        .iter()
        .map(|s| {
            serde_json::json!({
                "id": s.id,
                "bytes": s.bytes,
                "retransmits": -1,
                "jitter": s.jitter_s,
                "errors": s.errors,
                "omitted_errors": 0,
                "packets": s.packets,
                "omitted_packets": 0,
                "start_time": 0,
                "end_time": s.seconds,
            })
        })
        .collect();
    serde_json::json!({
        "cpu_util_total": cpu_percent.0,
        "cpu_util_user": cpu_percent.1,
        "cpu_util_system": cpu_percent.2,
        "sender_has_retransmits": if client_sent { 0 } else { -1 },
        "streams": streams,
    })
}

/// iperf3's stream ids: 1 for the first, then 3, 4, 5 … (`iperf_add_stream`
/// skips 2 and iperf3 keeps it that way for compatibility).
pub fn stream_id(index: usize) -> i64 {
    match index {
        0 => 1,
        n => n as i64 + 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Results as an iperf3 3.12 server sends them after a UDP test it
    /// received (taken from iperf3's `send_results` format; large byte
    /// counts in cJSON's %g notation).
    const SERVER_312_UDP: &str = r#"{"cpu_util_total":3.5,"cpu_util_user":0.5,"cpu_util_system":3.0,
        "sender_has_retransmits":-1,"streams":[
        {"id":1,"bytes":1.23456789012e+10,"retransmits":-1,"jitter":0.000125,"errors":7,"packets":1000,"start_time":0,"end_time":2.0004},
        {"id":3,"bytes":1000,"retransmits":-1,"jitter":0.00025,"errors":1,"packets":500,"start_time":0,"end_time":2.0}]}"#;

    #[test]
    fn a_312_server_s_udp_results_become_the_report() {
        let json: serde_json::Value = serde_json::from_str(SERVER_312_UDP).unwrap();
        let results = PeerResults::from_json(json).unwrap();
        let report = results.to_report(true, true, 1).unwrap();
        assert_eq!(report.bytes, 12_345_678_901 + 1000);
        assert_eq!(report.udp_packets, Some(1500));
        assert_eq!(report.udp_lost, Some(8));
        assert_eq!(report.udp_jitter_ns, Some(250_000));
        assert_eq!(report.interval_ns, 2_000_400_000);
        assert!(
            report.udp_counts_include_omit,
            "3.12 reports no omitted counts"
        );
        assert_eq!(report.retransmits, None);
        assert_eq!(report.streams[1].id, 3);
    }

    #[test]
    fn omitted_counts_of_newer_servers_are_taken_out() {
        let json = serde_json::json!({"cpu_util_total":1,"cpu_util_user":0,"cpu_util_system":1,
            "sender_has_retransmits":-1,"streams":[{"id":1,"bytes":10,"retransmits":-1,
            "jitter":0,"errors":5,"omitted_errors":2,"packets":100,"omitted_packets":40}]});
        let report = PeerResults::from_json(json)
            .unwrap()
            .to_report(true, true, 1)
            .unwrap();
        assert_eq!((report.udp_packets, report.udp_lost), (Some(60), Some(3)));
        assert!(!report.udp_counts_include_omit);
    }

    #[test]
    fn hostile_results_are_errors() {
        let missing = serde_json::json!({"cpu_util_total":1});
        assert!(PeerResults::from_json(missing).is_err());
        let negative = serde_json::json!({"cpu_util_total":1,"cpu_util_user":0,"cpu_util_system":1,
            "sender_has_retransmits":1,"streams":[{"id":1,"bytes":-10,"retransmits":0,
            "jitter":0,"errors":0,"packets":0}]});
        let results = PeerResults::from_json(negative).unwrap();
        assert!(results.to_report(false, false, 0).is_err());
    }

    #[test]
    fn one_direction_of_bidirectional_results_keeps_its_own_streams() {
        let json: serde_json::Value = serde_json::from_str(SERVER_312_UDP).unwrap();
        let results = PeerResults::from_json(json).unwrap();
        let reverse = results.with_streams(&[3]).unwrap();
        assert_eq!(reverse.streams.len(), 1);
        assert_eq!(reverse.to_report(false, true, 0).unwrap().bytes, 1000);
        let error = results.with_streams(&[7]).unwrap_err().to_string();
        assert!(error.contains("none of the streams"), "{error}");
    }

    #[test]
    fn stream_ids_skip_two_as_iperf3_does() {
        assert_eq!((0..4).map(stream_id).collect::<Vec<_>>(), vec![1, 3, 4, 5]);
    }

    #[test]
    fn own_results_carry_what_get_results_requires() {
        let json = own_results_json(
            &[OwnStream {
                id: 1,
                bytes: 5,
                ..OwnStream::default()
            }],
            true,
            (1.0, 0.5, 0.5),
        );
        // iperf3's get_results requires these keys of every stream.
        for key in ["id", "bytes", "retransmits", "jitter", "errors", "packets"] {
            assert!(json["streams"][0].get(key).is_some(), "{key}");
        }
        assert_eq!(json["sender_has_retransmits"], 0);
    }
}

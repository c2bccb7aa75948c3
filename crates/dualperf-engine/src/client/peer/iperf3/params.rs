//! The test parameters a client sends to an iperf3 server (iperf3's
//! `send_parameters`: one JSON object), built from a dualperf point.
//!
//! iperf3 counts time in whole seconds (`time`, `omit` are integers), so a
//! point's duration and warm-up are rounded up; the client still ends the
//! test itself after exactly the point's duration (the server's own timer
//! only ends tests whose client vanished).

use dualperf_model::{Marking, TestKind, TestSpec};

use crate::error::{EngineError, Result};

/// iperf3's bound on parallel streams (`MAX_STREAMS`).
pub const MAX_STREAMS: u32 = 128;

/// iperf3's largest TCP write (`MAX_BLOCKSIZE`, 1 MiB), bytes.
pub const MAX_TCP_BLOCK_BYTES: u32 = 1024 * 1024;

/// iperf3's smallest UDP datagram: its header of sec, usec and a 64-bit
/// sequence number (`MIN_UDP_BLOCKSIZE`), bytes.
pub const MIN_UDP_BLOCK_BYTES: u32 = 16;

/// iperf3's largest UDP payload (`MAX_UDP_BLOCKSIZE`), bytes.
pub const MAX_UDP_BLOCK_BYTES: u32 = 65_535 - 8 - 20;

/// The version string sent as `client_version`.
pub const CLIENT_VERSION: &str = concat!("dualperf ", env!("CARGO_PKG_VERSION"));

/// What the client asks an iperf3 server to do.
#[derive(Clone, Debug, PartialEq)]
pub struct TestParameters {
    /// TCP (`tcp: true`) or UDP (`udp: true`).
    pub udp: bool,
    /// Warm-up the server leaves out of its counts, whole seconds.
    pub omit_s: u32,
    /// The test's length as the server's safety timer knows it, whole seconds.
    pub time_s: u32,
    /// Parallel streams.
    pub parallel: u32,
    /// The server sends (`-R`).
    pub reverse: bool,
    /// Both directions at once (`--bidir`, iperf3 3.7 and later): the
    /// client opens `parallel` sending streams, then `parallel` receiving ones.
    pub bidirectional: bool,
    /// Write size (TCP) or datagram payload (UDP), bytes.
    pub len: u32,
    /// Target rate per stream, bit/s (UDP; 0: unlimited).
    pub bandwidth_bps: u64,
    /// The IP TOS byte the server sets on its data sockets (DSCP << 2).
    pub tos: u8,
    /// IPv6 flow label the server sets on its data sockets.
    pub flow_label: u32,
    /// TCP congestion control the server should use.
    pub congestion: Option<String>,
}

impl TestParameters {
    /// The parameters of `spec` under `marking`.
    ///
    /// # Errors
    /// [`EngineError::InvalidTest`] for a kind an iperf3 server cannot run
    /// (only tcp-stream and udp-stream) or a size, stream count or duration
    /// outside iperf3's bounds.
    pub fn for_point(spec: &TestSpec, marking: &Marking) -> Result<TestParameters> {
        let udp = match spec.kind {
            TestKind::TcpStream => false,
            TestKind::UdpStream => true,
            other => {
                return Err(EngineError::InvalidTest(format!(
                    "{other} needs a dualperf or STAMP peer: an iperf3 server runs only tcp-stream and udp-stream"
                )))
            }
        };
        let (low, high) = if udp {
            (MIN_UDP_BLOCK_BYTES, MAX_UDP_BLOCK_BYTES)
        } else {
            (1, MAX_TCP_BLOCK_BYTES)
        };
        if !(low..=high).contains(&spec.size_bytes) {
            return Err(EngineError::InvalidTest(format!(
                "{} B is outside what an iperf3 server takes for {} ({low} to {high} B)",
                spec.size_bytes, spec.kind
            )));
        }
        if !(1..=MAX_STREAMS).contains(&spec.parallel_streams) {
            return Err(EngineError::InvalidTest(format!(
                "{} parallel streams: an iperf3 server takes 1 to {MAX_STREAMS}",
                spec.parallel_streams
            )));
        }
        if let Some(budget) = spec.send_budget {
            return Err(EngineError::InvalidTest(format!(
                "a send budget ({budget}, -n/-k) against an iperf3 server is not implemented: \
                 its tests are timed here; use a dualperf server"
            )));
        }
        if spec.duration_ms == 0 {
            return Err(EngineError::InvalidTest(
                "a test against an iperf3 server needs a duration above 0".into(),
            ));
        }
        let whole_seconds = |ms: u64| u32::try_from(ms.div_ceil(1000)).unwrap_or(u32::MAX);
        Ok(TestParameters {
            udp,
            omit_s: whole_seconds(spec.warmup_ms),
            time_s: whole_seconds(spec.duration_ms),
            parallel: spec.parallel_streams,
            reverse: spec.reverse,
            bidirectional: false,
            len: spec.size_bytes,
            bandwidth_bps: spec.rate.map(|r| r.bits_per_second()).unwrap_or(0),
            tos: marking.dscp.map(|d| d.value() << 2).unwrap_or(0),
            flow_label: marking.flow_label.map(|l| l.value()).unwrap_or(0),
            congestion: spec.congestion_control.clone(),
        })
    }

    /// The JSON object iperf3's `get_parameters` reads. Optional keys are
    /// left out when unset, as iperf3's own client does.
    pub fn to_json(&self) -> serde_json::Value {
        let mut json = serde_json::Map::new();
        let protocol = if self.udp { "udp" } else { "tcp" };
        json.insert(protocol.into(), true.into());
        json.insert("omit".into(), self.omit_s.into());
        json.insert("time".into(), self.time_s.into());
        json.insert("num".into(), 0.into());
        json.insert("blockcount".into(), 0.into());
        json.insert("parallel".into(), self.parallel.into());
        if self.reverse {
            json.insert("reverse".into(), true.into());
        }
        if self.bidirectional {
            json.insert("bidirectional".into(), true.into());
        }
        json.insert("len".into(), self.len.into());
        if self.bandwidth_bps > 0 {
            json.insert("bandwidth".into(), self.bandwidth_bps.into());
        }
        if self.tos != 0 {
            json.insert("TOS".into(), self.tos.into());
        }
        if self.flow_label != 0 {
            json.insert("flowlabel".into(), self.flow_label.into());
        }
        if let Some(congestion) = &self.congestion {
            json.insert("congestion".into(), congestion.clone().into());
        }
        json.insert("pacing_timer".into(), 1000.into());
        json.insert("client_version".into(), CLIENT_VERSION.into());
        serde_json::Value::Object(json)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::{BitRate, Dscp};

    #[test]
    fn a_udp_point_becomes_iperf3_parameters() {
        let spec = TestSpec {
            duration_ms: 1500,
            warmup_ms: 250,
            rate: Some(BitRate::from_mbit(10)),
            parallel_streams: 2,
            reverse: true,
            ..TestSpec::new(TestKind::UdpStream, 1200)
        };
        let marking = Marking {
            dscp: Some(Dscp::new(46).unwrap()),
            flow_label: None,
        };
        let params = TestParameters::for_point(&spec, &marking).unwrap();
        let json = params.to_json();
        assert_eq!(json["udp"], true);
        assert!(json.get("tcp").is_none());
        assert_eq!(json["time"], 2, "rounded up to whole seconds");
        assert_eq!(json["omit"], 1);
        assert_eq!(json["parallel"], 2);
        assert_eq!(json["reverse"], true);
        assert_eq!(json["len"], 1200);
        assert_eq!(json["bandwidth"], 10_000_000);
        assert_eq!(json["TOS"], 184, "EF is TOS 0xb8");
        assert!(json["client_version"]
            .as_str()
            .unwrap()
            .starts_with("dualperf"));
    }

    #[test]
    fn kinds_and_sizes_an_iperf3_server_cannot_run_are_refused_with_a_reason() {
        let rr = TestSpec::new(TestKind::TcpRr, 64);
        let error = TestParameters::for_point(&rr, &Marking::default())
            .unwrap_err()
            .to_string();
        assert!(error.contains("needs a dualperf or STAMP peer"), "{error}");
        let tiny = TestSpec::new(TestKind::UdpStream, 8);
        assert!(TestParameters::for_point(&tiny, &Marking::default()).is_err());
        let many = TestSpec {
            parallel_streams: 129,
            ..TestSpec::new(TestKind::TcpStream, 131_072)
        };
        assert!(TestParameters::for_point(&many, &Marking::default()).is_err());
        let tcp = TestSpec::new(TestKind::TcpStream, 131_072);
        let json = TestParameters::for_point(&tcp, &Marking::default())
            .unwrap()
            .to_json();
        assert_eq!(json["tcp"], true);
        assert!(json.get("reverse").is_none() && json.get("bandwidth").is_none());
        assert!(json.get("bidirectional").is_none());
        let both = TestParameters {
            bidirectional: true,
            ..TestParameters::for_point(&tcp, &Marking::default()).unwrap()
        };
        assert_eq!(both.to_json()["bidirectional"], true);
    }
}

//! Socket options a run asks of its data sockets, as iperf3's `-w`, `-M`
//! and `-N` ask them: socket buffer sizes (`SO_SNDBUF`/`SO_RCVBUF`,
//! socket(7)), the TCP maximum segment size (`TCP_MAXSEG`, tcp(7); RFC 9293
//! §3.7.1) and `TCP_NODELAY` (Nagle off, RFC 896). The default asks for
//! nothing: the engine's own buffer sizes and the kernel's MSS and Nagle.

use serde::{Deserialize, Serialize};

/// What a point asks of its data sockets beyond the engine's defaults.
#[derive(
    Clone, Copy, Debug, Default, Eq, PartialEq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct SocketTuning {
    /// iperf3's `-w`: `SO_SNDBUF` and `SO_RCVBUF` of both ends' data
    /// sockets, in bytes as asked (Linux doubles the value for its own
    /// bookkeeping; the granted size is in `SocketFacts`). `None`: the
    /// engine's sizes (kernel autotuning for TCP).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_bytes: Option<u32>,
    /// iperf3's `-M`: `TCP_MAXSEG` of the client's TCP data sockets, set
    /// before `connect` so the SYN announces it, in bytes; the MSS actually
    /// used is `TcpCounters::send_mss_bytes` (`tcpi_snd_mss`). `None`: the
    /// kernel's, from the route MTU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mss_bytes: Option<u32>,
    /// iperf3's `-N`: `TCP_NODELAY` on both ends' TCP data sockets (tcp-rr
    /// and tcp-connect always set it; this turns Nagle off for tcp-stream).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_delay: bool,
}

impl SocketTuning {
    /// Smallest `TCP_MAXSEG` Linux takes (`TCP_MIN_MSS`), bytes.
    pub const MIN_MSS_BYTES: u32 = 88;
    /// Largest `TCP_MAXSEG` Linux takes (`MAX_TCP_WINDOW`), bytes.
    pub const MAX_MSS_BYTES: u32 = 32_767;
    /// Largest buffer a run may ask for: 256 MiB, two bandwidth-delay
    /// products of 10 Gbit/s × 100 ms; a server admits no more per socket
    /// (as root, `SO_*BUFFORCE` ignores `net.core.*mem_max`).
    pub const MAX_BUFFER_BYTES: u32 = 256 << 20;

    /// True when nothing is asked (the serialised form then leaves it out).
    pub fn is_default(&self) -> bool {
        *self == SocketTuning::default()
    }

    /// Why these values cannot be asked of a socket, if they cannot.
    ///
    /// # Errors
    /// A message naming the value and the accepted range.
    pub fn validate(&self) -> Result<(), String> {
        if let Some(mss) = self.mss_bytes {
            if !(Self::MIN_MSS_BYTES..=Self::MAX_MSS_BYTES).contains(&mss) {
                return Err(format!(
                    "MSS {mss} B is outside Linux's TCP_MAXSEG range {} to {} B",
                    Self::MIN_MSS_BYTES,
                    Self::MAX_MSS_BYTES
                ));
            }
        }
        if let Some(bytes) = self.buffer_bytes {
            if bytes == 0 || bytes > Self::MAX_BUFFER_BYTES {
                return Err(format!("socket buffer {bytes} B is outside 1 B to 256 MiB"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_asks_nothing_and_stays_out_of_json() {
        assert!(SocketTuning::default().is_default());
        let asked = SocketTuning {
            no_delay: true,
            ..Default::default()
        };
        assert_eq!(
            serde_json::to_string(&asked).unwrap(),
            r#"{"no_delay":true}"#
        );
        assert_eq!(
            serde_json::to_string(&SocketTuning::default()).unwrap(),
            "{}"
        );
    }

    #[test]
    fn out_of_range_values_are_refused() {
        for bad in [
            SocketTuning {
                mss_bytes: Some(10),
                ..Default::default()
            },
            SocketTuning {
                mss_bytes: Some(70_000),
                ..Default::default()
            },
            SocketTuning {
                buffer_bytes: Some(0),
                ..Default::default()
            },
            SocketTuning {
                buffer_bytes: Some(u32::MAX),
                ..Default::default()
            },
        ] {
            assert!(bad.validate().is_err(), "{bad:?}");
        }
        let fine = SocketTuning {
            mss_bytes: Some(1000),
            buffer_bytes: Some(1 << 20),
            no_delay: true,
        };
        assert!(fine.validate().is_ok());
    }
}

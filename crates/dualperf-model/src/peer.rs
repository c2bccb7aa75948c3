//! The kind of far end a run measures against.
//!
//! dualperf normally measures against its own server (`dualperf serve`), which
//! reports its own meters over dualperf's control protocol. Against the
//! deployed world the far end may instead be a server dualperf does not run:
//! an iperf3 server (iperf3's control protocol, esnet/iperf) or a STAMP
//! Session-Reflector (RFC 8762, with the RFC 8972 extensions). The peer kind
//! decides which protocol the client speaks and which metrics the far end can
//! give (an iperf3 server reports receiver bytes, UDP loss and jitter, but no
//! per-packet one-way delay; a STAMP reflector timestamps every packet).

use serde::{Deserialize, Serialize};

/// Which implementation answers at the far end of every arm of a run.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum PeerKind {
    /// `dualperf serve`: dualperf's own control protocol, every test kind.
    #[default]
    Dualperf,
    /// An iperf3 3.x server: iperf3's control protocol, TCP and UDP streams.
    Iperf3,
    /// A STAMP Session-Reflector (RFC 8762): timestamped UDP test packets.
    Stamp,
}

impl PeerKind {
    /// The word used on the command line, in JSON, SQL and reports.
    pub fn name(self) -> &'static str {
        match self {
            PeerKind::Dualperf => "dualperf",
            PeerKind::Iperf3 => "iperf3",
            PeerKind::Stamp => "stamp",
        }
    }

    /// True for dualperf's own server (the default, omitted from JSON).
    pub fn is_dualperf(&self) -> bool {
        *self == PeerKind::Dualperf
    }
}

impl std::fmt::Display for PeerKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_json() {
        for kind in [PeerKind::Dualperf, PeerKind::Iperf3, PeerKind::Stamp] {
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(json, format!("\"{}\"", kind.name()));
            let back: PeerKind = serde_json::from_str(&json).unwrap();
            assert_eq!(back, kind);
        }
        assert!(PeerKind::default().is_dualperf());
    }
}

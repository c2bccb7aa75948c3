//! A trial's send budget: what ends a stream trial when it is not the clock
//! (iperf3's `-n BYTES` and `-k BLOCKS`). A timed trial ends after
//! [`crate::TestSpec::duration_ms`]; a budgeted one ends as soon as the
//! sender has written its budget in the measured interval, and
//! `duration_ms` is then only the time cap, so nothing runs unbounded.
//!
//! The budget counts *blocks*: one `write(2)` of the point's size for
//! tcp-stream, one datagram for udp-stream. A byte budget is rounded up to
//! whole blocks (`-n 1M -l 1408` sends 745 datagrams = 1,048,960 bytes),
//! as iperf3 stops at the first block that reaches the count. Warm-up
//! traffic does not count. The 1 M-packet runs of the Gigabit UDP study
//! (seed 004) are `-k 1000000`.

use std::fmt;

use serde::{Deserialize, Serialize};

/// How much a budgeted stream trial sends in its measured interval, in all
/// its parallel streams together.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SendBudget {
    /// Payload bytes (iperf3 `-n`), rounded up to whole blocks.
    Bytes(u64),
    /// Blocks: datagrams for udp-stream, writes for tcp-stream (iperf3 `-k`).
    Packets(u64),
}

impl SendBudget {
    /// The budget in blocks of `size_bytes`: a byte budget rounded up to a
    /// whole block (at least one), a packet budget as it is.
    pub fn blocks(self, size_bytes: u32) -> u64 {
        match self {
            SendBudget::Packets(packets) => packets,
            SendBudget::Bytes(bytes) => bytes.div_ceil(u64::from(size_bytes.max(1))),
        }
    }

    /// The blocks of stream `index` of `streams`: the budget split as evenly
    /// as whole blocks allow, the first streams taking the remainder, so the
    /// shares add up to [`SendBudget::blocks`] exactly.
    pub fn stream_share(self, size_bytes: u32, index: u32, streams: u32) -> u64 {
        let total = self.blocks(size_bytes);
        let streams = u64::from(streams.max(1));
        let base = total / streams;
        base + u64::from(u64::from(index) < total % streams)
    }
}

impl fmt::Display for SendBudget {
    /// `1000000 packets` or `1048576 bytes`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SendBudget::Packets(n) => write!(f, "{n} packets"),
            SendBudget::Bytes(n) => write!(f, "{n} bytes"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_byte_budget_rounds_up_to_whole_blocks() {
        assert_eq!(SendBudget::Bytes(1 << 20).blocks(1408), 745);
        assert_eq!(SendBudget::Bytes(1408).blocks(1408), 1);
        assert_eq!(SendBudget::Bytes(1).blocks(1408), 1);
        assert_eq!(SendBudget::Bytes(0).blocks(1408), 0);
        assert_eq!(SendBudget::Packets(1_000_000).blocks(128), 1_000_000);
        assert_eq!(SendBudget::Bytes(10).blocks(0), 10);
    }

    #[test]
    fn stream_shares_add_up_to_the_budget() {
        for total in [0u64, 1, 7, 1000, 1_000_003] {
            for streams in 1..=8u32 {
                let budget = SendBudget::Packets(total);
                let shares: Vec<u64> = (0..streams)
                    .map(|i| budget.stream_share(64, i, streams))
                    .collect();
                assert_eq!(shares.iter().sum::<u64>(), total, "{total} / {streams}");
                let (min, max) = (shares.iter().min(), shares.iter().max());
                assert!(max.unwrap() - min.unwrap() <= 1);
            }
        }
    }

    #[test]
    fn the_json_names_the_unit() {
        let text = serde_json::to_string(&SendBudget::Packets(5)).unwrap();
        assert_eq!(text, r#"{"packets":5}"#);
        let back: SendBudget = serde_json::from_str(r#"{"bytes":1024}"#).unwrap();
        assert_eq!(back, SendBudget::Bytes(1024));
    }
}

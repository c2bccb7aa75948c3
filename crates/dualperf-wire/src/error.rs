//! The errors of reading a capture.

/// A capture that cannot be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum WireError {
    /// The bytes are not a classic pcap file.
    #[error("not a pcap file: {0}")]
    NotPcap(String),
    /// The file's link layer is not one the reader strips.
    #[error("pcap link type {0} is not supported (Ethernet, raw IP, Linux cooked v1/v2 are)")]
    LinkType(u32),
}

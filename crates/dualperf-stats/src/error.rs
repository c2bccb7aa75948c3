//! The one error type of the stats crate.

/// Why a statistics or overhead computation could not be done.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StatsError {
    /// The MTU cannot hold the headers of the path (plus one payload byte).
    #[error(
        "an MTU of {mtu_bytes} bytes cannot carry {path}: its headers need {header_bytes} bytes"
    )]
    MtuTooSmall {
        /// The MTU asked for, bytes.
        mtu_bytes: u32,
        /// The path, e.g. "IPv6 TCP in 6in4".
        path: String,
        /// Bytes of IP, encapsulation and transport headers inside the MTU.
        header_bytes: u32,
    },
    /// A UDP datagram larger than the family allows.
    #[error("a {size_bytes}-byte UDP datagram does not fit {path}: at most {limit_bytes} bytes")]
    DatagramTooLarge {
        /// The datagram payload asked for, bytes.
        size_bytes: u32,
        /// The path.
        path: String,
        /// The largest payload the family allows, bytes.
        limit_bytes: u32,
    },
}

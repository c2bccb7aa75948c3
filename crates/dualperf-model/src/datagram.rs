//! The header at the start of every udp-stream datagram, and the hello
//! datagram that tells a server where the client's UDP socket is.
//!
//! ```text
//! 0       8       16      20      (bytes, big-endian)
//! | sequence u64 | sent_ns i64 | flags u32 | padding to the payload size …
//! ```
//!
//! - `sequence`: from 0 within the measured interval of one stream;
//!   warm-up datagrams carry their own sequence and the WARMUP flag.
//! - `sent_ns`: CLOCK_REALTIME at the send call of the datagram's batch
//!   (see `dualperf_engine::clock`).
//!
//! A hello is `"DPHELLO\0"`, the session token (u64) and the stream index (u32).
//!
//! Pure byte format, shared by the engine (which writes and reads it on
//! its sockets) and the wire check (`dualperf-wire`, which reads it from
//! captured packets); lives in the model so neither stage depends on the other.

/// Bytes of the udp-stream header; the smallest udp-stream payload.
pub const HEADER_BYTES: usize = 20;

/// Flag: sent during warm-up, not part of the measurement.
pub const FLAG_WARMUP: u32 = 1;

const HELLO_MAGIC: &[u8; 8] = b"DPHELLO\0";

/// Bytes of a hello datagram.
pub const HELLO_BYTES: usize = 20;

/// A decoded udp-stream header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Sequence number within the stream.
    pub sequence: u64,
    /// Sender's CLOCK_REALTIME, nanoseconds.
    pub sent_ns: i64,
    /// [`FLAG_WARMUP`] or 0.
    pub flags: u32,
}

/// Writes a header into the first [`HEADER_BYTES`] of `buffer`.
///
/// # Panics
/// If `buffer` is shorter than [`HEADER_BYTES`]; sizes are validated first.
pub fn write_header(buffer: &mut [u8], header: Header) {
    buffer[0..8].copy_from_slice(&header.sequence.to_be_bytes());
    buffer[8..16].copy_from_slice(&header.sent_ns.to_be_bytes());
    buffer[16..20].copy_from_slice(&header.flags.to_be_bytes());
}

/// Reads a header; `None` when the datagram is too short.
pub fn read_header(buffer: &[u8]) -> Option<Header> {
    if buffer.len() < HEADER_BYTES {
        return None;
    }
    Some(Header {
        sequence: u64::from_be_bytes(buffer[0..8].try_into().ok()?),
        sent_ns: i64::from_be_bytes(buffer[8..16].try_into().ok()?),
        flags: u32::from_be_bytes(buffer[16..20].try_into().ok()?),
    })
}

/// A hello datagram for `stream` of the session with `token`.
pub fn hello(token: u64, stream: u32) -> [u8; HELLO_BYTES] {
    let mut bytes = [0u8; HELLO_BYTES];
    bytes[0..8].copy_from_slice(HELLO_MAGIC);
    bytes[8..16].copy_from_slice(&token.to_be_bytes());
    bytes[16..20].copy_from_slice(&stream.to_be_bytes());
    bytes
}

/// The token and stream of a hello datagram, `None` for anything else.
pub fn read_hello(bytes: &[u8]) -> Option<(u64, u32)> {
    if bytes.len() != HELLO_BYTES || &bytes[0..8] != HELLO_MAGIC {
        return None;
    }
    Some((
        u64::from_be_bytes(bytes[8..16].try_into().ok()?),
        u32::from_be_bytes(bytes[16..20].try_into().ok()?),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn header_has_a_known_byte_layout() {
        let mut buffer = [0u8; 24];
        write_header(
            &mut buffer,
            Header {
                sequence: 258,
                sent_ns: -1,
                flags: FLAG_WARMUP,
            },
        );
        assert_eq!(&buffer[0..8], &[0, 0, 0, 0, 0, 0, 1, 2]);
        assert_eq!(&buffer[8..16], &[0xff; 8]);
        assert_eq!(&buffer[16..20], &[0, 0, 0, 1]);
        assert_eq!(read_header(&buffer).unwrap().sequence, 258);
    }

    #[test]
    fn short_datagram_has_no_header() {
        assert_eq!(read_header(&[0u8; 19]), None);
    }

    #[test]
    fn hello_round_trips_and_rejects_other_bytes() {
        assert_eq!(read_hello(&hello(7, 3)), Some((7, 3)));
        assert_eq!(read_hello(&[0u8; HELLO_BYTES]), None);
    }

    proptest! {
        #[test]
        fn arbitrary_datagrams_never_panic_the_decoders(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let _ = read_header(&bytes);
            let _ = read_hello(&bytes);
        }
    }
}

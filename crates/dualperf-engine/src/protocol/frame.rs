//! Framing of the control channel: a 4-byte big-endian length, then that
//! many bytes of JSON. Lengths above [`MAX_FRAME_BYTES`] are refused before
//! any allocation, so a peer cannot make the server reserve memory it names.

use std::io::{self, Read, Write};

/// Largest frame body accepted, bytes (4 MiB). The largest legitimate frame
/// is a server report of a 60 s test sampled every 10 ms (6000 interval
/// samples, about 1 MB of JSON) plus bounded UDP arrivals.
pub const MAX_FRAME_BYTES: u32 = 4 << 20;

/// Why a frame could not be read.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    /// The peer closed the connection cleanly between frames.
    #[error("peer closed the control channel")]
    Closed,
    /// The connection ended inside a frame.
    #[error("truncated frame: connection ended after {got} of {expected} bytes")]
    Truncated {
        /// Bytes received.
        got: usize,
        /// Bytes announced (length prefix included).
        expected: usize,
    },
    /// The length prefix exceeds [`MAX_FRAME_BYTES`].
    #[error("oversized frame: {length} bytes announced, limit {MAX_FRAME_BYTES}")]
    Oversized {
        /// The announced length.
        length: u32,
    },
    /// Reading timed out (handshake or idle timeout).
    #[error("timed out waiting for the peer")]
    TimedOut,
    /// Any other socket error.
    #[error("reading control channel")]
    Io(#[source] io::Error),
}

/// Encodes one frame (length prefix + body) into a new buffer.
///
/// # Errors
/// `InvalidInput` if the body exceeds [`MAX_FRAME_BYTES`].
pub fn encode_frame(body: &[u8]) -> io::Result<Vec<u8>> {
    if body.len() > MAX_FRAME_BYTES as usize {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "frame of {} bytes exceeds the {MAX_FRAME_BYTES}-byte limit",
                body.len()
            ),
        ));
    }
    let mut frame = Vec::with_capacity(4 + body.len());
    frame.extend_from_slice(&(body.len() as u32).to_be_bytes());
    frame.extend_from_slice(body);
    Ok(frame)
}

/// Writes one frame in a single `write_all`.
pub fn write_frame(writer: &mut impl Write, body: &[u8]) -> io::Result<()> {
    writer.write_all(&encode_frame(body)?)?;
    writer.flush()
}

/// Reads one frame body.
pub fn read_frame(reader: &mut impl Read) -> Result<Vec<u8>, FrameError> {
    let mut prefix = [0u8; 4];
    let got = read_full(reader, &mut prefix)?;
    if got == 0 {
        return Err(FrameError::Closed);
    }
    if got < 4 {
        return Err(FrameError::Truncated { got, expected: 4 });
    }
    let length = u32::from_be_bytes(prefix);
    if length > MAX_FRAME_BYTES {
        return Err(FrameError::Oversized { length });
    }
    let mut body = vec![0u8; length as usize];
    let got = read_full(reader, &mut body)?;
    if got < body.len() {
        return Err(FrameError::Truncated {
            got: 4 + got,
            expected: 4 + body.len(),
        });
    }
    Ok(body)
}

/// Reads until `buffer` is full or the stream ends; returns the bytes read.
fn read_full(reader: &mut impl Read, buffer: &mut [u8]) -> Result<usize, FrameError> {
    let mut filled = 0;
    while filled < buffer.len() {
        match reader.read(&mut buffer[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                return Err(FrameError::TimedOut)
            }
            Err(e) => return Err(FrameError::Io(e)),
        }
    }
    Ok(filled)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn frame_is_big_endian_length_then_body() {
        assert_eq!(encode_frame(b"{}").unwrap(), vec![0, 0, 0, 2, b'{', b'}']);
    }

    #[test]
    fn round_trip_returns_the_body() {
        let frame = encode_frame(b"hello").unwrap();
        assert_eq!(read_frame(&mut frame.as_slice()).unwrap(), b"hello");
    }

    #[test]
    fn empty_stream_is_a_clean_close() {
        assert!(matches!(
            read_frame(&mut [].as_slice()),
            Err(FrameError::Closed)
        ));
    }

    #[test]
    fn short_prefix_is_truncated() {
        assert!(matches!(
            read_frame(&mut [0u8, 0].as_slice()),
            Err(FrameError::Truncated {
                got: 2,
                expected: 4
            })
        ));
    }

    #[test]
    fn short_body_is_truncated() {
        let err = read_frame(&mut [0u8, 0, 0, 9, b'a'].as_slice()).unwrap_err();
        assert!(
            matches!(
                err,
                FrameError::Truncated {
                    got: 5,
                    expected: 13
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn oversized_length_is_refused_before_reading_the_body() {
        let err = read_frame(&mut [0xffu8, 0xff, 0xff, 0xff].as_slice()).unwrap_err();
        assert!(matches!(err, FrameError::Oversized { length: u32::MAX }));
        assert!(encode_frame(&vec![0; MAX_FRAME_BYTES as usize + 1]).is_err());
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic_the_frame_reader(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let _ = read_frame(&mut bytes.as_slice());
        }
    }
}

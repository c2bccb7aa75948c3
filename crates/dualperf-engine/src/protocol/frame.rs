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

/// An incremental frame decoder: bytes in, whole frame bodies out, no I/O
/// (the sans-IO half of [`read_frame`], used by the handshake state
/// machines and by [`super::Channel`]).
///
/// Memory follows the bytes that really arrived: the body buffer grows as
/// data comes in (at most `limit`), so announcing 4 MiB and sending 5 bytes
/// costs 5 bytes, not 4 MiB.
#[derive(Debug, Clone)]
pub struct FrameDecoder {
    limit: u32,
    prefix: [u8; 4],
    prefix_len: usize,
    body: Vec<u8>,
    body_len: Option<usize>,
}

impl FrameDecoder {
    /// A decoder refusing bodies above `limit` bytes (at most [`MAX_FRAME_BYTES`]).
    pub fn new(limit: u32) -> Self {
        FrameDecoder {
            limit: limit.min(MAX_FRAME_BYTES),
            prefix: [0; 4],
            prefix_len: 0,
            body: Vec::new(),
            body_len: None,
        }
    }

    /// Bytes still needed to complete the current frame (its prefix first):
    /// a reader that reads at most this many never reads past a frame.
    pub fn wanted(&self) -> usize {
        match self.body_len {
            None => 4 - self.prefix_len,
            Some(length) => length - self.body.len(),
        }
    }

    /// Bytes of an incomplete frame held so far (prefix included).
    pub fn buffered(&self) -> usize {
        self.prefix_len + self.body.len()
    }

    /// Consumes bytes of `bytes` up to the end of the current frame (never
    /// beyond); returns how many it took and, when a frame completed, its
    /// body (or why it is refused).
    /// After an error the decoder must not be fed again.
    pub fn push(&mut self, bytes: &[u8]) -> (usize, Option<Result<Vec<u8>, FrameError>>) {
        let mut used = 0;
        if self.body_len.is_none() {
            let take = (4 - self.prefix_len).min(bytes.len());
            self.prefix[self.prefix_len..self.prefix_len + take].copy_from_slice(&bytes[..take]);
            self.prefix_len += take;
            used += take;
            if self.prefix_len < 4 {
                return (used, None);
            }
            let length = u32::from_be_bytes(self.prefix);
            if length > self.limit {
                return (used, Some(Err(FrameError::Oversized { length })));
            }
            self.body_len = Some(length as usize);
            self.body = Vec::with_capacity((length as usize).min(64 * 1024));
        }
        let length = self.body_len.unwrap_or(0);
        let take = (length - self.body.len()).min(bytes.len() - used);
        self.body.extend_from_slice(&bytes[used..used + take]);
        used += take;
        if self.body.len() < length {
            return (used, None);
        }
        self.prefix_len = 0;
        self.body_len = None;
        (used, Some(Ok(std::mem::take(&mut self.body))))
    }

    /// The error for a stream that ended now: a clean close between frames,
    /// a truncation inside one.
    pub fn end_of_stream(&self) -> FrameError {
        match (self.buffered(), self.body_len) {
            (0, _) => FrameError::Closed,
            (got, None) => FrameError::Truncated { got, expected: 4 },
            (got, Some(length)) => FrameError::Truncated {
                got,
                expected: 4 + length,
            },
        }
    }
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

    #[test]
    fn the_decoder_takes_bytes_in_any_chunks_and_never_reads_past_a_frame() {
        let mut stream = encode_frame(b"hello").unwrap();
        stream.extend(encode_frame(b"").unwrap());
        let mut decoder = FrameDecoder::new(MAX_FRAME_BYTES);
        let mut frames = Vec::new();
        let mut at = 0;
        while at < stream.len() {
            // One byte at a time, never more than wanted.
            assert!(decoder.wanted() >= 1);
            let (used, frame) = decoder.push(&stream[at..at + 1]);
            assert_eq!(used, 1);
            at += 1;
            if let Some(frame) = frame {
                frames.push(frame.unwrap());
            }
        }
        assert_eq!(frames, vec![b"hello".to_vec(), Vec::new()]);
        assert!(matches!(decoder.end_of_stream(), FrameError::Closed));
        let (used, frame) = FrameDecoder::new(MAX_FRAME_BYTES).push(&stream);
        assert_eq!((used, frame.unwrap().unwrap()), (9, b"hello".to_vec()));
    }

    #[test]
    fn the_decoder_refuses_a_length_above_its_limit_and_reports_truncation() {
        let mut decoder = FrameDecoder::new(16);
        let (_, frame) = decoder.push(&[0, 0, 0, 17]);
        assert!(matches!(
            frame,
            Some(Err(FrameError::Oversized { length: 17 }))
        ));
        let mut decoder = FrameDecoder::new(16);
        assert!(decoder.push(&[0, 0, 0, 9, b'a']).1.is_none());
        assert!(matches!(
            decoder.end_of_stream(),
            FrameError::Truncated {
                got: 5,
                expected: 13
            }
        ));
    }

    proptest! {
        #[test]
        fn arbitrary_chunks_never_panic_the_decoder(bytes in proptest::collection::vec(any::<u8>(), 0..256), cut in 1usize..17) {
            let mut decoder = FrameDecoder::new(64);
            for chunk in bytes.chunks(cut) {
                let mut rest = chunk;
                while !rest.is_empty() {
                    let (used, frame) = decoder.push(rest);
                    if let Some(Err(_)) = frame { return Ok(()); }
                    prop_assert!(used > 0 || frame.is_some());
                    rest = &rest[used..];
                }
            }
        }

        #[test]
        fn arbitrary_bytes_never_panic_the_frame_reader(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let _ = read_frame(&mut bytes.as_slice());
        }
    }
}

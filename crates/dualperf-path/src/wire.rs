//! The probe and acknowledgement datagrams between `dualperf path` and the
//! responder of `dualperf serve` (UDP, the serve port).
//!
//! Both start with the same 24-byte header, all integers big-endian:
//!
//! | offset | bytes | field |
//! |---|---|---|
//! | 0 | 4 | magic `DPPP` |
//! | 4 | 1 | version (1) |
//! | 5 | 1 | kind: 1 probe, 2 acknowledgement |
//! | 6 | 2 | zero |
//! | 8 | 8 | token: the prober's random session number |
//! | 16 | 4 | sequence number |
//! | 20 | 4 | length: a probe's UDP payload length as sent; an ack's, as received |
//!
//! A probe is padded with zeros to the size under test; an acknowledgement
//! is the header alone, so the responder never sends more than it received
//! (no amplification) and the return path needs no large MTU.

/// The magic bytes.
pub const MAGIC: [u8; 4] = *b"DPPP";
/// The protocol version.
pub const VERSION: u8 = 1;
/// Header length, bytes: the smallest probe payload and the ack's size.
pub const HEADER_BYTES: usize = 24;

/// Probe or acknowledgement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Sent by the prober.
    Probe,
    /// Sent back by the responder.
    Ack,
}

/// A decoded header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Probe or ack.
    pub kind: Kind,
    /// The prober's session token.
    pub token: u64,
    /// Sequence number.
    pub seq: u32,
    /// Payload length (as sent in a probe, as received in an ack), bytes.
    pub length: u32,
}

impl Header {
    /// Encodes the header into its 24 bytes.
    pub fn encode(&self) -> [u8; HEADER_BYTES] {
        let mut out = [0u8; HEADER_BYTES];
        out[0..4].copy_from_slice(&MAGIC);
        out[4] = VERSION;
        out[5] = match self.kind {
            Kind::Probe => 1,
            Kind::Ack => 2,
        };
        out[8..16].copy_from_slice(&self.token.to_be_bytes());
        out[16..20].copy_from_slice(&self.seq.to_be_bytes());
        out[20..24].copy_from_slice(&self.length.to_be_bytes());
        out
    }

    /// Decodes a datagram's header; `None` for anything that is not one.
    pub fn decode(datagram: &[u8]) -> Option<Header> {
        let bytes: &[u8; HEADER_BYTES] = datagram.get(..HEADER_BYTES)?.try_into().ok()?;
        if bytes[0..4] != MAGIC || bytes[4] != VERSION {
            return None;
        }
        let kind = match bytes[5] {
            1 => Kind::Probe,
            2 => Kind::Ack,
            _ => return None,
        };
        let u32_at = |at: usize| {
            u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
        };
        let mut token = [0u8; 8];
        token.copy_from_slice(&bytes[8..16]);
        Some(Header {
            kind,
            token: u64::from_be_bytes(token),
            seq: u32_at(16),
            length: u32_at(20),
        })
    }
}

/// A probe datagram of `payload_bytes` (at least [`HEADER_BYTES`]).
pub fn probe(token: u64, seq: u32, payload_bytes: usize) -> Vec<u8> {
    let len = payload_bytes.max(HEADER_BYTES);
    let mut out = vec![0u8; len];
    let header = Header {
        kind: Kind::Probe,
        token,
        seq,
        length: len as u32,
    };
    out[..HEADER_BYTES].copy_from_slice(&header.encode());
    out
}

/// The responder's answer to `datagram`, or `None` when it is not a probe.
pub fn answer(datagram: &[u8]) -> Option<[u8; HEADER_BYTES]> {
    let header = Header::decode(datagram)?;
    if header.kind != Kind::Probe {
        return None;
    }
    Some(
        Header {
            kind: Kind::Ack,
            length: datagram.len() as u32,
            ..header
        }
        .encode(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_probe_is_answered_with_the_length_received_and_never_more_bytes() {
        let probe = probe(0xfeed, 7, 1452);
        let ack = answer(&probe).unwrap();
        assert!(ack.len() <= probe.len());
        let header = Header::decode(&ack).unwrap();
        assert_eq!(header.kind, Kind::Ack);
        assert_eq!((header.token, header.seq, header.length), (0xfeed, 7, 1452));
    }

    #[test]
    fn junk_acks_and_short_datagrams_get_no_answer() {
        assert_eq!(answer(b"hello"), None);
        assert_eq!(answer(&[0u8; 64]), None);
        let ack = answer(&probe(1, 1, 24)).unwrap();
        assert_eq!(answer(&ack), None, "an ack is never answered (no loops)");
        let mut wrong_version = probe(1, 1, 24);
        wrong_version[4] = 9;
        assert_eq!(answer(&wrong_version), None);
    }
}

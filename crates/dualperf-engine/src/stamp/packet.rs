//! STAMP base packets (RFC 8762 §4.2, §4.3, with the Session-Sender
//! Identifier of RFC 8972 §3), in both modes:
//!
//! ```text
//! Session-Sender test packet            unauthenticated  authenticated
//!   Sequence Number (4)                       0..4            0..4
//!   MBZ (12)                                    -             4..16
//!   Timestamp (8)                             4..12          16..24
//!   Error Estimate (2)                       12..14          24..26
//!   SSID (2)                                 14..16          26..28
//!   MBZ                                      16..44 (28)     28..96 (68)
//!   HMAC (16)                                   -            96..112
//!
//! Session-Reflector test packet         unauthenticated  authenticated
//!   Sequence Number (4)                       0..4            0..4
//!   Timestamp (8)                             4..12          16..24
//!   Error Estimate (2)                       12..14          24..26
//!   SSID (2)                                 14..16          26..28
//!   Receive Timestamp (8)                    16..24          32..40
//!   Session-Sender Sequence Number (4)       24..28          48..52
//!   Session-Sender Timestamp (8)             28..36          64..72
//!   Session-Sender Error Estimate (2)        36..38          72..74
//!   Session-Sender TTL (1)                   40              80
//!   HMAC (16)                                   -            96..112
//! ```
//!
//! Every other octet is MBZ (sent as zero, ignored on receipt). TLVs
//! (RFC 8972, [`super::tlv`]) follow the base packet. Decoding never
//! panics: a buffer shorter than the base packet is an error.

use super::auth::{StampKey, HMAC_BYTES};

/// Octets of an unauthenticated base packet.
pub const UNAUTHENTICATED_BYTES: usize = 44;
/// Octets of an authenticated base packet.
pub const AUTHENTICATED_BYTES: usize = 112;
/// Offset of the HMAC in an authenticated base packet.
pub const HMAC_OFFSET: usize = 96;

/// The two packet formats (RFC 8762 §4.2.1, §4.2.2).
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Mode {
    /// Open mode: 44-octet base packets.
    Unauthenticated,
    /// Authenticated mode: 112-octet base packets with an HMAC.
    Authenticated,
}

impl Mode {
    /// Octets of the base packet in this mode.
    pub fn base_bytes(self) -> usize {
        match self {
            Mode::Unauthenticated => UNAUTHENTICATED_BYTES,
            Mode::Authenticated => AUTHENTICATED_BYTES,
        }
    }
}

/// Why a packet could not be read.
#[derive(Clone, Debug, Eq, PartialEq, thiserror::Error)]
pub enum PacketError {
    /// Shorter than the base packet of its mode.
    #[error("a STAMP packet of {got} bytes is shorter than the {need}-byte base packet")]
    TooShort {
        /// Octets received.
        got: usize,
        /// Octets the mode needs.
        need: usize,
    },
    /// The HMAC does not verify (authenticated mode).
    #[error("the STAMP packet's HMAC does not verify")]
    BadHmac,
}

/// A Session-Sender test packet's fields.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub struct TestPacket {
    /// Sequence Number.
    pub sequence: u32,
    /// Timestamp (t1), in the format the Error Estimate's Z bit names.
    pub timestamp: u64,
    /// Error Estimate (wire value).
    pub error_estimate: u16,
    /// Session-Sender Identifier (RFC 8972 §3).
    pub ssid: u16,
}

/// A Session-Reflector test packet's fields.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub struct ReflectedPacket {
    /// Sequence Number: the reflector's own (stateful) or the sender's (stateless).
    pub sequence: u32,
    /// Timestamp (t3): when the reflector sent the reply.
    pub timestamp: u64,
    /// The reflector's Error Estimate (wire value).
    pub error_estimate: u16,
    /// Session-Sender Identifier, copied from the test packet.
    pub ssid: u16,
    /// Receive Timestamp (t2): when the reflector received the test packet.
    pub receive_timestamp: u64,
    /// The test packet's Sequence Number.
    pub sender_sequence: u32,
    /// The test packet's Timestamp (t1).
    pub sender_timestamp: u64,
    /// The test packet's Error Estimate.
    pub sender_error_estimate: u16,
    /// TTL / Hop Limit of the test packet as the reflector received it.
    pub sender_ttl: u8,
}

fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([bytes[at], bytes[at + 1]])
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    let mut octets = [0u8; 8];
    octets.copy_from_slice(&bytes[at..at + 8]);
    u64::from_be_bytes(octets)
}

fn check(bytes: &[u8], mode: Mode) -> Result<(), PacketError> {
    if bytes.len() < mode.base_bytes() {
        return Err(PacketError::TooShort {
            got: bytes.len(),
            need: mode.base_bytes(),
        });
    }
    Ok(())
}

/// Signs an authenticated base packet in place (octets 96..112).
fn sign(base: &mut [u8], key: &StampKey) {
    let tag = key.sign(&[&base[..HMAC_OFFSET]]);
    base[HMAC_OFFSET..HMAC_OFFSET + HMAC_BYTES].copy_from_slice(&tag);
}

/// Verifies an authenticated base packet's HMAC.
///
/// # Errors
/// [`PacketError::TooShort`], [`PacketError::BadHmac`].
pub fn verify(bytes: &[u8], key: &StampKey) -> Result<(), PacketError> {
    check(bytes, Mode::Authenticated)?;
    if key.verify(
        &[&bytes[..HMAC_OFFSET]],
        &bytes[HMAC_OFFSET..HMAC_OFFSET + HMAC_BYTES],
    ) {
        Ok(())
    } else {
        Err(PacketError::BadHmac)
    }
}

impl TestPacket {
    /// Appends the base packet in `mode` to `out`; authenticated packets are
    /// signed with `key` (an authenticated packet without a key carries a
    /// zero HMAC, which no reflector accepts).
    pub fn write(&self, mode: Mode, key: Option<&StampKey>, out: &mut Vec<u8>) {
        let start = out.len();
        out.resize(start + mode.base_bytes(), 0);
        let base = &mut out[start..];
        base[0..4].copy_from_slice(&self.sequence.to_be_bytes());
        let at = match mode {
            Mode::Unauthenticated => 4,
            Mode::Authenticated => 16,
        };
        base[at..at + 8].copy_from_slice(&self.timestamp.to_be_bytes());
        base[at + 8..at + 10].copy_from_slice(&self.error_estimate.to_be_bytes());
        base[at + 10..at + 12].copy_from_slice(&self.ssid.to_be_bytes());
        if let (Mode::Authenticated, Some(key)) = (mode, key) {
            sign(base, key);
        }
    }

    /// Reads the base packet at the start of `bytes` (no HMAC check: see [`verify`]).
    ///
    /// # Errors
    /// [`PacketError::TooShort`].
    pub fn read(bytes: &[u8], mode: Mode) -> Result<TestPacket, PacketError> {
        check(bytes, mode)?;
        let at = match mode {
            Mode::Unauthenticated => 4,
            Mode::Authenticated => 16,
        };
        Ok(TestPacket {
            sequence: u32_at(bytes, 0),
            timestamp: u64_at(bytes, at),
            error_estimate: u16_at(bytes, at + 8),
            ssid: u16_at(bytes, at + 10),
        })
    }
}

/// Field offsets of a reflected packet in one mode.
struct ReflectedLayout {
    timestamp: usize,
    receive_timestamp: usize,
    sender_sequence: usize,
    sender_timestamp: usize,
    sender_ttl: usize,
}

fn reflected_layout(mode: Mode) -> ReflectedLayout {
    match mode {
        Mode::Unauthenticated => ReflectedLayout {
            timestamp: 4,
            receive_timestamp: 16,
            sender_sequence: 24,
            sender_timestamp: 28,
            sender_ttl: 40,
        },
        Mode::Authenticated => ReflectedLayout {
            timestamp: 16,
            receive_timestamp: 32,
            sender_sequence: 48,
            sender_timestamp: 64,
            sender_ttl: 80,
        },
    }
}

impl ReflectedPacket {
    /// Appends the base packet in `mode` to `out`, signed with `key` in
    /// authenticated mode.
    pub fn write(&self, mode: Mode, key: Option<&StampKey>, out: &mut Vec<u8>) {
        let start = out.len();
        out.resize(start + mode.base_bytes(), 0);
        let base = &mut out[start..];
        let l = reflected_layout(mode);
        base[0..4].copy_from_slice(&self.sequence.to_be_bytes());
        base[l.timestamp..l.timestamp + 8].copy_from_slice(&self.timestamp.to_be_bytes());
        base[l.timestamp + 8..l.timestamp + 10].copy_from_slice(&self.error_estimate.to_be_bytes());
        base[l.timestamp + 10..l.timestamp + 12].copy_from_slice(&self.ssid.to_be_bytes());
        base[l.receive_timestamp..l.receive_timestamp + 8]
            .copy_from_slice(&self.receive_timestamp.to_be_bytes());
        base[l.sender_sequence..l.sender_sequence + 4]
            .copy_from_slice(&self.sender_sequence.to_be_bytes());
        base[l.sender_timestamp..l.sender_timestamp + 8]
            .copy_from_slice(&self.sender_timestamp.to_be_bytes());
        base[l.sender_timestamp + 8..l.sender_timestamp + 10]
            .copy_from_slice(&self.sender_error_estimate.to_be_bytes());
        base[l.sender_ttl] = self.sender_ttl;
        if let (Mode::Authenticated, Some(key)) = (mode, key) {
            sign(base, key);
        }
    }

    /// Reads the base packet at the start of `bytes` (no HMAC check: see [`verify`]).
    ///
    /// # Errors
    /// [`PacketError::TooShort`].
    pub fn read(bytes: &[u8], mode: Mode) -> Result<ReflectedPacket, PacketError> {
        check(bytes, mode)?;
        let l = reflected_layout(mode);
        Ok(ReflectedPacket {
            sequence: u32_at(bytes, 0),
            timestamp: u64_at(bytes, l.timestamp),
            error_estimate: u16_at(bytes, l.timestamp + 8),
            ssid: u16_at(bytes, l.timestamp + 10),
            receive_timestamp: u64_at(bytes, l.receive_timestamp),
            sender_sequence: u32_at(bytes, l.sender_sequence),
            sender_timestamp: u64_at(bytes, l.sender_timestamp),
            sender_error_estimate: u16_at(bytes, l.sender_timestamp + 8),
            sender_ttl: bytes[l.sender_ttl],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reflected() -> ReflectedPacket {
        ReflectedPacket {
            sequence: 7,
            timestamp: 0x1111_2222_3333_4444,
            error_estimate: 0x8001,
            ssid: 0xabcd,
            receive_timestamp: 0x5555_6666_7777_8888,
            sender_sequence: 9,
            sender_timestamp: 0x9999_aaaa_bbbb_cccc,
            sender_error_estimate: 0x0001,
            sender_ttl: 64,
        }
    }

    #[test]
    fn packets_round_trip_in_both_modes() {
        let key = StampKey::new(b"0123456789abcdef").unwrap();
        for mode in [Mode::Unauthenticated, Mode::Authenticated] {
            let sent = TestPacket {
                sequence: 1,
                timestamp: 42,
                error_estimate: 1,
                ssid: 3,
            };
            let mut bytes = Vec::new();
            sent.write(mode, Some(&key), &mut bytes);
            assert_eq!(bytes.len(), mode.base_bytes());
            assert_eq!(TestPacket::read(&bytes, mode).unwrap(), sent);
            let mut bytes = Vec::new();
            reflected().write(mode, Some(&key), &mut bytes);
            assert_eq!(ReflectedPacket::read(&bytes, mode).unwrap(), reflected());
        }
    }

    #[test]
    fn a_changed_octet_fails_the_hmac_and_short_packets_are_errors() {
        let key = StampKey::new(b"0123456789abcdef").unwrap();
        let mut bytes = Vec::new();
        reflected().write(Mode::Authenticated, Some(&key), &mut bytes);
        assert_eq!(verify(&bytes, &key), Ok(()));
        bytes[5] ^= 1; // an MBZ octet is covered too
        assert_eq!(verify(&bytes, &key), Err(PacketError::BadHmac));
        assert!(matches!(
            TestPacket::read(&bytes[..43], Mode::Unauthenticated),
            Err(PacketError::TooShort { got: 43, need: 44 })
        ));
        assert!(ReflectedPacket::read(&[], Mode::Authenticated).is_err());
    }
}

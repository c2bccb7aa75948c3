//! STAMP TLVs (RFC 8972 §4): the ones dualperf speaks — Extra Padding
//! (type 1, §4.1), Class of Service (type 4, §4.4, with erratum 8199's
//! layout) and HMAC (type 8, §4.8) — and a bounded reader for any.
//!
//! ```text
//!  0               1               2               3
//! |STAMP TLV Flags|     Type      |            Length             |
//! |U|M|I|  Reserved (5)           (Length octets of value follow)
//!
//! Class of Service value (4 octets):
//! |   DSCP1   |   DSCP2   |ECN| RP|          Reserved             |
//! ```
//!
//! The Session-Sender sets U (unrecognised) on every TLV it sends; a
//! reflector that understands a TLV clears U, one that does not leaves it
//! set. M marks a malformed TLV, I a failed HMAC check.

use super::auth::{StampKey, HMAC_BYTES};

/// U flag: the reflector did not recognise the TLV.
pub const FLAG_UNRECOGNISED: u8 = 0x80;
/// M flag: the TLV was malformed.
pub const FLAG_MALFORMED: u8 = 0x40;
/// I flag: the TLVs failed the HMAC check.
pub const FLAG_INTEGRITY: u8 = 0x20;

/// Extra Padding TLV type (RFC 8972 §4.1).
pub const TYPE_EXTRA_PADDING: u8 = 1;
/// Class of Service TLV type (RFC 8972 §4.4).
pub const TYPE_CLASS_OF_SERVICE: u8 = 4;
/// HMAC TLV type (RFC 8972 §4.8).
pub const TYPE_HMAC: u8 = 8;

/// Octets of a TLV header.
pub const HEADER_BYTES: usize = 4;

/// Most TLVs read from one packet; the rest are echoed as opaque bytes.
pub const MAX_TLVS: usize = 32;

/// One TLV as it appears on the wire.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct Tlv {
    /// Flags octet (U, M, I).
    pub flags: u8,
    /// Type.
    pub kind: u8,
    /// Value.
    pub value: Vec<u8>,
}

impl Tlv {
    /// Appends the TLV's header and value to `out`. A value longer than
    /// 65535 octets cannot be written and is cut (never built here).
    pub fn write(&self, out: &mut Vec<u8>) {
        let length = self.value.len().min(usize::from(u16::MAX));
        out.push(self.flags);
        out.push(self.kind);
        out.extend_from_slice(&(length as u16).to_be_bytes());
        out.extend_from_slice(&self.value[..length]);
    }

    /// Octets on the wire.
    pub fn wire_bytes(&self) -> usize {
        HEADER_BYTES + self.value.len()
    }
}

/// TLVs read from the bytes after a base packet.
#[derive(Clone, Debug, Default, Eq, PartialEq)]
pub struct TlvList {
    /// The TLVs that parsed, in order.
    pub tlvs: Vec<Tlv>,
    /// Bytes after the last TLV that parsed (a truncated TLV, zero
    /// padding of a sender without TLVs, or beyond [`MAX_TLVS`]).
    pub rest: Vec<u8>,
}

impl TlvList {
    /// Reads TLVs from `bytes` until they end, one does not fit, or
    /// [`MAX_TLVS`] were read. An all-zero tail is RFC 8762 padding, not a
    /// TLV (type 0 is reserved): it is kept in `rest`.
    pub fn read(bytes: &[u8]) -> TlvList {
        let mut list = TlvList::default();
        let mut at = 0;
        while at + HEADER_BYTES <= bytes.len() && list.tlvs.len() < MAX_TLVS {
            if bytes[at..].iter().all(|&b| b == 0) {
                break;
            }
            let length = usize::from(u16::from_be_bytes([bytes[at + 2], bytes[at + 3]]));
            let end = at + HEADER_BYTES + length;
            if end > bytes.len() {
                break;
            }
            list.tlvs.push(Tlv {
                flags: bytes[at],
                kind: bytes[at + 1],
                value: bytes[at + HEADER_BYTES..end].to_vec(),
            });
            at = end;
        }
        list.rest = bytes[at..].to_vec();
        list
    }

    /// Appends every TLV and then `rest` to `out`.
    pub fn write(&self, out: &mut Vec<u8>) {
        for tlv in &self.tlvs {
            tlv.write(out);
        }
        out.extend_from_slice(&self.rest);
    }

    /// The first TLV of `kind`.
    pub fn find(&self, kind: u8) -> Option<&Tlv> {
        self.tlvs.iter().find(|t| t.kind == kind)
    }

    /// Position of the HMAC TLV when it is the last TLV (RFC 8972 §4.8).
    fn hmac_position(&self) -> Option<usize> {
        let last = self.tlvs.len().checked_sub(1)?;
        (self.tlvs[last].kind == TYPE_HMAC).then_some(last)
    }

    /// The octets the HMAC TLV covers: every TLV before it, headers included.
    fn covered(&self, before: usize) -> Vec<u8> {
        let mut bytes = Vec::new();
        for tlv in &self.tlvs[..before] {
            tlv.write(&mut bytes);
        }
        bytes
    }

    /// Sets the value of the last TLV, an HMAC TLV, to the HMAC of the base
    /// packet's `sequence` and the TLVs before it (RFC 8972 §4.8). Does
    /// nothing when the list does not end with an HMAC TLV.
    pub fn sign(&mut self, sequence: u32, key: &StampKey) {
        let Some(position) = self.hmac_position() else {
            return;
        };
        let covered = self.covered(position);
        let tag = key.sign(&[&sequence.to_be_bytes(), &covered]);
        self.tlvs[position].value = tag.to_vec();
    }

    /// True when the list ends with an HMAC TLV that verifies against the
    /// base packet's `sequence`; false when it does not verify or is absent.
    pub fn verifies(&self, sequence: u32, key: &StampKey) -> bool {
        let Some(position) = self.hmac_position() else {
            return false;
        };
        let covered = self.covered(position);
        key.verify(
            &[&sequence.to_be_bytes(), &covered],
            &self.tlvs[position].value,
        )
    }
}

/// An empty HMAC TLV for [`TlvList::sign`] to fill, flags as given.
pub fn hmac_placeholder(flags: u8) -> Tlv {
    Tlv {
        flags,
        kind: TYPE_HMAC,
        value: vec![0; HMAC_BYTES],
    }
}

/// An Extra Padding TLV of `value_bytes` zero octets.
pub fn extra_padding(flags: u8, value_bytes: usize) -> Tlv {
    Tlv {
        flags,
        kind: TYPE_EXTRA_PADDING,
        value: vec![0; value_bytes],
    }
}

/// The Class of Service TLV's value (RFC 8972 §4.4, erratum 8199).
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub struct ClassOfService {
    /// DSCP1: the DSCP the sender asks the reflector to use for its reply.
    pub dscp1: u8,
    /// DSCP2: the DSCP the reflector received (0 from the sender).
    pub dscp2: u8,
    /// ECN: the ECN codepoint the reflector received (0 from the sender).
    pub ecn: u8,
    /// RP (2 bits): 1 when the reflector's policy refused DSCP1.
    pub rp: u8,
}

impl ClassOfService {
    /// The 4-octet value.
    pub fn to_value(self) -> [u8; 4] {
        let dscp1 = self.dscp1 & 0x3f;
        let dscp2 = self.dscp2 & 0x3f;
        [
            dscp1 << 2 | dscp2 >> 4,
            (dscp2 & 0x0f) << 4 | (self.ecn & 0x03) << 2 | (self.rp & 0x03),
            0,
            0,
        ]
    }

    /// Reads a value; `None` unless it is exactly 4 octets.
    pub fn from_value(value: &[u8]) -> Option<ClassOfService> {
        let [a, b, _, _] = <[u8; 4]>::try_from(value).ok()?;
        Some(ClassOfService {
            dscp1: a >> 2,
            dscp2: (a & 0x03) << 4 | b >> 4,
            ecn: (b >> 2) & 0x03,
            rp: b & 0x03,
        })
    }

    /// The TLV carrying this value, flags as given.
    pub fn tlv(self, flags: u8) -> Tlv {
        Tlv {
            flags,
            kind: TYPE_CLASS_OF_SERVICE,
            value: self.to_value().to_vec(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_of_service_packs_as_rfc_8972_draws_it() {
        // DSCP1 = 46 (EF), DSCP2 = 20, ECN = 1, RP = 0:
        // 101110|01 0100|01|00 → 0xb9 0x44.
        let cos = ClassOfService {
            dscp1: 46,
            dscp2: 20,
            ecn: 1,
            rp: 0,
        };
        assert_eq!(cos.to_value(), [0xb9, 0x44, 0, 0]);
        assert_eq!(ClassOfService::from_value(&[0xb9, 0x44, 0, 0]), Some(cos));
        assert_eq!(ClassOfService::from_value(&[0xb9, 0x44, 0]), None);
    }

    #[test]
    fn lists_round_trip_and_stop_at_a_truncated_tlv() {
        let list = TlvList {
            tlvs: vec![extra_padding(0x80, 3), ClassOfService::default().tlv(0x80)],
            rest: Vec::new(),
        };
        let mut bytes = Vec::new();
        list.write(&mut bytes);
        assert_eq!(TlvList::read(&bytes), list);
        // A TLV claiming more than is there stops the reading, kept as rest.
        let mut bad = bytes.clone();
        bad.extend_from_slice(&[0x80, 4, 0xff, 0xff, 1]);
        let read = TlvList::read(&bad);
        assert_eq!(read.tlvs.len(), 2);
        assert_eq!(read.rest, vec![0x80, 4, 0xff, 0xff, 1]);
        // Zero padding is no TLV.
        assert!(TlvList::read(&[0; 28]).tlvs.is_empty());
    }

    #[test]
    fn the_hmac_tlv_covers_the_sequence_number_and_the_tlvs_before_it() {
        let key = StampKey::new(b"0123456789abcdef").unwrap();
        let mut list = TlvList {
            tlvs: vec![ClassOfService::default().tlv(0x80), hmac_placeholder(0x80)],
            rest: Vec::new(),
        };
        list.sign(5, &key);
        assert!(list.verifies(5, &key));
        assert!(!list.verifies(6, &key));
        list.tlvs[0].value[0] = 1;
        assert!(!list.verifies(5, &key));
    }
}

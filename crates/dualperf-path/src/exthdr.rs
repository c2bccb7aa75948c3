//! IPv6 extension headers a probe can carry (RFC 8200 §4.3, §4.6; the
//! measurements of RFC 7872): Hop-by-Hop Options and Destination Options
//! headers of a chosen length, filled so a Linux receiver accepts them.
//!
//! An 8-byte header holds one PadN option (4 bytes of padding). A longer one
//! holds one option of the RFC 3692 experimental type 0x1E, whose top two
//! bits (00) tell every node to skip it: Linux drops a packet with more than
//! 7 consecutive bytes of padding (RFC 4942 §2.1.9.5), so padding alone
//! cannot fill a long header.

use serde::{Deserialize, Serialize};

/// Which options header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ExtKind {
    /// Hop-by-Hop Options (next header 0): examined by every router that
    /// chooses to (RFC 8200 §4.3).
    HopByHop,
    /// Destination Options (next header 60): for the destination only.
    DestinationOptions,
    /// A Fragment header (next header 44, 8 bytes) on a packet that needs
    /// no fragmenting: an atomic fragment ([`crate::atomic`]).
    Fragment,
}

impl ExtKind {
    /// Short name: `HBH`, `DST`.
    pub fn short(self) -> &'static str {
        match self {
            ExtKind::HopByHop => "HBH",
            ExtKind::DestinationOptions => "DST",
            ExtKind::Fragment => "FRAG",
        }
    }
}

/// An options header of a given length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ExtHeader {
    /// Which header.
    pub kind: ExtKind,
    /// Its length in bytes: a multiple of 8, 8 to 256.
    pub bytes: u16,
}

/// The option type of RFC 3692's experiment with the "skip" action.
const EXPERIMENTAL_SKIP: u8 = 0x1e;
/// PadN (RFC 8200 §4.2).
const PAD_N: u8 = 1;

impl ExtHeader {
    /// A header of `bytes`, if that length is allowed (a multiple of 8, 8 to
    /// 256; a Fragment header is 8).
    pub fn new(kind: ExtKind, bytes: u16) -> Option<Self> {
        if kind == ExtKind::Fragment {
            return (bytes == 8).then_some(ExtHeader { kind, bytes });
        }
        (bytes.is_multiple_of(8) && (8..=256).contains(&bytes)).then_some(ExtHeader { kind, bytes })
    }

    /// The header's bytes as `setsockopt(IPV6_HOPOPTS / IPV6_DSTOPTS)` takes
    /// them: next header (the kernel fills it in), length in 8-byte units
    /// minus one, then the options.
    pub fn encode(&self) -> Vec<u8> {
        let bytes = usize::from(self.bytes);
        let mut out = vec![0u8; bytes];
        out[1] = (bytes / 8 - 1) as u8;
        let option_bytes = bytes - 2;
        if option_bytes <= 7 {
            out[2] = PAD_N;
            out[3] = (option_bytes - 2) as u8;
        } else {
            out[2] = EXPERIMENTAL_SKIP;
            out[3] = (option_bytes - 2) as u8;
        }
        out
    }

    /// `DST 8 B`.
    pub fn label(&self) -> String {
        format!("{} {} B", self.kind.short(), self.bytes)
    }
}

/// The headers `dualperf path` tries by default: each options header at 8
/// and 64 bytes, and a Fragment header on a small packet.
pub fn default_set() -> Vec<ExtHeader> {
    let mut set: Vec<ExtHeader> = [ExtKind::DestinationOptions, ExtKind::HopByHop]
        .into_iter()
        .flat_map(|kind| [8, 64].map(|bytes| ExtHeader { kind, bytes }))
        .collect();
    set.push(ExtHeader {
        kind: ExtKind::Fragment,
        bytes: 8,
    });
    set
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_eight_byte_header_is_one_padn_and_longer_ones_one_skippable_option() {
        let eight = ExtHeader::new(ExtKind::DestinationOptions, 8)
            .unwrap()
            .encode();
        assert_eq!(eight, [0, 0, PAD_N, 4, 0, 0, 0, 0]);
        let long = ExtHeader::new(ExtKind::HopByHop, 64).unwrap().encode();
        assert_eq!(long.len(), 64);
        assert_eq!(
            long[1], 7,
            "length in 8-octet units, not counting the first"
        );
        assert_eq!(long[2], EXPERIMENTAL_SKIP);
        assert_eq!(usize::from(long[3]) + 4, 64, "the option fills the header");
        assert_eq!(long[2] >> 6, 0, "action bits 00: skip, never drop");
    }

    #[test]
    fn lengths_that_are_not_multiples_of_eight_or_too_long_are_refused() {
        assert!(ExtHeader::new(ExtKind::HopByHop, 12).is_none());
        assert!(ExtHeader::new(ExtKind::HopByHop, 0).is_none());
        assert!(ExtHeader::new(ExtKind::HopByHop, 264).is_none());
        assert_eq!(default_set().len(), 5);
        assert!(ExtHeader::new(ExtKind::Fragment, 8).is_some());
        assert!(ExtHeader::new(ExtKind::Fragment, 16).is_none());
    }
}

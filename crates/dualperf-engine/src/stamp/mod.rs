//! STAMP, the Simple Two-Way Active Measurement Protocol (RFC 8762, with
//! the RFC 8972 extensions): how dualperf measures against a
//! Session-Reflector it does not run (`dualperf run --peer stamp`), and
//! the reflector it offers (`dualperf serve --stamp`).
//!
//! | file | purpose |
//! |---|---|
//! | [`packet`] | base packet formats, unauthenticated and authenticated (RFC 8762 §4.2, §4.3) |
//! | [`timestamp`] | NTP / PTP timestamps and the Error Estimate |
//! | [`auth`] | HMAC-SHA-256 truncated to 16 octets (RFC 8762 §4.4, RFC 8972 §4.8) |
//! | [`tlv`] | TLVs: Extra Padding, Class of Service, HMAC (RFC 8972 §4) |
//! | [`socket`] | receive with kernel time, TOS and TTL; mark the TOS |
//! | [`session`] | the reflector's stateful sessions and rate bound |
//! | [`reflector`] | the Session-Reflector |
//! | [`sender`] | the Session-Sender: one trial |
//! | [`account`] | what the replies tell, as observations |

pub mod account;
pub mod auth;
#[cfg(test)]
mod fixtures;
pub mod packet;
pub mod reflector;
pub mod sender;
pub mod session;
pub mod socket;
pub mod timestamp;
pub mod tlv;

/// The STAMP well-known UDP port (RFC 8762 §4.1).
pub const DEFAULT_PORT: u16 = 862;

//! STAMP timestamps and the Error Estimate (RFC 8762 §4.2.1, the formats of
//! RFC 5905 §6 and IEEE 1588v2 truncated, and RFC 4656 §4.1.2).
//!
//! - **NTP** 64-bit: seconds since 1900-01-01 (32 bits) and a binary
//!   fraction of a second (32 bits, ≈ 0.23 ns).
//! - **PTP** truncated: seconds since 1970-01-01 (32 bits) and nanoseconds
//!   (32 bits). dualperf reads CLOCK_REALTIME for both, so a PTP timestamp
//!   here is UTC, not TAI, as most implementations do.
//!
//! The Error Estimate (16 bits): S (clock synchronised to UTC), Z (0 NTP,
//! 1 PTP), Scale (6 bits) and Multiplier (8 bits); the error is
//! `Multiplier × 2^(Scale − 32)` seconds.

/// Seconds from 1900-01-01 (NTP era 0) to 1970-01-01 (Unix epoch).
pub const NTP_UNIX_OFFSET_S: i64 = 2_208_988_800;

const NS_PER_S: i64 = 1_000_000_000;

/// The two timestamp formats of RFC 8762 §4.2.1, told by the Z bit.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub enum ClockFormat {
    /// NTP 64-bit (RFC 5905 §6), Z = 0.
    #[default]
    Ntp,
    /// PTPv2 truncated (IEEE 1588), Z = 1.
    Ptp,
}

/// Encodes `unix_ns` (nanoseconds since the Unix epoch) in `format`.
pub fn encode(unix_ns: i64, format: ClockFormat) -> u64 {
    let seconds = unix_ns.div_euclid(NS_PER_S);
    let nanos = unix_ns.rem_euclid(NS_PER_S) as u64;
    match format {
        ClockFormat::Ntp => {
            let ntp_seconds = (seconds + NTP_UNIX_OFFSET_S) as u64 & 0xffff_ffff;
            // Round to the nearest fraction so that decode(encode(t)) == t.
            let fraction = ((nanos << 32) + NS_PER_S as u64 / 2) / NS_PER_S as u64;
            (ntp_seconds << 32) + fraction.min(u64::from(u32::MAX))
        }
        ClockFormat::Ptp => ((seconds as u64 & 0xffff_ffff) << 32) | nanos,
    }
}

/// Decodes a timestamp in `format` to nanoseconds since the Unix epoch.
/// NTP seconds below 2^31 are read in era 1 (after 2036-02-07), so dates
/// from 1968 to 2104 decode right. A PTP nanosecond field above 10^9 is
/// read as it stands (a malformed peer's value, never a panic).
pub fn decode(timestamp: u64, format: ClockFormat) -> i64 {
    let high = (timestamp >> 32) as i64;
    let low = timestamp & 0xffff_ffff;
    match format {
        ClockFormat::Ntp => {
            let era_seconds = if high < (1 << 31) {
                high + (1 << 32)
            } else {
                high
            };
            let nanos = ((low * NS_PER_S as u64) + (1 << 31)) >> 32;
            (era_seconds - NTP_UNIX_OFFSET_S) * NS_PER_S + nanos as i64
        }
        ClockFormat::Ptp => high * NS_PER_S + low as i64,
    }
}

/// The Error Estimate field (RFC 4656 §4.1.2, used by RFC 8762 §4.2.1).
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct ErrorEstimate {
    /// S: the clock is synchronised to UTC by an external source.
    pub synchronised: bool,
    /// Z: the timestamp format.
    pub format: ClockFormat,
    /// Scale, 0..=63.
    pub scale: u8,
    /// Multiplier; RFC 4656 says it MUST NOT be 0.
    pub multiplier: u8,
}

impl ErrorEstimate {
    /// An unsynchronised clock with the given `format` and an error of
    /// `multiplier × 2^(scale − 32)` s.
    pub fn unsynchronised(format: ClockFormat) -> Self {
        ErrorEstimate {
            synchronised: false,
            format,
            scale: 0,
            multiplier: 1,
        }
    }

    /// The 16-bit wire value.
    pub fn to_wire(self) -> u16 {
        let mut value = u16::from(self.scale & 0x3f) << 8 | u16::from(self.multiplier);
        if self.synchronised {
            value |= 0x8000;
        }
        if self.format == ClockFormat::Ptp {
            value |= 0x4000;
        }
        value
    }

    /// Reads the 16-bit wire value.
    pub fn from_wire(value: u16) -> Self {
        ErrorEstimate {
            synchronised: value & 0x8000 != 0,
            format: if value & 0x4000 != 0 {
                ClockFormat::Ptp
            } else {
                ClockFormat::Ntp
            },
            scale: ((value >> 8) & 0x3f) as u8,
            multiplier: (value & 0xff) as u8,
        }
    }

    /// The error this estimate states, nanoseconds.
    pub fn error_ns(self) -> f64 {
        f64::from(self.multiplier) * 2f64.powi(i32::from(self.scale) - 32) * 1e9
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_unix_epoch_is_ntp_second_2208988800() {
        assert_eq!(encode(0, ClockFormat::Ntp), 2_208_988_800u64 << 32);
        assert_eq!(encode(0, ClockFormat::Ptp), 0);
        assert_eq!(decode(2_208_988_800u64 << 32, ClockFormat::Ntp), 0);
    }

    #[test]
    fn half_a_second_is_fraction_two_to_the_31() {
        let t = encode(500_000_000, ClockFormat::Ntp);
        assert_eq!(t & 0xffff_ffff, 1 << 31);
        let p = encode(1_500_000_000, ClockFormat::Ptp);
        assert_eq!(p, (1u64 << 32) | 500_000_000);
    }

    #[test]
    fn timestamps_round_trip_to_the_nanosecond() {
        for t in [1_764_100_000_123_456_789i64, 2_200_000_000_999_999_999, 1] {
            assert_eq!(decode(encode(t, ClockFormat::Ntp), ClockFormat::Ntp), t);
            assert_eq!(decode(encode(t, ClockFormat::Ptp), ClockFormat::Ptp), t);
        }
    }

    #[test]
    fn error_estimate_bits_are_where_rfc_4656_puts_them() {
        let e = ErrorEstimate {
            synchronised: true,
            format: ClockFormat::Ptp,
            scale: 0x3f,
            multiplier: 0x12,
        };
        assert_eq!(e.to_wire(), 0xff12);
        assert_eq!(ErrorEstimate::from_wire(0xff12), e);
        let unsync = ErrorEstimate::unsynchronised(ClockFormat::Ntp);
        assert_eq!(unsync.to_wire(), 0x0001);
        assert!((unsync.error_ns() - 0.2328).abs() < 1e-3);
    }
}

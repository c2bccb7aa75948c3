//! Units that carry their meaning in the type.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A data rate in bits per second.
///
/// Parses the words iperf3 and tc users type: `10M`, `10Mbit`, `1.5G`,
/// `100k`, `2500000` (decimal prefixes, k = 1000).
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    Eq,
    Hash,
    Ord,
    PartialEq,
    PartialOrd,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(transparent)]
pub struct BitRate(u64);

impl BitRate {
    /// A rate of `bits` bits per second.
    pub const fn from_bits_per_second(bits: u64) -> Self {
        Self(bits)
    }

    /// A rate of `mbit` megabits (10⁶ bits) per second.
    pub const fn from_mbit(mbit: u64) -> Self {
        Self(mbit * 1_000_000)
    }

    /// The rate in bits per second.
    pub const fn bits_per_second(self) -> u64 {
        self.0
    }
}

/// Why a quantity with a unit did not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseUnitError {
    /// The text is not a number followed by a known unit.
    #[error("`{text}` is not a {what} (examples: {examples})")]
    Malformed {
        /// What was being parsed.
        text: String,
        /// The kind of quantity, e.g. "bit rate".
        what: &'static str,
        /// Examples of valid input.
        examples: &'static str,
    },
    /// The text is a valid quantity, but above the largest the caller takes.
    #[error("`{text}` exceeds the maximum of {max}")]
    TooLarge {
        /// The text as given.
        text: String,
        /// The maximum, as people read it (e.g. "60 s").
        max: String,
    },
}

impl FromStr for BitRate {
    type Err = ParseUnitError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let malformed = || ParseUnitError::Malformed {
            text: text.to_string(),
            what: "bit rate",
            examples: "10M, 10Mbit, 1.5G, 100k, 2500000",
        };
        let trimmed = text.trim();
        let lower = trimmed.to_ascii_lowercase();
        let without_suffix = lower
            .strip_suffix("bit/s")
            .or_else(|| lower.strip_suffix("bps"))
            .or_else(|| lower.strip_suffix("bit"))
            .unwrap_or(&lower);
        let (number, multiplier) = match without_suffix.chars().last() {
            Some('k') => (&without_suffix[..without_suffix.len() - 1], 1e3),
            Some('m') => (&without_suffix[..without_suffix.len() - 1], 1e6),
            Some('g') => (&without_suffix[..without_suffix.len() - 1], 1e9),
            Some('t') => (&without_suffix[..without_suffix.len() - 1], 1e12),
            _ => (without_suffix, 1.0),
        };
        let value: f64 = number.trim().parse().map_err(|_| malformed())?;
        if !value.is_finite() || value < 0.0 {
            return Err(malformed());
        }
        Ok(BitRate((value * multiplier).round() as u64))
    }
}

impl fmt::Display for BitRate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bits = self.0 as f64;
        if bits >= 1e9 {
            write!(f, "{:.3} Gbit/s", bits / 1e9)
        } else if bits >= 1e6 {
            write!(f, "{:.3} Mbit/s", bits / 1e6)
        } else if bits >= 1e3 {
            write!(f, "{:.3} kbit/s", bits / 1e3)
        } else {
            write!(f, "{} bit/s", self.0)
        }
    }
}

/// A size in bytes as iperf3 takes one (`-l`, `-w`, `-n`): a whole number
/// with an optional binary suffix, K = 1024, M = 1024², G = 1024³ (any case,
/// an optional trailing `B`): `1408`, `1K`, `128k`, `2M`, `1GB`. The one size
/// parser of the command line.
///
/// # Errors
/// [`ParseUnitError::Malformed`] for anything else, a fraction or an overflow.
pub fn parse_size(text: &str) -> Result<u64, ParseUnitError> {
    let malformed = || ParseUnitError::Malformed {
        text: text.to_string(),
        what: "size in bytes",
        examples: "1408, 1K, 128K, 2M, 1G (K = 1024 bytes)",
    };
    let lower = text.trim().to_ascii_lowercase();
    let lower = lower.strip_suffix('b').unwrap_or(&lower);
    let (number, multiplier) = match lower.chars().last() {
        Some('k') => (&lower[..lower.len() - 1], 1u64 << 10),
        Some('m') => (&lower[..lower.len() - 1], 1 << 20),
        Some('g') => (&lower[..lower.len() - 1], 1 << 30),
        _ => (lower, 1),
    };
    let number = number.trim();
    if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
        return Err(malformed());
    }
    number
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(multiplier))
        .ok_or_else(malformed)
}

/// Seconds per duration unit: `ns`, `us`/`µs`, `ms`, `s`, `m`/`min`, `h`.
const DURATION_UNITS: [(&str, f64); 8] = [
    ("ns", 1e-9),
    ("us", 1e-6),
    ("µs", 1e-6),
    ("ms", 1e-3),
    ("s", 1.0),
    ("m", 60.0),
    ("min", 60.0),
    ("h", 3600.0),
];

/// A duration as people type one, the one duration parser of dualperf (the
/// command line's `--budget` and `-i`, the exporter's configuration, the
/// lab's link delays): a number with a unit (`250ms`, `1.5 ms`, `200us`,
/// `2s`, `5m`, `5min`, `1h`), units in sequence (`1m30s`), or a bare number
/// of seconds (`20`, `0.05`; also after units: `1m30` = 90 s, as
/// `--budget` has always taken it). Units: ns, us or µs, ms, s, m or min, h.
/// Callers that need a unit (a link delay, where `15` is ambiguous) check
/// [`duration_has_unit`].
///
/// # Errors
/// [`ParseUnitError::Malformed`] for an empty text, an unknown unit, a
/// negative or non-finite number; [`ParseUnitError::TooLarge`] above `max`
/// (checked before converting: `1e20s` is an error, never a panic).
pub fn parse_duration(
    text: &str,
    max: std::time::Duration,
) -> Result<std::time::Duration, ParseUnitError> {
    let malformed = || ParseUnitError::Malformed {
        text: text.to_string(),
        what: "duration",
        examples: "250ms, 1.5s, 90s, 5m, 1m30s, 1h, 200us, or seconds: 20",
    };
    let mut rest = text.trim();
    if rest.is_empty() {
        return Err(malformed());
    }
    let mut seconds = 0.0_f64;
    while !rest.is_empty() {
        let number_end = rest
            .char_indices()
            .find(|&(i, c)| {
                let exponent_sign =
                    (c == '+' || c == '-') && rest[..i].ends_with(['e', 'E']) && i > 1;
                !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || exponent_sign)
            })
            .map_or(rest.len(), |(i, _)| i);
        let (number, after) = rest.split_at(number_end);
        let after = after.trim_start();
        let unit_end = after
            .char_indices()
            .find(|&(_, c)| !(c.is_alphabetic()))
            .map_or(after.len(), |(i, _)| i);
        let (unit, after) = after.split_at(unit_end);
        let value: f64 = number.parse().map_err(|_| malformed())?;
        if !value.is_finite() || value < 0.0 {
            return Err(malformed());
        }
        let scale = if unit.is_empty() {
            // A bare number is seconds, and only at the end.
            if !after.trim().is_empty() {
                return Err(malformed());
            }
            1.0
        } else {
            DURATION_UNITS
                .iter()
                .find(|(name, _)| *name == unit)
                .map(|&(_, scale)| scale)
                .ok_or_else(malformed)?
        };
        seconds += value * scale;
        rest = after.trim_start();
    }
    if seconds > max.as_secs_f64() {
        return Err(ParseUnitError::TooLarge {
            text: text.to_string(),
            max: format_seconds(max),
        });
    }
    Ok(std::time::Duration::from_secs_f64(seconds))
}

/// True when `text` names a unit (`15ms`), false for a bare number (`15`).
pub fn duration_has_unit(text: &str) -> bool {
    text.trim().chars().any(char::is_alphabetic)
        && !text
            .trim()
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
}

/// `60 s`, `24 h`, `250 ms`: a maximum in an error message.
fn format_seconds(duration: std::time::Duration) -> String {
    let seconds = duration.as_secs_f64();
    if seconds >= 3600.0 && seconds % 3600.0 == 0.0 {
        format!("{} h", seconds / 3600.0)
    } else if seconds >= 1.0 {
        format!("{seconds} s")
    } else {
        format!("{} ms", seconds * 1e3)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_iperf_and_tc_spellings() {
        assert_eq!("10M".parse::<BitRate>().unwrap(), BitRate::from_mbit(10));
        assert_eq!("10Mbit".parse::<BitRate>().unwrap(), BitRate::from_mbit(10));
        assert_eq!(
            "1.5G".parse::<BitRate>().unwrap().bits_per_second(),
            1_500_000_000
        );
        assert_eq!(
            "100k".parse::<BitRate>().unwrap().bits_per_second(),
            100_000
        );
        assert_eq!(
            "2500000".parse::<BitRate>().unwrap().bits_per_second(),
            2_500_000
        );
    }

    #[test]
    fn rejects_nonsense_with_examples() {
        let err = "fast".parse::<BitRate>().unwrap_err();
        assert!(err.to_string().contains("examples"), "{err}");
        assert!("-5M".parse::<BitRate>().is_err());
    }

    #[test]
    fn displays_with_a_readable_prefix() {
        assert_eq!(BitRate::from_mbit(10).to_string(), "10.000 Mbit/s");
    }

    #[test]
    fn sizes_take_binary_suffixes_as_iperf3() {
        assert_eq!(parse_size("1408"), Ok(1408));
        assert_eq!(parse_size("1K"), Ok(1024));
        assert_eq!(parse_size("128k"), Ok(131_072));
        assert_eq!(parse_size(" 2M "), Ok(2 << 20));
        assert_eq!(parse_size("1GB"), Ok(1 << 30));
        for bad in ["", "K", "1.5K", "-1", "12x", "99999999999999999999G"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn durations_take_every_former_spelling() {
        use std::time::Duration;
        let max = Duration::from_secs(86_400);
        let cases = [
            // the lab's link delays
            ("15ms", Duration::from_millis(15)),
            ("1.5ms", Duration::from_micros(1500)),
            ("200us", Duration::from_micros(200)),
            ("200µs", Duration::from_micros(200)),
            ("5ns", Duration::from_nanos(5)),
            ("0", Duration::ZERO),
            ("15 ms", Duration::from_millis(15)),
            // the exporter's configuration
            ("250ms", Duration::from_millis(250)),
            ("1.5s", Duration::from_millis(1500)),
            ("5m", Duration::from_secs(300)),
            ("5min", Duration::from_secs(300)),
            ("1h", Duration::from_secs(3600)),
            ("20", Duration::from_secs(20)),
            // --budget and -i
            ("1m30s", Duration::from_secs(90)),
            ("1m30", Duration::from_secs(90)),
            ("0.05", Duration::from_millis(50)),
            (" 2s ", Duration::from_secs(2)),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_duration(text, max), Ok(expected), "{text}");
        }
    }

    #[test]
    fn durations_refuse_nonsense_and_excess_without_panicking() {
        use std::time::Duration;
        let max = Duration::from_secs(60);
        for text in [
            "",
            "fast",
            "-1ms",
            "5 minutes",
            "2d",
            "NaN",
            "inf",
            "1.2.3s",
            "30 1m",
            "ms",
        ] {
            let error = parse_duration(text, max).unwrap_err();
            assert!(
                matches!(error, ParseUnitError::Malformed { .. }),
                "{text}: {error}"
            );
            assert!(error.to_string().contains("is not a duration"), "{error}");
        }
        for text in ["1e20s", "61s", "1e300ns", "18446744073709551616s", "2m"] {
            let error = parse_duration(text, max).unwrap_err();
            assert!(
                error.to_string().contains("maximum of 60 s"),
                "{text}: {error}"
            );
        }
        assert_eq!(parse_duration("60s", max), Ok(max));
        assert_eq!(parse_duration("1e3ms", max), Ok(Duration::from_secs(1)));
        assert!(duration_has_unit("15ms") && duration_has_unit("1m30"));
        assert!(!duration_has_unit("15") && !duration_has_unit("1e3") && !duration_has_unit("0.5"));
    }
}

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
}

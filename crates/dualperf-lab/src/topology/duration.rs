//! Durations written with a unit, as tc and netem users type them.

use std::time::Duration;

/// Parses `"15ms"`, `"1.5ms"`, `"200us"`, `"2s"` or `"0"` into a [`Duration`].
///
/// # Errors
/// A message with examples when the text has no known unit or a negative or
/// non-finite number.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let trimmed = text.trim();
    if trimmed == "0" {
        return Ok(Duration::ZERO);
    }
    let units: [(&str, f64); 5] = [
        ("ns", 1e-9),
        ("us", 1e-6),
        ("µs", 1e-6),
        ("ms", 1e-3),
        ("s", 1.0),
    ];
    for (suffix, seconds) in units {
        if let Some(number) = trimmed.strip_suffix(suffix) {
            if let Ok(value) = number.trim().parse::<f64>() {
                if value.is_finite() && value >= 0.0 {
                    return Ok(Duration::from_secs_f64(value * seconds));
                }
            }
            break;
        }
    }
    Err(format!(
        "`{text}` is not a duration (examples: 15ms, 1.5ms, 200us, 2s)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn milliseconds_microseconds_and_seconds_parse() {
        assert_eq!(parse_duration("15ms"), Ok(Duration::from_millis(15)));
        assert_eq!(parse_duration("1.5ms"), Ok(Duration::from_micros(1500)));
        assert_eq!(parse_duration("200us"), Ok(Duration::from_micros(200)));
        assert_eq!(parse_duration("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("0"), Ok(Duration::ZERO));
    }

    #[test]
    fn numbers_without_units_and_negative_values_are_rejected() {
        assert!(parse_duration("15").is_err());
        assert!(parse_duration("-1ms").is_err());
        assert!(parse_duration("fast").is_err());
    }
}

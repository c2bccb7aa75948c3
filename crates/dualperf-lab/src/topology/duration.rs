//! Durations written with a unit, as tc and netem users type them.

use std::time::Duration;

/// Longest duration a topology may give (a link's delay or jitter): 60 s.
/// Anything longer is a typo, and would stall every test on the link.
pub(super) const MAX_DURATION: Duration = Duration::from_secs(60);

/// Parses `"15ms"`, `"1.5ms"`, `"200us"`, `"2s"` or `"0"` into a [`Duration`]
/// with the one duration parser ([`dualperf_model::units::parse_duration`]),
/// which also takes `1m`, `1s500ms`; a non-zero number needs a unit here, as
/// in tc: `15` could mean 15 ms as easily as 15 s.
///
/// # Errors
/// A message with examples when the text has no known unit or a negative or
/// non-finite number, and one naming the maximum above [`MAX_DURATION`].
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let parsed =
        dualperf_model::units::parse_duration(text, MAX_DURATION).map_err(|e| e.to_string())?;
    if !parsed.is_zero() && !dualperf_model::units::duration_has_unit(text) {
        return Err(format!(
            "`{text}` has no unit; a delay needs one (examples: 15ms, 1.5ms, 200us, 2s)"
        ));
    }
    Ok(parsed)
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
    fn durations_beyond_the_maximum_are_errors_not_panics() {
        // Issue 16 fault 8: "1e20s" panicked in Duration::from_secs_f64.
        for text in ["1e20s", "61s", "1e300ns", "18446744073709551616s"] {
            let error = parse_duration(text).unwrap_err();
            assert!(error.contains("maximum of 60 s"), "{text}: {error}");
        }
        assert_eq!(parse_duration("60s"), Ok(MAX_DURATION));
    }

    #[test]
    fn numbers_without_units_and_negative_values_are_rejected() {
        assert!(parse_duration("15").is_err());
        assert!(parse_duration("-1ms").is_err());
        assert!(parse_duration("fast").is_err());
        assert_eq!(parse_duration("1s500ms"), Ok(Duration::from_millis(1500)));
    }
}

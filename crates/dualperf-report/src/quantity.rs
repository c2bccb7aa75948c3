//! Numbers for people: a value in a metric's unit printed with a readable
//! prefix and three significant digits; percentages; byte sizes.

/// `value` (in `unit`, the model's unit strings) for people: `941 Mbit/s`,
/// `52.3 µs`, `0.41 %`.
pub(crate) fn format_value(value: f64, unit: &str) -> String {
    match unit {
        "bit/s" => scaled(
            value,
            &[(1e9, "Gbit/s"), (1e6, "Mbit/s"), (1e3, "kbit/s")],
            "bit/s",
        ),
        "ns" => scaled(value, &[(1e9, "s"), (1e6, "ms"), (1e3, "µs")], "ns"),
        "ratio" => format!("{} %", significant(value * 100.0)),
        "" => significant(value),
        other => format!("{} {other}", significant(value)),
    }
}

/// A mean and an error (half a CI width) in one unit prefix: `941 ± 2.1 Mbit/s`.
pub(crate) fn format_with_error(mean: f64, error: f64, unit: &str) -> String {
    let (divisor, shown) = match unit {
        "bit/s" => pick(
            mean,
            &[(1e9, "Gbit/s"), (1e6, "Mbit/s"), (1e3, "kbit/s")],
            "bit/s",
        ),
        "ns" => pick(mean, &[(1e9, "s"), (1e6, "ms"), (1e3, "µs")], "ns"),
        "ratio" => (0.01, "%"),
        other => (1.0, other),
    };
    let separator = if shown.is_empty() { "" } else { " " };
    format!(
        "{} ± {}{separator}{shown}",
        significant(mean / divisor),
        significant(error / divisor)
    )
}

fn pick<'a>(value: f64, prefixes: &[(f64, &'a str)], base: &'a str) -> (f64, &'a str) {
    prefixes
        .iter()
        .find(|(factor, _)| value.abs() >= *factor)
        .copied()
        .unwrap_or((1.0, base))
}

/// A relative difference as a signed percentage, `+3.0 %` / `−1.4 %`.
pub(crate) fn percent_signed(ratio: f64) -> String {
    let text = format!("{:.1} %", ratio.abs() * 100.0);
    if ratio < 0.0 && text != "0.0 %" {
        format!("−{text}")
    } else {
        format!("+{text}")
    }
}

/// An absolute difference with its sign, for when no relative one exists
/// (the IPv4 value is 0): `+1.11 % abs.`, `−3.2 µs abs.`.
pub(crate) fn absolute_signed(difference: f64, unit: &str) -> String {
    let text = format_value(difference.abs(), unit);
    let sign = if difference < 0.0 { "−" } else { "+" };
    format!("{sign}{text} abs.")
}

/// A message size, `64 B`, `65507 B`.
pub(crate) fn bytes(size: u32) -> String {
    format!("{size} B")
}

/// Tick label of a message-size axis: `64`, `1 Ki`, `64 Ki`.
pub(crate) fn size_tick(value: f64) -> String {
    if value >= 1024.0 && (value / 1024.0).fract() < 1e-6 {
        format!("{} Ki", value / 1024.0)
    } else {
        format!("{value:.0}")
    }
}

/// A tick label with up to 3 significant digits and no trailing zeros.
pub(crate) fn tick(value: f64) -> String {
    if value == 0.0 {
        return "0".to_string();
    }
    let text = significant(value);
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    };
    text.replace('-', "−")
}

fn scaled(value: f64, prefixes: &[(f64, &str)], base: &str) -> String {
    for &(factor, unit) in prefixes {
        if value.abs() >= factor {
            return format!("{} {unit}", significant(value / factor));
        }
    }
    format!("{} {base}", significant(value))
}

/// Three significant digits, no exponent, trailing zeros kept only as needed.
pub(crate) fn significant(value: f64) -> String {
    if !value.is_finite() {
        return value.to_string();
    }
    if value == 0.0 {
        return "0".to_string();
    }
    let magnitude = value.abs().log10().floor() as i32;
    let decimals = (2 - magnitude).clamp(0, 6) as usize;
    format!("{value:.decimals$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_get_a_prefix_and_three_significant_digits() {
        assert_eq!(format_value(941_482_000.0, "bit/s"), "941 Mbit/s");
        assert_eq!(format_value(1_234_000_000.0, "bit/s"), "1.23 Gbit/s");
    }

    #[test]
    fn times_in_nanoseconds_read_as_microseconds() {
        assert_eq!(format_value(52_300.0, "ns"), "52.3 µs");
    }

    #[test]
    fn ratios_read_as_percent() {
        assert_eq!(format_value(0.0041, "ratio"), "0.410 %");
    }

    #[test]
    fn signed_percentages_use_a_real_minus_sign() {
        assert_eq!(percent_signed(-0.0138), "−1.4 %");
        assert_eq!(percent_signed(0.03), "+3.0 %");
    }

    #[test]
    fn a_mean_and_its_error_share_one_prefix() {
        assert_eq!(
            format_with_error(941_200_000.0, 2_100_000.0, "bit/s"),
            "941 ± 2.10 Mbit/s"
        );
        assert_eq!(format_with_error(0.0041, 0.001, "ratio"), "0.410 ± 0.100 %");
    }

    #[test]
    fn ticks_drop_trailing_zeros() {
        assert_eq!(tick(0.5), "0.5");
        assert_eq!(tick(50.0), "50");
        assert_eq!(tick(-1.5), "−1.5");
    }

    #[test]
    fn size_ticks_use_binary_prefixes_on_whole_kibibytes() {
        assert_eq!(size_tick(64.0), "64");
        assert_eq!(size_tick(16384.0), "16 Ki");
    }
}

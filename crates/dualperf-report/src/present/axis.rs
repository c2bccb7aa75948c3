//! Tick labels of chart axes: message sizes with binary prefixes, and
//! numbers with just enough decimals to tell neighbouring ticks apart.

/// Tick label of a message-size axis: `64`, `1 Ki`, `64 Ki`.
pub fn size_tick(value: f64) -> String {
    if value >= 1024.0 && (value / 1024.0).fract() < 1e-6 {
        format!("{} Ki", value / 1024.0)
    } else {
        format!("{value:.0}")
    }
}

/// A tick label with up to 3 significant digits and no trailing zeros.
pub fn tick(value: f64) -> String {
    if value == 0.0 {
        return "0".to_string();
    }
    trim(super::value::significant(value))
}

/// A tick label on an axis whose ticks are about `step` apart: enough
/// decimals that neighbours differ (0.95, 1.00, 1.05 — never "1 1 1").
pub fn tick_with_step(value: f64, step: f64) -> String {
    if value.abs() < step.abs() * 1e-6 {
        return "0".to_string();
    }
    if !(step.is_finite() && step > 0.0) {
        return tick(value);
    }
    let decimals = (-step.log10().floor()).clamp(0.0, 9.0) as usize;
    let plain = trim(format!("{value:.decimals$}"));
    // Large values keep three significant digits like every other number.
    if decimals == 0 && value.abs() >= 1000.0 {
        return tick(value);
    }
    plain
}

fn trim(text: String) -> String {
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    };
    text.replace('-', "−")
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn close_ticks_stay_distinct() {
        let labels: Vec<String> = [0.95, 1.0, 1.05, 1.1]
            .iter()
            .map(|v| tick_with_step(*v, 0.05))
            .collect();
        assert_eq!(labels, ["0.95", "1", "1.05", "1.1"]);
        assert_eq!(tick_with_step(2.5, 0.5), "2.5");
        assert_eq!(tick_with_step(40.0, 10.0), "40");
        assert_eq!(tick_with_step(0.0, 0.1), "0");
    }
}

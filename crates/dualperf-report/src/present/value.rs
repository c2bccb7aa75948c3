//! Every number dualperf shows people goes through this file: a metric's
//! value by its [`Quantity`] (bit/s scaled to kbit/s … Gbit/s, nanoseconds
//! to µs, ms or s, ratios as percentages, per-second rates with k/M,
//! counts with their noun, cores, µs/MiB), means with their error,
//! signed relative differences and absolute differences.
//!
//! Precision: three significant digits from 1 up ("941", "94.1", "9.41"),
//! two below 1 ("0.85", "0.0012"), integers stay integers ("3 segments").

use dualperf_model::{MetricId, Quantity};

/// A value of `metric` for people: "9.41 Gbit/s", "38.2 µs", "0.12 %".
pub fn format_value(metric: MetricId, value: f64) -> String {
    format_quantity(metric.quantity(), value)
}

/// A value of a [`Quantity`] in human units with three significant digits.
pub fn format_quantity(quantity: Quantity, value: f64) -> String {
    match quantity {
        Quantity::BitRate => scaled(value, BIT_RATE, "bit/s"),
        Quantity::Nanoseconds => scaled(value, NANOSECONDS, "ns"),
        Quantity::Ratio => format!("{} %", significant(value * 100.0)),
        Quantity::PerSecond(suffix) => {
            if value.abs() >= 1e6 {
                format!("{} M{suffix}", significant(value / 1e6))
            } else if value.abs() >= 1e3 {
                format!("{} k{suffix}", significant(value / 1e3))
            } else {
                format!("{} {suffix}", significant(value))
            }
        }
        Quantity::Count(noun) => format!("{} {noun}", significant(value)),
        Quantity::Cores => format!("{} cores", significant(value)),
        Quantity::MicrosecondsPerMib => format!("{} µs/MiB", significant(value)),
    }
}

const BIT_RATE: &[(f64, &str)] = &[(1e9, "Gbit/s"), (1e6, "Mbit/s"), (1e3, "kbit/s")];
const NANOSECONDS: &[(f64, &str)] = &[(1e9, "s"), (1e6, "ms"), (1e3, "µs")];

/// `value` divided by the first scale it reaches, with that unit.
fn scaled(value: f64, scales: &[(f64, &str)], base_unit: &str) -> String {
    let (divisor, unit) = scale_of(value, scales, base_unit);
    format!("{} {unit}", significant(value / divisor))
}

fn scale_of<'a>(value: f64, scales: &[(f64, &'a str)], base_unit: &'a str) -> (f64, &'a str) {
    scales
        .iter()
        .find(|(scale, _)| value.abs() >= *scale)
        .copied()
        .unwrap_or((1.0, base_unit))
}

/// The divisor and unit a value of `quantity` near `value` is shown in,
/// so that a mean and its error (or an axis) share one prefix. `None`
/// for quantities whose unit goes after the number unchanged.
fn prefix(quantity: Quantity, value: f64) -> (f64, String) {
    match quantity {
        Quantity::BitRate => {
            let (d, u) = scale_of(value, BIT_RATE, "bit/s");
            (d, u.to_string())
        }
        Quantity::Nanoseconds => {
            let (d, u) = scale_of(value, NANOSECONDS, "ns");
            (d, u.to_string())
        }
        Quantity::Ratio => (0.01, "%".to_string()),
        Quantity::PerSecond(suffix) => {
            if value.abs() >= 1e6 {
                (1e6, format!("M{suffix}"))
            } else if value.abs() >= 1e3 {
                (1e3, format!("k{suffix}"))
            } else {
                (1.0, suffix.to_string())
            }
        }
        Quantity::Count(noun) => (1.0, noun.to_string()),
        Quantity::Cores => (1.0, "cores".to_string()),
        Quantity::MicrosecondsPerMib => (1.0, "µs/MiB".to_string()),
    }
}

/// A mean and an error (half a CI width) in one unit prefix: `941 ± 2.10 Mbit/s`.
pub fn format_with_error(metric: MetricId, mean: f64, error: f64) -> String {
    let (divisor, unit) = prefix(metric.quantity(), mean);
    format!(
        "{} ± {} {unit}",
        significant(mean / divisor),
        significant(error / divisor)
    )
}

/// The divisor and unit label of a chart axis of `metric` whose largest
/// value is `largest`: Mbit/s below 5 Gbit/s, µs below 5 ms, % for ratios.
pub fn axis_unit(metric: MetricId, largest: f64) -> (f64, String) {
    match metric.quantity() {
        Quantity::BitRate if largest >= 5e9 => (1e9, "Gbit/s".into()),
        Quantity::BitRate => (1e6, "Mbit/s".into()),
        Quantity::Nanoseconds if largest >= 5e6 => (1e6, "ms".into()),
        Quantity::Nanoseconds => (1e3, "µs".into()),
        other => prefix(other, largest),
    }
}

/// Three significant digits for values of 1 and above, two for smaller
/// ones ("941", "94.1", "9.41", "0.85", "0.0012"); integers stay integers.
pub fn significant(value: f64) -> String {
    if !value.is_finite() {
        return value.to_string();
    }
    let magnitude = value.abs();
    if value == value.trunc() && magnitude < 1e15 {
        return format!("{value:.0}");
    }
    let decimals = if magnitude >= 100.0 {
        0
    } else if magnitude >= 10.0 {
        1
    } else if magnitude >= 1.0 {
        2
    } else {
        // Two significant digits below 1, at most 9 decimals.
        (1 - magnitude.log10().floor() as i64).clamp(2, 9) as usize
    };
    format!("{value:.decimals$}")
}

/// A percentage of a ratio with sensible precision: "36", "4.8", "0.35",
/// "0.000017" (two significant digits below 1 %).
pub fn percent(ratio: f64) -> String {
    let value = ratio * 100.0;
    let magnitude = value.abs();
    if magnitude >= 10.0 {
        format!("{value:.0}")
    } else if magnitude >= 1.0 {
        format!("{value:.1}")
    } else if magnitude == 0.0 {
        "0".to_string()
    } else {
        let decimals = (1 - magnitude.log10().floor() as i64).clamp(2, 9) as usize;
        format!("{value:.decimals$}")
    }
}

/// The upper end of a relative CI, as [`signed_percent`] up to +10000 %
/// (a hundredfold); beyond, "more than +10000": a log-scale interval over a
/// few scattered repetitions can reach billions of percent, which says
/// only that the data do not bound it.
pub fn upper_bound(ratio: f64) -> String {
    if ratio > 100.0 {
        "more than +10000".to_string()
    } else {
        signed_percent(ratio)
    }
}

/// [`upper_bound`] with its unit: "+12 %", or "more than +10000 %".
pub fn upper_bound_percent(ratio: f64) -> String {
    format!("{} %", upper_bound(ratio))
}

/// A signed percentage without the unit: "+1.2", "−0.40", "−0.00032"
/// (a real minus sign, two significant digits below 1 %); "0" only for 0,
/// so that a tiny significant difference never reads as none.
pub fn signed_percent(ratio: f64) -> String {
    if ratio == 0.0 || !ratio.is_finite() {
        return "0".to_string();
    }
    let text = percent(ratio.abs());
    if ratio < 0.0 {
        format!("−{text}")
    } else {
        format!("+{text}")
    }
}

/// A relative difference as a signed percentage: "+3.0 %", "−1.4 %", "0 %".
pub fn percent_signed(ratio: f64) -> String {
    format!("{} %", signed_percent(ratio))
}

/// A signed percentage for narrow cells: like [`signed_percent`], but a
/// nonzero value below 0.005 % is "+0.00" or "−0.00" (tiny, not none).
fn compact_percent(ratio: f64) -> String {
    if ratio != 0.0 && (ratio * 100.0).abs() < 0.005 {
        if ratio < 0.0 {
            "−0.00".to_string()
        } else {
            "+0.00".to_string()
        }
    } else {
        signed_percent(ratio)
    }
}

/// A relative difference and its CI in a compact form: "−4.8 % [−5.7, −3.9]".
pub fn compact_relative(relative: f64, ci: Option<(f64, f64)>) -> String {
    match ci {
        Some((low, high)) => format!(
            "{} % [{}, {}]",
            compact_percent(relative),
            compact_percent(low),
            compact_percent(high)
        ),
        None => format!("{} %", compact_percent(relative)),
    }
}

/// An absolute difference with its sign, for when no relative one exists
/// (the baseline's value is 0): percentage points for ratios ("+0.12 pp"),
/// the value otherwise ("+3 episodes", "−3.2 µs"); "0" for none.
pub fn signed_difference(metric: MetricId, difference: f64) -> String {
    if difference == 0.0 {
        return "0".to_string();
    }
    let sign = if difference < 0.0 { "−" } else { "+" };
    match metric.quantity() {
        Quantity::Ratio => format!("{sign}{} pp", significant(difference.abs() * 100.0)),
        _ => format!("{sign}{}", format_value(metric, difference.abs())),
    }
}

/// A message size: `64 B`, `65507 B`.
pub fn bytes(size: u32) -> String {
    format!("{size} B")
}

/// A p-value for people: three decimals, `< 0.001` below that.
pub fn p_value(p: f64) -> String {
    if p < 0.001 {
        "< 0.001".to_string()
    } else {
        format!("{p:.3}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_print_in_human_units() {
        assert_eq!(format_quantity(Quantity::BitRate, 9.41e9), "9.41 Gbit/s");
        assert_eq!(format_quantity(Quantity::BitRate, 941.5e6), "942 Mbit/s");
        assert_eq!(format_quantity(Quantity::Nanoseconds, 38_200.0), "38.2 µs");
        assert_eq!(format_quantity(Quantity::Nanoseconds, 512.0), "512 ns");
        assert_eq!(format_quantity(Quantity::Ratio, 0.0012), "0.12 %");
        assert_eq!(
            format_quantity(Quantity::PerSecond("pps"), 812_345.0),
            "812 kpps"
        );
        assert_eq!(
            format_quantity(Quantity::Count("segments"), 3.0),
            "3 segments"
        );
        assert_eq!(format_quantity(Quantity::Cores, 0.853), "0.85 cores");
        assert_eq!(format_quantity(Quantity::Ratio, 0.000_012_34), "0.0012 %");
    }

    #[test]
    fn every_metric_formats_by_its_quantity() {
        assert_eq!(format_value(MetricId::GoodputBps, 9.41e9), "9.41 Gbit/s");
        assert_eq!(format_value(MetricId::RttP50Ns, 38_200.0), "38.2 µs");
        assert_eq!(format_value(MetricId::ClientCpuCores, 1.4234), "1.42 cores");
        assert_eq!(
            format_value(MetricId::ClientServiceDemandUsPerMib, 370.4),
            "370 µs/MiB"
        );
        assert_eq!(format_value(MetricId::TransactionsPerSecond, 4.0), "4 tps");
        for metric in MetricId::ALL {
            assert!(!format_value(*metric, 1.5).is_empty());
        }
    }

    #[test]
    fn rates_get_a_prefix_and_three_significant_digits() {
        assert_eq!(
            format_value(MetricId::GoodputBps, 941_482_000.0),
            "941 Mbit/s"
        );
        assert_eq!(
            format_value(MetricId::GoodputBps, 1_234_000_000.0),
            "1.23 Gbit/s"
        );
    }

    #[test]
    fn times_in_nanoseconds_read_as_microseconds() {
        assert_eq!(format_value(MetricId::RttMeanNs, 52_300.0), "52.3 µs");
    }

    #[test]
    fn ratios_read_as_percent() {
        // Was "0.410 %" when the report had its own formatter; the one
        // formatter keeps two significant digits below 1 (catalogue rule).
        assert_eq!(format_value(MetricId::LossRatio, 0.0041), "0.41 %");
    }

    #[test]
    fn an_upper_bound_beyond_ten_times_says_so_instead_of_billions() {
        assert_eq!(upper_bound(0.5), signed_percent(0.5));
        assert_eq!(upper_bound(53.61), signed_percent(53.61));
        assert_eq!(upper_bound(24_337_537.0), "more than +10000");
    }

    #[test]
    fn signed_percentages_use_a_real_minus_sign() {
        assert_eq!(percent_signed(-0.0138), "−1.4 %");
        assert_eq!(percent_signed(0.03), "+3.0 %");
    }

    #[test]
    fn a_mean_and_its_error_share_one_prefix() {
        assert_eq!(
            format_with_error(MetricId::GoodputBps, 941_200_000.0, 2_100_000.0),
            "941 ± 2.10 Mbit/s"
        );
        // Was "0.410 ± 0.100 %" (see ratios_read_as_percent).
        assert_eq!(
            format_with_error(MetricId::LossRatio, 0.0041, 0.001),
            "0.41 ± 0.10 %"
        );
    }

    #[test]
    fn absolute_differences_use_percentage_points_for_ratios() {
        assert_eq!(
            signed_difference(MetricId::LossRatio, 0.000_01),
            "+0.0010 pp"
        );
        assert_eq!(
            signed_difference(MetricId::LossEpisodes, 3.0),
            "+3 episodes"
        );
        assert_eq!(signed_difference(MetricId::RttMeanNs, -3_200.0), "−3.20 µs");
        assert_eq!(signed_difference(MetricId::RttMeanNs, 0.0), "0");
    }

    #[test]
    fn compact_relatives_show_the_interval() {
        assert_eq!(
            compact_relative(-0.048, Some((-0.057, -0.039))),
            "−4.8 % [−5.7, −3.9]"
        );
        assert_eq!(compact_relative(0.0, None), "0 %");
        assert_eq!(percent_signed(-0.000_003_2), "−0.00032 %");
        assert_eq!(
            compact_relative(-0.000_003_2, Some((-0.000_005, -0.000_001))),
            "−0.00 % [−0.00, −0.00]"
        );
    }

    #[test]
    fn p_values_have_three_decimals() {
        assert_eq!(p_value(0.0213), "0.021");
        assert_eq!(p_value(0.0001), "< 0.001");
    }
}

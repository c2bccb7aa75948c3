//! Live interval lines, as iperf3 prints them while a test runs: one line
//! per finished sample interval of the running trial, with the arm, the
//! interval's span in seconds since the measured interval began, the
//! payload moved and its rate, in the units every other output uses
//! (`[v6] 1.00-1.50 s  56.2 MiB  943 Mbit/s`).

use dualperf_model::{IntervalSample, Quantity};

use super::value::{format_quantity, significant};

const KIB: f64 = 1024.0;
const BYTE_SCALES: &[(f64, &str)] = &[(KIB * KIB * KIB, "GiB"), (KIB * KIB, "MiB"), (KIB, "KiB")];

/// A volume of payload for people: "512 B", "56.2 MiB", "1.10 GiB".
pub fn byte_volume(bytes: u64) -> String {
    let value = bytes as f64;
    match BYTE_SCALES.iter().find(|(scale, _)| value >= *scale) {
        Some((scale, unit)) => format!("{} {unit}", significant(value / scale)),
        None => format!("{bytes} B"),
    }
}

/// The line for one finished interval of arm `arm_id`: its span, the
/// payload it moved (the larger of sent and received: what the client
/// sent, or received with `--reverse`), the rate, and the mean
/// transaction time when the test times transactions.
pub fn interval_line(arm_id: &str, sample: &IntervalSample) -> String {
    let end = sample.end_ns as f64 / 1e9;
    let start = sample.end_ns.saturating_sub(sample.length_ns) as f64 / 1e9;
    let bytes = sample.sent_bytes.max(sample.received_bytes);
    let rate = if sample.length_ns > 0 {
        bytes as f64 * 8.0 / (sample.length_ns as f64 / 1e9)
    } else {
        0.0
    };
    let mut line = format!(
        "[{arm_id}] {start:.2}-{end:.2} s  {:>9}  {:>12}",
        byte_volume(bytes),
        format_quantity(Quantity::BitRate, rate)
    );
    if let Some(mean) = sample.mean_delay_ns {
        line.push_str("  mean ");
        line.push_str(&format_quantity(Quantity::Nanoseconds, mean as f64));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_interval_reads_like_iperf3() {
        let sample = IntervalSample {
            end_ns: 2_000_000_000,
            length_ns: 1_000_000_000,
            sent_bytes: 1_181_116_006,
            ..Default::default()
        };
        assert_eq!(
            interval_line("v6", &sample),
            "[v6] 1.00-2.00 s   1.10 GiB   9.45 Gbit/s"
        );
    }

    #[test]
    fn a_request_response_interval_adds_the_mean_time() {
        let sample = IntervalSample {
            end_ns: 500_000_000,
            length_ns: 500_000_000,
            sent_bytes: 64_000,
            received_bytes: 64_000,
            mean_delay_ns: Some(38_200),
            ..Default::default()
        };
        assert_eq!(
            interval_line("v4", &sample),
            "[v4] 0.00-0.50 s   62.5 KiB   1.02 Mbit/s  mean 38.2 µs"
        );
    }

    #[test]
    fn volumes_take_binary_prefixes() {
        assert_eq!(byte_volume(512), "512 B");
        assert_eq!(byte_volume(1536), "1.50 KiB");
        assert_eq!(byte_volume(3 * 1024 * 1024 * 1024), "3 GiB");
    }
}

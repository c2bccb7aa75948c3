//! What a server may claim: its report is checked before it becomes a
//! trial, so that a hostile or broken peer cannot store a physically
//! impossible result as a good one (u64::MAX counters, 1.7e308 floats,
//! more bytes than any link carries in the time). A report that fails is
//! a failed trial, with the reason.

use std::time::Duration;

use dualperf_model::TestSpec;

use crate::protocol::message::ServerReport;

/// No link carries more than this, bits per second (10 Tbit/s: ten times
/// the fastest Ethernet; loopback reaches a few hundred Gbit/s).
pub const MAX_PLAUSIBLE_BITS_PER_SECOND: f64 = 1e13;
/// Largest integer any report field may hold (2⁶², about 4.6 × 10¹⁸; a
/// CLOCK_REALTIME stamp in ns is 1.8 × 10¹⁸ until the year 2100).
pub const MAX_PLAUSIBLE_INTEGER: u64 = 1 << 62;
/// Largest magnitude of a non-integer field (10³⁰: a sum of squares of
/// 10⁴ hour-long delays in ns² is 10²⁹).
pub const MAX_PLAUSIBLE_FLOAT: f64 = 1e30;
/// Time a server may add to the test's schedule (draining, waiting for
/// late datagrams).
const SLACK: Duration = Duration::from_secs(60);

/// Checks `report` for `spec`.
///
/// # Errors
/// The first impossible value, named.
pub fn check_server_report(report: &ServerReport, spec: &TestSpec) -> Result<(), String> {
    let value = serde_json::to_value(report).map_err(|e| format!("unreadable report: {e}"))?;
    check_numbers(&value, "report")?;
    let allowed = Duration::from_millis(spec.warmup_ms.saturating_add(spec.duration_ms)) + SLACK;
    if report.measured_ns as u128 > allowed.as_nanos() {
        return Err(format!(
            "the server claims a measured interval of {} s for a test of {} ms",
            report.measured_ns / 1_000_000_000,
            spec.warmup_ms + spec.duration_ms
        ));
    }
    let max_bytes = MAX_PLAUSIBLE_BITS_PER_SECOND / 8.0 * allowed.as_secs_f64();
    for (what, counters) in [("sent", &report.sent), ("received", &report.received)] {
        if counters.bytes as f64 > max_bytes || counters.packets as f64 > max_bytes {
            return Err(format!(
                "the server claims to have {what} {} B in {} packets within {} s: more than any link carries",
                counters.bytes,
                counters.packets,
                allowed.as_secs()
            ));
        }
    }
    if let Some(udp) = &report.udp {
        let most = udp.sent.max(report.sent_per_stream.iter().sum());
        if udp.received as f64 > max_bytes || udp.lost as f64 > max_bytes || most as f64 > max_bytes
        {
            return Err(format!(
                "the server claims {} datagrams received and {} lost within {} s: impossible",
                udp.received,
                udp.lost,
                allowed.as_secs()
            ));
        }
    }
    Ok(())
}

/// Every number in `value`: integers at most [`MAX_PLAUSIBLE_INTEGER`],
/// other numbers finite and within [`MAX_PLAUSIBLE_FLOAT`].
fn check_numbers(value: &serde_json::Value, at: &str) -> Result<(), String> {
    match value {
        serde_json::Value::Number(number) => {
            if let Some(integer) = number.as_u64() {
                if integer > MAX_PLAUSIBLE_INTEGER {
                    return Err(format!("{at} = {integer}: an impossible count"));
                }
            } else if let Some(integer) = number.as_i64() {
                if integer.unsigned_abs() > MAX_PLAUSIBLE_INTEGER {
                    return Err(format!("{at} = {integer}: an impossible value"));
                }
            } else {
                let float = number.as_f64().unwrap_or(f64::INFINITY);
                if !float.is_finite() || float.abs() > MAX_PLAUSIBLE_FLOAT {
                    return Err(format!("{at} = {float}: an impossible value"));
                }
            }
            Ok(())
        }
        serde_json::Value::Array(items) => items
            .iter()
            .enumerate()
            .try_for_each(|(index, item)| check_numbers(item, &format!("{at}[{index}]"))),
        serde_json::Value::Object(fields) => fields
            .iter()
            .try_for_each(|(key, item)| check_numbers(item, &format!("{at}.{key}"))),
        // serde_json writes a non-finite float as null: refused where the
        // report was built (a NaN never becomes a number here).
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::TestKind;

    fn spec() -> TestSpec {
        TestSpec::new(TestKind::TcpStream, 1024)
    }

    #[test]
    fn an_honest_report_passes_and_impossible_ones_fail() {
        let mut report = ServerReport {
            measured_ns: 1_000_000_000,
            ..ServerReport::default()
        };
        report.received.bytes = 1 << 30;
        assert!(check_server_report(&report, &spec()).is_ok());
        report.received.bytes = u64::MAX;
        assert!(check_server_report(&report, &spec()).is_err());
        report.received.bytes = 1 << 60;
        let error = check_server_report(&report, &spec()).unwrap_err();
        assert!(error.contains("more than any link"), "{error}");
        report.received.bytes = 0;
        report.sent_per_stream = vec![u64::MAX];
        assert!(check_server_report(&report, &spec())
            .unwrap_err()
            .contains("impossible count"));
        let huge = serde_json::json!({"cpu": {"share": 1.7e308}});
        assert!(check_numbers(&huge, "report")
            .unwrap_err()
            .contains("impossible value"));
    }
}

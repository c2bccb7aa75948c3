//! `dualperf run --json-stream`: the run as it happens, one JSON object per
//! line on standard output, as iperf3's `--json-stream` (3.17) gives it —
//! `{"event":"interval","data":…}` for every finished sample interval of
//! the client (its [`IntervalSample`](dualperf_model::IntervalSample)
//! counters, with the trial's index, point and arm), `{"event":"trial",
//! "data":…}` for every finished trial (the [`Trial`](dualperf_model::Trial)
//! as the result stores it), then `{"event":"end","data":…}` with the whole
//! analysed result (schema `dualperf.run` v2). Nothing else goes to
//! standard output; progress stays on standard error.

use std::io::Write;

use dualperf_engine::client::Progress;
use serde_json::json;

/// Writes one object as one line and flushes it (a reader sees each line
/// as it happens); a closed pipe ends the stream quietly.
pub(super) fn emit(event: &str, data: serde_json::Value) {
    let line = json!({ "event": event, "data": data });
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}").and_then(|()| out.flush());
}

/// The object for an engine event, or `None` for one the stream leaves out
/// (a trial's start).
pub(super) fn event(progress: &Progress<'_>) -> Option<(&'static str, serde_json::Value)> {
    match progress {
        Progress::IntervalFinished {
            index,
            spec,
            arm,
            sample,
        } => Some((
            "interval",
            json!({
                "trial": index,
                "point": spec.label(),
                "arm": arm.id.as_str(),
                "family": arm.family.key(),
                "sample": sample,
            }),
        )),
        Progress::TrialFinished {
            index,
            total,
            trial,
        } => Some((
            "trial",
            json!({ "trial": index, "of": total, "result": trial }),
        )),
        Progress::TrialStarted { .. } => None,
    }
}

/// The view's hook: every event the stream carries, emitted.
pub(super) fn sink() -> Box<dyn FnMut(&Progress<'_>)> {
    Box::new(|progress| {
        if let Some((name, data)) = event(progress) {
            emit(name, data);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::{Arm, IntervalSample, IpFamily, TestKind, TestSpec};

    #[test]
    fn an_interval_names_its_trial_point_arm_and_counters() {
        let spec = TestSpec::new(TestKind::UdpStream, 1024);
        let arm = Arm::native(IpFamily::V6, Some("::1".into()));
        let sample = IntervalSample {
            end_ns: 100_000_000,
            length_ns: 100_000_000,
            ..Default::default()
        };
        let (name, data) = event(&Progress::IntervalFinished {
            index: 3,
            spec: &spec,
            arm: &arm,
            sample: &sample,
        })
        .unwrap();
        assert_eq!(name, "interval");
        assert_eq!(data["trial"], 3);
        assert_eq!(data["arm"], "v6");
        assert_eq!(data["point"], "udp-stream 1024 B");
        assert_eq!(data["sample"]["length_ns"], 100_000_000);
    }
}

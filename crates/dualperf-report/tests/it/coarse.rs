//! A SYNTHETIC run shaped like a default measurement that made the charts
//! unreadable (issue 15): one goodput sample per trial (a 1-second trial
//! sampled once) and one 20 ms round-trip outlier among ~40 µs ones.

use dualperf_fixtures::{analysed, synthetic};
use dualperf_model::{HistogramBucket, IntervalSample, RunResult, TestKind, TrialOutcome};

/// The outlier's round-trip time, nanoseconds.
pub const OUTLIER_NS: u64 = 20_000_000;

/// The small synthetic run with one interval per stream trial and one
/// 20 ms outlier in the first IPv6 tcp-rr trial, re-analysed.
pub fn coarse_run() -> RunResult {
    let mut run = synthetic::small_synthetic_run();
    let mut outlier_added = false;
    for trial in &mut run.trials {
        let TrialOutcome::Ok(observations) = &mut trial.outcome else {
            continue;
        };
        match trial.spec.kind {
            TestKind::TcpStream | TestKind::UdpStream => {
                let intervals = &observations.intervals;
                let one = IntervalSample {
                    end_ns: observations.measured_ns,
                    length_ns: observations.measured_ns,
                    sent_bytes: intervals.iter().map(|i| i.sent_bytes).sum(),
                    sent_packets: intervals.iter().map(|i| i.sent_packets).sum(),
                    received_bytes: intervals.iter().map(|i| i.received_bytes).sum(),
                    received_packets: intervals.iter().map(|i| i.received_packets).sum(),
                    lost_packets: None,
                    mean_delay_ns: None,
                };
                observations.intervals = vec![one];
            }
            TestKind::TcpRr if !outlier_added && trial.arm.as_str() == "v6" => {
                if let Some(latency) = &mut observations.latency {
                    latency.histogram.push(HistogramBucket {
                        value_ns: OUTLIER_NS,
                        count: 1,
                    });
                    latency.count += 1;
                    latency.max_ns = OUTLIER_NS;
                    latency.sum_ns += u128::from(OUTLIER_NS);
                    latency.sum_squares_ns2 += (OUTLIER_NS as f64).powi(2);
                    outlier_added = true;
                }
            }
            _ => {}
        }
    }
    assert!(outlier_added, "the small synthetic run has a tcp-rr point");
    run.analysis = None;
    analysed(run)
}

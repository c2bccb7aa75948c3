//! The measured values of a run that compares nothing (one arm: `-4`, `-6`,
//! or a server with one family), printed as iperf3 prints its summary: per
//! point, the arm's goodput and sender rate, retransmissions for TCP, loss
//! and jitter (RFC 3550) for UDP, round-trip and connect times for the
//! request/response and connect tests.
//!
//! ```text
//! [2] udp-stream 1024 B, IPv4: goodput 85.0 Mbit/s, sender rate 85.0 Mbit/s, loss 0 %, jitter 3.1 µs (mean of 3)
//! ```
//!
//! Each value is the mean over the arm's successful repetitions. Pure: a
//! result and its analysis in, text out.

use dualperf_model::{Analysis, MetricId, RunResult, TestKind};

use crate::present::value::format_value;
use crate::present::ArmNames;

/// The metrics an iperf3 user expects for a test kind, in print order.
pub fn measured_metrics(kind: TestKind) -> &'static [MetricId] {
    match kind {
        TestKind::TcpStream => &[
            MetricId::GoodputBps,
            MetricId::SenderThroughputBps,
            MetricId::RetransmittedSegments,
        ],
        TestKind::UdpStream => &[
            MetricId::GoodputBps,
            MetricId::SenderThroughputBps,
            MetricId::LossRatio,
            MetricId::JitterNs,
        ],
        TestKind::TcpRr | TestKind::UdpRr => &[
            MetricId::TransactionsPerSecond,
            MetricId::RttP50Ns,
            MetricId::RttP99Ns,
        ],
        TestKind::TcpConnect => &[MetricId::ConnectionsPerSecond, MetricId::ConnectP50Ns],
        TestKind::UdpProbe => &[MetricId::OwdP50Ns, MetricId::JitterNs, MetricId::LossRatio],
        TestKind::Media => &[
            MetricId::MediaMos,
            MetricId::FrameDeliveryRatio,
            MetricId::LossRatio,
            MetricId::JitterNs,
        ],
    }
}

/// True when the run compares nothing: every point has at most one arm.
pub fn is_one_arm(result: &RunResult) -> bool {
    result.config.compared_arms().next().is_none()
}

/// One line per point and arm with its measured values; a point whose
/// values are all missing says so (the verdict lines say why).
pub fn render_measured(result: &RunResult, analysis: &Analysis) -> String {
    let names = ArmNames::new(&result.config);
    let mut text = String::new();
    for (point, spec) in result.config.points.iter().enumerate() {
        for arm in &result.config.arms {
            let mut values = Vec::new();
            let mut count = 0;
            for &metric in measured_metrics(spec.kind) {
                let summary = analysis
                    .summaries
                    .iter()
                    .find(|s| s.point == point && s.arm == arm.id && s.metric == metric);
                if let Some(s) = summary {
                    values.push(format!(
                        "{} {}",
                        metric.label(),
                        format_value(metric, s.summary.mean)
                    ));
                    count = count.max(s.summary.count);
                }
            }
            let head = format!("[{}] {}, {}", point + 1, spec.label(), names.label(&arm.id));
            if values.is_empty() {
                text.push_str(&format!("{head}: nothing measured\n"));
            } else {
                let of = match count {
                    1 => "one repetition".to_string(),
                    n => format!("mean of {n}"),
                };
                text.push_str(&format!("{head}: {} ({of})\n", values.join(", ")));
            }
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn udp_shows_loss_and_jitter_and_tcp_its_retransmissions() {
        let udp = measured_metrics(TestKind::UdpStream);
        assert!(udp.contains(&MetricId::LossRatio) && udp.contains(&MetricId::JitterNs));
        assert!(udp.contains(&MetricId::SenderThroughputBps));
        assert!(measured_metrics(TestKind::TcpStream).contains(&MetricId::RetransmittedSegments));
        for kind in TestKind::ALL {
            assert!(!measured_metrics(kind).is_empty());
        }
    }
}

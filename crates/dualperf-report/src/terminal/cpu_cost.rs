//! What each stack costs in CPU, for a lab run on unshaped links
//! (`dualperf lab stack-cost`, `--link-rate none`; issue 23). There the
//! CPUs set the rate, so goodput measures the scheduler; the stable figure
//! is CPU time per MiB delivered (netperf's service demand) and per packet,
//! at each end, baseline and compared arm side by side with the relative
//! difference and its 95 % CI.
//!
//! ```text
//! CPU cost (unshaped links: the CPUs, not the path, set the rate; client pinned to CPU 0, server to CPU 1)
//! point                   cost                    IPv4         IPv6         Δ vs IPv4 [95 % CI]  sig.
//! [1] tcp-stream 1408 B   client CPU per MiB      212 µs/MiB   219 µs/MiB   +3.3 % [+1.2, +5.4]  yes
//! ```

use dualperf_model::{Analysis, LinkRate, MetricId, RunResult};

use super::context::Context;
use super::layout::{columns, difference_cell, significance_cell};
use crate::present::format_value;

/// The CPU-cost metrics, in table order.
const COSTS: [MetricId; 4] = [
    MetricId::ClientServiceDemandUsPerMib,
    MetricId::ServerServiceDemandUsPerMib,
    MetricId::ClientCpuPerPacketNs,
    MetricId::ServerCpuPerPacketNs,
];

/// The table for a lab run on unshaped links; `None` for any other run
/// or when no stream point has a CPU-cost comparison.
pub fn render_cpu_cost(result: &RunResult, analysis: &Analysis) -> Option<String> {
    let testbed = result.testbed.as_ref()?;
    if testbed.link_rate != Some(LinkRate::Unshaped) {
        return None;
    }
    let context = Context::new(result, analysis);
    let mut comparisons: Vec<_> = analysis
        .comparisons
        .iter()
        .filter(|c| COSTS.contains(&c.metric))
        .collect();
    if comparisons.is_empty() {
        return None;
    }
    comparisons.sort_by_key(|c| {
        (
            c.point,
            c.arm.clone(),
            COSTS.iter().position(|m| *m == c.metric),
        )
    });
    let baseline = context.names.label(context.baseline()).to_string();
    let mut rows = vec![vec![
        "point".to_string(),
        "cost".to_string(),
        baseline.clone(),
        "arm".to_string(),
        format!("Δ vs {baseline} [95 % CI]"),
        "sig.".to_string(),
    ]];
    for c in comparisons {
        rows.push(vec![
            format!("[{}] {}", c.point + 1, context.point_label(c.point)),
            c.metric.label().to_string(),
            format_value(c.metric, c.baseline_summary.mean),
            format!(
                "{} {}",
                context.names.label(&c.arm),
                format_value(c.metric, c.arm_summary.mean)
            ),
            difference_cell(c),
            significance_cell(c),
        ]);
    }
    let pinned = match (
        &result.config.client_cpus[..],
        &result.config.server_cpus[..],
    ) {
        ([], []) => "ends not pinned".to_string(),
        (client, server) => format!("client pinned to CPU {client:?}, server to CPU {server:?}"),
    };
    let mut out =
        format!("CPU cost (unshaped links: the CPUs, not the path, set the rate; {pinned})\n");
    out.push_str(&columns(&rows));
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::{IpFamily, TestKind, TestbedFacts};

    #[test]
    fn unshaped_lab_runs_get_the_cost_table_and_shaped_ones_do_not() {
        let spec = dualperf_fixtures::spec(TestKind::TcpStream, 1408);
        let v4 = dualperf_model::Arm::native(IpFamily::V4, None);
        let v6 = dualperf_model::Arm::native(IpFamily::V6, None);
        let observations = |cpu_ns: u64, segments: u64| {
            let mut o = dualperf_fixtures::stream(1e9);
            o.cpu.client = dualperf_model::ProcessCpu {
                user_ns: 0,
                system_ns: cpu_ns,
                wall_ns: 1_000_000_000,
                involuntary_switches: 0,
                ..Default::default()
            };
            o.tcp = Some(dualperf_model::TcpCounters {
                segments_sent: segments,
                ..Default::default()
            });
            o
        };
        let mut trials = Vec::new();
        for repetition in 0..3 {
            let jitter = u64::from(repetition) * 1_000_000;
            for (arm, cpu) in [(&v4, 500_000_000), (&v6, 520_000_000)] {
                trials.push(dualperf_fixtures::trial(
                    0,
                    &spec,
                    arm,
                    repetition,
                    dualperf_fixtures::ok(observations(cpu + jitter, 86_000)),
                ));
            }
        }
        let config = dualperf_fixtures::config(vec![spec], vec![v4, v6]);
        let mut result = dualperf_fixtures::result(config, trials);
        result.testbed = Some(TestbedFacts {
            link_rate: Some(LinkRate::Unshaped),
            ..TestbedFacts::default()
        });
        let result = dualperf_fixtures::analysed(result);
        let analysis = result.analysis.as_ref().unwrap();
        let text = render_cpu_cost(&result, analysis).unwrap();
        assert!(text.contains("client CPU per MiB"), "{text}");
        assert!(text.contains("client CPU per packet"), "{text}");
        // 0.501 s of CPU (mean) over 86 000 segments: 5.83 µs per packet.
        assert!(text.contains("5.83 µs"), "{text}");
        let mut shaped = result.clone();
        shaped.testbed = Some(TestbedFacts {
            link_rate: Some(LinkRate::Shaped {
                bits_per_second: 200_000_000,
            }),
            ..TestbedFacts::default()
        });
        assert_eq!(render_cpu_cost(&shaped, analysis), None);
    }
}

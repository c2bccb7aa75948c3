//! The terminal's mean-over-sizes table (the Gigabit UDP study's Tables 2
//! and 3): one row per arm, each column a metric averaged over the sweep's
//! sizes, then each arm's difference from the baseline in percent.
//!
//! ```text
//! udp-stream, means over 6 sizes (128 … 1408 B), each size's mean over its repetitions:
//!   arm          goodput      loss     jitter    one-way delay mean   client CPU   server CPU
//!   ──────────────────────────────────────────────────────────────────────────────────────
//!   IPv4         412 Mbit/s   0.12 %   3.1 µs    41.2 µs              0.98 cores   0.71 cores
//!   IPv6         398 Mbit/s   0.15 %   3.3 µs    43.0 µs              0.98 cores   0.73 cores
//!   IPv6 − IPv4  −3.4 %       +25 %    +6.5 %    +4.4 %               +0.0 %       +2.8 %
//! ```

use dualperf_model::{Analysis, MetricId, RunResult, TestKind};

use super::table::render_table;
use crate::present::size_means::size_means;

/// The block, `None` when the run sweeps fewer than two sizes of `kind`.
pub fn render_size_means(
    result: &RunResult,
    analysis: &Analysis,
    kind: TestKind,
    metrics: &[MetricId],
) -> Option<String> {
    let means = size_means(result, analysis, kind, metrics)?;
    let (first, last) = (means.sizes.first()?, means.sizes.last()?);
    let mut out = format!(
        "{kind}, means over {} sizes ({first} … {last} B), each size's mean over its repetitions:\n",
        means.sizes.len()
    );
    let mut header = vec!["arm".to_string()];
    header.extend(means.metrics.iter().map(|m| m.label().to_string()));
    let mut table = vec![header];
    for line in means.lines(&result.config.baseline) {
        let mut cells = vec![line.label];
        cells.extend(
            line.cells
                .into_iter()
                .map(|cell| cell.unwrap_or_else(|| "—".to_string())),
        );
        table.push(cells);
    }
    for line in render_table(&table, &[], None).lines() {
        out.push_str("  ");
        out.push_str(line);
        out.push('\n');
    }
    out.push_str(
        "  (a difference of means over sizes; each size's own comparison, with its confidence \
         interval, is in the verdicts above)\n",
    );
    Some(out)
}

/// What set the pace at each size of `kind`'s sweep, in one sentence per
/// regime (a size counts under its least network-bound arm), and when any
/// size was CPU-bound, that the machine and not the link set those rates.
/// `None` without regimes (an analysis of an unshaped or old run).
pub fn render_sweep_regime(
    result: &RunResult,
    analysis: &Analysis,
    kind: TestKind,
) -> Option<String> {
    use dualperf_model::Regime;
    use std::collections::BTreeMap;
    let rank = |regime: Regime| match regime {
        Regime::NetworkBound => 0u8,
        Regime::Unsaturated => 1,
        Regime::CpuBound => 2,
    };
    let mut worst: BTreeMap<usize, Regime> = BTreeMap::new();
    for regime in &analysis.regimes {
        if result.config.points.get(regime.point).map(|p| p.kind) != Some(kind) {
            continue;
        }
        let entry = worst.entry(regime.point).or_insert(regime.regime);
        if rank(regime.regime) > rank(*entry) {
            *entry = regime.regime;
        }
    }
    if worst.is_empty() {
        return None;
    }
    let mut by_regime: BTreeMap<u8, (Regime, Vec<String>)> = BTreeMap::new();
    for (point, regime) in &worst {
        let size = result.config.points[*point].size_bytes;
        by_regime
            .entry(rank(*regime))
            .or_insert((*regime, Vec::new()))
            .1
            .push(size.to_string());
    }
    let mut out = String::from("regime:");
    let parts: Vec<String> = by_regime
        .values()
        .map(|(regime, sizes)| {
            format!(
                " {} at {} B ({})",
                crate::present::regime::regime_word(*regime),
                sizes.join(", "),
                crate::present::regime::regime_meaning(*regime)
            )
        })
        .collect();
    out.push_str(&parts.join(";"));
    out.push('\n');
    if worst.values().any(|r| *r == Regime::CpuBound) {
        let cpus = result.client_host.cpu_count;
        out.push_str(&format!(
            "  at the CPU-bound sizes this machine ({cpus} CPUs shared by both ends and the \
             emulated link) and not the link set the rate: those throughputs say what the \
             stacks cost here, not what a gigabit link carries (the study's hosts had a NIC \
             and CPUs each)\n"
        ));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_fixtures as fx;

    #[test]
    fn the_table_prints_each_arms_mean_over_sizes_and_the_difference() {
        let mut result = crate::present::size_means::sweep_run(
            &[128, 1408],
            &[("v4", &[100e6, 700e6]), ("v6", &[90e6, 690e6])],
            None,
        );
        let mut analysis = result.analysis.take().unwrap_or_default();
        let metrics = [MetricId::GoodputBps, MetricId::JitterNs];
        let text = render_size_means(&result, &analysis, TestKind::UdpStream, &metrics).unwrap();
        assert!(text.contains("means over 2 sizes (128 … 1408 B)"), "{text}");
        assert!(
            text.contains("400 Mbit/s") && text.contains("390 Mbit/s"),
            "{text}"
        );
        assert!(
            text.contains("IPv6 − IPv4") && text.contains("−2.5 %"),
            "{text}"
        );
        assert!(text.contains('—'), "jitter is missing: {text}");
        assert!(render_size_means(&result, &analysis, TestKind::TcpStream, &metrics).is_none());
        assert!(render_sweep_regime(&result, &analysis, TestKind::UdpStream).is_none());
        let regime = |point: usize, arm: &str, regime| dualperf_model::PointRegime {
            point,
            arm: fx::arm_id(arm),
            regime,
            link_bits_per_second: Some(1_000_000_000),
            link_share: None,
            busiest_end_cores: None,
        };
        use dualperf_model::Regime::{CpuBound, NetworkBound};
        analysis.regimes = vec![
            regime(0, "v4", CpuBound),
            regime(0, "v6", NetworkBound),
            regime(1, "v4", NetworkBound),
            regime(1, "v6", NetworkBound),
        ];
        let text = render_sweep_regime(&result, &analysis, TestKind::UdpStream).unwrap();
        assert!(text.contains("network-bound at 1408 B"), "{text}");
        assert!(text.contains("cpu-bound at 128 B"), "{text}");
        assert!(text.contains("not the link set the rate"), "{text}");
    }
}

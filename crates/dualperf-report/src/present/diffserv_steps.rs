//! The load-step part of [`super::DiffServView`]: the loss table (the
//! paper's Table 2), the senders' achieved share of each step's rate, the
//! EF probe beside each step, and router CPU per step.

use dualperf_model::{IpFamily, MetricId};

use super::{loss_percent, DiffServView, LoadPart, RouterRow, SHORT_OF_RATE, STEPS};
use crate::present::value::{format_value, significant};
use dualperf_model::Summary;

impl DiffServView<'_> {
    /// Load-step loss, mean over repetitions (mixed: mean of its two
    /// flows); `column` 0 IPv4, 1 IPv6, 2 mixed.
    pub fn step_loss(&self, column: usize, percent: u32, size: u32) -> Option<f64> {
        let arm = self.step_arm_id(column, percent, size)?;
        let losses: Vec<f64> = self
            .flows(arm, LoadPart::Stream, MetricId::LossRatio)
            .map(|f| f.summary.mean)
            .collect();
        (!losses.is_empty()).then(|| losses.iter().sum::<f64>() / losses.len() as f64)
    }

    /// The share of its asked rate the step's BE sender reached (mixed:
    /// the smaller of its two flows), mean over repetitions.
    pub fn step_achieved(&self, column: usize, percent: u32, size: u32) -> Option<f64> {
        let arm = self.step_arm_id(column, percent, size)?;
        self.flows(arm, LoadPart::Stream, MetricId::SenderThroughputBps)
            .filter_map(|f| {
                let asked = self.load_flow(arm, f.flow)?.spec.rate?.bits_per_second() as f64;
                (asked > 0.0).then(|| f.summary.mean / asked)
            })
            .reduce(f64::min)
    }

    /// A measured metric of a step arm (the EF probe beside the step).
    pub fn step_arm(
        &self,
        column: usize,
        percent: u32,
        size: u32,
        metric: MetricId,
    ) -> Option<Summary> {
        self.arm_summary(self.step_arm_id(column, percent, size)?, metric)
    }

    /// Router CPU (cores) of `node` on a step arm, or on an idle EF arm
    /// when `percent` is 0.
    pub fn router_cpu(&self, node: &str, column: usize, percent: u32, size: u32) -> Option<f64> {
        let arm = if percent == 0 {
            let family = [IpFamily::V4, IpFamily::V6, IpFamily::V4][column];
            self.class_arm(family, 0)?
        } else {
            self.step_arm_id(column, percent, size)?
        };
        self.analysis
            .routers
            .iter()
            .find(|r| &r.arm == arm && r.node == node)
            .map(|r| r.summary.mean)
    }

    /// The load-step table: header cells, then per size the loss cells
    /// (IPv4 85/100/115, IPv6 …, mixed …) as "0", "12.6" (percent).
    pub fn step_table(&self) -> (Vec<String>, Vec<(u32, Vec<String>)>) {
        let mut header = Vec::new();
        for family in ["IPv4", "IPv6", "mixed"] {
            for step in STEPS {
                header.push(format!("{family} {step}"));
            }
        }
        let rows = self
            .step_sizes()
            .into_iter()
            .map(|size| {
                let cells = (0..3)
                    .flat_map(|column| STEPS.map(move |step| (column, step)))
                    .map(|(column, step)| {
                        let short = self
                            .step_achieved(column, step, size)
                            .is_some_and(|share| share < SHORT_OF_RATE);
                        self.step_loss(column, step, size).map_or_else(
                            || "–".to_string(),
                            |l| format!("{}{}", loss_percent(l), if short { "*" } else { "" }),
                        )
                    })
                    .collect();
                (size, cells)
            })
            .collect();
        (header, rows)
    }

    /// Per (column, step) of `size`, the share of its asked rate the BE
    /// sender reached ([`DiffServView::step_achieved`]), e.g. "92 %".
    pub fn step_achieved_row(&self, size: u32) -> Vec<String> {
        (0..3)
            .flat_map(|column| STEPS.map(move |step| (column, step)))
            .map(|(column, step)| {
                self.step_achieved(column, step, size).map_or_else(
                    || "–".to_string(),
                    |share| format!("{} %", crate::present::value::percent(share)),
                )
            })
            .collect()
    }

    /// The EF probe beside each step: per size, per (column, step) "p99 /
    /// loss" of the measured EF probe, e.g. "0.15 ms / 0 %" — whether the
    /// premium class stayed protected while the router was loaded.
    pub fn step_ef_table(&self) -> Vec<(u32, Vec<String>)> {
        self.step_sizes()
            .into_iter()
            .map(|size| {
                let cells = (0..3)
                    .flat_map(|column| STEPS.map(move |step| (column, step)))
                    .map(|(column, step)| {
                        let p99 = self.step_arm(column, step, size, MetricId::OwdP99Ns);
                        let loss = self.step_arm(column, step, size, MetricId::LossRatio);
                        match (p99, loss) {
                            (Some(p99), Some(loss)) => format!(
                                "{} / {}",
                                format_value(MetricId::OwdP99Ns, p99.mean),
                                format_value(MetricId::LossRatio, loss.mean)
                            ),
                            _ => "–".to_string(),
                        }
                    })
                    .collect();
                (size, cells)
            })
            .collect()
    }

    /// Router CPU per router at [`DiffServView::cpu_size`]: per router, the
    /// cells idle (IPv4, IPv6) then IPv4, IPv6, mixed × 85/100/115, as "%
    /// of one CPU".
    pub fn router_table(&self) -> Option<(u32, Vec<RouterRow>)> {
        let size = self.cpu_size()?;
        let rows = self
            .routers()
            .into_iter()
            .map(|node| {
                let cells: Vec<String> = [0, 1]
                    .into_iter()
                    .map(|column| self.router_cpu(&node, column, 0, size))
                    .chain(
                        (0..3)
                            .flat_map(|column| STEPS.map(move |step| (column, step)))
                            .map(|(column, step)| self.router_cpu(&node, column, step, size)),
                    )
                    .map(|cores| {
                        cores.map_or_else(
                            || "–".to_string(),
                            |c| format!("{} %", significant(c * 100.0)),
                        )
                    })
                    .collect();
                (node, cells)
            })
            .collect();
        Some((size, rows))
    }
}

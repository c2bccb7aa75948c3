//! The terminal table of `dualperf run`: per point, one row per metric with
//! IPv4 and IPv6 side by side (median over the repetitions that ran).
//! [`render_table_with`] takes an extra column so the statistics stage can
//! add its verdict beside the raw figures.

use std::fmt::Write;

mod probe;

use dualperf_model::{
    IpFamily, LatencySamples, Observations, PerFamily, RunResult, TestKind, TrialOutcome,
};

/// How a metric's value is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Bits per second.
    BitRate,
    /// Per second (packets, transactions, connections).
    Rate,
    /// Nanoseconds.
    Nanoseconds,
    /// A ratio 0..=1 shown as percent.
    Ratio,
    /// A plain count.
    Count,
}

/// One metric of one point, both families.
#[derive(Clone, Debug)]
pub struct TableRow {
    /// Index of the point.
    pub point: usize,
    /// Machine key, e.g. `goodput_bps`, `rtt_p50_ns`: what the verdict
    /// column looks up in the analysis.
    #[allow(dead_code)] // read by the extra column once the stats stage is wired in
    pub metric: &'static str,
    /// Label for people.
    pub label: &'static str,
    /// Unit for formatting.
    pub unit: Unit,
    /// Median over successful repetitions, per family.
    pub values: PerFamily<Option<f64>>,
}

/// A percentile (0..=1) of latency samples: from the HDR histogram when it
/// has buckets, otherwise from the raw series.
pub fn latency_percentile(samples: &LatencySamples, quantile: f64) -> Option<f64> {
    if samples.count == 0 {
        return None;
    }
    if !samples.histogram.is_empty() {
        let total: u64 = samples.histogram.iter().map(|b| b.count).sum();
        let rank = ((quantile * total as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for bucket in &samples.histogram {
            seen += bucket.count;
            if seen >= rank {
                return Some(bucket.value_ns as f64);
            }
        }
    }
    let mut raw = samples.raw_ns.clone();
    raw.sort_unstable();
    let index = ((quantile * raw.len() as f64).ceil() as usize).clamp(1, raw.len().max(1)) - 1;
    raw.get(index).map(|&v| v as f64)
}

fn seconds(o: &Observations) -> f64 {
    (o.measured_ns as f64 / 1e9).max(1e-9)
}

fn cpu_ratio(cpu: Option<dualperf_model::ProcessCpu>) -> Option<f64> {
    let cpu = cpu?;
    (cpu.wall_ns > 0).then(|| (cpu.user_ns + cpu.system_ns) as f64 / cpu.wall_ns as f64)
}

type Extractor = fn(&Observations) -> Option<f64>;

/// The rows of a point: its kind's, the probe's when one ran alongside,
/// then CPU.
fn metrics_of(
    spec: &dualperf_model::TestSpec,
) -> Vec<(&'static str, &'static str, Unit, Extractor)> {
    let mut rows = metrics(spec.kind);
    let loaded = matches!(spec.kind, TestKind::TcpStream | TestKind::UdpStream);
    if loaded && spec.probe_interval_us.is_some() {
        let cpu = rows.split_off(rows.len() - 2);
        rows.extend(probe::under_load_rows());
        rows.extend(cpu);
    }
    rows
}

fn metrics(kind: TestKind) -> Vec<(&'static str, &'static str, Unit, Extractor)> {
    let goodput: Extractor = |o| Some(o.receiver.bytes as f64 * 8.0 / seconds(o));
    let p50: Extractor = |o| o.latency.as_ref().and_then(|l| latency_percentile(l, 0.5));
    let p99: Extractor = |o| o.latency.as_ref().and_then(|l| latency_percentile(l, 0.99));
    let per_second: Extractor = |o| Some(o.receiver.packets as f64 / seconds(o));
    let client_cpu: Extractor = |o| cpu_ratio(Some(o.cpu.client));
    let server_cpu: Extractor = |o| cpu_ratio(o.cpu.server);
    let mut rows: Vec<(&'static str, &'static str, Unit, Extractor)> = match kind {
        TestKind::TcpStream => vec![
            ("goodput_bps", "goodput", Unit::BitRate, goodput),
            ("retransmits", "retransmitted segments", Unit::Count, |o| {
                o.tcp.map(|t| t.segments_retransmitted as f64)
            }),
        ],
        TestKind::UdpProbe => probe::probe_rows(),
        TestKind::UdpStream => vec![
            ("goodput_bps", "goodput", Unit::BitRate, goodput),
            (
                "received_pps",
                "packets received /s",
                Unit::Rate,
                per_second,
            ),
            ("loss_ratio", "loss", Unit::Ratio, |o| {
                o.udp
                    .as_ref()
                    .and_then(|u| (u.sent > 0).then(|| u.lost as f64 / u.sent as f64))
            }),
            ("jitter_ns", "jitter (RFC 3550)", Unit::Nanoseconds, |o| {
                o.udp.as_ref().map(|u| u.jitter_ns as f64)
            }),
        ],
        TestKind::TcpRr | TestKind::UdpRr => vec![
            ("rtt_p50_ns", "RTT p50", Unit::Nanoseconds, p50),
            ("rtt_p99_ns", "RTT p99", Unit::Nanoseconds, p99),
            (
                "transactions_per_second",
                "transactions /s",
                Unit::Rate,
                per_second,
            ),
        ],
        TestKind::TcpConnect => vec![
            ("connect_p50_ns", "connect time p50", Unit::Nanoseconds, p50),
            ("connect_p99_ns", "connect time p99", Unit::Nanoseconds, p99),
            (
                "connections_per_second",
                "connections /s",
                Unit::Rate,
                |o| Some(o.sender.packets as f64 / seconds(o)),
            ),
        ],
    };
    rows.push(("client_cpu_ratio", "CPU client", Unit::Ratio, client_cpu));
    rows.push(("server_cpu_ratio", "CPU server", Unit::Ratio, server_cpu));
    rows
}

fn median(mut values: Vec<f64>) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(|a, b| a.total_cmp(b));
    let middle = values.len() / 2;
    Some(if values.len() % 2 == 1 {
        values[middle]
    } else {
        (values[middle - 1] + values[middle]) / 2.0
    })
}

/// Every row of the table, point by point.
pub fn table_rows(result: &RunResult) -> Vec<TableRow> {
    let mut rows = Vec::new();
    for (point, spec) in result.config.points.iter().enumerate() {
        for (metric, label, unit, extract) in metrics_of(spec) {
            let values = PerFamily::from_fn(|family| {
                let observed = result
                    .trials
                    .iter()
                    .filter(|t| t.point == point && t.family == family)
                    .filter_map(|t| match &t.outcome {
                        TrialOutcome::Ok(o) => extract(o),
                        TrialOutcome::Failed { .. } => None,
                    });
                median(observed.collect())
            });
            rows.push(TableRow {
                point,
                metric,
                label,
                unit,
                values,
            });
        }
    }
    rows
}

/// Formats a value in its unit, e.g. "14.2 Gbit/s", "13.1 µs", "0.12 %".
pub fn format_value(value: Option<f64>, unit: Unit) -> String {
    let Some(v) = value else { return "—".into() };
    let scaled = |v: f64, units: &[&str], step: f64| {
        let mut index = 0;
        let mut v = v;
        while v.abs() >= step && index + 1 < units.len() {
            v /= step;
            index += 1;
        }
        format!("{v:.3} {}", units[index])
    };
    match unit {
        Unit::BitRate => scaled(v, &["bit/s", "kbit/s", "Mbit/s", "Gbit/s"], 1000.0),
        Unit::Rate => scaled(v, &["/s", "k/s", "M/s"], 1000.0),
        Unit::Nanoseconds => scaled(v, &["ns", "µs", "ms", "s"], 1000.0),
        Unit::Ratio => format!("{:.2} %", v * 100.0),
        Unit::Count => format!("{v:.0}"),
    }
}

/// The table without extra columns.
pub fn render_table(result: &RunResult) -> String {
    render_table_with(result, None, &|_| String::new())
}

/// The table with an optional extra column (`header`, one cell per row).
pub fn render_table_with(
    result: &RunResult,
    header: Option<&str>,
    extra: &dyn Fn(&TableRow) -> String,
) -> String {
    let mut out = String::new();
    let rows = table_rows(result);
    for (point, spec) in result.config.points.iter().enumerate() {
        let failed = |family: IpFamily| {
            result
                .trials
                .iter()
                .filter(|t| {
                    t.point == point
                        && t.family == family
                        && matches!(t.outcome, TrialOutcome::Failed { .. })
                })
                .count()
        };
        let ran = |family: IpFamily| {
            result
                .trials
                .iter()
                .filter(|t| t.point == point && t.family == family)
                .count()
        };
        let plural = if result.config.repeat == 1 { "" } else { "s" };
        let _ = writeln!(
            out,
            "\n{} ({} repetition{plural} per family)",
            spec.label(),
            result.config.repeat
        );
        let _ = write!(out, "  {:<24} {:>16} {:>16}", "", "IPv4", "IPv6");
        if let Some(header) = header {
            let _ = write!(out, "  {header}");
        }
        out.push('\n');
        for row in rows.iter().filter(|r| r.point == point) {
            let cell = |family: IpFamily| {
                if !result.config.families.contains(&family) {
                    "not measured".to_string()
                } else {
                    format_value(*row.values.get(family), row.unit)
                }
            };
            let _ = write!(
                out,
                "  {:<24} {:>16} {:>16}",
                row.label,
                cell(IpFamily::V4),
                cell(IpFamily::V6)
            );
            if header.is_some() {
                let _ = write!(out, "  {}", extra(row));
            }
            out.push('\n');
        }
        if spec.kind == TestKind::UdpProbe || spec.probe_interval_us.is_some() {
            let observed: Vec<&Observations> = result
                .trials
                .iter()
                .filter(|t| t.point == point)
                .filter_map(|t| match &t.outcome {
                    TrialOutcome::Ok(o) => Some(o.as_ref()),
                    TrialOutcome::Failed { .. } => None,
                })
                .collect();
            if let Some(reason) = probe::missing_owd_reason(&observed) {
                let _ = writeln!(out, "  {reason}");
            }
        }
        for family in &result.config.families {
            if failed(*family) > 0 {
                let _ = writeln!(
                    out,
                    "  {}: {} of {} trials failed (see --json for errors)",
                    family.label(),
                    failed(*family),
                    ran(*family)
                );
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::HistogramBucket;

    #[test]
    fn percentile_walks_the_histogram() {
        let samples = LatencySamples {
            count: 4,
            histogram: vec![
                HistogramBucket {
                    value_ns: 10,
                    count: 2,
                },
                HistogramBucket {
                    value_ns: 20,
                    count: 1,
                },
                HistogramBucket {
                    value_ns: 90,
                    count: 1,
                },
            ],
            ..Default::default()
        };
        assert_eq!(latency_percentile(&samples, 0.5), Some(10.0));
        assert_eq!(latency_percentile(&samples, 0.99), Some(90.0));
    }

    #[test]
    fn percentile_falls_back_to_raw_samples() {
        let samples = LatencySamples {
            count: 3,
            raw_ns: vec![30, 10, 20],
            ..Default::default()
        };
        assert_eq!(latency_percentile(&samples, 0.5), Some(20.0));
    }

    fn trial(
        point: usize,
        spec: &dualperf_model::TestSpec,
        family: IpFamily,
        observations: Observations,
    ) -> dualperf_model::Trial {
        dualperf_model::Trial {
            point,
            spec: spec.clone(),
            family,
            repetition: 0,
            started_at_unix_ms: 0,
            local_address: None,
            remote_address: None,
            server_seen_family: Some(family),
            outcome: TrialOutcome::Ok(Box::new(observations)),
        }
    }

    #[test]
    fn table_shows_both_families_side_by_side() {
        use dualperf_model::{FlowCounters, ProcessCpu, RunConfig, TestSpec};
        let spec = TestSpec {
            kind: TestKind::TcpRr,
            size_bytes: 64,
            duration_ms: 1000,
            warmup_ms: 0,
            parallel_streams: 1,
            reverse: false,
            rate: None,
            sample_interval_ms: 1000,
            probe_interval_us: None,
        };
        let observed = |rtt_ns: u64| Observations {
            measured_ns: 1_000_000_000,
            sender: FlowCounters {
                bytes: 64_000,
                packets: 1000,
            },
            receiver: FlowCounters {
                bytes: 64_000,
                packets: 1000,
            },
            latency: Some(LatencySamples {
                count: 2,
                raw_ns: vec![rtt_ns, rtt_ns * 2],
                ..Default::default()
            }),
            cpu: dualperf_model::CpuObservations {
                client: ProcessCpu {
                    user_ns: 100_000_000,
                    system_ns: 150_000_000,
                    wall_ns: 1_000_000_000,
                },
                server: None,
                system: None,
            },
            ..Default::default()
        };
        let mut failed = trial(0, &spec, IpFamily::V6, Observations::default());
        failed.outcome = TrialOutcome::Failed {
            error: "refused".into(),
        };
        let result = RunResult {
            schema: "dualperf.run".into(),
            schema_version: 1,
            run_id: "test".into(),
            started_at_unix_ms: 0,
            finished_at_unix_ms: 0,
            config: RunConfig {
                points: vec![spec.clone()],
                families: vec![IpFamily::V4, IpFamily::V6],
                repeat: 2,
                order: Default::default(),
                targets: Default::default(),
                host: None,
                port: 5180,
                client_cpus: vec![],
                server_cpus: vec![],
                command_line: vec![],
            },
            client_host: Default::default(),
            server_host: None,
            testbed: None,
            trials: vec![
                trial(0, &spec, IpFamily::V4, observed(20_000)),
                trial(0, &spec, IpFamily::V6, observed(21_000)),
                trial(0, &spec, IpFamily::V4, observed(22_000)),
                failed,
            ],
            analysis: None,
            complete: false,
            errors: vec![],
        };
        insta::assert_snapshot!(render_table(&result));
    }

    #[test]
    fn values_print_with_readable_units() {
        assert_eq!(format_value(Some(14.2e9), Unit::BitRate), "14.200 Gbit/s");
        assert_eq!(format_value(Some(13_100.0), Unit::Nanoseconds), "13.100 µs");
        assert_eq!(format_value(Some(0.0012), Unit::Ratio), "0.12 %");
        assert_eq!(format_value(None, Unit::Count), "—");
    }
}

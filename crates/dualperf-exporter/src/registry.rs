//! What `/metrics` shows: per target, the last comparison's samples and
//! outcome, plus the counters that add up over the exporter's life (runs
//! by result, summaries' `_count` and `_sum`).
//!
//! Memory is bounded by the configuration, not by time: a target keeps
//! one snapshot (replaced by each comparison) and one total per summary
//! series; nothing grows with the number of comparisons.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::openmetrics::{encode, Family, Format, Labels, Part, Sample};
use crate::snapshot::{total_samples, RunSnapshot};

/// The process's own figures, read when `/metrics` is served.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ExporterFacts {
    /// Now, milliseconds since the Unix epoch.
    pub now_unix_ms: u64,
    /// Resident memory of the process, if known.
    pub resident_memory_bytes: Option<u64>,
}

#[derive(Clone, Debug)]
struct TargetEntry {
    name: String,
    last: Option<RunSnapshot>,
    successes: u64,
    failures: u64,
    totals: BTreeMap<(Family, Labels), (u64, f64)>,
}

/// The state behind `/metrics`.
#[derive(Clone, Debug)]
pub struct Registry {
    version: String,
    started_at_unix_ms: u64,
    busy: Duration,
    targets: Vec<TargetEntry>,
}

impl Registry {
    /// A registry for `targets` (their run counters start at 0), of an
    /// exporter of `version` started at `started_at_unix_ms`.
    pub fn new(targets: &[&str], version: &str, started_at_unix_ms: u64) -> Registry {
        Registry {
            version: version.to_string(),
            started_at_unix_ms,
            busy: Duration::ZERO,
            targets: targets
                .iter()
                .map(|name| TargetEntry {
                    name: (*name).to_string(),
                    last: None,
                    successes: 0,
                    failures: 0,
                    totals: BTreeMap::new(),
                })
                .collect(),
        }
    }

    /// Records a comparison: its samples replace the target's previous
    /// ones (a metric the comparison could not measure disappears), its
    /// totals add up.
    pub fn record(&mut self, mut snapshot: RunSnapshot) {
        let index = match self.targets.iter().position(|t| t.name == snapshot.target) {
            Some(index) => index,
            None => {
                self.targets.push(TargetEntry {
                    name: snapshot.target.clone(),
                    last: None,
                    successes: 0,
                    failures: 0,
                    totals: BTreeMap::new(),
                });
                self.targets.len() - 1
            }
        };
        let entry = &mut self.targets[index];
        if snapshot.success {
            entry.successes += 1;
        } else {
            entry.failures += 1;
        }
        for total in std::mem::take(&mut snapshot.totals) {
            let slot = entry
                .totals
                .entry((total.family, total.labels))
                .or_insert((0, 0.0));
            slot.0 += total.count;
            slot.1 += total.sum_seconds;
        }
        snapshot.samples.shrink_to_fit();
        entry.last = Some(snapshot);
    }

    /// Sets the time spent measuring since the exporter started.
    pub fn set_busy(&mut self, busy: Duration) {
        self.busy = busy;
    }

    /// Every sample, in no particular order.
    pub fn samples(&self, facts: &ExporterFacts) -> Vec<Sample> {
        let mut samples = Vec::new();
        for entry in &self.targets {
            for (result, count) in [("success", entry.successes), ("failure", entry.failures)] {
                samples.push(Sample {
                    family: Family::Runs,
                    labels: vec![
                        ("target", entry.name.clone()),
                        ("result", result.to_string()),
                    ],
                    part: Part::Value,
                    value: count as f64,
                });
            }
            if let Some(last) = &entry.last {
                samples.extend(last.outcome_samples());
                samples.extend(last.samples.iter().cloned());
            }
            for ((family, labels), &(count, sum)) in &entry.totals {
                samples.extend(total_samples(*family, labels, count, sum));
            }
        }
        let uptime = facts.now_unix_ms.saturating_sub(self.started_at_unix_ms) as f64 / 1000.0;
        let own = |family, value| Sample {
            family,
            labels: Vec::new(),
            part: Part::Value,
            value,
        };
        if uptime > 0.0 {
            samples.push(own(
                Family::DutyCycle,
                (self.busy.as_secs_f64() / uptime).min(1.0),
            ));
        }
        samples.push(Sample {
            family: Family::BuildInfo,
            labels: vec![("version", self.version.clone())],
            part: Part::Value,
            value: 1.0,
        });
        if let Some(bytes) = facts.resident_memory_bytes {
            samples.push(own(Family::ResidentMemory, bytes as f64));
        }
        samples.push(own(
            Family::StartTime,
            self.started_at_unix_ms as f64 / 1000.0,
        ));
        samples
    }

    /// The exposition in `format`.
    pub fn render(&self, format: Format, facts: &ExporterFacts) -> String {
        encode(&self.samples(facts), format)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_fixtures::synthetic::synthetic_run;

    fn facts() -> ExporterFacts {
        ExporterFacts {
            now_unix_ms: 1_795_298_460_000,
            resident_memory_bytes: Some(12 << 20),
        }
    }

    #[test]
    fn counters_add_up_and_samples_are_replaced() {
        let run = synthetic_run();
        let mut registry = Registry::new(&["lab", "idle"], "0.1.0", 1_795_298_400_000);
        registry.set_busy(Duration::from_secs(6));
        registry.record(RunSnapshot::of_run("lab", &run));
        let once = registry.render(Format::OpenMetrics, &facts());
        registry.record(RunSnapshot::of_run("lab", &run));
        let twice = registry.render(Format::OpenMetrics, &facts());
        assert!(once.contains("dualperf_runs_total{target=\"lab\",result=\"success\"} 1\n"));
        assert!(twice.contains("dualperf_runs_total{target=\"lab\",result=\"success\"} 2\n"));
        assert!(twice.contains("dualperf_runs_total{target=\"idle\",result=\"failure\"} 0\n"));
        let count = |text: &str| -> u64 {
            let line = text
                .lines()
                .find(|l| l.starts_with("dualperf_rtt_seconds_count{target=\"lab\",arm=\"v4\""))
                .unwrap();
            line.rsplit(' ').next().unwrap().parse().unwrap()
        };
        assert_eq!(count(&twice), 2 * count(&once));
        assert_eq!(once.lines().count(), twice.lines().count());
        assert!(
            twice.contains("dualperf_exporter_duty_cycle_ratio 0.1\n"),
            "{twice}"
        );
        assert!(twice.contains("dualperf_exporter_build_info{version=\"0.1.0\"} 1\n"));
        assert!(twice.contains("# TYPE dualperf_exporter_build info\n"));

        registry.record(RunSnapshot::failed(
            "lab",
            1_795_298_500_000,
            1_795_298_501_000,
        ));
        let failed = registry.render(Format::PrometheusText, &facts());
        assert!(failed.contains("dualperf_last_run_success{target=\"lab\"} 0\n"));
        assert!(
            !failed.contains("dualperf_goodput_bytes_per_second{"),
            "{failed}"
        );
        assert!(
            failed.contains("dualperf_rtt_seconds_count{"),
            "totals stay"
        );
        assert!(failed.contains("# TYPE dualperf_exporter_build_info gauge\n"));
    }
}

//! `dualperf lab gigabit`: the Gigabit UDP study (seed 004) in one command.
//!
//! The study sent UDP between two hosts on one Gigabit Ethernet link, at
//! packet sizes from 128 to 1408 B, ten runs of one million packets per
//! size and family, and printed each family's throughput and delay
//! averaged over the sizes (its Tables 2 and 3). Here: the `gigabit`
//! preset (client and server on one 1 Gbit/s htb link), udp-stream at
//! [`SIZES`] paced at the link rate (`-b` changes it), each trial ending
//! when its send budget is out ([`DEFAULT_PACKETS`] datagrams, `-k`/`-n`
//! change it; `-t` caps a trial, [`CAP_SECONDS`] by default), ten
//! repetitions per size and family, then the per-family means over sizes
//! (`dualperf_report::terminal::render_size_means`) and what set the pace
//! at each size. The per-size IPv6 − IPv4 comparisons are the generic
//! verdicts, printed before, with what the budgets did.
//!
//! Why 100,000 datagrams and not the paper's million: this lab runs both
//! ends and the link on one machine (two CPUs on the development VM, where
//! a UDP sender managed 135–155 kpps whatever the size); 100,000 datagrams
//! take 0.7–1.2 s, so the 120 trials of the full study take about four
//! minutes, where a million would take forty. `-k 1000000` runs the
//! paper's budget.

use dualperf_lab::Topology;
use dualperf_model::{IpFamily, MetricId, RunConfig, RunResult, SendBudget, TestKind};

use super::Experiment;
use crate::cli::lab::args::JobArgs;
use crate::cli::run::Repeat;
use crate::cli::Failure;
use crate::pipeline::plan::{points, validate, PointOptions};
use crate::pipeline::send_budget::BudgetOption;

/// The study's packet sizes, bytes: 128 to 1408 B in steps of 256 (the
/// paper names the range, 128–1408 B, as did the Gigabit cabling study it
/// follows; the steps are ours).
pub(crate) const SIZES: &str = "128,384,640,896,1152,1408";
/// `--quick`: the smallest and the largest size.
const QUICK_SIZES: &str = "128,1408";
/// Repetitions per size and family: the study's ten runs.
pub(crate) const REPETITIONS: u32 = 10;
/// `--quick` repetitions: the fewest a significance claim needs.
const QUICK_REPETITIONS: u32 = 3;
/// Datagrams per trial without `-k`/`-n` (the paper: 1,000,000; see the
/// module documentation for why).
pub(crate) const DEFAULT_PACKETS: u64 = 100_000;
/// `--quick` datagrams per trial.
const QUICK_PACKETS: u64 = 10_000;
/// Time cap of a trial without `-t`, seconds: a budget the machine cannot
/// send in this time ends early, and says so.
pub(crate) const CAP_SECONDS: f64 = 30.0;
/// `--quick` time cap, seconds.
const QUICK_CAP_SECONDS: f64 = 10.0;

/// The Gigabit UDP study on the `gigabit` testbed.
pub(crate) struct GigabitExperiment {
    config: RunConfig,
}

impl GigabitExperiment {
    /// Plans the study on `topology` (the shaped `gigabit` preset) towards
    /// `server`.
    ///
    /// # Errors
    /// A topology without native IPv4 and IPv6 towards the server; flags
    /// out of range (a size above a datagram limit, a budget of 0).
    pub(crate) fn plan(
        args: &JobArgs,
        topology: &Topology,
        server: &str,
    ) -> anyhow::Result<GigabitExperiment> {
        let (v4, v6) = super::native_pair(topology, server, "the Gigabit UDP study")?;
        let quick = args.quick;
        let budget = args.send_budget().unwrap_or(SendBudget::Packets(if quick {
            QUICK_PACKETS
        } else {
            DEFAULT_PACKETS
        }));
        let options = PointOptions {
            tests: vec![TestKind::UdpStream],
            sizes: args
                .sizes
                .clone()
                .unwrap_or_else(|| if quick { QUICK_SIZES } else { SIZES }.to_string()),
            // -t is the cap of the budgeted trials; time_seconds is unused
            // by udp-stream points with a budget.
            time_seconds: 1.0,
            warmup_seconds: if quick { 0.1 } else { 0.25 },
            interval_ms: Some(args.interval_ms.unwrap_or(50)),
            // The study's packet delay: a probe beside each stream (its
            // one-way delay under the stream's load, 10 ms apart).
            probe: true,
            bitrate: args.udp_rate(dualperf_lab::link_rate::slowest_rate(topology)),
            send_budget: Some(BudgetOption {
                budget,
                cap_seconds: args.time_seconds.unwrap_or(if quick {
                    QUICK_CAP_SECONDS
                } else {
                    CAP_SECONDS
                }),
            }),
            ..PointOptions::default()
        };
        let config = RunConfig {
            loads: Vec::new(),
            points: points(&options, &[IpFamily::V4, IpFamily::V6])?,
            baseline: v4.id.clone(),
            arms: vec![v4, v6],
            repeat: match args.repeat {
                Some(Repeat::Count(count)) => count,
                Some(Repeat::Auto) => {
                    return Err(Failure::usage(
                        "the Gigabit UDP study runs a fixed number of repetitions (10, as the \
                         paper): give --repeat N",
                    ))
                }
                None if quick => QUICK_REPETITIONS,
                None => REPETITIONS,
            },
            order: Default::default(),
            host: None,
            port: args.port,
            client_cpus: Vec::new(),
            server_cpus: Vec::new(),
            command_line: std::env::args().collect(),
            contrasts: Vec::new(),
            peer: dualperf_model::PeerKind::Dualperf,
            goal: None,
        };
        validate(&config)?;
        Ok(GigabitExperiment { config })
    }
}

impl Experiment for GigabitExperiment {
    fn config(&self) -> &RunConfig {
        &self.config
    }

    fn print(&self, result: &RunResult) {
        use dualperf_report::terminal::{render_size_means, render_sweep_regime};
        let Some(analysis) = result.analysis.as_ref() else {
            eprintln!("dualperf: the Gigabit UDP run has no analysis");
            return;
        };
        let metrics: &[MetricId] = &dualperf_report::present::size_means::STUDY_METRICS;
        let mut text = String::from("\nThe Gigabit UDP study (seed 004), its Tables 2 and 3:\n");
        match render_size_means(result, analysis, TestKind::UdpStream, metrics) {
            Some(table) => text.push_str(&table),
            None => text
                .push_str("  one size only: no mean over sizes (give --sizes with two or more)\n"),
        }
        // What the budgets did is printed with the verdicts (every run
        // with -n/-k gets that line).
        if let Some(block) = render_sweep_regime(result, analysis, TestKind::UdpStream) {
            text.push_str(&block);
        }
        crate::cli::say(text.trim_end());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `dualperf lab gigabit EXTRA…` parsed as clap would.
    fn args(extra: &[&str]) -> JobArgs {
        let line: Vec<&str> = std::iter::once("gigabit")
            .chain(extra.iter().copied())
            .collect();
        crate::cli::lab::args::parse_job_args(&line)
    }

    fn plan(extra: &[&str]) -> RunConfig {
        let topology = dualperf_lab::preset::load("gigabit").unwrap();
        GigabitExperiment::plan(&args(extra), &topology, "server")
            .unwrap()
            .config
    }

    #[test]
    fn the_study_is_six_sizes_ten_repetitions_of_a_packet_budget_at_the_link_rate() {
        let config = plan(&[]);
        let sizes: Vec<u32> = config.points.iter().map(|p| p.size_bytes).collect();
        assert_eq!(sizes, vec![128, 384, 640, 896, 1152, 1408]);
        assert_eq!(config.repeat, 10);
        assert_eq!(config.arms.len(), 2);
        for point in &config.points {
            assert_eq!(point.kind, TestKind::UdpStream);
            assert_eq!(point.send_budget, Some(SendBudget::Packets(100_000)));
            assert_eq!(point.duration_ms, 30_000);
            assert_eq!(point.rate.map(|r| r.bits_per_second()), Some(1_000_000_000));
        }
    }

    #[test]
    fn the_user_raises_the_budget_and_quick_stays_short() {
        let paper = plan(&["-k", "1000000", "-b", "500M", "-t", "60"]);
        let point = &paper.points[0];
        assert_eq!(point.send_budget, Some(SendBudget::Packets(1_000_000)));
        assert_eq!(
            (point.duration_ms, point.rate.map(|r| r.bits_per_second())),
            (60_000, Some(500_000_000))
        );
        let quick = plan(&["--quick"]);
        assert_eq!(quick.points.len(), 2);
        assert_eq!(quick.repeat, 3);
        assert_eq!(
            quick.points[0].send_budget,
            Some(SendBudget::Packets(10_000))
        );
        let unpaced = plan(&["-b", "0"]);
        assert_eq!(unpaced.points[0].rate, None, "-b 0: unpaced, as iperf3");
        let bytes = plan(&["-n", "1M"]);
        assert_eq!(
            bytes.points[0].send_budget,
            Some(SendBudget::Bytes(1 << 20))
        );
    }
}

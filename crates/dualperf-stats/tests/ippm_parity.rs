//! Differential test for the switch of stats to the measurement core:
//! `dualperf_meter::replay` against stats' own `ippm::trace::trace_metrics`,
//! field by field and bit for bit (f64 equality), on random traces (small
//! and sparse large sequence numbers), simulated paths and the stored
//! fixture runs. Adapted from `crates/dualperf-meter/dev/ippm_parity.rs`;
//! lives only as long as `ippm/` still has its own implementation.
//!
//! `cargo test -p dualperf-stats --test ippm_parity -- --nocapture` prints
//! how many traces of each kind were compared.

use std::cell::RefCell;

use dualperf_meter::sequence::EPISODE_LENGTH_BUCKETS;
use dualperf_meter::sim::{
    simulate, DelayJitter, Duplication, LossModel, PathConfig, Reordering, Sender,
};
use dualperf_meter::{replay, DelaySummary, LossEpisodes, ReplayParameters};
use dualperf_model::observation::{Arrival, TrialOutcome, UdpReceiveCounters};
use dualperf_model::RunResult;
use dualperf_stats::ippm::delay::DelayDistribution;
use dualperf_stats::ippm::trace::{trace_metrics, TraceParameters};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// What the compared traces contained, to show the comparison was not vacuous.
#[derive(Debug, Default)]
struct Figures {
    traces: u64,
    arrivals: u64,
    with_loss: u64,
    with_late: u64,
    with_duplicates: u64,
    with_reordering: u64,
    with_one_way_delay: u64,
    with_pdv: u64,
    with_ipdv: u64,
    episodes: u64,
}

impl Figures {
    fn print(&self, name: &str) {
        eprintln!(
            "{name}: {} traces, {} arrivals; with loss {}, late {}, duplicates {}, \
             reordering {}, OWD {}, PDV {}, IPDV {}; {} loss episodes",
            self.traces,
            self.arrivals,
            self.with_loss,
            self.with_late,
            self.with_duplicates,
            self.with_reordering,
            self.with_one_way_delay,
            self.with_pdv,
            self.with_ipdv,
            self.episodes,
        );
    }
}

fn same(a: Option<DelaySummary>, b: Option<DelayDistribution>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => {
            a.exact
                && a.count == b.count
                && a.min_ns.to_bits() == b.min_ns.to_bits()
                && a.mean_ns.to_bits() == b.mean_ns.to_bits()
                && a.p50_ns.to_bits() == b.p50_ns.to_bits()
                && a.p90_ns.to_bits() == b.p90_ns.to_bits()
                && a.p99_ns.to_bits() == b.p99_ns.to_bits()
                && a.p999_ns.to_bits() == b.p999_ns.to_bits()
                && a.max_ns.to_bits() == b.max_ns.to_bits()
        }
        _ => false,
    }
}

fn compare(
    arrivals: &[Arrival],
    sent: u64,
    wait: i64,
    shared: bool,
    figures: &mut Figures,
) -> Result<(), TestCaseError> {
    let t = trace_metrics(
        arrivals,
        sent,
        TraceParameters {
            waiting_time_ns: wait,
            clocks_shared: shared,
        },
    );
    let m = replay(
        arrivals,
        sent,
        ReplayParameters {
            waiting_time_ns: wait,
            clocks_shared: shared,
        },
    );
    prop_assert_eq!(m.counts.sent, t.sent);
    prop_assert_eq!(m.counts.duplicates, t.duplicates);
    prop_assert_eq!(m.counts.loss.lost, t.loss.lost);
    prop_assert_eq!(m.counts.late, t.loss.late);
    prop_assert_eq!(m.counts.received_in_time, t.loss.received_in_time);
    prop_assert_eq!(m.counts.loss.episodes, t.loss.episodes.len() as u64);
    prop_assert_eq!(m.counts.loss.max_length, t.loss.max_episode_length());
    prop_assert_eq!(m.counts.loss.mean_length(), t.loss.mean_episode_length());
    let mut histogram = [0u64; EPISODE_LENGTH_BUCKETS];
    for episode in &t.loss.episodes {
        histogram[LossEpisodes::bucket_of(episode.length)] += 1;
    }
    prop_assert_eq!(m.counts.loss.length_histogram, histogram);
    prop_assert_eq!(m.counts.loss_ratio(), t.loss.loss_ratio());
    prop_assert_eq!(m.counts.received, t.reordering.received);
    prop_assert_eq!(m.counts.reordered, t.reordering.reordered);
    prop_assert_eq!(m.counts.max_reorder_extent, t.reordering.max_extent());
    prop_assert_eq!(m.counts.extent_truncated, 0);
    prop_assert_eq!(m.counts.reordered_ratio(), t.reordering.reordered_ratio());
    prop_assert_eq!(m.counts.ignored(), 0);
    prop_assert!(m.counts.loss_exact);
    prop_assert_eq!(m.jitter_ns.map(f64::to_bits), t.jitter_ns.map(f64::to_bits));
    prop_assert!(
        same(m.one_way_delay, t.one_way_delay),
        "owd {:?} vs {:?}",
        m.one_way_delay,
        t.one_way_delay
    );
    prop_assert!(same(m.pdv, t.pdv), "pdv {:?} vs {:?}", m.pdv, t.pdv);
    prop_assert!(
        same(m.ipdv_absolute, t.ipdv_absolute),
        "ipdv {:?} vs {:?}",
        m.ipdv_absolute,
        t.ipdv_absolute
    );
    prop_assert_eq!(
        m.pdv_999_ns().map(f64::to_bits),
        t.pdv_999_ns().map(f64::to_bits)
    );

    figures.traces += 1;
    figures.arrivals += arrivals.len() as u64;
    figures.with_loss += u64::from(t.loss.lost > 0);
    figures.with_late += u64::from(t.loss.late > 0);
    figures.with_duplicates += u64::from(t.duplicates > 0);
    figures.with_reordering += u64::from(t.reordering.reordered > 0);
    figures.with_one_way_delay += u64::from(t.one_way_delay.is_some());
    figures.with_pdv += u64::from(t.pdv.is_some());
    figures.with_ipdv += u64::from(t.ipdv_absolute.is_some());
    figures.episodes += t.loss.episodes.len() as u64;
    Ok(())
}

/// Runs `cases` cases of `strategy` through `test` with a deterministic
/// seed, then prints the figures.
fn run<S: Strategy>(
    name: &str,
    cases: u32,
    strategy: S,
    test: impl Fn(S::Value, &mut Figures) -> Result<(), TestCaseError>,
) {
    let figures = RefCell::new(Figures::default());
    let mut runner = TestRunner::new_with_rng(
        Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        },
        proptest::test_runner::TestRng::deterministic_rng(
            proptest::test_runner::RngAlgorithm::ChaCha,
        ),
    );
    let result = runner.run(&strategy, |value| test(value, &mut figures.borrow_mut()));
    if let Err(failure) = result {
        panic!("{name}: {failure}");
    }
    figures.borrow().print(name);
}

fn arrivals_of(received: &[(u64, i64, i64)]) -> Vec<Arrival> {
    received
        .iter()
        .map(|&(sequence, sent_ns, delay)| Arrival {
            sequence,
            sent_ns,
            received_ns: sent_ns + delay,
        })
        .collect()
}

#[test]
fn random_traces() {
    let strategy = (
        prop::collection::vec(
            (0u64..300, -1_000_000i64..1_000_000, 0i64..3_000_000),
            0..400,
        ),
        0u64..320,
        1i64..2_000_000,
        any::<bool>(),
    );
    run(
        "random traces",
        5000,
        strategy,
        |(received, sent, wait, shared), figures| {
            compare(&arrivals_of(&received), sent, wait, shared, figures)
        },
    );
}

#[test]
fn sparse_traces_with_large_sequence_numbers() {
    // Runs of 1 to 4 consecutive sequence numbers (IPDV pairs) scattered
    // up to 200 000: windows of 2¹⁸ instead of the default 2¹⁶, long loss
    // episodes.
    let strategy = (
        prop::collection::vec(
            (0u64..200_000, 1u64..5, 0i64..1_000_000_000, 0i64..3_000_000),
            0..40,
        ),
        0u64..200_100,
        1i64..2_000_000,
        any::<bool>(),
    );
    run(
        "sparse traces",
        1000,
        strategy,
        |(runs, sent, wait, shared), figures| {
            let received: Vec<(u64, i64, i64)> = runs
                .iter()
                .flat_map(|&(first, length, sent_ns, delay)| {
                    (0..length).map(move |k| {
                        (
                            first + k,
                            sent_ns + k as i64 * 1_000,
                            delay + k as i64 * 7_919,
                        )
                    })
                })
                .collect();
            compare(&arrivals_of(&received), sent, wait, shared, figures)
        },
    );
}

#[test]
fn simulated_traces() {
    let strategy = (
        any::<u64>(),
        0.0f64..0.2,
        0.0f64..0.2,
        0.0f64..0.1,
        any::<bool>(),
    );
    run(
        "simulated traces",
        5000,
        strategy,
        |(seed, loss, reorder, dup, shared), figures| {
            let sender = Sender {
                count: 3000,
                interval_ns: 1_000_000,
                ..Sender::default()
            };
            let path = PathConfig {
                loss: LossModel::GilbertElliott {
                    good_to_bad: loss / 4.0,
                    bad_to_good: 0.3,
                    loss_in_good: loss / 10.0,
                    loss_in_bad: 0.7,
                },
                jitter: DelayJitter::Exponential { mean_ns: 700_000 },
                reordering: Some(Reordering {
                    probability: reorder,
                    hold_ns: 5_500_000,
                }),
                duplication: Some(Duplication {
                    probability: dup,
                    lag_ns: 100_000,
                }),
                ..PathConfig::default()
            };
            let simulation = simulate(&sender, &path, seed);
            compare(&simulation.arrivals, 3000, 3_000_000, shared, figures)
        },
    );
}

#[test]
fn stored_fixture_runs() {
    let mut figures = Figures::default();
    for json in [
        include_str!("fixtures/run_v1_lab_probe_and_tcp_stream.json"),
        include_str!("fixtures/run_v2_lab_probe_and_tcp_stream.json"),
    ] {
        let result: RunResult = serde_json::from_str(json).expect("the fixture loads");
        for trial in &result.trials {
            let TrialOutcome::Ok(o) = &trial.outcome else {
                continue;
            };
            let streams: Vec<&UdpReceiveCounters> = o
                .udp
                .iter()
                .chain(o.probe.as_ref().map(|p| &p.udp))
                .collect();
            for udp in streams {
                for (wait, shared) in [
                    (udp.loss_wait_ms as i64 * 1_000_000, udp.clocks_shared),
                    (2_000_000_000, true),
                    (2_000_000_000, false),
                    (1, true),
                ] {
                    compare(&udp.arrivals, udp.sent, wait, shared, &mut figures)
                        .unwrap_or_else(|e| panic!("trial {:?}: {e}", trial.arm));
                }
            }
        }
    }
    assert!(figures.arrivals > 0, "the fixtures hold arrival traces");
    figures.print("fixture traces");
}

//! The observers against a simulated path whose impairments are known:
//! injected loss, loss episodes, duplicates and reordering are recovered
//! exactly, RFC 3550 jitter within 1 % of the value computed directly from
//! the injected transit times.
//!
//! `cargo test -p dualperf-meter --test ground_truth -- --nocapture` prints
//! the injected and measured figures of every scenario.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test and example code: a failed unwrap is a failed run

use dualperf_meter::jitter::jitter_of_transits;
use dualperf_meter::sim::{
    simulate, DelayJitter, Duplication, LossModel, PathConfig, Reordering, Sender, Simulation,
};
use dualperf_meter::{DeliveryConfig, DeliveryMetrics, DeliveryObserver, SequenceConfig};

/// 100 000 datagrams, one every millisecond (100 s of a 1 kHz probe).
fn sender() -> Sender {
    Sender {
        count: 100_000,
        interval_ns: 1_000_000,
        ..Sender::default()
    }
}

/// The live configuration: default windows, no raw samples (histograms only).
fn measure(run: &Simulation, sent: u64) -> DeliveryMetrics {
    let mut observer = DeliveryObserver::new(DeliveryConfig {
        clocks_shared: true,
        ..DeliveryConfig::default()
    });
    for a in &run.arrivals {
        observer.observe(a.sequence, a.sent_ns, a.received_ns);
    }
    observer.metrics(sent)
}

fn report(name: &str, run: &Simulation, m: &DeliveryMetrics) {
    let t = &run.truth;
    println!(
        "{name}: sent {} | lost {} → {} | episodes {} → {} (max {} → {}) | duplicates {} → {} | \
         reordered (held back {}, overtaken {}) → {} | jitter {:.1} ns (direct) → {:.1} ns",
        t.sent,
        t.lost,
        m.counts.loss.lost,
        t.loss_episodes.episodes,
        m.counts.loss.episodes,
        t.loss_episodes.max_length,
        m.counts.loss.max_length,
        t.duplicates,
        m.counts.duplicates,
        t.held_back,
        t.overtaken,
        m.counts.reordered,
        direct_jitter_in_delivery_order(run).unwrap_or(0.0),
        m.jitter_ns.unwrap_or(0.0),
    );
}

/// RFC 3550 jitter computed straight from the path's own transit times,
/// taken in the order the path delivered the first copies (send time +
/// transit; ties in sequence order, as the path emits them).
fn direct_jitter_in_delivery_order(run: &Simulation) -> Option<f64> {
    let start = run.arrivals.first().map_or(0, |a| a.sent_ns);
    let interval = 1_000_000; // the sender() interval
    let mut delivered: Vec<(i64, u64, i64)> = run
        .truth
        .transit_ns
        .iter()
        .enumerate()
        .filter_map(|(s, t)| t.map(|t| (start + s as i64 * interval + t, s as u64, t)))
        .collect();
    delivered.sort_unstable();
    jitter_of_transits(delivered.into_iter().map(|(_, _, t)| t))
}

/// RFC 4737 §4.2.1 by the definition, with the whole trace in memory: for
/// each reordered first copy at position j, j minus the position of the
/// earliest first copy with a larger sequence number (found on the running
/// maximum, which never decreases).
fn reference_max_extent(run: &Simulation) -> u64 {
    let mut seen = std::collections::HashSet::new();
    let mut running_max: Vec<u64> = Vec::new();
    let mut max_extent = 0;
    for a in &run.arrivals {
        if !seen.insert(a.sequence) {
            continue;
        }
        let position = running_max.len();
        let highest = running_max.last().copied();
        if highest.is_some_and(|h| a.sequence < h) {
            let earliest = running_max.partition_point(|&m| m <= a.sequence);
            max_extent = max_extent.max((position - earliest) as u64);
        }
        running_max.push(highest.map_or(a.sequence, |h| h.max(a.sequence)));
    }
    max_extent
}

fn assert_within_one_percent(measured: Option<f64>, expected: Option<f64>) {
    let (m, e) = (measured.unwrap_or(f64::NAN), expected.unwrap_or(f64::NAN));
    assert!(
        (m - e).abs() <= 0.01 * e.abs(),
        "jitter {m} ns vs {e} ns directly"
    );
}

#[test]
fn one_percent_random_loss_is_recovered_exactly() {
    let path = PathConfig {
        loss: LossModel::Random { probability: 0.01 },
        ..PathConfig::default()
    };
    let run = simulate(&sender(), &path, 1);
    let m = measure(&run, run.truth.sent);
    report("1 % random loss", &run, &m);
    assert!((900..1100).contains(&run.truth.lost), "{}", run.truth.lost);
    assert_eq!(m.counts.loss, run.truth.loss_episodes);
    assert_eq!(m.counts.received, run.truth.sent - run.truth.lost);
    assert_eq!(m.counts.received_in_time, run.truth.sent - run.truth.lost);
    assert_eq!((m.counts.duplicates, m.counts.reordered), (0, 0));
    assert_eq!(m.jitter_ns, Some(0.0));
    assert!(m.counts.loss_exact);
}

#[test]
fn bursty_gilbert_loss_is_recovered_exactly_episode_by_episode() {
    // Gilbert: Bad loses everything and lasts 4 datagrams on average;
    // 0.2 % of datagrams start a burst: about 0.8 % loss in ~200 episodes.
    let gilbert = PathConfig {
        loss: LossModel::GilbertElliott {
            good_to_bad: 0.002,
            bad_to_good: 0.25,
            loss_in_good: 0.0,
            loss_in_bad: 1.0,
        },
        ..PathConfig::default()
    };
    let run = simulate(&sender(), &gilbert, 2);
    let m = measure(&run, run.truth.sent);
    report("Gilbert bursty loss", &run, &m);
    let mean = m.counts.loss.mean_length().unwrap_or(0.0);
    assert!((3.0..5.0).contains(&mean), "mean burst {mean}");
    assert_eq!(m.counts.loss, run.truth.loss_episodes);

    // Gilbert–Elliott: rare losses in Good, half of the datagrams in Bad.
    let elliott = PathConfig {
        loss: LossModel::GilbertElliott {
            good_to_bad: 0.01,
            bad_to_good: 0.1,
            loss_in_good: 0.001,
            loss_in_bad: 0.5,
        },
        ..PathConfig::default()
    };
    let run = simulate(&sender(), &elliott, 3);
    let m = measure(&run, run.truth.sent);
    report("Gilbert-Elliott loss", &run, &m);
    assert!(run.truth.lost > 3_000, "{}", run.truth.lost);
    assert_eq!(m.counts.loss, run.truth.loss_episodes);
}

#[test]
fn five_percent_reordering_is_recovered_exactly() {
    // Held back 10.5 ms: each held datagram is overtaken by the next ten.
    let path = PathConfig {
        reordering: Some(Reordering {
            probability: 0.05,
            hold_ns: 10_500_000,
        }),
        ..PathConfig::default()
    };
    let run = simulate(&sender(), &path, 4);
    let m = measure(&run, run.truth.sent);
    report("5 % reordering", &run, &m);
    let ratio = m.counts.reordered_ratio().unwrap_or(0.0);
    assert!((0.045..0.055).contains(&ratio), "{ratio}");
    assert_eq!(m.counts.reordered, run.truth.held_back);
    assert_eq!(m.counts.reordered, run.truth.overtaken);
    // An isolated hold-back has extent 10 (the next ten overtake it); one
    // held shortly after another counts from the earlier one's first
    // overtaker, so more. The largest, by the definition with unbounded memory:
    assert_eq!(m.counts.max_reorder_extent, reference_max_extent(&run));
    assert!(m.counts.max_reorder_extent >= 10);
    assert_eq!(m.counts.loss.lost, 0);
    assert_eq!(m.counts.duplicates, 0);
}

#[test]
fn duplicates_are_recovered_exactly_and_are_not_reordering() {
    for (lag_ns, seed) in [(0, 5), (3_500_000, 6)] {
        let path = PathConfig {
            duplication: Some(Duplication {
                probability: 0.02,
                lag_ns,
            }),
            ..PathConfig::default()
        };
        let run = simulate(&sender(), &path, seed);
        let m = measure(&run, run.truth.sent);
        report(&format!("2 % duplicates, lag {lag_ns} ns"), &run, &m);
        assert!(run.truth.duplicates > 1_500);
        assert_eq!(m.counts.duplicates, run.truth.duplicates);
        assert_eq!(m.counts.reordered, 0, "a late copy is no reordering");
        assert_eq!(m.counts.received, run.truth.sent);
        assert_eq!(m.counts.loss.lost, 0);
        assert_eq!(m.jitter_ns, Some(0.0), "copies do not enter the jitter");
    }
}

#[test]
fn delay_jitter_gives_rfc3550_jitter_within_one_percent_of_the_direct_value() {
    // Uniform 0..=500 µs at 1 ms spacing: nothing overtakes, so arrival order
    // is sequence order and the direct value needs nothing but the injected
    // transit times. The receiver's clock runs 5 s ahead: jitter ignores it.
    let path = PathConfig {
        jitter: DelayJitter::Uniform { max_ns: 500_000 },
        receiver_clock_offset_ns: 5_000_000_000,
        ..PathConfig::default()
    };
    let run = simulate(&sender(), &path, 7);
    let m = measure(&run, run.truth.sent);
    report("uniform delay jitter 0-500 µs", &run, &m);
    assert_eq!(run.truth.overtaken, 0);
    let direct = jitter_of_transits(run.truth.transit_ns.iter().flatten().copied());
    assert_within_one_percent(m.jitter_ns, direct);
    // E|X − Y| of two uniform draws on [0, a] is a/3: J hovers around 167 µs.
    let j = m.jitter_ns.unwrap_or(0.0);
    assert!((100_000.0..250_000.0).contains(&j), "{j}");

    // Exponential, mean 2 ms at 1 ms spacing: heavy reordering from jitter
    // alone; jitter runs over arrivals in arrival order.
    let path = PathConfig {
        jitter: DelayJitter::Exponential { mean_ns: 2_000_000 },
        ..PathConfig::default()
    };
    let run = simulate(&sender(), &path, 8);
    let m = measure(&run, run.truth.sent);
    report("exponential delay jitter, mean 2 ms", &run, &m);
    assert!(run.truth.overtaken > 10_000);
    assert_eq!(m.counts.reordered, run.truth.overtaken);
    assert_within_one_percent(m.jitter_ns, direct_jitter_in_delivery_order(&run));
}

#[test]
fn delay_pdv_and_ipdv_follow_the_injected_transit_times() {
    let path = PathConfig {
        delay_ns: 20_000_000,
        jitter: DelayJitter::Uniform { max_ns: 400_000 },
        loss: LossModel::Random { probability: 0.01 },
        ..PathConfig::default()
    };
    let run = simulate(&sender(), &path, 9);
    let m = measure(&run, run.truth.sent);
    let transits: Vec<i64> = run.truth.transit_ns.iter().flatten().copied().collect();
    let mut sorted: Vec<f64> = transits.iter().map(|&t| t as f64).collect();
    sorted.sort_by(f64::total_cmp);
    let owd = m.one_way_delay.unwrap_or_default();
    assert_eq!(owd.count, transits.len() as u64);
    assert_eq!(owd.min_ns, sorted[0]);
    assert_eq!(owd.max_ns, sorted[sorted.len() - 1]);
    let mean = sorted.iter().sum::<f64>() / sorted.len() as f64;
    assert!(
        (owd.mean_ns - mean).abs() < 1e-3,
        "{} vs {mean}",
        owd.mean_ns
    );
    // Percentiles from the histogram: within 0.4 % of the distance from the
    // first delay, i.e. within 0.4 % of 400 µs here (not of 20 ms).
    let exact_p99 = sorted[(0.99 * sorted.len() as f64).ceil() as usize - 1] - sorted[0];
    let pdv = m.pdv.unwrap_or_default();
    assert!(!pdv.exact);
    assert!(
        (pdv.p99_ns - exact_p99).abs() < 0.004 * 400_000.0 + 1.0,
        "PDV p99 {} vs {exact_p99}",
        pdv.p99_ns
    );
    // IPDV: consecutive sequence numbers both delivered.
    let pairs: Vec<f64> = run
        .truth
        .transit_ns
        .windows(2)
        .filter_map(|w| Some((w[1]? - w[0]?).abs() as f64))
        .collect();
    let ipdv = m.ipdv_absolute.unwrap_or_default();
    assert_eq!(ipdv.count, pairs.len() as u64);
    let mean_abs = pairs.iter().sum::<f64>() / pairs.len() as f64;
    assert!((ipdv.mean_ns - mean_abs).abs() < 1e-3);
}

#[test]
fn every_impairment_at_once_behind_a_bottleneck() {
    // 1000-byte datagrams every 100 µs (80 Mbit/s) into a 50 Mbit/s link
    // with a 64-datagram queue: congestion drops on top of bursty loss,
    // jitter, hold-backs and copies.
    let sender = Sender {
        count: 100_000,
        interval_ns: 100_000,
        size_bytes: 1_000,
        start_ns: 0,
    };
    let path = PathConfig {
        rate_bps: Some(50_000_000),
        queue_limit_packets: Some(64),
        delay_ns: 5_000_000,
        jitter: DelayJitter::Uniform { max_ns: 150_000 },
        loss: LossModel::GilbertElliott {
            good_to_bad: 0.001,
            bad_to_good: 0.3,
            loss_in_good: 0.0005,
            loss_in_bad: 0.8,
        },
        reordering: Some(Reordering {
            probability: 0.01,
            hold_ns: 2_000_000,
        }),
        duplication: Some(Duplication {
            probability: 0.01,
            lag_ns: 50_000,
        }),
        receiver_clock_offset_ns: -123_456_789,
    };
    let run = simulate(&sender, &path, 10);
    let m = measure(&run, run.truth.sent);
    let t = &run.truth;
    println!(
        "all at once: dropped by loss model {}, by queue {}",
        t.dropped_by_loss_model, t.dropped_by_queue
    );
    assert!(t.dropped_by_queue > 1_000 && t.dropped_by_loss_model > 100);
    assert_eq!(m.counts.loss, t.loss_episodes);
    assert_eq!(m.counts.duplicates, t.duplicates);
    assert_eq!(m.counts.reordered, t.overtaken);
    assert_eq!(m.counts.received, t.sent - t.lost);
    // Jitter over arrivals in arrival order; the sender's interval differs
    // from `sender()`'s, so take the order from the arrivals themselves.
    let mut seen = vec![false; t.sent as usize];
    let direct = jitter_of_transits(run.arrivals.iter().filter_map(|a| {
        let first = !std::mem::replace(&mut seen[a.sequence as usize], true);
        first.then(|| t.transit_ns[a.sequence as usize].unwrap_or(0))
    }));
    assert_within_one_percent(m.jitter_ns, direct);
}

#[test]
fn reordering_beyond_the_window_settles_as_loss_and_is_counted() {
    // A window of 64 sequence numbers, hold-backs of 100 datagrams: every
    // held datagram arrives behind the window, counted and still lost.
    let path = PathConfig {
        reordering: Some(Reordering {
            probability: 0.01,
            hold_ns: 100_500_000,
        }),
        ..PathConfig::default()
    };
    let run = simulate(&sender(), &path, 11);
    let mut observer = DeliveryObserver::new(DeliveryConfig {
        sequence: SequenceConfig {
            window: 64,
            ..SequenceConfig::default()
        },
        ..DeliveryConfig::default()
    });
    for a in &run.arrivals {
        observer.observe(a.sequence, a.sent_ns, a.received_ns);
    }
    let c = observer.metrics(run.truth.sent).counts;
    assert_eq!(c.behind_window, run.truth.held_back);
    assert_eq!(c.loss.lost, run.truth.held_back);
    assert_eq!(c.reordered, 0);
    assert_eq!(
        c.received + c.duplicates + c.ignored(),
        run.arrivals.len() as u64
    );
}

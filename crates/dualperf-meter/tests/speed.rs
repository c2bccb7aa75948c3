//! Observer cost per datagram, criterion-free:
//! `cargo test --release -p dualperf-meter --test speed -- --ignored --nocapture`.
//! Best of five passes over 10⁷ datagrams of a simulated 1 µs stream: the
//! path's 10⁵ arrivals (2.4 MB, cache-resident like a `recvmmsg` batch)
//! replayed 100 times, shifted by 10⁵ sequence numbers each time.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test and example code: a failed unwrap is a failed run

use std::time::Instant;

use dualperf_meter::sim::{simulate, DelayJitter, LossModel, PathConfig, Reordering, Sender};
use dualperf_meter::{
    DeliveryConfig, DeliveryObserver, InterarrivalJitter, SequenceConfig, SequenceObserver,
};
use dualperf_model::observation::Arrival;

const ROUNDS: u64 = 100;

/// Calls `feed` with every arrival of `ROUNDS` shifted copies of `arrivals`.
fn stream(arrivals: &[Arrival], count: u64, mut feed: impl FnMut(u64, i64, i64)) {
    for round in 0..ROUNDS {
        let (shift, shift_ns) = (round * count, (round * count * 1_000) as i64);
        for a in arrivals {
            feed(
                a.sequence + shift,
                a.sent_ns + shift_ns,
                a.received_ns + shift_ns,
            );
        }
    }
}

fn best_ns_per_datagram(arrivals: &[Arrival], mut pass: impl FnMut() -> u64) -> f64 {
    (0..5)
        .map(|_| {
            let started = Instant::now();
            std::hint::black_box(pass());
            started.elapsed().as_nanos() as f64 / (arrivals.len() as u64 * ROUNDS) as f64
        })
        .fold(f64::MAX, f64::min)
}

#[test]
#[ignore = "micro benchmark: run in release with --ignored --nocapture"]
fn observer_cost_per_datagram() {
    let sender = Sender {
        count: 100_000,
        interval_ns: 1_000,
        size_bytes: 64,
        start_ns: 0,
    };
    let paths = [
        ("clean", PathConfig::default()),
        (
            "1 % loss, 1 % reordered, jitter",
            PathConfig {
                loss: LossModel::Random { probability: 0.01 },
                reordering: Some(Reordering {
                    probability: 0.01,
                    hold_ns: 3_500,
                }),
                jitter: DelayJitter::Uniform { max_ns: 500 },
                ..PathConfig::default()
            },
        ),
    ];
    for (name, path) in paths {
        let arrivals = simulate(&sender, &path, 1).arrivals;
        let total = sender.count * ROUNDS;
        let sequence = best_ns_per_datagram(&arrivals, || {
            let mut o = SequenceObserver::new(SequenceConfig::default());
            let mut j = InterarrivalJitter::new();
            stream(&arrivals, sender.count, |s, sent, received| {
                if o.observe(s, sent, received).is_first_copy() {
                    j.observe(sent, received);
                }
            });
            o.counts(total).loss.lost
        });
        let delivery = best_ns_per_datagram(&arrivals, || {
            let mut o = DeliveryObserver::new(DeliveryConfig::default());
            stream(&arrivals, sender.count, |s, sent, received| {
                o.observe(s, sent, received);
            });
            o.metrics(total).counts.loss.lost
        });
        println!(
            "{name}: sequence + jitter {sequence:.2} ns/datagram; \
             everything (+ delay, PDV and IPDV histograms) {delivery:.2} ns/datagram"
        );
    }
}

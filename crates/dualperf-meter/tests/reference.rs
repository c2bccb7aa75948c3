//! The windowed sequence observer against the definitions computed with
//! unbounded memory (hash sets, the whole trace), on arbitrary streams and a
//! small window, so that every window rule is exercised.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test and example code: a failed unwrap is a failed run

use std::collections::HashSet;

use dualperf_meter::{SequenceConfig, SequenceCounts, SequenceObserver};
use proptest::prelude::*;

const WINDOW: u64 = 64;
const MAX_JUMP: u64 = 100;

/// What the definitions say, with the window rules applied literally.
#[derive(Debug, Default, PartialEq)]
struct Reference {
    received: u64,
    duplicates: u64,
    reordered: u64,
    behind_window: u64,
    too_far_ahead: u64,
    max_extent: u64,
    late: u64,
    lost: u64,
    episodes: u64,
    max_episode: u64,
}

fn reference(arrivals: &[(u64, bool)], sent: u64) -> Reference {
    let mut r = Reference::default();
    let mut next = 0u64;
    let (mut seen, mut in_time) = (HashSet::new(), HashSet::new());
    let mut first_copies: Vec<u64> = Vec::new();
    for &(s, late) in arrivals {
        if s == u64::MAX || s > next.saturating_add(MAX_JUMP) {
            r.too_far_ahead += 1;
            continue;
        }
        if s < next {
            if s < next.saturating_sub(WINDOW) {
                r.behind_window += 1;
                continue;
            }
            if seen.contains(&s) {
                r.duplicates += 1;
                continue;
            }
            r.reordered += 1;
            // RFC 4737 §4.2.1 by the letter: the earliest earlier first copy
            // with a larger sequence number.
            let j = first_copies.len();
            let i = first_copies.iter().position(|&t| t > s).unwrap_or(j);
            r.max_extent = r.max_extent.max((j - i) as u64);
        } else {
            next = s + 1;
        }
        seen.insert(s);
        if !late {
            in_time.insert(s);
        }
        first_copies.push(s);
        r.received += 1;
    }
    let mut run = 0;
    for s in (0..sent).chain([u64::MAX]) {
        if s < sent && !in_time.contains(&s) {
            r.lost += 1;
            r.late += u64::from(seen.contains(&s));
            run += 1;
        } else if run > 0 {
            r.episodes += 1;
            r.max_episode = r.max_episode.max(run);
            run = 0;
        }
    }
    r
}

fn observe(arrivals: &[(u64, bool)], sent: u64) -> SequenceCounts {
    let mut o = SequenceObserver::new(SequenceConfig {
        window: WINDOW,
        max_jump: MAX_JUMP,
        extent_window: arrivals.len(),
        waiting_time_ns: Some(100),
    });
    for &(s, late) in arrivals {
        o.observe(s, 0, if late { 1_000 } else { 10 });
    }
    o.counts(sent)
}

fn arrival() -> impl Strategy<Value = (u64, bool)> {
    let sequence = prop_oneof![
        8 => 0u64..400,
        1 => any::<u64>(),
    ];
    (sequence, prop::bool::weighted(0.1))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn the_window_changes_nothing_the_rules_do_not_say(
        arrivals in prop::collection::vec(arrival(), 0..400),
        extra in 0u64..100,
    ) {
        // A sender count at or above what arrived, as a sender's would be.
        let highest = arrivals
            .iter()
            .map(|&(s, _)| s)
            .filter(|&s| s < 1_000)
            .max()
            .map_or(0, |s| s + 1);
        let sent = highest + extra;
        let c = observe(&arrivals, sent);
        let r = reference(&arrivals, sent);
        prop_assert!(c.loss_exact);
        let measured = Reference {
            received: c.received,
            duplicates: c.duplicates,
            reordered: c.reordered,
            behind_window: c.behind_window,
            too_far_ahead: c.too_far_ahead,
            max_extent: c.max_reorder_extent,
            late: c.late,
            lost: c.loss.lost,
            episodes: c.loss.episodes,
            max_episode: c.loss.max_length,
        };
        prop_assert_eq!(measured, r);
        prop_assert_eq!(c.received + c.duplicates + c.ignored(), arrivals.len() as u64);
        prop_assert_eq!(c.loss.lost + c.received_in_time, c.sent);
        prop_assert_eq!(c.loss.length_histogram.iter().sum::<u64>(), c.loss.episodes);
    }

    #[test]
    fn any_sender_count_gives_consistent_counts(
        arrivals in prop::collection::vec(arrival(), 0..200),
        sent in 0u64..600,
    ) {
        let c = observe(&arrivals, sent);
        prop_assert!(c.loss.lost <= c.sent);
        prop_assert!(c.loss.episodes <= c.loss.lost);
        prop_assert!(c.late <= c.loss.lost);
        prop_assert_eq!(c.loss.lost + c.received_in_time, c.sent);
        if c.loss_exact {
            let r = reference(&arrivals, sent);
            prop_assert_eq!((c.loss.lost, c.loss.episodes, c.late), (r.lost, r.episodes, r.late));
        }
    }
}

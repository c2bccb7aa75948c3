//! Issue 16, fault 4: "256 crafted 64-byte UDP datagrams whose sequence
//! numbers jump by 2^24 grow the server's receive bookkeeping by 524 MB per
//! stream". The observers allocate everything at construction: this test
//! counts every byte the allocator hands out on the test's thread while
//! such a stream (and worse ones) is observed.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test and example code: a failed unwrap is a failed run

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use dualperf_meter::sequence::DEFAULT_MAX_JUMP;
use dualperf_meter::{
    Arrived, DeliveryConfig, DeliveryObserver, InterarrivalJitter, SequenceConfig, SequenceObserver,
};

/// The system allocator, counting the bytes allocated by each thread.
struct Counting;

thread_local! {
    static ALLOCATED: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: forwards to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATED.try_with(|a| a.set(a.get() + layout.size()));
        // SAFETY: the caller's contract is the system allocator's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATED.try_with(|a| a.set(a.get() + new_size));
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocated() -> usize {
    ALLOCATED.with(Cell::get)
}

#[test]
fn sequence_numbers_jumping_by_two_to_the_24_allocate_nothing() {
    let mut observer = SequenceObserver::new(SequenceConfig::default());
    let mut jitter = InterarrivalJitter::new();
    let memory = observer.memory_bytes();
    let before = allocated();
    for k in 0..256u64 {
        let sequence = k << 24;
        let arrived = observer.observe(sequence, 0, 1_000);
        assert_eq!(arrived, Arrived::InOrder { late: false }, "datagram {k}");
        jitter.observe(0, 1_000);
    }
    let counts = observer.counts(256);
    assert_eq!(allocated() - before, 0, "bytes allocated while observing");
    assert_eq!(observer.memory_bytes(), memory);
    assert!(memory <= 100 * 1024, "{memory} bytes");
    // What the stream looks like: 256 first copies, the 2^24 − 1 numbers
    // between two of them lost, and the sender's count of 256 far below
    // what arrived (its loss is then an upper bound, at most 256).
    assert_eq!(counts.received, 256);
    assert_eq!(counts.beyond_sent, (255 << 24) + 1 - 256);
    assert!(!counts.loss_exact);
    assert!(counts.loss.lost <= 256);
    assert_eq!(observer.missing_below_highest(), (255 << 24) + 1 - 256);
}

#[test]
fn jumps_beyond_the_limit_are_violations_and_cost_nothing() {
    let mut observer = DeliveryObserver::new(DeliveryConfig::default());
    let memory = observer.memory_bytes();
    let before = allocated();
    observer.observe(0, 0, 1);
    for k in 1..=256u64 {
        let arrived = observer.observe(k * (DEFAULT_MAX_JUMP + 2), 0, 1);
        assert_eq!(arrived, Arrived::TooFarAhead);
    }
    for sequence in [u64::MAX, u64::MAX - 1, 1 << 63] {
        assert_eq!(observer.observe(sequence, 0, 1), Arrived::TooFarAhead);
    }
    // The stream goes on undisturbed.
    for sequence in 1..1000 {
        observer.observe(sequence, sequence as i64, sequence as i64 + 5);
    }
    let metrics = observer.metrics(1000);
    assert_eq!(allocated() - before, 0, "bytes allocated while observing");
    assert_eq!(observer.memory_bytes(), memory);
    assert_eq!(metrics.counts.too_far_ahead, 259);
    assert_eq!(metrics.counts.received, 1000);
    assert_eq!(metrics.counts.loss.lost, 0);
    assert_eq!(metrics.counts.reordered, 0);
}

#[test]
fn a_long_hostile_mixture_allocates_nothing() {
    // Jumps, stale numbers, duplicates and wrap-around values, 10^5 of them.
    let mut observer = DeliveryObserver::new(DeliveryConfig::default());
    let before = allocated();
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut arrivals = 0u64;
    for _ in 0..100_000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let next = observer.sequence().next_expected();
        let sequence = match state % 5 {
            0 => next + (state >> 40) % DEFAULT_MAX_JUMP,
            1 => next.saturating_sub((state >> 20) % 200_000),
            2 => next.saturating_sub(1),
            3 => state,
            _ => next,
        };
        observer.observe(sequence, (state >> 1) as i64, (state >> 2) as i64);
        arrivals += 1;
    }
    let c = observer.metrics(observer.sequence().next_expected()).counts;
    assert_eq!(allocated() - before, 0, "bytes allocated while observing");
    assert_eq!(c.received + c.duplicates + c.ignored(), arrivals);
    assert!(c.loss_exact);
    assert_eq!(c.loss.lost + c.received_in_time, c.sent);
}

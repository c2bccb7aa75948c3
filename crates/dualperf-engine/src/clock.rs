//! The two clocks the engine reads.
//!
//! - **Monotonic** ([`std::time::Instant`], CLOCK_MONOTONIC): every interval
//!   and every round trip (rr, connect). It never jumps.
//! - **Realtime** ([`realtime_ns`], CLOCK_REALTIME): the send timestamp in
//!   each udp-stream datagram. Chosen because the kernel's receive timestamps
//!   (`SO_TIMESTAMPNS`) are CLOCK_REALTIME too, so one-way delay is
//!   `received − sent` on one clock when both ends run on the same kernel
//!   (same host or network namespaces; detected by comparing
//!   [`boot_id`]s). Between hosts the difference is only meaningful for
//!   clock-independent metrics (jitter, IPDV) unless the clocks are synchronised.

/// Nanoseconds since the Unix epoch on CLOCK_REALTIME.
pub fn realtime_ns() -> i64 {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into a timespec we own; CLOCK_REALTIME always exists.
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut now) };
    now.tv_sec * 1_000_000_000 + now.tv_nsec
}

/// Milliseconds since the Unix epoch (wall clock), for trial start times.
pub fn unix_ms() -> u64 {
    (realtime_ns() / 1_000_000).max(0) as u64
}

/// This kernel's boot id (`/proc/sys/kernel/random/boot_id`), shared by all
/// network namespaces of one kernel. Two ends with the same boot id share
/// CLOCK_REALTIME exactly. Empty when unreadable.
pub fn boot_id() -> String {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .map(|text| text.trim().to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn realtime_clock_is_after_2020() {
        assert!(realtime_ns() > 1_577_836_800_000_000_000);
    }

    #[test]
    fn boot_id_is_a_uuid_on_linux() {
        assert_eq!(boot_id().len(), 36);
    }
}

//! What `run` checks before it measures and honours while it does: the
//! protocol's bounds on every point of the plan (the server checks the same
//! ones: `dualperf_engine::limits::validate_spec`), and Ctrl-C / SIGTERM.
//!
//! Interrupts: the first Ctrl-C or SIGTERM stops the run after the current
//! trial (every trial ends within its duration plus a grace period: rates
//! and intervals are bounded below), keeps what was measured, and exits
//! with 130 like `lab`; a second one quits at once, also with 130.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use dualperf_model::TestSpec;

use crate::exit::Failure;

/// Exit code after an interrupt (128 + SIGINT), as shells and `lab` use.
pub(crate) const INTERRUPTED: u8 = 130;

/// Most repetitions of a point (`--repeat`): the plan of every trial is
/// built up front, and 10,000 repetitions of a 1 s trial are already days.
pub(crate) const MAX_REPEAT: u32 = 10_000;

/// Checks the plan: `--repeat` against [`MAX_REPEAT`], every point against
/// the protocol's bounds (write size, streams, rate, intervals, duration).
///
/// # Errors
/// A usage error (exit code 2) naming the first point and bound broken.
pub(crate) fn check_plan(points: &[TestSpec], repeat: u32) -> anyhow::Result<()> {
    if repeat > MAX_REPEAT {
        return Err(Failure::usage(format!(
            "--repeat {repeat} exceeds the maximum of {MAX_REPEAT}"
        )));
    }
    for point in points {
        dualperf_engine::limits::validate_spec(point)
            .map_err(|problem| Failure::usage(format!("{}: {problem}", point.label())))?;
    }
    Ok(())
}

/// The process-wide stop flag, with the SIGINT/SIGTERM handler installed on
/// first use: the first signal raises the flag, the second exits with
/// [`INTERRUPTED`] at once.
pub(crate) fn stop_flag() -> Arc<AtomicBool> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        let handler_flag = Arc::clone(&flag);
        // Another handler already installed (a caller that set its own) is
        // fine: that caller decides.
        let _ = ctrlc::set_handler(move || {
            if handler_flag.swap(true, Ordering::SeqCst) {
                eprintln!("\ndualperf: interrupted again; quitting without saving");
                std::process::exit(i32::from(INTERRUPTED));
            }
            eprintln!(
                "\ndualperf: stopping after the current trial and saving what was measured \
                 (Ctrl-C again quits at once)"
            );
        });
        flag
    })
    .clone()
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::{BitRate, TestKind};

    fn point(kind: TestKind, size_bytes: u32) -> TestSpec {
        TestSpec {
            duration_ms: 1000,
            warmup_ms: 0,
            sample_interval_ms: 1000,
            ..TestSpec::new(kind, size_bytes)
        }
    }

    fn check_plan(points: &[TestSpec]) -> anyhow::Result<()> {
        super::check_plan(points, 1)
    }

    #[test]
    fn too_many_repetitions_are_a_usage_error_not_an_allocation() {
        let error = super::check_plan(&[point(TestKind::TcpRr, 64)], u32::MAX).unwrap_err();
        assert!(error.to_string().contains("--repeat"), "{error}");
    }

    #[test]
    fn a_zero_rate_and_a_gigabyte_write_are_usage_errors() {
        let mut zero = point(TestKind::UdpStream, 1024);
        zero.rate = Some(BitRate::from_bits_per_second(0));
        let error = check_plan(&[zero]).unwrap_err();
        let failure = error.downcast_ref::<Failure>().unwrap();
        assert_eq!(failure.code, crate::exit::USAGE);
        assert!(failure.message.contains("-b"), "{failure}");
        let huge = point(TestKind::TcpStream, 1 << 30);
        assert!(check_plan(&[huge])
            .unwrap_err()
            .to_string()
            .contains("16 MiB"));
        assert!(check_plan(&[point(TestKind::TcpStream, 131_072)]).is_ok());
    }
}

//! Ctrl-C and SIGTERM during a lab run: the handler only raises flags and
//! forwards the signal to the measuring child; the building loop and the
//! waiting loops look at the flags, stop their child processes, and let the
//! testbed drop, which removes it. A run killed with SIGKILL cannot react;
//! `dualperf lab clean` removes what it left.
//!
//! While the measuring child runs, the first Ctrl-C is forwarded to it (lab
//! processes have process groups of their own, so the terminal's SIGINT
//! reaches the lab alone and the child hears it exactly once): it finishes
//! its current trial and writes what it measured, which the lab then
//! analyses, stores and reports like a complete run before it exits 130. A
//! second Ctrl-C is forwarded too (the child quits at once) and raises
//! [`again_flag`], on which the lab stops everything without saving.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Arc, OnceLock};

/// The measuring child's pid while it runs (0: none).
static MEASURING_CHILD: AtomicI32 = AtomicI32::new(0);

/// Raised by the second interrupt.
fn again() -> &'static Arc<AtomicBool> {
    static AGAIN: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    AGAIN.get_or_init(|| Arc::new(AtomicBool::new(false)))
}

/// The process-wide interrupt flag, with the SIGINT/SIGTERM handler installed
/// on first use.
///
/// # Errors
/// If the handler cannot be installed.
pub(super) fn interrupt_flag() -> anyhow::Result<Arc<AtomicBool>> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    if let Some(flag) = FLAG.get() {
        return Ok(Arc::clone(flag));
    }
    let flag = Arc::new(AtomicBool::new(false));
    let handler_flag = Arc::clone(&flag);
    ctrlc::set_handler(move || {
        let child = MEASURING_CHILD.load(Ordering::SeqCst);
        let first = !handler_flag.swap(true, Ordering::SeqCst);
        if first && child > 0 {
            eprintln!(
                "\ndualperf: interrupted; finishing the current trial, then saving what was \
                 measured and removing the testbed (Ctrl-C again stops at once)"
            );
        } else if first {
            eprintln!("dualperf: interrupted; removing the testbed");
        } else {
            again().store(true, Ordering::SeqCst);
            eprintln!("\ndualperf: interrupted again; stopping now without saving");
        }
        if child > 0 {
            // SAFETY: kill(2) with a pid the lab spawned and has not reaped
            // (it is cleared before the wait returns).
            unsafe {
                libc::kill(child, libc::SIGINT);
            }
        }
    })?;
    Ok(Arc::clone(FLAG.get_or_init(|| flag)))
}

/// The flag of the second interrupt (stop at once, save nothing).
pub(super) fn again_flag() -> Arc<AtomicBool> {
    Arc::clone(again())
}

/// While alive, interrupts are forwarded to `pid` (the measuring child).
pub(super) struct Forwarding;

impl Forwarding {
    /// Forwards interrupts to `pid` until dropped.
    pub(super) fn to(pid: u32) -> Forwarding {
        MEASURING_CHILD.store(i32::try_from(pid).unwrap_or(0), Ordering::SeqCst);
        Forwarding
    }
}

impl Drop for Forwarding {
    fn drop(&mut self) {
        MEASURING_CHILD.store(0, Ordering::SeqCst);
    }
}

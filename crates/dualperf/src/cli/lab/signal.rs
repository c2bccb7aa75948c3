//! Ctrl-C and SIGTERM during a lab run: the handler only raises a flag; the
//! building loop and the waiting loops look at it, stop their child
//! processes, and let the testbed drop, which removes it. A run killed with
//! SIGKILL cannot react; `dualperf lab clean` removes what it left.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

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
        if !handler_flag.swap(true, Ordering::SeqCst) {
            eprintln!("dualperf: interrupted; removing the testbed");
        }
    })?;
    Ok(Arc::clone(FLAG.get_or_init(|| flag)))
}

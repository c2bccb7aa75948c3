//! Live interval lines: while a trial runs, the client's sampler thread
//! sends each finished [`IntervalSample`] over a channel (one message per
//! interval; the socket loops are untouched), and the caller's thread turns
//! them into [`super::Progress::IntervalFinished`] events as they arrive.
//! The trial itself then runs on a scoped thread, so the caller's progress
//! callback stays on the caller's thread and needs no `Send`.

use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use dualperf_model::{IntervalSample, Trial};

use super::{Client, ClientOptions};

/// How often the caller's thread checks whether the trial ended while no
/// interval arrives (a stray clone of the sender must not keep it waiting).
const POLL: Duration = Duration::from_millis(100);

/// Runs `trial` with a client whose sampler reports to a fresh channel,
/// calling `on_interval` for every interval as it finishes.
pub(super) fn with_live_intervals(
    options: &ClientOptions,
    trial: impl FnOnce(&Client) -> Trial + Send,
    on_interval: &mut dyn FnMut(&IntervalSample),
) -> Trial {
    let (sink, samples) = mpsc::channel();
    let client = Client::new(ClientOptions {
        interval_sink: Some(sink),
        ..options.clone()
    });
    std::thread::scope(|scope| {
        let running = std::thread::Builder::new()
            .name("dualperf-trial".into())
            .spawn_scoped(scope, move || trial(&client))
            .expect("spawning a thread only fails when the process is out of resources");
        loop {
            match samples.recv_timeout(POLL) {
                Ok(sample) => on_interval(&sample),
                Err(RecvTimeoutError::Timeout) if !running.is_finished() => {}
                Err(_) => break,
            }
        }
        for sample in samples.try_iter() {
            on_interval(&sample);
        }
        running
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

//! Rate limits for the server's log, per kind of event: a flood of one kind
//! (sessions opened and closed by a hello flood wrote 1.35 MB/s) cannot
//! flood the log, and does not silence the other kinds. Each kind gets
//! [`LINES_PER_SECOND`] lines a second; the rest are counted, and the count
//! is logged as one line when the next second begins.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Lines of one kind per second before they are summarised.
pub const LINES_PER_SECOND: u32 = 20;

/// The kinds of session events the server logs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogKind {
    /// A session began (after its handshake).
    SessionStarted,
    /// A session ended, normally or not.
    SessionEnded,
}

impl LogKind {
    const ALL: [LogKind; 2] = [LogKind::SessionStarted, LogKind::SessionEnded];

    fn index(self) -> usize {
        self as usize
    }

    fn noun(self) -> &'static str {
        match self {
            LogKind::SessionStarted => "session starts",
            LogKind::SessionEnded => "session ends",
        }
    }
}

#[derive(Clone, Copy)]
struct Window {
    start: Instant,
    used: u32,
    suppressed: u64,
}

/// One window per [`LogKind`].
pub(crate) struct LogBudgets {
    windows: Mutex<[Window; LogKind::ALL.len()]>,
}

impl LogBudgets {
    pub(crate) fn new(now: Instant) -> LogBudgets {
        let window = Window {
            start: now,
            used: 0,
            suppressed: 0,
        };
        LogBudgets {
            windows: Mutex::new([window; LogKind::ALL.len()]),
        }
    }

    /// What to log for one event of `kind` at `now`: the line itself when
    /// the budget allows (preceded by the previous second's summary, if
    /// lines were suppressed), nothing otherwise.
    pub(crate) fn admit(&self, kind: LogKind, now: Instant, line: &str) -> Vec<String> {
        let mut windows = self
            .windows
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let window = &mut windows[kind.index()];
        let mut lines = Vec::new();
        if now.duration_since(window.start) >= Duration::from_secs(1) {
            if window.suppressed > 0 {
                lines.push(format!(
                    "{} more {} in the last second not logged",
                    window.suppressed,
                    kind.noun()
                ));
            }
            *window = Window {
                start: now,
                used: 0,
                suppressed: 0,
            };
        }
        if window.used < LINES_PER_SECOND {
            window.used += 1;
            lines.push(line.to_string());
        } else {
            window.suppressed += 1;
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flood_of_one_kind_is_summarised_and_spares_the_others() {
        let start = Instant::now();
        let budgets = LogBudgets::new(start);
        let logged: usize = (0..1000)
            .map(|_| budgets.admit(LogKind::SessionEnded, start, "end").len())
            .sum();
        assert_eq!(logged, LINES_PER_SECOND as usize);
        assert_eq!(
            budgets.admit(LogKind::SessionStarted, start, "start"),
            vec!["start".to_string()]
        );
        let next = budgets.admit(LogKind::SessionEnded, start + Duration::from_secs(1), "end");
        assert_eq!(
            next,
            vec![
                "980 more session ends in the last second not logged".to_string(),
                "end".to_string()
            ]
        );
    }
}

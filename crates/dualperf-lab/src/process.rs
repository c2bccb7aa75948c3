//! Work inside a node: child processes started with `ip netns exec`, and
//! closures run on a dedicated thread that has entered the namespace.
//!
//! `setns(2)` switches only the calling thread's network namespace, so code
//! that must use sockets "inside" a node gets a fresh thread that enters the
//! namespace, runs, and exits — the caller's threads never move.
//!
//! A [`NodeProcess`] is owned like any other testbed object: dropping it
//! stops the process (SIGTERM, then SIGKILL), and the child is started with
//! `PR_SET_PDEATHSIG = SIGKILL`, so even a `kill -9` of dualperf takes it down.

use std::ffi::OsString;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::error::LabError;

/// How often waiting loops look at the child and the interrupt flag.
const POLL_INTERVAL: Duration = Duration::from_millis(50);

/// Runs `work` on a new thread that has entered the network namespace
/// `netns` (`/run/netns/NETNS`), and returns its result.
///
/// # Errors
/// [`LabError::EnterNamespace`] if the namespace cannot be opened or entered.
///
/// # Panics
/// Propagates a panic of `work`.
pub fn run_in_namespace<T, F>(netns: &str, work: F) -> Result<T, LabError>
where
    T: Send,
    F: FnOnce() -> T + Send,
{
    let path = format!("/run/netns/{netns}");
    let enter_error = |source| LabError::EnterNamespace {
        netns: netns.to_string(),
        source,
    };
    let file = File::open(&path).map_err(enter_error)?;
    std::thread::scope(|scope| {
        let handle = scope.spawn(move || {
            // SAFETY: setns(2) on a valid, open namespace file descriptor; it
            // affects only this thread, which ends when `work` returns.
            let rc = unsafe { libc::setns(file.as_raw_fd(), libc::CLONE_NEWNET) };
            if rc != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(work())
        });
        match handle.join() {
            Ok(result) => result.map_err(enter_error),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

/// What the scheduler says about a process (`/proc/PID/schedstat`), summed
/// over its threads' lifetime so far.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub struct SchedStat {
    /// Time it ran on a CPU, nanoseconds.
    pub running_ns: u64,
    /// Time it was runnable but waited for a CPU, nanoseconds.
    pub waiting_ns: u64,
}

impl SchedStat {
    /// Reads `/proc/PID/task/*/schedstat` (every thread); `None` when the
    /// process is gone or the kernel lacks schedstats.
    pub fn of(pid: i32) -> Option<SchedStat> {
        let mut total = SchedStat::default();
        for task in std::fs::read_dir(format!("/proc/{pid}/task")).ok()? {
            let Ok(task) = task else { continue };
            let Ok(text) = std::fs::read_to_string(task.path().join("schedstat")) else {
                continue; // the thread ended meanwhile
            };
            let mut fields = text.split_whitespace().map(|f| f.parse::<u64>().ok());
            total.running_ns += fields.next()??;
            total.waiting_ns += fields.next()??;
        }
        Some(total)
    }

    /// Over the interval from `earlier` to `self` of `wall_ns` nanoseconds:
    /// the share of one core it ran, and the share it wanted (ran or waited
    /// to run). A user-space forwarder such as TAYGA is the bottleneck when
    /// it *wanted* close to a whole core; on a busy machine it may have
    /// *run* far less than it wanted.
    pub fn shares_since(&self, earlier: &SchedStat, wall_ns: u64) -> (f64, f64) {
        let wall = wall_ns.max(1) as f64;
        let ran = self.running_ns.saturating_sub(earlier.running_ns) as f64;
        let waited = self.waiting_ns.saturating_sub(earlier.waiting_ns) as f64;
        (ran / wall, (ran + waited) / wall)
    }
}

/// A process running inside a node, stopped when dropped.
#[derive(Debug)]
pub struct NodeProcess {
    child: Child,
    description: String,
    finished: Option<ExitStatus>,
}

impl NodeProcess {
    /// Starts `program args…` inside `netns`: `ip netns exec NETNS PROGRAM ARGS…`.
    /// Stdin is closed; stdout and stderr are as given.
    ///
    /// # Errors
    /// [`LabError::Spawn`] if `ip` cannot be started.
    pub fn spawn(
        netns: &str,
        program: &OsString,
        args: &[OsString],
        stdout: Stdio,
        stderr: Stdio,
    ) -> Result<Self, LabError> {
        let mut command = Command::new("ip");
        command
            .args(["netns", "exec", netns])
            .arg(program)
            .args(args);
        command.stdin(Stdio::null()).stdout(stdout).stderr(stderr);
        // A process group of its own: the terminal's Ctrl-C reaches the lab
        // alone, which stops its processes in order (and forwards one
        // interrupt to the measuring child, so it hears it exactly once).
        command.process_group(0);
        // SAFETY: the closure only calls prctl(2), which is async-signal-safe,
        // between fork and exec. `ip netns exec` execs the program in place,
        // so the setting reaches it: if dualperf dies, so does the child.
        unsafe {
            command.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let description = format!(
            "ip netns exec {netns} {} {}",
            program.to_string_lossy(),
            args.iter()
                .map(|a| a.to_string_lossy())
                .collect::<Vec<_>>()
                .join(" ")
        );
        let child = command.spawn().map_err(|source| LabError::Spawn {
            command: description.clone(),
            source,
        })?;
        Ok(NodeProcess {
            child,
            description: description.trim_end().to_string(),
            finished: None,
        })
    }

    /// The command line, for messages.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The process id (of `ip netns exec`, which becomes the program).
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// The exit status if the process has ended, without waiting.
    ///
    /// # Errors
    /// [`LabError::Spawn`] if the status cannot be read.
    pub fn try_wait(&mut self) -> Result<Option<ExitStatus>, LabError> {
        if self.finished.is_none() {
            self.finished = self.child.try_wait().map_err(|source| LabError::Spawn {
                command: self.description.clone(),
                source,
            })?;
        }
        Ok(self.finished)
    }

    /// Waits for the process to end, giving up when `interrupt` becomes true
    /// ([`LabError::Interrupted`]) or after `timeout` ([`LabError::Timeout`]);
    /// in both cases the process is stopped.
    ///
    /// # Errors
    /// As described, plus [`LabError::Spawn`] if the status cannot be read.
    pub fn wait(
        &mut self,
        interrupt: Option<&AtomicBool>,
        timeout: Option<Duration>,
    ) -> Result<ExitStatus, LabError> {
        let deadline = timeout.map(|t| Instant::now() + t);
        loop {
            if let Some(status) = self.try_wait()? {
                return Ok(status);
            }
            if interrupt.is_some_and(|flag| flag.load(Ordering::SeqCst)) {
                self.stop();
                return Err(LabError::Interrupted);
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                self.stop();
                return Err(LabError::Timeout {
                    what: format!("`{}` did not finish in time", self.description),
                });
            }
            std::thread::sleep(POLL_INTERVAL);
        }
    }

    /// Stops the process: SIGTERM, up to a second's grace, then SIGKILL; reaps it.
    pub fn stop(&mut self) {
        if self.finished.is_some() {
            return;
        }
        let pid = self.child.id() as i32;
        // SAFETY: kill(2) on our own child, which has not been reaped yet
        // (so the pid cannot have been reused).
        unsafe {
            libc::kill(pid, libc::SIGTERM);
        }
        let deadline = Instant::now() + Duration::from_secs(1);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                self.finished = Some(status);
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        self.finished = self.child.wait().ok();
    }
}

impl Drop for NodeProcess {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod sched_tests {
    use super::*;

    #[test]
    fn this_process_has_a_schedstat_and_shares_are_fractions_of_the_interval() {
        let before = SchedStat::of(std::process::id() as i32).expect("schedstats are on");
        let start = Instant::now();
        let mut x = 0u64;
        while start.elapsed() < Duration::from_millis(30) {
            x = x.wrapping_add(1);
        }
        assert!(x > 0);
        let after = SchedStat::of(std::process::id() as i32).unwrap();
        let (ran, wanted) = after.shares_since(&before, start.elapsed().as_nanos() as u64);
        assert!(ran > 0.0 && ran <= wanted, "{ran} {wanted}");
        assert!(SchedStat::of(i32::MAX).is_none());
    }
}

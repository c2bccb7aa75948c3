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

//! Owned kernel objects: a network namespace, a veth pair, a device or
//! instance removed by a command, a daemon (TAYGA) and the work directory,
//! each removed when its handle drops.
//!
//! Dropping a [`Namespace`] stops the processes still inside it (SIGTERM,
//! then SIGKILL) and deletes it, which also destroys the veth ends, addresses,
//! qdiscs and routes inside. Dropping a [`VethPair`] deletes the pair first,
//! so the links vanish even if something still holds the namespace open.
//! Failures during drop are printed with the way out (`dualperf lab clean`),
//! never ignored silently.

use crate::cleanup;
use crate::command::{KernelCommand, Runner};
use crate::error::LabError;

/// A network namespace this process created; deleted on drop.
#[derive(Debug)]
pub struct Namespace {
    name: String,
    runner: Runner,
    armed: bool,
}

impl Namespace {
    /// Creates the namespace `name`. Equivalent to `ip netns add NAME`.
    ///
    /// # Errors
    /// [`LabError::Command`] if it exists already or namespaces are unavailable.
    pub fn create(runner: &Runner, name: &str) -> Result<Namespace, LabError> {
        runner.run(&KernelCommand::ip(["netns", "add", name]))?;
        Ok(Namespace::adopt(runner, name))
    }

    /// Takes ownership of a namespace created by a command that has already run.
    pub(crate) fn adopt(runner: &Runner, name: &str) -> Namespace {
        Namespace {
            name: name.to_string(),
            runner: *runner,
            armed: true,
        }
    }

    /// The namespace's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Gives up ownership: the namespace stays after the handle drops.
    pub fn release(mut self) -> String {
        self.armed = false;
        std::mem::take(&mut self.name)
    }

    /// Stops the processes inside and deletes the namespace now.
    ///
    /// # Errors
    /// [`LabError::Command`] if `ip netns del` fails.
    pub fn remove(mut self) -> Result<(), LabError> {
        self.armed = false;
        cleanup::remove_namespace(&self.runner, &self.name).map(drop)
    }
}

impl Drop for Namespace {
    fn drop(&mut self) {
        if self.armed {
            if let Err(err) = cleanup::remove_namespace(&self.runner, &self.name) {
                eprintln!("dualperf: warning: leaving namespace `{}` behind ({err}); run `dualperf lab clean`", self.name);
            }
        }
    }
}

/// A veth pair this process created, known by its end A; deleted on drop
/// (deleting one end deletes both).
#[derive(Debug)]
pub struct VethPair {
    netns: String,
    interface: String,
    runner: Runner,
    armed: bool,
}

impl VethPair {
    /// Takes ownership of a pair created by a command that has already run.
    pub(crate) fn adopt(runner: &Runner, netns: &str, interface: &str) -> VethPair {
        VethPair {
            netns: netns.to_string(),
            interface: interface.to_string(),
            runner: *runner,
            armed: true,
        }
    }

    /// Gives up ownership: the pair stays after the handle drops.
    pub fn release(mut self) {
        self.armed = false;
    }

    /// Deletes the pair. Equivalent to `ip -n NETNS link del IFACE`.
    fn delete(&self) -> Result<(), LabError> {
        self.runner
            .run(&KernelCommand::ip([
                "-n",
                &self.netns,
                "link",
                "del",
                &self.interface,
            ]))
            .map(drop)
    }
}

impl Drop for VethPair {
    fn drop(&mut self) {
        if self.armed {
            if let Err(err) = self.delete() {
                eprintln!(
                    "dualperf: warning: could not delete veth `{}` in `{}` ({err}); deleting its namespace removes it",
                    self.interface, self.netns
                );
            }
        }
    }
}

/// Something removed by running a command (a tunnel or TUN device, a Jool
/// instance); the command runs on drop. Its failure is reported only when
/// the namespace still exists (deleting a namespace removes its devices).
#[derive(Debug)]
pub struct UndoCommand {
    command: KernelCommand,
    runner: Runner,
    armed: bool,
}

impl UndoCommand {
    /// Takes ownership of what `command` removes.
    pub(crate) fn adopt(runner: &Runner, command: KernelCommand) -> UndoCommand {
        UndoCommand {
            command,
            runner: *runner,
            armed: true,
        }
    }

    /// Gives up ownership.
    pub fn release(mut self) {
        self.armed = false;
    }
}

impl Drop for UndoCommand {
    fn drop(&mut self) {
        if self.armed {
            if let Err(err) = self.runner.run(&self.command) {
                eprintln!(
                    "dualperf: note: `{}` failed ({err}); deleting the namespace removes it",
                    self.command
                );
            }
        }
    }
}

/// A daemon started in a node that detached and wrote its pid to a file
/// (TAYGA). On drop it gets SIGTERM, then SIGKILL after a second, but only
/// if that pid still runs inside the node's namespace (a recycled pid is
/// never signalled). Removing the namespace stops it too, as it stops every
/// process inside; this handle makes the order explicit: daemon first.
#[derive(Debug)]
pub struct Daemon {
    netns: String,
    pid_file: std::path::PathBuf,
    armed: bool,
}

impl Daemon {
    /// Takes ownership of the daemon whose pid `pid_file` holds.
    pub(crate) fn adopt(netns: &str, pid_file: &std::path::Path) -> Daemon {
        Daemon {
            netns: netns.to_string(),
            pid_file: pid_file.to_path_buf(),
            armed: true,
        }
    }

    /// Gives up ownership: the daemon keeps running.
    pub fn release(mut self) {
        self.armed = false;
    }

    /// The daemon's pid, once it has written its pid file.
    pub fn pid(&self) -> Option<i32> {
        std::fs::read_to_string(&self.pid_file)
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    /// True when `pid` runs inside this daemon's namespace.
    fn runs_inside(&self, pid: i32) -> bool {
        use std::os::unix::fs::MetadataExt;
        let ours = std::fs::metadata(format!("/run/netns/{}", self.netns));
        let theirs = std::fs::metadata(format!("/proc/{pid}/ns/net"));
        match (ours, theirs) {
            (Ok(a), Ok(b)) => a.ino() == b.ino() && a.dev() == b.dev(),
            _ => false,
        }
    }

    /// Stops the daemon now (see the type's documentation).
    pub fn stop(&mut self) {
        self.armed = false;
        // A daemon may write its pid file just after its parent returns.
        let deadline = std::time::Instant::now() + std::time::Duration::from_millis(500);
        let mut pid = self.pid();
        while pid.is_none() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
            pid = self.pid();
        }
        let Some(pid) = pid.filter(|&p| p > 1 && self.runs_inside(p)) else {
            return;
        };
        // SAFETY: kill(2) has no memory-safety preconditions; the pid was
        // just checked to run inside the testbed's namespace.
        unsafe {
            libc::kill(pid, libc::SIGTERM);
        }
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(1);
        while self.runs_inside(pid) && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        if self.runs_inside(pid) {
            // SAFETY: as above.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if self.armed {
            self.stop();
        }
    }
}

/// The testbed's work directory; removed with its contents on drop.
#[derive(Debug)]
pub struct WorkDir {
    path: std::path::PathBuf,
    armed: bool,
}

impl WorkDir {
    /// Takes ownership of `path`.
    pub(crate) fn adopt(path: &std::path::Path) -> WorkDir {
        WorkDir {
            path: path.to_path_buf(),
            armed: true,
        }
    }

    /// Gives up ownership: the directory stays.
    pub fn release(mut self) {
        self.armed = false;
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        if self.armed {
            if let Err(err) = std::fs::remove_dir_all(&self.path) {
                if err.kind() != std::io::ErrorKind::NotFound {
                    eprintln!(
                        "dualperf: warning: could not remove `{}`: {err}",
                        self.path.display()
                    );
                }
            }
        }
    }
}

//! Owned kernel objects: a network namespace and a veth pair, each removed
//! when its handle drops.
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

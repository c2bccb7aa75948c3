//! One step of a build plan: a kernel command or a file the mechanisms need,
//! what it creates (so the testbed owns it), and the base sysctls of a node.
//!
//! [`crate::plan`] orders the steps; [`crate::mechanism`] contributes the
//! steps of the transition mechanisms. Both speak this vocabulary, which
//! therefore sits below both of them.

use std::fmt;
use std::net::Ipv4Addr;
use std::path::PathBuf;

use crate::bpf::Program;
use crate::command::KernelCommand;
use crate::topology::Role;

/// What a successful step created, so the testbed can own it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Creates {
    /// A network namespace.
    Namespace {
        /// Its name.
        netns: String,
    },
    /// A veth pair, named by its end A.
    Link {
        /// Namespace of end A.
        netns: String,
        /// Interface name of end A.
        interface: String,
    },
    /// Something removed by running a command: a tunnel or TUN device
    /// (`ip -n NETNS link del DEV`), a Jool instance.
    Undo {
        /// The command that removes it.
        command: KernelCommand,
    },
    /// A daemon that detached and wrote its process id to a file (TAYGA).
    Daemon {
        /// The namespace it runs in.
        netns: String,
        /// Its pid file.
        pid_file: PathBuf,
    },
    /// The testbed's work directory (BPF objects, TAYGA's configuration
    /// and state), removed with everything in it.
    Directory {
        /// The directory.
        path: PathBuf,
    },
}

/// Where a file's bytes come from, so `--dry-run` can say how to make it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileOrigin {
    /// Text shown in full.
    Text,
    /// An embedded BPF object with its sentinel addresses patched.
    Bpf {
        /// Which program.
        program: Program,
        /// This end's address (replaces 192.0.2.201).
        local: Ipv4Addr,
        /// The peer's address (replaces 192.0.2.202).
        peer: Ipv4Addr,
    },
}

/// One thing the build does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Run a command to completion; it must succeed.
    Run(KernelCommand),
    /// Create a directory (and its parents).
    MakeDir(PathBuf),
    /// Write a file.
    WriteFile {
        /// The file.
        path: PathBuf,
        /// Its bytes.
        contents: Vec<u8>,
        /// How a person would make the same file.
        origin: FileOrigin,
    },
}

/// One step of the plan and what it creates, if anything.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// What to do.
    pub action: Action,
    /// What it creates (addresses, qdiscs and routes die with their link or
    /// namespace and are not tracked separately).
    pub creates: Option<Creates>,
}

impl Step {
    pub(crate) fn plain(command: KernelCommand) -> Self {
        Step {
            action: Action::Run(command),
            creates: None,
        }
    }

    pub(crate) fn creating(command: KernelCommand, creates: Creates) -> Self {
        Step {
            action: Action::Run(command),
            creates: Some(creates),
        }
    }

    /// The command, when the step runs one.
    pub fn command(&self) -> Option<&KernelCommand> {
        match &self.action {
            Action::Run(command) => Some(command),
            _ => None,
        }
    }
}

impl fmt::Display for Step {
    /// What a person pastes into a root shell to do the same: the command,
    /// `mkdir -p`, a here-document for a text file, and for a BPF object the
    /// clang command that builds an equivalent one (after a comment saying
    /// what dualperf writes instead).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.action {
            Action::Run(command) => write!(f, "{command}"),
            Action::MakeDir(path) => write!(
                f,
                "{}",
                KernelCommand::new("mkdir", ["-p".to_string(), path.display().to_string()])
            ),
            Action::WriteFile {
                path,
                contents,
                origin: FileOrigin::Text,
            } => f.write_str(&crate::shell::here_document(
                &path.display().to_string(),
                &String::from_utf8_lossy(contents),
            )),
            Action::WriteFile {
                path,
                origin:
                    FileOrigin::Bpf {
                        program,
                        local,
                        peer,
                    },
                ..
            } => write!(
                f,
                "{}\n{} -o {}",
                crate::shell::comment(&format!(
                    "{}: the embedded crates/dualperf-lab/bpf/{} with 192.0.2.201 -> {local} and 192.0.2.202 -> {peer}; the same program from source:",
                    path.display(),
                    program.file_name(),
                )),
                program.clang_command(*local, *peer),
                crate::shell::quote(&path.display().to_string())
            ),
        }
    }
}

/// The `sysctl` settings a node of `role` gets, as `key=value` words (the
/// base every node has; [`crate::mechanism::node_sysctls`] adds those of
/// its stack and of the mechanisms it runs).
///
/// A host also gets `net.ipv6.flowlabel_consistency=0`, in its own
/// namespace only: Linux gives an accepted TCP connection a flow label
/// only by reflecting the client's (`IPV6_FL_F_REFLECT`, which the server
/// asks for when an arm has `-L`), and allows that only with the check
/// off (kernel net/ipv6/ip6_flowlabel.c), so the server's TCP packets of
/// a flow-label arm carry the arm's label (RFC 6437).
pub fn sysctls(role: Role) -> Vec<String> {
    let forwarding = match role {
        Role::Host => "0",
        Role::Router => "1",
    };
    let mut words = vec![
        "net.ipv6.conf.all.accept_dad=0".to_string(),
        "net.ipv6.conf.default.accept_dad=0".to_string(),
        format!("net.ipv4.ip_forward={forwarding}"),
        format!("net.ipv6.conf.all.forwarding={forwarding}"),
    ];
    if role == Role::Host {
        words.push("net.ipv6.flowlabel_consistency=0".to_string());
    }
    words
}

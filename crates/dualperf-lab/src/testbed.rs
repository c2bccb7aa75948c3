//! [`Testbed`]: a topology built in the kernel, owning everything it created.
//!
//! [`Testbed::build`] first probes the kernel features the topology needs and
//! fails before creating anything if one is missing (naming its module). It
//! then runs the [`crate::plan`] step by step; each namespace and veth pair
//! becomes an owned handle the moment its command succeeds. If a later step
//! fails, or the interrupt flag (set by a Ctrl-C handler) is raised, the
//! half-built testbed drops and removes what exists: no half-built testbed
//! remains. Dropping a built testbed removes it too; [`Testbed::keep`] is the
//! one way to leave it up (for `dualperf lab up`).

use std::ffi::OsString;
use std::net::{IpAddr, SocketAddr, TcpStream};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use dualperf_model::{IpFamily, TestbedFacts};

use crate::capability::{Capabilities, Feature};
use crate::command::{KernelCommand, Runner};
use crate::delay_line::{DelayLine, DelayLineStats};
use crate::emulation::{start_user_space, LinkEmulation};
use crate::error::{LabError, MissingFeature};
use crate::facts::testbed_facts;
use crate::mechanism::Implementations;
use crate::namespace::{Daemon, Namespace, UndoCommand, VethPair, WorkDir};
use crate::naming::{interface_name, namespace_name, LinkEnd, RunId};
use crate::plan::{build_plan, Action, Creates};
use crate::process::{run_in_namespace, NodeProcess};
use crate::topology::{Role, Topology};

/// How a testbed is built.
#[derive(Clone, Debug, Default)]
pub struct BuildOptions {
    /// Echo every kernel command to stderr before it runs.
    pub verbose: bool,
    /// When this becomes true (e.g. from a SIGINT handler), building stops
    /// and what was built is removed.
    pub interrupt: Option<Arc<AtomicBool>>,
    /// Where delay lines run: threads of this process, or processes of
    /// their own for a testbed that outlives its builder (`lab up`).
    pub delay_lines: crate::delay_line_process::DelayLineHost,
}

/// A built testbed. Dropping it stops the processes in its namespaces and
/// removes its veth pairs and namespaces.
#[derive(Debug)]
pub struct Testbed {
    // Field order is drop order: delay lines and daemons stop first, then
    // devices and instances go, veth pairs before their namespaces, the work
    // directory last.
    delay_lines: Vec<DelayLine>,
    daemons: Vec<Daemon>,
    undo: UndoStack,
    links: Vec<VethPair>,
    namespaces: Vec<Namespace>,
    work_dir: Option<WorkDir>,
    run: RunId,
    topology: Topology,
    capabilities: Capabilities,
    implementations: Implementations,
}

/// Undo commands, run last-created first.
#[derive(Debug, Default)]
struct UndoStack(Vec<UndoCommand>);

impl Drop for UndoStack {
    fn drop(&mut self) {
        while let Some(undo) = self.0.pop() {
            drop(undo);
        }
    }
}

/// The kernel features `topology` needs, each with what needs it.
pub fn required_features(topology: &Topology) -> Vec<(Feature, String)> {
    let mut needs = vec![
        (Feature::Veth, "every link".to_string()),
        (Feature::Ipv6, "every node".to_string()),
    ];
    for node in topology.nodes().iter().filter(|n| n.role == Role::Router) {
        needs.push((Feature::Forwarding, format!("router \"{}\"", node.name)));
    }
    for (index, link) in topology.links().iter().enumerate() {
        let names = link.ends.map(|n| topology.nodes()[n].name.as_str());
        for (end, shaping) in link.egress.iter().enumerate() {
            let Some(shaping) = shaping else { continue };
            let direction = format!("link[{index}] {}→{}", names[end], names[1 - end]);
            if let Some((qdisc, _)) = shaping.rate {
                let feature = match qdisc {
                    crate::topology::RateQdisc::Htb => Feature::Htb,
                    crate::topology::RateQdisc::Tbf => Feature::Tbf,
                };
                needs.push((feature, format!("{direction} rate")));
            }
        }
    }
    needs
}

/// Longest wait for every veth end to be usable by IPv6 after the build.
const LINK_READY_TIMEOUT: Duration = Duration::from_secs(5);

/// Waits until every veth end has its IPv6 link-local address.
///
/// The kernel handles a veth's carrier-up event in its link-watch work, which
/// may run up to a second later; until then IPv6 on that end ignores
/// neighbour solicitations, so the first IPv6 packet would wait a full
/// neighbour-discovery retransmission (1 s) while IPv4 would not — a false
/// IPv6 penalty in the first trial. The link-local address appears when the
/// event has been handled. Equivalent to polling
/// `ip -n NETNS -6 -o addr show dev IFACE scope link`.
fn wait_until_links_are_ready(
    runner: &Runner,
    topology: &Topology,
    run: &RunId,
    interrupt: Option<&AtomicBool>,
) -> Result<(), LabError> {
    let deadline = Instant::now() + LINK_READY_TIMEOUT;
    let quiet = Runner::new(false);
    for (index, link) in topology.links().iter().enumerate() {
        for end in LinkEnd::BOTH {
            if !topology.nodes()[link.node(end)].stack.has(IpFamily::V6) {
                continue; // IPv6 is disabled there: no link-local address will come
            }
            let netns = namespace_name(run, &topology.nodes()[link.node(end)].name);
            let interface = interface_name(run, index, end);
            let probe = KernelCommand::ip([
                "-n", &netns, "-6", "-o", "addr", "show", "dev", &interface, "scope", "link",
            ]);
            if runner.is_verbose() {
                eprintln!("+ {probe}   # repeated until a non-tentative fe80:: address shows");
            }
            loop {
                let output = quiet.run(&probe)?;
                let text = String::from_utf8_lossy(&output.stdout);
                if text.contains("fe80::") && !text.contains("tentative") {
                    break;
                }
                if interrupt.is_some_and(|flag| flag.load(Ordering::SeqCst)) {
                    return Err(LabError::Interrupted);
                }
                if Instant::now() >= deadline {
                    return Err(LabError::Timeout {
                        what: format!("veth `{interface}` in `{netns}` did not come up within {LINK_READY_TIMEOUT:?}"),
                    });
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }
    Ok(())
}

/// True when the calling thread's network namespace has a TCP socket in
/// state LISTEN (`0A` in `/proc/net/tcp`) on `port`.
fn is_listening(port: u16) -> bool {
    ["tcp", "tcp6"].iter().any(|table| {
        let text =
            std::fs::read_to_string(format!("/proc/thread-self/net/{table}")).unwrap_or_default();
        // Columns: sl local_address(hex ip:hex port) rem_address st …
        text.lines().skip(1).any(|line| {
            let columns: Vec<&str> = line.split_whitespace().collect();
            let local_port = columns
                .get(1)
                .and_then(|a| a.rsplit_once(':'))
                .map(|(_, p)| p);
            local_port.and_then(|p| u16::from_str_radix(p, 16).ok()) == Some(port)
                && columns.get(3) == Some(&"0A")
        })
    })
}

impl Testbed {
    /// Builds `topology` for run `run`.
    ///
    /// # Errors
    /// [`LabError::NamespacesUnavailable`] without root / CAP_NET_ADMIN;
    /// [`LabError::MissingFeatures`] (nothing built) when the kernel lacks a
    /// feature the topology needs; [`LabError::Command`] when a step fails and
    /// [`LabError::Interrupted`] when interrupted (both after removing what
    /// was built).
    pub fn build(
        topology: &Topology,
        run: &RunId,
        options: &BuildOptions,
    ) -> Result<Testbed, LabError> {
        let runner = Runner::new(options.verbose);
        let capabilities = Capabilities::probe_all(&runner, run)?;
        let mut missing: Vec<MissingFeature> = required_features(topology)
            .into_iter()
            .filter(|(feature, _)| !capabilities.has(*feature))
            .map(|(feature, needed_by)| MissingFeature { feature, needed_by })
            .collect();
        let implementations = match Implementations::choose(topology, &capabilities) {
            Ok(implementations) => Some(implementations),
            Err(LabError::MissingFeatures { missing: more }) => {
                missing.extend(more);
                None
            }
            Err(other) => return Err(other),
        };
        let (true, Some(implementations)) = (missing.is_empty(), implementations) else {
            return Err(LabError::MissingFeatures { missing });
        };
        let mut testbed = Testbed {
            delay_lines: Vec::new(),
            daemons: Vec::new(),
            undo: UndoStack::default(),
            links: Vec::new(),
            namespaces: Vec::new(),
            work_dir: None,
            run: run.clone(),
            topology: topology.clone(),
            capabilities,
            implementations,
        };
        for step in build_plan(topology, run, &testbed.implementations) {
            if options
                .interrupt
                .as_ref()
                .is_some_and(|flag| flag.load(Ordering::SeqCst))
            {
                return Err(LabError::Interrupted);
            }
            testbed.execute(&runner, &step.action)?;
            match step.creates {
                Some(Creates::Namespace { netns }) => {
                    testbed.namespaces.push(Namespace::adopt(&runner, &netns))
                }
                Some(Creates::Link { netns, interface }) => {
                    testbed
                        .links
                        .push(VethPair::adopt(&runner, &netns, &interface));
                }
                Some(Creates::Undo { command }) => {
                    testbed.undo.0.push(UndoCommand::adopt(&runner, command));
                }
                Some(Creates::Daemon { netns, pid_file }) => {
                    testbed.daemons.push(Daemon::adopt(&netns, &pid_file));
                }
                Some(Creates::Directory { path }) => {
                    testbed.work_dir = Some(WorkDir::adopt(&path));
                }
                None => {}
            }
        }
        if testbed.implementations.link_emulation == LinkEmulation::BpfDelayLine {
            let user_space = start_user_space(&runner, topology, run, &options.delay_lines)?;
            testbed.delay_lines = user_space.lines;
            if !user_space.daemons.is_empty() && testbed.work_dir.is_none() {
                // Their pid files and logs live there; removed with the testbed.
                testbed.work_dir = Some(WorkDir::adopt(&crate::naming::work_dir(run)));
            }
            testbed.daemons.extend(user_space.daemons);
        }
        wait_until_links_are_ready(&runner, topology, run, options.interrupt.as_deref())?;
        Ok(testbed)
    }

    /// Does one step's action.
    fn execute(&mut self, runner: &Runner, action: &Action) -> Result<(), LabError> {
        let io_error = |path: &std::path::Path, source| LabError::WorkFile {
            path: path.to_path_buf(),
            source,
        };
        match action {
            Action::Run(command) => runner.run(command).map(drop),
            Action::MakeDir(path) => {
                if runner.is_verbose() {
                    eprintln!("+ mkdir -p {}", path.display());
                }
                std::fs::create_dir_all(path).map_err(|e| io_error(path, e))
            }
            Action::WriteFile { path, contents, .. } => {
                if runner.is_verbose() {
                    eprintln!("+ write {} ({} bytes)", path.display(), contents.len());
                }
                std::fs::write(path, contents).map_err(|e| io_error(path, e))
            }
        }
    }

    /// The implementation each tunnel and translator got on this kernel.
    pub fn implementations(&self) -> &Implementations {
        &self.implementations
    }

    /// The pids of the daemons the testbed runs (TAYGA), once they wrote
    /// their pid files: for CPU accounting next to a NAT64 result.
    pub fn daemon_pids(&self) -> Vec<i32> {
        self.daemons.iter().filter_map(Daemon::pid).collect()
    }

    /// How delay, jitter and loss are made on this testbed.
    pub fn link_emulation(&self) -> LinkEmulation {
        self.implementations.link_emulation
    }

    /// The counters of each running delay line, with its TAP's name.
    pub fn delay_line_stats(&self) -> Vec<(String, DelayLineStats)> {
        self.delay_lines
            .iter()
            .map(|line| (line.config().tap.clone(), line.stats()))
            .collect()
    }

    /// The run id in every name.
    pub fn run_id(&self) -> &RunId {
        &self.run
    }

    /// The topology it was built from.
    pub fn topology(&self) -> &Topology {
        &self.topology
    }

    /// The kernel features probed before building.
    pub fn capabilities(&self) -> &Capabilities {
        &self.capabilities
    }

    /// The record to store with results, with notes on missing kernel features.
    pub fn facts(&self) -> TestbedFacts {
        testbed_facts(
            &self.topology,
            &self.run,
            &self.implementations,
            self.capabilities.notes(),
        )
    }

    fn node_index(&self, node: &str) -> Result<usize, LabError> {
        self.topology
            .node_index(node)
            .ok_or_else(|| LabError::UnknownNode {
                name: node.to_string(),
                nodes: self
                    .topology
                    .nodes()
                    .iter()
                    .map(|n| n.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }

    /// The network namespace of `node`.
    ///
    /// # Errors
    /// [`LabError::UnknownNode`].
    pub fn netns(&self, node: &str) -> Result<String, LabError> {
        self.node_index(node)
            .map(|_| namespace_name(&self.run, node))
    }

    /// The address of `node` in `family` on its first link of that family
    /// (for a host, its address).
    ///
    /// # Errors
    /// [`LabError::UnknownNode`]; [`LabError::NoAddress`] for a
    /// single-stack node asked for the other family.
    pub fn address(&self, node: &str, family: IpFamily) -> Result<IpAddr, LabError> {
        let index = self.node_index(node)?;
        self.topology
            .address(index, family)
            .map(|a| a.address)
            .ok_or_else(|| LabError::NoAddress {
                node: node.to_string(),
                family,
                stack: self.topology.nodes()[index].stack.key().to_string(),
            })
    }

    /// Runs `work` on a thread inside `node`'s namespace (real sockets there).
    ///
    /// # Errors
    /// [`LabError::UnknownNode`], [`LabError::EnterNamespace`].
    pub fn in_node<T: Send>(
        &self,
        node: &str,
        work: impl FnOnce() -> T + Send,
    ) -> Result<T, LabError> {
        run_in_namespace(&self.netns(node)?, work)
    }

    /// Starts `program args…` inside `node`; the returned handle stops it on drop.
    ///
    /// # Errors
    /// [`LabError::UnknownNode`], [`LabError::Spawn`].
    pub fn spawn(
        &self,
        node: &str,
        program: impl Into<OsString>,
        args: &[OsString],
        stdout: Stdio,
        stderr: Stdio,
    ) -> Result<NodeProcess, LabError> {
        NodeProcess::spawn(&self.netns(node)?, &program.into(), args, stdout, stderr)
    }

    /// Waits until a TCP connection from `from_node` to `target` succeeds
    /// (a server has started listening), polling every 50 ms.
    ///
    /// # Errors
    /// [`LabError::Timeout`] after `timeout`; [`LabError::Interrupted`] when
    /// `interrupt` is raised; [`LabError::UnknownNode`], [`LabError::EnterNamespace`].
    pub fn wait_for_tcp_listener(
        &self,
        from_node: &str,
        target: SocketAddr,
        timeout: Duration,
        interrupt: Option<&AtomicBool>,
    ) -> Result<(), LabError> {
        let deadline = Instant::now() + timeout;
        loop {
            if self
                .in_node(from_node, || {
                    TcpStream::connect_timeout(&target, Duration::from_millis(200))
                })?
                .is_ok()
            {
                return Ok(());
            }
            if interrupt.is_some_and(|flag| flag.load(Ordering::SeqCst)) {
                return Err(LabError::Interrupted);
            }
            if Instant::now() >= deadline {
                return Err(LabError::Timeout {
                    what: format!("nothing listened on {target} (seen from node `{from_node}`) within {timeout:?}"),
                });
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits until some socket in `node` listens on TCP `port` (any address,
    /// either family), polling every 50 ms, without connecting to it, so the
    /// server sees no probe connections. Reads `/proc/thread-self/net/tcp`
    /// and `tcp6` from a thread inside the node, as `ss -ltn` there would.
    ///
    /// # Errors
    /// [`LabError::Timeout`] after `timeout`; [`LabError::Interrupted`] when
    /// `interrupt` is raised; [`LabError::UnknownNode`], [`LabError::EnterNamespace`].
    pub fn wait_for_listening_port(
        &self,
        node: &str,
        port: u16,
        timeout: Duration,
        interrupt: Option<&AtomicBool>,
    ) -> Result<(), LabError> {
        let deadline = Instant::now() + timeout;
        loop {
            if self.in_node(node, || is_listening(port))? {
                return Ok(());
            }
            if interrupt.is_some_and(|flag| flag.load(Ordering::SeqCst)) {
                return Err(LabError::Interrupted);
            }
            if Instant::now() >= deadline {
                return Err(LabError::Timeout {
                    what: format!(
                        "nothing in node `{node}` listened on TCP port {port} within {timeout:?}"
                    ),
                });
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Leaves the testbed up after this handle is gone (for `dualperf lab up`);
    /// remove it later with [`crate::cleanup::clean`] on its run prefix.
    pub fn keep(mut self) -> RunId {
        if !self.delay_lines.is_empty() {
            eprintln!(
                "warning: this testbed's delay lines are threads of this process; they stop when it exits, and the delayed link directions then drop every packet (build it with processes: BuildOptions::delay_lines)."
            );
        }
        for daemon in self.daemons.drain(..) {
            daemon.release();
        }
        for undo in self.undo.0.drain(..) {
            undo.release();
        }
        if let Some(dir) = self.work_dir.take() {
            dir.release();
        }
        for link in self.links.drain(..) {
            link.release();
        }
        for namespace in self.namespaces.drain(..) {
            namespace.release();
        }
        self.run.clone()
    }

    /// Removes the testbed now, reporting the first failure (drop does the
    /// same but can only print warnings).
    ///
    /// # Errors
    /// [`LabError::Command`] if a namespace cannot be deleted.
    pub fn teardown(mut self) -> Result<(), LabError> {
        // Daemons stop and devices go first; links vanish with their
        // namespaces; dropping the handles deletes them explicitly in case
        // something else holds a namespace open.
        self.delay_lines.clear();
        self.daemons.clear();
        self.undo.0.clear();
        self.links.clear();
        let mut first_error = None;
        for namespace in self.namespaces.drain(..) {
            if let Err(err) = namespace.remove() {
                first_error.get_or_insert(err);
            }
        }
        self.work_dir = None;
        first_error.map_or(Ok(()), Err)
    }
}

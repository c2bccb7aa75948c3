//! Emulated dual-stack testbeds in Linux network namespaces, and kernel
//! capability detection: the `lab` stage of dualperf.
//!
//! **Input:** a [`Topology`] — nodes (hosts and routers) and links (veth
//! pairs) with MTUs, optional subnets and optional shaping — written as TOML
//! (a built-in [`preset`] or a file) and validated once.
//! **Output:** a [`Testbed`]: one network namespace per node
//! (`dsp-<run>-<node>`), veth pairs between them, IPv4 and IPv6 addresses on
//! every link, static routes along shortest paths for both families,
//! forwarding on routers, and tc qdiscs for rate, queue, delay and loss;
//! plus [`TestbedFacts`](dualperf_model::TestbedFacts) to store with results.
//!
//! **Transition mechanisms** ([`mechanism`], [`topology::transition`]): a
//! topology may add `[[tunnel]]`s (6in4, 4in6) and `[[translator]]`s
//! (NAT64); each is built with the kernel device or module where this
//! kernel has it (sit, ip6tnl, Jool) and otherwise with the proven recipe
//! (LWT-BPF 6in4 with the embedded objects of [`bpf`], SRv6 4in6, TAYGA).
//! [`Topology::arms`] lists every path from the client to a server node as
//! an arm with its target address; the facts record which implementation
//! ran. See `docs/transition-mechanisms.md`.
//!
//! **Invariant:** everything created here has an owner that removes it on
//! drop — also when building fails half-way or is interrupted — and carries
//! the `dsp` prefix so [`cleanup::clean`] can find what a killed process
//! left. This is the only crate that needs CAP_NET_ADMIN.
//!
//! Kernel state changes go through `ip`, `tc` and `nft` with explicit
//! argument vectors ([`command`]); the whole build is a pure [`plan`] first,
//! so `--dry-run` prints exactly the commands a user can paste to build the
//! same testbed by hand. `setns` moves only the calling thread, so work
//! inside a node runs on a dedicated thread ([`Testbed::in_node`]) or in a
//! child started with `ip netns exec` ([`Testbed::spawn`]).
//!
//! ```no_run
//! use dualperf_lab::{preset, BuildOptions, RunId, Testbed};
//!
//! let topology = preset::load("router")?;
//! let testbed = Testbed::build(&topology, &RunId::unique(), &BuildOptions::default())?;
//! let server = testbed.address("server", dualperf_model::IpFamily::V6)?;
//! // … measure from "client" to `server` …
//! drop(testbed); // namespaces, veths and processes are gone
//! # Ok::<(), dualperf_lab::LabError>(())
//! ```

pub mod addressing;
mod arms;
pub mod bottleneck;
pub mod bpf;
pub mod capability;
pub mod cleanup;
pub mod command;
pub mod delay_line;
pub mod delay_line_process;
pub mod diffserv;
pub mod diffserv_counters;
pub mod emulation;
mod error;
pub mod facts;
pub mod feature;
pub mod link_rate;
pub mod mechanism;
pub mod namespace;
pub mod naming;
pub mod path_faults;
pub mod plan;
pub mod preset;
pub mod process;
pub mod shaping;
pub mod shell;
pub mod state;
pub mod steering;
pub mod step;
pub mod testbed;
pub mod topology;

pub use capability::{can_create_namespaces, Availability, Capabilities, Feature};
pub use command::{KernelCommand, Runner};
pub use emulation::LinkEmulation;
pub use error::{LabError, MissingFeature, TopologyError};
pub use mechanism::Implementations;
pub use naming::RunId;
pub use process::{NodeProcess, SchedStat};
pub use testbed::{required_features, BuildOptions, Testbed};
pub use topology::{Implementation, Topology};

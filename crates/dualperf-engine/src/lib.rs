//! The measuring engine: sockets, traffic generators, meters, CPU sampling,
//! the control protocol, the server ([`server::Server`]) and the client
//! ([`client::Client`], [`client::run_plan`]).
//!
//! # Stage
//!
//! Input: a [`dualperf_model::RunConfig`] (points × arms × repetitions).
//! Output: a [`dualperf_model::RunResult`] with one [`dualperf_model::Trial`]
//! per repetition holding raw [`dualperf_model::Observations`]. No statistics
//! are computed here: the engine counts, the stats crate concludes.
//!
//! # Layout
//!
//! | module | holds |
//! |---|---|
//! | [`protocol`] | the control channel: framing (u32 length + JSON), messages, the handshake as sans-IO state machines, HMAC challenge-response |
//! | [`limits`] | the protocol's bounds (both ends) and what a server accepts (duration, rate, streams, memory, sessions, timeouts) |
//! | [`server`] | `dualperf serve`: one non-blocking accept loop for every handshake, one thread per admitted session, data sockets per test |
//! | [`client`] | one trial against a server, and the whole plan |
//! | [`peer`] | clients for far ends dualperf does not run (iperf3 servers) |
//! | [`endpoint`] | one end of a running test: its flows by role, the sampler, what they counted |
//! | [`flow`] | the data paths shared by both ends: tcp-stream, udp-stream, udp-probe, rr, connect |
//! | [`meter`] | per-flow atomic counters and the sampler thread that turns them into intervals |
//! | [`datagram`] | the udp-stream / udp-probe / udp-rr datagram header codec |
//! | [`sizes`] | size presets and the per-family datagram limits |
//! | [`clock`] | the two clocks the engine reads and why |
//! | [`host_facts`] | the conditions of a measurement (kernel, CPU, MTU, qdisc…) |
//! | [`cpu`] | process CPU (`getrusage`) and system CPU (`/proc/stat`) over an interval |
//! | [`tcp_info`] | `TCP_INFO` counters (segments, retransmissions, RTT) |
//! | [`affinity`] | CPU lists and thread pinning |
//! | [`socket_options`] | buffer sizes, kernel receive timestamps, path MTU, DSCP |
//! | [`sequence_tracker`] | UDP loss, duplicates, reordering (RFC 4737), jitter (RFC 3550) |
//! | [`latency_recorder`] | per-transaction times in an HDR histogram plus a raw prefix |
//!
//! # A trial on the wire
//!
//! ```text
//! client                                   server
//!   Hello{magic, version}           ──>
//!                                   <──    Welcome{challenge?, boot_id unless challenged}
//!   Authenticate{hmac}  (if asked)  ──>
//!                                   <──    Authenticated{boot_id}
//!   Request{spec, family, cpus}     ──>    (limits checked, data sockets bound)
//!                                   <──    Ready{data ports, token, seen family}
//!   data connections / UDP hellos   ──>
//!   Start                           ──>    (flows + sampler start)
//!                                   <──    Started
//!          … warm-up, measured interval, sampler writes intervals …
//!   Stop{what the client sent}      ──>
//!                                   <──    Results{server counters, CPU, host facts}
//!   Bye                             ──>
//! ```
//!
//! # Invariants
//!
//! - No async runtime: one OS thread per session and per flow; connections
//!   still in their handshake share one accept thread (`poll`) and cost no
//!   thread of their own.
//! - Socket loops only count (atomics) and hand timestamps to the sequence
//!   tracker or latency recorder; a separate sampler thread reads counters.
//! - The server sends data only to the IP address that opened the control
//!   session: TCP data connections from another address are refused and UDP
//!   sockets are `connect()`ed to a hello datagram from that address.
//! - Malformed control input ends that session with a logged reason; nothing
//!   a peer sends can panic the server.
//! - The tool must not invent loss: UDP receive buffers are sized to hold
//!   thousands of datagrams, and datagrams the receiving socket still drops
//!   (`SO_RXQ_OVFL`) are reported apart from loss on the path.
//! - IPv4 data really goes through IPv4 sockets at both ends: the server's
//!   data sockets are bound to the canonical (unmapped) address the client
//!   reached, so only the control channel uses the dual-stack listener.
//! - The family a session really used is derived with
//!   [`dualperf_model::IpFamily::of`]: an IPv4-mapped peer counts as IPv4.

pub use limits::admission;
pub mod affinity;
pub mod client;
pub mod clock;
pub mod congestion;
pub mod cpu;
pub mod datagram;
pub mod endpoint;
pub mod error;
pub mod flow;
pub mod host_facts;
pub mod latency_recorder;
pub mod limits;
pub mod meter;
pub mod pacer;
pub mod protocol;
pub mod router_cpu;
pub mod schedstat;
pub mod sequence_tracker;
pub mod server;
pub mod sizes;
pub mod socket_options;
pub mod stamp;
pub mod tcp_info;
pub mod tuning;

pub use error::{EngineError, Result};

/// The well-known control port: 5180, after RFC 5180 ("IPv6 Benchmarking
/// Methodology for Network Interconnect Devices").
pub const DEFAULT_PORT: u16 = 5180;

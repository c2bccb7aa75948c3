//! Sockets, traffic generators, meters, CPU sampling, the control protocol and the server.
//!
//! (Skeleton: the owning issue fills this crate in.)
//!
//! Meters and OS probes (used by the generators and the server):
//!
//! - [`host_facts`]: the conditions of a measurement (kernel, CPU, MTU, qdisc…);
//! - [`cpu`]: process CPU (`getrusage`) and system CPU (`/proc/stat`) over an interval;
//! - [`tcp_info`]: `TCP_INFO` counters (segments, retransmissions, RTT);
//! - [`affinity`]: CPU lists and thread pinning;
//! - [`socket_options`]: buffer sizes, kernel receive timestamps, path MTU, DSCP;
//! - [`sequence_tracker`]: UDP loss, duplicates, reordering (RFC 4737), jitter (RFC 3550);
//! - [`latency_recorder`]: per-transaction times in an HDR histogram plus a raw prefix.

pub mod affinity;
pub mod cpu;
pub mod host_facts;
pub mod latency_recorder;
pub mod sequence_tracker;
pub mod socket_options;
pub mod tcp_info;

//! Path probes: where is IPv6 (or IPv4) "up but broken"?
//!
//! **Input:** a target address per family and [`Bounds`] (packets per
//! second, probes in total, hop limit, time). **Output:** the full
//! [`FamilyEvidence`] of every probe that was sent and what came back, and
//! the pure [`verdict`]s drawn from it.
//!
//! What is probed, per family ([`probe::probe_family`]):
//! - **path MTU**, packetization-layer style (RFC 8899): unfragmentable UDP
//!   probes of growing size (binary search, `IP_PMTUDISC_PROBE` /
//!   `IPV6_PMTUDISC_PROBE`: DF set, the kernel's PMTU ignored) acknowledged
//!   by the `dualperf serve` [`responder`], or ICMP echo against any host;
//!   and classic PMTUD (RFC 1191, RFC 8201): every ICMP error the probes
//!   draw is read from the socket's error queue (`IP_RECVERR`), with the
//!   MTU it announces and the hop that sent it ([`icmp`]);
//! - a **black hole**: large probes lost, small ones delivered, no Packet
//!   Too Big; a sweep of the hop limit with large probes finds the last hop
//!   they reach;
//! - **fragments**: IPv4 with DF clear and IPv6 Fragment headers (RFC 8200
//!   §4.5), delivered or not, at which sizes;
//! - **extension headers** (RFC 7872): Destination Options and Hop-by-Hop
//!   Options headers of 8 B and larger and a Fragment header on a small
//!   packet, and with a hop-limit sweep the hop after which they disappear;
//! - **TCP's view**: the MSS the connection settles on (`TCP_MAXSEG`).
//!
//! Probes go only to the target they are given, one at a time, paced and
//! counted by a [`bounds::Budget`]. Everything here is blocking socket code
//! with explicit timeouts; no async runtime.

mod atomic;
pub mod bounds;
pub mod evidence;
pub mod exthdr;
pub mod icmp;
pub mod probe;
pub mod responder;
mod sock;
pub mod transport;
pub mod verdict;
pub mod wire;

mod error;

pub use bounds::Bounds;
pub use error::PathError;
pub use evidence::{FamilyEvidence, PathEvidence};
pub use verdict::{judge, FamilyVerdicts};

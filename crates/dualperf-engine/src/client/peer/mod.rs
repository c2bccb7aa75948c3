//! Clients for far ends that dualperf does not run
//! ([`dualperf_model::PeerKind`]): each speaks another implementation's
//! protocol and returns the same [`crate::client::TrialReport`] as a trial
//! against `dualperf serve`, so arms, repetitions, statistics and reports
//! work unchanged.
//!
//! | module | peer |
//! |---|---|
//! | [`iperf3`] | an iperf3 3.x server (esnet/iperf): tcp-stream, udp-stream |
//!
//! | [`stamp`] | a STAMP Session-Reflector (RFC 8762): udp-probe |

pub mod iperf3;
pub mod stamp;

//! Integration tests of the engine: real sockets over loopback, between
//! network namespaces, and hostile input on the control port.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

mod admission;
mod bad_input;
mod hardening;
mod iperf3_loopback;
mod link_series;
mod live_intervals;
mod load;
mod loopback;
mod netns;
mod probe;
mod probe_lab;
mod probe_netns;
mod send_budget;
mod support;

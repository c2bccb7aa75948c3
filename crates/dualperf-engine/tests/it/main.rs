//! Integration tests of the engine: real sockets over loopback, between
//! network namespaces, and hostile input on the control port.

mod bad_input;
mod hardening;
mod loopback;
mod netns;
mod probe;
mod probe_lab;
mod probe_netns;
mod support;

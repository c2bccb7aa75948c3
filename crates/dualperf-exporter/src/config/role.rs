//! What a table of settings describes (a scheduled `[[target]]` or a
//! `/probe` `[module.NAME]`), and the defaults each peer kind gives both.
//! Validation and the module tables both read these, so they sit below both.

use dualperf_model::{PeerKind, TestKind};

use super::DEFAULT_TESTS;

/// What a table of settings describes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Role {
    /// A `[[target]]`, compared on a schedule.
    Target,
    /// A `[module.NAME]`, measured when `/probe` asks.
    Module(String),
}

impl Role {
    /// The key of `field` in error messages: `target "x": field`,
    /// `module "x": field`.
    pub(super) fn key(&self, name: &str, field: &str) -> String {
        match self {
            Role::Target => format!("target \"{name}\": {field}"),
            Role::Module(_) => format!("module \"{name}\": {field}"),
        }
    }
}

/// The port of `peer` when `port` is not set: 5180 for `dualperf serve`,
/// 5201 for iperf3, 862 for STAMP (RFC 8762).
pub(super) fn default_port(peer: PeerKind) -> u16 {
    match peer {
        PeerKind::Dualperf => 5180,
        PeerKind::Iperf3 => 5201,
        PeerKind::Stamp => 862,
    }
}

/// The tests when `tests` is not set.
pub(super) fn default_tests(peer: PeerKind) -> Vec<TestKind> {
    match peer {
        PeerKind::Iperf3 => vec![TestKind::TcpStream],
        _ => DEFAULT_TESTS.to_vec(),
    }
}

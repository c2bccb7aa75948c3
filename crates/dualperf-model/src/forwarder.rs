//! A user-space forwarder on an arm's path as a cause of its difference
//! (issue 14): the lab's TAYGA (NAT64 through a TUN device) forwards every
//! packet in one thread, so when it keeps a whole core busy it, not the
//! address family, sets the arm's rate. docs/metrics.md ("Attribution",
//! `forwarder`) defines the part.

use serde::{Deserialize, Serialize};

/// The forwarder's share of an [`crate::Attribution`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ForwarderPart {
    /// Cores the path's user-space forwarder kept busy during the arm's
    /// measured intervals (mean over the arm's trials), e.g. 0.97.
    pub cores: f64,
    /// Its CPU time per packet it forwarded in the data direction,
    /// nanoseconds; `None` when the packet count is unknown.
    pub ns_per_packet: Option<f64>,
    /// The change it explains (relative): what the header, encapsulation,
    /// fragmentation and CPU parts leave of the measured difference.
    pub explained: f64,
}

//! The STAMP Session-Sender as a peer client: one arm's trial against a
//! STAMP Session-Reflector (RFC 8762), with the client's options (key,
//! clock declaration) turned into the sender's settings
//! ([`crate::stamp::sender`] sends, receives and accounts).

use std::net::{SocketAddr, UdpSocket};

use dualperf_model::TestSpec;

use crate::client::ClientOptions;
use crate::stamp::auth::StampKey;
use crate::stamp::sender::{run_trial, SenderSettings, StampTrial};

/// One trial of `arm` against the reflector at `target`, with the
/// client's options: its shared key makes the session authenticated, its
/// `clocks_synchronised` declaration allows one-way delays between hosts.
/// A reflector at an address of this host shares its clock.
///
/// # Errors
/// As [`run_trial`]; also a key shorter than 16 bytes, or an arm STAMP
/// cannot measure (an arm under a load: loads run against dualperf servers).
pub fn run_arm_trial(
    target: SocketAddr,
    spec: &TestSpec,
    arm: &dualperf_model::Arm,
    options: &ClientOptions,
) -> Result<StampTrial, String> {
    if arm.load != dualperf_model::LoadCondition::Idle {
        return Err(format!(
            "arm {} ({}): a load needs dualperf servers; a STAMP peer is measured idle",
            arm.id, arm.label
        ));
    }
    let key = options.auth_key.as_deref().map(StampKey::new).transpose()?;
    // An address this host can bind is one of its own: same kernel, same clock.
    let clocks_shared = UdpSocket::bind(SocketAddr::new(target.ip(), 0)).is_ok();
    let settings = SenderSettings {
        key,
        clocks_shared,
        clocks_synchronised: options.clocks_synchronised,
    };
    run_trial(target, spec, &arm.marking, &settings)
}

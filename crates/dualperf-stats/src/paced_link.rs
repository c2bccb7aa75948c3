//! A paced udp-stream across a shaped path: what the header model predicts
//! for its received goodput.
//!
//! Every arm is asked for the same payload rate `r` (bit/s, all streams
//! together). The slowest shaped hop in the data's direction lets through
//! `R` bit/s of frames, counted as htb counts them on a veth: the frame the
//! kernel hands the device (payload + UDP 8 + IP header + 14 B Ethernet
//! header, no preamble, FCS or gap; fragments each with their own headers).
//! A datagram of `s` payload bytes in `f` frame bytes therefore arrives at
//!
//! ```text
//! goodput = min(r, R · s / f)
//! ```
//!
//! so a pace below both families' ceilings predicts no difference, and a
//! pace above both (the lab's default paces at the link rate) predicts the
//! ratio of the frames: 1024 B over IPv6 against IPv4,
//! 1066 / 1086 − 1 = −1.84 %. Between the two ceilings only the larger
//! header's arm is cut. Fragmented datagrams above the ceiling get no
//! prediction: a datagram is lost with any of its fragments. The sender keeps its pace either way, so only
//! received goodput and received packets per second are predicted.

use crate::overhead::{message_cost, OverheadSettings, PathKind};

/// Received goodput, bit/s, of datagrams of `size_bytes` paced at
/// `offered_bps` (payload, all streams) on `path` with `mtu_bytes`, through
/// a shaper of `bottleneck_bps`; `None` when the datagram does not fit the
/// path at all, or is fragmented and paced above the ceiling (a datagram is
/// lost with any of its fragments, so the loss depends on which fragments
/// the shaper drops: lab router, 4096 B at 100 Mbit/s, measured IPv4 84,
/// IPv6 39 Mbit/s with CIs of ±80 %).
pub fn received_goodput_bps(
    offered_bps: f64,
    size_bytes: u32,
    path: PathKind,
    mtu_bytes: u32,
    bottleneck_bps: u64,
) -> Option<f64> {
    // htb counts the skb: Ethernet header, no on-wire extras.
    let settings = OverheadSettings::linux(mtu_bytes);
    let cost = message_cost(path, &settings, size_bytes).ok()?;
    let ceiling = cost.expected_goodput_bps(bottleneck_bps as f64);
    // A shaper that drops fragments loses every datagram one of them
    // belonged to: how many depends on which it drops, not on the bytes.
    (!cost.fragmented || offered_bps <= ceiling).then_some(offered_bps.min(ceiling))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::overhead::Transport;
    use dualperf_model::IpFamily;

    const HUNDRED_MBIT: u64 = 100_000_000;

    fn goodput(family: IpFamily, offered: f64, size: u32) -> f64 {
        let path = PathKind::plain(family, Transport::Udp);
        received_goodput_bps(offered, size, path, 1500, HUNDRED_MBIT).unwrap()
    }

    #[test]
    fn a_pace_at_the_link_rate_is_cut_to_each_familys_frame_ratio() {
        let offered = HUNDRED_MBIT as f64;
        let v4 = goodput(IpFamily::V4, offered, 1024);
        let v6 = goodput(IpFamily::V6, offered, 1024);
        // 1024 + 8 + 20 + 14 = 1066 B; IPv6 1086 B.
        assert!((v4 - offered * 1024.0 / 1066.0).abs() < 1.0, "{v4}");
        assert!((v6 / v4 - 1066.0 / 1086.0).abs() < 1e-12, "{}", v6 / v4);
    }

    #[test]
    fn a_pace_below_both_ceilings_arrives_whole() {
        let offered = 50e6;
        assert_eq!(goodput(IpFamily::V4, offered, 1024), offered);
        assert_eq!(goodput(IpFamily::V6, offered, 1024), offered);
    }

    #[test]
    fn between_the_ceilings_only_the_bigger_header_is_cut() {
        // IPv4 ceiling 96.06 Mbit/s, IPv6 94.29: a 95 Mbit/s pace.
        let offered = 95e6;
        assert_eq!(goodput(IpFamily::V4, offered, 1024), offered);
        assert!(goodput(IpFamily::V6, offered, 1024) < offered);
    }

    #[test]
    fn fragmented_datagrams_above_the_ceiling_are_not_predicted() {
        let path = PathKind::plain(IpFamily::V4, Transport::Udp);
        assert_eq!(
            received_goodput_bps(100e6, 4096, path, 1500, HUNDRED_MBIT),
            None
        );
        assert_eq!(
            received_goodput_bps(50e6, 4096, path, 1500, HUNDRED_MBIT),
            Some(50e6)
        );
    }
}

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
//! pace above both (the lab's default paces 25 % above the link rate) predicts the
//! ratio of the frames: 1024 B over IPv6 against IPv4,
//! 1066 / 1086 − 1 = −1.84 %. Between the two ceilings only the larger
//! header's arm is cut. Fragmented datagrams above the ceiling get no
//! prediction: a datagram is lost with any of its fragments. The sender keeps its pace either way, so only
//! received goodput and received packets per second are predicted.

use dualperf_model::IpFamily;

use crate::overhead::{message_cost, OverheadSettings, PathKind, Transport};

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

/// What a native UDP datagram of `size_bytes` costs on a `mtu_bytes` link
/// as htb counts it (Linux settings); `None` when it fits no path.
fn udp_cost(
    family: IpFamily,
    size_bytes: u32,
    mtu_bytes: u32,
) -> Option<crate::overhead::MessageCost> {
    let settings = OverheadSettings::linux(mtu_bytes);
    message_cost(
        PathKind::plain(family, Transport::Udp),
        &settings,
        size_bytes,
    )
    .ok()
}

/// Share of the lower ceiling a fragmented datagram is paced at when no
/// pace is asked for: 97 %, so the drop-tail queue never fills.
pub const FRAGMENTED_PACE_SHARE: f64 = 0.97;

/// The pace, payload bit/s, that carries datagrams of `size_bytes` across
/// a shaper of `bottleneck_bps` without loss in either family, when they
/// are fragmented in either on a `mtu_bytes` link: [`FRAGMENTED_PACE_SHARE`]
/// of the lower of IPv4's and IPv6's ceilings `R · s / f`. `None` when
/// neither family fragments them (those are paced above the link: each
/// family then gets its own ceiling, the comparison the header model
/// predicts) or they fit no path. Above a ceiling a datagram is lost with
/// any of its fragments: paced 25 % above a 100 Mbit/s link, 16384 B
/// datagrams (twelve fragments) delivered nothing in either family, and at
/// the link rate 4096 B gave IPv4 64 and IPv6 45 Mbit/s with CIs of ±80 %.
pub fn fragmented_pace_bps(size_bytes: u32, mtu_bytes: u32, bottleneck_bps: u64) -> Option<f64> {
    let costs: Vec<_> = [IpFamily::V4, IpFamily::V6]
        .into_iter()
        .map(|family| udp_cost(family, size_bytes, mtu_bytes))
        .collect::<Option<_>>()?;
    if !costs.iter().any(|cost| cost.fragmented) {
        return None;
    }
    costs
        .iter()
        .map(|cost| cost.expected_goodput_bps(bottleneck_bps as f64))
        .reduce(f64::min)
        .map(|ceiling| ceiling * FRAGMENTED_PACE_SHARE)
}

/// How far above the link the lab paces a datagram that fits one packet:
/// 25 % above what the link carries of IPv4's frames.
pub const PACE_OVER_LINK: f64 = 1.25;

/// The lab's pace, payload bit/s, for datagrams of `size_bytes` across a
/// shaper of `bottleneck_bps` on a `mtu_bytes` link when no pace is asked
/// for: [`fragmented_pace_bps`] for a size that fragments in either
/// family, else [`PACE_OVER_LINK`] times IPv4's ceiling `R · s / f` (so the
/// frames, not the payload, are a quarter above the link: 64 B datagrams
/// need 147 kpps into 100 Mbit/s, not the 244 kpps of 125 Mbit/s of
/// payload, which a sender on two cores does not hold). `None` when the
/// size fits no path.
pub fn lab_pace_bps(size_bytes: u32, mtu_bytes: u32, bottleneck_bps: u64) -> Option<f64> {
    if let Some(below) = fragmented_pace_bps(size_bytes, mtu_bytes, bottleneck_bps) {
        return Some(below);
    }
    let v4 = udp_cost(IpFamily::V4, size_bytes, mtu_bytes)?;
    Some(PACE_OVER_LINK * v4.expected_goodput_bps(bottleneck_bps as f64))
}

/// The frame rate, bit/s as a shaper counts it, of datagrams of
/// `size_bytes` paced at `pace_bps` of payload: IPv4's frames, the smaller
/// (so the excess over a link is at least this one's). `None` when the
/// size fits no path.
pub fn offered_frame_bps(pace_bps: f64, size_bytes: u32, mtu_bytes: u32) -> Option<f64> {
    let v4 = udp_cost(IpFamily::V4, size_bytes, mtu_bytes)?;
    (v4.efficiency_ratio > 0.0).then(|| pace_bps / v4.efficiency_ratio)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HUNDRED_MBIT: u64 = 100_000_000;

    fn goodput(family: IpFamily, offered: f64, size: u32) -> f64 {
        let path = PathKind::plain(family, Transport::Udp);
        received_goodput_bps(offered, size, path, 1500, HUNDRED_MBIT).unwrap()
    }

    #[test]
    fn fragmented_datagrams_are_paced_below_both_ceilings_and_others_not_at_all() {
        // 4096 B: IPv6 in three fragments of 1448 B payload, frames 4096 + 8
        // + 3 × (40 + 8 + 14) = 4290 B (IPv4 4206 B): 97 % of 100 Mbit/s ×
        // 4096 / 4290.
        let pace = fragmented_pace_bps(4096, 1500, HUNDRED_MBIT).unwrap();
        let v6_ceiling = HUNDRED_MBIT as f64 * 4096.0 / 4290.0;
        assert!((pace / v6_ceiling - 0.97).abs() < 1e-9, "{pace}");
        assert!(goodput(IpFamily::V4, pace, 4096) == pace);
        assert!(goodput(IpFamily::V6, pace, 4096) == pace);
        // One packet in both families: not this pace's business.
        assert_eq!(fragmented_pace_bps(1408, 1500, HUNDRED_MBIT), None);
        // 1460 B fragments over IPv6 only (1500 − 40 − 8 = 1452).
        assert!(fragmented_pace_bps(1460, 1500, HUNDRED_MBIT).is_some());
    }

    #[test]
    fn the_lab_paces_one_packet_datagrams_a_quarter_above_the_link_in_frames() {
        // 64 B: IPv4 frames of 64 + 8 + 20 + 14 = 106 B; 1.25 × 100 Mbit/s ×
        // 64 / 106 = 75.5 Mbit/s of payload, 147 kpps.
        let pace = lab_pace_bps(64, 1500, HUNDRED_MBIT).unwrap();
        assert!((pace - 1.25e8 * 64.0 / 106.0).abs() < 1.0, "{pace}");
        let frames = offered_frame_bps(pace, 64, 1500).unwrap();
        assert!((frames - 1.25e8).abs() < 1.0, "{frames}");
        // A fragmenting size: below both ceilings.
        assert_eq!(
            lab_pace_bps(4096, 1500, HUNDRED_MBIT),
            fragmented_pace_bps(4096, 1500, HUNDRED_MBIT)
        );
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

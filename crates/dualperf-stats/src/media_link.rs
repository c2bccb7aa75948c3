//! A media stream on the link: the Ethernet frames a capture counts, from
//! the header model ([`crate::overhead::message_cost`]), not from
//! constants (docs/metrics.md, "Real-time media").
//!
//! Every packet of a media stream carries its UDP payload (RTP header
//! included) inside a UDP header (8 bytes, RFC 768), an IP header (IPv4 20
//! without options, RFC 791; IPv6 40, RFC 8200) and an Ethernet header
//! (14); a capture counts that frame (no preamble, FCS or gap), and so does
//! an htb bottleneck. G.711 in 20 ms packets: 172 B of payload make 214-byte
//! frames on IPv4 and 234 on IPv6, +9.3 % on the link for the same stream.

use dualperf_model::observation::Observations;
use dualperf_model::{IpFamily, MediaProfile};

use crate::overhead::{message_cost, OverheadSettings, PathKind, Transport, DEFAULT_MTU_BYTES};

/// The Ethernet frame of one UDP datagram of `payload_bytes` in `family`
/// on a link of `mtu_bytes`, bytes (all its fragments when it exceeds the
/// MTU; padded to the 60-byte minimum).
pub fn ethernet_frame_bytes(family: IpFamily, payload_bytes: u32, mtu_bytes: u32) -> Option<u64> {
    let path = PathKind::plain(family, Transport::Udp);
    let cost = message_cost(path, &OverheadSettings::linux(mtu_bytes), payload_bytes).ok()?;
    Some(cost.frame_bytes.iter().map(|&f| u64::from(f)).sum())
}

/// The mean UDP payload of a profile's packets, bytes: over one group of
/// pictures for video (an I-frame and the frames up to the next).
pub fn mean_packet_payload_bytes(profile: &MediaProfile) -> f64 {
    let frames = match profile {
        MediaProfile::Voice(_) => 1,
        MediaProfile::Video(video) => u64::from(video.i_frame_period.max(1)),
    };
    let sizes: Vec<u32> = (0..frames).flat_map(|f| profile.packet_sizes(f)).collect();
    sizes.iter().map(|&s| f64::from(s)).sum::<f64>() / sizes.len().max(1) as f64
}

/// What a media trial's received packets were on the link.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MediaOnLink {
    /// Mean Ethernet frame of the packets received, bytes.
    pub frame_bytes: f64,
    /// Ethernet bytes received × 8 / measured interval, bit/s.
    pub ethernet_bps: f64,
}

/// The received packets of a media trial in `family` as Ethernet frames:
/// the mean payload per packet plus the header the model gives a datagram
/// of that size; `None` for an empty trial.
pub fn media_on_link(o: &Observations, family: IpFamily) -> Option<MediaOnLink> {
    let (bytes, packets) = (o.receiver.bytes, o.receiver.packets);
    if packets == 0 || o.measured_ns == 0 {
        return None;
    }
    let mean_payload = bytes as f64 / packets as f64;
    let rounded = mean_payload.round().clamp(1.0, f64::from(u32::MAX)) as u32;
    let mtu = o.socket.path_mtu_bytes.unwrap_or(DEFAULT_MTU_BYTES);
    let header = ethernet_frame_bytes(family, rounded, mtu)?.saturating_sub(u64::from(rounded));
    let link_bytes = bytes as f64 + packets as f64 * header as f64;
    Some(MediaOnLink {
        frame_bytes: mean_payload + header as f64,
        ethernet_bps: link_bytes * 8.0 / (o.measured_ns as f64 / 1e9),
    })
}

/// What the header model predicts for IPv6 … against IPv4 (arm against
/// baseline) of the same media stream on the link: the frame-size ratio − 1
/// (equal packet rates, so the rate on the link grows by the same ratio).
pub fn predicted_link_difference(
    profile: &MediaProfile,
    arm: IpFamily,
    baseline: IpFamily,
) -> Option<f64> {
    let payload = mean_packet_payload_bytes(profile).round() as u32;
    let frame = |family| {
        ethernet_frame_bytes(family, payload, DEFAULT_MTU_BYTES)
            .map(|f| f as f64 - f64::from(payload) + mean_packet_payload_bytes(profile))
    };
    Some(frame(arm)? / frame(baseline)? - 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::{FlowCounters, VoiceCodec, VoiceProfile};

    fn g711() -> MediaProfile {
        MediaProfile::Voice(VoiceProfile {
            codec: VoiceCodec::G711,
            packet_ms: 20,
        })
    }

    #[test]
    fn g711_makes_214_byte_frames_on_ipv4_and_234_on_ipv6() {
        assert_eq!(mean_packet_payload_bytes(&g711()), 172.0);
        assert_eq!(ethernet_frame_bytes(IpFamily::V4, 172, 1500), Some(214));
        assert_eq!(ethernet_frame_bytes(IpFamily::V6, 172, 1500), Some(234));
        let predicted = predicted_link_difference(&g711(), IpFamily::V6, IpFamily::V4).unwrap();
        assert!(
            (predicted - (234.0 / 214.0 - 1.0)).abs() < 1e-12,
            "{predicted}"
        );
    }

    #[test]
    fn one_second_of_g711_is_85_6_kbit_s_on_ipv4_ethernet() {
        let o = Observations {
            measured_ns: 1_000_000_000,
            receiver: FlowCounters {
                bytes: 50 * 172,
                packets: 50,
            },
            ..Observations::default()
        };
        let link = media_on_link(&o, IpFamily::V4).unwrap();
        assert_eq!(link.frame_bytes, 214.0);
        assert!((link.ethernet_bps - 50.0 * 214.0 * 8.0).abs() < 1e-6);
        let v6 = media_on_link(&o, IpFamily::V6).unwrap();
        assert!((v6.ethernet_bps - 93_600.0).abs() < 1e-6);
        assert_eq!(media_on_link(&Observations::default(), IpFamily::V4), None);
    }
}

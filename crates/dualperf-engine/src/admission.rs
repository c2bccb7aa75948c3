//! What a test will cost, declared from its full spec before anything is
//! allocated: memory, send rate, packets per second and duration, for every
//! test kind (media and load flows included: a load flow is a test spec
//! like any other). Both ends admit a test through the same [`demand`]:
//! the client checks its plan with [`crate::limits::validate_spec`], the
//! server every request with [`crate::limits::ServerLimits::check`].
//!
//! A media point's cost is in its profile, not in `size_bytes`: a voice
//! codec's packet grows with its packet interval (G.711: 8 B per ms), a
//! video frame is split into as many packets as its size needs. So the
//! profile's fields are bounded here ([`validate_media`]) and the largest
//! packet, not the spec's size, sizes the buffers.

use std::time::Duration;

use dualperf_model::media::{RTP_HEADER_BYTES, STAMP_BYTES};
use dualperf_model::{BitRate, MediaProfile, TestKind, TestSpec, VoiceCodec};

use crate::flow::{ARRIVALS_LIMIT, LATENCY_RAW_LIMIT};

/// Longest voice packet interval, milliseconds: a paced stream sends at
/// least one packet per second ([`crate::limits::MAX_DATAGRAM_GAP`]).
pub const MAX_VOICE_PACKET_MS: u32 = 1_000;
/// Opus bitrates, bits per second (RFC 6716 §2.1.1: 6 to 510 kbit/s).
pub const OPUS_BITRATE_BPS: std::ops::RangeInclusive<u64> = 6_000..=510_000;
/// Video frame rates, frames per second (at least one frame per second).
pub const VIDEO_FPS: std::ops::RangeInclusive<u32> = 1..=1_000;
/// Longest I-frame period, frames.
pub const MAX_I_FRAME_PERIOD: u32 = 1_000;
/// Largest I-frame to P-frame size ratio.
pub const MAX_I_FRAME_RATIO: f64 = 1_000.0;
/// Largest video frame (an I-frame), codec bytes (16 MiB, the largest
/// tcp-stream write).
pub const MAX_VIDEO_FRAME_BYTES: u64 = 16 << 20;
/// Largest media packet, UDP payload bytes: the IPv4 maximum (65535 − 20 −
/// 8), so that either family carries it.
pub const MAX_MEDIA_PACKET_BYTES: u32 = 65_507;

/// What one end of a test needs, declared before it starts.
#[derive(Clone, Debug, PartialEq)]
pub struct Demand {
    /// Upper bound on the memory one end allocates, bytes (see
    /// [`memory_bytes`]).
    pub memory_bytes: u64,
    /// Data streams (sockets and flow threads per end).
    pub streams: u32,
    /// The rate each stream sends at, when the spec fixes it (a paced UDP
    /// stream, a probe, a media profile); `None`: as fast as it can, or
    /// not a rate-driven kind.
    pub rate: Option<BitRate>,
    /// Largest datagram or write, bytes.
    pub largest_message_bytes: u32,
    /// Warm-up plus measured interval.
    pub duration: Duration,
}

/// Checks a media profile's fields against their bounds (a profile from a
/// plan file or a peer has not been through `--media`'s parser).
///
/// # Errors
/// The first field out of bounds, named.
pub fn validate_media(profile: &MediaProfile) -> Result<(), String> {
    match profile {
        MediaProfile::Voice(voice) => {
            if !(1..=MAX_VOICE_PACKET_MS).contains(&voice.packet_ms) {
                return Err(format!(
                    "media packet interval {} ms is outside 1 to {MAX_VOICE_PACKET_MS} ms",
                    voice.packet_ms
                ));
            }
            if let VoiceCodec::Opus { bitrate_bps } = voice.codec {
                if !OPUS_BITRATE_BPS.contains(&bitrate_bps) {
                    return Err(format!(
                        "Opus bitrate {bitrate_bps} bit/s is outside 6 to 510 kbit/s (RFC 6716)"
                    ));
                }
            }
        }
        MediaProfile::Video(video) => {
            if !VIDEO_FPS.contains(&video.frames_per_second) {
                return Err(format!(
                    "video at {} frames per second is outside 1 to {}",
                    video.frames_per_second,
                    VIDEO_FPS.end()
                ));
            }
            if !(1..=MAX_I_FRAME_PERIOD).contains(&video.i_frame_period) {
                return Err(format!(
                    "video I-frame period {} is outside 1 to {MAX_I_FRAME_PERIOD} frames",
                    video.i_frame_period
                ));
            }
            if !(1.0..=MAX_I_FRAME_RATIO).contains(&video.i_frame_ratio) {
                return Err(format!(
                    "video I-frame ratio {} is outside 1 to {MAX_I_FRAME_RATIO}",
                    video.i_frame_ratio
                ));
            }
            if video.mean_frame_bytes == 0 {
                return Err("video mean frame size must be above 0 B".into());
            }
            if !(RTP_HEADER_BYTES + STAMP_BYTES..=MAX_MEDIA_PACKET_BYTES)
                .contains(&video.max_payload_bytes)
            {
                return Err(format!(
                    "video packet size {} B is outside {} to {MAX_MEDIA_PACKET_BYTES} B",
                    video.max_payload_bytes,
                    RTP_HEADER_BYTES + STAMP_BYTES
                ));
            }
            let largest_frame = u64::from(video.frame_bytes(0));
            if largest_frame > MAX_VIDEO_FRAME_BYTES {
                return Err(format!(
                    "video I-frame of {largest_frame} B exceeds the maximum of \
                     {MAX_VIDEO_FRAME_BYTES} B (16 MiB)"
                ));
            }
        }
    }
    let largest = profile.largest_packet_bytes();
    if largest > MAX_MEDIA_PACKET_BYTES {
        return Err(format!(
            "media packet of {largest} B exceeds the maximum of {MAX_MEDIA_PACKET_BYTES} B \
             (65535 − 20 IPv4 − 8 UDP)"
        ));
    }
    Ok(())
}

/// Streams a test opens (data sockets and flow threads per end).
pub fn stream_count(spec: &TestSpec) -> u32 {
    match spec.kind {
        TestKind::TcpStream | TestKind::UdpStream => spec.parallel_streams,
        _ => 1,
    }
}

/// The largest datagram or write of `spec`, bytes: the media profile's
/// largest packet for media, `size_bytes` otherwise.
fn largest_message_bytes(spec: &TestSpec) -> u32 {
    match (spec.kind, &spec.media) {
        (TestKind::Media, Some(profile)) => profile.largest_packet_bytes(),
        _ => spec.size_bytes,
    }
}

/// An upper bound on the memory one end needs for `spec`, bytes: its
/// buffers per stream (the write or read buffer of tcp-stream, the
/// `sendmmsg`/`recvmmsg` batches of udp-stream and media, both rr buffers),
/// the raw samples kept (UDP arrivals, latency samples) and the interval
/// samples of the whole test. Kernel socket buffers are not counted (the
/// kernel bounds them by `net.core.*mem_max`). Media is sized by its
/// profile's largest packet, whatever `size_bytes` says.
pub fn memory_bytes(spec: &TestSpec) -> u64 {
    const ARRIVAL_BYTES: u64 = 32;
    const SAMPLE_BYTES: u64 = 256;
    const HISTOGRAM_BYTES: u64 = 256 << 10;
    const TCP_READ_BYTES: u64 = 128 << 10;
    let size = u64::from(largest_message_bytes(spec));
    let streams = u64::from(stream_count(spec));
    let batch = crate::flow::udp_stream::BATCH as u64;
    let per_stream = match spec.kind {
        TestKind::TcpStream => size.max(TCP_READ_BYTES),
        TestKind::UdpStream => batch * (size.max(64) + 1) + ARRIVALS_LIMIT as u64 * ARRIVAL_BYTES,
        // The receiver is the udp-stream receiver (a batch of buffers of
        // the largest packet); the sender one buffer.
        TestKind::Media => {
            (batch + 1) * (size.max(64) + 1)
                + crate::flow::media::MEDIA_ARRIVALS_LIMIT as u64 * ARRIVAL_BYTES
        }
        TestKind::UdpProbe => {
            size.max(64) + 1 + crate::flow::udp_probe::PROBE_ARRIVALS_LIMIT as u64 * ARRIVAL_BYTES
        }
        TestKind::TcpRr | TestKind::UdpRr => {
            2 * (size + 9) + LATENCY_RAW_LIMIT as u64 * 8 + HISTOGRAM_BYTES
        }
        TestKind::TcpConnect => LATENCY_RAW_LIMIT as u64 * 8 + HISTOGRAM_BYTES,
    };
    let samples = spec.duration_ms.saturating_add(spec.warmup_ms)
        / spec
            .sample_interval_ms
            .max(crate::limits::MIN_SAMPLE_INTERVAL_MS)
        + 1;
    streams
        .saturating_mul(per_stream)
        .saturating_add(samples.saturating_mul(SAMPLE_BYTES))
}

/// The rate one stream of `spec` sends at when the spec fixes it.
fn fixed_rate(spec: &TestSpec) -> Option<BitRate> {
    match spec.kind {
        TestKind::UdpProbe => Some(BitRate::from_bits_per_second(
            u64::from(spec.size_bytes) * 8 * 1_000_000
                / crate::endpoint::probe_interval(spec).as_micros().max(1) as u64,
        )),
        TestKind::Media => spec
            .media
            .as_ref()
            .map(|media| BitRate::from_bits_per_second(media.mean_payload_bps().ceil() as u64)),
        _ => spec.rate,
    }
}

/// Declares what `spec` costs, checking first what the declaration itself
/// needs (a media point has a profile within bounds), so that no estimate
/// is computed from an unbounded field.
///
/// # Errors
/// A media point without a profile, or with one out of bounds.
pub fn demand(spec: &TestSpec) -> Result<Demand, String> {
    match (spec.kind, &spec.media) {
        (TestKind::Media, None) => return Err("a media test needs a media profile".into()),
        (TestKind::Media, Some(profile)) => validate_media(profile)?,
        _ => {}
    }
    Ok(Demand {
        memory_bytes: memory_bytes(spec),
        streams: stream_count(spec),
        rate: fixed_rate(spec),
        largest_message_bytes: largest_message_bytes(spec),
        duration: Duration::from_millis(spec.duration_ms.saturating_add(spec.warmup_ms)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::{VideoProfile, VoiceProfile};

    fn media(profile: MediaProfile) -> TestSpec {
        TestSpec {
            media: Some(profile),
            ..TestSpec::new(TestKind::Media, 172)
        }
    }

    fn g711(packet_ms: u32) -> MediaProfile {
        MediaProfile::Voice(VoiceProfile {
            codec: VoiceCodec::G711,
            packet_ms,
        })
    }

    #[test]
    fn the_audit_request_g711_with_a_huge_interval_is_refused() {
        // The audit's ~300-byte request: 8 B per ms of a 100,000 s interval.
        let error = demand(&media(g711(100_000_000))).unwrap_err();
        assert!(error.contains("packet interval"), "{error}");
    }

    #[test]
    fn media_memory_follows_the_profile_not_the_size_field() {
        let small = demand(&media(g711(20))).unwrap().memory_bytes;
        let large = demand(&media(g711(1_000))).unwrap().memory_bytes;
        // 8012 B packets × 65 buffers outweigh 172 B ones by ~500 KB.
        assert!(large > small + 400_000, "{small} {large}");
    }

    #[test]
    fn video_bounds_are_checked_before_anything_is_sized() {
        let video = |frame: u32, mtu: u32, ratio: f64| {
            media(MediaProfile::Video(VideoProfile {
                frames_per_second: 25,
                mean_frame_bytes: frame,
                i_frame_period: 12,
                i_frame_ratio: ratio,
                max_payload_bytes: mtu,
            }))
        };
        assert!(demand(&video(640, 252, 3.0)).is_ok());
        assert!(demand(&video(u32::MAX, 252, 3.0))
            .unwrap_err()
            .contains("16 MiB"));
        assert!(demand(&video(640, 70_000, 3.0))
            .unwrap_err()
            .contains("packet size"));
        assert!(demand(&video(640, 252, f64::NAN))
            .unwrap_err()
            .contains("ratio"));
        let mut missing = media(g711(20));
        missing.media = None;
        assert!(demand(&missing).is_err());
    }

    #[test]
    fn a_media_rate_is_declared() {
        let rate = demand(&media(g711(20))).unwrap().rate.unwrap();
        // 172 B every 20 ms: 68.8 kbit/s.
        assert_eq!(rate.bits_per_second(), 68_800);
    }
}

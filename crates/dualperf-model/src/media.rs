//! Real-time media profiles: voice and video streams sent as RTP-shaped UDP
//! (RFC 3550 12-byte header with sequence number, timestamp and SSRC, so a
//! capture decodes them as RTP), the traffic of the OpenH323 experiments.
//!
//! A point of kind `media` carries a [`MediaProfile`] in
//! [`crate::TestSpec::media`]; the engine paces packets as the profile says
//! and stamps each one, and stats rates the stream (one-way delay, jitter,
//! loss, MOS from the ITU-T G.107 E-model with a jitter-buffer model).

use serde::{Deserialize, Serialize};

/// What a media stream sends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "media", rename_all = "kebab-case")]
pub enum MediaProfile {
    /// A constant-bitrate voice stream: one packet per `packet_ms`.
    Voice(VoiceProfile),
    /// A video stream: frames at a rate, split into packets.
    Video(VideoProfile),
}

/// A voice stream.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct VoiceProfile {
    /// The codec (decides the payload per packet and the E-model's
    /// equipment impairment).
    pub codec: VoiceCodec,
    /// Packetisation interval, milliseconds (20 ms for the paper's G.711).
    pub packet_ms: u32,
}

/// Voice codecs with known payload rates and G.113 impairment factors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "codec", rename_all = "kebab-case")]
pub enum VoiceCodec {
    /// ITU-T G.711 (PCM, 64 kbit/s: 160 B of payload per 20 ms).
    G711,
    /// ITU-T G.729 (8 kbit/s: 20 B of payload per 20 ms).
    G729,
    /// Opus (RFC 6716) at a constant bitrate.
    Opus {
        /// Codec bitrate, bits per second.
        bitrate_bps: u64,
    },
}

/// A video stream: `frames_per_second` frames whose mean size is
/// `mean_frame_bytes`, every `i_frame_period`-th an I-frame
/// `i_frame_ratio` times larger than the others; each frame is split into
/// packets of at most `max_payload_bytes` sent back to back (like iperf2's
/// `--isochronous`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct VideoProfile {
    /// Frames per second.
    pub frames_per_second: u32,
    /// Mean frame size over an I-frame period, bytes.
    pub mean_frame_bytes: u32,
    /// Frames from one I-frame to the next (1: every frame is an I-frame).
    pub i_frame_period: u32,
    /// Size of an I-frame relative to the other frames (≥ 1).
    pub i_frame_ratio: f64,
    /// Largest UDP payload per packet, bytes (RTP header included).
    pub max_payload_bytes: u32,
}

/// Bytes of the RFC 3550 §5.1 fixed RTP header (V=2, no CSRC, no extension).
pub const RTP_HEADER_BYTES: u32 = 12;

/// Bytes of dualperf's own stamp (sequence u64, send time i64, flags u32)
/// that follows the RTP header at the start of the codec payload; the
/// smallest codec payload a media packet can carry.
pub const STAMP_BYTES: u32 = 20;

/// RTP payload type 96: the first dynamic one (RFC 3551 §6), used for Opus
/// and video.
pub const DYNAMIC_PAYLOAD_TYPE: u8 = 96;

impl VoiceCodec {
    /// Codec payload bytes of one packet of `packet_ms` milliseconds: G.711
    /// 8 B/ms (64 kbit/s, RFC 3551 §4.5.14), G.729 1 B/ms (8 kbit/s, RFC
    /// 3551 §4.5.6), Opus bitrate × interval / 8; never below
    /// [`STAMP_BYTES`] (the stamp must fit).
    pub fn payload_bytes(&self, packet_ms: u32) -> u32 {
        let bytes = match self {
            VoiceCodec::G711 => 8 * u64::from(packet_ms),
            VoiceCodec::G729 => u64::from(packet_ms),
            VoiceCodec::Opus { bitrate_bps } => bitrate_bps * u64::from(packet_ms) / 8_000,
        };
        (bytes.min(u64::from(u32::MAX)) as u32).max(STAMP_BYTES)
    }

    /// The RTP payload type: 0 (PCMU) for G.711 and 18 for G.729 (RFC 3551
    /// Table 4), 96 (dynamic) for Opus (RFC 7587).
    pub fn payload_type(&self) -> u8 {
        match self {
            VoiceCodec::G711 => 0,
            VoiceCodec::G729 => 18,
            VoiceCodec::Opus { .. } => DYNAMIC_PAYLOAD_TYPE,
        }
    }

    /// The RTP timestamp clock, Hz: 8000 for G.711 and G.729 (RFC 3551),
    /// 48 000 for Opus (RFC 7587 §4.1).
    pub fn clock_rate_hz(&self) -> u32 {
        match self {
            VoiceCodec::Opus { .. } => 48_000,
            _ => 8_000,
        }
    }

    /// A short name for people, e.g. `G.711`, `Opus 24 kbit/s`.
    pub fn label(&self) -> String {
        match self {
            VoiceCodec::G711 => "G.711".into(),
            VoiceCodec::G729 => "G.729".into(),
            VoiceCodec::Opus { bitrate_bps } => {
                format!("Opus {} kbit/s", *bitrate_bps as f64 / 1000.0)
            }
        }
    }
}

impl VideoProfile {
    /// Bytes of a P-frame (every frame but the I-frames): with period P,
    /// ratio r and mean M, `M·P / (r + P − 1)`.
    fn p_frame_bytes(&self) -> f64 {
        let period = f64::from(self.i_frame_period.max(1));
        let ratio = self.i_frame_ratio.max(1.0);
        f64::from(self.mean_frame_bytes) * period / (ratio + period - 1.0)
    }

    /// Codec bytes of frame `frame` (from 0, an I-frame every
    /// `i_frame_period` frames starting with frame 0); at least one stamp.
    pub fn frame_bytes(&self, frame: u64) -> u32 {
        let p = self.p_frame_bytes();
        let bytes = if frame.is_multiple_of(u64::from(self.i_frame_period.max(1))) {
            p * self.i_frame_ratio.max(1.0)
        } else {
            p
        };
        (bytes.round() as u32).max(STAMP_BYTES)
    }

    /// Codec bytes one packet can carry: the largest UDP payload less the
    /// RTP header, at least one stamp.
    fn chunk_bytes(&self) -> u32 {
        self.max_payload_bytes
            .saturating_sub(RTP_HEADER_BYTES)
            .max(STAMP_BYTES)
    }

    /// Packets frame `frame` is split into.
    pub fn packets_of_frame(&self, frame: u64) -> u32 {
        self.frame_bytes(frame).div_ceil(self.chunk_bytes())
    }

    /// UDP payload bytes (RTP header included) of packet `index` of frame
    /// `frame`: full packets, the last one with the rest (at least a stamp).
    pub fn packet_bytes(&self, frame: u64, index: u32) -> u32 {
        let chunk = self.chunk_bytes();
        let total = self.frame_bytes(frame);
        let packets = self.packets_of_frame(frame);
        let codec = if index + 1 < packets {
            chunk
        } else {
            (total - chunk * (packets - 1)).max(STAMP_BYTES)
        };
        RTP_HEADER_BYTES + codec
    }

    /// Packets of one I-frame period.
    fn packets_per_period(&self) -> u64 {
        (0..u64::from(self.i_frame_period.max(1)))
            .map(|f| u64::from(self.packets_of_frame(f)))
            .sum()
    }

    /// The frame a measured packet sequence number belongs to and its index
    /// in that frame (frames are numbered from the start of the measured
    /// interval, packets too).
    pub fn frame_of_sequence(&self, sequence: u64) -> (u64, u32) {
        let per_period = self.packets_per_period().max(1);
        let period = u64::from(self.i_frame_period.max(1));
        let mut frame = sequence / per_period * period;
        let mut rest = sequence % per_period;
        loop {
            let packets = u64::from(self.packets_of_frame(frame));
            if rest < packets {
                return (frame, rest as u32);
            }
            rest -= packets;
            frame += 1;
        }
    }

    /// The first packet sequence number of frame `frame`.
    pub fn first_sequence_of_frame(&self, frame: u64) -> u64 {
        let period = u64::from(self.i_frame_period.max(1));
        let whole = frame / period;
        whole * self.packets_per_period()
            + (whole * period..frame)
                .map(|f| u64::from(self.packets_of_frame(f)))
                .sum::<u64>()
    }
}

/// The RTP video clock, Hz (RFC 3551 §4.1: 90 kHz for video).
pub const VIDEO_CLOCK_RATE_HZ: u32 = 90_000;

impl MediaProfile {
    /// The RTP payload type of every packet.
    pub fn payload_type(&self) -> u8 {
        match self {
            MediaProfile::Voice(voice) => voice.codec.payload_type(),
            MediaProfile::Video(_) => DYNAMIC_PAYLOAD_TYPE,
        }
    }

    /// The RTP timestamp clock, Hz.
    pub fn clock_rate_hz(&self) -> u32 {
        match self {
            MediaProfile::Voice(voice) => voice.codec.clock_rate_hz(),
            MediaProfile::Video(_) => VIDEO_CLOCK_RATE_HZ,
        }
    }

    /// Time from one frame (a voice packet, a video frame) to the next,
    /// nanoseconds.
    pub fn frame_interval_ns(&self) -> u64 {
        match self {
            MediaProfile::Voice(voice) => u64::from(voice.packet_ms.max(1)) * 1_000_000,
            MediaProfile::Video(video) => 1_000_000_000 / u64::from(video.frames_per_second.max(1)),
        }
    }

    /// RTP timestamp units from one frame to the next.
    pub fn timestamp_step(&self) -> u32 {
        (u64::from(self.clock_rate_hz()) * self.frame_interval_ns() / 1_000_000_000) as u32
    }

    /// UDP payload bytes (RTP header included) of every packet of frame
    /// `frame`, in sending order.
    pub fn packet_sizes(&self, frame: u64) -> Vec<u32> {
        match self {
            MediaProfile::Voice(voice) => {
                vec![RTP_HEADER_BYTES + voice.codec.payload_bytes(voice.packet_ms)]
            }
            MediaProfile::Video(video) => (0..video.packets_of_frame(frame))
                .map(|index| video.packet_bytes(frame, index))
                .collect(),
        }
    }

    /// The largest UDP payload the stream sends, bytes.
    pub fn largest_packet_bytes(&self) -> u32 {
        match self {
            MediaProfile::Voice(_) => self.packet_sizes(0)[0],
            MediaProfile::Video(video) => video.packet_bytes(0, 0),
        }
    }

    /// Mean UDP payload rate (RTP headers included), bits per second.
    pub fn mean_payload_bps(&self) -> f64 {
        let frames = match self {
            MediaProfile::Voice(_) => 1,
            MediaProfile::Video(video) => u64::from(video.i_frame_period.max(1)),
        };
        let bytes: u64 = (0..frames)
            .flat_map(|f| self.packet_sizes(f))
            .map(u64::from)
            .sum();
        bytes as f64 * 8.0 / frames as f64 * 1e9 / self.frame_interval_ns() as f64
    }

    /// Packetisation delay a receiver adds before playing a frame out, ms:
    /// one packet interval for voice, one frame interval for video.
    pub fn packetisation_ms(&self) -> f64 {
        self.frame_interval_ns() as f64 / 1e6
    }

    /// A short label for people, e.g. `G.711 20 ms`, `video 25 fps × 640 B`.
    pub fn label(&self) -> String {
        match self {
            MediaProfile::Voice(voice) => format!("{} {} ms", voice.codec.label(), voice.packet_ms),
            MediaProfile::Video(video) => format!(
                "video {} fps × {} B",
                video.frames_per_second, video.mean_frame_bytes
            ),
        }
    }

    /// True for a video stream.
    pub fn is_video(&self) -> bool {
        matches!(self, MediaProfile::Video(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cif() -> VideoProfile {
        VideoProfile {
            frames_per_second: 25,
            mean_frame_bytes: 640,
            i_frame_period: 12,
            i_frame_ratio: 5.0,
            max_payload_bytes: 1200,
        }
    }

    #[test]
    fn g711_20_ms_is_160_bytes_of_payload_after_a_12_byte_rtp_header() {
        let g711 = MediaProfile::Voice(VoiceProfile {
            codec: VoiceCodec::G711,
            packet_ms: 20,
        });
        assert_eq!(g711.packet_sizes(0), vec![172]);
        assert_eq!(g711.timestamp_step(), 160);
        assert_eq!(g711.payload_type(), 0);
        assert!((g711.mean_payload_bps() - 68_800.0).abs() < 1e-6);
        let g729 = VoiceCodec::G729;
        assert_eq!((g729.payload_bytes(20), g729.payload_type()), (20, 18));
        let opus = VoiceCodec::Opus {
            bitrate_bps: 24_000,
        };
        assert_eq!(opus.payload_bytes(20), 60);
    }

    #[test]
    fn video_frames_keep_their_mean_and_split_into_packets() {
        let video = cif();
        let bytes: u32 = (0..12).map(|f| video.frame_bytes(f)).sum();
        assert!((f64::from(bytes) / 12.0 - 640.0).abs() < 1.0, "{bytes}");
        assert!(video.frame_bytes(0) > 4 * video.frame_bytes(1));
        let i_frame: u32 = (0..video.packets_of_frame(0))
            .map(|i| video.packet_bytes(0, i) - RTP_HEADER_BYTES)
            .sum();
        assert_eq!(i_frame, video.frame_bytes(0));
        assert!((0..video.packets_of_frame(0)).all(|i| video.packet_bytes(0, i) <= 1200));
    }

    #[test]
    fn sequence_numbers_map_back_to_their_frames() {
        let video = cif();
        let mut sequence = 0;
        for frame in 0..40 {
            assert_eq!(video.first_sequence_of_frame(frame), sequence);
            for index in 0..video.packets_of_frame(frame) {
                assert_eq!(video.frame_of_sequence(sequence), (frame, index));
                sequence += 1;
            }
        }
    }
}

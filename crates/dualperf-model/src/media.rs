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

//! `--media NAME`: the media profile of a `media` point.
//!
//! | name | profile |
//! |---|---|
//! | `g711` (`g711:30ms`) | ITU-T G.711, 20 ms packets: 160 B of payload after the 12-byte RTP header |
//! | `g729` | ITU-T G.729, 20 ms: 20 B of payload |
//! | `opus:24k` | Opus (RFC 6716) at 24 kbit/s, 20 ms |
//! | `video:cif` | H.261 CIF as in the OpenH323 experiments: about 16 KB/s, 25 fps, 252-byte packets (294 B frames on IPv4 Ethernet) |
//! | `video:fps=25,frame=16000,iperiod=12,iratio=5,mtu=1200` | video: frames per second, mean frame bytes, I-frame period and size ratio, largest UDP payload |

use dualperf_model::{BitRate, MediaProfile, VideoProfile, VoiceCodec, VoiceProfile};

/// The H.261 CIF stream of the OpenH323 experiments: 16 000 B/s of codec
/// payload at 25 frames per second (640 B per frame), an I-frame every 12
/// frames three times the size of the others, in packets of at most 252 B
/// of UDP payload (the paper's 294-byte IPv4 Ethernet frames).
pub(crate) const VIDEO_CIF: VideoProfile = VideoProfile {
    frames_per_second: 25,
    mean_frame_bytes: 640,
    i_frame_period: 12,
    i_frame_ratio: 3.0,
    max_payload_bytes: 252,
};

/// The names `--media` accepts, for messages.
const NAMES: &str =
    "g711, g729, opus:24k, video:cif, video:fps=25,frame=640,iperiod=12,iratio=3,mtu=1200 \
                     (voice takes :Nms for the packet interval, e.g. g711:30ms)";

/// Parses a `--media` value.
///
/// # Errors
/// A message naming the value and the accepted names.
pub(crate) fn parse_media(text: &str) -> Result<MediaProfile, String> {
    let text = text.trim().to_ascii_lowercase();
    let (name, options) = text.split_once(':').unwrap_or((&text, ""));
    let unknown = || format!("`{text}` is not a media profile; known: {NAMES}");
    let voice = |codec: VoiceCodec, rest: &str| -> Result<MediaProfile, String> {
        let packet_ms = match rest {
            "" => 20,
            ms => ms
                .trim_end_matches("ms")
                .parse::<u32>()
                .ok()
                .filter(|ms| (5..=120).contains(ms))
                .ok_or_else(|| format!("`{ms}` in `{text}`: a packet interval of 5 to 120 ms"))?,
        };
        Ok(MediaProfile::Voice(VoiceProfile { codec, packet_ms }))
    };
    match name {
        "g711" | "g.711" | "pcmu" => voice(VoiceCodec::G711, options),
        "g729" | "g.729" => voice(VoiceCodec::G729, options),
        "opus" => {
            let (rate, rest) = options.split_once(':').unwrap_or((options, ""));
            let rate: BitRate = match rate {
                "" => "24k".parse(),
                rate => rate.parse(),
            }
            .map_err(|e| format!("the Opus bitrate in `{text}`: {e}"))?;
            let bitrate_bps = rate.bits_per_second();
            if !(6_000..=510_000).contains(&bitrate_bps) {
                return Err(format!(
                    "Opus runs at 6 to 510 kbit/s (RFC 6716); `{text}` asks for {rate}"
                ));
            }
            voice(VoiceCodec::Opus { bitrate_bps }, rest)
        }
        "video" => match options {
            "" | "cif" => Ok(MediaProfile::Video(VIDEO_CIF)),
            list => video(list).map(MediaProfile::Video),
        },
        _ => Err(unknown()),
    }
}

/// A video profile from `key=value` pairs, the rest as [`VIDEO_CIF`].
fn video(list: &str) -> Result<VideoProfile, String> {
    let mut profile = VIDEO_CIF;
    for pair in list.split(',').filter(|p| !p.is_empty()) {
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| format!("`{pair}`: video options are key=value"))?;
        let number = |low: f64, high: f64| -> Result<f64, String> {
            value
                .parse::<f64>()
                .ok()
                .filter(|v| (low..=high).contains(v))
                .ok_or_else(|| format!("video {key}={value}: give {low} to {high}"))
        };
        match key {
            "fps" => profile.frames_per_second = number(1.0, 240.0)? as u32,
            "frame" => profile.mean_frame_bytes = number(20.0, 1_000_000.0)? as u32,
            "iperiod" => profile.i_frame_period = number(1.0, 1000.0)? as u32,
            "iratio" => profile.i_frame_ratio = number(1.0, 100.0)?,
            "mtu" | "max" => profile.max_payload_bytes = number(64.0, 65_000.0)? as u32,
            _ => {
                return Err(format!(
                    "unknown video option `{key}`: fps, frame, iperiod, iratio, mtu"
                ))
            }
        }
    }
    Ok(profile)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn voice_names_parse_with_their_packet_interval() {
        let g711 = parse_media("g711").unwrap();
        assert_eq!(g711.packet_sizes(0), vec![172]);
        assert_eq!(
            parse_media("G711:30ms").unwrap().packet_sizes(0),
            vec![12 + 240]
        );
        assert_eq!(parse_media("g729").unwrap().packet_sizes(0), vec![32]);
        assert_eq!(
            parse_media("opus:24k").unwrap(),
            MediaProfile::Voice(VoiceProfile {
                codec: VoiceCodec::Opus {
                    bitrate_bps: 24_000
                },
                packet_ms: 20
            })
        );
    }

    #[test]
    fn video_cif_is_about_16_kilobytes_per_second_and_options_override_it() {
        let MediaProfile::Video(cif) = parse_media("video:cif").unwrap() else {
            panic!("video");
        };
        assert_eq!(cif.frames_per_second * cif.mean_frame_bytes, 16_000);
        let MediaProfile::Video(custom) = parse_media("video:fps=30,frame=16000,mtu=1200").unwrap()
        else {
            panic!("video");
        };
        assert_eq!(
            (
                custom.frames_per_second,
                custom.mean_frame_bytes,
                custom.max_payload_bytes
            ),
            (30, 16_000, 1_200)
        );
    }

    #[test]
    fn unknown_names_and_values_say_what_is_accepted() {
        assert!(parse_media("mp3").unwrap_err().contains("g711"));
        assert!(parse_media("opus:1k").is_err());
        assert!(parse_media("video:fps=0").is_err());
        assert!(parse_media("video:colour=red").is_err());
    }
}

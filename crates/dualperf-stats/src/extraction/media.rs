//! The metrics of a media stream (test kind `media`): voice quality from
//! the ITU-T G.107 E-model behind a jitter buffer, and video frame delivery.
//!
//! **Voice.** The stored arrival trace is played out through two jitter
//! buffers (`dualperf_meter::playout`: fixed, 40 ms deep; adaptive, Ramjee
//! et al. 1994); late packets count as lost. For each buffer the E-model
//! ([`crate::voice`]) gets
//!
//! ```text
//! Ta     = mean playout offset (one-way delay + buffer) + packetisation   ms
//! Ppl    = (lost + late) / sent                                           percent
//! BurstR = mean run of unplayed packets × (1 − Ppl), at least 1           (G.107 §3.5 for Bernoulli-like loss)
//! Ie,Bpl = the codec's (G.113 Appendix I; Opus: see Codec::opus)
//! ```
//!
//! `media_mos` is the adaptive buffer's MOS over the whole measured
//! interval, `media_worst_window_mos` the lowest over its 10-second windows
//! (by send time), `media_fixed_buffer_mos` the fixed buffer's. All need
//! one-way delay, hence shared (or declared synchronised) clocks.
//!
//! **Video.** Packets map back to frames by the profile's deterministic
//! packetisation ([`dualperf_model::VideoProfile::frame_of_sequence`]): a
//! frame is delivered when every packet of it arrived, and its delay is the
//! arrival of its last packet minus the send time of its first (every
//! packet is stamped when sent).

use dualperf_meter::playout::{play_out, summarise, BufferModel, Fate, PlayoutSummary};
use dualperf_model::observation::{Arrival, UdpReceiveCounters};
use dualperf_model::{MediaProfile, MetricId, VideoProfile};

use crate::extraction::TrialMetrics;
use crate::voice::{mos, CallConditions, Codec};

/// Length of one MOS window, nanoseconds of send time (10 s).
pub const MOS_WINDOW_NS: u64 = 10_000_000_000;

/// The E-model MOS of a played-out run of packets of `codec`, with
/// `packetisation_ms` of packetisation delay; `None` when nothing played.
pub fn playout_mos(summary: &PlayoutSummary, codec: Codec, packetisation_ms: f64) -> Option<f64> {
    let offset_ns = summary.mean_offset_ns?;
    let ppl = summary.unplayed_ratio()?;
    let burst_ratio = summary
        .mean_gap_length()
        .map_or(1.0, |length| (length * (1.0 - ppl)).max(1.0));
    Some(mos(&CallConditions {
        mouth_to_ear_delay_ms: offset_ns / 1e6 + packetisation_ms,
        packet_loss_percent: ppl * 100.0,
        burst_ratio,
        codec,
    }))
}

/// MOS of every full 10-second window of `fates` (a last window shorter
/// than 1 s is left out), packets sent every `interval_ns`.
pub fn window_mos(
    fates: &[Fate],
    interval_ns: u64,
    codec: Codec,
    packetisation_ms: f64,
) -> Vec<f64> {
    let per_window = (MOS_WINDOW_NS / interval_ns.max(1)).max(1) as usize;
    let least = (1_000_000_000 / interval_ns.max(1)).max(1) as usize;
    fates
        .chunks(per_window)
        .filter(|chunk| chunk.len() >= least.min(fates.len()))
        .filter_map(|chunk| playout_mos(&summarise(chunk), codec, packetisation_ms))
        .collect()
}

/// Records the media metrics of a trial with receive counters `udp`.
pub(crate) fn record_media(
    metrics: &mut TrialMetrics,
    udp: Option<&UdpReceiveCounters>,
    profile: Option<&MediaProfile>,
) {
    let Some(profile) = profile else {
        record_voice_missing(metrics, "the point carries no media profile");
        return;
    };
    let Some(udp) = udp else {
        match profile {
            MediaProfile::Voice(_) => record_voice_missing(metrics, "no UDP receive counters"),
            MediaProfile::Video(_) => record_video_missing(metrics, "no UDP receive counters"),
        }
        return;
    };
    let complete =
        !udp.arrivals.is_empty() && udp.arrivals.len() as u64 == udp.received + udp.duplicates;
    match profile {
        MediaProfile::Voice(voice) => {
            if !complete {
                record_voice_missing(metrics, "the arrival trace is incomplete or empty");
                return;
            }
            if !udp.clocks_shared {
                record_voice_missing(
                    metrics,
                    "sender and receiver clocks are not shared or synchronised (RFC 7679 §3.7)",
                );
                return;
            }
            let codec = Codec::of(&voice.codec);
            let interval_ns = profile.frame_interval_ns();
            let packetisation_ms = profile.packetisation_ms();
            let adaptive = play_out(
                &udp.arrivals,
                udp.sent,
                BufferModel::adaptive_for(interval_ns),
            );
            let fixed = play_out(&udp.arrivals, udp.sent, BufferModel::FIXED_40_MS);
            let summary = summarise(&adaptive);
            let nothing = "no packet was played out";
            metrics.record(
                MetricId::MediaMos,
                playout_mos(&summary, codec, packetisation_ms),
                nothing,
            );
            metrics.record(
                MetricId::MediaFixedBufferMos,
                playout_mos(&summarise(&fixed), codec, packetisation_ms),
                nothing,
            );
            let worst = window_mos(&adaptive, interval_ns, codec, packetisation_ms)
                .into_iter()
                .reduce(f64::min);
            metrics.record(MetricId::MediaWorstWindowMos, worst, nothing);
            metrics.record(
                MetricId::PlayoutLossRatio,
                summary.unplayed_ratio(),
                "the sender reported no packets sent",
            );
            metrics.record(MetricId::JitterBufferNs, summary.mean_buffer_ns, nothing);
            metrics.record(
                MetricId::MouthToEarNs,
                summary
                    .mean_offset_ns
                    .map(|offset| offset + packetisation_ms * 1e6),
                nothing,
            );
        }
        MediaProfile::Video(video) => {
            if !complete {
                record_video_missing(metrics, "the arrival trace is incomplete or empty");
                return;
            }
            let frames = frame_delivery(video, &udp.arrivals, udp.sent);
            metrics.record(
                MetricId::FrameDeliveryRatio,
                frames.delivery_ratio(),
                "no whole frame was sent",
            );
            let mut delays = frames.delays_ns;
            delays.sort_unstable();
            let quantile = |q: f64| -> Option<f64> {
                let last = delays.len().checked_sub(1)?;
                let rank = ((q * delays.len() as f64).ceil() as usize).clamp(1, last + 1) - 1;
                Some(delays[rank] as f64)
            };
            let no_delay = if udp.clocks_shared {
                "no frame was delivered"
            } else {
                "sender and receiver clocks are not shared or synchronised (RFC 7679 §3.7)"
            };
            let shared = udp.clocks_shared;
            metrics.record(
                MetricId::FrameDelayP50Ns,
                quantile(0.5).filter(|_| shared),
                no_delay,
            );
            metrics.record(
                MetricId::FrameDelayP99Ns,
                quantile(0.99).filter(|_| shared),
                no_delay,
            );
        }
    }
}

const VOICE_METRICS: [MetricId; 6] = [
    MetricId::MediaMos,
    MetricId::MediaFixedBufferMos,
    MetricId::MediaWorstWindowMos,
    MetricId::PlayoutLossRatio,
    MetricId::JitterBufferNs,
    MetricId::MouthToEarNs,
];

const VIDEO_METRICS: [MetricId; 3] = [
    MetricId::FrameDeliveryRatio,
    MetricId::FrameDelayP50Ns,
    MetricId::FrameDelayP99Ns,
];

fn record_voice_missing(metrics: &mut TrialMetrics, reason: &str) {
    for metric in VOICE_METRICS {
        metrics.record(metric, None, reason);
    }
}

fn record_video_missing(metrics: &mut TrialMetrics, reason: &str) {
    for metric in VIDEO_METRICS {
        metrics.record(metric, None, reason);
    }
}

/// What happened to the frames of a video stream.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrameDelivery {
    /// Whole frames sent (a frame cut short by the end of the interval is left out).
    pub sent: u64,
    /// Frames whose every packet arrived.
    pub delivered: u64,
    /// Per delivered frame: arrival of its last packet − send of its first, ns.
    pub delays_ns: Vec<i64>,
}

impl FrameDelivery {
    /// delivered / sent.
    pub fn delivery_ratio(&self) -> Option<f64> {
        (self.sent > 0).then(|| self.delivered as f64 / self.sent as f64)
    }
}

/// Frame delivery of `sent` packets of `video` with these arrivals.
pub fn frame_delivery(video: &VideoProfile, arrivals: &[Arrival], sent: u64) -> FrameDelivery {
    if sent == 0 {
        return FrameDelivery::default();
    }
    let (last_frame, last_index) = video.frame_of_sequence(sent - 1);
    let whole = if last_index + 1 == video.packets_of_frame(last_frame) {
        last_frame + 1
    } else {
        last_frame
    };
    // Per frame: packets arrived (first copies), first send, last arrival.
    let mut seen = vec![false; sent as usize];
    let mut frames: Vec<(u32, Option<i64>, i64)> = vec![(0, None, i64::MIN); whole as usize];
    for arrival in arrivals {
        let Some(flag) = seen.get_mut(arrival.sequence as usize) else {
            continue;
        };
        if std::mem::replace(flag, true) {
            continue;
        }
        let (frame, index) = video.frame_of_sequence(arrival.sequence);
        let Some(entry) = frames.get_mut(frame as usize) else {
            continue;
        };
        entry.0 += 1;
        if index == 0 {
            entry.1 = Some(arrival.sent_ns);
        }
        entry.2 = entry.2.max(arrival.received_ns);
    }
    let mut delivery = FrameDelivery {
        sent: whole,
        ..Default::default()
    };
    for (frame, (arrived, first_sent, last_arrival)) in frames.into_iter().enumerate() {
        if arrived == video.packets_of_frame(frame as u64) {
            delivery.delivered += 1;
            if let Some(first) = first_sent {
                delivery.delays_ns.push(last_arrival - first);
            }
        }
    }
    delivery
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_meter::sim::{simulate, LossModel, PathConfig, Sender};

    #[test]
    fn a_clean_50_ms_path_rates_g711_as_the_e_model_does_for_50_ms_plus_buffer() {
        let sender = Sender {
            count: 1_500,
            interval_ns: 20_000_000,
            ..Sender::default()
        };
        let path = PathConfig {
            delay_ns: 50_000_000,
            loss: LossModel::Random { probability: 0.01 },
            ..PathConfig::default()
        };
        let simulation = simulate(&sender, &path, 5);
        let fates = play_out(
            &simulation.arrivals,
            1_500,
            BufferModel::adaptive_for(20_000_000),
        );
        let summary = summarise(&fates);
        let measured = playout_mos(&summary, Codec::G711_PLC, 20.0).unwrap();
        let loss = simulation.truth.lost as f64 / 1_500.0;
        let expected = mos(&CallConditions {
            mouth_to_ear_delay_ms: 50.0 + 20.0,
            packet_loss_percent: loss * 100.0,
            burst_ratio: 1.0,
            codec: Codec::G711_PLC,
        });
        assert!(
            (measured - expected).abs() < 0.02,
            "{measured} vs {expected}"
        );
        let windows = window_mos(&fates, 20_000_000, Codec::G711_PLC, 20.0);
        assert_eq!(windows.len(), 3);
    }

    #[test]
    fn a_lost_packet_loses_its_whole_frame() {
        let video = VideoProfile {
            frames_per_second: 25,
            mean_frame_bytes: 2_000,
            i_frame_period: 10,
            i_frame_ratio: 4.0,
            max_payload_bytes: 1_200,
        };
        let sent = video.first_sequence_of_frame(20);
        let arrivals: Vec<Arrival> = (0..sent)
            .filter(|&s| s != video.first_sequence_of_frame(3) + 1 || video.packets_of_frame(3) < 2)
            .filter(|&s| s != video.first_sequence_of_frame(5))
            .map(|s| {
                let (frame, _) = video.frame_of_sequence(s);
                Arrival {
                    sequence: s,
                    sent_ns: frame as i64 * 40_000_000,
                    received_ns: frame as i64 * 40_000_000 + 5_000_000 + s as i64,
                }
            })
            .collect();
        let delivery = frame_delivery(&video, &arrivals, sent);
        assert_eq!(delivery.sent, 20);
        assert_eq!(delivery.delivered, 18);
        assert!(delivery.delays_ns.iter().all(|&d| d >= 5_000_000));
    }
}

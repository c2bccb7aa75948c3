//! The throughput series of real-time media runs, the OpenH323 paper's
//! Figs 3–8: for every media point and family, the media flow's receive
//! rate per sampling interval (50 ms by default) alone and under each
//! competing load, and beside it the competing loads' own rate over the
//! same kind of interval.
//!
//! The media series counts Ethernet frames as a capture shows them (each
//! packet's payload plus the header the analysis' header model gave it,
//! `media_ethernet_frame_bytes`), so the header difference of the families
//! shows as it did in the paper (294- against 314-byte frames); the loads
//! are drawn as payload (goodput), binned by when it arrived.
//!
//! Two charts rather than one: the media flow runs at tens of kbit/s, the
//! loads at megabits, and one linear axis would draw the media as a flat
//! line at zero. Each series is the first successful repetition.

use dualperf_model::{
    Arm, IntervalSample, IpFamily, MediaProfile, MetricId, Observations, Trial, TrialOutcome,
    UdpReceiveCounters,
};
use maud::html;

use crate::charts::line::{self, ChartPoint, LineChart, Marker, Series, Ticks};
use crate::charts::{style, Figure, FigureFacts};
use crate::error::ReportError;
use crate::view::RunView;

/// Receive rate per interval in `unit` bit/s against the interval's
/// middle, s: payload bytes plus `per_packet` bytes for every packet.
fn rate_points(samples: &[IntervalSample], unit: f64, per_packet: u64) -> Vec<ChartPoint> {
    samples
        .iter()
        .filter(|s| s.length_ns > 0)
        .map(|s| {
            let bytes = s.received_bytes + s.received_packets * per_packet;
            ChartPoint::new(
                (s.end_ns as f64 - s.length_ns as f64 / 2.0) / 1e9,
                bytes as f64 * 8.0 / (s.length_ns as f64 / 1e9) / unit,
            )
        })
        .collect()
}

/// Consecutive samples merged into bins that each span a whole number of
/// frames (packets), so that a constant-rate stream draws flat: 20 ms
/// G.711 packets fall 2 or 3 into a 50 ms sample, but exactly 5 into a
/// 100 ms bin. The bin is the least common multiple of the sample length
/// and `frame_ns`, at most [`MAX_MERGED`] samples; a trailing partial bin
/// is dropped (it would hold a fraction of a frame pattern).
fn frame_bins(samples: &[IntervalSample], frame_ns: u64) -> Vec<IntervalSample> {
    let Some(length) = samples.first().map(|s| s.length_ns).filter(|l| *l > 0) else {
        return samples.to_vec();
    };
    if frame_ns == 0 {
        return samples.to_vec();
    }
    let merge = usize::try_from(frame_ns / gcd(length, frame_ns)).unwrap_or(usize::MAX);
    if merge <= 1 || merge > MAX_MERGED {
        return samples.to_vec();
    }
    samples
        .chunks_exact(merge)
        .map(|group| {
            group.iter().fold(
                IntervalSample {
                    end_ns: 0,
                    ..IntervalSample::default()
                },
                |bin, s| IntervalSample {
                    end_ns: s.end_ns,
                    length_ns: bin.length_ns + s.length_ns,
                    sent_bytes: bin.sent_bytes + s.sent_bytes,
                    sent_packets: bin.sent_packets + s.sent_packets,
                    received_bytes: bin.received_bytes + s.received_bytes,
                    received_packets: bin.received_packets + s.received_packets,
                    lost_packets: None,
                    mean_delay_ns: None,
                },
            )
        })
        .collect()
}

/// The media stream's rate on the link per bin of `bin_ns` (a whole number
/// of packet intervals) from its arrival trace, in `unit` bit/s against the
/// bin's middle, s after the first arrival: each packet's payload (its
/// profile's size, by sequence number) plus `header` bytes. The bins start
/// half a packet interval before the first arrival, so arrivals sit mid-way
/// between bin edges: a packet delayed less than half an interval more than
/// the first crosses none, and a constant-rate codec draws flat. Only whole bins up to the
/// last arrival; `None` when the trace is incomplete (then the sampler's
/// intervals are drawn).
fn arrival_points(
    udp: &UdpReceiveCounters,
    profile: &MediaProfile,
    header: u64,
    bin_ns: u64,
    unit: f64,
) -> Option<Vec<ChartPoint>> {
    let complete =
        !udp.arrivals.is_empty() && udp.arrivals.len() as u64 == udp.received + udp.duplicates;
    if !complete || bin_ns == 0 {
        return None;
    }
    let first = udp.arrivals.iter().map(|a| a.received_ns).min()?;
    let last = udp.arrivals.iter().map(|a| a.received_ns).max()?;
    let start = first - (profile.frame_interval_ns() / 2) as i64;
    let whole = ((last - start).max(0) as u64 / bin_ns) as usize;
    let mut bytes = vec![0u64; whole];
    let mut seen = std::collections::HashSet::new();
    for arrival in &udp.arrivals {
        if !seen.insert(arrival.sequence) {
            continue; // a duplicate crossed the link, but is not the stream
        }
        let index = ((arrival.received_ns - start).max(0) as u64 / bin_ns) as usize;
        let payload = match profile {
            MediaProfile::Voice(_) => profile.largest_packet_bytes(),
            MediaProfile::Video(video) => {
                let (frame, packet) = video.frame_of_sequence(arrival.sequence);
                video.packet_bytes(frame, packet)
            }
        };
        if let Some(bin) = bytes.get_mut(index) {
            *bin += u64::from(payload) + header;
        }
    }
    Some(
        bytes
            .iter()
            .enumerate()
            .map(|(index, &b)| {
                let middle = (index as f64 + 0.5) * bin_ns as f64 - (first - start) as f64;
                ChartPoint::new(middle / 1e9, b as f64 * 8.0 / (bin_ns as f64 / 1e9) / unit)
            })
            .collect(),
    )
}

/// Most samples [`frame_bins`] merges into one bin.
const MAX_MERGED: usize = 10;

/// The media chart's bin, ms: the sample interval merged up to a whole
/// number of packet intervals (as [`frame_bins`] merges samples).
fn bin_ms(interval_ms: u64, frame_ns: u64) -> u64 {
    let sample = interval_ms * 1_000_000;
    let merge = if frame_ns == 0 || sample == 0 {
        1
    } else {
        frame_ns / gcd(sample, frame_ns)
    };
    if (2..=MAX_MERGED as u64).contains(&merge) {
        interval_ms * merge
    } else {
        interval_ms
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Header bytes per packet on the link of `arm`'s media stream at `point`:
/// its mean Ethernet frame (the analysis' header model) less the mean
/// payload per packet `o` received; `None` without either.
fn link_header_bytes(view: &RunView<'_>, point: usize, arm: &Arm, o: &Observations) -> Option<u64> {
    let frame = view
        .run
        .analysis
        .as_ref()?
        .summaries
        .iter()
        .find(|s| {
            s.point == point && s.arm == arm.id && s.metric == MetricId::MediaEthernetFrameBytes
        })?
        .summary
        .mean;
    let payload = o.receiver.bytes as f64 / o.receiver.packets as f64;
    (o.receiver.packets > 0 && frame >= payload).then(|| (frame - payload).round() as u64)
}

/// The first successful trial of `arm` at `point`.
fn first_trial<'a>(view: &RunView<'a>, point: usize, arm: &Arm) -> Option<&'a Trial> {
    view.run
        .trials
        .iter()
        .filter(|t| t.point == point && t.arm == arm.id && matches!(t.outcome, TrialOutcome::Ok(_)))
        .min_by_key(|t| t.repetition)
}

fn chart(name: String, y_label: &str, series: Vec<Series>, x_label: &str) -> LineChart {
    LineChart {
        name,
        x_label: x_label.to_string(),
        y_label: y_label.to_string(),
        x_log_ticks: None,
        x_ticks: Ticks::Number,
        y_ticks: Ticks::Number,
        x_from_zero: true,
        y_from_zero: true,
        zero_line: false,
        size: (640, 320),
        series,
        x_marks: Vec::new(),
    }
}

/// The media-flow and competing-load series of every media point, per family.
pub(crate) fn media_series(view: &RunView<'_>) -> Result<Vec<Figure>, ReportError> {
    let mut figures = Vec::new();
    for (point, spec) in view.run.config.points.iter().enumerate() {
        if spec.kind != dualperf_model::TestKind::Media {
            continue;
        }
        for family in IpFamily::ALL {
            let arms: Vec<(usize, &Arm)> = view
                .arms()
                .iter()
                .enumerate()
                .filter(|(_, arm)| arm.family == family)
                .collect();
            let mut media = Vec::new();
            let mut loads = Vec::new();
            let mut headers = Vec::new();
            let interval_ms = spec.sample_interval_ms;
            for &(index, arm) in &arms {
                let Some(trial) = first_trial(view, point, arm) else {
                    continue;
                };
                let TrialOutcome::Ok(observations) = &trial.outcome else {
                    continue;
                };
                let (color, dashed, _) = style::arm(index);
                let frame_ns = spec.media.as_ref().map_or(0, |m| m.frame_interval_ns());
                let header = link_header_bytes(view, point, arm, observations);
                let bin_ns = bin_ms(spec.sample_interval_ms, frame_ns) * 1_000_000;
                let points = header.map_or_else(Vec::new, |header| {
                    let traced = spec.media.as_ref().zip(observations.udp.as_ref()).and_then(
                        |(profile, udp)| arrival_points(udp, profile, header, bin_ns, 1e3),
                    );
                    traced.unwrap_or_else(|| {
                        rate_points(&frame_bins(&observations.intervals, frame_ns), 1e3, header)
                    })
                });
                headers.extend(header);
                if points.len() >= 2 {
                    media.push(Series {
                        label: arm.label.clone(),
                        color,
                        dashed,
                        marker: Marker::None,
                        points,
                    });
                }
                for load in &observations.loads {
                    let points = rate_points(&load.observations.intervals, 1e6, 0);
                    if points.len() >= 2 {
                        loads.push(Series {
                            label: format!("{} (beside {})", load.label, arm.label),
                            color,
                            dashed,
                            marker: Marker::None,
                            points,
                        });
                    }
                }
            }
            let bin_ms = bin_ms(
                interval_ms,
                spec.media.as_ref().map_or(0, |m| m.frame_interval_ns()),
            );
            let media_chart = chart(
                format!("media-series-{point}-{}", family.key()),
                "Ethernet frames received (kbit/s)",
                media,
                "time since the media flow's first packet arrived (s)",
            );
            if !media_chart.is_empty() {
                let id = media_chart.name.clone();
                figures.push(Figure {
                    title: format!("{} {} received per {bin_ms} ms", family.label(), spec.label()),
                    caption: html! { (format!(
                        "The media flow as a capture on the link counts it: per {bin_ms} ms (a whole number of packets, so a constant-rate codec draws flat), the UDP payload received (RTP header included; bins start half a packet interval before the first arrival) plus {} bytes of Ethernet, IP and UDP header per packet (the header model), × 8 / interval; first repetition of each condition. The paper's Figs 3–7: IPv6's 20 more header bytes per packet raise the rate of the same stream.",
                        headers.first().copied().unwrap_or_default()
                    )) },
                    facts: FigureFacts::lines(media_chart.series.len()),
                    svg: line::render(&media_chart)?,
                    id,
                });
            }
            let largest = loads
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.y))
                .fold(0.0, f64::max);
            let (factor, unit) = crate::charts::time_series::readable(largest, "Mbit/s", "Gbit/s");
            crate::charts::time_series::scale_y(&mut loads, factor);
            let load_chart = chart(
                format!("load-series-{point}-{}", family.key()),
                &format!("received ({unit})"),
                loads,
                "time since the load's measured interval began (s; it starts before the media flow's)",
            );
            if !load_chart.is_empty() {
                let id = load_chart.name.clone();
                figures.push(Figure {
                    title: format!("{} competing loads beside {}", family.label(), spec.label()),
                    caption: html! { (format!(
                        "Each competing load's payload received per {interval_ms} ms interval, counted when it arrived at the receiving host (kernel timestamps, not when the receiver read it), × 8 / interval, in the run beside the media flow's first repetition; the paper's Fig 8."
                    )) },
                    facts: FigureFacts::lines(load_chart.series.len()),
                    svg: line::render(&load_chart)?,
                    id,
                });
            }
        }
    }
    Ok(figures)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The samples a 50 ms sampler records of a G.711 stream: a 200-byte
    /// packet every 20 ms, the first `phase_ms` after the interval began.
    fn g711_samples(phase_ms: u64, seconds: u64) -> Vec<IntervalSample> {
        let sample_ns = 50_000_000;
        let packets: Vec<u64> = (0..seconds * 50)
            .map(|i| phase_ms * 1_000_000 + i * 20_000_000)
            .collect();
        (1..=seconds * 20)
            .map(|n| {
                let end_ns = n * sample_ns;
                let count = packets
                    .iter()
                    .filter(|&&t| t >= end_ns - sample_ns && t < end_ns)
                    .count() as u64;
                IntervalSample {
                    end_ns,
                    length_ns: sample_ns,
                    received_packets: count,
                    received_bytes: count * 200,
                    ..IntervalSample::default()
                }
            })
            .collect()
    }

    fn spread(points: &[ChartPoint]) -> f64 {
        let (low, high) = points
            .iter()
            .fold((f64::MAX, f64::MIN), |(l, h), p| (l.min(p.y), h.max(p.y)));
        let mean = points.iter().map(|p| p.y).sum::<f64>() / points.len() as f64;
        (high - low) / mean
    }

    #[test]
    fn a_constant_rate_g711_stream_draws_flat_within_2_percent() {
        for phase in [0, 7, 13, 19] {
            let samples = g711_samples(phase, 10);
            // Per 50 ms: 2 or 3 packets, the zig-zag of the issue.
            let raw = rate_points(&samples, 1e3, 54);
            assert!(
                spread(&raw) > 0.3,
                "phase {phase}: raw spread {}",
                spread(&raw)
            );
            let binned = rate_points(&frame_bins(&samples, 20_000_000), 1e3, 54);
            assert!(binned.len() >= 40, "{} bins", binned.len());
            assert!(
                spread(&binned) <= 0.02,
                "phase {phase}: binned spread {}",
                spread(&binned)
            );
            // 50 packets/s × (200 + 54) B × 8 = 101.6 kbit/s.
            assert!((binned[0].y - 101.6).abs() < 0.01, "{}", binned[0].y);
        }
    }

    #[test]
    fn a_jittered_g711_trace_draws_flat_from_its_arrivals() {
        use dualperf_model::observation::Arrival;
        use dualperf_model::{VoiceCodec, VoiceProfile};
        let profile = MediaProfile::Voice(VoiceProfile {
            codec: VoiceCodec::G711,
            packet_ms: 20,
        });
        // 10 s of packets every 20 ms, arriving 13 to 21 ms after sending.
        let arrivals: Vec<Arrival> = (0..500u64)
            .map(|i| Arrival {
                sequence: i,
                sent_ns: (i * 20_000_000) as i64,
                received_ns: (i * 20_000_000 + 13_000_000 + (i * 7919) % 9 * 1_000_000) as i64,
            })
            .collect();
        let udp = UdpReceiveCounters {
            received: 500,
            arrivals,
            ..UdpReceiveCounters::default()
        };
        let points = arrival_points(&udp, &profile, 42, 100_000_000, 1e3).unwrap();
        assert!(points.len() >= 98, "{} bins", points.len());
        assert!(spread(&points) <= 0.02, "spread {}", spread(&points));
        // 50 packets/s × 214 B × 8 = 85.6 kbit/s.
        assert!((points[0].y - 85.6).abs() < 1e-9, "{}", points[0].y);
        // An incomplete trace is not drawn from.
        let partial = UdpReceiveCounters {
            received: 501,
            ..udp
        };
        assert!(arrival_points(&partial, &profile, 42, 100_000_000, 1e3).is_none());
    }

    #[test]
    fn bins_are_a_whole_number_of_frames_and_samples() {
        let samples = g711_samples(0, 1);
        let bins = frame_bins(&samples, 20_000_000);
        assert_eq!(bins.len(), 10);
        assert!(bins.iter().all(|b| b.length_ns == 100_000_000));
        assert_eq!(bins[0].end_ns, 100_000_000);
        // A frame interval that divides the sample: nothing to merge.
        assert_eq!(frame_bins(&samples, 10_000_000), samples);
        // One that would need too many samples: left as it is.
        assert_eq!(frame_bins(&samples, 49_000_000), samples);
    }
}

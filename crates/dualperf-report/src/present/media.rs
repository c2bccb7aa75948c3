//! Words for real-time media: what a MOS means to callers, and the rows of
//! the media table (terminal and HTML share them).
//!
//! The categories are ITU-T G.107 Annex B, Table B.1 (R and MOS against
//! user satisfaction): MOS ≥ 4.34 very satisfied, ≥ 4.03 satisfied, ≥ 3.60
//! some users dissatisfied, ≥ 3.10 many users dissatisfied, ≥ 2.58 nearly
//! all users dissatisfied, below that not recommended.

use dualperf_model::{Analysis, ArmId, MetricId, RunResult, TestKind};

use super::value::format_value;

/// Bytes a capture shows around one UDP payload on Ethernet: the 14-byte
/// Ethernet header (no preamble, no FCS: what tcpdump and the OpenH323
/// paper's sniffer counted), the IPv4 (20) or IPv6 (40) header without
/// options, and the 8-byte UDP header. G.711 in 20 ms: 172 B of UDP payload
/// make 214-byte frames on IPv4 and 234-byte frames on IPv6.
pub fn captured_frame_overhead_bytes(family: dualperf_model::IpFamily) -> u64 {
    14 + 8
        + match family {
            dualperf_model::IpFamily::V4 => 20,
            dualperf_model::IpFamily::V6 => 40,
        }
}

/// The G.107 Annex B user-satisfaction category of a MOS.
pub fn mos_category(mos: f64) -> &'static str {
    match mos {
        m if m >= 4.34 => "very satisfied",
        m if m >= 4.03 => "satisfied",
        m if m >= 3.60 => "some users dissatisfied",
        m if m >= 3.10 => "many users dissatisfied",
        m if m >= 2.58 => "nearly all users dissatisfied",
        _ => "not recommended",
    }
}

/// The mean of `metric` at `point` on `arm`, if summarised.
fn mean(analysis: &Analysis, point: usize, metric: MetricId, arm: &ArmId) -> Option<f64> {
    analysis
        .summaries
        .iter()
        .find(|s| s.point == point && s.metric == metric && &s.arm == arm)
        .map(|s| s.summary.mean)
}

/// One row of the media table: an arm's label and its cells.
#[derive(Clone, Debug, PartialEq)]
pub struct MediaRow {
    /// The arm's label.
    pub arm: String,
    /// (column heading, formatted value), in column order.
    pub cells: Vec<(&'static str, String)>,
    /// The MOS and its category, for voice.
    pub mos: Option<(f64, &'static str)>,
}

/// The metrics each row shows, by voice or video.
const VOICE_COLUMNS: [(MetricId, &str); 5] = [
    (MetricId::MediaFixedBufferMos, "fixed buffer"),
    (MetricId::MediaWorstWindowMos, "worst 10 s"),
    (MetricId::PlayoutLossRatio, "lost + late"),
    (MetricId::MouthToEarNs, "mouth-to-ear"),
    (MetricId::GoodputBps, "rate"),
];
const VIDEO_COLUMNS: [(MetricId, &str); 5] = [
    (MetricId::FrameDeliveryRatio, "frames delivered"),
    (MetricId::FrameDelayP50Ns, "frame delay p50"),
    (MetricId::LossRatio, "packet loss"),
    (MetricId::OwdP50Ns, "one-way delay p50"),
    (MetricId::GoodputBps, "rate"),
];

/// The media table of `point` (a media point): one row per arm.
pub fn media_rows(run: &RunResult, analysis: &Analysis, point: usize) -> Vec<MediaRow> {
    let Some(spec) = run.config.points.get(point) else {
        return Vec::new();
    };
    let video = spec.media.as_ref().is_some_and(|m| m.is_video());
    let columns = if video {
        &VIDEO_COLUMNS
    } else {
        &VOICE_COLUMNS
    };
    run.config
        .arms
        .iter()
        .map(|arm| {
            let mos = (!video)
                .then(|| mean(analysis, point, MetricId::MediaMos, &arm.id))
                .flatten()
                .map(|m| (m, mos_category(m)));
            let cells = columns
                .iter()
                .map(|&(metric, heading)| {
                    let value = mean(analysis, point, metric, &arm.id)
                        .map_or_else(|| "–".to_string(), |v| format_value(metric, v));
                    (heading, value)
                })
                .collect();
            MediaRow {
                arm: arm.label.clone(),
                cells,
                mos,
            }
        })
        .collect()
}

/// The media points of a run, in order.
pub fn media_points(run: &RunResult) -> Vec<usize> {
    run.config
        .points
        .iter()
        .enumerate()
        .filter(|(_, spec)| spec.kind == TestKind::Media)
        .map(|(index, _)| index)
        .collect()
}

/// The answer's first sentences for real-time media: per voice point, each
/// arm's MOS and what it means to callers, then which contrasts differ
/// significantly on MOS (by each comparison's own baseline).
pub fn mos_sentences(run: &RunResult) -> Vec<String> {
    let Some(analysis) = run.analysis.as_ref() else {
        return Vec::new();
    };
    let label = |id: &ArmId| {
        run.config
            .arms
            .iter()
            .find(|a| &a.id == id)
            .map_or_else(|| id.to_string(), |a| a.label.clone())
    };
    let mut sentences = Vec::new();
    for point in media_points(run) {
        let rows = media_rows(run, analysis, point);
        let scores: Vec<String> = rows
            .iter()
            .filter_map(|row| {
                let (mos, category) = row.mos?;
                Some(format!("{} {mos:.2} ({category})", row.arm))
            })
            .collect();
        if scores.is_empty() {
            continue;
        }
        let differ: Vec<String> = analysis
            .comparisons
            .iter()
            .filter(|c| c.point == point && c.metric == MetricId::MediaMos)
            .filter(|c| crate::present::claims_significance(c))
            .map(|c| {
                format!(
                    "{} against {} {:+.2}",
                    label(&c.arm),
                    label(&c.baseline),
                    c.arm_summary.mean - c.baseline_summary.mean
                )
            })
            .collect();
        let verdict = if differ.is_empty() {
            "no MOS difference is significant".to_string()
        } else {
            format!("significant: {}", differ.join("; "))
        };
        sentences.push(format!(
            "MOS (ITU-T G.107), {}: {}; {verdict}.",
            run.config.points[point].label(),
            scores.join(", ")
        ));
    }
    sentences
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_categories_follow_g107_annex_b() {
        assert_eq!(mos_category(4.41), "very satisfied");
        assert_eq!(mos_category(4.2), "satisfied");
        assert_eq!(mos_category(3.7), "some users dissatisfied");
        assert_eq!(mos_category(3.2), "many users dissatisfied");
        assert_eq!(mos_category(2.7), "nearly all users dissatisfied");
        assert_eq!(mos_category(1.0), "not recommended");
    }
}

//! Words for real-time media: what a MOS means to callers, and the rows of
//! the media table (terminal and HTML share them).
//!
//! The categories are ITU-T G.107 Annex B, Table B.1 (R and MOS against
//! user satisfaction): MOS ≥ 4.34 very satisfied, ≥ 4.03 satisfied, ≥ 3.60
//! some users dissatisfied, ≥ 3.10 many users dissatisfied, ≥ 2.58 nearly
//! all users dissatisfied, below that not recommended.

use dualperf_model::{Analysis, ArmId, MetricId, RunResult, TestKind};

use super::value::format_value;

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
const VOICE_COLUMNS: [(MetricId, &str); 7] = [
    (MetricId::MediaFixedBufferMos, "fixed buffer"),
    (MetricId::MediaWorstWindowMos, "worst 10 s"),
    (MetricId::PlayoutLossRatio, "lost + late"),
    (MetricId::MouthToEarNs, "mouth-to-ear"),
    (MetricId::GoodputBps, "payload rate"),
    (MetricId::MediaEthernetFrameBytes, "Ethernet frame"),
    (MetricId::MediaEthernetBps, "on the link"),
];
const VIDEO_COLUMNS: [(MetricId, &str); 7] = [
    (MetricId::FrameDeliveryRatio, "frames delivered"),
    (MetricId::FrameDelayP50Ns, "frame delay p50"),
    (MetricId::LossRatio, "packet loss"),
    (MetricId::OwdP50Ns, "one-way delay p50"),
    (MetricId::GoodputBps, "payload rate"),
    (MetricId::MediaEthernetFrameBytes, "Ethernet frame"),
    (MetricId::MediaEthernetBps, "on the link"),
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

/// The media stream on the link, per media point: for every comparison
/// of two arms that differ in family with a header theory (idle, native),
/// the Ethernet frames of each, the measured rates on the link, and the
/// theory beside them (seed 000's headline: the same stream costs IPv6
/// 20 more bytes per packet).
pub fn link_sentences(run: &RunResult) -> Vec<String> {
    let Some(analysis) = run.analysis.as_ref() else {
        return Vec::new();
    };
    let arm_of = |id: &ArmId| run.config.arms.iter().find(|a| &a.id == id);
    let mut sentences = Vec::new();
    for point in media_points(run) {
        for c in analysis.comparisons.iter().filter(|c| {
            c.point == point
                && c.metric == MetricId::MediaEthernetBps
                && c.theoretical_relative_difference.is_some()
        }) {
            let (Some(arm), Some(baseline)) = (arm_of(&c.arm), arm_of(&c.baseline)) else {
                continue;
            };
            if arm.family == baseline.family {
                continue;
            }
            let frame = |id: &ArmId| mean(analysis, point, MetricId::MediaEthernetFrameBytes, id);
            let (Some(arm_frame), Some(baseline_frame), Some(theory)) = (
                frame(&arm.id),
                frame(&baseline.id),
                c.theoretical_relative_difference,
            ) else {
                continue;
            };
            let header = i64::from(arm.family.ip_header_bytes())
                - i64::from(baseline.family.ip_header_bytes());
            let measured = c
                .relative_difference
                .map_or_else(String::new, |r| format!(", {:+.1} % measured", r * 100.0));
            sentences.push(format!(
                "{} on the link: {} {:+.1} % on the wire, {arm_frame:.0} vs {baseline_frame:.0} B Ethernet frames ({} vs {}{measured}); header theory {:+.1} % ({header:+} B of IP header per packet).",
                run.config.points[point].label(),
                arm.family.label(),
                (arm_frame / baseline_frame - 1.0) * 100.0,
                format_value(MetricId::MediaEthernetBps, c.arm_summary.mean),
                format_value(MetricId::MediaEthernetBps, c.baseline_summary.mean),
                theory * 100.0,
            ));
        }
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

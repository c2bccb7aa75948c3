//! The report's real-time media section: a MOS table per voice point and a
//! frame-delivery table per video point (one row per arm: family ×
//! condition), then the 50 ms throughput series of the media flows and of
//! the competing loads ([`crate::charts::media`]).

use crate::charts::media::media_series;
use crate::error::ReportError;
use crate::html::escape;
use crate::present::media::{media_points, media_rows};
use crate::view::RunView;

/// The section, empty when the run has no media point.
pub(crate) fn section(view: &RunView<'_>) -> Result<String, ReportError> {
    let run = view.run;
    let Some(analysis) = run.analysis.as_ref() else {
        return Ok(String::new());
    };
    let points = media_points(run);
    if points.is_empty() {
        return Ok(String::new());
    }
    let mut html = String::from(
        "<section id=\"media\"><h2>Real-time media</h2>\n<p class=\"note\">Means over repetitions. \
         MOS: ITU-T G.107 E-model with the codec's Ie and Bpl (G.113 Appendix I) behind a jitter \
         buffer — adaptive (the largest delay of the last second plus one packet interval) unless \
         it says fixed (first packet's delay + 40 ms); late packets count as lost; mouth-to-ear \
         delay = one-way delay + buffer + packetisation. Words: G.107 Annex B. Video: a frame is \
         delivered when all its packets arrived.</p>\n",
    );
    for point in points {
        let spec = &run.config.points[point];
        let rows = media_rows(run, analysis, point);
        let Some(first) = rows.first() else { continue };
        html.push_str(&format!(
            "<h3>[{}] {}</h3>\n<table class=\"media\"><thead><tr><th>arm</th>",
            point + 1,
            escape(&spec.label())
        ));
        if first.mos.is_some() || !spec.media.as_ref().is_some_and(|m| m.is_video()) {
            html.push_str("<th class=\"num\">MOS</th><th>callers</th>");
        }
        for (heading, _) in &first.cells {
            html.push_str(&format!("<th class=\"num\">{}</th>", escape(heading)));
        }
        html.push_str("</tr></thead><tbody>\n");
        let video = spec.media.as_ref().is_some_and(|m| m.is_video());
        for row in &rows {
            html.push_str(&format!("<tr><td>{}</td>", escape(&row.arm)));
            if !video {
                match row.mos {
                    Some((mos, category)) => html.push_str(&format!(
                        "<td class=\"num\">{mos:.2}</td><td>{}</td>",
                        escape(category)
                    )),
                    None => html.push_str("<td>–</td><td></td>"),
                }
            }
            for (_, value) in &row.cells {
                html.push_str(&format!("<td class=\"num\">{}</td>", escape(value)));
            }
            html.push_str("</tr>\n");
        }
        html.push_str("</tbody></table>\n");
    }
    let figures = media_series(view)?;
    if !figures.is_empty() {
        html.push_str("<div class=\"figures\">\n");
        for figure in &figures {
            html.push_str(&super::figure_html(figure));
        }
        html.push_str("</div>\n");
    }
    html.push_str("</section>\n");
    Ok(html)
}

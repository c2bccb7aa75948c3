//! The report's real-time media section: a MOS table per voice point and a
//! frame-delivery table per video point (one row per arm: family ×
//! condition), then the 50 ms throughput series of the media flows and of
//! the competing loads ([`crate::charts::media`]).

use maud::{html, Markup};

use crate::charts::media::media_series;
use crate::error::ReportError;
use crate::present::media::{media_points, media_rows};
use crate::view::RunView;

/// What the tables' numbers are: the models and standards behind them.
const NOTE: &str = "Means over repetitions. \
MOS: ITU-T G.107 E-model with the codec's Ie and Bpl (G.113 Appendix I) behind a jitter \
buffer — adaptive (the largest delay of the last second plus one packet interval) unless \
it says fixed (first packet's delay + 40 ms); late packets count as lost; mouth-to-ear \
delay = one-way delay + buffer + packetisation. Words: G.107 Annex B. Video: a frame is \
delivered when all its packets arrived.";

/// The section, empty when the run has no media point: a maud template,
/// so labels and values are escaped by the template.
pub(crate) fn section(view: &RunView<'_>) -> Result<Markup, ReportError> {
    let run = view.run;
    let Some(analysis) = run.analysis.as_ref() else {
        return Ok(html! {});
    };
    let points = media_points(run);
    if points.is_empty() {
        return Ok(html! {});
    }
    let figures = media_series(view)?;
    let html = html! {
        section id="media" {
            h2 { "Real-time media" }
            p class="note" { (NOTE) }
            @for point in points {
                @let spec = &run.config.points[point];
                @let rows = media_rows(run, analysis, point);
                @let video = spec.media.as_ref().is_some_and(|m| m.is_video());
                @if let Some(first) = rows.first() {
                    h3 { "[" (point + 1) "] " (spec.label()) }
                    table class="media" {
                        thead {
                            tr {
                                th { "arm" }
                                @if first.mos.is_some() || !video {
                                    th class="num" { "MOS" }
                                    th { "callers" }
                                }
                                @for (heading, _) in &first.cells { th class="num" { (heading) } }
                            }
                        }
                        tbody {
                            @for row in &rows {
                                tr {
                                    td { (row.arm) }
                                    @if !video {
                                        @match row.mos {
                                            Some((mos, category)) => {
                                                td class="num" { (format!("{mos:.2}")) }
                                                td { (category) }
                                            }
                                            None => {
                                                td { "–" }
                                                td {}
                                            }
                                        }
                                    }
                                    @for (_, value) in &row.cells { td class="num" { (value) } }
                                }
                            }
                        }
                    }
                }
            }
            @if !figures.is_empty() {
                div class="figures" {
                    @for figure in &figures { (super::figure_html(figure)) }
                }
            }
        }
    };
    Ok(html)
}

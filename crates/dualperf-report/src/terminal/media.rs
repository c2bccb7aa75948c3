//! The terminal's media block: for every media point, a table of one row
//! per arm with the MOS and what it means to callers (voice, ITU-T G.107
//! Annex B), or frame delivery (video), and the numbers behind them.

use dualperf_model::{Analysis, RunResult};

use super::table::render_table;
use crate::present::media::{media_points, media_rows};
use crate::present::value::format_quantity;

/// The media block, `None` when the run has no media point.
pub fn render_media(result: &RunResult, analysis: &Analysis) -> Option<String> {
    let points = media_points(result);
    if points.is_empty() {
        return None;
    }
    let mut out = String::from(
        "Real-time media (means over repetitions; MOS: ITU-T G.107 E-model behind an adaptive \
         jitter buffer, late packets lost):\n",
    );
    for point in points {
        let spec = &result.config.points[point];
        out.push_str(&format!("[{}] {}\n", point + 1, spec.label()));
        let rows = media_rows(result, analysis, point);
        let Some(first) = rows.first() else {
            continue;
        };
        let voice = first.mos.is_some();
        let mut header = vec!["arm".to_string()];
        if voice {
            header.push("MOS".to_string());
        }
        header.extend(first.cells.iter().map(|(heading, _)| heading.to_string()));
        let mut table = vec![header];
        for row in &rows {
            let mut cells = vec![row.arm.clone()];
            if voice {
                cells.push(row.mos.map_or_else(
                    || "—".to_string(),
                    |(mos, category)| {
                        format!(
                            "{} ({category})",
                            format_quantity(dualperf_model::Quantity::Count("MOS"), mos)
                                .trim_end_matches(" MOS")
                        )
                    },
                ));
            }
            cells.extend(row.cells.iter().map(|(_, value)| value.clone()));
            table.push(cells);
        }
        for line in render_table(&table, &[], None).lines() {
            out.push_str("  ");
            out.push_str(line);
            out.push('\n');
        }
    }
    for sentence in crate::present::media::link_sentences(result) {
        out.push_str(&sentence);
        out.push('\n');
    }
    Some(out)
}

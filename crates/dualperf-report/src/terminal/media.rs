//! The terminal's media block: for every media point, one line per arm
//! with the MOS and what it means to callers (voice, ITU-T G.107 Annex B),
//! or frame delivery (video), and the numbers behind them.

use dualperf_model::{Analysis, RunResult};

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
        let width = rows
            .iter()
            .map(|r| r.arm.chars().count())
            .max()
            .unwrap_or(0);
        for row in rows {
            let mut line = format!("  {:<width$}  ", row.arm);
            if let Some((mos, category)) = row.mos {
                line.push_str(&format!(
                    "MOS {} ({category})",
                    format_quantity(dualperf_model::Quantity::Count("MOS"), mos)
                        .trim_end_matches(" MOS")
                ));
            }
            let cells: Vec<String> = row
                .cells
                .iter()
                .map(|(heading, value)| format!("{heading} {value}"))
                .collect();
            if row.mos.is_some() {
                line.push_str(", ");
            }
            line.push_str(&cells.join(", "));
            out.push_str(line.trim_end());
            out.push('\n');
        }
    }
    Some(out)
}

//! The router CPU section of the HTML report: per point, a row per router
//! and a column per arm, from [`crate::present::router_cpu`]. Empty for a
//! run without routers (and for the DiffServ experiment, whose section has
//! its own router table).

use dualperf_model::RunResult;

use super::escape;
use crate::present::router_cpu::{router_cpu_tables, ROUTER_CPU_TITLE};

/// The section, or an empty string.
pub(crate) fn section(run: &RunResult) -> String {
    let tables = router_cpu_tables(run);
    if tables.is_empty() {
        return String::new();
    }
    let mut html = format!(
        "<section id=\"router-cpu\"><h2>Router CPU</h2>\n<p class=\"note\">{}</p>\n",
        escape(ROUTER_CPU_TITLE)
    );
    for table in tables {
        html.push_str(&format!(
            "<h3>{}</h3><table class=\"router-cpu\"><thead><tr><th>router</th>",
            escape(&table.point)
        ));
        for arm in &table.arms {
            html.push_str(&format!("<th>{}</th>", escape(arm)));
        }
        html.push_str("</tr></thead><tbody>\n");
        for (node, cells) in &table.rows {
            html.push_str(&format!("<tr><td>{}</td>", escape(node)));
            for cell in cells {
                html.push_str(&format!("<td class=\"num\">{}</td>", escape(cell)));
            }
            html.push_str("</tr>\n");
        }
        html.push_str("</tbody></table>\n");
        if let Some(shared) = &table.shared {
            html.push_str(&format!("<p class=\"note\">{}</p>\n", escape(shared)));
        }
    }
    html.push_str("</section>\n");
    html
}

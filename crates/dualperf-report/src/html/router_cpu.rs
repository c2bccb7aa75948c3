//! The router CPU section of the HTML report: per point, a row per router
//! and a column per arm, from [`crate::present::router_cpu`]. Empty for a
//! run without routers (and for the DiffServ experiment, whose section has
//! its own router table).

use dualperf_model::RunResult;
use maud::html;

use crate::present::router_cpu::{router_cpu_tables, ROUTER_CPU_TITLE};

/// The section, or an empty string. Tables are as wide as their columns
/// and every numeric header sits over its (right-aligned) numbers.
pub(crate) fn section(run: &RunResult) -> String {
    let tables = router_cpu_tables(run);
    if tables.is_empty() {
        return String::new();
    }
    let mut html = html! {
        section id="router-cpu" {
            h2 { "Router CPU" }
            p class="note" { (ROUTER_CPU_TITLE) }
            @for table in &tables {
                h3 { (table.point) }
                table class="router-cpu" style="width: auto" {
                    thead {
                        tr {
                            th { "router" }
                            @for arm in &table.arms { th class="num" { (arm) } }
                        }
                    }
                    tbody {
                        @for (node, cells) in &table.rows {
                            tr {
                                td { (node) }
                                @for cell in cells { td class="num" { (cell) } }
                            }
                        }
                    }
                }
                @if let Some(shared) = &table.shared {
                    p class="note" { (shared) }
                }
            }
        }
    }
    .into_string();
    html.push('\n');
    html
}

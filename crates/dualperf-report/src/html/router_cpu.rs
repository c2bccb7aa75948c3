//! The router CPU section of the HTML report: one table, a row per point
//! and router and a column per arm, from [`crate::present::router_cpu`].
//! Empty for a run without routers (and for the DiffServ experiment, whose
//! section has its own router table).

use dualperf_model::RunResult;
use maud::html;

use crate::present::router_cpu::{router_cpu_table, ROUTER_CPU_TITLE};

/// The section, or an empty string. The table is as wide as its columns
/// and every numeric header sits over its (right-aligned) numbers.
pub(crate) fn section(run: &RunResult) -> String {
    let Some(table) = router_cpu_table(run) else {
        return String::new();
    };
    let with_router = table.only_router.is_none();
    let mut html = html! {
        section id="router-cpu" {
            h2 { "Router CPU" }
            p class="note" { (ROUTER_CPU_TITLE) }
            @if let Some(router) = &table.only_router {
                p { "Router: " (router) }
            }
            table class="router-cpu" style="width: auto" {
                thead {
                    tr {
                        th { "point" }
                        @if with_router { th { "router" } }
                        @for arm in &table.arms { th class="num" { (arm) } }
                    }
                }
                tbody {
                    @for (i, row) in table.rows.iter().enumerate() {
                        tr {
                            @if i == 0 || table.rows[i - 1].point != row.point {
                                td { (row.point) }
                            } @else {
                                td {}
                            }
                            @if with_router { td { (row.router) } }
                            @for cell in &row.cells { td class="num" { (cell) } }
                        }
                    }
                }
            }
            @if let Some(shared) = &table.shared {
                p class="note" { (shared) }
            }
        }
    }
    .into_string();
    html.push('\n');
    html
}

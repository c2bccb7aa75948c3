//! Router CPU per router and arm in the terminal (a lab run on a testbed
//! with routers): one table per point, from
//! [`crate::present::router_cpu`].

use dualperf_model::RunResult;

use super::table::{render_table, Align};
use crate::present::router_cpu::{router_cpu_tables, ROUTER_CPU_TITLE};

/// The router CPU tables of `result`, or `None` when it has none.
pub fn render_router_cpu(result: &RunResult) -> Option<String> {
    let tables = router_cpu_tables(result);
    if tables.is_empty() {
        return None;
    }
    let mut out = format!("{ROUTER_CPU_TITLE}:\n");
    for table in tables {
        out.push_str(&format!("  {}\n", table.point));
        let mut rows = vec![std::iter::once("router".to_string())
            .chain(table.arms.iter().cloned())
            .collect::<Vec<_>>()];
        rows.extend(
            table
                .rows
                .into_iter()
                .map(|(node, cells)| std::iter::once(node).chain(cells).collect()),
        );
        for line in render_table(&rows, &[Align::Left], None).lines() {
            out.push_str(&format!("  {line}\n"));
        }
        if let Some(shared) = &table.shared {
            out.push_str(&format!("  ({shared})\n"));
        }
    }
    Some(out)
}

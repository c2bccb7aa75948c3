//! Router CPU per router and arm in the terminal (a lab run on a testbed
//! with routers): one table, a row per point and router, from
//! [`crate::present::router_cpu`].

use dualperf_model::RunResult;

use super::table::{render_table, Align};
use crate::present::router_cpu::{router_cpu_table, ROUTER_CPU_TITLE};

/// The router CPU table of `result`, or `None` when it has none.
pub fn render_router_cpu(result: &RunResult) -> Option<String> {
    let table = router_cpu_table(result)?;
    let mut out = format!("{ROUTER_CPU_TITLE}:\n");
    if let Some(router) = &table.only_router {
        out.push_str(&format!("  {router}\n"));
    }
    let with_router = table.only_router.is_none();
    let mut header = vec!["point".to_string()];
    if with_router {
        header.push("router".to_string());
    }
    header.extend(table.arms.iter().cloned());
    let mut rows = vec![header];
    let mut previous: Option<&str> = None;
    for row in &table.rows {
        // A point's name once, on its first router's row.
        let point = if previous == Some(row.point.as_str()) {
            String::new()
        } else {
            row.point.clone()
        };
        previous = Some(&row.point);
        let mut cells = vec![point];
        if with_router {
            cells.push(row.router.clone());
        }
        cells.extend(row.cells.iter().cloned());
        rows.push(cells);
    }
    let align = if with_router {
        vec![Align::Left, Align::Left]
    } else {
        vec![Align::Left]
    };
    for line in render_table(&rows, &align, None).lines() {
        out.push_str(&format!("  {line}\n"));
    }
    if let Some(shared) = &table.shared {
        out.push_str(&format!("  ({shared})\n"));
    }
    Some(out)
}

//! `dualperf lab diffserv` in the terminal: the per-class table and
//! verdicts IPv6 against IPv4, the done-when check, the load-step table
//! (the paper's Table 2), the conditioner checks and how router CPU was
//! attributed. Words and numbers come from [`crate::present::diffserv`].

use dualperf_model::RunResult;

use crate::present::diffserv::{short_of_rate_note, DiffServView, CLASS_METRICS};

/// The DiffServ experiments of `result` as text; empty when `result` is
/// not one.
pub fn render_diffserv(result: &RunResult) -> String {
    let Some(view) = DiffServView::of(result) else {
        return String::new();
    };
    let mut out = String::new();
    out.push_str(
        "Per class (EF: the measured probe; BE, LBE: probes in the load; means over repetitions), IPv4 | IPv6:\n",
    );
    let names: Vec<&str> = CLASS_METRICS.iter().map(|m| m.label()).collect();
    out.push_str(&format!(
        "  {:<13} {:<5} {}\n",
        "condition",
        "class",
        names.join(" · ")
    ));
    for row in view.class_rows() {
        out.push_str(&format!(
            "  {:<13} {:<5} {}  |  {}\n",
            row.condition,
            row.class,
            row.cells[0].join(" · "),
            row.cells[1].join(" · ")
        ));
    }
    out.push_str("\nVerdicts per class, IPv6 against IPv4 (paired by repetition, 95 % CI):\n");
    for line in view.verdicts() {
        out.push_str(&format!("  {line}\n"));
    }
    out.push_str("\nEF under load (issue 12: p99 within 2 ms of idle, no EF loss, BE loses):\n");
    for line in view.done_when() {
        out.push_str(&format!("  {line}\n"));
    }
    let (header, rows) = view.step_table();
    let has_steps = !rows.is_empty();
    if has_steps {
        out.push_str(
            "\nLoad-step table: BE UDP loss, % of datagrams (load in % of the core link):\n",
        );
        out.push_str(&format!("  {:>6}", "size B"));
        for cell in &header {
            out.push_str(&format!(" {cell:>10}"));
        }
        out.push('\n');
        for (size, cells) in rows {
            out.push_str(&format!("  {size:>6}"));
            for cell in cells {
                out.push_str(&format!(" {cell:>10}"));
            }
            out.push_str(&format!("\n  {:>6}", "sent"));
            for cell in view.step_achieved_row(size) {
                out.push_str(&format!(" {cell:>10}"));
            }
            out.push('\n');
        }
        out.push_str("  (sent: the BE sender's steady rate, % of the rate the step asks)\n");
        out.push_str(&format!("  {}\n", short_of_rate_note()));
        out.push_str("\nThe EF probe beside each step: one-way delay p99 / loss:\n");
        for (size, cells) in view.step_ef_table() {
            out.push_str(&format!("  {size:>6} B"));
            for (cell, name) in cells.iter().zip(&header) {
                out.push_str(&format!("  {name}: {cell}"));
            }
            out.push('\n');
        }
    }
    if let Some((size, rows)) = view.router_table() {
        out.push_str(&format!(
            "\nRouter CPU, % of one CPU ({size} B steps): idle IPv4, idle IPv6, then {}\n",
            header.join(", ")
        ));
        for (node, cells) in rows {
            out.push_str(&format!("  {node:<6} {}\n", cells.join("  ")));
        }
    }
    let checks = view.checks();
    if !checks.is_empty() {
        out.push_str("\nConditioner (edge router counters):\n");
        for line in checks {
            out.push_str(&format!("  {line}\n"));
        }
    }
    if let Some(line) = view.steering() {
        out.push_str(&format!("\n{line}\n"));
    }
    out
}

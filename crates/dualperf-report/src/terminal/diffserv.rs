//! `dualperf lab diffserv` in the terminal: the per-class table and
//! verdicts IPv6 against IPv4, the done-when check, the load-step table
//! (the paper's Table 2), the conditioner checks and how router CPU was
//! attributed. Words and numbers come from [`crate::present::diffserv`].

use dualperf_model::RunResult;

use super::table::{render_table, Align};
use crate::present::diffserv::{short_of_rate_note, DiffServView, CLASS_METRICS};

/// `text` with every line indented by two spaces.
fn indented(text: &str) -> String {
    text.lines().map(|line| format!("  {line}\n")).collect()
}

/// The DiffServ experiments of `result` as text; empty when `result` is
/// not one.
pub fn render_diffserv(result: &RunResult) -> String {
    let Some(view) = DiffServView::of(result) else {
        return String::new();
    };
    let mut out = String::new();
    out.push_str(
        "Per class (EF: the measured probe; BE, LBE: probes in the load; means over repetitions):\n",
    );
    let mut header = vec![
        "condition".to_string(),
        "class".to_string(),
        "family".to_string(),
    ];
    header.extend(CLASS_METRICS.iter().map(|m| m.label().to_string()));
    let mut table = vec![header];
    for row in view.class_rows() {
        for (family, cells) in ["IPv4", "IPv6"].into_iter().zip(&row.cells) {
            let mut line = vec![
                row.condition.clone(),
                row.class.to_string(),
                family.to_string(),
            ];
            line.extend(cells.iter().cloned());
            table.push(line);
        }
    }
    out.push_str(&indented(&render_table(
        &table,
        &[Align::Left, Align::Left, Align::Left],
        None,
    )));
    out.push_str("\nVerdicts per class, IPv6 against IPv4 (paired by repetition, 95 % CI):\n");
    for line in view.verdicts() {
        out.push_str(&format!("  {line}\n"));
    }
    out.push_str("\nEF under load (expected: p99 within 2 ms of idle, no EF loss, BE loses):\n");
    for line in view.done_when() {
        out.push_str(&format!("  {line}\n"));
    }
    let label_rows = view.label_rows();
    if !label_rows.is_empty() {
        out.push_str(
            "\nFlow label as the class (the seed's §4: IPv6 classified by its flow label alone, \
             beside DSCP EF; means over repetitions):\n",
        );
        let mut header = vec!["condition".to_string(), "IPv6 marked".to_string()];
        header.extend(CLASS_METRICS.iter().map(|m| m.label().to_string()));
        let mut table = vec![header];
        for row in label_rows {
            let mut line = vec![row.condition, row.marking];
            line.extend(row.cells);
            table.push(line);
        }
        out.push_str(&indented(&render_table(
            &table,
            &[Align::Left, Align::Left],
            None,
        )));
        for line in view.label_lines() {
            out.push_str(&format!("  {line}\n"));
        }
    }
    let (header, rows) = view.step_table();
    let has_steps = !rows.is_empty();
    if has_steps {
        out.push_str(
            "\nLoad-step table: BE UDP loss, % of datagrams (load in % of the core link):\n",
        );
        let mut table = vec![std::iter::once("size B".to_string())
            .chain(header.iter().cloned())
            .collect::<Vec<_>>()];
        for (size, cells) in rows {
            table.push(std::iter::once(size.to_string()).chain(cells).collect());
            table.push(
                std::iter::once("sent".to_string())
                    .chain(view.step_achieved_row(size))
                    .collect(),
            );
        }
        out.push_str(&indented(&render_table(&table, &[Align::Right], None)));
        out.push_str("  (sent: the BE sender's steady rate, % of the rate the step asks)\n");
        out.push_str(&format!("  {}\n", short_of_rate_note()));
        out.push_str("\nThe EF probe beside each step: one-way delay p99 / loss:\n");
        let mut table = vec![std::iter::once("size B".to_string())
            .chain(header.iter().cloned())
            .collect::<Vec<_>>()];
        table.extend(
            view.step_ef_table()
                .into_iter()
                .map(|(size, cells)| std::iter::once(size.to_string()).chain(cells).collect()),
        );
        out.push_str(&indented(&render_table(&table, &[Align::Right], None)));
    }
    if let Some((size, rows)) = view.router_table() {
        out.push_str(&format!("\nRouter CPU, % of one CPU ({size} B steps):\n"));
        let mut table = vec![["router", "idle IPv4", "idle IPv6"]
            .into_iter()
            .map(String::from)
            .chain(header.iter().cloned())
            .collect::<Vec<_>>()];
        table.extend(
            rows.into_iter()
                .map(|(node, cells)| std::iter::once(node).chain(cells).collect()),
        );
        out.push_str(&indented(&render_table(&table, &[], None)));
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

//! Tests of [`super::DiffServView`] on a DiffServ-shaped analysis.

use dualperf_fixtures::diffserv_classes::{diffserv_classes, FLOW_LABEL_ARM};

use super::*;

/// The per-class fixture without its flow-label arm: idle and 115 % class
/// arms, two step cells. The arm ids say nothing about the design
/// (`cell-7`): the view must find every cell by the levels of its load.
fn run() -> RunResult {
    let mut result = diffserv_classes();
    result
        .config
        .arms
        .retain(|arm| arm.id.as_str() != FLOW_LABEL_ARM);
    if let Some(analysis) = &mut result.analysis {
        analysis
            .summaries
            .retain(|s| s.arm.as_str() != FLOW_LABEL_ARM);
        analysis
            .comparisons
            .retain(|c| c.arm.as_str() != FLOW_LABEL_ARM);
    }
    result
}

#[test]
fn the_step_table_and_the_done_when_check_read_the_analysis() {
    let result = run();
    let view = DiffServView::of(&result).unwrap();
    let (header, rows) = view.step_table();
    assert_eq!(header[2], "IPv4 115");
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].0, 128);
    assert_eq!(rows[0].1[2], "12.6");
    assert_eq!(rows[0].1[8], "15.0", "mixed: the mean of its two flows");
    assert_eq!(rows[0].1[0], "–");
    let done = view.done_when();
    assert!(done[0].starts_with("ok IPv4"), "{done:?}");
    // IPv6: 3 ms under load against 0.1 ms idle misses the 2 ms bound.
    assert!(done[1].starts_with("MISSED IPv6"), "{done:?}");
    assert!(done[2].starts_with("ok BE"), "{done:?}");
    let text = crate::terminal::render_diffserv(&result);
    assert!(text.contains("Load-step table"), "{text}");
}

/// The seed's §4: an IPv6 arm marked by a flow label alone, under the 115 %
/// class load, its id saying nothing (`arm-x`), compared with DSCP EF.
#[test]
fn the_flow_label_arm_is_shown_beside_dscp_ef_and_answers_the_papers_section_4() {
    let result = diffserv_classes();
    let view = DiffServView::of(&result).unwrap();
    let rows = view.label_rows();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].marking, "DSCP EF (46)");
    assert_eq!(rows[1].marking, "flow label 74565, no DSCP");
    assert_eq!(rows[1].condition, "BE at 115 %");
    // OWD p99 and loss of each arm, in the class table's columns.
    assert_eq!(rows[0].cells[1], format_value(MetricId::OwdP99Ns, 3.0e6));
    assert_eq!(rows[1].cells[1], format_value(MetricId::OwdP99Ns, 68.6e3));
    assert_eq!(rows[1].cells[3], format_value(MetricId::LossRatio, 0.0));
    let lines = view.label_lines();
    assert!(
        lines[0].starts_with(
            "ok IPv6 flow label 74565 alone (no DSCP) classified as EF under BE at 115 %"
        ),
        "{lines:?}"
    );
    assert!(
        lines[1].starts_with("flow label 74565 against DSCP EF")
            && lines[1].contains("significant"),
        "{lines:?}"
    );
    let text = crate::terminal::render_diffserv(&result);
    assert!(
        text.contains("Flow label as the class (the seed's §4"),
        "{text}"
    );
    assert!(text.contains("flow label 74565, no DSCP"), "{text}");
    let html = crate::html::render(&result).unwrap();
    assert!(html.contains("id=\"diffserv-flow-label\""), "{html}");
    assert!(html.contains("flow label 74565, no DSCP"), "{html}");
    assert!(view
        .answer()
        .iter()
        .any(|s| s.starts_with("ok IPv6 flow label 74565")));
    // A run without the arm shows no such table.
    assert!(DiffServView::of(&run()).unwrap().label_rows().is_empty());
}

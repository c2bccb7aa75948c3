//! The HTML report's structure, checked on the text: self-contained, the
//! answer first, one chart per figure, every metric defined.

use dualperf_fixtures::synthetic;
use dualperf_report::{render, render_comparison, Format};

fn report() -> (dualperf_model::RunResult, String) {
    let run = synthetic::synthetic_run();
    let html = render(&run, Format::Html).unwrap();
    (run, html)
}

#[test]
fn the_page_needs_no_network() {
    let (_, html) = report();
    assert!(html.starts_with("<!DOCTYPE html>"));
    for needle in ["<link", " src=", "@import", "url(", "https://"] {
        assert!(
            !html.contains(needle),
            "found `{needle}`: the page would fetch something"
        );
    }
    let foreign = html.matches("http://").count();
    let svg_namespaces = html.matches("xmlns=\"http://www.w3.org/2000/svg\"").count();
    assert_eq!(
        foreign, svg_namespaces,
        "only SVG namespace URIs may appear"
    );
}

#[test]
fn the_answer_comes_first_then_verdicts_figures_comparisons_facts_definitions() {
    let (_, html) = report();
    let order: Vec<usize> = [
        "id=\"answer\"",
        "id=\"verdicts\"",
        "id=\"throughput\"",
        "id=\"latency\"",
        "id=\"overhead\"",
        "id=\"cpu\"",
        "id=\"distributions\"",
        "id=\"time-series\"",
        "id=\"comparisons\"",
        "id=\"facts\"",
        "id=\"definitions\"",
    ]
    .iter()
    .map(|id| {
        html.find(id)
            .unwrap_or_else(|| panic!("section {id} missing"))
    })
    .collect();
    assert!(
        order.windows(2).all(|w| w[0] < w[1]),
        "sections out of order: {order:?}"
    );
}

#[test]
fn every_figure_has_a_title_an_svg_chart_and_a_caption() {
    let (run, html) = report();
    let figures: Vec<&str> = html.split("<figure ").skip(1).collect();
    // tcp/udp throughput, loss, tcp/udp rtt, overhead, cpu, service demand,
    // an RTT CDF per rr point, 2 goodput time series, and per probe point a
    // PDV CDF and a delay series.
    let rr_points = run
        .config
        .points
        .iter()
        .filter(|p| p.kind.name().ends_with("-rr"))
        .count();
    let probe_points = run
        .config
        .points
        .iter()
        .filter(|p| p.kind.name() == "udp-probe")
        .count();
    assert_eq!(probe_points, 1, "the synthetic run has one probe point");
    assert_eq!(figures.len(), 8 + rr_points + 2 + 2 * probe_points);
    for figure in figures {
        let figure = &figure[..figure.find("</figure>").unwrap()];
        assert!(figure.contains("<h3>"), "figure without title");
        assert!(
            figure.contains("<svg") && figure.contains("</svg>"),
            "figure without svg"
        );
        assert!(
            figure.contains("<polyline") || figure.contains("<path"),
            "chart without lines"
        );
        assert!(figure.contains("<figcaption>"), "figure without caption");
    }
}

#[test]
fn throughput_charts_draw_ipv4_solid_and_ipv6_dashed_with_a_log_size_axis() {
    let (_, html) = report();
    let start = html.find("id=\"throughput-tcp-stream\"").unwrap();
    let chart = &html[start..start + html[start..].find("</figure>").unwrap()];
    // plotters draws a dashed series as many short segments, a solid one as one polyline.
    assert!(chart.contains("stroke=\"#0072B2\""), "IPv4 blue missing");
    assert!(
        chart.matches("stroke=\"#D55E00\"").count() > 10,
        "IPv6 should be dashed (many segments)"
    );
    for tick in ["64", "1 Ki", "16 Ki"] {
        assert!(
            chart.contains(&format!(">\n{tick}\n</text>")),
            "size tick {tick} missing"
        );
    }
    assert!(chart.contains("log scale"));
}

#[test]
fn every_metric_in_a_table_links_to_its_definition() {
    let (run, html) = report();
    for comparison in &run.analysis.as_ref().unwrap().comparisons {
        let name = comparison.metric.name();
        assert!(
            html.contains(&format!("href=\"#def-{name}\"")),
            "no link for {name}"
        );
        assert!(
            html.contains(&format!("id=\"def-{name}\"")),
            "no definition for {name}"
        );
    }
    let headers =
        html.matches("<th class=\"num\" title=").count() + html.matches("<th title=").count();
    assert!(headers >= 8, "table headings carry definitions as titles");
}

#[test]
fn the_facts_name_the_testbed_kernel_and_command() {
    let (run, html) = report();
    assert!(html.contains("SYNTHETIC DATA"), "synthetic runs say so");
    assert!(html.contains(&run.client_host.kernel));
    assert!(html.contains("dualperf lab --preset one-router"));
    assert!(html.contains("htb 1 Gbit/s"));
}

#[test]
fn text_from_the_run_is_escaped() {
    let mut run = synthetic::small_synthetic_run();
    run.config.command_line = vec!["<script>alert(1)</script>".into()];
    let html = render(&run, Format::Html).unwrap();
    assert!(!html.contains("<script>alert(1)"));
    assert!(html.contains("&lt;script&gt;alert(1)"));
}

#[test]
fn a_run_without_analysis_still_renders_and_says_so() {
    let mut run = synthetic::small_synthetic_run();
    run.analysis = None;
    run.complete = false;
    run.errors = vec!["interrupted by Ctrl-C after 3 of 30 trials".into()];
    let html = render(&run, Format::Html).unwrap();
    assert!(html.contains("has not been analysed"));
    assert!(html.contains("This run is incomplete"));
    assert!(html.contains("interrupted by Ctrl-C"));
}

#[test]
fn the_comparison_page_names_the_test_and_both_runs() {
    let before = synthetic::synthetic_run();
    let after = synthetic::synthetic_run_after_upgrade();
    let html = render_comparison(&before, &after, Format::Html).unwrap();
    assert!(html.contains(&before.run_id) && html.contains(&after.run_id));
    assert!(html.contains("Welch"));
    assert!(html.contains("6.12.9-amd64"));
    assert!(html.matches("<svg").count() >= 2);
}

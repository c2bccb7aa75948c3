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

/// The `data-NAME` attribute of the figure with id `id`.
fn figure_data<'a>(html: &'a str, id: &str, name: &str) -> Option<&'a str> {
    let start = html.find(&format!("<figure id=\"{id}\""))?;
    let tag = &html[start..start + html[start..].find('>')?];
    let key = format!(" data-{name}=\"");
    let value = tag.find(&key)? + key.len();
    Some(&tag[value..value + tag[value..].find('"')?])
}

#[test]
fn time_series_show_every_sample_there_is() {
    // Default synthetic run: 40 intervals of 50 ms per trial.
    let (_, html) = report();
    for kind in ["tcp-stream", "udp-stream"] {
        let points: usize = figure_data(&html, &format!("time-series-{kind}"), "series-points")
            .unwrap()
            .parse()
            .unwrap();
        assert!(points > 10, "{kind}: {points} points");
    }
    // One sample per trial: the three repetitions are chained on one axis.
    let coarse = render(&crate::coarse::coarse_run(), Format::Html).unwrap();
    let id = "time-series-tcp-stream";
    assert_eq!(figure_data(&coarse, id, "series-points"), Some("3"));
    let start = coarse.find(&format!("<figure id=\"{id}\"")).unwrap();
    let figure = &coarse[start..start + coarse[start..].find("</figure>").unwrap()];
    assert!(
        figure.contains("3 repetitions end to end"),
        "x axis says so"
    );
    assert!(
        figure.contains("all 3 repetitions, one after the other"),
        "caption says so"
    );
}

#[test]
fn cdfs_end_at_the_999th_percentile_not_at_an_outlier() {
    let coarse = render(&crate::coarse::coarse_run(), Format::Html).unwrap();
    let id = "rtt-cdf-tcp-rr-64";
    let number = |name: &str| -> f64 {
        figure_data(&coarse, id, name)
            .unwrap_or_else(|| panic!("{name} missing"))
            .parse()
            .unwrap()
    };
    let (x_max, p50, largest) = (number("x-max-us"), number("p50-us"), number("largest-us"));
    assert_eq!(largest, crate::coarse::OUTLIER_NS as f64 / 1e3);
    assert!(
        x_max < 3.0 * p50,
        "x axis ends at {x_max} µs, median {p50} µs"
    );
    let start = coarse.find(&format!("<figure id=\"{id}\"")).unwrap();
    let figure = &coarse[start..start + coarse[start..].find("</figure>").unwrap()];
    assert!(figure.contains("lies beyond"), "the caption names the cut");
}

#[test]
fn the_all_comparisons_table_is_collapsed_and_sortable() {
    let (_, html) = report();
    let start = html.find("id=\"comparisons\"").unwrap();
    let section = &html[start..];
    assert!(
        section.contains("<details><summary>"),
        "collapsed by default"
    );
    assert!(!section[..section.find("</details>").unwrap()].contains("<details open"));
    assert!(section.contains("table class=\"comparisons sortable\""));
}

#[test]
fn no_heading_shows_a_machine_metric_name() {
    let (_, html) = report();
    for metric in dualperf_model::MetricId::ALL {
        let name = metric.name();
        for tag in ["h1", "h2", "h3", "th", "dt"] {
            assert!(
                !html.contains(&format!("<{tag}>{name}<")),
                "<{tag}> shows {name}"
            );
        }
        assert!(
            !html.contains(&format!("\">{name}</a>")),
            "a table link shows {name}"
        );
    }
}

#[test]
fn a_third_arm_gets_its_own_series_columns_and_legend() {
    use dualperf_model::{Arm, ArmId, ArmPath, IpFamily, TunnelPlacement};
    let mut lab = synthetic::SyntheticLab {
        stream_sizes: vec![64, 1472],
        rr_sizes: vec![64],
        ..Default::default()
    };
    lab.arms.push(Arm {
        id: ArmId::new("v6-6in4-router-router").unwrap(),
        label: "IPv6 via 6in4, router to router".to_string(),
        family: IpFamily::V6,
        path: ArmPath::SixInFour {
            placement: TunnelPlacement::RouterRouter,
        },
        marking: Default::default(),
        load: Default::default(),
        target: None,
    });
    let run = lab.build();
    let html = render(&run, Format::Html).unwrap();
    assert!(html.contains("<h1>IPv4 vs IPv6 vs IPv6 via 6in4, router to router — run"));
    assert_eq!(
        figure_data(&html, "throughput-tcp-stream", "series"),
        Some("3")
    );
    let start = html.find("id=\"throughput-tcp-stream\"").unwrap();
    let chart = &html[start..start + html[start..].find("</figure>").unwrap()];
    assert!(
        chart.contains("IPv6 via 6in4, router to router"),
        "legend names the arm"
    );
    let verdicts = &html[html.find("id=\"verdicts\"").unwrap()..];
    assert!(verdicts.contains("<th title=\"The arm compared with the baseline IPv4\">Arm</th>"));
    assert!(verdicts.contains("IPv6 via 6in4, router to router "));
    assert!(verdicts.contains(", IPv4 "));
}

//! No interval below a bound (issue 25): a goodput whose repetitions spread
//! so wide that its Student-t interval reaches below 0 bit/s is shown with
//! the interval's ends cut at 0 in the HTML table and the terminal table —
//! never as `mean ± half` reaching into negative rates. (The charts draw
//! the same cut interval: `present::bounds::bounded_ci`.)

use dualperf_fixtures as fx;
use dualperf_report::{render, Format};

#[test]
fn a_wide_interval_is_cut_at_zero_everywhere_it_is_shown() {
    // IPv4: 1, 1, 30 Gbit/s (mean 10.7, CI about −31 to +52 Gbit/s).
    let run = fx::analysed(fx::stream_run(
        fx::native_arms(fx::LOOPBACK),
        &[
            &[Some(1.0), Some(1.0), Some(30.0)],
            &[Some(9.0), Some(9.5), Some(9.2)],
        ],
    ));
    let analysis = run.analysis.as_ref().unwrap();
    let v4 = analysis
        .summaries
        .iter()
        .find(|s| s.arm.as_str() == "v4" && s.metric == dualperf_model::MetricId::GoodputBps)
        .unwrap();
    assert!(
        v4.summary.ci95_low.unwrap() < 0.0,
        "the fixture must cross 0"
    );

    let html = render(&run, Format::Html).unwrap();
    assert!(
        html.contains("10.7 Gbit/s (0 bit/s … "),
        "no cut interval in the table"
    );
    assert!(!html.contains("10.7 ± "), "a symmetric ± crosses 0");

    let table = dualperf_report::terminal::render_comparison_table_width(&run, analysis, 200);
    let row = table.lines().find(|l| l.starts_with("goodput")).unwrap();
    assert!(row.contains("10.7 Gbit/s [0 bit/s, "), "{row}");
}

//! `report --format md` fits a pull-request comment for any run (issue 25):
//! at most [`MAX_MARKDOWN_CHARS`] characters, the answer and the headline
//! verdicts first, and when rows had to go, a line that says how many and
//! where they are. SYNTHETIC runs of the lab's shapes.

use dualperf_fixtures as fx;
use dualperf_model::RunResult;
use dualperf_report::{render, Format, MAX_MARKDOWN_CHARS};

fn markdown(run: &RunResult) -> String {
    render(run, Format::Markdown).unwrap()
}

fn assert_fits(name: &str, md: &str) {
    let chars = md.chars().count();
    assert!(
        chars <= MAX_MARKDOWN_CHARS,
        "{name}: {chars} characters > {MAX_MARKDOWN_CHARS}"
    );
    // Summary first: the answer and the verdicts precede the folded table.
    let answer = md.find("## Answer").expect("an answer");
    let verdicts = md.find("## Verdicts").expect("verdicts");
    let folded = md
        .find("<details><summary>Every comparison")
        .expect("the fold");
    assert!(answer < verdicts && verdicts < folded, "{name}");
    assert!(md.contains("## Conditions"), "{name}");
    // Every <details> is closed.
    assert_eq!(
        md.matches("<details>").count(),
        md.matches("</details>").count(),
        "{name}"
    );
}

#[test]
fn the_diffserv_fixture_run_fits_a_pull_request_comment() {
    let run = fx::diffserv::diffserv_run("20261125T120000Z-diffserv");
    let md = markdown(&run);
    assert_fits("diffserv fixture", &md);
    eprintln!("diffserv fixture: {} characters", md.chars().count());
}

#[test]
fn a_run_of_many_arms_is_cut_with_a_pointer_to_the_html() {
    // 14 arms × one point, every metric of the stream and the loads.
    let run = crate::designed::diffserv_like();
    let md = markdown(&run);
    assert_fits("diffserv-like, 14 arms", &md);
    eprintln!("diffserv-like: {} characters", md.chars().count());
}

#[test]
fn the_full_synthetic_lab_run_fits_and_says_what_it_left_out() {
    let run = fx::synthetic::synthetic_run();
    let md = markdown(&run);
    assert_fits("synthetic lab", &md);
    eprintln!("synthetic lab: {} characters", md.chars().count());
    let comparisons = run.analysis.as_ref().unwrap().comparisons.len();
    let rows = md
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| Point"))
        .count();
    if rows < comparisons {
        assert!(
            md.contains(&format!(
                "_{} more row{} left out to fit a pull-request comment",
                comparisons - rows,
                if comparisons - rows == 1 { "" } else { "s" }
            )),
            "{rows} of {comparisons} rows, no pointer"
        );
        assert!(md.contains("--format html"));
    }
    // Headline verdicts are never the ones cut: one bullet per headline comparison.
    let headline = run
        .analysis
        .as_ref()
        .unwrap()
        .comparisons
        .iter()
        .filter(|c| dualperf_model::MetricId::headline_of(&run.config.points[c.point]) == c.metric)
        .count();
    let verdicts = &md[md.find("## Verdicts").unwrap()..md.find("<details>").unwrap()];
    let bullets = verdicts.lines().filter(|l| l.starts_with("- ")).count();
    assert!(headline >= run.config.points.len() - 1, "{headline}");
    assert_eq!(bullets, headline, "{verdicts}");
}

#[test]
fn a_run_too_big_for_a_comment_is_cut_at_a_row_with_a_pointer() {
    // 30 sizes of each stream kind, 10 of each request/response kind and
    // the probe: 81 points, 1100 comparisons.
    let run = fx::synthetic::SyntheticLab {
        stream_sizes: (1..=30).map(|i| i * 48).collect(),
        rr_sizes: (1..=10).map(|i| i * 100).collect(),
        ..Default::default()
    }
    .build();
    let md = markdown(&run);
    assert_fits("synthetic lab, 81 points", &md);
    let comparisons = run.analysis.as_ref().unwrap().comparisons.len();
    let rows = md
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| Point"))
        .count();
    eprintln!(
        "synthetic lab, 81 points: {} characters, {rows} of {comparisons} rows",
        md.chars().count()
    );
    assert!(rows < comparisons, "nothing was cut");
    assert!(
        md.contains(&format!(
            "_{} more rows left out to fit a pull-request comment",
            comparisons - rows
        )),
        "{rows} of {comparisons} rows, no pointer"
    );
    assert!(md.contains(&format!("`dualperf report {} --format html`", run.run_id)));
    // The table is cut at a row: the fold still closes after the pointer.
    let pointer = md.find("more rows left out").unwrap();
    assert!(md[pointer..].contains("</details>"));
}

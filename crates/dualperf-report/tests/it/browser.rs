//! The HTML report in a real browser: headless Chromium (Debian's
//! `chromium`) loads the file, the page's own probe script records errors and
//! counts charts, and `--dump-dom` shows us the result; then a screenshot.
//!
//! Skips when Chromium is missing, but fails when `CI` or
//! `DUALPERF_REQUIRE_PRIVILEGED` is set. With `DUALPERF_UPDATE_SCREENSHOT=1`
//! the screenshot is copied to `docs/report-screenshot.png`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use dualperf_fixtures::synthetic;
use dualperf_report::{render, Format};

fn chromium() -> Option<PathBuf> {
    [
        "/usr/bin/chromium",
        "/usr/bin/chromium-browser",
        "/usr/bin/google-chrome",
    ]
    .iter()
    .map(PathBuf::from)
    .find(|p| p.exists())
}

/// Chromium, or `None` after printing why the test skips.
pub(crate) fn require_chromium() -> Option<PathBuf> {
    let found = chromium();
    if found.is_none() {
        let required = std::env::var_os("CI").is_some()
            || std::env::var_os("DUALPERF_REQUIRE_PRIVILEGED").is_some();
        assert!(
            !required,
            "browser test cannot run: chromium is not installed (apt-get install chromium)"
        );
        eprintln!("skipped: chromium not installed");
    }
    found
}

/// Runs headless Chromium on `page` with `extra` arguments; returns stdout.
fn run_chromium(binary: &Path, profile: &Path, page: &Path, extra: &[&str]) -> String {
    // stdout goes to a file: a dumped DOM is larger than a pipe's buffer.
    let output_path = profile.join("stdout.txt");
    let output_file = std::fs::File::create(&output_path).unwrap();
    let mut child = Command::new(binary)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .stdout(Stdio::from(output_file))
        .stderr(Stdio::null())
        .spawn()
        .expect("starting chromium");
    let started = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if started.elapsed() > Duration::from_secs(90) {
            let _ = child.kill();
            panic!("chromium did not finish within 90 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    std::fs::read_to_string(&output_path).unwrap()
}

/// The `name` attribute of the `<figure>` with id `id` in a dumped DOM.
pub(crate) fn figure_attribute<'a>(dom: &'a str, id: &str, name: &str) -> Option<&'a str> {
    let start = dom.find(&format!("<figure id=\"{id}\""))?;
    let element = &dom[start..start + dom[start..].find('>')?];
    let value_start = element.find(&format!(" {name}=\""))? + name.len() + 3;
    Some(&element[value_start..value_start + element[value_start..].find('"')?])
}

fn figure_number(dom: &str, id: &str, name: &str) -> f64 {
    figure_attribute(dom, id, name)
        .unwrap_or_else(|| panic!("figure {id} has no {name}"))
        .parse()
        .unwrap()
}

fn attribute<'a>(dom: &'a str, tag: &str, name: &str) -> Option<&'a str> {
    let start = dom.find(&format!("<{tag}"))?;
    let element = &dom[start..start + dom[start..].find('>')?];
    let value_start = element.find(&format!(" {name}=\""))? + name.len() + 3;
    Some(&element[value_start..value_start + element[value_start..].find('"')?])
}

/// Every `href="#x"` of `html` and whether an element has id `x`.
pub(crate) fn dead_links(dom: &str) -> Vec<String> {
    dom.split("href=\"#")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .filter(|target| !dom.contains(&format!("id=\"{target}\"")))
        .map(str::to_string)
        .collect()
}

/// Loads `html` in Chromium, checks what the page's probe recorded and
/// returns the page's path and its dumped DOM.
pub(crate) fn assert_loads_cleanly(
    binary: &Path,
    directory: &Path,
    html: &str,
) -> (PathBuf, String) {
    let page = directory.join("report.html");
    std::fs::write(&page, html).unwrap();
    let figures = html.matches("<figure ").count();
    assert!(figures > 0);
    let profile = tempfile::tempdir().unwrap();
    let dom = run_chromium(
        binary,
        profile.path(),
        &page,
        &["--window-size=1400,2000", "--dump-dom"],
    );
    assert_eq!(
        attribute(&dom, "body", "data-ready"),
        Some("yes"),
        "the load probe did not run"
    );
    assert_eq!(
        attribute(&dom, "html", "data-errors"),
        None,
        "the page reported errors"
    );
    assert_eq!(
        attribute(&dom, "body", "data-charts"),
        Some(figures.to_string().as_str())
    );
    assert_eq!(
        attribute(&dom, "body", "data-empty-charts"),
        Some("0"),
        "a chart has no drawn shapes"
    );
    assert_eq!(
        attribute(&dom, "body", "data-flat-charts"),
        Some("0"),
        "a chart was laid out without size"
    );
    assert_eq!(
        attribute(&dom, "body", "data-overlapping-labels"),
        Some("0"),
        "chart labels overlap"
    );
    assert_eq!(dead_links(&dom), Vec::<String>::new(), "dead in-page links");
    // Issue 25: at 1400 px no table is wider than the page or its box.
    assert_eq!(
        attribute(&dom, "body", "data-wide-tables"),
        Some("0"),
        "tables wider than the page at 1400 px: {:?}",
        attribute(&dom, "body", "data-wide-table-names")
    );
    if let Some(keep) = std::env::var_os("DUALPERF_KEEP_REPORT_DIR") {
        let name = format!("report-{}.html", html.len());
        std::fs::copy(&page, Path::new(&keep).join(name)).unwrap();
    }
    (page, dom)
}

#[test]
fn the_comparison_page_loads_in_chromium_without_errors() {
    let Some(binary) = require_chromium() else {
        return;
    };
    let directory = tempfile::tempdir().unwrap();
    let html = dualperf_report::render_comparison(
        &synthetic::synthetic_run(),
        &synthetic::synthetic_run_after_upgrade(),
        Format::Html,
    )
    .unwrap();
    assert_loads_cleanly(&binary, directory.path(), &html);
}

#[test]
fn the_report_loads_in_chromium_without_errors_and_every_chart_has_content() {
    let Some(binary) = require_chromium() else {
        return;
    };
    let directory = tempfile::tempdir().unwrap();
    let run = synthetic::synthetic_run();
    let html = render(&run, Format::Html).unwrap();
    let (page, dom) = assert_loads_cleanly(&binary, directory.path(), &html);
    // Issue 15: time series with enough samples, drawn.
    for kind in ["tcp-stream", "udp-stream"] {
        let drawn = figure_number(&dom, &format!("time-series-{kind}"), "data-drawn-points");
        assert!(
            drawn > 10.0,
            "{kind} goodput over time draws {drawn} points"
        );
    }

    let screenshot = directory.path().join("report.png");
    let profile = tempfile::tempdir().unwrap();
    run_chromium(
        &binary,
        profile.path(),
        &page,
        &[
            "--window-size=1280,2400",
            &format!("--screenshot={}", screenshot.display()),
        ],
    );
    let png = std::fs::read(&screenshot).expect("chromium wrote no screenshot");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    // A blank 1280×2400 page compresses to a few kilobytes; the report is far larger.
    assert!(
        png.len() > 100_000,
        "screenshot is suspiciously small ({} bytes)",
        png.len()
    );
    if std::env::var_os("DUALPERF_UPDATE_SCREENSHOT").is_some() {
        let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs");
        std::fs::create_dir_all(&docs).unwrap();
        std::fs::copy(&screenshot, docs.join("report-screenshot.png")).unwrap();
    }
}

#[test]
fn coarse_samples_and_an_outlier_still_give_readable_charts() {
    let Some(binary) = require_chromium() else {
        return;
    };
    let directory = tempfile::tempdir().unwrap();
    let html = render(&crate::coarse::coarse_run(), Format::Html).unwrap();
    let (_, dom) = assert_loads_cleanly(&binary, directory.path(), &html);
    // One sample per trial: all three repetitions drawn, not one point.
    let drawn = figure_number(&dom, "time-series-tcp-stream", "data-drawn-points");
    assert_eq!(drawn, 3.0, "every sample of every repetition is drawn");
    // A 20 ms outlier among ~50 µs round trips does not set the x range.
    let id = "rtt-cdf-tcp-rr-64";
    let (x_max, p50) = (
        figure_number(&dom, id, "data-x-max-us"),
        figure_number(&dom, id, "data-p50-us"),
    );
    assert!(x_max < 3.0 * p50, "x axis to {x_max} µs, median {p50} µs");
    assert!(figure_number(&dom, id, "data-drawn-points") > 10.0);
}

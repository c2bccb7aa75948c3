//! The HTML report pinned as insta snapshots, one per run shape that
//! exercises a section: a small stream/rr run on a testbed (with a wire
//! check), a DiffServ-shaped stream run and a per-class DiffServ run (its
//! own section), real-time media (voice and video, an
//! incomplete run against a named host), a budgeted udp-stream sweep (means
//! over sizes), a 14-arm designed run, and the comparison of two runs. The
//! pages moved from `format!` to maud templates against these snapshots, so
//! the move provably changed nothing a reader sees. Runs are SYNTHETIC.
//!
//! Normalised before comparing: whitespace between tags is dropped (the
//! browser does not show it between block elements) and each block element
//! starts a line, so a diff is reviewable; SVG chart bodies, the inline CSS
//! and the scripts are replaced by empty elements (charts have tests of
//! their own, and the document around the sections is one maud template).
//! A bare `<` before a space (`< 0.001`, which HTML parses as text) is
//! written `&lt;`, as a template writes it: the same text in a browser.

use dualperf_fixtures as fx;
use dualperf_fixtures::synthetic;
use dualperf_model::media::{MediaProfile, VideoProfile, VoiceCodec, VoiceProfile};
use dualperf_model::{
    Analysis, MetricId, MetricSummary, PerFamily, RunResult, SendBudget, Summary, TestKind,
    TrialOutcome, WireCheck,
};
use dualperf_report::{render, render_comparison, Format};

/// A label and a host name that try to break out of text and attributes.
const HOSTILE_LABEL: &str = "\"><script>alert(1)</script>";
const HOSTILE_HOST: &str = "<img src=x onerror=alert(2)>&amp;";

/// Elements whose start begins a new line of the normalised text.
const BLOCKS: [&str; 22] = [
    "<section",
    "</section>",
    "<header",
    "<nav",
    "<main",
    "<footer",
    "<h1",
    "<h2",
    "<h3",
    "<p",
    "<ul",
    "<li",
    "<dl",
    "<dt",
    "<dd",
    "<table",
    "<tr",
    "<div",
    "<figure",
    "<figcaption",
    "<details",
    "<head",
];

/// Replaces the content of every `<tag …>…</tag>` with nothing, keeping
/// the start tag's name only: `<svg/>`.
fn drop_bodies(html: &str, tag: &str) -> String {
    let open = format!("<{tag}");
    let close = format!("</{tag}>");
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(start) = rest.find(&open) {
        out.push_str(&rest[..start]);
        let Some(end) = rest[start..].find(&close) else {
            break;
        };
        out.push_str(&format!("<{tag}/>"));
        rest = &rest[start + end + close.len()..];
    }
    out.push_str(rest);
    out
}

/// Drops whitespace between a `>` and the next `<`.
fn strip_between_tags(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut pending = String::new();
    let mut after_tag = false;
    for c in html.chars() {
        if after_tag && c.is_whitespace() {
            pending.push(c);
            continue;
        }
        if c != '<' {
            out.push_str(&pending);
        }
        pending.clear();
        out.push(c);
        after_tag = c == '>';
    }
    out.push_str(&pending);
    out
}

/// The page as the snapshot holds it (see the module header).
fn normalise(html: &str) -> String {
    let mut text = html.to_string();
    for tag in ["svg", "style", "script"] {
        text = drop_bodies(&text, tag);
    }
    let mut text = strip_between_tags(&text).replace("< ", "&lt; ");
    for block in BLOCKS {
        text = text.replace(block, &format!("\n{block}"));
    }
    text.trim().to_string()
}

fn summary(mean: f64) -> Summary {
    Summary {
        count: 3,
        mean,
        standard_deviation: None,
        coefficient_of_variation: None,
        min: mean,
        max: mean,
        median: mean,
        ci95_low: None,
        ci95_high: None,
    }
}

/// An analysis with one summary per (point, arm, metric, mean).
fn analysis(means: &[(usize, &str, MetricId, f64)]) -> Analysis {
    let mut analysis = Analysis::default();
    for &(point, arm, metric, mean) in means {
        analysis.summaries.push(MetricSummary {
            point,
            arm: fx::arm_id(arm),
            metric,
            summary: summary(mean),
        });
    }
    analysis
}

/// The small synthetic run with a wire check on its first trial.
fn small_with_wire() -> RunResult {
    let mut run = synthetic::small_synthetic_run();
    if let Some(TrialOutcome::Ok(observations)) = run.trials.first_mut().map(|t| &mut t.outcome) {
        observations.wire = Some(WireCheck {
            interface: "lab1-srv-eth0".into(),
            ..WireCheck::default()
        });
    }
    run
}

/// A voice point (G.711, 20 ms) and a video point on two native arms,
/// against a named host, incomplete; the IPv6 arm's label and the client's
/// host name are hostile.
fn media_run() -> RunResult {
    let mut voice = fx::spec(TestKind::Media, 160);
    voice.media = Some(MediaProfile::Voice(VoiceProfile {
        codec: VoiceCodec::G711,
        packet_ms: 20,
    }));
    let mut video = fx::spec(TestKind::Media, 1200);
    video.media = Some(MediaProfile::Video(VideoProfile {
        frames_per_second: 25,
        mean_frame_bytes: 4000,
        i_frame_period: 12,
        i_frame_ratio: 4.0,
        max_payload_bytes: 1200,
    }));
    let mut arms = fx::native_arms(PerFamily {
        v4: Some("192.0.2.1"),
        v6: Some("2001:db8::1"),
    });
    arms[1].label = HOSTILE_LABEL.to_string();
    let mut config = fx::config(vec![voice, video], arms);
    config.host = Some("server & <friends>".to_string());
    let mut run = fx::result(config, Vec::new());
    run.client_host.hostname = HOSTILE_HOST.to_string();
    run.complete = false;
    let mut means = Vec::new();
    for (arm, shift) in [("v4", 0.0), ("v6", 0.1)] {
        means.extend([
            (0, arm, MetricId::MediaMos, 4.4 - shift),
            (0, arm, MetricId::MediaFixedBufferMos, 4.3 - shift),
            (0, arm, MetricId::MediaWorstWindowMos, 4.1 - shift),
            (0, arm, MetricId::PlayoutLossRatio, 0.002 + shift / 100.0),
            (0, arm, MetricId::MouthToEarNs, 45e6 + shift * 1e7),
            (0, arm, MetricId::GoodputBps, 64e3),
            (
                0,
                arm,
                MetricId::MediaEthernetFrameBytes,
                214.0 + shift * 200.0,
            ),
            (1, arm, MetricId::FrameDeliveryRatio, 0.99 - shift / 10.0),
            (1, arm, MetricId::FrameDelayP50Ns, 3e6),
            (1, arm, MetricId::LossRatio, 0.001),
            (1, arm, MetricId::GoodputBps, 800e3),
            (1, arm, MetricId::MediaEthernetBps, 830e3 + shift * 1e5),
        ]);
    }
    // The IPv6 voice row has no MOS: a dash.
    means.retain(|m| !(m.0 == 0 && m.1 == "v6" && m.2 == MetricId::MediaMos));
    run.analysis = Some(analysis(&means));
    run
}

/// A udp-stream sweep at two sizes whose trials end at a send budget.
fn budgeted_sweep() -> RunResult {
    let points = [128, 1408]
        .map(|size| {
            let mut spec = fx::spec(TestKind::UdpStream, size);
            spec.send_budget = Some(SendBudget::Packets(1000));
            spec
        })
        .to_vec();
    let arms = fx::native_arms(PerFamily { v4: None, v6: None });
    let mut run = fx::result(fx::config(points, arms), Vec::new());
    let mut means = Vec::new();
    for (arm, values) in [("v4", [100e6, 700e6]), ("v6", [90e6, 690e6])] {
        for (point, mean) in values.into_iter().enumerate() {
            means.push((point, arm, MetricId::GoodputBps, mean));
            means.push((point, arm, MetricId::LossRatio, 0.01 * (point + 1) as f64));
        }
    }
    run.analysis = Some(analysis(&means));
    run
}

fn html(run: &RunResult) -> String {
    normalise(&render(run, Format::Html).unwrap())
}

#[test]
fn html_of_a_small_run_on_a_testbed_matches_the_snapshot() {
    insta::assert_snapshot!(html(&small_with_wire()));
}

#[test]
fn html_of_the_diffserv_experiment_matches_the_snapshot() {
    let run = fx::diffserv::diffserv_run("20261125T120000Z-diffserv");
    insta::assert_snapshot!(html(&run));
}

#[test]
fn html_of_a_per_class_diffserv_run_matches_the_snapshot() {
    insta::assert_snapshot!(html(
        &dualperf_fixtures::diffserv_classes::diffserv_classes()
    ));
}

#[test]
fn html_of_a_media_run_matches_the_snapshot() {
    insta::assert_snapshot!(html(&media_run()));
}

#[test]
fn html_of_a_budgeted_size_sweep_matches_the_snapshot() {
    insta::assert_snapshot!(html(&budgeted_sweep()));
}

#[test]
fn html_of_a_fourteen_arm_design_matches_the_snapshot() {
    insta::assert_snapshot!(html(&crate::designed::diffserv_like()));
}

#[test]
fn html_comparison_of_two_runs_matches_the_snapshot() {
    let before = synthetic::small_synthetic_run();
    let after = synthetic::SyntheticLab {
        stream_sizes: vec![64, 1472],
        rr_sizes: vec![64],
        probe: false,
        ..synthetic::after_upgrade()
    }
    .build();
    let page = render_comparison(&before, &after, Format::Html).unwrap();
    insta::assert_snapshot!(normalise(&page));
}

/// Checks that `page` shows the hostile label and host name as text only.
fn assert_escaped(page: &str) {
    assert!(!page.contains("<script>alert"), "a label opened a script");
    assert!(!page.contains("<img"), "a host name opened an element");
    assert!(
        page.contains("&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"),
        "the label is shown, escaped"
    );
    assert!(
        page.contains("&lt;img src=x onerror=alert(2)&gt;&amp;amp;"),
        "the host name is shown, escaped"
    );
    // Every attribute stays closed: no title ends early at the label's quote.
    assert!(!page.contains("=\"\"><script"));
}

#[test]
fn a_hostile_arm_label_and_host_name_render_escaped() {
    // In tables, the legend line and the facts.
    let page = render(&media_run(), Format::Html).unwrap();
    assert_escaped(&page);
    assert!(page.contains("server &amp; &lt;friends&gt;"));
    // In verdict hover texts (attributes), chart captions and legends, and
    // the testbed's facts.
    let mut run = synthetic::small_synthetic_run();
    run.config.arms[1].label = HOSTILE_LABEL.to_string();
    run.client_host.hostname = HOSTILE_HOST.to_string();
    if let Some(testbed) = run.testbed.as_mut() {
        testbed.name = HOSTILE_HOST.to_string();
    }
    let page = render(&run, Format::Html).unwrap();
    assert_escaped(&page);
    let escaped = "&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;";
    let in_titles = page
        .split("title=\"")
        .skip(1)
        .filter(|rest| rest.split('"').next().unwrap().contains(escaped))
        .count();
    assert!(in_titles > 0, "the label is in hover texts, escaped");
    let in_captions = page
        .split("<figcaption>")
        .skip(1)
        .filter(|rest| {
            rest.split("</figcaption>")
                .next()
                .unwrap()
                .contains(escaped)
        })
        .count();
    assert!(in_captions > 0, "the label is in chart captions, escaped");
    // And on the comparison page.
    let before = synthetic::small_synthetic_run();
    let page = render_comparison(&before, &run, Format::Html).unwrap();
    assert_escaped(&page);
}

#[test]
fn normalising_drops_only_layout_whitespace_and_chart_bodies() {
    let page = "<p>a b</p>\n  <svg x=\"1\"><path d=\"M0\"/></svg> <b>c</b><i>< 0.001</i>";
    assert_eq!(normalise(page), "<p>a b</p><svg/><b>c</b><i>&lt; 0.001</i>");
}

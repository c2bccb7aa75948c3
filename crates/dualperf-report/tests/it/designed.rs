//! Designed experiments in a real browser (issue 22): a DiffServ-shaped run
//! (family × load level, 14 arms, contrasts declared per load) and the
//! realtime shape (alone and under load, per family). In Chromium at
//! 1400 px: every in-page link (`href="#x"`) has its target, the answer has
//! at most 8 sentences, and no chart carries more than 8 series (more arms
//! become small multiples, one chart per load level). That legends sit
//! outside the plot is checked by construction in `charts::line`'s tests.

use dualperf_fixtures as fx;
use dualperf_model::{
    Arm, ArmId, CarriedBy, Contrast, Factor, IpFamily, LoadCondition, LoadFlow, LoadSpec,
    LoadTable, Marking, OfferedLoad, RunResult, TestKind, TestSpec,
};
use dualperf_report::{render, Format};

use crate::browser::{assert_loads_cleanly, dead_links, figure_attribute, require_chromium};

/// The offered load levels of the DiffServ-shaped run: (percent, bytes).
const LEVELS: [(u32, u32); 6] = [
    (85, 128),
    (100, 128),
    (115, 128),
    (85, 1408),
    (100, 1408),
    (115, 1408),
];

fn id(text: &str) -> ArmId {
    ArmId::new(text).unwrap()
}

/// IPv4 and IPv6 alone, then both families under each load level: arm
/// ids say nothing (`cell-N`), the levels are in the loads.
pub(crate) fn diffserv_like() -> RunResult {
    let mut arms = vec![
        Arm::native(IpFamily::V4, None),
        Arm::native(IpFamily::V6, None),
    ];
    let mut loads = Vec::new();
    let mut contrasts = vec![Contrast {
        arm: id("v6"),
        baseline: id("v4"),
        factor: Factor::Family,
    }];
    for (n, (percent, bytes)) in LEVELS.into_iter().enumerate() {
        for family in IpFamily::ALL {
            let name = format!("load-{n}-{}", family.label());
            loads.push(LoadSpec {
                name: name.clone(),
                label: format!("BE UDP at {percent} % × {bytes} B"),
                flows: vec![LoadFlow {
                    label: "BE UDP".into(),
                    spec: TestSpec::new(TestKind::UdpStream, bytes),
                    family: Some(family),
                    marking: Marking::default(),
                }],
                warmup_ms: 0,
                offered: Some(OfferedLoad {
                    table: LoadTable::Step,
                    percent,
                    datagram_bytes: bytes,
                    carried_by: CarriedBy::Family(family),
                }),
            });
            arms.push(Arm {
                id: id(&format!("cell-{}", arms.len())),
                label: format!("{}, BE at {percent} % × {bytes} B", family.label()),
                load: LoadCondition::Under { load: name },
                ..Arm::native(family, None)
            });
        }
        let (v4, v6) = (
            arms[arms.len() - 2].id.clone(),
            arms[arms.len() - 1].id.clone(),
        );
        contrasts.push(Contrast {
            arm: v6,
            baseline: v4.clone(),
            factor: Factor::Family,
        });
        contrasts.push(Contrast {
            arm: v4,
            baseline: id("v4"),
            factor: Factor::Load,
        });
    }
    let goodputs: Vec<Vec<Option<f64>>> = (0..arms.len())
        .map(|a| {
            (0..4)
                .map(|r| Some(9.0 - 0.3 * a as f64 + 0.05 * r as f64))
                .collect()
        })
        .collect();
    let goodputs: Vec<&[Option<f64>]> = goodputs.iter().map(Vec::as_slice).collect();
    let mut result = fx::stream_run(arms, &goodputs);
    result.config.loads = loads;
    result.config.contrasts = contrasts;
    fx::analysed(result)
}

/// The `<li>` items of the answer section.
fn answer_items(dom: &str) -> usize {
    let start = dom
        .find("<section id=\"answer\"")
        .expect("no answer section");
    let end = start + dom[start..].find("</section>").unwrap();
    dom[start..end].matches("<li>").count()
}

/// Every figure's `data-series` (charts that record it), by figure id.
fn series_counts(dom: &str) -> Vec<(String, usize)> {
    dom.split("<figure id=\"")
        .skip(1)
        .filter_map(|rest| {
            let figure = rest.split('"').next()?;
            let count = figure_attribute(dom, figure, "data-series")?.parse().ok()?;
            Some((figure.to_string(), count))
        })
        .collect()
}

fn check(run: &RunResult) -> String {
    let Some(binary) = require_chromium() else {
        return String::new();
    };
    let directory = tempfile::tempdir().unwrap();
    let html = render(run, Format::Html).unwrap();
    let (_, dom) = assert_loads_cleanly(&binary, directory.path(), &html);
    let nav = dom.matches("href=\"#").count();
    assert!(nav >= 4, "the nav links {nav} sections");
    assert_eq!(dead_links(&dom), Vec::<String>::new(), "dead in-page links");
    let answers = answer_items(&dom);
    assert!((1..=8).contains(&answers), "{answers} answer sentences");
    let counts = series_counts(&dom);
    assert!(!counts.is_empty());
    for (figure, series) in &counts {
        assert!(*series <= 8, "{figure} draws {series} series in one chart");
    }
    dom
}

#[test]
fn a_diffserv_shaped_report_links_only_its_sections_answers_briefly_and_splits_charts() {
    let run = diffserv_like();
    assert_eq!(run.config.arms.len(), 14);
    let dom = check(&run);
    if dom.is_empty() {
        return;
    }
    // 14 arms: throughput against size is one small chart per load level
    // (alone, then each offered level with both families).
    let multiples = series_counts(&dom)
        .into_iter()
        .filter(|(figure, _)| figure.starts_with("throughput-tcp-stream-"))
        .count();
    assert_eq!(multiples, 1 + LEVELS.len());
    assert!(dom.contains("load step 115 % of the link, 1408 B datagrams"));
    // Sections this run has no data for are neither rendered nor linked.
    assert!(!dom.contains("href=\"#media\""));
    assert!(!dom.contains("href=\"#diffserv\""));
}

#[test]
fn a_realtime_shaped_report_links_only_its_sections_and_answers_briefly() {
    let run = crate::baselines::realtime_like();
    let dom = check(&run);
    if dom.is_empty() {
        return;
    }
    // Four arms fit one chart: no small multiples.
    assert!(dom.contains("<figure id=\"throughput-tcp-stream\""));
    assert!(!dom.contains("<figure id=\"throughput-tcp-stream-1\""));
    // One message size: the arms side by side, not a one-point "vs size" line.
    assert!(dom.contains("TCP throughput at 131072 B, by arm"), "title");
    assert!(
        !dom.contains("vs message size"),
        "a one-size run has no size axis"
    );
}

#[test]
fn the_diffserv_fixture_report_fits_the_page_and_every_link_resolves() {
    let run = fx::diffserv::diffserv_run("20261125T120000Z-diffserv");
    let dom = check(&run);
    if dom.is_empty() {
        return;
    }
    assert!(!dom.contains("(issue 12)"), "internal text in the page");
}

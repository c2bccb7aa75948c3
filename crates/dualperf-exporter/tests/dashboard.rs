//! The Grafana dashboard in `contrib/grafana/dualperf.json` asks only for
//! series the exporter serves: every metric name in its queries is a family
//! of the exposition (with `_sum`, `_count`, `_total` or `_info` where the
//! family's type has them), so a renamed metric cannot leave a blank panel.
//! That the queries are valid PromQL and find data is checked against a
//! real Prometheus in `crates/dualperf/tests/exporter.rs`.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code

use std::path::Path;

use dualperf_exporter::openmetrics::{Family, Kind};

fn dashboard() -> serde_json::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../contrib/grafana/dualperf.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Every `expr` and variable query of the dashboard.
fn queries(dashboard: &serde_json::Value) -> Vec<String> {
    let mut found = Vec::new();
    for panel in dashboard["panels"].as_array().unwrap() {
        for target in panel["targets"].as_array().unwrap() {
            found.push(target["expr"].as_str().unwrap().to_string());
        }
    }
    for variable in dashboard["templating"]["list"].as_array().unwrap() {
        if let Some(query) = variable["definition"].as_str() {
            found.push(query.to_string());
        }
    }
    found
}

/// The names a family's samples carry.
fn sample_names(family: Family) -> Vec<String> {
    let name = family.name();
    match family.kind() {
        Kind::Gauge => vec![name.to_string()],
        Kind::Counter => vec![format!("{name}_total")],
        Kind::Info => vec![format!("{name}_info")],
        Kind::Summary => vec![
            name.to_string(),
            format!("{name}_sum"),
            format!("{name}_count"),
        ],
    }
}

#[test]
fn every_query_names_a_served_metric() {
    let dashboard = dashboard();
    let served: Vec<String> = Family::ALL.iter().flat_map(|f| sample_names(*f)).collect();
    let queries = queries(&dashboard);
    assert!(queries.len() >= 10, "{queries:?}");
    let mut used = Vec::new();
    for query in &queries {
        let words = query.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
        for word in words.filter(|w| w.starts_with("dualperf_") || w.starts_with("process_")) {
            assert!(
                served.iter().any(|s| s == word),
                "`{word}` in `{query}` is not served"
            );
            used.push(word.to_string());
        }
    }
    for needed in [
        Family::Goodput,
        Family::Rtt,
        Family::OneWayDelay,
        Family::Loss,
        Family::Jitter,
        Family::HeadlineRatio,
        Family::LastRunSuccess,
        Family::LastRunTimestamp,
    ] {
        assert!(
            used.iter().any(|u| u.starts_with(needed.name())),
            "no panel shows {}",
            needed.name()
        );
    }
}

#[test]
fn panels_have_unique_ids_and_use_the_datasource_variable() {
    let dashboard = dashboard();
    let panels = dashboard["panels"].as_array().unwrap();
    let mut ids: Vec<u64> = panels.iter().map(|p| p["id"].as_u64().unwrap()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), panels.len());
    for panel in panels {
        assert_eq!(
            panel["datasource"]["uid"], "${datasource}",
            "{}",
            panel["title"]
        );
        assert!(!panel["title"].as_str().unwrap().is_empty());
    }
    assert_eq!(dashboard["uid"], "dualperf-v4-v6");
}

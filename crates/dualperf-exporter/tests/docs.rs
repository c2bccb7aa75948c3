//! docs/monitoring.md shows a configuration that the exporter accepts as
//! it is, and the errors it quotes are the ones the exporter writes.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code

use std::path::Path;

use dualperf_exporter::Config;

fn page() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/monitoring.md"))
        .unwrap()
}

/// The contents of every fenced block in `language`.
fn blocks(page: &str, language: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut current: Option<String> = None;
    for line in page.lines() {
        match &mut current {
            None if line == format!("```{language}") => current = Some(String::new()),
            Some(block) if line == "```" => {
                found.push(std::mem::take(block));
                current = None;
            }
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
            None => {}
        }
    }
    found
}

#[test]
fn the_documented_configuration_is_valid_and_within_its_duty_cycle() {
    let page = page();
    let configs = blocks(&page, "toml");
    // The fleet's configuration first, then the `/probe` modules' one.
    assert_eq!(configs.len(), 2);
    let config = Config::parse(&configs[0]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(config.targets.len(), 3);
    assert!(config.listen.ip().is_loopback());
    assert!(config.planned_duty_cycle() <= config.duty_cycle);
    let probes = Config::parse(&configs[1]).unwrap_or_else(|e| panic!("{e}"));
    assert!(probes.targets.is_empty() && !probes.modules.is_empty());
}

#[test]
fn the_quoted_errors_are_the_exporters() {
    let page = page();
    let text = "\n[[target]]\nname = \"lon-1\"\nhost = \"lon-1.example.net\"\ninterval = \"5s\"\nmax_runs_per_hour = 3600\n";
    let error = Config::parse(text).unwrap_err().0[0].clone();
    let quoted = format!(
        "exporter.toml:{}: {}: {}",
        error.line.unwrap(),
        error.key,
        error.message
    );
    assert!(page.contains(&quoted), "{quoted}");
}

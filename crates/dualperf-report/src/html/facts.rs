//! The conditions of the numbers: configuration, testbed and host facts,
//! as maud templates (every name, address and note is escaped by the
//! template).

use dualperf_model::{HostFacts, LoadCondition, RunConfig, RunResult, TestbedFacts};
use maud::{html, Markup};

use super::date;

/// A titled two-column table: one row per (key, value).
fn table<K: AsRef<str>>(title: &str, rows: &[(K, Markup)]) -> Markup {
    html! {
        div {
            h3 { (title) }
            table class="facts" {
                tbody {
                    @for (key, value) in rows {
                        tr {
                            th { (key.as_ref()) }
                            td { (value) }
                        }
                    }
                }
            }
        }
    }
}

/// Plain text as a table value.
fn text(value: &str) -> Markup {
    html! { (value) }
}

/// `items` with `separator` between them.
fn join(items: impl IntoIterator<Item = Markup>, separator: &Markup) -> Markup {
    html! {
        @for (index, item) in items.into_iter().enumerate() {
            @if index > 0 { (separator) }
            (item)
        }
    }
}

/// `items` one per line.
fn lines(items: impl IntoIterator<Item = Markup>) -> Markup {
    join(items, &html! { br; })
}

/// `items` one per line, or "–" for none.
fn lines_or_dash(items: impl IntoIterator<Item = Markup>) -> Markup {
    let items: Vec<Markup> = items.into_iter().collect();
    if items.is_empty() {
        return text("–");
    }
    lines(items)
}

/// `values` separated by commas, or "–" for none.
fn list(values: &[String]) -> Markup {
    if values.is_empty() {
        text("–")
    } else {
        text(&values.join(", "))
    }
}

/// One line per arm: label (baseline marked), id, family, path, marking,
/// load and target.
fn arms(config: &RunConfig) -> Markup {
    lines(config.arms.iter().map(|arm| {
        html! {
            b { (arm.label) }
            @if arm.id == config.baseline { " (baseline)" }
            ": " code { (arm.id.as_str()) }
            ", " (arm.family.label())
            ", " (arm.path.label())
            @if let Some(dscp) = arm.marking.dscp {
                ", DSCP " (dscp.value()) " (" (dscp.name()) ")"
            }
            @if let Some(label) = arm.marking.flow_label {
                ", flow label " (label.value())
            }
            @if let LoadCondition::Under { load } = &arm.load {
                ", under load " (load)
            }
            ", target " (arm.target.as_deref().unwrap_or("–"))
        }
    }))
}

fn configuration(run: &RunResult) -> Markup {
    let config = &run.config;
    let mut kinds: Vec<String> = Vec::new();
    for spec in &config.points {
        let name = spec.kind.name().to_string();
        if !kinds.contains(&name) {
            kinds.push(name);
        }
    }
    let first = config.points.first();
    let finished = if run.finished_at_unix_ms == 0 {
        "never (interrupted)".to_string()
    } else {
        date(run.finished_at_unix_ms)
    };
    table(
        "Configuration",
        &[
            ("Run", html! { code { (run.run_id) } }),
            (
                "Started / finished",
                html! { (date(run.started_at_unix_ms)) " / " (finished) },
            ),
            (
                "Complete",
                html! {
                    @if run.complete { "yes" } @else { b { "no" } ": " (list(&run.errors)) }
                },
            ),
            (
                "Points",
                html! { (config.points.len()) " (" (kinds.join(", ")) ")" },
            ),
            ("Arms", arms(config)),
            (
                "Repetitions",
                text(&format!(
                    "{} per point and arm, {} order",
                    config.repeat,
                    format!("{:?}", config.order).to_lowercase()
                )),
            ),
            (
                "Duration / warm-up",
                text(&first.map_or("–".into(), |s| {
                    format!("{} ms / {} ms per trial", s.duration_ms, s.warmup_ms)
                })),
            ),
            (
                "Sampling interval",
                text(&first.map_or("–".into(), |s| format!("{} ms", s.sample_interval_ms))),
            ),
            ("Control port", text(&config.port.to_string())),
            (
                "CPU pinning",
                text(&format!(
                    "client {:?} · server {:?}",
                    config.client_cpus, config.server_cpus
                )),
            ),
            (
                "Command line",
                html! { code { (config.command_line.join(" ")) } },
            ),
        ],
    )
}

fn testbed(testbed: &TestbedFacts, mechanisms: &[String]) -> Markup {
    let nodes = lines(testbed.nodes.iter().map(|n| {
        html! {
            b { (n.name) } " (" (n.role) ", netns " code { (n.netns) }
            @if n.forwarding { ", forwarding" }
            "): " (list(&n.addresses))
        }
    }));
    let links = lines(testbed.links.iter().map(|l| {
        html! {
            (l.between[0]) " — " (l.between[1])
            " (" code { (l.interfaces[0]) } "/" code { (l.interfaces[1]) }
            ", MTU " (l.mtu_bytes) " B"
            @if let Some(shaping) = &l.shaping { ", " (shaping) }
            ")"
        }
    }));
    let mechanisms = if testbed.mechanisms.is_empty() {
        text("–")
    } else {
        lines(mechanisms.iter().map(|m| text(m)))
    };
    table(
        &format!("Testbed {}", testbed.name),
        &[
            ("Description", text(&testbed.description)),
            ("Nodes", nodes),
            ("Links", links),
            ("Mechanisms", mechanisms),
            (
                "Client / server",
                html! { (testbed.client_node) " / " (testbed.server_node) },
            ),
            (
                "Notes",
                lines_or_dash(testbed.notes.iter().map(|n| text(n))),
            ),
        ],
    )
}

fn host(title: &str, host: &HostFacts) -> Markup {
    let interfaces = lines_or_dash(host.interfaces.iter().map(|i| {
        html! {
            code { (i.name) } " MTU " (i.mtu_bytes) " B, qdisc "
            (i.qdisc.as_deref().unwrap_or("?")) ", " (list(&i.addresses))
            @if !i.offloads.is_empty() { "; offloads " (list(&i.offloads)) }
        }
    }));
    table(
        title,
        &[
            ("Host name", text(&host.hostname)),
            ("Kernel", text(&host.kernel)),
            ("OS", text(&host.os)),
            ("CPU", html! { (host.cpu_count) " × " (host.cpu_model) }),
            (
                "Memory",
                text(&format!(
                    "{:.1} GiB",
                    host.memory_bytes as f64 / 1_073_741_824.0
                )),
            ),
            ("TCP congestion control", text(&host.tcp_congestion_control)),
            ("Default qdisc", text(&host.default_qdisc)),
            ("Interfaces", interfaces),
            (
                "Network namespace",
                text(host.netns.as_deref().unwrap_or("–")),
            ),
            ("dualperf", text(&host.tool_version)),
        ],
    )
}

/// The lab's link rate and what set each point's pace, per arm (issue 23).
fn regimes(run: &RunResult) -> Markup {
    use crate::present::regime::{link_rate_words, regime_meaning, regime_word};
    let mut rows: Vec<(String, Markup)> = Vec::new();
    if let Some(rate) = run.testbed.as_ref().and_then(|t| t.link_rate.as_ref()) {
        rows.push(("Link rate".to_string(), text(&link_rate_words(rate))));
    }
    let names = crate::present::ArmNames::new(&run.config);
    let regimes = run.analysis.as_ref().map_or(&[][..], |a| &a.regimes[..]);
    for (point, spec) in run.config.points.iter().enumerate() {
        let words: Vec<Markup> = regimes
            .iter()
            .filter(|r| r.point == point)
            .map(|r| {
                let share = r.link_share.map_or("no link share".to_string(), |share| {
                    format!("{:.0} % of the link", share * 100.0)
                });
                html! {
                    (names.label(&r.arm)) ": " b { (regime_word(r.regime)) } " "
                    span title=(regime_meaning(r.regime)) { "(" (share) ")" }
                }
            })
            .collect();
        if !words.is_empty() {
            rows.push((
                format!("[{}] {}", point + 1, spec.label()),
                join(words, &text(", ")),
            ));
        }
    }
    if rows.is_empty() {
        return html! {};
    }
    table("What set each point's pace", &rows)
}

/// The facts section.
pub(crate) fn section(run: &RunResult) -> Markup {
    let marking: Vec<(&str, Markup)> = crate::present::marking::marking_lines(run)
        .iter()
        .map(|line| ("flow label", text(line)))
        .collect();
    html! {
        section id="facts" {
            h2 { "Configuration, testbed and hosts" }
            div class="facts" {
                (configuration(run))
                @if let Some(testbed_facts) = &run.testbed {
                    (testbed(testbed_facts, &crate::present::mechanisms::mechanism_lines(run)))
                    (regimes(run))
                }
                @if !marking.is_empty() {
                    (table("What each end marked", &marking))
                }
                (host("Client host", &run.client_host))
                @if let Some(server) = &run.server_host {
                    (host("Server host", server))
                }
            }
        }
    }
}

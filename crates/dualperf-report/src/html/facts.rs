//! The conditions of the numbers: configuration, testbed and host facts.

use dualperf_model::{HostFacts, LoadCondition, RunConfig, RunResult, TestbedFacts};

use super::{date, escape};

fn table(title: &str, rows: &[(&str, String)]) -> String {
    let mut html = format!(
        "<div><h3>{}</h3><table class=\"facts\"><tbody>\n",
        escape(title)
    );
    for (key, value) in rows {
        html.push_str(&format!(
            "<tr><th>{}</th><td>{}</td></tr>\n",
            escape(key),
            value
        ));
    }
    html.push_str("</tbody></table></div>\n");
    html
}

fn list(values: &[String]) -> String {
    if values.is_empty() {
        "–".to_string()
    } else {
        values
            .iter()
            .map(|v| escape(v))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// One line per arm: label (baseline marked), id, family, path, marking,
/// load and target.
fn arms(config: &RunConfig) -> String {
    config
        .arms
        .iter()
        .map(|arm| {
            let mut facts = vec![
                format!("<code>{}</code>", escape(arm.id.as_str())),
                arm.family.label().to_string(),
                escape(&arm.path.label()),
            ];
            if let Some(dscp) = arm.marking.dscp {
                facts.push(format!("DSCP {} ({})", dscp.value(), escape(&dscp.name())));
            }
            if let Some(label) = arm.marking.flow_label {
                facts.push(format!("flow label {}", label.value()));
            }
            if let LoadCondition::Under { load } = &arm.load {
                facts.push(format!("under load {}", escape(load)));
            }
            facts.push(format!(
                "target {}",
                escape(arm.target.as_deref().unwrap_or("–"))
            ));
            format!(
                "<b>{}</b>{}: {}",
                escape(&arm.label),
                if arm.id == config.baseline {
                    " (baseline)"
                } else {
                    ""
                },
                facts.join(", ")
            )
        })
        .collect::<Vec<_>>()
        .join("<br>")
}

fn configuration(run: &RunResult) -> String {
    let config = &run.config;
    let mut kinds: Vec<String> = Vec::new();
    for spec in &config.points {
        let name = spec.kind.name().to_string();
        if !kinds.contains(&name) {
            kinds.push(name);
        }
    }
    let first = config.points.first();
    table(
        "Configuration",
        &[
            ("Run", format!("<code>{}</code>", escape(&run.run_id))),
            (
                "Started / finished",
                format!(
                    "{} / {}",
                    date(run.started_at_unix_ms),
                    if run.finished_at_unix_ms == 0 {
                        "never (interrupted)".to_string()
                    } else {
                        date(run.finished_at_unix_ms)
                    }
                ),
            ),
            (
                "Complete",
                if run.complete {
                    "yes".to_string()
                } else {
                    format!("<b>no</b>: {}", list(&run.errors))
                },
            ),
            (
                "Points",
                format!("{} ({})", config.points.len(), escape(&kinds.join(", "))),
            ),
            ("Arms", arms(config)),
            (
                "Repetitions",
                format!(
                    "{} per point and arm, {} order",
                    config.repeat,
                    format!("{:?}", config.order).to_lowercase()
                ),
            ),
            (
                "Duration / warm-up",
                first.map_or("–".into(), |s| {
                    format!("{} ms / {} ms per trial", s.duration_ms, s.warmup_ms)
                }),
            ),
            (
                "Sampling interval",
                first.map_or("–".into(), |s| format!("{} ms", s.sample_interval_ms)),
            ),
            ("Control port", config.port.to_string()),
            (
                "CPU pinning",
                format!(
                    "client {:?} · server {:?}",
                    config.client_cpus, config.server_cpus
                ),
            ),
            (
                "Command line",
                format!("<code>{}</code>", escape(&config.command_line.join(" "))),
            ),
        ],
    )
}

fn testbed(testbed: &TestbedFacts, mechanisms: &[String]) -> String {
    let nodes: Vec<String> = testbed
        .nodes
        .iter()
        .map(|n| {
            format!(
                "<b>{}</b> ({}, netns <code>{}</code>{}): {}",
                escape(&n.name),
                escape(&n.role),
                escape(&n.netns),
                if n.forwarding { ", forwarding" } else { "" },
                list(&n.addresses)
            )
        })
        .collect();
    let links: Vec<String> = testbed
        .links
        .iter()
        .map(|l| {
            format!(
                "{} — {} (<code>{}</code>/<code>{}</code>, MTU {} B{})",
                escape(&l.between[0]),
                escape(&l.between[1]),
                escape(&l.interfaces[0]),
                escape(&l.interfaces[1]),
                l.mtu_bytes,
                l.shaping
                    .as_ref()
                    .map_or(String::new(), |s| format!(", {}", escape(s)))
            )
        })
        .collect();
    table(
        &format!("Testbed {}", testbed.name),
        &[
            ("Description", escape(&testbed.description)),
            ("Nodes", nodes.join("<br>")),
            ("Links", links.join("<br>")),
            (
                "Mechanisms",
                if testbed.mechanisms.is_empty() {
                    "–".to_string()
                } else {
                    mechanisms
                        .iter()
                        .map(|m| escape(m))
                        .collect::<Vec<_>>()
                        .join("<br>")
                },
            ),
            (
                "Client / server",
                format!(
                    "{} / {}",
                    escape(&testbed.client_node),
                    escape(&testbed.server_node)
                ),
            ),
            (
                "Notes",
                if testbed.notes.is_empty() {
                    "–".to_string()
                } else {
                    testbed
                        .notes
                        .iter()
                        .map(|n| escape(n))
                        .collect::<Vec<_>>()
                        .join("<br>")
                },
            ),
        ],
    )
}

fn host(title: &str, host: &HostFacts) -> String {
    let interfaces: Vec<String> = host
        .interfaces
        .iter()
        .map(|i| {
            format!(
                "<code>{}</code> MTU {} B, qdisc {}, {}{}",
                escape(&i.name),
                i.mtu_bytes,
                escape(i.qdisc.as_deref().unwrap_or("?")),
                list(&i.addresses),
                if i.offloads.is_empty() {
                    String::new()
                } else {
                    format!("; offloads {}", list(&i.offloads))
                }
            )
        })
        .collect();
    table(
        title,
        &[
            ("Host name", escape(&host.hostname)),
            ("Kernel", escape(&host.kernel)),
            ("OS", escape(&host.os)),
            (
                "CPU",
                format!("{} × {}", host.cpu_count, escape(&host.cpu_model)),
            ),
            (
                "Memory",
                format!("{:.1} GiB", host.memory_bytes as f64 / 1_073_741_824.0),
            ),
            (
                "TCP congestion control",
                escape(&host.tcp_congestion_control),
            ),
            ("Default qdisc", escape(&host.default_qdisc)),
            (
                "Interfaces",
                if interfaces.is_empty() {
                    "–".into()
                } else {
                    interfaces.join("<br>")
                },
            ),
            (
                "Network namespace",
                escape(host.netns.as_deref().unwrap_or("–")),
            ),
            ("dualperf", escape(&host.tool_version)),
        ],
    )
}

/// The lab's link rate and what set each point's pace, per arm (issue 23).
fn regimes(run: &RunResult) -> String {
    use crate::present::regime::{link_rate_words, regime_meaning, regime_word};
    let mut rows: Vec<(String, String)> = Vec::new();
    if let Some(rate) = run.testbed.as_ref().and_then(|t| t.link_rate.as_ref()) {
        rows.push(("Link rate".to_string(), escape(&link_rate_words(rate))));
    }
    let names = crate::present::ArmNames::new(&run.config);
    let regimes = run.analysis.as_ref().map_or(&[][..], |a| &a.regimes[..]);
    for (point, spec) in run.config.points.iter().enumerate() {
        let words: Vec<String> = regimes
            .iter()
            .filter(|r| r.point == point)
            .map(|r| {
                format!(
                    "{}: <b>{}</b> <span title=\"{}\">({})</span>",
                    escape(names.label(&r.arm)),
                    regime_word(r.regime),
                    escape(regime_meaning(r.regime)),
                    r.link_share
                        .map_or("no link share".to_string(), |share| format!(
                            "{:.0} % of the link",
                            share * 100.0
                        ))
                )
            })
            .collect();
        if !words.is_empty() {
            rows.push((
                format!("[{}] {}", point + 1, spec.label()),
                words.join(", "),
            ));
        }
    }
    if rows.is_empty() {
        return String::new();
    }
    let rows: Vec<(&str, String)> = rows.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    table("What set each point's pace", &rows)
}

/// The facts section.
pub(crate) fn section(run: &RunResult) -> String {
    let mut html = String::from(
        "<section id=\"facts\"><h2>Configuration, testbed and hosts</h2><div class=\"facts\">\n",
    );
    html.push_str(&configuration(run));
    if let Some(testbed_facts) = &run.testbed {
        html.push_str(&testbed(
            testbed_facts,
            &crate::present::mechanisms::mechanism_lines(run),
        ));
        html.push_str(&regimes(run));
    }
    let marking = crate::present::marking::marking_lines(run);
    if !marking.is_empty() {
        let rows: Vec<(&str, String)> = marking.iter().map(|l| ("flow label", escape(l))).collect();
        html.push_str(&table("What each end marked", &rows));
    }
    html.push_str(&host("Client host", &run.client_host));
    if let Some(server) = &run.server_host {
        html.push_str(&host("Server host", server));
    }
    html.push_str("</div></section>\n");
    html
}

//! Words for wire checks (`--verify-wire`, issue 14): what the capture
//! counted beside what the engine reported, and each disagreement as a
//! sentence. The counts and findings are the binary's
//! ([`dualperf_model::WireCheck`]); docs/metrics.md defines what is compared.

use std::collections::BTreeMap;

use dualperf_model::{
    ArmId, Dscp, RunResult, TrialOutcome, WireCheck, WireEnd, WireFinding, WireSide,
    WIRE_TOLERANCE_RATIO,
};

use super::arms::ArmNames;
use super::value::percent;

/// A DSCP by its RFC 4594 name and number: "ef (46)".
fn dscp(value: u8) -> String {
    match Dscp::new(value) {
        Ok(code) => format!("{} ({value})", code.name()),
        Err(_) => value.to_string(),
    }
}

/// The word for an end of the data flow.
fn end(sender: WireEnd) -> &'static str {
    match sender {
        WireEnd::Client => "client",
        WireEnd::Server => "server",
    }
}

/// The flow labels of the check, per end where counted: "flow label from
/// the client 12345 on all 812 packets, from the server 12345 on all 410
/// packets"; the server's packets are said to carry the kernel's automatic
/// label when a label was asked but the server reported none.
fn flow_label_part(check: &WireCheck) -> Option<String> {
    let seen = &check.seen;
    if seen.client_flow_labels.is_empty() && seen.server_flow_labels.is_empty() {
        // Results older than the per-end count.
        return (!seen.flow_labels.is_empty()).then(|| {
            format!(
                "flow label {}",
                histogram(&seen.flow_labels, |v| v.to_string())
            )
        });
    }
    let mut ends = Vec::new();
    if !seen.client_flow_labels.is_empty() {
        ends.push(format!(
            "from the client {}",
            histogram(&seen.client_flow_labels, |v| v.to_string())
        ));
    }
    if !seen.server_flow_labels.is_empty() {
        let automatic = match check.expected.flow_label {
            Some(asked) if check.expected.server_label_automatic => format!(
                " (the kernel's automatic labels: the server reported it could not send {asked})"
            ),
            _ => String::new(),
        };
        ends.push(format!(
            "from the server {}{automatic}",
            histogram(&seen.server_flow_labels, |v| v.to_string())
        ));
    }
    Some(format!("flow label {}", ends.join(", ")))
}

/// One finding as a clause: "DSCP cs1 (8) on 1 204 packets, ef (46) asked".
pub fn wire_finding(finding: &WireFinding) -> String {
    match finding {
        WireFinding::NothingCaptured => "no packet of the data flow was captured".to_string(),
        WireFinding::CountMismatch { seen, expected } => format!(
            "{seen} measured datagrams on the wire, {expected} reported by the engine \
             ({} % apart; at most {} % agrees)",
            percent(dualperf_model::wire::relative_difference(*seen, *expected)),
            percent(WIRE_TOLERANCE_RATIO)
        ),
        WireFinding::BytesMismatch { seen, expected } => format!(
            "{seen} payload bytes on the wire, {expected} reported ({} % apart)",
            percent(dualperf_model::wire::relative_difference(*seen, *expected))
        ),
        WireFinding::WrongFamily { expected, packets } => format!(
            "{packets} packets were not {} as the arm asked",
            expected.label()
        ),
        WireFinding::WrongDscp {
            expected,
            seen,
            packets,
        } => format!(
            "DSCP {} on {packets} packets (mostly), {} asked",
            dscp(*seen),
            dscp(*expected)
        ),
        WireFinding::WrongFlowLabel {
            expected,
            seen,
            packets,
            sender,
        } => match sender {
            Some(WireEnd::Client) => format!(
                "flow label {seen} on {packets} IPv6 packets of the {} (mostly), {expected} asked",
                end(WireEnd::Client)
            ),
            Some(WireEnd::Server) => format!(
                "flow label {seen} on {packets} IPv6 packets of the {} (mostly), {expected} \
                 reported by it",
                end(WireEnd::Server)
            ),
            None => {
                format!("flow label {seen} on {packets} IPv6 packets (mostly), {expected} asked")
            }
        },
        WireFinding::CaptureIncomplete { dropped } => {
            format!("the capture itself dropped {dropped} packets, so counts were not compared")
        }
    }
}

/// "not significant: the wire contradicts 2 of 3 IPv6 trials: DSCP …".
pub fn wire_warning(arm: &str, failed: u64, checked: u64, finding: &WireFinding) -> String {
    format!(
        "not significant: the wire contradicts {failed} of {checked} {arm} trials: {}",
        wire_finding(finding)
    )
}

/// One line per trial with a wire check, for the terminal and the report:
/// "[2] udp-stream 1024 B, IPv6 #0 on lo (receiving end): 24410 measured
/// datagrams captured, 24410 reported; DSCP ef (46) on all 24415 packets;
/// flow label 12345 on all; agrees". Empty when no trial has one.
pub fn wire_lines(result: &RunResult) -> Vec<String> {
    let names = ArmNames::new(&result.config);
    let mut lines = Vec::new();
    for trial in &result.trials {
        let TrialOutcome::Ok(observations) = &trial.outcome else {
            continue;
        };
        let Some(check) = &observations.wire else {
            continue;
        };
        lines.push(format!(
            "[{}] {}, {} #{}: {}",
            trial.point + 1,
            trial.spec.label(),
            names.label(&trial.arm),
            trial.repetition + 1,
            check_sentence(check)
        ));
    }
    lines
}

/// The terminal's wire lines: a heading with how many trials agree, then
/// every trial (`all`) or only those that disagree. Empty without checks.
pub fn wire_summary(result: &RunResult, all: bool) -> Vec<String> {
    let lines = wire_lines(result);
    if lines.is_empty() {
        return lines;
    }
    let failures = wire_failures(result);
    let failed: u64 = failures.values().map(|(f, _)| f).sum();
    let checked: u64 = failures.values().map(|(_, c)| c).sum();
    let mut out = vec![format!(
        "wire check (--verify-wire): {} of {checked} trials agree with the capture{}",
        checked - failed,
        if all || failed == 0 {
            ""
        } else {
            "; those that do not (every trial: --verbose or the report):"
        }
    )];
    out.extend(
        lines
            .into_iter()
            .filter(|line| all || line.contains("DISAGREES"))
            .map(|line| format!("  {line}")),
    );
    out
}

/// The failed checks per arm: arm → (failed, checked).
pub fn wire_failures(result: &RunResult) -> BTreeMap<ArmId, (u64, u64)> {
    let mut tally: BTreeMap<ArmId, (u64, u64)> = BTreeMap::new();
    for trial in &result.trials {
        if let TrialOutcome::Ok(observations) = &trial.outcome {
            if let Some(check) = &observations.wire {
                let entry = tally.entry(trial.arm.clone()).or_default();
                entry.1 += 1;
                if check.failed() {
                    entry.0 += 1;
                }
            }
        }
    }
    tally
}

/// A value histogram as "ef (46) on all 812 packets" or "ef (46) 800, cs1 (8) 12".
fn histogram(counts: &[dualperf_model::WireValueCount], name: impl Fn(u32) -> String) -> String {
    match counts {
        [] => "none".to_string(),
        [one] => format!("{} on all {} packets", name(one.value), one.packets),
        many => many
            .iter()
            .map(|c| format!("{} {}", name(c.value), c.packets))
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// The sentence of one trial's check.
pub fn check_sentence(check: &WireCheck) -> String {
    let side = match check.side {
        WireSide::Receiver => "receiving end",
        WireSide::Sender => "sending end",
    };
    let mut parts = vec![format!(
        "{} packets ({} B) sent, {} back",
        check.seen.packets, check.seen.ip_bytes, check.seen.reverse_packets
    )];
    if let Some(seen) = check.seen.measured_datagrams {
        parts.push(match check.expected.datagrams {
            Some(expected) => {
                format!("{seen} measured datagrams captured, {expected} reported")
            }
            None => format!("{seen} measured datagrams captured"),
        });
    }
    parts.push(format!(
        "DSCP {}",
        histogram(&check.seen.dscp, |v| dscp(v as u8))
    ));
    if let Some(labels) = flow_label_part(check) {
        parts.push(labels);
    }
    if check.seen.fragments > 0 {
        parts.push(format!("{} fragments", check.seen.fragments));
    }
    if check.seen.six_in_four > 0 {
        parts.push(format!("{} in 6in4", check.seen.six_in_four));
    }
    if check.seen.four_in_six > 0 {
        parts.push(format!("{} in 4in6", check.seen.four_in_six));
    }
    let failing: Vec<String> = check.findings.iter().map(wire_finding).collect();
    let verdict = if failing.is_empty() {
        "agrees".to_string()
    } else if check.failed() {
        format!("DISAGREES: {}", failing.join("; "))
    } else {
        failing.join("; ")
    };
    format!(
        "on {} ({side}): {}; {verdict}",
        check.interface,
        parts.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::{WireCounts, WireExpected, WireValueCount};

    #[test]
    fn a_remarked_flow_reads_as_a_disagreement_with_both_codepoints_named() {
        let check = WireCheck {
            interface: "lo".into(),
            side: WireSide::Receiver,
            seen: WireCounts {
                packets: 100,
                ip_bytes: 104_800,
                dscp: vec![WireValueCount {
                    value: 8,
                    packets: 100,
                }],
                measured_datagrams: Some(90),
                ..WireCounts::default()
            },
            expected: WireExpected {
                dscp: Some(46),
                datagrams: Some(90),
                ..WireExpected::default()
            },
            capture_dropped: Some(0),
            findings: vec![WireFinding::WrongDscp {
                expected: 46,
                seen: 8,
                packets: 100,
            }],
        };
        let text = check_sentence(&check);
        assert!(
            text.contains("90 measured datagrams captured, 90 reported"),
            "{text}"
        );
        assert!(
            text.contains("DISAGREES: DSCP cs1 (8) on 100 packets (mostly), ef (46) asked"),
            "{text}"
        );
        assert!(wire_warning("IPv6", 1, 3, &check.findings[0]).starts_with("not significant"));
    }

    #[test]
    fn flow_labels_read_per_end_and_an_unlabelled_server_is_named() {
        let check = WireCheck {
            interface: "veth".into(),
            seen: WireCounts {
                packets: 10,
                client_flow_labels: vec![WireValueCount {
                    value: 12345,
                    packets: 10,
                }],
                server_flow_labels: vec![WireValueCount {
                    value: 671_424,
                    packets: 8,
                }],
                ..WireCounts::default()
            },
            expected: WireExpected {
                flow_label: Some(12345),
                server_label_automatic: true,
                ..WireExpected::default()
            },
            ..WireCheck::default()
        };
        let text = check_sentence(&check);
        assert!(
            text.contains("flow label from the client 12345 on all 10 packets, from the server 671424 on all 8 packets (the kernel's automatic labels: the server reported it could not send 12345); agrees"),
            "{text}"
        );
        let finding = WireFinding::WrongFlowLabel {
            expected: 12345,
            seen: 7,
            packets: 8,
            sender: Some(WireEnd::Server),
        };
        assert_eq!(
            wire_finding(&finding),
            "flow label 7 on 8 IPv6 packets of the server (mostly), 12345 reported by it"
        );
    }
}

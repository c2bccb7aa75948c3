//! What each end's data sockets really sent of an arm's marking (`-S`,
//! `-L`), in words, where it fell short of what the arm asked: the server
//! reads its sockets' marking back and reports it with every trial
//! (`Observations.server_socket`), so a direction the kernel would not
//! mark is named, never claimed (issue 24, item 4). Shown by the terminal
//! under the answer and by the HTML facts section.

use std::collections::BTreeSet;

use dualperf_model::{IpFamily, RunResult, TestKind, TrialOutcome};

use super::arms::ArmNames;

/// One line per arm whose IPv6 flow label the server could not put on its
/// packets in some trials, e.g. "IPv6 flow label 12345: the server's
/// packets carried the kernel's automatic flow label, not 12345, in 2 of 2
/// trials (tcp-stream, tcp-rr): Linux gives an accepted TCP connection a
/// label only by reflecting the client's, which the server's network
/// namespace did not allow (net.ipv6.flowlabel_consistency=0 allows it);
/// the client's packets carried 12345". Empty when every end sent what
/// was asked, or nothing was asked.
pub fn marking_lines(run: &RunResult) -> Vec<String> {
    let names = ArmNames::new(&run.config);
    let mut lines = Vec::new();
    for arm in &run.config.arms {
        let Some(label) = arm.marking.flow_label else {
            continue;
        };
        if arm.family != IpFamily::V6 {
            continue;
        }
        let (mut reported, mut automatic) = (0u64, 0u64);
        let mut kinds: BTreeSet<TestKind> = BTreeSet::new();
        for trial in run.trials.iter().filter(|t| t.arm == arm.id) {
            let TrialOutcome::Ok(observations) = &trial.outcome else {
                continue;
            };
            // A server that recorded its marking read its DSCP back (`Some`
            // even for 0); one that did not said nothing of its label.
            let Some(server) = observations
                .server_socket
                .as_ref()
                .filter(|socket| socket.dscp.is_some())
            else {
                continue;
            };
            reported += 1;
            if server.flow_label.is_none() {
                automatic += 1;
                kinds.insert(trial.spec.kind);
            }
        }
        if automatic == 0 {
            continue;
        }
        let kinds: Vec<&str> = kinds.iter().map(|k| k.name()).collect();
        lines.push(format!(
            "{}: the server's packets carried the kernel's automatic flow label, not {label}, \
             in {automatic} of {reported} trials ({}): Linux gives an accepted TCP connection \
             a label only by reflecting the client's, which the server's network namespace did \
             not allow (net.ipv6.flowlabel_consistency=0 there allows it); the client's packets \
             carried {label}",
            names.label(&arm.id),
            kinds.join(", "),
            label = label.value()
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_fixtures as fx;
    use dualperf_model::{ArmPath, Dscp, FlowLabel, Observations, SocketFacts};

    fn run(server_label: Option<u32>) -> RunResult {
        let mut arm = fx::arm("v6", IpFamily::V6, ArmPath::Native);
        arm.marking.flow_label = Some(FlowLabel::new(12345).unwrap());
        let spec = fx::spec(TestKind::TcpStream, 1000);
        let observations = Observations {
            server_socket: Some(SocketFacts {
                dscp: Some(Dscp::new(0).unwrap()),
                flow_label: server_label.map(|l| FlowLabel::new(l).unwrap()),
                ..SocketFacts::default()
            }),
            ..Observations::default()
        };
        let trial = fx::trial(0, &spec, &arm, 0, fx::ok(observations));
        fx::result(fx::config(vec![spec], vec![arm]), vec![trial])
    }

    #[test]
    fn a_server_that_could_not_label_is_named_and_one_that_did_is_not() {
        let lines = marking_lines(&run(None));
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].contains(
                "the server's packets carried the kernel's automatic flow label, not 12345, \
                 in 1 of 1 trials (tcp-stream)"
            ),
            "{lines:?}"
        );
        assert!(marking_lines(&run(Some(12345))).is_empty());
    }
}

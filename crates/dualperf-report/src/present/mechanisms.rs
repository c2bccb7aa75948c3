//! The transition mechanisms a lab run's arms took, in words: which arm
//! crossed which tunnel or translator, built how, with what MTU — the
//! facts a reader needs beside a tunnel's verdict (issue 24, item 7), shown
//! by the terminal under the answer and by the HTML facts section.

use dualperf_model::RunResult;

/// One line per mechanism of the run's testbed, e.g. "IPv6 via 6in4,
/// router to router: 6in4 between router1 and router2 (bpf-lwt), MTU 1480
/// B"; empty for runs without mechanisms.
pub fn mechanism_lines(run: &RunResult) -> Vec<String> {
    let Some(testbed) = &run.testbed else {
        return Vec::new();
    };
    testbed
        .mechanisms
        .iter()
        .map(|m| {
            let arm = m
                .arm
                .as_deref()
                .and_then(|id| dualperf_model::ArmId::new(id).ok())
                .and_then(|id| run.config.arm(&id))
                .map(|a| format!("{}: ", a.label))
                .unwrap_or_default();
            let mtu = m
                .mtu_bytes
                .map(|mtu| format!(", MTU {mtu} B"))
                .unwrap_or_default();
            format!(
                "{arm}{} {} {} ({}){mtu}",
                m.kind,
                if m.between.len() > 1 { "between" } else { "on" },
                m.between.join(" and "),
                m.implementation
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::testbed::TestbedMechanism;
    use dualperf_model::TestbedFacts;

    #[test]
    fn each_mechanism_names_its_arm_nodes_implementation_and_mtu() {
        let mut run = dualperf_fixtures::synthetic::small_synthetic_run();
        let mut arm = run.config.arms[1].clone();
        arm.id = dualperf_model::ArmId::new("v6-6in4-router-router").unwrap();
        arm.label = "IPv6 via 6in4, router to router".into();
        run.config.arms.push(arm);
        run.testbed = Some(TestbedFacts {
            mechanisms: vec![
                TestbedMechanism {
                    kind: "6in4".into(),
                    between: vec!["router1".into(), "router2".into()],
                    implementation: "bpf-lwt".into(),
                    mtu_bytes: Some(1480),
                    arm: Some("v6-6in4-router-router".into()),
                    ..Default::default()
                },
                TestbedMechanism {
                    kind: "nat64".into(),
                    between: vec!["router".into()],
                    implementation: "tayga".into(),
                    ..Default::default()
                },
            ],
            ..Default::default()
        });
        assert_eq!(
            mechanism_lines(&run),
            vec![
                "IPv6 via 6in4, router to router: 6in4 between router1 and router2 (bpf-lwt), MTU 1480 B",
                "nat64 on router (tayga)",
            ]
        );
        run.testbed = None;
        assert!(mechanism_lines(&run).is_empty());
    }
}

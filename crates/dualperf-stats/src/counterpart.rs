//! Which arm an arm is compared with.
//!
//! A run has one baseline arm ([`RunConfig::baseline`], native IPv4 by
//! default). When arms also differ in marking or load (the DiffServ
//! experiments: `v4-ef`, `v6-ef`, `v4-ef-load`, `v6-ef-load`), comparing
//! every arm with that one baseline would mix two changes: `v6-ef-load`
//! against `v4-ef` is IPv6 *and* a load. So an arm is compared with its
//! **counterpart** when it has one: the arm of the baseline's family and
//! path with the same DSCP and the same load (IPv6 against IPv4 per traffic
//! class and load) — or, for loads that must differ per family (a load
//! offered at equal link rate needs a lower payload rate over IPv6), the
//! arm whose id is this arm's with the family key swapped (`v6-ef-be115` →
//! `v4-ef-be115`). An arm without a counterpart other than itself (the
//! baseline family's own loaded arms) is compared with the run's baseline,
//! which for those is the same family idle: a load's effect. For the
//! classic runs (unmarked, idle arms) the counterpart is the baseline
//! itself, so nothing changes there.

use dualperf_model::{Arm, ArmId, RunConfig};

/// The arm `arm` is compared with (possibly `arm` itself, the run's
/// baseline, which is compared with nothing).
pub fn baseline_of<'a>(config: &'a RunConfig, arm: &'a ArmId) -> &'a ArmId {
    let (Some(this), Some(baseline)) = (config.arm(arm), config.baseline_arm()) else {
        return &config.baseline;
    };
    if this.id == baseline.id {
        return &config.baseline;
    }
    config
        .arms
        .iter()
        .find(|other| other.id != this.id && is_counterpart(other, this, baseline))
        .map_or(&config.baseline, |other| &other.id)
}

/// True when `other` is `arm` in the baseline's family and on its path.
fn is_counterpart(other: &Arm, arm: &Arm, baseline: &Arm) -> bool {
    let swapped = arm
        .id
        .as_str()
        .strip_prefix(arm.family.key())
        .filter(|rest| rest.starts_with('-'))
        .map(|rest| format!("{}{rest}", baseline.family.key()));
    other.family == baseline.family
        && other.path == baseline.path
        && other.marking.dscp == arm.marking.dscp
        && (other.load == arm.load || swapped.as_deref() == Some(other.id.as_str()))
}

#[cfg(test)]
mod tests {
    use dualperf_model::{Dscp, IpFamily, LoadCondition, Marking};

    use super::*;

    fn arm(id: &str, family: IpFamily, dscp: Option<Dscp>, load: Option<&str>) -> Arm {
        Arm {
            id: ArmId::new(id).unwrap(),
            label: id.into(),
            marking: Marking {
                dscp,
                flow_label: None,
            },
            load: load.map_or(LoadCondition::Idle, |l| LoadCondition::Under {
                load: l.into(),
            }),
            ..Arm::native(family, None)
        }
    }

    fn config(arms: Vec<Arm>) -> RunConfig {
        let mut config: RunConfig =
            serde_json::from_str(r#"{"points":[],"arms":[],"baseline":"v4","repeat":1,"order":"interleaved","host":null,"port":1,"client_cpus":[],"server_cpus":[],"command_line":[]}"#)
                .unwrap();
        config.baseline = arms[0].id.clone();
        config.arms = arms;
        config
    }

    #[test]
    fn each_class_and_load_is_compared_with_its_ipv4_counterpart() {
        let ef = Some(Dscp::EF);
        let config = config(vec![
            arm("v4-ef", IpFamily::V4, ef, None),
            arm("v6-ef", IpFamily::V6, ef, None),
            arm("v4-ef-load", IpFamily::V4, ef, Some("be")),
            arm("v6-ef-load", IpFamily::V6, ef, Some("be")),
        ]);
        let of = |id: &str| baseline_of(&config, &ArmId::new(id).unwrap()).to_string();
        assert_eq!(of("v4-ef"), "v4-ef");
        assert_eq!(of("v6-ef"), "v4-ef");
        assert_eq!(of("v6-ef-load"), "v4-ef-load");
        // IPv4's own loaded arm: the load's effect, against IPv4 idle.
        assert_eq!(of("v4-ef-load"), "v4-ef");
    }

    #[test]
    fn loads_that_differ_per_family_pair_by_arm_id() {
        let ef = Some(Dscp::EF);
        let config = config(vec![
            arm("v4-ef", IpFamily::V4, ef, None),
            arm("v4-ef-be115", IpFamily::V4, ef, Some("be115-v4")),
            arm("v6-ef-be115", IpFamily::V6, ef, Some("be115-v6")),
            arm("mixed-s115", IpFamily::V4, ef, Some("mixed")),
        ]);
        let of = |id: &str| baseline_of(&config, &ArmId::new(id).unwrap()).to_string();
        assert_eq!(of("v6-ef-be115"), "v4-ef-be115");
        assert_eq!(of("mixed-s115"), "v4-ef");
    }

    #[test]
    fn classic_arms_keep_the_run_baseline() {
        let config = config(vec![
            arm("v4", IpFamily::V4, None, None),
            arm("v6", IpFamily::V6, None, None),
        ]);
        assert_eq!(
            baseline_of(&config, &ArmId::new("v6").unwrap()).as_str(),
            "v4"
        );
    }
}

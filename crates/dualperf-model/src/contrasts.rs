//! Which arm an arm is compared with: the contrasts of the run's design.
//!
//! A planner declares its contrasts ([`RunConfig::contrasts`], often by
//! calling [`contrasts`] on its plan to make the classic ones explicit); then
//! exactly those pairs are compared, and an arm that appears in none is
//! summarised but compared with nothing. A run that declares none (the
//! classic `run`, the battery, results stored before designs existed) gets
//! the classic contrasts, derived from the arms' typed levels only — never
//! from ids or labels:
//!
//! - an arm is compared with its **counterpart**: the arm of the baseline's
//!   family and path with the same DSCP under the same load, where two loads
//!   are the same when they are one load or the same level of a designed
//!   load factor carried by different families ([`OfferedLoad`]: a load
//!   offered at equal link rate needs a lower payload rate over IPv6, so
//!   each family has its own) — IPv6 against IPv4 per traffic class and load;
//! - an arm without a counterpart other than itself (the baseline family's
//!   own loaded arms) is compared with the run's baseline, which for those
//!   is the same family idle: the load's effect.
//!
//! For the classic runs (unmarked, idle arms) the counterpart is the
//! baseline itself, so nothing changes there.

use crate::arm::{Arm, LoadCondition};
use crate::design::{Contrast, Factor, OfferedLoad};
use crate::spec::RunConfig;

/// The contrasts of `config`: the declared ones, else the classic ones.
pub fn contrasts(config: &RunConfig) -> Vec<Contrast> {
    if !config.contrasts.is_empty() {
        return config.contrasts.clone();
    }
    let Some(baseline) = config.baseline_arm() else {
        return Vec::new();
    };
    config
        .arms
        .iter()
        .filter(|arm| arm.id != baseline.id)
        .map(|arm| {
            let other = config
                .arms
                .iter()
                .find(|other| other.id != arm.id && is_counterpart(config, other, arm, baseline))
                .unwrap_or(baseline);
            Contrast {
                arm: arm.id.clone(),
                baseline: other.id.clone(),
                factor: factor_between(arm, other),
            }
        })
        .collect()
}

/// The factor two arms differ in, the most specific first: a tunnelled or
/// translated arm against native IPv4 is the path's effect (which includes
/// the family), a marked one the marking's, a loaded one the load's, else
/// the family's.
pub fn factor_between(arm: &Arm, baseline: &Arm) -> Factor {
    if arm.path != baseline.path {
        Factor::Path
    } else if arm.marking != baseline.marking {
        Factor::Marking
    } else if arm.load != baseline.load && arm.family == baseline.family {
        Factor::Load
    } else {
        Factor::Family
    }
}

/// True when `other` is `arm` in the baseline's family and on its path.
fn is_counterpart(config: &RunConfig, other: &Arm, arm: &Arm, baseline: &Arm) -> bool {
    other.family == baseline.family
        && other.path == baseline.path
        && other.marking.dscp == arm.marking.dscp
        && same_load(config, other, arm)
}

/// True when both arms run under the same level of the load factor: the
/// same load (or both idle), or two loads at the same designed level
/// carried by different families.
pub fn same_load(config: &RunConfig, a: &Arm, b: &Arm) -> bool {
    if a.load == b.load {
        return true;
    }
    let offered = |arm: &Arm| -> Option<OfferedLoad> {
        match &arm.load {
            LoadCondition::Idle => None,
            LoadCondition::Under { .. } => config.load_of(arm).ok().flatten()?.offered,
        }
    };
    match (offered(a), offered(b)) {
        (Some(x), Some(y)) => x.same_level_across_families(&y),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use crate::{
        ArmId, CarriedBy, Dscp, IpFamily, LoadSpec, LoadTable, Marking, TestKind, TestSpec,
    };

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

    fn load(name: &str, offered: Option<OfferedLoad>) -> LoadSpec {
        LoadSpec {
            name: name.into(),
            label: name.into(),
            flows: vec![crate::LoadFlow {
                label: "BE UDP".into(),
                spec: TestSpec::new(TestKind::UdpStream, 1408),
                family: None,
                marking: Marking::default(),
            }],
            warmup_ms: 0,
            offered,
        }
    }

    fn step(carried_by: CarriedBy) -> Option<OfferedLoad> {
        Some(OfferedLoad {
            table: LoadTable::Class,
            percent: 115,
            datagram_bytes: 1408,
            carried_by,
        })
    }

    fn of(config: &RunConfig, id: &str) -> String {
        let arm = ArmId::new(id).unwrap();
        contrasts(config)
            .into_iter()
            .find(|c| c.arm == arm)
            .map_or(arm, |c| c.baseline)
            .to_string()
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
        assert_eq!(of(&config, "v4-ef"), "v4-ef");
        assert_eq!(of(&config, "v6-ef"), "v4-ef");
        assert_eq!(of(&config, "v6-ef-load"), "v4-ef-load");
        // IPv4's own loaded arm: the load's effect, against IPv4 idle.
        assert_eq!(of(&config, "v4-ef-load"), "v4-ef");
        let factors: Vec<Factor> = contrasts(&config).iter().map(|c| c.factor).collect();
        assert_eq!(factors, [Factor::Family, Factor::Load, Factor::Family]);
    }

    #[test]
    fn loads_that_differ_per_family_pair_by_their_designed_level_not_by_id() {
        let ef = Some(Dscp::EF);
        let mut config = config(vec![
            arm("v4-ef", IpFamily::V4, ef, None),
            // Ids that say nothing: the pairing comes from the loads' levels.
            arm("a", IpFamily::V4, ef, Some("x")),
            arm("b", IpFamily::V6, ef, Some("y")),
            arm("c", IpFamily::V4, ef, Some("z")),
        ]);
        config.loads = vec![
            load("x", step(CarriedBy::Family(IpFamily::V4))),
            load("y", step(CarriedBy::Family(IpFamily::V6))),
            load("z", step(CarriedBy::Mixed)),
        ];
        assert_eq!(of(&config, "b"), "a");
        assert_eq!(of(&config, "c"), "v4-ef");
        // Without designed levels, two different loads are not the same level.
        config.loads[1].offered = None;
        assert_eq!(of(&config, "b"), "v4-ef");
    }

    #[test]
    fn declared_contrasts_are_the_only_ones() {
        let mut config = config(vec![
            arm("v4", IpFamily::V4, None, None),
            arm("v6", IpFamily::V6, None, None),
            arm("v6-load", IpFamily::V6, None, Some("l")),
        ]);
        config.contrasts = vec![Contrast {
            arm: ArmId::new("v6-load").unwrap(),
            baseline: ArmId::new("v6").unwrap(),
            factor: Factor::Load,
        }];
        assert_eq!(of(&config, "v6-load"), "v6");
        // v6 is named by no declared contrast: compared with nothing.
        assert_eq!(of(&config, "v6"), "v6");
    }

    #[test]
    fn classic_arms_keep_the_run_baseline() {
        let config = config(vec![
            arm("v4", IpFamily::V4, None, None),
            arm("v6", IpFamily::V6, None, None),
        ]);
        assert_eq!(of(&config, "v6"), "v4");
    }
}

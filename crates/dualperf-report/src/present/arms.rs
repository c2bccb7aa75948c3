//! Arms are named for people by their labels ("IPv6 via 6in4, router to
//! router"); machines use their ids (`v6-6in4-router-router`). An id that
//! the run's configuration does not list (an old or partial result) is
//! shown as the id itself.

use dualperf_model::{Arm, ArmId, RunConfig};

/// A report's title from its arms' labels: "IPv4 vs IPv6"; beyond four
/// arms the first three and the count ("IPv4 EF vs IPv6 EF vs … (106
/// arms)"), so a designed experiment's title stays one line.
pub fn title(config: &RunConfig) -> String {
    let labels: Vec<&str> = config.arms.iter().map(|a| a.label.as_str()).collect();
    if labels.len() > 4 {
        format!("{} … ({} arms)", labels[..3].join(" vs "), labels.len())
    } else {
        labels.join(" vs ")
    }
}

/// Looks up arm labels by id, and the order of the arms.
#[derive(Clone, Debug, Default)]
pub struct ArmNames {
    arms: Vec<(ArmId, String)>,
    baseline: Option<ArmId>,
}

impl ArmNames {
    /// The arms of `config`, in configuration order, with its baseline.
    pub fn new(config: &RunConfig) -> ArmNames {
        ArmNames {
            arms: config
                .arms
                .iter()
                .map(|arm| (arm.id.clone(), arm.label.clone()))
                .collect(),
            baseline: Some(config.baseline.clone()),
        }
    }

    /// The given arms, without a baseline.
    pub fn from_arms(arms: &[Arm]) -> ArmNames {
        ArmNames {
            arms: arms
                .iter()
                .map(|arm| (arm.id.clone(), arm.label.clone()))
                .collect(),
            baseline: None,
        }
    }

    /// The label of `id`, or the id itself when no arm has it.
    pub fn label<'a>(&'a self, id: &'a ArmId) -> &'a str {
        self.arms
            .iter()
            .find(|(arm, _)| arm == id)
            .map_or(id.as_str(), |(_, label)| label.as_str())
    }

    /// Position of `id` among the arms (unknown ids sort last).
    pub fn index(&self, id: &ArmId) -> usize {
        self.arms
            .iter()
            .position(|(arm, _)| arm == id)
            .unwrap_or(self.arms.len())
    }

    /// The baseline's id, if known.
    pub fn baseline(&self) -> Option<&ArmId> {
        self.baseline.as_ref()
    }

    /// The baseline's label ("IPv4" in the classic run), if known.
    pub fn baseline_label(&self) -> Option<&str> {
        self.baseline.as_ref().map(|id| self.label(id))
    }

    /// Every arm id, in configuration order.
    pub fn ids(&self) -> impl Iterator<Item = &ArmId> {
        self.arms.iter().map(|(id, _)| id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::IpFamily;

    #[test]
    fn labels_come_from_the_arms_and_unknown_ids_stand_for_themselves() {
        let names = ArmNames::from_arms(&[Arm::native(IpFamily::V6, None)]);
        assert_eq!(names.label(&ArmId::native(IpFamily::V6)), "IPv6");
        let other = ArmId::new("v4-ef").unwrap();
        assert_eq!(names.label(&other), "v4-ef");
        assert_eq!(names.index(&other), 1);
    }
}

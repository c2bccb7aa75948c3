//! How a plan is executed, beside what it measures: adaptive repetition
//! (`--repeat auto`) and reruns of contended trials (`--rerun-contended`).
//! It travels with the plan file (`PlanFile`: a [`crate::RunConfig`] with an
//! `execution` key), so `dualperf lab`'s measuring child runs exactly as
//! the lab was asked, without re-spelled flags.

use serde::{Deserialize, Serialize};

/// A precision target for `--repeat auto` (the stats stage's stopping rule).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PrecisionTarget {
    /// Confidence level of the interval, e.g. 0.99.
    pub confidence: f64,
    /// Largest half-width of that interval relative to the mean, e.g. 0.025.
    pub half_width_ratio: f64,
    /// Fewest repetitions per arm.
    pub min_repetitions: u32,
    /// Most repetitions per arm.
    pub max_repetitions: u32,
}

/// How to execute a plan.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Execution {
    /// Repeat every point until its headline metric meets this target;
    /// `None`: `RunConfig.repeat` times.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until_precise: Option<PrecisionTarget>,
    /// Most extra attempts of a trial that ran contended.
    #[serde(default)]
    pub rerun_contended: u32,
}

/// A plan file: the run configuration, and how to execute it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PlanFile {
    /// What to measure.
    #[serde(flatten)]
    pub config: crate::RunConfig,
    /// How; absent in plain configurations.
    #[serde(default)]
    pub execution: Execution,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Arm, ArmId, IpFamily, RepetitionOrder, RunConfig};

    #[test]
    fn a_plan_file_is_a_run_configuration_with_an_execution_key() {
        let plan = PlanFile {
            config: RunConfig {
                peer: crate::PeerKind::Dualperf,
                loads: Vec::new(),
                points: vec![],
                arms: vec![Arm::native(IpFamily::V4, None)],
                baseline: ArmId::native(IpFamily::V4),
                repeat: 3,
                order: RepetitionOrder::Interleaved,
                host: None,
                port: 1,
                client_cpus: vec![],
                server_cpus: vec![],
                command_line: vec![],
                contrasts: Vec::new(),
                goal: None,
            },
            execution: Execution {
                until_precise: Some(PrecisionTarget {
                    confidence: 0.99,
                    half_width_ratio: 0.025,
                    min_repetitions: 3,
                    max_repetitions: 10,
                }),
                rerun_contended: 2,
            },
        };
        let text = serde_json::to_string(&plan).unwrap();
        assert_eq!(serde_json::from_str::<PlanFile>(&text).unwrap(), plan);
        // Older readers see a plain configuration.
        assert_eq!(
            serde_json::from_str::<RunConfig>(&text).unwrap(),
            plan.config
        );
        // A plain configuration is a plan with the default execution.
        let plain = serde_json::to_string(&plan.config).unwrap();
        assert_eq!(
            serde_json::from_str::<PlanFile>(&plain).unwrap().execution,
            Execution::default()
        );
    }
}

//! Wire checks (`--verify-wire`) of an arm's trials at one point: a trial
//! whose capture contradicts what the engine reported or what the arm
//! asked for (counts beyond 0.1 %, family, DSCP, flow label) makes the
//! comparison not significant, with a typed warning saying which check
//! failed (docs/metrics.md, "Wire verification").

use dualperf_model::{ArmId, ComparisonWarning, Trial, TrialOutcome, WireFinding};

/// The wire checks of an arm's successful trials at one point.
#[derive(Debug, Default)]
pub(crate) struct WireTally {
    /// Trials with a wire check.
    checked: u64,
    /// Trials whose check failed.
    failed: u64,
    /// The first failing finding.
    first: Option<WireFinding>,
}

impl WireTally {
    /// Counts `trial`'s wire check, if it has one.
    pub(crate) fn add(&mut self, trial: &Trial) {
        let TrialOutcome::Ok(observations) = &trial.outcome else {
            return;
        };
        let Some(check) = &observations.wire else {
            return;
        };
        self.checked += 1;
        if check.failed() {
            self.failed += 1;
            if self.first.is_none() {
                self.first = check.findings.iter().find(|f| f.fails()).cloned();
            }
        }
    }

    /// The warning for `arm`, when any of its checks failed.
    pub(crate) fn warning(&self, arm: &ArmId) -> Option<ComparisonWarning> {
        let finding = self.first.clone().filter(|_| self.failed > 0)?;
        Some(ComparisonWarning::WireMismatch {
            arm: arm.clone(),
            failed: self.failed,
            checked: self.checked,
            finding,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::{Arm, IpFamily, Observations, TestKind, WireCheck};

    fn trial(findings: Vec<WireFinding>) -> Trial {
        let observations = Observations {
            wire: Some(WireCheck {
                findings,
                ..WireCheck::default()
            }),
            ..dualperf_fixtures::stream(1e9)
        };
        dualperf_fixtures::trial(
            0,
            &dualperf_fixtures::spec(TestKind::UdpStream, 1024),
            &Arm::native(IpFamily::V6, None),
            0,
            dualperf_fixtures::ok(observations),
        )
    }

    #[test]
    fn a_failed_check_warns_and_an_incomplete_capture_does_not() {
        let arm = ArmId::native(IpFamily::V6);
        let mut tally = WireTally::default();
        tally.add(&trial(vec![WireFinding::CaptureIncomplete { dropped: 2 }]));
        assert_eq!(tally.warning(&arm), None);
        tally.add(&trial(vec![WireFinding::WrongDscp {
            expected: 46,
            seen: 8,
            packets: 100,
        }]));
        match tally.warning(&arm) {
            Some(ComparisonWarning::WireMismatch {
                failed: 1,
                checked: 2,
                finding: WireFinding::WrongDscp { seen: 8, .. },
                ..
            }) => {}
            other => panic!("{other:?}"),
        }
    }
}

//! Words for contended trials (issue 14): a comparison whose trials ran
//! while other programs took the CPUs the tool needed is never called
//! significant, and the verdict says plainly why:
//!
//! "Not significant: 2 of 3 IPv4 trials ran while the tool's threads waited
//! for a CPU 31 % of the time (other programs used 60 % of the CPUs); IPv6
//! is 367 % faster than IPv4 (95 % CI …)".
//!
//! Contention is judged by its effect on the tool (issue 23): its own
//! threads' run-queue wait, per transaction for rr, or a paced sender's
//! schedule; other programs' CPU use is named beside it as context.
//! Results without the tool's wait were judged by presence (other
//! programs' share, steal, pressure) and are worded as before.
//!
//! The thresholds and the figures are the stats stage's
//! ([`dualperf_model::ContentionEvidence`]); docs/metrics.md defines them.

use dualperf_model::{Comparison, ComparisonWarning, ContentionCause, ContentionEvidence};

use super::value::percent;

/// "2 of 3 IPv4 trials", "all 3 IPv6 trials", "the only IPv4 trial".
pub fn contended_trials(arm: &str, contended: u64, trials: u64) -> String {
    match (contended, trials) {
        (1, 1) => format!("the only {arm} trial"),
        (c, t) if c == t => format!("all {t} {arm} trials"),
        (c, t) => format!("{c} of {t} {arm} trials"),
    }
}

/// Which CPUs a foreign share is of: "the CPUs", "CPU 0", "CPUs 0, 2".
fn cpus(evidence: &ContentionEvidence) -> String {
    match evidence.cpus.as_slice() {
        [] => "the CPUs".to_string(),
        [one] => format!("CPU {one}, where the tool was pinned"),
        many => {
            let list: Vec<String> = many.iter().map(u32::to_string).collect();
            format!("CPUs {}, where the tool was pinned", list.join(", "))
        }
    }
}

/// What the contended trials ran beside: "the tool's threads waited for
/// a CPU 31 % of the time (other programs used 60 % of the CPUs)", "the
/// paced sender fell behind its schedule (…)"; by presence: "other
/// programs used 60 % of the CPUs", "a hypervisor stole 12 % of the CPU
/// time", "tasks waited for a CPU 85 % of the time and other programs
/// used 14 % of the CPUs".
pub fn contention_cause(evidence: &ContentionEvidence) -> String {
    let foreign = evidence.foreign_cpu_ratio.unwrap_or(0.0);
    let others = || match evidence.foreign_cpu_ratio {
        Some(share) => format!(
            " (other programs used {} % of {})",
            percent(share),
            cpus(evidence)
        ),
        None => String::new(),
    };
    match evidence.cause {
        ContentionCause::RunQueueWait => format!(
            "the tool's threads waited for a CPU {} % of the time{}",
            percent(evidence.run_queue_wait_ratio.unwrap_or(0.0)),
            others()
        ),
        ContentionCause::TransactionWait => format!(
            "the tool's threads waited for a CPU {} % of the mean transaction time per \
             transaction{}",
            percent(evidence.wait_per_transaction_ratio.unwrap_or(0.0)),
            others()
        ),
        ContentionCause::MissedSchedule => format!(
            "the paced sender fell behind its schedule, stalling up to {} % of the trial and \
             owing {} % of its datagrams at the end{}",
            percent(evidence.pacer_stall_ratio.unwrap_or(0.0)),
            percent(evidence.pacer_owed_ratio.unwrap_or(0.0)),
            others()
        ),
        ContentionCause::ForeignCpu => format!(
            "other programs used {} % of {}",
            percent(foreign),
            cpus(evidence)
        ),
        ContentionCause::Steal => format!(
            "a hypervisor stole {} % of the CPU time",
            percent(evidence.steal_ratio.unwrap_or(0.0))
        ),
        ContentionCause::Pressure => format!(
            "tasks waited for a CPU {} % of the time and other programs used {} % of {}",
            percent(evidence.pressure_ratio.unwrap_or(0.0)),
            percent(foreign),
            cpus(evidence)
        ),
    }
}

/// "2 of 3 IPv4 trials ran while other programs used 60 % of the CPUs"
/// for the contended arms of `comparison` (the arm is labelled `arm`, the
/// baseline `baseline`); both arms' trials are named when both were
/// contended, with the stronger evidence. `None` when none was.
pub fn contention_clause(comparison: &Comparison, arm: &str, baseline: &str) -> Option<String> {
    let mut parts = Vec::new();
    let mut strongest: Option<&ContentionEvidence> = None;
    for warning in &comparison.warnings {
        if let ComparisonWarning::Contended {
            arm: id,
            contended,
            trials,
            evidence,
        } = warning
        {
            let label = if *id == comparison.arm { arm } else { baseline };
            parts.push(contended_trials(label, *contended, *trials));
            let stronger = strongest.is_none_or(|kept| {
                rank(evidence) > rank(kept)
                    || (rank(evidence) == rank(kept)
                        && (evidence.run_queue_wait_ratio, evidence.foreign_cpu_ratio)
                            > (kept.run_queue_wait_ratio, kept.foreign_cpu_ratio))
            });
            if stronger {
                strongest = Some(evidence);
            }
        }
    }
    let evidence = strongest?;
    Some(format!(
        "{} ran while {}",
        parts.join(" and "),
        contention_cause(evidence)
    ))
}

fn rank(evidence: &ContentionEvidence) -> u8 {
    match evidence.cause {
        ContentionCause::RunQueueWait
        | ContentionCause::TransactionWait
        | ContentionCause::MissedSchedule => 4,
        ContentionCause::Steal => 3,
        ContentionCause::ForeignCpu => 2,
        ContentionCause::Pressure => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trials_are_counted_in_words() {
        assert_eq!(contended_trials("IPv4", 2, 3), "2 of 3 IPv4 trials");
        assert_eq!(contended_trials("IPv6", 3, 3), "all 3 IPv6 trials");
        assert_eq!(contended_trials("IPv4", 1, 1), "the only IPv4 trial");
    }

    #[test]
    fn each_cause_says_what_the_trials_ran_beside() {
        let foreign = ContentionEvidence {
            cause: ContentionCause::ForeignCpu,
            foreign_cpu_ratio: Some(0.6),
            machine_cpus: 2,
            ..ContentionEvidence::default()
        };
        assert_eq!(
            contention_cause(&foreign),
            "other programs used 60 % of the CPUs"
        );
        let pinned = ContentionEvidence {
            cpus: vec![0],
            ..foreign.clone()
        };
        assert_eq!(
            contention_cause(&pinned),
            "other programs used 60 % of CPU 0, where the tool was pinned"
        );
        let steal = ContentionEvidence {
            cause: ContentionCause::Steal,
            steal_ratio: Some(0.12),
            ..ContentionEvidence::default()
        };
        assert_eq!(
            contention_cause(&steal),
            "a hypervisor stole 12 % of the CPU time"
        );
        let pressure = ContentionEvidence {
            cause: ContentionCause::Pressure,
            pressure_ratio: Some(0.85),
            foreign_cpu_ratio: Some(0.14),
            ..ContentionEvidence::default()
        };
        assert_eq!(
            contention_cause(&pressure),
            "tasks waited for a CPU 85 % of the time and other programs used 14 % of the CPUs"
        );
    }

    #[test]
    fn each_effect_says_how_long_the_tool_waited_and_names_the_others() {
        let waited = ContentionEvidence {
            cause: ContentionCause::RunQueueWait,
            run_queue_wait_ratio: Some(0.31),
            foreign_cpu_ratio: Some(0.6),
            ..ContentionEvidence::default()
        };
        assert_eq!(
            contention_cause(&waited),
            "the tool's threads waited for a CPU 31 % of the time (other programs used 60 % of \
             the CPUs)"
        );
        let rr = ContentionEvidence {
            cause: ContentionCause::TransactionWait,
            wait_per_transaction_ratio: Some(0.8),
            ..ContentionEvidence::default()
        };
        assert_eq!(
            contention_cause(&rr),
            "the tool's threads waited for a CPU 80 % of the mean transaction time per transaction"
        );
        let paced = ContentionEvidence {
            cause: ContentionCause::MissedSchedule,
            pacer_stall_ratio: Some(0.03),
            pacer_owed_ratio: Some(0.0),
            ..ContentionEvidence::default()
        };
        assert_eq!(
            contention_cause(&paced),
            "the paced sender fell behind its schedule, stalling up to 3.0 % of the trial and \
             owing 0 % of its datagrams at the end"
        );
    }
}

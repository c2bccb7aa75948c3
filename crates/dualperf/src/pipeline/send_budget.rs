//! A send budget from the flags (`run -n/-k`, `lab -n/-k`): the budget
//! every tcp-stream and udp-stream point of the plan carries
//! ([`dualperf_model::SendBudget`]) and the time cap that bounds those
//! points, checked before anything runs.

use dualperf_model::TestKind;

use super::plan::{PointOptions, MAX_TRIAL_SECONDS};
use crate::exit::Failure;

/// A send budget as the flags give it: the budget of every stream point and
/// the time cap of those points, seconds (their `duration_ms`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct BudgetOption {
    /// Blocks or bytes per trial.
    pub budget: dualperf_model::SendBudget,
    /// Longest a budgeted trial may run, seconds.
    pub cap_seconds: f64,
}

/// The time cap of a budgeted trial when `-t` does not set one, seconds.
pub(crate) const DEFAULT_BUDGET_CAP_SECONDS: f64 = 30.0;

/// A send budget needs a stream point the client sends, a budget of at
/// least one block, and a cap in range.
///
/// # Errors
/// A usage error naming the flag.
pub(crate) fn check(options: &PointOptions) -> anyhow::Result<()> {
    let Some(budget) = options.send_budget else {
        return Ok(());
    };
    if !(budget.cap_seconds > 0.0 && budget.cap_seconds <= MAX_TRIAL_SECONDS) {
        return Err(Failure::usage(format!(
            "the time cap of a send budget (-t with -n/-k) must be in (0, {MAX_TRIAL_SECONDS}] seconds"
        )));
    }
    if options.reverse {
        return Err(Failure::usage(
            "-n/-k with -R is not implemented: a send budget ends trials the client sends",
        ));
    }
    if !options
        .tests
        .iter()
        .any(|k| matches!(k, TestKind::TcpStream | TestKind::UdpStream))
    {
        return Err(Failure::usage(
            "-n/-k end tcp-stream and udp-stream trials; --tests names neither",
        ));
    }
    if matches!(
        budget.budget,
        dualperf_model::SendBudget::Bytes(0) | dualperf_model::SendBudget::Packets(0)
    ) {
        return Err(Failure::usage("-n/-k 0 sends nothing; give at least 1"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::plan::{parse_tests, points};
    use dualperf_model::{IpFamily, SendBudget};

    fn budgeted(tests: &str, budget: SendBudget) -> PointOptions {
        PointOptions {
            tests: parse_tests(tests).unwrap(),
            send_budget: Some(BudgetOption {
                budget,
                cap_seconds: 30.0,
            }),
            ..PointOptions::default()
        }
    }

    #[test]
    fn stream_points_carry_the_budget_and_the_cap_and_the_others_stay_timed() {
        let options = budgeted("udp-stream,tcp-stream,tcp-rr", SendBudget::Packets(1000));
        let points = points(&options, &IpFamily::ALL).unwrap();
        for point in &points {
            match point.kind {
                TestKind::UdpStream | TestKind::TcpStream => {
                    assert_eq!(point.send_budget, Some(SendBudget::Packets(1000)));
                    assert_eq!(point.duration_ms, 30_000);
                }
                _ => {
                    assert_eq!(point.send_budget, None);
                    assert_eq!(point.duration_ms, 1_000);
                }
            }
        }
    }

    #[test]
    fn a_budget_without_a_stream_point_with_reverse_or_of_zero_is_a_usage_error() {
        let message = |options: &PointOptions| {
            let error = points(options, &IpFamily::ALL).unwrap_err();
            error.downcast_ref::<Failure>().unwrap().message.clone()
        };
        assert!(message(&budgeted("tcp-rr", SendBudget::Bytes(1))).contains("neither"));
        let mut reverse = budgeted("udp-stream", SendBudget::Packets(5));
        reverse.reverse = true;
        assert!(message(&reverse).contains("-R"));
        assert!(message(&budgeted("udp-stream", SendBudget::Packets(0))).contains("0"));
        let mut uncapped = budgeted("udp-stream", SendBudget::Packets(5));
        uncapped.send_budget.as_mut().unwrap().cap_seconds = 0.0;
        assert!(message(&uncapped).contains("time cap"));
    }
}

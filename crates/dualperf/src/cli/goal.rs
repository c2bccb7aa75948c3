//! `--precision P` and `--budget D` (run and lab): a precision goal for
//! the headline comparisons, met by Stein's two-stage procedure
//! ([`dualperf_stats::stopping`]), as the model's [`Goal`].

use dualperf_model::Goal;

/// Repetitions of the first stage: the variance estimate has 2 degrees of
/// freedom, the fewest that give an interval (and today's default run).
pub(crate) const FIRST_STAGE: u32 = 3;
/// Most repetitions per arm and point under a goal.
pub(crate) const MAX_REPETITIONS: u32 = 50;
/// The budget when `--precision` comes without `--budget`: 5 minutes.
pub(crate) const DEFAULT_BUDGET_MS: u64 = 5 * 60 * 1000;

/// `2%`, `2 %` or `0.02`: a relative half-width in (0, 1).
pub(crate) fn parse_precision(text: &str) -> Result<f64, String> {
    let trimmed = text.trim();
    let (number, scale) = match trimmed.strip_suffix('%') {
        Some(percent) => (percent.trim(), 100.0),
        None => (trimmed, 1.0),
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a precision (e.g. 2% or 0.02)"))?;
    let ratio = value / scale;
    if !(ratio > 0.0 && ratio < 1.0) {
        return Err(format!(
            "--precision {text} must be above 0 and below 100 % (e.g. 2%)"
        ));
    }
    Ok(ratio)
}

/// `90s`, `5m`, `1h`, `1m30s` or plain seconds: a budget of 10 s to 24 h
/// (the one duration parser, [`dualperf_model::units::parse_duration`]).
pub(crate) fn parse_budget_ms(text: &str) -> Result<u64, String> {
    let budget =
        dualperf_model::units::parse_duration(text, std::time::Duration::from_secs(86_400))
            .map_err(|e| format!("--budget: {e}"))?;
    if budget < std::time::Duration::from_secs(10) {
        return Err(format!("--budget {text} must be between 10 s and 24 h"));
    }
    Ok((budget.as_secs_f64() * 1e3).round() as u64)
}

/// The goal of `--precision` (and `--budget`), `None` without `--precision`.
pub(crate) fn goal(precision: Option<f64>, budget_ms: Option<u64>) -> Option<Goal> {
    precision.map(|half_width_ratio| Goal {
        half_width_ratio,
        budget_ms: budget_ms.unwrap_or(DEFAULT_BUDGET_MS),
        first_stage: FIRST_STAGE,
        max_repetitions: MAX_REPETITIONS,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precision_takes_percent_or_a_ratio_and_refuses_nonsense() {
        assert_eq!(parse_precision("2%"), Ok(0.02));
        assert_eq!(parse_precision("2 %"), Ok(0.02));
        assert_eq!(parse_precision("0.02"), Ok(0.02));
        assert!(parse_precision("0").is_err());
        assert!(parse_precision("150%").is_err());
        assert!(parse_precision("two").is_err());
        assert!(parse_precision("NaN").is_err());
    }

    #[test]
    fn budget_takes_units_and_bounds() {
        assert_eq!(parse_budget_ms("5m"), Ok(300_000));
        assert_eq!(parse_budget_ms("90s"), Ok(90_000));
        assert_eq!(parse_budget_ms("1m30s"), Ok(90_000));
        assert_eq!(parse_budget_ms("120"), Ok(120_000));
        assert_eq!(parse_budget_ms("1h"), Ok(3_600_000));
        assert!(parse_budget_ms("5s").is_err());
        assert!(parse_budget_ms("2d").is_err());
        assert!(parse_budget_ms("").is_err());
    }
}

//! Summaries of raw values, computed exactly as dualperf-stats computes
//! them (`summary::mean`, `summary::percentile_of_sorted`), so a replay
//! through the meter reproduces its numbers to the last bit.

/// Mean of the values with one correction pass (`first + Σ(v − first)/n`);
/// `None` when empty.
pub(crate) fn mean(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let n = values.len() as f64;
    let first = values.iter().sum::<f64>() / n;
    let correction = values.iter().map(|v| v - first).sum::<f64>() / n;
    Some(first + correction)
}

/// The `quantile` (0..=1) of ascending `sorted` values, linear interpolation
/// between closest ranks (Hyndman & Fan type 7: `h = (n − 1)·q`,
/// `x[⌊h⌋] + (h − ⌊h⌋)(x[⌊h⌋+1] − x[⌊h⌋])`); `None` when empty.
pub(crate) fn percentile_of_sorted(sorted: &[f64], quantile: f64) -> Option<f64> {
    if sorted.is_empty() || !(0.0..=1.0).contains(&quantile) {
        return None;
    }
    let position = (sorted.len() - 1) as f64 * quantile;
    let lower = position.floor() as usize;
    let upper = (lower + 1).min(sorted.len() - 1);
    let fraction = position - lower as f64;
    Some(sorted[lower] + fraction * (sorted[upper] - sorted[lower]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_seven_interpolates_between_ranks() {
        let values: Vec<f64> = (1..=1000).map(|v| v as f64).collect();
        assert_eq!(percentile_of_sorted(&values, 0.5), Some(500.5));
        let p999 = percentile_of_sorted(&values, 0.999).unwrap_or_default();
        assert!((p999 - 999.001).abs() < 1e-9);
        assert_eq!(percentile_of_sorted(&[], 0.5), None);
        assert_eq!(mean(&[1.0, 2.0, 6.0]), Some(3.0));
        assert_eq!(mean(&[]), None);
    }
}

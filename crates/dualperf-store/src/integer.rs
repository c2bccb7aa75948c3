//! Checked conversions between the model's unsigned integers and SQLite's
//! signed 64-bit INTEGER, and a guard against NaN (which SQLite turns into NULL).

use crate::error::{Result, StoreError};

/// `value` as an SQLite INTEGER.
///
/// # Errors
/// [`StoreError::Unstorable`] above `i64::MAX`.
pub(crate) fn to_sql(value: u64, what: &str, run_id: &str) -> Result<i64> {
    i64::try_from(value).map_err(|_| StoreError::Unstorable {
        what: what.to_string(),
        run_id: run_id.to_string(),
        value: value.to_string(),
    })
}

/// An SQLite INTEGER read back as `u64`; negative values (never written by
/// this crate) read as 0 rather than wrapping.
pub(crate) fn from_sql(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

/// `value` unless it is NaN, which SQLite would silently store as NULL.
///
/// # Errors
/// [`StoreError::Unstorable`] for NaN.
pub(crate) fn real(value: f64, what: &str, run_id: &str) -> Result<f64> {
    if value.is_nan() {
        return Err(StoreError::Unstorable {
            what: what.to_string(),
            run_id: run_id.to_string(),
            value: "NaN".to_string(),
        });
    }
    Ok(value)
}

/// Like [`real`] for an optional value.
pub(crate) fn real_opt(value: Option<f64>, what: &str, run_id: &str) -> Result<Option<f64>> {
    value.map(|v| real(v, what, run_id)).transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_above_i64_max_are_refused_with_their_name() {
        let err = to_sql(u64::MAX, "sent bytes", "r1").unwrap_err();
        assert!(err.to_string().contains("sent bytes"), "{err}");
        assert_eq!(to_sql(42, "x", "r1").unwrap(), 42);
    }

    #[test]
    fn nan_is_refused_but_infinity_is_kept() {
        assert!(real(f64::NAN, "mean", "r1").is_err());
        assert_eq!(real(f64::INFINITY, "mean", "r1").unwrap(), f64::INFINITY);
    }
}

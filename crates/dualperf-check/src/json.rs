//! The `dualperf check --json` document: one versioned envelope
//! ([`CheckDocument`]) around the local matrix or a host report, and the
//! serde helpers that write durations as numbers with the unit in the
//! field name (`elapsed_ms: 12.5`) while the Rust API keeps [`Duration`]s.
//! The published schema, `docs/schemas/check.schema.json`, is derived from
//! these types.

use std::time::Duration;

use serde::Serializer;

use crate::{HostReport, LocalMatrix};

/// Name of the JSON schema of [`CheckDocument`].
pub const CHECK_SCHEMA: &str = "dualperf.check";
/// Version of that schema: 2 put the output in an envelope and wrote
/// durations as milliseconds (1 had serde's `{"secs", "nanos"}`).
pub const CHECK_SCHEMA_VERSION: u32 = 2;

/// What `dualperf check --json` prints: exactly one of `local` and `host`.
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct CheckDocument {
    /// Always [`CHECK_SCHEMA`].
    pub schema: String,
    /// [`CHECK_SCHEMA_VERSION`] when written.
    pub schema_version: u32,
    /// `check --local`: this host's socket API measured on loopback.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local: Option<LocalMatrix>,
    /// `check HOST`: resolution, connections and the RFC 8305 decision.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<HostReport>,
}

impl CheckDocument {
    /// The document for a `check --local` matrix.
    pub fn local(matrix: LocalMatrix) -> CheckDocument {
        CheckDocument {
            local: Some(matrix),
            ..CheckDocument::empty()
        }
    }

    /// The document for a `check HOST` report.
    pub fn host(report: HostReport) -> CheckDocument {
        CheckDocument {
            host: Some(report),
            ..CheckDocument::empty()
        }
    }

    fn empty() -> CheckDocument {
        CheckDocument {
            schema: CHECK_SCHEMA.to_string(),
            schema_version: CHECK_SCHEMA_VERSION,
            local: None,
            host: None,
        }
    }
}

/// Milliseconds of `duration` as a fractional number (ns resolution kept).
fn millis(duration: &Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}

/// Serialises a [`Duration`] as milliseconds (a JSON number).
pub(crate) fn ms<S: Serializer>(duration: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_f64(millis(duration))
}

/// Serialises an optional [`Duration`] as milliseconds or `null`.
pub(crate) fn option_ms<S: Serializer>(
    duration: &Option<Duration>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match duration {
        Some(duration) => serializer.serialize_f64(millis(duration)),
        None => serializer.serialize_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::happy_eyeballs::{Attempt, Decision};
    use dualperf_model::IpFamily;

    #[test]
    fn durations_are_milliseconds_with_the_unit_in_the_name() {
        let decision = Decision {
            winner: Some(IpFamily::V6),
            connected_at: Some(Duration::from_micros(12_500)),
            attempts: vec![Attempt {
                family: IpFamily::V6,
                started_at: Duration::ZERO,
                ended_at: Duration::from_millis(3),
                succeeded: true,
            }],
        };
        let value = serde_json::to_value(&decision).unwrap();
        assert_eq!(value["connected_at_ms"], 12.5);
        assert_eq!(value["attempts"][0]["ended_at_ms"], 3.0);
        let text = value.to_string();
        assert!(!text.contains("secs") && !text.contains("nanos"), "{text}");
    }
}

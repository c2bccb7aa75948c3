//! JSON Schema for the types whose serde is written by hand or goes
//! through another type (`try_from`/`into`): each impl here describes the
//! real wire form, so the published schema (`docs/schemas/result.schema.json`)
//! says what the JSON holds, not what the Rust type looks like.

use std::borrow::Cow;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};

use crate::arm::{Dscp, FlowLabel};
use crate::metric::MetricId;

impl JsonSchema for Dscp {
    fn schema_name() -> Cow<'static, str> {
        "Dscp".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A Differentiated Services codepoint (RFC 2474), 0..=63.",
            "type": "integer",
            "minimum": 0,
            "maximum": 63
        })
    }
}

impl JsonSchema for FlowLabel {
    fn schema_name() -> Cow<'static, str> {
        "FlowLabel".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "An IPv6 flow label (RFC 6437), 20 bits: 0..=1048575.",
            "type": "integer",
            "minimum": 0,
            "maximum": 0xF_FFFF
        })
    }
}

impl JsonSchema for MetricId {
    fn schema_name() -> Cow<'static, str> {
        "MetricId".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let names: Vec<&str> = MetricId::ALL.iter().map(|metric| metric.name()).collect();
        json_schema!({
            "description": "A metric's machine name, with its unit (docs/metrics.md defines each).",
            "type": "string",
            "enum": names
        })
    }
}

/// The wire form of a `u128` sum: a JSON number while it fits in `u64`, a
/// decimal string beyond (see `LatencySamples::sum_ns`).
pub(crate) struct U128Wire;

impl JsonSchema for U128Wire {
    fn schema_name() -> Cow<'static, str> {
        "U128AsU64OrString".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A non-negative integer: a JSON number up to 2^64-1, a decimal string beyond.",
            "anyOf": [
                { "type": "integer", "minimum": 0 },
                { "type": "string", "pattern": "^[0-9]+$" }
            ]
        })
    }
}

/// Any JSON value: what an older result holds where it is ignored on reading.
pub(crate) struct AnyValue;

impl JsonSchema for AnyValue {
    fn schema_name() -> Cow<'static, str> {
        "AnyValue".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!(true)
    }
}

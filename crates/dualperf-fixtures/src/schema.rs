//! The published JSON Schemas (`docs/schemas/`) in tests: where they are,
//! the strictness every published schema gets (an object accepts only the
//! properties its type declares, so a field added to a type without
//! regenerating the schema fails validation), and validation with the
//! instance path of every error.

use std::path::PathBuf;

use serde_json::{Map, Value};

/// `docs/schemas/FILE` in the workspace.
pub fn published_schema_path(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs/schemas")
        .join(file)
}

/// The committed schema `docs/schemas/FILE`.
///
/// # Panics
/// When the file is missing or not JSON.
pub fn published_schema(file: &str) -> Value {
    let path = published_schema_path(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// Every error of `instance` against the committed schema `FILE`, each as
/// `instance path: message` (empty when valid).
///
/// # Panics
/// When the schema does not compile.
pub fn validation_errors(file: &str, instance: &Value) -> Vec<String> {
    let schema = published_schema(file);
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&schema)
        .unwrap_or_else(|e| panic!("docs/schemas/{file} does not compile: {e}"));
    validator
        .iter_errors(instance)
        .map(|error| format!("{}: {error}", error.instance_path()))
        .collect()
}

/// Panics, listing every error with its instance path, unless `instance`
/// validates against the committed schema `FILE`.
pub fn assert_valid(file: &str, instance: &Value) {
    let errors = validation_errors(file, instance);
    assert!(
        errors.is_empty(),
        "{} error(s) against docs/schemas/{file}:\n{}",
        errors.len(),
        errors.join("\n")
    );
}

/// `schema` made strict: every object schema that lists `properties` gets
/// `"additionalProperties": false`. An object schema that refers to a
/// definition and adds properties beside the `$ref` (serde's internally
/// tagged enum variants: the tag next to the inner struct's fields) gets the
/// definition's properties inlined first, since a strict definition would
/// otherwise reject the tag.
pub fn strict_schema(mut schema: Value) -> Value {
    let definitions = schema
        .get("$defs")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    make_strict(&mut schema, &definitions);
    schema
}

fn make_strict(node: &mut Value, definitions: &Map<String, Value>) {
    match node {
        Value::Object(object) => {
            if object.contains_key("properties") {
                inline_sibling_ref(object, definitions);
                object
                    .entry("additionalProperties")
                    .or_insert(Value::Bool(false));
            }
            for value in object.values_mut() {
                make_strict(value, definitions);
            }
        }
        Value::Array(items) => {
            for item in items {
                make_strict(item, definitions);
            }
        }
        _ => {}
    }
}

/// Merges the object definition a `$ref` beside `properties` names into
/// the node (its properties and required list), and drops the `$ref`.
fn inline_sibling_ref(object: &mut Map<String, Value>, definitions: &Map<String, Value>) {
    let Some(Value::String(reference)) = object.get("$ref") else {
        return;
    };
    let Some(name) = reference.strip_prefix("#/$defs/") else {
        return;
    };
    let Some(Value::Object(definition)) = definitions.get(name) else {
        return;
    };
    if !definition.contains_key("properties") {
        return;
    }
    let definition = definition.clone();
    object.remove("$ref");
    if let (Some(Value::Object(into)), Some(Value::Object(from))) =
        (object.get_mut("properties"), definition.get("properties"))
    {
        for (key, value) in from {
            into.entry(key.clone()).or_insert_with(|| value.clone());
        }
    }
    if let Some(Value::Array(from)) = definition.get("required") {
        let required = object
            .entry("required")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(into) = required {
            for key in from {
                if !into.contains(key) {
                    into.push(key.clone());
                }
            }
        }
    }
}

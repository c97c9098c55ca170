//! The request fingerprint of a JSON send: its body in one canonical form.

use herald_domain::values::RequestFingerprint;
use serde_json::Value;

/// The request's meaning for idempotency: the operation's path and the body re-serialized with sorted
/// keys and no whitespace, so formatting and key order do not make a retry look different.
pub(crate) fn fingerprint(path: &str, body: &Value) -> RequestFingerprint {
    RequestFingerprint::of(format!("{path}\n{}", canonical_json(body)).as_bytes())
}

/// Compact JSON with object keys sorted at every level. Sorted explicitly rather than relying on
/// serde_json's default map, which another crate could switch to insertion order (`preserve_order`).
pub(crate) fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical(item, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

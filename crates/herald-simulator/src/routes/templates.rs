//! `GET /{v}/{waba_id}/message_templates` with Graph cursor paging (docs/cloud-api.md §3).

use std::fmt::Write as _;

use actix_web::{HttpRequest, HttpResponse, web};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::Deserialize;
use serde_json::{Value, json};

use super::graph::GraphPath;
use crate::error::GraphError;
use crate::seed;
use crate::simulator::Simulator;

const DEFAULT_LIMIT: usize = 25;
const MAX_LIMIT: usize = 1000;
const CURSOR_PREFIX: &str = "simulator:";

#[derive(Debug, Deserialize)]
pub(crate) struct ListQuery {
    limit: Option<String>,
    after: Option<String>,
    before: Option<String>,
    name: Option<String>,
    status: Option<String>,
    language: Option<String>,
    /// Aggregates to add beside the page (`summary=total_count,message_template_limit`, or `true` for all).
    summary: Option<String>,
}

/// The templates a business account may hold: 250 for one whose business is not verified (Meta), and the
/// simulator's business is not.
const TEMPLATE_LIMIT: usize = 250;

/// The aggregates `summary` may name, as Meta's listing answers them.
const SUMMARY_FIELDS: [&str; 4] = [
    "total_count",
    "message_template_count",
    "message_template_limit",
    "are_translations_complete",
];

pub(crate) async fn list(
    req: HttpRequest,
    simulator: web::Data<Simulator>,
    path: GraphPath,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, GraphError> {
    let GraphPath { version, id: waba_id } = path;
    super::graph::guard(&req, &simulator, &version)?;
    if !seed::seeded_senders().iter().any(|s| s.waba_id == waba_id) {
        return Err(GraphError::unknown_object(&waba_id, "get"));
    }
    let limit = match &query.limit {
        None => DEFAULT_LIMIT,
        Some(raw) => raw
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=MAX_LIMIT).contains(n))
            .ok_or_else(|| GraphError::invalid_parameter("Param limit must be a positive integer"))?,
    };
    let matches = |wanted: &Option<String>, definition: &Value, key: &str| {
        let actual = definition.get(key).and_then(Value::as_str).unwrap_or_default();
        wanted.as_deref().is_none_or(|w| w.eq_ignore_ascii_case(actual))
    };
    // The seeded templates, then those created through the simulator, each as the listing shows it now.
    let now = chrono::Utc::now();
    let mut all: Vec<Value> = seed::definitions(&waba_id);
    all.extend(
        simulator
            .state()
            .created
            .iter()
            .filter(|t| t.waba_id == waba_id)
            .map(|t| t.definition(now)),
    );
    // Meta counts a template's translations as one template against the limit.
    let mut names: Vec<&str> = all
        .iter()
        .filter_map(|t| t.get("name").and_then(Value::as_str))
        .collect();
    names.sort_unstable();
    names.dedup();
    let account_count = names.len();
    let templates: Vec<Value> = all
        .into_iter()
        .filter(|t| {
            matches(&query.name, t, "name")
                && matches(&query.status, t, "status")
                && matches(&query.language, t, "language")
        })
        .collect();

    let (start, end) = match (&query.after, &query.before) {
        (Some(after), _) => {
            let start = decode(after)?.saturating_add(1);
            (start, start.saturating_add(limit))
        }
        (None, Some(before)) => {
            let end = decode(before)?;
            (end.saturating_sub(limit), end)
        }
        (None, None) => (0, limit),
    };
    let end = end.min(templates.len());
    let page = templates.get(start.min(end)..end).unwrap_or_default();
    let data: Vec<Value> = page.to_vec();
    let summary = summary(query.summary.as_deref(), templates.len(), account_count);
    if data.is_empty() {
        let mut answer = json!({ "data": [] });
        if let (Some(summary), Some(map)) = (summary, answer.as_object_mut()) {
            map.insert("summary".to_owned(), summary);
        }
        return Ok(super::graph::ok_json(&answer));
    }

    let mut paging = json!({
        "cursors": { "before": encode(start), "after": encode(end - 1) },
    });
    let base = format!("{}{}", super::graph::own_base(&req), req.path());
    let filters = filters(&query);
    if let Some(map) = paging.as_object_mut() {
        if end < templates.len() {
            let next = format!("{base}?limit={limit}&after={}{filters}", encode(end - 1));
            map.insert("next".to_owned(), json!(next));
        }
        if start > 0 {
            let previous = format!("{base}?limit={limit}&before={}{filters}", encode(start));
            map.insert("previous".to_owned(), json!(previous));
        }
    }
    let mut answer = json!({ "data": data, "paging": paging });
    if let (Some(summary), Some(map)) = (summary, answer.as_object_mut()) {
        map.insert("summary".to_owned(), summary);
    }
    Ok(super::graph::ok_json(&answer))
}

/// The `summary` object for the aggregates asked for (docs/cloud-api.md §3): `total_count` counts the
/// templates matching the filters, `message_template_count` the account's templates (translations as one).
/// The simulator has no translation workflow, so its translations are always complete.
fn summary(asked: Option<&str>, matching: usize, account_count: usize) -> Option<Value> {
    let asked = asked?;
    let all = matches!(asked.trim(), "true" | "1");
    let mut summary = serde_json::Map::new();
    for field in SUMMARY_FIELDS {
        if !all && !asked.split(',').any(|f| f.trim() == field) {
            continue;
        }
        let value = match field {
            "total_count" => json!(matching),
            "message_template_count" => json!(account_count),
            "message_template_limit" => json!(TEMPLATE_LIMIT),
            _ => json!(true),
        };
        summary.insert(field.to_owned(), value);
    }
    Some(Value::Object(summary))
}

/// Opaque cursors, base64 like Graph's, naming a position in the (filtered) listing.
fn encode(index: usize) -> String {
    URL_SAFE_NO_PAD.encode(format!("{CURSOR_PREFIX}{index}"))
}

fn decode(cursor: &str) -> Result<usize, GraphError> {
    URL_SAFE_NO_PAD
        .decode(cursor)
        .ok()
        .and_then(|raw| String::from_utf8(raw).ok())
        .and_then(|text| text.strip_prefix(CURSOR_PREFIX)?.parse().ok())
        .ok_or_else(|| GraphError::invalid_parameter("Invalid paging cursor"))
}

/// The filters (and the summary asked for) of this request, to carry over into `next` and `previous`.
fn filters(query: &ListQuery) -> String {
    let mut out = String::new();
    for (key, value) in [
        ("name", &query.name),
        ("status", &query.status),
        ("language", &query.language),
        ("summary", &query.summary),
    ] {
        if let Some(value) = value {
            let _ = write!(out, "&{key}={}", percent_encode(value));
        }
    }
    out
}

fn percent_encode(value: &str) -> String {
    let mut out = String::new();
    for byte in value.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

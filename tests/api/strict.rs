//! Strictness everywhere (docs/api.md §2): every operation of the served OpenAPI document refuses a query
//! parameter it does not declare, and every JSON body a field it does not take, with `422 validation_failed`
//! naming it and nothing stored; and the keyword rule, whose body used to default what it left out.

use crate::helpers::{Db, TestApp, assert_problem, spawn_api_on};
use herald_app::Services;
use herald_app::config::Settings;
use reqwest::Method;
use serde_json::{Value, json};

on_both_stores!(
    every_operation_refuses_an_unknown_query_parameter_and_body_field,
    a_keyword_rule_body_is_strict_and_turning_it_off_is_explicit,
);

const UNKNOWN_PARAMETER: &str = "zz_unknown_parameter";
const UNKNOWN_FIELD: &str = "zz_unknown_field";

/// The API (business plan) with the per-key limits out of the way: the walk makes a request or two of each
/// operation in a row.
async fn spawn_app(db: Db) -> Option<TestApp> {
    let (store, guard) = crate::network::store_for(db).await;
    let mut settings = Settings::default();
    settings.server.listen = "127.0.0.1:0".into();
    settings.server.http_workers = 2;
    settings.limits.read_rate_per_second = 1_000;
    settings.limits.read_burst = 1_000;
    settings.limits.write_rate_per_second = 1_000;
    settings.limits.write_burst = 1_000;
    let services = Services {
        limiter: std::sync::Arc::new(herald_domain::ports::NoRateLimit),
        ..Services::with_store(store)
    };
    Some(spawn_api_on(&settings, &services, Box::new(guard)).await)
}

/// A plausible value for each path parameter, so a handler that reads its path first still gets to the body.
fn concrete(path: &str) -> String {
    let id = |path: &str| {
        [
            ("/messages/", "msg_01JD0000000000000000000000"),
            ("/broadcasts/", "brd_01JD0000000000000000000000"),
            ("/inbound/", "inb_01JD0000000000000000000000"),
            ("/media/", "med_01JD0000000000000000000000"),
            ("/webhooks/", "whk_01JD0000000000000000000000"),
            ("/senders/", "snd_01JD0000000000000000000000"),
        ]
        .iter()
        .find(|(prefix, _)| path.contains(prefix))
        .map_or("x", |(_, id)| id)
    };
    path.split('/')
        .map(|segment| match segment {
            "{id}" => id(path).to_owned(),
            "{delivery_id}" => "dlv_01JD0000000000000000000000".to_owned(),
            "{number}" | "{recipient}" => "%2B15551234567".to_owned(),
            "{name}" => "hello_world".to_owned(),
            "{language}" => "en_US".to_owned(),
            other => other.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("/")
}

async fn assert_names(response: reqwest::Response, name: &str, what: &str) {
    let status = response.status();
    assert_eq!(status, 422, "{what}: {}", response.text().await.unwrap());
    let problem = assert_problem(response, 422, "validation_failed").await;
    let fields: Vec<&str> = problem["errors"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["field"].as_str())
        .collect();
    assert!(fields.contains(&name), "{what}: {problem}");
}

fn request(app: &TestApp, method: &str, url: &str) -> reqwest::RequestBuilder {
    let method = Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
    app.http.request(method, url).bearer_auth(&app.key)
}

async fn every_operation_refuses_an_unknown_query_parameter_and_body_field(db: Db) {
    let Some(app) = spawn_app(db).await else {
        return;
    };
    let document: Value = app.get("/api/v1/openapi.json").await.json().await.unwrap();
    let mut operations = 0;
    let mut bodies = 0;
    for (path, item) in document["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let url = app.url(&concrete(path));
            let what = format!("{} {path}", method.to_uppercase());
            let response = request(&app, method, &format!("{url}?{UNKNOWN_PARAMETER}=1"))
                .send()
                .await
                .unwrap();
            assert_names(
                response,
                UNKNOWN_PARAMETER,
                &format!("{what}?{UNKNOWN_PARAMETER}"),
            )
            .await;
            operations += 1;
            if operation["requestBody"]["content"]
                .get("application/json")
                .is_some()
            {
                let response = request(&app, method, &url)
                    .json(&json!({ UNKNOWN_FIELD: 1 }))
                    .send()
                    .await
                    .unwrap();
                assert_names(response, UNKNOWN_FIELD, &format!("{what} with {UNKNOWN_FIELD}")).await;
                bodies += 1;
            }
        }
    }
    assert!(operations >= 55, "{operations} operations walked");
    assert!(bodies >= 15, "{bodies} JSON bodies walked");
    // Nothing was stored, counted or changed.
    assert!(app.all_message_ids().await.is_empty());
    assert_eq!(app.usage().await, 0);
    for (path, empty) in [
        ("/api/v1/webhooks", json!({ "data": [] })),
        (
            "/api/v1/contacts/keyword-rule",
            json!({ "stop": [], "resume": [] }),
        ),
    ] {
        let found: Value = app.get(path).await.json().await.unwrap();
        assert_eq!(found, empty, "{path}");
    }
    let broadcasts: Value = app.get("/api/v1/broadcasts").await.json().await.unwrap();
    assert_eq!(broadcasts["data"], json!([]));
}

async fn put_rule(app: &TestApp, body: &Value) -> reqwest::Response {
    app.http
        .put(app.url("/api/v1/contacts/keyword-rule"))
        .bearer_auth(&app.key)
        .json(body)
        .send()
        .await
        .unwrap()
}

async fn a_keyword_rule_body_is_strict_and_turning_it_off_is_explicit(db: Db) {
    let Some(app) = spawn_app(db).await else {
        return;
    };
    let rule = json!({ "stop": ["STOP"], "resume": ["START"] });
    assert_eq!(put_rule(&app, &rule).await.status(), 200);
    // Neither an empty body nor a misspelt field turns the rule off.
    for (body, fields) in [
        (json!({}), vec!["stop", "resume"]),
        (json!({ "stops": [], "resume": [] }), vec!["stops", "stop"]),
        (
            json!({ "stop": [], "resume": [], "enabled": false }),
            vec!["enabled"],
        ),
    ] {
        let problem = assert_problem(put_rule(&app, &body).await, 422, "validation_failed").await;
        let named: Vec<&str> = problem["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["field"].as_str().unwrap())
            .collect();
        assert_eq!(named, fields, "{body}");
        let stored: Value = app
            .get("/api/v1/contacts/keyword-rule")
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(stored, rule, "{body} changed the rule");
    }
    // Turning it off is said explicitly.
    let off = json!({ "stop": [], "resume": [] });
    assert_eq!(put_rule(&app, &off).await.status(), 200);
    let stored: Value = app
        .get("/api/v1/contacts/keyword-rule")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(stored, off);
}

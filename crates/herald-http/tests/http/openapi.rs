//! The OpenAPI document is generated; this locks it. Run with `UPDATE_SNAPSHOTS=1` to accept a change,
//! then review the diff of docs/openapi.json like any other change of the contract.

use std::path::PathBuf;

fn snapshot_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/openapi.json")
}

fn generated() -> String {
    let mut json = herald_http::openapi().to_pretty_json().unwrap();
    json.push('\n');
    json
}

#[test]
fn openapi_matches_the_committed_snapshot() {
    let path = snapshot_path();
    let generated = generated();
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "docs/openapi.json differs from the generated document; if the change is intended, run \
         `UPDATE_SNAPSHOTS=1 cargo test -p herald-http --test http openapi` and commit the file"
    );
}

#[test]
fn every_route_is_documented_with_its_error_responses() {
    let doc: serde_json::Value = serde_json::from_str(&generated()).unwrap();
    let problem = "#/components/schemas/Problem";
    // The statuses each operation documents, by operation id; which operations exist and where they are
    // served comes from the route table alone (its own tests hold it to the document).
    let cases: [(&str, &[&str]); 56] = [
        (
            "sendTemplate",
            &[
                "200", "202", "400", "401", "403", "404", "409", "413", "415", "422", "429", "500", "503",
            ],
        ),
        (
            "sendText",
            &[
                "200", "202", "400", "401", "403", "409", "413", "415", "422", "429", "500", "503",
            ],
        ),
        (
            "sendInteractive",
            &[
                "200", "202", "400", "401", "403", "409", "413", "415", "422", "429", "500", "503",
            ],
        ),
        (
            "sendReaction",
            &[
                "200", "202", "400", "401", "403", "409", "413", "415", "422", "429", "500", "503",
            ],
        ),
        (
            "sendLocation",
            &[
                "200", "202", "400", "401", "403", "409", "413", "415", "422", "429", "500", "503",
            ],
        ),
        (
            "sendContacts",
            &[
                "200", "202", "400", "401", "403", "409", "413", "415", "422", "429", "500", "503",
            ],
        ),
        (
            "createBroadcast",
            &[
                "200", "202", "400", "401", "403", "404", "413", "415", "422", "429", "500", "503",
            ],
        ),
        (
            "listBroadcasts",
            &["200", "401", "403", "422", "429", "500", "503"],
        ),
        ("getBroadcast", &["200", "401", "403", "404", "429", "500", "503"]),
        (
            "cancelBroadcast",
            &["200", "401", "403", "404", "409", "429", "500", "503"],
        ),
        (
            "resumeBroadcast",
            &["200", "401", "403", "404", "409", "429", "500", "503"],
        ),
        (
            "listBroadcastMessages",
            &["200", "401", "403", "404", "422", "429", "500", "503"],
        ),
        ("listMessages", &["200", "401", "403", "422", "429", "500", "503"]),
        ("getMessage", &["200", "401", "403", "404", "429", "500", "503"]),
        (
            "getMessageEvents",
            &["200", "401", "403", "404", "429", "500", "503"],
        ),
        (
            "cancelMessage",
            &["200", "401", "403", "404", "409", "429", "500", "503"],
        ),
        ("getWindow", &["200", "401", "403", "422", "429", "500", "503"]),
        ("getContact", &["200", "401", "403", "422", "429", "500", "503"]),
        ("eraseContact", &["200", "401", "404", "422", "429", "500", "503"]),
        (
            "optOutContact",
            &["200", "401", "403", "422", "429", "500", "503"],
        ),
        ("optInContact", &["200", "401", "403", "422", "429", "500", "503"]),
        ("blockContact", &["200", "401", "403", "422", "429", "500", "503"]),
        (
            "unblockContact",
            &["200", "401", "403", "422", "429", "500", "503"],
        ),
        ("getKeywordRule", &["200", "401", "403", "429", "500", "503"]),
        (
            "setKeywordRule",
            &[
                "200", "400", "401", "403", "413", "415", "422", "429", "500", "503",
            ],
        ),
        ("listInbound", &["200", "401", "403", "422", "429", "500", "503"]),
        ("getInbound", &["200", "401", "403", "404", "429", "500", "503"]),
        (
            "readInbound",
            &["202", "400", "401", "403", "404", "422", "429", "500", "503"],
        ),
        (
            "createWebhook",
            &["201", "400", "401", "403", "415", "422", "429", "500", "503"],
        ),
        ("listWebhooks", &["200", "401", "403", "429", "500", "503"]),
        ("getWebhook", &["200", "401", "403", "404", "429", "500", "503"]),
        (
            "updateWebhook",
            &[
                "200", "400", "401", "403", "404", "415", "422", "429", "500", "503",
            ],
        ),
        (
            "deleteWebhook",
            &["204", "401", "403", "404", "429", "500", "503"],
        ),
        (
            "rotateWebhookSecret",
            &["200", "401", "403", "404", "429", "500", "503"],
        ),
        ("testWebhook", &["202", "401", "403", "404", "429", "500", "503"]),
        (
            "listWebhookDeliveries",
            &["200", "401", "403", "404", "422", "429", "500", "503"],
        ),
        (
            "redeliverWebhook",
            &["202", "401", "403", "404", "429", "500", "503"],
        ),
        (
            "recoverWebhook",
            &[
                "202", "400", "401", "403", "404", "415", "422", "429", "500", "503",
            ],
        ),
        (
            "sendFile",
            &[
                "200", "202", "400", "401", "403", "409", "413", "415", "422", "429", "500", "503",
            ],
        ),
        (
            "sendTemplateMedia",
            &[
                "200", "202", "400", "401", "403", "404", "409", "413", "415", "422", "429", "500", "503",
            ],
        ),
        (
            "uploadMedia",
            &[
                "201", "400", "401", "403", "413", "415", "422", "429", "500", "503",
            ],
        ),
        (
            "getMediaContent",
            &["200", "401", "403", "404", "429", "500", "503"],
        ),
        (
            "listTemplates",
            &["200", "401", "403", "422", "429", "500", "503"],
        ),
        ("getTemplate", &["200", "401", "403", "404", "429", "500", "503"]),
        ("syncTemplates", &["200", "401", "403", "429", "500", "503"]),
        (
            "createTemplate",
            &[
                "201", "400", "401", "403", "409", "415", "422", "429", "500", "503",
            ],
        ),
        (
            "editTemplate",
            &[
                "200", "400", "401", "403", "404", "415", "422", "429", "500", "503",
            ],
        ),
        (
            "deleteTemplate",
            &["204", "401", "403", "404", "422", "429", "500", "503"],
        ),
        (
            "deleteTemplateLanguage",
            &["204", "401", "403", "404", "422", "429", "500", "503"],
        ),
        ("listSenders", &["200", "401", "403", "429", "500", "503"]),
        ("getUsage", &["200", "401", "403", "422", "429", "500", "503"]),
        ("getSender", &["200", "401", "403", "404", "429", "500", "503"]),
        ("healthz", &["200"]),
        ("readyz", &["200", "503"]),
        ("openapi", &["200"]),
        ("docs", &["200"]),
    ];
    let expected: std::collections::BTreeMap<&str, &[&str]> = cases.into_iter().collect();
    let mut seen = std::collections::BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let id = operation["operationId"].as_str().unwrap();
            let statuses = expected
                .get(id)
                .unwrap_or_else(|| panic!("{method} {path} ({id}) has no expected statuses"));
            assert!(seen.insert(id), "{id} twice");
            let responses = operation["responses"].as_object().unwrap();
            let mut documented: Vec<&str> = responses.keys().map(String::as_str).collect();
            documented.sort_unstable();
            assert_eq!(documented, *statuses, "{method} {path}");
            for (status, response) in responses {
                if status.starts_with('4') || status.starts_with('5') {
                    assert_eq!(
                        response["content"]["application/problem+json"]["schema"]["$ref"], problem,
                        "{method} {path} {status}"
                    );
                }
            }
            if path.starts_with("/api/v1/") && path != "/api/v1/openapi.json" {
                assert_eq!(
                    operation["security"],
                    serde_json::json!([{"bearer": []}]),
                    "{path}"
                );
            }
        }
    }
    assert_eq!(
        seen,
        expected
            .keys()
            .copied()
            .collect::<std::collections::BTreeSet<_>>(),
        "every expected operation is documented"
    );
    let send = &doc["paths"]["/api/v1/messages/send-template"]["post"];
    assert_eq!(
        send["requestBody"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/SendTemplateRequest"
    );
    assert!(send["responses"]["202"]["headers"]["Location"].is_object());
    let schemas = doc["components"]["schemas"].as_object().unwrap();
    for schema in [
        "Problem",
        "MessageResource",
        "MessagePageResource",
        "EventListResource",
        "WindowResource",
        "SendTextRequest",
    ] {
        assert!(schemas.contains_key(schema), "{schema}");
    }
    let message = &schemas["MessageResource"]["properties"];
    for field in [
        "id",
        "status",
        "to",
        "from",
        "type",
        "template",
        "text",
        "caption",
        "media",
        "client_reference",
        "network_message_id",
        "error",
        "created_at",
        "updated_at",
        "timestamps",
    ] {
        assert!(message.get(field).is_some(), "MessageResource.{field}");
    }
    let webhook = &schemas["WebhookResource"]["properties"];
    for field in [
        "id",
        "url",
        "events",
        "description",
        "enabled",
        "disabled_reason",
        "created_at",
        "updated_at",
        "secret_rotated_until",
    ] {
        assert!(webhook.get(field).is_some(), "WebhookResource.{field}");
    }
    assert!(
        webhook.get("secret").is_none(),
        "the secret is never part of a read"
    );
    assert!(
        schemas["WebhookWithSecretResource"]
            .to_string()
            .contains("secret")
    );
    assert_eq!(doc["components"]["securitySchemes"]["bearer"]["scheme"], "bearer");
}

//! The review the simulator plays: templates created, edited and deleted through it, their status
//! callbacks, sends of them once approved, and the resumable upload of their samples.

use crate::helpers::*;
use serde_json::{Value, json};
use std::time::Duration;

const REVIEW_MS: u64 = 300;

async fn reviewing() -> TestSim {
    spawn_with(
        herald_simulator::SimulatorConfig {
            template_review_ms: REVIEW_MS,
            ..test_config()
        },
        0,
    )
    .await
}

fn definition(name: &str) -> Value {
    json!({
        "name": name, "language": "en_US", "category": "UTILITY",
        "components": [
            { "type": "BODY", "text": "Hi {{1}}, it ships today.", "example": { "body_text": [["Asha"]] } }
        ]
    })
}

impl TestSim {
    async fn call(&self, method: reqwest::Method, path: &str, body: Option<&Value>) -> (u16, Value) {
        let mut request = self
            .client
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(TOKEN);
        if let Some(body) = body {
            request = request.json(body);
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap())
    }

    async fn listed(&self, name: &str) -> Value {
        let (status, page) = self
            .get(&format!("/v23.0/{WABA}/message_templates?name={name}"))
            .await;
        assert_eq!(status, 200, "{page}");
        page["data"][0].clone()
    }

    async fn template_callbacks(&self, count: usize) -> Vec<Value> {
        self.receiver
            .wait_until("template status callbacks", |received| {
                received
                    .iter()
                    .filter(|r| {
                        r.json()["entry"][0]["changes"][0]["field"] == "message_template_status_update"
                    })
                    .count()
                    >= count
            })
            .await
            .iter()
            .map(Received::json)
            .filter(|j| j["entry"][0]["changes"][0]["field"] == "message_template_status_update")
            .map(|j| j["entry"][0]["changes"][0]["value"].clone())
            .collect()
    }
}

#[tokio::test]
async fn a_created_template_is_pending_then_approved_with_a_callback_and_can_be_sent() {
    let sim = reviewing().await;
    let path = format!("/v23.0/{WABA}/message_templates");
    let (status, created) = sim
        .call(reqwest::Method::POST, &path, Some(&definition("order_update")))
        .await;
    assert_eq!(status, 200, "{created}");
    assert_eq!(created["status"], "PENDING");
    assert_eq!(created["category"], "UTILITY");
    let id = created["id"].as_str().unwrap().to_owned();
    assert!(id.bytes().all(|b| b.is_ascii_digit()), "{id}");

    assert_eq!(sim.listed("order_update").await["status"], "PENDING");
    let too_early = template(
        "15551234567",
        "order_update",
        "en_US",
        json!([
            { "type": "body", "parameters": [{ "type": "text", "text": "Asha" }] }
        ]),
    );
    let (status, body) = sim.send(PNID_1, &too_early).await;
    assert_graph_error(status, &body, 404, 132001);

    let callbacks = sim.template_callbacks(1).await;
    assert_eq!(callbacks[0]["event"], "APPROVED");
    assert_eq!(callbacks[0]["message_template_name"], "order_update");
    assert_eq!(callbacks[0]["message_template_language"], "en_US");
    assert_eq!(callbacks[0]["message_template_id"].to_string(), id);
    let listed = sim.listed("order_update").await;
    assert_eq!(listed["status"], "APPROVED");
    assert_eq!(listed["components"], definition("order_update")["components"]);

    sim.send_ok(&too_early).await;
    let (status, body) = sim
        .send(
            PNID_1,
            &template("15551234567", "order_update", "en_US", json!([])),
        )
        .await;
    assert_graph_error(status, &body, 400, 132000);
}

#[tokio::test]
async fn a_name_with_reject_is_rejected_with_a_reason() {
    let sim = reviewing().await;
    let path = format!("/v23.0/{WABA}/message_templates");
    let (status, _) = sim
        .call(
            reqwest::Method::POST,
            &path,
            Some(&definition("please_reject_me")),
        )
        .await;
    assert_eq!(status, 200);
    let callbacks = sim.template_callbacks(1).await;
    assert_eq!(callbacks[0]["event"], "REJECTED");
    assert_eq!(callbacks[0]["reason"], "INVALID_FORMAT");
    let listed = sim.listed("please_reject_me").await;
    assert_eq!(listed["status"], "REJECTED");
    assert_eq!(listed["rejected_reason"], "INVALID_FORMAT");
}

#[tokio::test]
async fn malformed_or_duplicate_definitions_are_refused_with_code_100() {
    let sim = reviewing().await;
    let path = format!("/v23.0/{WABA}/message_templates");
    for bad in [
        json!({ "name": "Bad Name", "language": "en", "category": "UTILITY", "components": [] }),
        json!({ "name": "ok", "language": "en", "category": "PROMO", "components": [{ "type": "BODY", "text": "x" }] }),
        json!({ "name": "ok", "language": "en", "category": "UTILITY", "components": [] }),
        definition("hello_world"),
    ] {
        let (status, body) = sim.call(reqwest::Method::POST, &path, Some(&bad)).await;
        assert_graph_error(status, &body, 400, 100);
    }
    let (status, _) = sim
        .call(reqwest::Method::POST, &path, Some(&definition("twice")))
        .await;
    assert_eq!(status, 200);
    let (status, body) = sim
        .call(reqwest::Method::POST, &path, Some(&definition("twice")))
        .await;
    assert!(
        assert_graph_error(status, &body, 400, 100).contains("already exists"),
        "{body}"
    );
}

#[tokio::test]
async fn an_edit_goes_back_to_review_and_a_delete_removes_it() {
    let sim = reviewing().await;
    let path = format!("/v23.0/{WABA}/message_templates");
    let (_, created) = sim
        .call(reqwest::Method::POST, &path, Some(&definition("edited")))
        .await;
    let id = created["id"].as_str().unwrap().to_owned();
    sim.template_callbacks(1).await;
    assert_eq!(sim.listed("edited").await["status"], "APPROVED");

    let components = json!([{ "type": "BODY", "text": "Hello {{1}} and {{2}} now.", "example": { "body_text": [["a", "b"]] } }]);
    let (status, answer) = sim
        .call(
            reqwest::Method::POST,
            &format!("/v23.0/{id}"),
            Some(&json!({ "components": components })),
        )
        .await;
    assert_eq!((status, answer), (200, json!({ "success": true })));
    let listed = sim.listed("edited").await;
    assert_eq!(listed["status"], "PENDING");
    assert_eq!(listed["components"], components);
    sim.template_callbacks(2).await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert_eq!(sim.listed("edited").await["status"], "APPROVED");

    let (status, body) = sim
        .call(
            reqwest::Method::DELETE,
            &format!("{path}?name=edited&hsm_id={id}"),
            None,
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(sim.listed("edited").await, Value::Null);
    let (status, body) = sim
        .call(reqwest::Method::DELETE, &format!("{path}?name=hello_world"), None)
        .await;
    assert_graph_error(status, &body, 400, 100);
}

#[tokio::test]
async fn a_sample_uploads_through_a_resumable_session() {
    let sim = reviewing().await;
    let (status, session) = sim
        .call(
            reqwest::Method::POST,
            "/v23.0/987654321/uploads?file_name=s.png&file_length=4&file_type=image/png",
            None,
        )
        .await;
    assert_eq!(status, 200, "{session}");
    let session = session["id"].as_str().unwrap().to_owned();
    assert!(session.starts_with("upload:"), "{session}");
    let upload = |auth: &'static str| {
        sim.client
            .post(format!("{}/v23.0/{session}", sim.base))
            .header("authorization", format!("{auth} {TOKEN}"))
            .header("file_offset", "0")
            .body(b"\x89PNG".to_vec())
            .send()
    };
    let answer: Value = upload("OAuth").await.unwrap().json().await.unwrap();
    assert!(
        answer["h"].as_str().is_some_and(|h| h.starts_with("4::")),
        "{answer}"
    );
    let refused = upload("Bearer").await.unwrap();
    assert_eq!(
        refused.status().as_u16(),
        401,
        "the upload step authenticates with OAuth"
    );
}

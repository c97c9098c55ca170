//! What real Cloud API clients need beyond the send itself: unversioned Graph paths, parameters in the
//! query string, the template listing's `summary`, the phone-number reads, and error details that name the
//! client's own path.

use serde_json::{Value, json};

use crate::helpers::*;
use crate::media::{BOUNDARY, multipart};

async fn request(sim: &TestSim, method: reqwest::Method, path: &str, body: Option<&Value>) -> (u16, Value) {
    let mut request = sim
        .client
        .request(method, format!("{}{path}", sim.base))
        .bearer_auth(TOKEN);
    if let Some(body) = body {
        request = request.json(body);
    }
    let response = request.send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

#[tokio::test]
async fn unversioned_paths_are_served_as_the_pinned_version() {
    // Even a simulator that serves only the pinned version takes a call without one: Graph sends an
    // unversioned call to the oldest version the app can use.
    let sim = spawn_with(
        herald_simulator::SimulatorConfig {
            graph_version_prefix: false,
            ..test_config()
        },
        0,
    )
    .await;
    sim.customer_writes("+15557770002").await;
    let block = json!({ "messaging_product": "whatsapp", "block_users": [{ "user": "+15557770002" }] });
    let (status, body) = request(
        &sim,
        reqwest::Method::POST,
        &format!("/{PNID_1}/block_users"),
        Some(&block),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["block_users"]["added_users"][0]["wa_id"], "15557770002");
    let (status, body) = request(
        &sim,
        reqwest::Method::DELETE,
        &format!("/{PNID_1}/block_users"),
        Some(&block),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["block_users"]["removed_users"][0]["wa_id"], "15557770002");

    let (status, body) = request(
        &sim,
        reqwest::Method::POST,
        &format!("/{PNID_1}/messages"),
        Some(&text("+15557770002", "unversioned")),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = request(
        &sim,
        reqwest::Method::GET,
        &format!("/{WABA}/message_templates?limit=1"),
        None,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    // A version other than the pinned one is still refused when versions are checked.
    let (status, body) = request(
        &sim,
        reqwest::Method::GET,
        &format!("/v19.0/{WABA}/message_templates"),
        None,
    )
    .await;
    assert_graph_error(status, &body, 400, 100);
}

#[tokio::test]
async fn an_upload_may_name_its_messaging_product_in_the_query_string() {
    let sim = spawn_simulator().await;
    let png: &[u8] = b"\x89PNG\r\n\x1a\n....";
    let post = |query: &'static str| {
        sim.client
            .post(format!("{}/v23.0/{PNID_1}/media{query}", sim.base))
            .bearer_auth(TOKEN)
            .header(
                "Content-Type",
                format!("multipart/form-data; boundary={BOUNDARY}"),
            )
            .body(multipart(&[], Some(("a.png", "image/png", png))))
    };
    let response = post("?messaging_product=whatsapp").send().await.unwrap();
    let status = response.status().as_u16();
    let body: Value = response.json().await.unwrap();
    assert_eq!(status, 200, "{body}");
    let id = body["id"].as_str().unwrap();
    let (status, media) = sim.get(&format!("/v23.0/{id}")).await;
    assert_eq!(status, 200, "{media}");
    assert_eq!(media["mime_type"], "image/png");

    // Named nowhere, or as another product, it is still refused.
    for query in ["", "?messaging_product=instagram"] {
        let response = post(query).send().await.unwrap();
        let status = response.status().as_u16();
        let body: Value = response.json().await.unwrap();
        let details = assert_graph_error(status, &body, 400, 100);
        assert!(details.contains("messaging_product"), "{details}");
    }

    // A JSON call may name it in the query string too.
    sim.customer_writes("+15557770003").await;
    let mut body = text("+15557770003", "query product");
    body.as_object_mut().unwrap().remove("messaging_product");
    let (status, answer) = request(
        &sim,
        reqwest::Method::POST,
        &format!("/v23.0/{PNID_1}/messages?messaging_product=whatsapp"),
        Some(&body),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
}

#[tokio::test]
async fn the_template_listing_answers_the_summary_asked_for() {
    let sim = spawn_simulator().await;
    let all = "total_count,message_template_count,message_template_limit,are_translations_complete";
    let (status, page) = sim
        .get(&format!("/v23.0/{WABA}/message_templates?limit=2&summary={all}"))
        .await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["data"].as_array().unwrap().len(), 2);
    assert_eq!(
        page["summary"],
        json!({
            "total_count": 15,
            "message_template_count": 15,
            "message_template_limit": 250,
            "are_translations_complete": true,
        })
    );
    // The next page asks for the same summary.
    let next = page["paging"]["next"].as_str().unwrap();
    assert!(
        next.contains("summary=total_count%2Cmessage_template_count"),
        "{next}"
    );

    // `total_count` counts what the filters match, even when the page is empty.
    let (status, page) = sim
        .get(&format!(
            "/v23.0/{WABA}/message_templates?status=PAUSED&summary=total_count"
        ))
        .await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["summary"], json!({ "total_count": 1 }));
    let (_, page) = sim
        .get(&format!(
            "/v23.0/{WABA}/message_templates?name=nothing_by_that_name&summary=true"
        ))
        .await;
    assert_eq!(page["data"], json!([]));
    assert_eq!(page["summary"]["total_count"], 0);
    assert_eq!(page["summary"]["message_template_limit"], 250);

    // Not asked for, not answered.
    let (_, page) = sim.get(&format!("/v23.0/{WABA}/message_templates?limit=1")).await;
    assert!(page.get("summary").is_none(), "{page}");
}

#[tokio::test]
async fn phone_numbers_are_read_as_graph_answers_them() {
    let sim = spawn_simulator().await;
    let (status, number) = sim.get(&format!("/v23.0/{PNID_1}")).await;
    assert_eq!(status, 200, "{number}");
    assert_eq!(
        number,
        json!({
            "verified_name": "Herald Simulator",
            "code_verification_status": "VERIFIED",
            "display_phone_number": "+1 555-000-1111",
            "quality_rating": "GREEN",
            "platform_type": "CLOUD_API",
            "throughput": { "level": "HIGH" },
            "id": PNID_1,
        })
    );
    let (status, number) = sim
        .get(&format!("/{PNID_2}?fields=display_phone_number,throughput"))
        .await;
    assert_eq!(status, 200, "{number}");
    assert_eq!(
        number,
        json!({ "display_phone_number": "+1 555-000-2222", "throughput": { "level": "HIGH" }, "id": PNID_2 })
    );
    let (status, error) = sim.get(&format!("/v23.0/{PNID_1}?fields=secret_field")).await;
    let details = assert_graph_error(status, &error, 400, 100);
    assert!(details.contains("secret_field"), "{details}");

    let (status, list) = sim
        .get(&format!(
            "/v23.0/{WABA}/phone_numbers?fields=display_phone_number,verified_name"
        ))
        .await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(
        list["data"],
        json!([
            { "display_phone_number": "+1 555-000-1111", "verified_name": "Herald Simulator", "id": PNID_1 },
            { "display_phone_number": "+1 555-000-2222", "verified_name": "Herald Simulator", "id": PNID_2 },
        ])
    );
    assert_eq!(list["paging"]["cursors"]["before"], PNID_1);
    assert_eq!(list["paging"]["cursors"]["after"], PNID_2);
    let (status, error) = sim.get("/v23.0/2999999999/phone_numbers").await;
    assert_graph_error(status, &error, 400, 100);
    assert_eq!(error["error"]["error_subcode"], 33);

    // A low configured throughput reads as Meta's standard level.
    let slow = spawn_with(
        herald_simulator::SimulatorConfig {
            throughput_per_sender: 80,
            ..test_config()
        },
        0,
    )
    .await;
    let (_, number) = slow.get(&format!("/v23.0/{PNID_1}?fields=throughput")).await;
    assert_eq!(number["throughput"]["level"], "STANDARD");
}

#[tokio::test]
async fn errors_name_the_clients_path_not_the_simulators_prefix() {
    let sim = spawn_simulator().await;
    let (status, error) = sim.get("/v23.0/1/2/3").await;
    let details = assert_graph_error(status, &error, 400, 100);
    assert_eq!(details, "Unknown path components: /v23.0/1/2/3");
    assert!(!error.to_string().contains("/simulator"), "{error}");
}

//! `POST /{v}/{phone_number_id}/marketing_messages` (docs/cloud-api.md §1.6): onboarding per business
//! account, marketing templates only, recorded with the endpoint they came on.

use serde_json::{Value, json};

use crate::helpers::*;

const CUSTOMER: &str = "+4915112345678";

/// `welcome_video`, a MARKETING template with a video header and no body parameters.
fn welcome_video(to: &str) -> Value {
    template(
        to,
        "welcome_video",
        "pt_BR",
        json!([{ "type": "header", "parameters": [
            { "type": "video", "video": { "link": "https://example.com/welcome.mp4" } }
        ] }]),
    )
}

async fn onboard(sim: &TestSim, waba_id: &str, onboarded: bool) -> u16 {
    sim.client
        .post(format!("{}/control/marketing-messages", sim.base))
        .json(&json!({ "waba_id": waba_id, "onboarded": onboarded }))
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

async fn send_marketing(sim: &TestSim, body: &Value) -> (u16, Value) {
    sim.post_as(Some(TOKEN), &format!("/v23.0/{PNID_1}/marketing_messages"), body)
        .await
}

#[tokio::test]
async fn a_business_that_has_not_accepted_the_terms_is_refused_with_131055() {
    let sim = spawn_simulator().await;
    let (status, error) = send_marketing(&sim, &welcome_video(CUSTOMER)).await;
    let details = assert_graph_error(status, &error, 400, 131055);
    assert!(details.contains("Marketing Messages Lite API terms"), "{details}");
    assert!(sim.simulator.sent().is_empty());
}

#[tokio::test]
async fn an_onboarded_business_sends_a_marketing_template_recorded_on_its_endpoint() {
    let sim = spawn_simulator().await;
    assert_eq!(onboard(&sim, WABA, true).await, 200);
    let mut body = welcome_video(CUSTOMER);
    body["message_activity_sharing"] = json!(true);
    let (status, answer) = send_marketing(&sim, &body).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["messages"][0]["message_status"], "accepted");
    let (_, sent) = sim.get("/control/sent").await;
    assert_eq!(sent[0]["endpoint"], "marketing_messages", "{sent}");
    assert_eq!(sent[0]["request"]["message_activity_sharing"], true);

    // The same template on `/messages` is recorded as such.
    sim.send_ok(&welcome_video(CUSTOMER)).await;
    let (_, sent) = sim.get("/control/sent").await;
    assert_eq!(sent[1]["endpoint"], "messages", "{sent}");
}

#[tokio::test]
async fn utility_templates_and_other_messages_are_refused() {
    let sim = spawn_simulator().await;
    onboard(&sim, WABA, true).await;
    let (status, error) = send_marketing(&sim, &hello_world(CUSTOMER, "t")).await;
    let details = assert_graph_error(status, &error, 400, 131055);
    assert_eq!(details, "Only marketing template messages are supported");

    sim.customer_writes(CUSTOMER).await;
    let (status, error) = send_marketing(&sim, &text(CUSTOMER, "hi")).await;
    let details = assert_graph_error(status, &error, 400, 100);
    assert_eq!(details, "Message must be a template message.");
    assert!(sim.simulator.sent().is_empty());
}

#[tokio::test]
async fn its_own_fields_are_type_checked() {
    let sim = spawn_simulator().await;
    onboard(&sim, WABA, true).await;
    for (name, value) in [
        ("message_activity_sharing", json!("yes")),
        ("product_policy", json!("SOMETIMES")),
    ] {
        let mut body = welcome_video(CUSTOMER);
        body[name] = value;
        let (status, error) = send_marketing(&sim, &body).await;
        let details = assert_graph_error(status, &error, 400, 100);
        assert!(details.contains(name), "{details}");
    }
    let mut body = welcome_video(CUSTOMER);
    body["product_policy"] = json!("STRICT");
    let (status, answer) = send_marketing(&sim, &body).await;
    assert_eq!(status, 200, "{answer}");
}

#[tokio::test]
async fn onboarding_can_be_withdrawn_and_names_a_known_account() {
    let sim = spawn_simulator().await;
    assert_eq!(onboard(&sim, "2999999999", true).await, 404);
    onboard(&sim, WABA, true).await;
    onboard(&sim, WABA, false).await;
    let (status, error) = send_marketing(&sim, &welcome_video(CUSTOMER)).await;
    assert_graph_error(status, &error, 400, 131055);
}

//! `GET /{v}/{waba_id}/message_templates` and its paging.

use serde_json::Value;

use crate::helpers::*;

#[tokio::test]
async fn paging_walks_every_template() {
    let sim = spawn_simulator().await;
    let mut url = format!("{}/v23.0/{WABA}/message_templates?limit=2", sim.base);
    let mut pages = 0;
    let mut templates: Vec<Value> = Vec::new();
    loop {
        let response = sim.client.get(&url).bearer_auth(TOKEN).send().await.unwrap();
        assert_eq!(response.status().as_u16(), 200);
        let page: Value = response.json().await.unwrap();
        pages += 1;
        let data = page["data"].as_array().unwrap();
        assert!(!data.is_empty() && data.len() <= 2, "{page}");
        assert!(page["paging"]["cursors"]["before"].is_string());
        assert!(page["paging"]["cursors"]["after"].is_string());
        templates.extend(data.iter().cloned());
        match page["paging"]["next"].as_str() {
            Some(next) => url = next.to_owned(),
            None => break,
        }
    }
    assert_eq!(pages, 8);
    let mut names: Vec<(&str, &str, &str)> = templates
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap(),
                t["language"].as_str().unwrap(),
                t["status"].as_str().unwrap(),
            )
        })
        .collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            ("appointment_named", "en_US", "APPROVED"),
            ("booking_links", "en_US", "APPROVED"),
            ("coupon_code", "en_US", "APPROVED"),
            ("flash_sale_offer", "en_US", "APPROVED"),
            ("hello_world", "en_US", "APPROVED"),
            ("invoice_ready", "en_US", "APPROVED"),
            ("order_named", "en_US", "APPROVED"),
            ("order_shipped", "en_US", "APPROVED"),
            ("promo_image", "en_US", "APPROVED"),
            ("spring_carousel", "en_US", "APPROVED"),
            ("spring_sale", "en_US", "PAUSED"),
            ("store_location", "en_US", "APPROVED"),
            ("survey_flow", "en_US", "APPROVED"),
            ("verify_code", "en_US", "APPROVED"),
            ("welcome_video", "pt_BR", "APPROVED"),
        ]
    );
    for template in &templates {
        assert!(
            template["id"]
                .as_str()
                .unwrap()
                .chars()
                .all(|c| c.is_ascii_digit())
        );
        assert!(template["category"].is_string());
    }

    let by_name = |name: &str| templates.iter().find(|t| t["name"] == name).unwrap().clone();
    let order = by_name("order_shipped");
    assert_eq!(order["parameter_format"], "POSITIONAL");
    let components = order["components"].as_array().unwrap();
    assert_eq!(components[0]["type"], "HEADER");
    assert_eq!(components[0]["format"], "TEXT");
    assert!(components[0]["text"].as_str().unwrap().contains("{{1}}"));
    assert_eq!(components[1]["type"], "BODY");
    let body = components[1]["text"].as_str().unwrap();
    assert!(
        body.contains("{{1}}") && body.contains("{{3}}") && !body.contains("{{4}}"),
        "{body}"
    );
    assert_eq!(
        components[1]["example"]["body_text"][0].as_array().unwrap().len(),
        3
    );
    assert_eq!(components[2]["type"], "BUTTONS");
    assert_eq!(components[2]["buttons"][0]["type"], "URL");
    assert_eq!(components[2]["buttons"][0]["url"], "https://example.com/t/{{1}}");

    let named = by_name("appointment_named");
    assert_eq!(named["parameter_format"], "NAMED");
    let body = &named["components"][0];
    assert!(body["text"].as_str().unwrap().contains("{{customer}}"));
    assert_eq!(body["example"]["body_text_named_params"][1]["param_name"], "date");
    assert_eq!(by_name("invoice_ready")["components"][0]["format"], "DOCUMENT");
    assert_eq!(by_name("promo_image")["components"][0]["format"], "IMAGE");
    assert_eq!(by_name("welcome_video")["components"][0]["format"], "VIDEO");
}

#[tokio::test]
async fn filters_the_default_page_and_errors() {
    let sim = spawn_simulator().await;
    let (status, page) = sim.get(&format!("/v23.0/{WABA}/message_templates")).await;
    assert_eq!(status, 200);
    assert_eq!(page["data"].as_array().unwrap().len(), 15);
    assert!(page["paging"].get("next").is_none());

    let (status, page) = sim
        .get(&format!("/v23.0/{WABA}/message_templates?status=PAUSED"))
        .await;
    assert_eq!(status, 200);
    assert_eq!(page["data"].as_array().unwrap().len(), 1);
    assert_eq!(page["data"][0]["name"], "spring_sale");

    let (status, error) = sim.get("/v23.0/2999999999/message_templates").await;
    assert_graph_error(status, &error, 400, 100);
    let (status, error) = sim
        .get(&format!("/v23.0/{WABA}/message_templates?after=garbage"))
        .await;
    assert_graph_error(status, &error, 400, 100);
    let anonymous = sim
        .client
        .get(format!("{}/v23.0/{WABA}/message_templates", sim.base))
        .send()
        .await
        .unwrap();
    assert_eq!(anonymous.status().as_u16(), 401);
}

//! `type: "interactive"` sends: every kind Meta's shape accepts, and each limit refused with code 100.

use serde_json::{Value, json};

use crate::helpers::*;

const CUSTOMER: &str = "+4915112345678";

fn interactive(object: Value) -> Value {
    message(CUSTOMER, "interactive", object)
}

fn buttons(items: &[(&str, &str)]) -> Value {
    let buttons: Vec<Value> = items
        .iter()
        .map(|(id, title)| json!({ "type": "reply", "reply": { "id": id, "title": title } }))
        .collect();
    interactive(json!({
        "type": "button",
        "body": { "text": "Pick one" },
        "action": { "buttons": buttons },
    }))
}

fn row(id: &str, title: &str) -> Value {
    json!({ "id": id, "title": title, "description": "A row" })
}

fn list(sections: Value) -> Value {
    interactive(json!({
        "type": "list",
        "body": { "text": "Choose" },
        "action": { "button": "Options", "sections": sections },
    }))
}

fn rows(prefix: &str, n: usize) -> Vec<Value> {
    (0..n).map(|i| row(&format!("{prefix}{i}"), "Row")).collect()
}

fn cta(display_text: &str, url: Option<&str>) -> Value {
    let mut parameters = json!({ "display_text": display_text });
    if let Some(url) = url {
        parameters["url"] = json!(url);
    }
    interactive(json!({
        "type": "cta_url",
        "body": { "text": "Track your order" },
        "action": { "name": "cta_url", "parameters": parameters },
    }))
}

fn flow(parameters: Value) -> Value {
    interactive(json!({
        "type": "flow",
        "header": { "type": "text", "text": "Survey" },
        "body": { "text": "Tell us" },
        "footer": { "text": "Takes a minute" },
        "action": { "name": "flow", "parameters": parameters },
    }))
}

fn navigate_flow() -> Value {
    json!({
        "flow_message_version": "3",
        "flow_id": "1234567890",
        "flow_token": "token-1",
        "flow_cta": "Start",
        "flow_action": "navigate",
        "flow_action_payload": { "screen": "WELCOME", "data": { "name": "Ana" } },
    })
}

fn long(n: usize) -> String {
    "x".repeat(n)
}

#[tokio::test]
async fn every_interactive_kind_in_meta_shape_is_accepted() {
    let sim = spawn_simulator().await;
    sim.customer_writes(CUSTOMER).await;
    let mut with_header = buttons(&[("yes", "Yes"), ("no", "No"), (&long(256), &long(20))]);
    with_header["interactive"]["header"] =
        json!({ "type": "image", "image": { "link": "https://x.test/a.jpg" } });
    with_header["interactive"]["footer"] = json!({ "text": long(60) });
    with_header["interactive"]["body"] = json!({ "text": long(1024) });
    let ten_rows = json!([
        { "title": long(24), "rows": rows("a", 6) },
        { "title": "Second", "rows": [
            row("b0", &long(24)),
            { "id": long(200), "title": "Last", "description": long(72) },
            row("b2", "Row"), row("b3", "Row"),
        ] },
    ]);
    let mut titled_list = list(json!([{ "rows": rows("r", 2) }]));
    titled_list["interactive"]["header"] = json!({ "type": "text", "text": long(60) });
    let data_exchange = json!({
        "flow_message_version": "3",
        "flow_name": "signup",
        "flow_cta": long(20),
        "flow_action": "data_exchange",
    });
    let location_request = interactive(json!({
        "type": "location_request_message",
        "body": { "text": "Where should we deliver?" },
        "action": { "name": "send_location" },
    }));
    let accepted = [
        buttons(&[("only", "Only")]),
        with_header,
        list(ten_rows),
        titled_list,
        cta(&long(20), Some("https://example.test/track?id=1")),
        location_request,
        flow(navigate_flow()),
        flow(data_exchange),
    ];
    for body in &accepted {
        sim.send_ok(body).await;
    }
    let sent = sim.simulator.sent();
    assert_eq!(sent.len(), accepted.len());
    assert!(
        sent.iter()
            .all(|r| r.kind == herald_simulator::RecordKind::Message)
    );
    assert_eq!(sent[2].request, accepted[2], "recorded exactly as sent");
}

#[tokio::test]
async fn each_interactive_limit_is_refused_with_code_100() {
    let sim = spawn_simulator().await;
    sim.customer_writes(CUSTOMER).await;
    let mut header_too_long = buttons(&[("a", "A")]);
    header_too_long["interactive"]["header"] = json!({ "type": "text", "text": long(61) });
    let mut body_too_long = buttons(&[("a", "A")]);
    body_too_long["interactive"]["body"] = json!({ "text": long(1025) });
    let mut footer_too_long = buttons(&[("a", "A")]);
    footer_too_long["interactive"]["footer"] = json!({ "text": long(61) });
    let mut no_body = buttons(&[("a", "A")]);
    no_body["interactive"].as_object_mut().unwrap().remove("body");
    let mut list_with_image = list(json!([{ "rows": rows("r", 1) }]));
    list_with_image["interactive"]["header"] = json!({ "type": "image", "image": { "id": "1" } });
    let mut list_button_too_long = list(json!([{ "rows": rows("r", 1) }]));
    list_button_too_long["interactive"]["action"]["button"] = json!(long(21));
    let eleven_sections: Vec<Value> = (0..11)
        .map(|i| json!({ "title": format!("S{i}"), "rows": [row(&format!("r{i}"), "Row")] }))
        .collect();
    let mut flow_bad_version = navigate_flow();
    flow_bad_version["flow_message_version"] = json!("2");
    let mut flow_both_ids = navigate_flow();
    flow_both_ids["flow_name"] = json!("signup");
    let mut flow_long_cta = navigate_flow();
    flow_long_cta["flow_cta"] = json!(long(21));
    let mut flow_no_payload = navigate_flow();
    flow_no_payload
        .as_object_mut()
        .unwrap()
        .remove("flow_action_payload");
    let mut flow_exchange_payload = navigate_flow();
    flow_exchange_payload["flow_action"] = json!("data_exchange");
    let mut flow_empty_data = navigate_flow();
    flow_empty_data["flow_action_payload"]["data"] = json!({});
    let wrong_location_action = interactive(json!({
        "type": "location_request_message",
        "body": { "text": "Where?" },
        "action": { "name": "send_place" },
    }));
    let cases: Vec<(&str, Value, &str)> = vec![
        ("no buttons", buttons(&[]), "buttons"),
        (
            "four buttons",
            buttons(&[("a", "A"), ("b", "B"), ("c", "C"), ("d", "D")]),
            "buttons",
        ),
        ("button title 21", buttons(&[("a", &long(21))]), "title"),
        ("button id 257", buttons(&[(&long(257), "A")]), "id"),
        ("duplicate ids", buttons(&[("a", "A"), ("a", "B")]), "duplicates"),
        (
            "duplicate titles",
            buttons(&[("a", "A"), ("b", "A")]),
            "duplicates",
        ),
        ("header text 61", header_too_long, "header"),
        ("body 1025", body_too_long, "body"),
        ("footer 61", footer_too_long, "footer"),
        ("no body", no_body, "body"),
        ("list image header", list_with_image, "header"),
        ("list button 21", list_button_too_long, "button"),
        ("11 sections", list(json!(eleven_sections)), "sections"),
        (
            "11 rows in total",
            list(json!([{ "title": "A", "rows": rows("a", 6) }, { "title": "B", "rows": rows("b", 5) }])),
            "rows",
        ),
        (
            "row title 25",
            list(json!([{ "rows": [row("a", &long(25))] }])),
            "title",
        ),
        (
            "row description 73",
            list(json!([{ "rows": [{ "id": "a", "title": "A", "description": long(73) }] }])),
            "description",
        ),
        (
            "row id 201",
            list(json!([{ "rows": [row(&long(201), "A")] }])),
            "id",
        ),
        (
            "section title 25",
            list(json!([{ "title": long(25), "rows": rows("a", 1) }])),
            "title",
        ),
        (
            "untitled section among two",
            list(json!([{ "title": "A", "rows": rows("a", 1) }, { "rows": rows("b", 1) }])),
            "title",
        ),
        (
            "cta text 21",
            cta(&long(21), Some("https://x.test")),
            "display_text",
        ),
        ("cta without url", cta("Open", None), "url"),
        ("cta url not http", cta("Open", Some("ftp://x.test")), "url"),
        ("location request action", wrong_location_action, "send_location"),
        ("flow version 2", flow(flow_bad_version), "flow_message_version"),
        ("flow id and name", flow(flow_both_ids), "flow_name"),
        ("flow cta 21", flow(flow_long_cta), "flow_cta"),
        (
            "navigate without payload",
            flow(flow_no_payload),
            "flow_action_payload",
        ),
        (
            "data_exchange with payload",
            flow(flow_exchange_payload),
            "flow_action_payload",
        ),
        ("flow empty data", flow(flow_empty_data), "data"),
        (
            "unknown type",
            interactive(json!({ "type": "carousel", "body": { "text": "x" } })),
            "type",
        ),
        (
            "catalog",
            interactive(json!({ "type": "product_list", "body": { "text": "x" } })),
            "catalog",
        ),
    ];
    for (name, body, field) in cases {
        let (status, error) = sim.send(PNID_1, &body).await;
        let details = assert_graph_error(status, &error, 400, 100);
        assert_eq!(error["error"]["message"], "(#100) Invalid parameter", "{name}");
        assert!(details.contains(field), "{name}: {details}");
    }
    assert!(sim.simulator.sent().is_empty());
}

#[tokio::test]
async fn a_header_file_by_id_must_be_one_of_this_number_and_fit_the_kind() {
    let sim = spawn_simulator().await;
    let (status, answer) = sim
        .inbound_with(&json!({
            "from": CUSTOMER,
            "to": "+15550001111",
            "media": { "type": "image", "mime_type": "image/png", "data_base64": "AAAA" },
        }))
        .await;
    assert_eq!(status, 200, "{answer}");
    let image_id = answer["media_id"].as_str().unwrap();
    let with_header = |kind: &str, id: &str| {
        let mut body = buttons(&[("a", "A")]);
        body["interactive"]["header"] = json!({ "type": kind, kind: { "id": id } });
        body
    };
    sim.send_ok(&with_header("image", image_id)).await;
    let media = sim.simulator.sent()[0].media.clone().unwrap();
    assert_eq!(
        (media.kind.as_str(), media.role.as_str(), media.id.as_deref()),
        ("image", "interactive_header", Some(image_id))
    );
    assert_eq!(media.mime_type.as_deref(), Some("image/png"));
    for (kind, id) in [("video", image_id), ("image", "999")] {
        let (status, error) = sim.send(PNID_1, &with_header(kind, id)).await;
        assert_graph_error(status, &error, 400, 131053);
    }
    assert_eq!(sim.simulator.sent().len(), 1);
}

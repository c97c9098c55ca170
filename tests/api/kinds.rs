//! The message kinds beside text, files and templates (docs/api.md §4.6–§4.9) end to end: accepted, sent
//! through the real Cloud API client to the in-process simulator in Meta's exact shape, and `delivered`
//! (a reaction stays `sent`); replies carry the target's network id; targets are checked at acceptance;
//! refusals store nothing — on both stores.

use crate::files::file_part;
use crate::helpers::{Db, add_default_sender, assert_problem, new_org, spawn_app};
use crate::network::spawn;
use herald_testkit::files;
use reqwest::multipart::Form;
use serde_json::{Value, json};
use std::time::Duration;

on_both_stores!(
    every_new_kind_is_delivered_in_meta_s_shape,
    a_reaction_stays_sent_and_replies_carry_the_network_id,
    targets_must_be_messages_of_the_conversation_the_network_knows,
    new_kinds_are_refused_outside_the_window_and_store_nothing_when_invalid,
);

const CUSTOMER: &str = "+15551230101";

fn buttons(to: &str) -> Value {
    json!({
        "to": to,
        "type": "button",
        "body": {"text": "Did the parcel arrive?"},
        "footer": {"text": "Herald"},
        "action": {"buttons": [
            {"type": "reply", "reply": {"id": "yes", "title": "Yes"}},
            {"type": "reply", "reply": {"id": "no", "title": "No"}}
        ]}
    })
}

fn list(to: &str) -> Value {
    json!({
        "to": to,
        "type": "list",
        "header": {"type": "text", "text": "Menu"},
        "body": {"text": "What would you like?"},
        "action": {"button": "Options", "sections": [
            {"title": "Mains", "rows": [{"id": "soup", "title": "Soup", "description": "Hot"}]},
            {"title": "Drinks", "rows": [{"id": "tea", "title": "Tea"}]}
        ]}
    })
}

fn cta(to: &str) -> Value {
    json!({
        "to": to,
        "type": "cta_url",
        "body": {"text": "Track your order"},
        "action": {"name": "cta_url", "parameters": {"display_text": "Track", "url": "https://example.com/t/1"}}
    })
}

fn flow(to: &str) -> Value {
    json!({
        "to": to,
        "type": "flow",
        "body": {"text": "Book a table"},
        "action": {"name": "flow", "parameters": {
            "flow_message_version": "3", "flow_id": "1234567890", "flow_cta": "Book",
            "flow_token": "tok-1", "flow_action": "navigate",
            "flow_action_payload": {"screen": "START", "data": {"party": 2}}
        }}
    })
}

fn location(to: &str) -> Value {
    json!({"to": to, "latitude": -33.8688, "longitude": 151.2093, "name": "Opera House", "address": "Bennelong Point"})
}

fn contacts(to: &str) -> Value {
    json!({"to": to, "contacts": [{
        "name": {"formatted_name": "Ana Díaz", "first_name": "Ana"},
        "phones": [{"phone": "+15550001111", "type": "WORK"}],
        "emails": [{"email": "ana@example.com"}]
    }]})
}

/// What the network must receive: the body's kind object exactly, in Meta's envelope.
fn envelope(to: &str, message_id: &str, kind: &str, object: Value) -> Value {
    let mut body = json!({
        "messaging_product": "whatsapp",
        "recipient_type": "individual",
        "to": to,
        "type": kind,
        "biz_opaque_callback_data": message_id,
    });
    body[kind] = object;
    body
}

/// The interactive object a send-interactive body stands for: the body without `to`.
fn interactive_object(body: &Value) -> Value {
    let mut object = body.clone();
    object.as_object_mut().unwrap().remove("to");
    object
}

async fn every_new_kind_is_delivered_in_meta_s_shape(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    app.open_window_with(CUSTOMER).await;

    let upload = app
        .post_form(
            "/api/v1/media",
            Form::new().part("file", file_part(files::png(), "menu.png", "image/png")),
        )
        .await;
    assert_eq!(upload.status(), 201);
    let media: Value = upload.json().await.unwrap();
    let media_id = media["id"].as_str().unwrap();
    let mut with_image = buttons(CUSTOMER);
    with_image["header"] = json!({"type": "image", "image": {"media_id": media_id}});

    let cases = [
        ("send-interactive", buttons(CUSTOMER), "interactive"),
        ("send-interactive", with_image.clone(), "interactive"),
        ("send-interactive", list(CUSTOMER), "interactive"),
        ("send-interactive", cta(CUSTOMER), "interactive"),
        ("send-interactive", flow(CUSTOMER), "interactive"),
        ("send-location", location(CUSTOMER), "location"),
        ("send-contacts", contacts(CUSTOMER), "contacts"),
    ];
    for (operation, body, kind) in cases {
        let accepted = app
            .send(&format!("/api/v1/messages/{operation}"), body.clone())
            .await;
        assert_eq!(accepted["type"], kind);
        assert_eq!(accepted["status"], "accepted");
        let id = accepted["id"].as_str().unwrap().to_owned();
        let (message, _) = app.wait_status(&id, "delivered").await;
        let sent = app.sent_for(&id).await;
        match kind {
            "interactive" => {
                let mut expected = interactive_object(&body);
                if expected.get("header").and_then(|h| h.get("image")).is_some() {
                    // A header file goes to the network by the network's media id, not Herald's.
                    let network_id = sent["interactive"]["header"]["image"]["id"].clone();
                    assert!(network_id.is_string(), "{sent}");
                    expected["header"]["image"] = json!({"id": network_id});
                }
                assert_eq!(sent, envelope(CUSTOMER, &id, kind, expected.clone()));
                // The resource shows Herald's object: the header file by its `media_id`.
                assert_eq!(message["interactive"], interactive_object(&body));
            }
            "location" => {
                let object = json!({"latitude": -33.8688, "longitude": 151.2093, "name": "Opera House", "address": "Bennelong Point"});
                assert_eq!(sent, envelope(CUSTOMER, &id, kind, object.clone()));
                assert_eq!(message["location"], object);
            }
            _ => {
                assert_eq!(sent, envelope(CUSTOMER, &id, kind, body["contacts"].clone()));
                assert_eq!(message["contacts"], body["contacts"]);
            }
        }
    }
}

async fn a_reaction_stays_sent_and_replies_carry_the_network_id(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    app.open_window_with(CUSTOMER).await;
    let first = app
        .send(
            "/api/v1/messages/send-text",
            json!({"to": CUSTOMER, "message": "Your order is ready"}),
        )
        .await;
    let first_id = first["id"].as_str().unwrap().to_owned();
    let (first, _) = app.wait_status(&first_id, "delivered").await;
    let wamid = first["network_message_id"].as_str().unwrap().to_owned();

    let reaction = app
        .send(
            "/api/v1/messages/send-reaction",
            json!({"to": CUSTOMER, "message_id": first_id, "emoji": "👍🏽"}),
        )
        .await;
    assert_eq!(reaction["type"], "reaction");
    assert_eq!(
        reaction["reaction"],
        json!({"message_id": first_id, "emoji": "👍🏽"})
    );
    let reaction_id = reaction["id"].as_str().unwrap().to_owned();
    let (_, events) = app.wait_status(&reaction_id, "sent").await;
    assert_eq!(
        app.sent_for(&reaction_id).await,
        envelope(
            CUSTOMER,
            &reaction_id,
            "reaction",
            json!({"message_id": wamid, "emoji": "👍🏽"})
        )
    );
    // The network says nothing after `sent` for a reaction; Herald waits for nothing more either.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (message, later) = app.wait_status(&reaction_id, "sent").await;
    assert_eq!(later, events, "no report after sent");
    assert!(message["timestamps"]["delivered"].is_null());

    // Every kind, old and new, can reply; the network gets the target's wamid as `context`.
    let mut replying_list = list(CUSTOMER);
    replying_list["reply_to"] = json!(first_id);
    let replies = [
        (
            "send-text",
            json!({"to": CUSTOMER, "message": "More news", "reply_to": first_id}),
        ),
        ("send-interactive", replying_list),
        (
            "send-template",
            json!({"to": CUSTOMER, "template": {"name": "hello_world", "language": "en_US"}, "reply_to": first_id}),
        ),
    ];
    for (operation, body) in replies {
        let accepted = app.send(&format!("/api/v1/messages/{operation}"), body).await;
        assert_eq!(accepted["reply_to"], first_id.as_str());
        let id = accepted["id"].as_str().unwrap().to_owned();
        app.wait_status(&id, "delivered").await;
        assert_eq!(
            app.sent_for(&id).await["context"],
            json!({"message_id": wamid}),
            "{operation}"
        );
    }
    let form = Form::new()
        .text("to", CUSTOMER)
        .text("reply_to", first_id.clone())
        .part("file", file_part(files::pdf(), "terms.pdf", "application/pdf"));
    let accepted: Value = {
        let response = app.post_form("/api/v1/messages/send-file", form).await;
        assert_eq!(response.status(), 202, "{}", response.text().await.unwrap());
        response.json().await.unwrap()
    };
    assert_eq!(accepted["reply_to"], first_id.as_str());
    let id = accepted["id"].as_str().unwrap().to_owned();
    app.wait_status(&id, "delivered").await;
    assert_eq!(app.sent_for(&id).await["context"], json!({"message_id": wamid}));
}

/// `validation_failed` on `field`, with a detail that says `says`.
async fn refused_on(response: reqwest::Response, field: &str, says: &str) {
    let problem = assert_problem(response, 422, "validation_failed").await;
    let errors = problem["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{problem}");
    assert_eq!(errors[0]["field"], field, "{problem}");
    assert!(errors[0]["message"].as_str().unwrap().contains(says), "{problem}");
}

async fn targets_must_be_messages_of_the_conversation_the_network_knows(db: Db) {
    // The API alone: nothing is dispatched, so every message stays `accepted`, without a network id.
    let Some(app) = spawn_app(db).await else {
        return;
    };
    let other_customer = "+15551230102";
    app.open_window(CUSTOMER).await;
    app.open_window(other_customer).await;
    let queued = app
        .post(
            "/api/v1/messages/send-text",
            &json!({"to": CUSTOMER, "message": "hi"}),
        )
        .await;
    assert_eq!(queued.status(), 202);
    let queued: Value = queued.json().await.unwrap();
    let queued_id = queued["id"].as_str().unwrap();

    // Another organization's message reads exactly like an unknown id.
    let (other_org, other_key) = new_org(&app.services, "business").await;
    let other_sender = add_default_sender(&app.services, &other_org, "+15550009999", "1000000009", 80).await;
    app.services
        .store
        .windows()
        .record_inbound(&herald_domain::window::ServiceWindow {
            organization_id: other_org,
            sender_id: other_sender.id,
            recipient: herald_domain::values::PhoneNumber::parse(CUSTOMER)
                .unwrap()
                .into(),
            last_inbound_at: chrono::Utc::now(),
        })
        .await
        .unwrap();
    let foreign = app
        .post_as(
            &other_key,
            "/api/v1/messages/send-text",
            &json!({"to": CUSTOMER, "message": "theirs"}),
        )
        .await;
    assert_eq!(foreign.status(), 202);
    let foreign: Value = foreign.json().await.unwrap();
    let foreign_id = foreign["id"].as_str().unwrap();

    let before = app.all_message_ids().await;
    let usage = app.usage().await;
    let unknown = "msg_01J0000000000000000000000X";
    let unknown_inbound = "inb_01J0000000000000000000000X";
    for id in [unknown, foreign_id, unknown_inbound] {
        let reply = json!({"to": CUSTOMER, "message": "re", "reply_to": id});
        let response = app.post("/api/v1/messages/send-text", &reply).await;
        refused_on(response, "reply_to", "no message with this id").await;
        let reaction = json!({"to": CUSTOMER, "message_id": id, "emoji": "👍"});
        let response = app.post("/api/v1/messages/send-reaction", &reaction).await;
        refused_on(response, "message_id", "no message with this id").await;
    }
    let elsewhere = json!({"to": other_customer, "message": "re", "reply_to": queued_id});
    let response = app.post("/api/v1/messages/send-text", &elsewhere).await;
    refused_on(response, "reply_to", "another conversation").await;
    let not_yet = json!({"to": CUSTOMER, "message_id": queued_id, "emoji": "👍"});
    let response = app.post("/api/v1/messages/send-reaction", &not_yet).await;
    refused_on(response, "message_id", "`submitted` or later").await;
    let not_yet = json!({"to": CUSTOMER, "latitude": 1, "longitude": 2, "reply_to": queued_id});
    let response = app.post("/api/v1/messages/send-location", &not_yet).await;
    refused_on(response, "reply_to", "`submitted` or later").await;

    assert_eq!(
        app.all_message_ids().await,
        before,
        "a refused send stores nothing"
    );
    assert_eq!(app.usage().await, usage, "a refused send counts nothing");
}

async fn new_kinds_are_refused_outside_the_window_and_store_nothing_when_invalid(db: Db) {
    let Some(app) = spawn_app(db).await else {
        return;
    };
    let closed = "+15551230199";
    for (operation, body) in [
        ("send-interactive", buttons(closed)),
        ("send-location", location(closed)),
        ("send-contacts", contacts(closed)),
    ] {
        let response = app.post(&format!("/api/v1/messages/{operation}"), &body).await;
        assert_problem(response, 422, "service_window_closed").await;
    }

    app.open_window(CUSTOMER).await;
    let mut too_many = buttons(CUSTOMER);
    too_many["action"]["buttons"] = json!([
        {"type": "reply", "reply": {"id": "a", "title": "A"}},
        {"type": "reply", "reply": {"id": "b", "title": "B"}},
        {"type": "reply", "reply": {"id": "c", "title": "A title over twenty characters"}}
    ]);
    let response = app.post("/api/v1/messages/send-interactive", &too_many).await;
    refused_on(response, "action.buttons[2].reply.title", "at most 20").await;
    let mut unknown_file = buttons(CUSTOMER);
    unknown_file["header"] =
        json!({"type": "video", "video": {"media_id": "med_01J0000000000000000000000X"}});
    let response = app.post("/api/v1/messages/send-interactive", &unknown_file).await;
    refused_on(
        response,
        "header.video.media_id",
        "not an upload of this organization",
    )
    .await;
    let response = app
        .post(
            "/api/v1/messages/send-location",
            &json!({"to": CUSTOMER, "latitude": 91, "longitude": 0}),
        )
        .await;
    refused_on(response, "latitude", "between").await;
    let response = app
        .post(
            "/api/v1/messages/send-contacts",
            &json!({"to": CUSTOMER, "contacts": [{"name": {"first_name": "Bo"}}]}),
        )
        .await;
    refused_on(response, "contacts[0].name.formatted_name", "required").await;
    let response = app
        .post(
            "/api/v1/messages/send-reaction",
            &json!({"to": CUSTOMER, "message_id": "msg_01J0000000000000000000000X", "emoji": "two words"}),
        )
        .await;
    refused_on(response, "emoji", "one emoji").await;
    assert!(app.all_message_ids().await.is_empty(), "nothing stored");
    assert_eq!(app.usage().await, 0, "nothing counted");

    // The plan decides from the request before any field is checked: a header file makes it media, which
    // the trial plan does not allow, however wrong the rest is; without one it is text, which it allows.
    let (_, trial_key) = new_org(&app.services, "trial").await;
    let mut media_header = too_many.clone();
    media_header["header"] =
        json!({"type": "image", "image": {"media_id": "med_01J0000000000000000000000X"}});
    let response = app
        .post_as(&trial_key, "/api/v1/messages/send-interactive", &media_header)
        .await;
    assert_problem(response, 403, "plan_forbids").await;
    let response = app
        .post_as(&trial_key, "/api/v1/messages/send-interactive", &too_many)
        .await;
    assert_problem(response, 422, "validation_failed").await;
}

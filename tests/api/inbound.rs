//! Inbound messages as resources, end to end: the simulator's control API delivers every inbound kind as
//! Meta's signed callback, Herald records it, and `GET /api/v1/inbound` shows it with its kind's object and
//! the Herald ids it replies or reacts to; `POST /api/v1/inbound/{id}/read` reaches the simulator in Meta's
//! shape. On both stores.

use crate::helpers::{Db, assert_problem};
use crate::network::{NetApp, spawn};
use herald_domain::organization::PlanName;
use herald_domain::values::DisplayName;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

on_both_stores!(
    every_inbound_kind_is_a_resource_with_its_herald_links,
    the_inbound_list_filters_pages_and_is_scoped,
    reading_marks_the_message_read_on_the_network,
);

const SENDER: &str = "+15550001111";
const CUSTOMER: &str = "+15551234567";
const OTHER_CUSTOMER: &str = "+15557654321";

impl NetApp {
    /// Delivers one inbound message through the simulator's control API; answers its wamid.
    async fn deliver(&self, body: Value) -> String {
        let mut body = body;
        body["to"] = json!(SENDER);
        if body.get("from").is_none() {
            body["from"] = json!(CUSTOMER);
        }
        let response = self
            .http
            .post(format!("{}/simulator/control/inbound", self.base))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{body}");
        let answer: Value = response.json().await.unwrap();
        answer["id"].as_str().unwrap().to_owned()
    }

    /// Every inbound message of the organization, newest first, once `count` of them are recorded.
    pub(crate) async fn inbound_once(&self, count: usize) -> Vec<Value> {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let page = self.get("/api/v1/inbound?limit=200").await;
            let data = page["data"].as_array().cloned().unwrap_or_default();
            if data.len() >= count {
                return data;
            }
            assert!(
                Instant::now() < deadline,
                "only {} of {count} recorded: {page}",
                data.len()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// An outbound text to `to` (its window open), once the network took it: (Herald id, wamid).
    async fn sent_text(&self, to: &str) -> (String, String) {
        let message = self
            .send(
                "/api/v1/messages/send-text",
                json!({ "to": to, "message": "Your order shipped" }),
            )
            .await;
        let id = message["id"].as_str().unwrap().to_owned();
        let (sent, _) = self
            .wait_for(&id, |m, _| m["network_message_id"].is_string())
            .await;
        (id, sent["network_message_id"].as_str().unwrap().to_owned())
    }
}

fn by_wamid<'a>(app_list: &'a [Value], events: &'a [(String, Value)], wamid: &str) -> (&'a Value, &'a Value) {
    let (id, event) = events
        .iter()
        .find(|(w, _)| w == wamid)
        .unwrap_or_else(|| panic!("no event for {wamid}"));
    let resource = app_list
        .iter()
        .find(|r| r["id"] == event["id"])
        .unwrap_or_else(|| panic!("no resource {id}"));
    (resource, event)
}

/// The `message.inbound` events' `data`, each with the wamid of its message (which the store keeps).
async fn inbound_events(app: &NetApp) -> Vec<(String, Value)> {
    let events = app.services.store.customer_events(&app.org).await.unwrap();
    let inbound = app.services.store.inbound();
    let mut found = Vec::new();
    for event in events
        .iter()
        .filter(|e| e.event_type.as_str() == "message.inbound")
    {
        let payload: Value = serde_json::from_str(&event.payload).unwrap();
        let id = herald_domain::ids::InboundId::parse(payload["data"]["id"].as_str().unwrap()).unwrap();
        let view = inbound.inbound_message(&app.org, &id).await.unwrap().unwrap();
        found.push((view.network_message_id, payload["data"].clone()));
    }
    found
}

async fn every_inbound_kind_is_a_resource_with_its_herald_links(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    let hello = app.deliver(json!({ "text": "hello", "name": "Ana" })).await;
    app.inbound_once(1).await;
    let (outbound_id, outbound_wamid) = app.sent_text(CUSTOMER).await;
    let answer = |extra: Value| {
        let mut body = extra;
        body["context"] = json!({ "message_id": outbound_wamid });
        body
    };
    let reply = app.deliver(answer(json!({ "text": "thanks!" }))).await;
    let reacted = app
        .deliver(json!({ "reaction": { "message_id": outbound_wamid, "emoji": "👍" } }))
        .await;
    let reacted_in = app
        .deliver(json!({ "reaction": { "message_id": hello, "emoji": "" } }))
        .await;
    let location = app
        .deliver(json!({ "location": { "latitude": 37.4611978, "longitude": -122.2164385, "name": "HQ" } }))
        .await;
    let cards = json!([{ "name": { "formatted_name": "Rachel Green", "first_name": "Rachel" },
                         "phones": [{ "phone": "+1 777-777-7777", "type": "WORK" }] }]);
    let contacts = app.deliver(json!({ "contacts": cards })).await;
    let button_reply = app
        .deliver(answer(json!({ "button_reply": { "id": "yes", "title": "Yes" } })))
        .await;
    let list_reply = app
        .deliver(answer(
            json!({ "list_reply": { "id": "row-1", "title": "Tomorrow", "description": "9–12" } }),
        ))
        .await;
    let quick = app
        .deliver(answer(
            json!({ "button": { "payload": "STOP", "text": "Stop promotions" } }),
        ))
        .await;
    let flow = app
        .deliver(answer(
            json!({ "nfm_reply": { "response_json": { "flow_token": "T", "rating": "5" } } }),
        ))
        .await;
    let unsupported = app.deliver(json!({ "unsupported": { "type": "edit" } })).await;
    let referred = app
        .deliver(json!({ "text": "I saw your ad", "referral": {
            "source_url": "https://fb.me/ad", "source_id": "ADID", "source_type": "ad", "ctwa_clid": "CLID" } }))
        .await;
    let voice = app
        .deliver(
            json!({ "media": { "type": "audio", "mime_type": "audio/ogg; codecs=opus",
                                    "data_base64": "T2dnUwACAAAAAAAAAAA=", "voice": true } }),
        )
        .await;
    let wamids = [
        hello.as_str(),
        reply.as_str(),
        reacted.as_str(),
        reacted_in.as_str(),
        location.as_str(),
        contacts.as_str(),
        button_reply.as_str(),
        list_reply.as_str(),
        quick.as_str(),
        flow.as_str(),
        unsupported.as_str(),
        referred.as_str(),
        voice.as_str(),
    ];
    let list = app.inbound_once(wamids.len()).await;
    assert_eq!(list.len(), wamids.len());
    let events = inbound_events(&app).await;
    assert_eq!(events.len(), wamids.len(), "one event per inbound message");
    let get = |wamid: &str| by_wamid(&list, &events, wamid);

    for (wamid, event) in &events {
        let (resource, _) = get(wamid);
        let mut without_extras = resource.clone();
        let fields = without_extras.as_object_mut().unwrap();
        fields.remove("from_name");
        fields.remove("read_at");
        assert_eq!(
            event, &without_extras,
            "the event's data and the resource agree ({wamid})"
        );
        assert!(resource["id"].as_str().unwrap().starts_with("inb_"));
        assert_eq!(resource["from"], CUSTOMER);
        assert_eq!(resource["to"], SENDER);
    }
    let (first, _) = get(&hello);
    assert_eq!(first["text"], json!({ "body": "hello" }));
    assert_eq!(first["from_name"], "Ana");
    assert_eq!(first["context"], Value::Null);

    let (replied, _) = get(&reply);
    assert_eq!(
        replied["context"],
        json!({ "message_id": outbound_id, "network_message_id": outbound_wamid }),
        "a reply carries the Herald id of the message it answers"
    );
    let (reaction, _) = get(&reacted);
    assert_eq!(reaction["type"], "reaction");
    assert_eq!(
        reaction["reaction"],
        json!({ "message_id": outbound_id, "network_message_id": outbound_wamid, "emoji": "👍" })
    );
    let (unreaction, _) = get(&reacted_in);
    assert_eq!(
        unreaction["reaction"],
        json!({ "message_id": first["id"], "network_message_id": hello, "emoji": "" }),
        "a reaction to an inbound message names its inb_ id; an empty emoji removes it"
    );
    let (place, _) = get(&location);
    assert_eq!(
        place["location"],
        json!({ "latitude": 37.4611978, "longitude": -122.2164385, "name": "HQ" })
    );
    assert_eq!(get(&contacts).0["contacts"], cards);
    let (button, _) = get(&button_reply);
    assert_eq!(button["type"], "interactive");
    assert_eq!(
        button["interactive"],
        json!({ "type": "button_reply", "button_reply": { "id": "yes", "title": "Yes" } })
    );
    assert_eq!(button["context"]["message_id"], outbound_id);
    assert_eq!(
        get(&list_reply).0["interactive"],
        json!({ "type": "list_reply", "list_reply": { "id": "row-1", "title": "Tomorrow", "description": "9–12" } })
    );
    let (template_button, _) = get(&quick);
    assert_eq!(template_button["type"], "button");
    assert_eq!(
        template_button["button"],
        json!({ "payload": "STOP", "text": "Stop promotions" })
    );
    let (answer_flow, _) = get(&flow);
    assert_eq!(answer_flow["interactive"]["type"], "nfm_reply");
    let response: Value = serde_json::from_str(
        answer_flow["interactive"]["nfm_reply"]["response_json"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(response, json!({ "flow_token": "T", "rating": "5" }));
    let (kept, _) = get(&unsupported);
    assert_eq!(kept["type"], "unsupported");
    assert_eq!(
        kept["raw"]["errors"][0]["code"], 131051,
        "kept with the network's object"
    );
    let (ad, _) = get(&referred);
    assert_eq!(ad["text"]["body"], "I saw your ad");
    assert_eq!(ad["referral"]["source_id"], "ADID");
    let (audio, _) = get(&voice);
    assert_eq!(audio["type"], "audio");
    assert_eq!(audio["media"]["voice"], true);
    assert!(audio["media"]["id"].as_str().unwrap().starts_with("med_"));
}

async fn the_inbound_list_filters_pages_and_is_scoped(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    let first = app.deliver(json!({ "text": "one" })).await;
    app.inbound_once(1).await;
    let (_, outbound_wamid) = app.sent_text(CUSTOMER).await;
    app.deliver(json!({ "reaction": { "message_id": outbound_wamid, "emoji": "🎉" } }))
        .await;
    app.inbound_once(2).await;
    // The network's times are whole seconds: a pause puts the third message in a later second.
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    app.deliver(json!({ "from": OTHER_CUSTOMER, "text": "three" }))
        .await;
    let all = app.inbound_once(3).await;
    let ids: Vec<&str> = all.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(all[0]["text"]["body"], "three", "newest first");
    assert_eq!(all[2]["text"]["body"], "one");

    let ids_of = |page: &Value| -> Vec<String> {
        page["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_str().unwrap().to_owned())
            .collect()
    };
    let reactions = app.get("/api/v1/inbound?type=reaction").await;
    assert_eq!(ids_of(&reactions), [ids[1]]);
    let from_other = app.get("/api/v1/inbound?sender=%2B15557654321").await;
    assert_eq!(ids_of(&from_other), [ids[0]]);
    let to_sender = app.get("/api/v1/inbound?number=%2B15550001111").await;
    assert_eq!(ids_of(&to_sender).len(), 3);
    let to_unknown = app.get("/api/v1/inbound?number=%2B15550002222").await;
    assert!(
        ids_of(&to_unknown).is_empty(),
        "a number the organization does not have received nothing"
    );
    let third_at = all[0]["received_at"].as_str().unwrap();
    let earlier = app.get(&format!("/api/v1/inbound?until={third_at}")).await;
    assert_eq!(ids_of(&earlier), [ids[1], ids[2]], "until is exclusive");
    let later = app.get(&format!("/api/v1/inbound?since={third_at}")).await;
    assert_eq!(ids_of(&later), [ids[0]], "since is inclusive");

    let page1 = app.get("/api/v1/inbound?limit=2").await;
    assert_eq!(ids_of(&page1), [ids[0], ids[1]]);
    let cursor = page1["next_cursor"].as_str().unwrap();
    let page2 = app.get(&format!("/api/v1/inbound?limit=2&cursor={cursor}")).await;
    assert_eq!(ids_of(&page2), [ids[2]]);
    assert_eq!(page2["next_cursor"], Value::Null);

    let bad = app
        .get_response("/api/v1/inbound?limit=0&type=Nope&since=yesterday")
        .await;
    let problem = assert_problem(bad, 422, "validation_failed").await;
    let fields: Vec<&str> = problem["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["limit", "type", "since"]);

    // Another organization sees none of it: its list is empty and the ids are not found.
    let admin = app.services.admin();
    let other = admin
        .create_organization(
            DisplayName::parse("Other org").unwrap(),
            PlanName::parse("business").unwrap(),
            None,
        )
        .await
        .unwrap();
    let (_, other_key) = admin.create_key(&other.id, None).await.unwrap();
    let as_other = |path: String| {
        app.http
            .get(format!("{}{path}", app.base))
            .bearer_auth(other_key.expose())
            .send()
    };
    let empty: Value = as_other("/api/v1/inbound".to_owned())
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(empty["data"], json!([]));
    assert_problem(
        as_other(format!("/api/v1/inbound/{}", ids[2])).await.unwrap(),
        404,
        "not_found",
    )
    .await;
    assert_problem(
        app.get_response("/api/v1/inbound/inb_01JD0000000000000000000000")
            .await,
        404,
        "not_found",
    )
    .await;
    // The old `msg_` form of an inbound id (same ULID) still names it.
    let legacy = ids[2].replacen("inb_", "msg_", 1);
    assert_eq!(app.get(&format!("/api/v1/inbound/{legacy}")).await["id"], ids[2]);
    assert!(!first.is_empty());
}

async fn reading_marks_the_message_read_on_the_network(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    let wamid = app.deliver(json!({ "text": "anyone there?" })).await;
    let list = app.inbound_once(1).await;
    let id = list[0]["id"].as_str().unwrap().to_owned();
    assert!(list[0].get("read_at").is_none());

    let read = app
        .post_response(&format!("/api/v1/inbound/{id}/read"), &json!({ "typing": true }))
        .await;
    assert_eq!(read.status(), 202);
    let read: Value = read.json().await.unwrap();
    assert_eq!(read["id"], id);
    let read_at = read["read_at"].as_str().unwrap().to_owned();
    let receipts: Vec<Value> = app
        .simulator_sent()
        .await
        .into_iter()
        .filter(|r| r["kind"] != "message")
        .collect();
    assert_eq!(receipts.len(), 1);
    assert_eq!(receipts[0]["kind"], "typing");
    assert_eq!(receipts[0]["wamid"], wamid);
    assert_eq!(
        receipts[0]["request"],
        json!({ "messaging_product": "whatsapp", "status": "read", "message_id": wamid,
                "typing_indicator": { "type": "text" } })
    );

    // Without a body: a plain read receipt; the first read time stays.
    let again = app
        .http
        .post(format!("{}/api/v1/inbound/{id}/read", app.base))
        .bearer_auth(&app.key)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 202);
    let receipts: Vec<Value> = app
        .simulator_sent()
        .await
        .into_iter()
        .filter(|r| r["kind"] != "message")
        .collect();
    assert_eq!(receipts.len(), 2);
    assert_eq!(receipts[1]["kind"], "read");
    assert_eq!(
        receipts[1]["request"],
        json!({ "messaging_product": "whatsapp", "status": "read", "message_id": wamid })
    );
    assert_eq!(
        app.get(&format!("/api/v1/inbound/{id}")).await["read_at"],
        read_at
    );

    assert_problem(
        app.post_response(&format!("/api/v1/inbound/{id}/read"), &json!({ "typing": "yes" }))
            .await,
        422,
        "validation_failed",
    )
    .await;
    assert_problem(
        app.post_response("/api/v1/inbound/inb_01JD0000000000000000000000/read", &json!({}))
            .await,
        404,
        "not_found",
    )
    .await;
    let receipts = app
        .simulator_sent()
        .await
        .into_iter()
        .filter(|r| r["kind"] != "message")
        .count();
    assert_eq!(receipts, 2, "a refused request sends nothing");
}

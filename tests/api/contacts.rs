//! Contacts end to end (docs/api.md §7.1): the simulator's `user_preferences` webhook and the API's own
//! opt-outs refuse marketing templates (and only them) with `recipient_opted_out` and reach a subscribed
//! receiver as `contact.preferences`; blocks go through the simulator's block list (its 24-hour rule, its
//! refusal of messages to a blocked user) and refuse every send with `recipient_blocked`; business-scoped
//! user ids from inbound webhooks pair with numbers, and one person's contacts (by number, by user id, by
//! a national variant of the number) are one, which every send, dry run and broadcast checks; the STOP
//! keyword rule — on both stores.

use crate::helpers::{Db, assert_problem};
use crate::network::{NetApp, spawn};
use crate::webhooks::{Answer, spawn_receiver};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

on_both_stores!(
    opt_outs_refuse_marketing_templates_only_and_are_announced,
    blocks_go_through_the_network_and_refuse_every_send,
    the_stop_keyword_rule_is_off_until_set,
    contact_paths_take_numbers_and_user_ids_only,
    sends_take_a_business_scoped_user_id_as_to,
    a_user_who_hides_their_number_writes_by_user_id_and_is_answered_by_it,
    a_stop_by_user_id_alone_refuses_marketing_to_the_paired_number,
    a_block_by_user_id_alone_refuses_every_send_to_the_paired_number,
    a_stop_under_one_national_variant_refuses_sends_to_the_other,
    opting_out_twice_records_one_change,
    erasing_a_person_keeps_their_messages_under_a_marker_and_is_idempotent,
);

const SENDER: &str = "+15550001111";
const USER_ID: &str = "US.13491208655302741918";

async fn app(db: Db) -> NetApp {
    spawn(
        db,
        |settings| {
            settings.webhooks.allow_insecure = true;
            settings.webhooks.allow_private_targets = true;
            settings.webhooks.timeout_seconds = 5;
        },
        80,
    )
    .await
}

fn path(number: &str) -> String {
    format!("/api/v1/contacts/{}", number.replace('+', "%2B"))
}

/// Polls the contact until `done` holds (the network's webhooks are processed in the background).
async fn wait_contact(app: &NetApp, recipient: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let contact = app.get(&path(recipient)).await;
        if done(&contact) {
            return contact;
        }
        assert!(
            Instant::now() < deadline,
            "the contact never got there: {contact}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn simulator(app: &NetApp, control: &str, body: Value) -> Value {
    let answer = app
        .http
        .post(format!("{}/simulator/control/{control}", app.base))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200, "{control}");
    answer.json().await.unwrap()
}

fn promo(to: &str) -> Value {
    json!({ "to": to, "template": { "name": "promo_image", "language": "en_US" },
            "variables": { "header": { "type": "image", "link": "https://files.example.com/promo.png" },
                           "body": ["20%"] } })
}

fn hello(to: &str) -> Value {
    json!({ "to": to, "template": { "name": "hello_world", "language": "en_US" } })
}

async fn message_count(app: &NetApp) -> usize {
    app.get("/api/v1/messages").await["data"]
        .as_array()
        .map_or(0, Vec::len)
}

async fn opt_outs_refuse_marketing_templates_only_and_are_announced(db: Db) {
    let app = app(db).await;
    let receiver = spawn_receiver(&[], Answer::Status(204));
    let created = app
        .post_response(
            "/api/v1/webhooks",
            &json!({ "url": receiver.url, "events": ["contact.preferences"] }),
        )
        .await;
    assert_eq!(created.status(), 201);
    let to = "+15551234567";
    let fresh = app.get(&path(to)).await;
    assert_eq!(fresh["marketing"], "allowed");
    assert_eq!(fresh["blocked"], false);
    assert_eq!(fresh["window"]["open"], false);

    let answer = simulator(
        &app,
        "user-preferences",
        json!({ "to": SENDER, "from": to, "value": "stop" }),
    )
    .await;
    assert_eq!(answer["delivered"], true, "{answer}");
    let stopped = wait_contact(&app, to, |c| c["marketing"] == "stopped").await;
    assert_eq!(stopped["marketing_source"], "network");

    let refused = app
        .post_response("/api/v1/messages/send-template", &promo(to))
        .await;
    let problem = assert_problem(refused, 422, "recipient_opted_out").await;
    assert!(problem["detail"].as_str().unwrap().contains(to), "{problem}");
    assert_eq!(message_count(&app).await, 0, "a refused send stores nothing");
    let utility = app.send("/api/v1/messages/send-template", hello(to)).await;
    app.wait_status(utility["id"].as_str().unwrap(), "delivered")
        .await;

    let opted_in = app
        .post_response(&format!("{}/opt-in", path(to)), &json!({}))
        .await;
    assert_eq!(opted_in.status(), 200);
    let opted_in: Value = opted_in.json().await.unwrap();
    assert_eq!(opted_in["marketing"], "allowed");
    assert_eq!(opted_in["marketing_source"], "api");
    app.send("/api/v1/messages/send-template", promo(to)).await;

    let opted_out = app
        .post_response(&format!("{}/opt-out", path(to)), &json!({}))
        .await;
    assert_eq!(opted_out.status(), 200);
    let refused = app
        .post_response("/api/v1/messages/send-template", &promo(to))
        .await;
    assert_problem(refused, 422, "recipient_opted_out").await;

    let requests = receiver
        .wait_until(Duration::from_secs(15), |r| r.len() >= 3)
        .await;
    let bodies: Vec<Value> = requests.iter().map(|r| r.json()).collect();
    let mut seen: Vec<(&str, &str)> = bodies
        .iter()
        .map(|b| {
            assert_eq!(b["type"], "contact.preferences", "{b}");
            assert_eq!(b["data"]["contact"]["number"], to, "{b}");
            (
                b["data"]["marketing"].as_str().unwrap(),
                b["data"]["source"].as_str().unwrap(),
            )
        })
        .collect();
    // Deliveries of different events may overtake each other; each change arrives once.
    seen.sort_unstable();
    assert_eq!(
        seen,
        [("allowed", "api"), ("stopped", "api"), ("stopped", "network")]
    );
}

async fn blocks_go_through_the_network_and_refuse_every_send(db: Db) {
    let app = app(db).await;
    let to = "+15557654321";
    // The network blocks only people who wrote in the last 24 hours.
    let early = app
        .post_response(&format!("{}/block", path(to)), &json!({}))
        .await;
    assert_problem(early, 422, "service_window_closed").await;
    assert_eq!(app.get(&path(to)).await["blocked"], false);

    simulator(
        &app,
        "inbound",
        json!({ "from": to, "to": SENDER, "text": "hi", "user_id": USER_ID }),
    )
    .await;
    wait_contact(&app, to, |c| {
        c["window"]["open"] == true && c["user_id"] == USER_ID
    })
    .await;
    let by_user_id = app.get(&format!("/api/v1/contacts/{USER_ID}")).await;
    assert_eq!(
        by_user_id["number"], to,
        "the user id was paired with the number: {by_user_id}"
    );

    let blocked = app
        .post_response(&format!("{}/block", path(to)), &json!({}))
        .await;
    assert_eq!(blocked.status(), 200);
    let blocked: Value = blocked.json().await.unwrap();
    assert_eq!(blocked["blocked"], true);
    assert!(blocked["blocked_at"].is_string());
    assert_eq!(
        app.get(&format!("/api/v1/contacts/{USER_ID}")).await["blocked"],
        true
    );

    for (operation, body) in [
        ("send-text", json!({ "to": to, "message": "hello" })),
        ("send-template", hello(to)),
    ] {
        let refused = app
            .post_response(&format!("/api/v1/messages/{operation}"), &body)
            .await;
        assert_problem(refused, 422, "recipient_blocked").await;
    }
    assert_eq!(message_count(&app).await, 0, "refused sends store nothing");

    // The simulator's own list refuses a message to the blocked user, with Meta's error.
    let direct = app
        .http
        .post(format!("{}/simulator/v23.0/1000000001/messages", app.base))
        .bearer_auth("simulator-token")
        .json(&json!({ "messaging_product": "whatsapp", "to": to, "type": "text", "text": { "body": "x" } }))
        .send()
        .await
        .unwrap();
    let direct: Value = direct.json().await.unwrap();
    assert_eq!(direct["error"]["code"], 130403, "{direct}");

    let unblocked = app
        .post_response(&format!("{}/unblock", path(to)), &json!({}))
        .await;
    assert_eq!(unblocked.status(), 200);
    assert_eq!(unblocked.json::<Value>().await.unwrap()["blocked"], false);
    let message = app
        .send(
            "/api/v1/messages/send-text",
            json!({ "to": to, "message": "welcome back" }),
        )
        .await;
    app.wait_status(message["id"].as_str().unwrap(), "delivered")
        .await;
}

async fn the_stop_keyword_rule_is_off_until_set(db: Db) {
    let app = app(db).await;
    let to = "+15551112222";
    let rule = app.get("/api/v1/contacts/keyword-rule").await;
    assert_eq!(rule, json!({ "stop": [], "resume": [] }));
    simulator(
        &app,
        "inbound",
        json!({ "from": to, "to": SENDER, "text": "STOP" }),
    )
    .await;
    wait_contact(&app, to, |c| c["window"]["open"] == true).await;
    assert_eq!(
        app.get(&path(to)).await["marketing"],
        "allowed",
        "the rule is off by default"
    );

    let set = app
        .http
        .put(format!("{}/api/v1/contacts/keyword-rule", app.base))
        .bearer_auth(&app.key)
        .json(&json!({ "stop": ["stop", "Unsubscribe"], "resume": ["start"] }))
        .send()
        .await
        .unwrap();
    assert_eq!(set.status(), 200);
    assert_eq!(
        set.json::<Value>().await.unwrap(),
        json!({ "stop": ["STOP", "UNSUBSCRIBE"], "resume": ["START"] })
    );
    let bad = app
        .http
        .put(format!("{}/api/v1/contacts/keyword-rule", app.base))
        .bearer_auth(&app.key)
        .json(&json!({ "stop": ["STOP"], "resume": ["stop"] }))
        .send()
        .await
        .unwrap();
    assert_problem(bad, 422, "validation_failed").await;

    simulator(
        &app,
        "inbound",
        json!({ "from": to, "to": SENDER, "text": " unsubscribe " }),
    )
    .await;
    let stopped = wait_contact(&app, to, |c| c["marketing"] == "stopped").await;
    assert_eq!(stopped["marketing_source"], "keyword");
    simulator(
        &app,
        "inbound",
        json!({ "from": to, "to": SENDER, "text": "please stop the spam" }),
    )
    .await;
    simulator(
        &app,
        "inbound",
        json!({ "from": to, "to": SENDER, "text": "Start" }),
    )
    .await;
    wait_contact(&app, to, |c| c["marketing"] == "allowed").await;
}

async fn contact_paths_take_numbers_and_user_ids_only(db: Db) {
    let app = app(db).await;
    for bad in ["15551234567", "alice", "US", "%2B1555"] {
        let refused = app.get_response(&format!("/api/v1/contacts/{bad}")).await;
        let problem = assert_problem(refused, 422, "validation_failed").await;
        assert_eq!(problem["errors"][0]["field"], "recipient", "{problem}");
    }
    let unknown = app.get(&format!("/api/v1/contacts/{USER_ID}")).await;
    assert_eq!(unknown["user_id"], USER_ID);
    assert_eq!(unknown["number"], Value::Null);
    assert_eq!(unknown["marketing"], "allowed");
    let refused = app
        .get_response(&format!("{}?from=%2B19999999999", path("+15551234567")))
        .await;
    assert_problem(refused, 422, "validation_failed").await;
    let opted_out = app
        .post_response(&format!("/api/v1/contacts/{USER_ID}/opt-out"), &json!({}))
        .await;
    assert_eq!(opted_out.status(), 200);
    assert_eq!(opted_out.json::<Value>().await.unwrap()["marketing"], "stopped");
}

/// A send's `to` may be a business-scoped user id (docs/api.md §4): a template to one is delivered through
/// the simulator with the id in the Cloud API's `recipient` (no `to`), the message keeps the id as its `to`
/// (resource, events); a free-form message needs the window of the number the id is paired with, so it is
/// refused until an inbound message paired them, and a dry run says the same; every send operation parses it.
async fn sends_take_a_business_scoped_user_id_as_to(db: Db) {
    let app = app(db).await;
    let user = "US.77700011122233344455";
    let number = "+15557770001";
    let sent = app.send("/api/v1/messages/send-template", hello(user)).await;
    assert_eq!(sent["to"], user, "{sent}");
    let id = sent["id"].as_str().unwrap().to_owned();
    let (delivered, history) = app.wait_status(&id, "delivered").await;
    assert_eq!(delivered["to"], user, "{delivered}");
    assert!(history.to_string().contains("delivered"), "{history}");
    let wire = app
        .simulator_sent()
        .await
        .into_iter()
        .find(|r| r["biz_opaque_callback_data"] == id.as_str())
        .expect("the simulator got it");
    assert_eq!(wire["request"]["recipient"], user, "{wire}");
    assert!(wire["request"].get("to").is_none(), "{wire}");
    assert_eq!(wire["recipient"], user);
    let listed = app.get("/api/v1/messages?limit=5").await;
    assert_eq!(listed["data"][0]["to"], user, "{listed}");

    // Free-form: no number paired with the id yet, so no window.
    let text = json!({ "to": user, "message": "hello" });
    let refused = app.post_response("/api/v1/messages/send-text", &text).await;
    let problem = assert_problem(refused, 422, "service_window_closed").await;
    assert!(problem["detail"].as_str().unwrap().contains(user), "{problem}");
    let run: Value = app
        .post_response("/api/v1/messages/send-text?dry_run=true", &text)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(run["refusals"][0]["code"], "service_window_closed", "{run}");
    assert_eq!(run["window"]["open"], false, "{run}");

    // An inbound message carrying both pairs them: the number's window is the id's.
    simulator(
        &app,
        "inbound",
        json!({ "from": number, "to": SENDER, "text": "hi", "user_id": user }),
    )
    .await;
    wait_contact(&app, number, |c| {
        c["window"]["open"] == true && c["user_id"] == user
    })
    .await;
    let run: Value = app
        .post_response("/api/v1/messages/send-text?dry_run=true", &text)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(run["would_accept"], true, "{run}");
    assert_eq!(run["window"]["open"], true, "{run}");
    let reply = app.send("/api/v1/messages/send-text", text).await;
    assert_eq!(reply["to"], user, "the client's recipient is kept: {reply}");
    app.wait_status(reply["id"].as_str().unwrap(), "delivered").await;

    // Every send operation takes the id; a malformed `to` is still refused on `to`.
    let form = reqwest::multipart::Form::new().text("to", user).part(
        "file",
        reqwest::multipart::Part::bytes(herald_testkit::files::pdf())
            .file_name("terms.pdf")
            .mime_str("application/pdf")
            .unwrap(),
    );
    let response = app.post_form("/api/v1/messages/send-file", form).await;
    assert_eq!(response.status(), 202, "{}", response.text().await.unwrap());
    for to in ["us.777", "US.", "15557770001"] {
        let refused = app
            .post_response("/api/v1/messages/send-template", &hello(to))
            .await;
        let problem = assert_problem(refused, 422, "validation_failed").await;
        assert_eq!(problem["errors"][0]["field"], "to", "{to}: {problem}");
    }
}

/// Polls the inbound list filtered by `sender` until it holds `count` messages; answers them, newest first.
async fn wait_inbound(app: &NetApp, sender: &str, count: usize) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let page = app
            .get(&format!("/api/v1/inbound?sender={}", sender.replace('+', "%2B")))
            .await;
        let data = page["data"].as_array().cloned().unwrap_or_default();
        if data.len() >= count {
            return data;
        }
        assert!(Instant::now() < deadline, "never {count} inbound: {page}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn a_user_who_hides_their_number_writes_by_user_id_and_is_answered_by_it(db: Db) {
    let app = app(db).await;
    let user = "US.88800011122233344455";
    let number = "+15558880001";

    // Meta's envelope for such a user has no `wa_id` and no `from`: the message is from the user id.
    simulator(
        &app,
        "inbound",
        json!({ "to": SENDER, "text": "hello from a username", "user_id": user }),
    )
    .await;
    let inbound = wait_inbound(&app, user, 1).await;
    assert_eq!(inbound[0]["from"], user, "{inbound:?}");
    assert_eq!(inbound[0]["from_user_id"], user, "{inbound:?}");
    assert_eq!(inbound[0]["text"]["body"], "hello from a username");
    let one = app
        .get(&format!("/api/v1/inbound/{}", inbound[0]["id"].as_str().unwrap()))
        .await;
    assert_eq!(one["from"], user, "{one}");

    // Its window is the user id's own: a free-form answer to the id goes, and the simulator (which keys
    // the window by the id too) delivers it.
    let contact = wait_contact(&app, user, |c| c["window"]["open"] == true).await;
    assert_eq!(contact["number"], Value::Null, "{contact}");
    let reply = app
        .send(
            "/api/v1/messages/send-text",
            json!({ "to": user, "message": "hi, how can we help?" }),
        )
        .await;
    assert_eq!(reply["to"], user, "{reply}");
    let reply_id = reply["id"].as_str().unwrap().to_owned();
    app.wait_status(&reply_id, "delivered").await;
    // Another user id has no window.
    let refused = app
        .post_response(
            "/api/v1/messages/send-text",
            &json!({ "to": "US.99900011122233344455", "message": "hi" }),
        )
        .await;
    assert_problem(refused, 422, "service_window_closed").await;

    // The log's `to` filter takes the user id.
    app.send("/api/v1/messages/send-template", hello(number)).await;
    let listed = app.get(&format!("/api/v1/messages?to={user}")).await;
    let ids: Vec<&str> = listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [reply_id.as_str()], "{listed}");
    let refused = app.get_response("/api/v1/messages?to=us.888").await;
    let problem = assert_problem(refused, 422, "validation_failed").await;
    assert_eq!(problem["errors"][0]["field"], "to", "{problem}");

    // Once a message carries both, the id is paired: its later messages by id alone are the number's.
    simulator(
        &app,
        "inbound",
        json!({ "from": number, "to": SENDER, "text": "it is me", "user_id": user }),
    )
    .await;
    wait_contact(&app, number, |c| c["user_id"] == user).await;
    simulator(
        &app,
        "inbound",
        json!({ "to": SENDER, "text": "me again", "user_id": user }),
    )
    .await;
    let from_number = wait_inbound(&app, number, 2).await;
    assert_eq!(from_number[0]["text"]["body"], "me again", "{from_number:?}");
    assert_eq!(from_number[0]["from"], number);
    assert_eq!(from_number[0]["from_user_id"], user);
    assert_eq!(wait_inbound(&app, user, 1).await.len(), 1);
}

/// A dry run of the send `body` to `path`: what the send would meet.
async fn dry_run(app: &NetApp, path: &str, body: &Value) -> Value {
    let response = app.post_response(&format!("{path}?dry_run=true"), body).await;
    assert_eq!(response.status(), 200);
    response.json().await.unwrap()
}

/// A broadcast of the marketing template `promo_image` to `recipients`.
fn promo_broadcast(recipients: &[&str]) -> Value {
    let rows: Vec<Value> = recipients
        .iter()
        .map(|to| json!({ "to": to, "variables": promo(to)["variables"].clone() }))
        .collect();
    json!({ "template": { "name": "promo_image", "language": "en_US" }, "recipients": rows })
}

/// Posts a broadcast of `promo_image` to `refused` and `accepted` recipients, and checks that each of the
/// first is left out with `code` (and the others accepted).
async fn assert_broadcast_refuses(app: &NetApp, refused: &[&str], accepted: &[&str], code: &str) {
    let all: Vec<&str> = refused.iter().chain(accepted).copied().collect();
    let response = app
        .post_response("/api/v1/broadcasts", &promo_broadcast(&all))
        .await;
    let status = response.status();
    let created: Value = response.json().await.unwrap();
    assert_eq!(status, 202, "{created}");
    assert_eq!(created["accepted"], accepted.len(), "{created}");
    let rejected = created["rejected"].as_array().unwrap();
    assert_eq!(rejected.len(), refused.len(), "{created}");
    for row in rejected {
        assert_eq!(row["errors"][0]["field"], "to", "{created}");
        let message = row["errors"][0]["message"].as_str().unwrap();
        assert!(message.starts_with(code), "{created}");
    }
}

/// The attacker's case: a number opted in by the organization; the network reports that person's stop by
/// their business-scoped user id alone; an inbound message from the number carries the id. The two records
/// are one contact now, stopped: a marketing send, a dry run and a broadcast row to the number (or to the id)
/// are all refused `recipient_opted_out`; other templates still go.
async fn a_stop_by_user_id_alone_refuses_marketing_to_the_paired_number(db: Db) {
    let app = app(db).await;
    let number = "+15552220003";
    let user = "US.99900031";
    // The organization's own record of the number: opted out, then back in.
    for change in ["opt-out", "opt-in"] {
        let answer = app
            .post_response(&format!("{}/{change}", path(number)), &json!({}))
            .await;
        assert_eq!(answer.status(), 200, "{change}");
    }
    assert_eq!(app.get(&path(number)).await["marketing"], "allowed");

    let answer = simulator(
        &app,
        "user-preferences",
        json!({ "to": SENDER, "user_id": user, "value": "stop" }),
    )
    .await;
    assert_eq!(answer["delivered"], true, "{answer}");
    wait_contact(&app, user, |c| c["marketing"] == "stopped").await;
    simulator(
        &app,
        "inbound",
        json!({ "from": number, "to": SENDER, "text": "hi", "user_id": user }),
    )
    .await;
    let merged = wait_contact(&app, number, |c| c["user_id"] == user).await;
    assert_eq!(
        merged["marketing"], "stopped",
        "one person, one contact: {merged}"
    );
    assert_eq!(merged["marketing_source"], "network", "{merged}");
    let by_user = app.get(&format!("/api/v1/contacts/{user}")).await;
    assert_eq!(by_user["number"], number, "{by_user}");
    assert_eq!(by_user["marketing"], "stopped", "{by_user}");

    for to in [number, user] {
        let refused = app
            .post_response("/api/v1/messages/send-template", &promo(to))
            .await;
        assert_problem(refused, 422, "recipient_opted_out").await;
        let run = dry_run(&app, "/api/v1/messages/send-template", &promo(to)).await;
        assert_eq!(run["would_accept"], false, "{run}");
        assert_eq!(run["refusals"][0]["code"], "recipient_opted_out", "{run}");
    }
    assert_eq!(message_count(&app).await, 0, "refused sends store nothing");
    assert_broadcast_refuses(&app, &[number, user], &["US.55500011"], "recipient_opted_out").await;
    let utility = app.send("/api/v1/messages/send-template", hello(number)).await;
    app.wait_status(utility["id"].as_str().unwrap(), "delivered")
        .await;
}

/// The same for a block: a person blocked by user id alone (they wrote by it), whose number the
/// organization already had a contact for, is refused every send to the number once a message pairs them.
async fn a_block_by_user_id_alone_refuses_every_send_to_the_paired_number(db: Db) {
    let app = app(db).await;
    let number = "+15552220004";
    let user = "US.99900041";
    for change in ["opt-out", "opt-in"] {
        let answer = app
            .post_response(&format!("{}/{change}", path(number)), &json!({}))
            .await;
        assert_eq!(answer.status(), 200, "{change}");
    }
    simulator(
        &app,
        "inbound",
        json!({ "to": SENDER, "text": "hello", "user_id": user }),
    )
    .await;
    wait_contact(&app, user, |c| c["window"]["open"] == true).await;
    let blocked = app
        .post_response(&format!("/api/v1/contacts/{user}/block"), &json!({}))
        .await;
    assert_eq!(blocked.status(), 200);
    assert_eq!(app.get(&path(number)).await["blocked"], false, "not paired yet");

    simulator(
        &app,
        "inbound",
        json!({ "from": number, "to": SENDER, "text": "it is me", "user_id": user }),
    )
    .await;
    let merged = wait_contact(&app, number, |c| c["user_id"] == user).await;
    assert_eq!(merged["blocked"], true, "one person, one contact: {merged}");

    for (operation, body) in [
        ("send-text", json!({ "to": number, "message": "hello" })),
        ("send-template", hello(number)),
        ("send-template", promo(number)),
    ] {
        let path = format!("/api/v1/messages/{operation}");
        let refused = app.post_response(&path, &body).await;
        assert_problem(refused, 422, "recipient_blocked").await;
        let run = dry_run(&app, &path, &body).await;
        assert_eq!(run["refusals"][0]["code"], "recipient_blocked", "{run}");
    }
    assert_eq!(message_count(&app).await, 0, "refused sends store nothing");
    assert_broadcast_refuses(&app, &[number], &["+15552220005"], "recipient_blocked").await;
}

/// Meta's `wa_id` of a Mexican mobile may carry the old `1` (docs/cloud-api.md §4.6): a stop reported under
/// it refuses a marketing send to the number without it, and one recorded without it refuses the `1` form;
/// a broadcast names the person once.
async fn a_stop_under_one_national_variant_refuses_sends_to_the_other(db: Db) {
    let app = app(db).await;
    let wa_id = "+5215512345678";
    let dialled = "+525512345678";
    simulator(
        &app,
        "user-preferences",
        json!({ "to": SENDER, "from": wa_id, "value": "stop" }),
    )
    .await;
    wait_contact(&app, wa_id, |c| c["marketing"] == "stopped").await;
    assert_eq!(app.get(&path(dialled)).await["marketing"], "stopped");
    let refused = app
        .post_response("/api/v1/messages/send-template", &promo(dialled))
        .await;
    assert_problem(refused, 422, "recipient_opted_out").await;
    let run = dry_run(&app, "/api/v1/messages/send-template", &promo(dialled)).await;
    assert_eq!(run["refusals"][0]["code"], "recipient_opted_out", "{run}");
    assert_broadcast_refuses(&app, &[dialled], &["+5491123456789"], "recipient_opted_out").await;

    // Argentina the other way round: recorded without the `9`, sent to the `wa_id` with it.
    let opted_out = app
        .post_response(&format!("{}/opt-out", path("+541187654321")), &json!({}))
        .await;
    assert_eq!(opted_out.status(), 200);
    let refused = app
        .post_response("/api/v1/messages/send-template", &promo("+5491187654321"))
        .await;
    assert_problem(refused, 422, "recipient_opted_out").await;

    // Brazil's ninth digit: two forms of one person in one broadcast are one recipient.
    let response = app
        .post_response(
            "/api/v1/broadcasts",
            &promo_broadcast(&["+5521987654321", "+552187654321"]),
        )
        .await;
    let created: Value = response.json().await.unwrap();
    assert_eq!(created["accepted"], 1, "{created}");
    assert!(
        created["rejected"][0]["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("row 0"),
        "{created}"
    );
}

/// Opting out someone already stopped (or in someone allowed) changes nothing and announces nothing; the
/// answer is the contact as it is.
async fn opting_out_twice_records_one_change(db: Db) {
    let app = app(db).await;
    let receiver = spawn_receiver(&[], Answer::Status(204));
    let created = app
        .post_response(
            "/api/v1/webhooks",
            &json!({ "url": receiver.url, "events": ["contact.preferences"] }),
        )
        .await;
    assert_eq!(created.status(), 201);
    let to = "+15552220006";
    let mut answers = Vec::new();
    for change in ["opt-in", "opt-out", "opt-out", "opt-in", "opt-in"] {
        let answer = app
            .post_response(&format!("{}/{change}", path(to)), &json!({}))
            .await;
        assert_eq!(answer.status(), 200, "{change}");
        answers.push(answer.json::<Value>().await.unwrap());
    }
    assert_eq!(answers[0]["marketing"], "allowed");
    assert_eq!(
        answers[0]["marketing_changed_at"],
        Value::Null,
        "nothing to change"
    );
    assert_eq!(answers[2]["marketing"], "stopped");
    assert_eq!(
        answers[2]["marketing_changed_at"], answers[1]["marketing_changed_at"],
        "the second opt-out changed nothing"
    );
    assert_eq!(
        answers[4]["marketing_changed_at"],
        answers[3]["marketing_changed_at"]
    );

    receiver
        .wait_until(Duration::from_secs(15), |r| r.len() >= 2)
        .await;
    // Give a wrongly sent third event the time to arrive.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let requests = receiver.requests();
    let seen: Vec<String> = requests
        .iter()
        .map(|r| r.json()["data"]["marketing"].as_str().unwrap().to_owned())
        .collect();
    let mut sorted = seen.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, ["allowed", "stopped"], "one event per change: {seen:?}");
}

/// `DELETE /api/v1/contacts/{recipient}` (docs/api.md §7.2) end to end: a delivered template to the person
/// is kept with its status and type but `to` becomes the marker and its content goes; erasing again (by the
/// number's other national form) answers the same marker with nothing new; a person never known is `404`
/// with nothing stored; usage is unchanged. (The scan of every column is the store test's, on both stores.)
async fn erasing_a_person_keeps_their_messages_under_a_marker_and_is_idempotent(db: Db) {
    let app = app(db).await;
    let sent = app
        .send("/api/v1/messages/send-template", hello("+525512345678"))
        .await;
    let id = sent["id"].as_str().unwrap().to_owned();
    app.wait_status(&id, "delivered").await;
    let usage_before = app.get("/api/v1/usage").await;
    let erase = |recipient: &str| {
        app.http
            .delete(format!("{}{}", app.base, path(recipient)))
            .bearer_auth(&app.key)
            .send()
    };
    let first = erase("+525512345678").await.unwrap();
    assert_eq!(first.status(), 200);
    let first: Value = first.json().await.unwrap();
    let marker = first["erased"].as_str().unwrap().to_owned();
    assert!(marker.starts_with("erased:") && marker.len() == 71, "{first}");
    assert_eq!(first["messages"], 1, "{first}");
    let kept = app.get(&format!("/api/v1/messages/{id}")).await;
    assert_eq!(kept["to"], marker.as_str(), "{kept}");
    assert_eq!(kept["status"], "delivered", "{kept}");
    assert_eq!(kept["type"], "template", "{kept}");
    assert_eq!(kept["template"], Value::Null, "the content is gone: {kept}");
    let again = erase("+5215512345678").await.unwrap();
    assert_eq!(again.status(), 200);
    let again: Value = again.json().await.unwrap();
    assert_eq!(again["erased"], marker.as_str(), "{again}");
    assert_eq!(again["messages"], 0, "{again}");
    let unknown = erase("+447700900123").await.unwrap();
    assert_problem(unknown, 404, "not_found").await;
    let unknown = erase("+447700900123").await.unwrap();
    assert_problem(unknown, 404, "not_found").await;
    assert_eq!(app.get("/api/v1/usage").await, usage_before, "usage is unchanged");
}

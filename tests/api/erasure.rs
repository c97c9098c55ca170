//! Erasing a person end to end beyond the tables (docs/api.md §7.2): after an erasure no file under the media
//! directory holds the person's bytes (a file sent to them, a picture they sent) or their number, while
//! another person's file stays; and a suspended or
//! closed organization may still erase (no `403 account_inactive`), while its other calls are refused — on
//! both stores. (The scan of every column is the store test's; the dashboard's erasure is
//! `dashboard_erase.rs`.)

use crate::files::{file_part, post_signed_callback, upload_to_simulator};
use crate::helpers::{Db, assert_problem};
use crate::network::{NetApp, spawn};
use herald_domain::organization::AccountStatus;
use herald_testkit::files;
use reqwest::multipart::Form;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

on_both_stores!(
    an_erasure_leaves_none_of_the_persons_bytes_in_the_media_directory,
    a_suspended_or_closed_organization_may_still_erase_a_person,
);

const ERASED: &str = "+15551230077";
const OTHER: &str = "+15551230088";

fn contact_path(number: &str) -> String {
    format!("/api/v1/contacts/{}", number.replace('+', "%2B"))
}

async fn erase(app: &NetApp, number: &str) -> reqwest::Response {
    app.http
        .delete(format!("{}{}", app.base, contact_path(number)))
        .bearer_auth(&app.key)
        .send()
        .await
        .unwrap()
}

/// Every file under `root`, at any depth (staging included).
fn every_file(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                found.push(path);
            }
        }
    }
    found
}

/// A PNG a person was sent, which names them (an invoice would): the number is in its bytes, so a file left
/// behind would hold the number as well as the picture.
fn picture_for(number: &str) -> Vec<u8> {
    let mut bytes = files::padded(files::png(), 2_000);
    bytes.extend_from_slice(format!("invoice for {number}").as_bytes());
    bytes
}

/// Sends `bytes` to `number` as a file and waits until it is delivered; answers the upload's id.
async fn send_picture(app: &NetApp, number: &str, bytes: Vec<u8>) -> String {
    app.open_window_with(number).await;
    let form = Form::new()
        .text("to", number.to_owned())
        .text("caption", format!("Your invoice, {number}"))
        .part("file", file_part(bytes, "invoice.png", "image/png"));
    let accepted = app.accepted_form("/api/v1/messages/send-file", form).await;
    app.wait_status(accepted["id"].as_str().unwrap(), "delivered")
        .await;
    accepted["media"]["id"].as_str().unwrap().to_owned()
}

/// The person sends a picture (the network's webhook, signed, pointing at the bytes the simulator holds), and
/// the organization reads it through Herald (streamed from the network); answers its media id.
async fn receive_picture(app: &NetApp, number: &str, bytes: Vec<u8>) -> String {
    let network_id = upload_to_simulator(app, bytes.clone(), "image/png").await;
    let fixtures: Value =
        serde_json::from_str(include_str!("../../fixtures/cloud-api/message.json")).unwrap();
    let mut envelope = fixtures["image"].clone();
    let value = &mut envelope["entry"][0]["changes"][0]["value"];
    let digits = number.trim_start_matches('+');
    value["metadata"]["phone_number_id"] = json!("1000000001");
    value["contacts"][0]["wa_id"] = json!(digits);
    let message = &mut value["messages"][0];
    message["from"] = json!(digits);
    message["id"] = json!(format!("wamid.picture-from-{digits}"));
    message["timestamp"] = json!(chrono::Utc::now().timestamp().to_string());
    message["image"] = json!({ "mime_type": "image/png", "id": network_id });
    post_signed_callback(app, serde_json::to_vec(&envelope).unwrap()).await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let media_id = loop {
        let inbound = app.get("/api/v1/inbound?type=image").await;
        if let Some(id) = inbound["data"][0]["media"]["id"].as_str() {
            break id.to_owned();
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no inbound picture: {inbound}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    let content = app
        .get_response(&format!("/api/v1/media/{media_id}/content"))
        .await;
    assert_eq!(content.status(), 200);
    assert_eq!(content.bytes().await.unwrap().to_vec(), bytes);
    media_id
}

fn holds(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|window| window == needle)
}

async fn an_erasure_leaves_none_of_the_persons_bytes_in_the_media_directory(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    let erased_bytes = picture_for(ERASED);
    let other_bytes = picture_for(OTHER);
    send_picture(&app, ERASED, erased_bytes.clone()).await;
    let mut received_bytes = files::padded(files::png(), 3_000);
    received_bytes.extend_from_slice(format!("a photo from {ERASED}").as_bytes());
    let received = receive_picture(&app, ERASED, received_bytes.clone()).await;
    let other_upload = send_picture(&app, OTHER, other_bytes.clone()).await;
    let root = app.media_root().to_path_buf();
    let contents = || -> Vec<(PathBuf, Vec<u8>)> {
        every_file(&root)
            .into_iter()
            .map(|path| {
                let bytes = std::fs::read(&path).unwrap();
                (path, bytes)
            })
            .collect()
    };
    // The scan can see them: both files are on disk before.
    let before = contents();
    assert!(before.iter().any(|(_, b)| *b == erased_bytes), "{before:?}");
    // A received file is streamed from the network when read, never kept in the media directory.
    assert!(before.iter().all(|(_, b)| *b != received_bytes), "{before:?}");
    assert!(before.iter().any(|(_, b)| *b == other_bytes));

    let answer = erase(&app, ERASED).await;
    assert_eq!(answer.status(), 200);
    let answer: Value = answer.json().await.unwrap();
    assert_eq!(answer["files"], 1, "the file sent to them: {answer}");

    let after = contents();
    let number = ERASED.as_bytes();
    let digits = ERASED.trim_start_matches('+').as_bytes();
    for (path, bytes) in &after {
        assert_ne!(
            *bytes,
            erased_bytes,
            "{} holds the erased person's file",
            path.display()
        );
        assert_ne!(
            *bytes,
            received_bytes,
            "{} holds the erased person's picture",
            path.display()
        );
        assert!(
            !holds(bytes, number) && !holds(bytes, digits),
            "{} holds the erased person's number",
            path.display()
        );
    }
    assert!(
        after.iter().any(|(_, b)| *b == other_bytes),
        "the other person's file is still there"
    );
    assert_eq!(
        after.len(),
        before.len() - 1,
        "only the erased person's file went"
    );
    // Nor can the organization read the picture they sent through Herald any more.
    let picture = app
        .get_response(&format!("/api/v1/media/{received}/content"))
        .await;
    assert_problem(picture, 404, "not_found").await;
    let other = app
        .get_response(&format!("/api/v1/media/{other_upload}/content"))
        .await;
    assert_eq!(other.status(), 200);
    assert_eq!(other.bytes().await.unwrap().to_vec(), other_bytes);
}

async fn a_suspended_or_closed_organization_may_still_erase_a_person(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    let sent = app
        .send(
            "/api/v1/messages/send-template",
            json!({ "to": ERASED, "template": { "name": "hello_world", "language": "en_US" } }),
        )
        .await;
    let id = sent["id"].as_str().unwrap().to_owned();
    app.wait_status(&id, "delivered").await;
    let admin = app.services.admin();

    admin
        .set_account_status(&app.org, AccountStatus::Suspended)
        .await
        .unwrap();
    let refused = app.get_response(&contact_path(ERASED)).await;
    assert_problem(refused, 403, "account_inactive").await;
    let erased = erase(&app, ERASED).await;
    assert_eq!(erased.status(), 200, "a suspended organization erases");
    let erased: Value = erased.json().await.unwrap();
    assert_eq!(erased["messages"], 1, "{erased}");

    admin
        .set_account_status(&app.org, AccountStatus::Closed)
        .await
        .unwrap();
    let again = erase(&app, ERASED).await;
    assert_eq!(again.status(), 200, "a closed organization erases");
    let again: Value = again.json().await.unwrap();
    assert_eq!(again["erased"], erased["erased"], "{again}");
    // Nobody by that id is still `404`, and a disabled key is still refused.
    assert_problem(erase(&app, OTHER).await, 404, "not_found").await;
    let keys = admin.list_keys(&app.org).await.unwrap();
    admin.disable_key(&keys[0].id).await.unwrap();
    assert_problem(erase(&app, ERASED).await, 401, "api_key_disabled").await;

    admin
        .set_account_status(&app.org, AccountStatus::Active)
        .await
        .unwrap();
    let (_, key) = admin.create_key(&app.org, None).await.unwrap();
    let kept: Value = app
        .http
        .get(format!("{}/api/v1/messages/{id}", app.base))
        .bearer_auth(key.expose())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(kept["to"], erased["erased"], "{kept}");
}

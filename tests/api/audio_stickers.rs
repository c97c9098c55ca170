//! Audio and stickers end to end (docs/api.md §4.3, §4.5): real Ogg Opus, MP3, M4A and WebP bytes uploaded
//! and sent through `send-file` (multipart and `media_id`) until the simulator delivers them in Meta's exact
//! shape; each kind's own size limit, a caption on them, a non-Opus Ogg and a template header refused with
//! nothing stored — on both stores.

use crate::files::{file_part, files_under, streamed};
use crate::helpers::{Db, assert_problem};
use crate::network::{NetApp, spawn};
use herald_testkit::files;
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};

on_both_stores!(
    audio_and_stickers_are_delivered_in_metas_shape,
    each_kind_is_held_to_its_own_limit,
    captions_other_oggs_and_template_headers_are_refused,
);

const RECIPIENT: &str = "+15551230002";
const MB: usize = 1_000_000;

/// Waits until `id` is delivered and checks the simulator received exactly Meta's body for it: the type,
/// and an object holding the network's media id and nothing else (no caption, no filename).
async fn assert_delivered_by_id(app: &NetApp, id: &str, kind: &str) {
    app.wait_status(id, "delivered").await;
    let sent = app.sent_for(id).await;
    let network_id = sent[kind]["id"].clone();
    assert!(network_id.is_string(), "sent by the network's media id: {sent}");
    assert_eq!(
        sent,
        json!({
            "messaging_product": "whatsapp",
            "recipient_type": "individual",
            "to": RECIPIENT,
            "type": kind,
            kind: { "id": network_id },
            "biz_opaque_callback_data": id,
        })
    );
}

async fn upload(app: &NetApp, bytes: Vec<u8>, name: &str, mime: &str) -> Value {
    let response = app
        .post_form(
            "/api/v1/media",
            Form::new().part("file", file_part(bytes, name, mime)),
        )
        .await;
    assert_eq!(response.status(), 201, "{}", response.text().await.unwrap());
    response.json().await.unwrap()
}

async fn audio_and_stickers_are_delivered_in_metas_shape(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    app.open_window_with(RECIPIENT).await;

    // Uploaded once, sent by `media_id`: the upload's kind is the message's.
    let cases = [
        (files::ogg_opus(), "voice.ogg", "audio/ogg", "audio", "audio/ogg"),
        (
            files::webp_animated(),
            "party.webp",
            "image/webp",
            "sticker",
            "image/webp",
        ),
    ];
    for (bytes, name, declared, kind, judged) in cases {
        let stored = upload(&app, bytes.clone(), name, declared).await;
        assert_eq!(stored["kind"], kind, "{stored}");
        assert_eq!(stored["mime_type"], judged, "{stored}");
        assert_eq!(stored["size"], bytes.len(), "{stored}");
        let accepted = app
            .send(
                "/api/v1/messages/send-file",
                json!({ "to": RECIPIENT, "media_id": stored["id"] }),
            )
            .await;
        assert_eq!(accepted["type"], kind, "{accepted}");
        assert_eq!(accepted["media"]["type"], kind, "{accepted}");
        assert_eq!(accepted["media"]["id"], stored["id"], "{accepted}");
        assert!(accepted["caption"].is_null(), "{accepted}");
        assert!(accepted["media"]["filename"].is_null(), "{accepted}");
        assert_delivered_by_id(&app, accepted["id"].as_str().unwrap(), kind).await;
    }

    // Sent with the request (multipart), each judged from its bytes whatever the part declares.
    let cases = [
        (files::ogg_opus(), "note.opus", "audio/opus", "audio"),
        (files::mp3_id3(), "song.mp3", "audio/mpeg", "audio"),
        (files::m4a(), "memo.m4a", "audio/x-m4a", "audio"),
        (files::aac_adts(), "clip.aac", "application/octet-stream", "audio"),
        (files::amr(), "call.amr", "audio/amr", "audio"),
        (files::webp_static(), "smile.webp", "image/webp", "sticker"),
    ];
    for (bytes, name, declared, kind) in cases {
        let form = Form::new()
            .text("to", RECIPIENT)
            .text("client_reference", format!("ref-{name}"))
            .part("file", file_part(bytes, name, declared));
        let accepted = app.accepted_form("/api/v1/messages/send-file", form).await;
        assert_eq!(accepted["type"], kind, "{name}: {accepted}");
        assert!(accepted["media"]["filename"].is_null(), "{accepted}");
        assert_delivered_by_id(&app, accepted["id"].as_str().unwrap(), kind).await;
    }

    // The log filters by the new types.
    let stickers = app.get("/api/v1/messages?type=sticker").await;
    assert_eq!(stickers["data"].as_array().unwrap().len(), 2, "{stickers}");
    let audio = app.get("/api/v1/messages?type=audio").await;
    assert_eq!(audio["data"].as_array().unwrap().len(), 6, "{audio}");
}

/// Sends a file of `len` bytes starting with `head` through the multipart front; the problem body.
async fn send_oversized(app: &NetApp, head: Vec<u8>, len: usize, mime: &str) -> Option<Value> {
    let part = Part::stream_with_length(streamed(head, len), len as u64)
        .file_name("big")
        .mime_str(mime)
        .unwrap();
    let form = Form::new().text("to", RECIPIENT).part("file", part);
    let response = app
        .http
        .post(format!("{}/api/v1/messages/send-file", app.base))
        .bearer_auth(&app.key)
        .multipart(form)
        .send()
        .await;
    // The server answers as soon as the limit is passed; a client still writing may see the connection
    // close first. Either way nothing may be stored.
    match response {
        Ok(response) => Some(assert_problem(response, 413, "payload_too_large").await),
        Err(error) => {
            eprintln!("{mime}: the connection closed before the answer was read ({error})");
            None
        }
    }
}

async fn each_kind_is_held_to_its_own_limit(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    app.open_window_with(RECIPIENT).await;
    let cases = [
        (
            files::webp_static(),
            100_001,
            "image/webp",
            "a static sticker",
            "100000",
        ),
        (
            files::webp_animated(),
            500_001,
            "image/webp",
            "an animated sticker",
            "500000",
        ),
        (
            files::ogg_opus(),
            17 * MB,
            "audio/ogg",
            "an audio file",
            "16000000",
        ),
    ];
    for (head, len, mime, what, limit) in cases {
        if let Some(problem) = send_oversized(&app, head, len, mime).await {
            let detail = problem["detail"].as_str().unwrap();
            assert!(detail.contains(what) && detail.contains(limit), "{detail}");
        }
    }
    assert_eq!(app.message_count().await, 0);
    assert_eq!(files_under(app.media_root()), Vec::<String>::new());

    // A static sticker's limit does not bind an animated one, and each limit is inclusive.
    for (file, len) in [(files::webp_animated(), 400_000), (files::webp_static(), 100_000)] {
        let form = Form::new().text("to", RECIPIENT).part(
            "file",
            file_part(files::padded(file, len), "edge.webp", "image/webp"),
        );
        let accepted = app.accepted_form("/api/v1/messages/send-file", form).await;
        assert_eq!(accepted["type"], "sticker", "{accepted}");
    }
}

async fn captions_other_oggs_and_template_headers_are_refused(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    app.open_window_with(RECIPIENT).await;

    // A sticker with a caption, sent with its file: refused, and the file not kept.
    let form = Form::new()
        .text("to", RECIPIENT)
        .text("caption", "Party!")
        .part("file", file_part(files::webp_static(), "s.webp", "image/webp"));
    let response = app.post_form("/api/v1/messages/send-file", form).await;
    let problem = assert_problem(response, 422, "validation_failed").await;
    assert_eq!(problem["errors"][0]["field"], "caption", "{problem}");
    assert_eq!(files_under(app.media_root()), Vec::<String>::new());

    // An uploaded voice note named with a caption or a filename.
    let stored = upload(&app, files::ogg_opus(), "voice.ogg", "audio/ogg").await;
    for (extra, value) in [("caption", "Listen"), ("filename", "voice.ogg")] {
        let mut body = json!({ "to": RECIPIENT, "media_id": stored["id"] });
        body[extra] = value.into();
        let response = app.post_response("/api/v1/messages/send-file", &body).await;
        let problem = assert_problem(response, 422, "validation_failed").await;
        assert_eq!(problem["errors"][0]["field"], extra, "{problem}");
    }

    // Ogg is taken with the Opus codec only.
    for path in ["/api/v1/media", "/api/v1/messages/send-file"] {
        let mut form = Form::new().part("file", file_part(files::ogg_vorbis(), "song.ogg", "audio/ogg"));
        if path.ends_with("send-file") {
            form = form.text("to", RECIPIENT);
        }
        let response = app.post_form(path, form).await;
        let problem = assert_problem(response, 415, "unsupported_file_type").await;
        let detail = problem["detail"].as_str().unwrap();
        assert!(detail.contains("Opus"), "{detail}");
    }

    // A template's media header is a document, image or video: audio there is a mismatch, by upload
    // and by file.
    let template = json!({
        "to": RECIPIENT,
        "template": { "name": "invoice_ready", "language": "en_US" },
        "variables": ["INV-7"],
    });
    let form = Form::new()
        .text("template", template.to_string())
        .part("file", file_part(files::ogg_opus(), "voice.ogg", "audio/ogg"));
    let response = app.post_form("/api/v1/messages/send-template-media", form).await;
    assert_problem(response, 422, "header_media_mismatch").await;
    let response = app
        .post_response(
            "/api/v1/messages/send-template",
            &json!({
                "to": RECIPIENT,
                "template": { "name": "invoice_ready", "language": "en_US" },
                "variables": { "header": { "type": "document", "media_id": stored["id"] }, "body": ["x"] },
            }),
        )
        .await;
    assert_problem(response, 422, "header_media_mismatch").await;

    assert_eq!(app.message_count().await, 0);
    // Only the one upload is held.
    assert_eq!(files_under(app.media_root()).len(), 1);
}

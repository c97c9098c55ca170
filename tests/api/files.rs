//! Files end to end (docs/api.md §4.3–§4.5, §9): real small files of every kind uploaded through the multipart
//! front, sent through the real Cloud API client to the in-process simulator (uploaded to its media
//! endpoint, then sent by id) until `delivered`; spoofed and oversized files refused with nothing left
//! behind; inbound media from the network's own webhook fixtures read back — on both stores.

use crate::helpers::{Db, assert_problem};
use crate::network::{NetApp, spawn};
use futures::StreamExt as _;
use herald_testkit::files;
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;

on_both_stores!(
    every_kind_of_file_is_delivered_with_its_caption_and_name,
    an_upload_is_sent_many_times_and_reaches_the_network_once,
    templates_take_a_header_file_of_their_own_kind,
    spoofed_files_are_refused_and_leave_nothing_behind,
    oversized_files_are_refused_while_they_stream,
    a_refused_send_leaves_no_file_and_no_message,
    bad_forms_get_the_contract_codes,
    inbound_media_from_the_network_fixtures_can_be_downloaded,
    expired_uploads_go_with_the_bytes_nothing_else_needs,
    forms_are_bounded_as_a_whole_and_by_the_plan,
    uploads_stop_at_the_plans_media_storage,
);

const RECIPIENT: &str = "+15551230001";
const MB: usize = 1_000_000;

pub(crate) fn file_part(bytes: Vec<u8>, name: &str, mime: &str) -> Part {
    Part::bytes(bytes)
        .file_name(name.to_owned())
        .mime_str(mime)
        .unwrap()
}

impl NetApp {
    pub(crate) async fn post_form(&self, path: &str, form: Form) -> reqwest::Response {
        self.http
            .post(format!("{}{path}", self.base))
            .bearer_auth(&self.key)
            .multipart(form)
            .send()
            .await
            .unwrap()
    }

    pub(crate) async fn accepted_form(&self, path: &str, form: Form) -> Value {
        let response = self.post_form(path, form).await;
        assert_eq!(response.status(), 202, "{}", response.text().await.unwrap());
        response.json().await.unwrap()
    }

    /// Opens the service window with `number` the way the network does: the simulator delivers an inbound
    /// message from it (so the simulator's own window check passes too), and Herald records it.
    pub(crate) async fn open_window_with(&self, number: &str) {
        let response = self
            .http
            .post(format!("{}/simulator/control/inbound", self.base))
            .json(&json!({ "from": number, "to": "+15550001111", "text": "hello" }))
            .send()
            .await
            .unwrap();
        assert!(
            response.status().is_success(),
            "{}",
            response.text().await.unwrap()
        );
        let path = format!("/api/v1/contacts/{}/window", number.replace('+', "%2B"));
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while self.get(&path).await["open"] != true {
            assert!(
                std::time::Instant::now() < deadline,
                "the window with {number} never opened"
            );
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    /// The request body of the send the simulator received for `message_id`, as it came over the wire.
    pub(crate) async fn sent_for(&self, message_id: &str) -> Value {
        self.simulator_sent()
            .await
            .into_iter()
            .find(|r| r["biz_opaque_callback_data"] == message_id)
            .unwrap_or_else(|| panic!("the simulator holds no send of {message_id}"))["request"]
            .clone()
    }

    pub(crate) fn media_root(&self) -> &Path {
        self.services.files.root()
    }

    pub(crate) async fn message_count(&self) -> usize {
        self.get("/api/v1/messages?limit=200").await["data"]
            .as_array()
            .unwrap()
            .len()
    }
}

/// Files stored under the media root, staging included (each `(dir/name, size)`).
pub(crate) fn files_under(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let Ok(dirs) = std::fs::read_dir(root) else {
        return out;
    };
    for dir in dirs.flatten() {
        if let Ok(entries) = std::fs::read_dir(dir.path()) {
            for entry in entries.flatten() {
                out.push(format!(
                    "{}/{}",
                    dir.file_name().to_string_lossy(),
                    entry.file_name().to_string_lossy()
                ));
            }
        }
    }
    out.sort();
    out
}

async fn every_kind_of_file_is_delivered_with_its_caption_and_name(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    app.open_window_with(RECIPIENT).await;
    let cases = [
        (files::pdf(), "invoice.pdf", "application/pdf", "document"),
        (files::jpeg(), "photo.jpg", "image/jpeg", "image"),
        (files::png(), "chart.png", "image/png", "image"),
        (files::mp4(), "clip.mp4", "video/mp4", "video"),
        (files::three_gp(), "clip.3gp", "video/3gpp", "video"),
    ];
    for (bytes, name, mime, kind) in cases {
        let caption = format!("Here is your {name}");
        let form = Form::new()
            .text("to", RECIPIENT)
            .text("caption", caption.clone())
            .text("client_reference", format!("ref-{name}"))
            .part("file", file_part(bytes.clone(), name, mime));
        let accepted = app.accepted_form("/api/v1/messages/send-file", form).await;
        assert_eq!(accepted["type"], kind, "{accepted}");
        assert_eq!(accepted["status"], "accepted");
        assert_eq!(accepted["caption"], caption.as_str());
        assert!(
            accepted["media"]["id"].as_str().unwrap().starts_with("med_"),
            "{accepted}"
        );
        let id = accepted["id"].as_str().unwrap();

        app.wait_status(id, "delivered").await;

        let sent = app.sent_for(id).await;
        assert_eq!(sent["type"], kind, "{sent}");
        let object = &sent[kind];
        assert!(object["id"].is_string(), "sent by the network's media id: {sent}");
        assert!(object.get("link").is_none(), "{sent}");
        assert_eq!(object["caption"], caption.as_str(), "{sent}");
        if kind == "document" {
            assert_eq!(object["filename"], name, "{sent}");
        } else {
            assert!(object.get("filename").is_none(), "{sent}");
        }
        // The simulator holds the very bytes that were uploaded.
        let media_id = object["id"].as_str().unwrap();
        let downloaded = download_from_simulator(&app, media_id).await;
        assert_eq!(downloaded, bytes, "{name}: the network got other bytes");
    }
}

/// The bytes the simulator holds for one of its media ids, fetched the way the network serves them.
async fn download_from_simulator(app: &NetApp, media_id: &str) -> Vec<u8> {
    let meta: Value = app
        .http
        .get(format!("{}/simulator/v23.0/{media_id}", app.base))
        .bearer_auth(herald_simulator::DEFAULT_ACCESS_TOKEN)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    app.http
        .get(meta["url"].as_str().unwrap())
        .bearer_auth(herald_simulator::DEFAULT_ACCESS_TOKEN)
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap()
        .to_vec()
}

async fn an_upload_is_sent_many_times_and_reaches_the_network_once(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    let upload = app
        .post_form(
            "/api/v1/media",
            Form::new().part("file", file_part(files::pdf(), "terms.pdf", "application/pdf")),
        )
        .await;
    assert_eq!(upload.status(), 201);
    let location = upload.headers()["location"].to_str().unwrap().to_owned();
    let media: Value = upload.json().await.unwrap();
    assert_eq!(media["kind"], "document");
    assert_eq!(media["mime_type"], "application/pdf");
    assert_eq!(media["size"], files::pdf().len());
    assert_eq!(media["filename"], "terms.pdf");
    assert_eq!(
        media["sha256"],
        hex::encode(<sha2::Sha256 as sha2::Digest>::digest(files::pdf()))
    );
    let media_id = media["id"].as_str().unwrap();
    assert_eq!(location, format!("/api/v1/media/{media_id}/content"));
    let created = chrono::DateTime::parse_from_rfc3339(media["created_at"].as_str().unwrap()).unwrap();
    let expires = chrono::DateTime::parse_from_rfc3339(media["expires_at"].as_str().unwrap()).unwrap();
    assert_eq!(expires - created, chrono::TimeDelta::days(30));

    // The upload reads back as it was sent.
    let content = app.get_response(&location).await;
    assert_eq!(content.status(), 200);
    assert_eq!(content.headers()["content-type"], "application/pdf");
    assert!(
        content.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .contains("terms.pdf")
    );
    assert_eq!(content.bytes().await.unwrap().to_vec(), files::pdf());

    let mut network_ids = Vec::new();
    for (n, to) in ["+15551230011", "+15551230012", "+15551230013"]
        .into_iter()
        .enumerate()
    {
        app.open_window_with(to).await;
        let body = if n == 0 {
            json!({ "to": to, "media_id": media_id, "caption": "Our terms" })
        } else {
            json!({ "to": to, "media_id": media_id, "filename": "renamed.pdf" })
        };
        let accepted = app.send("/api/v1/messages/send-file", body).await;
        assert_eq!(
            accepted["type"], "document",
            "the kind is the upload's: {accepted}"
        );
        let id = accepted["id"].as_str().unwrap();
        app.wait_status(id, "delivered").await;
        let sent = app.sent_for(id).await;
        network_ids.push(sent["document"]["id"].as_str().unwrap().to_owned());
        let expected_name = if n == 0 { "terms.pdf" } else { "renamed.pdf" };
        assert_eq!(sent["document"]["filename"], expected_name, "{sent}");
    }
    network_ids.dedup();
    assert_eq!(
        network_ids.len(),
        1,
        "one upload to the network, reused: {network_ids:?}"
    );

    // Another organization's key cannot see the upload: it is another organization's id.
    let (other_org, other_key) = crate::helpers::new_org(&app.services, "business").await;
    crate::helpers::add_default_sender(&app.services, &other_org, "+15550002222", "1000000002", 80).await;
    let foreign = app
        .http
        .get(format!("{}{location}", app.base))
        .bearer_auth(&other_key)
        .send()
        .await
        .unwrap();
    assert_problem(foreign, 404, "not_found").await;
    let stolen = app
        .http
        .post(format!("{}/api/v1/messages/send-file", app.base))
        .bearer_auth(&other_key)
        .json(&json!({ "to": RECIPIENT, "media_id": media_id }))
        .send()
        .await
        .unwrap();
    let problem = assert_problem(stolen, 422, "validation_failed").await;
    assert_eq!(problem["errors"][0]["field"], "media_id", "{problem}");

    // A link needs its type; a media_id and a link together are refused.
    app.open_window_with(RECIPIENT).await;
    for (body, field) in [
        (
            json!({ "to": RECIPIENT, "link": "https://files.example.com/a.pdf" }),
            "type",
        ),
        (
            json!({ "to": RECIPIENT, "link": "https://files.example.com/a.pdf", "media_id": media_id }),
            "link",
        ),
        (json!({ "to": RECIPIENT }), "media_id"),
    ] {
        let response = app.post_response("/api/v1/messages/send-file", &body).await;
        let problem = assert_problem(response, 422, "validation_failed").await;
        assert!(
            problem["errors"]
                .as_array()
                .unwrap()
                .iter()
                .any(|e| e["field"] == field),
            "{problem}"
        );
    }
}

async fn templates_take_a_header_file_of_their_own_kind(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    let template = json!({
        "to": RECIPIENT,
        "template": { "name": "invoice_ready", "language": "en_US" },
        "variables": ["INV-7"],
    });
    let form = Form::new()
        .text("template", template.to_string())
        .part("file", file_part(files::pdf(), "INV-7.pdf", "application/pdf"));
    let accepted = app
        .accepted_form("/api/v1/messages/send-template-media", form)
        .await;
    assert_eq!(accepted["type"], "template");
    let id = accepted["id"].as_str().unwrap();
    app.wait_status(id, "delivered").await;
    let sent = app.sent_for(id).await;
    let header = &sent["template"]["components"][0];
    assert_eq!(header["type"], "header", "{sent}");
    assert_eq!(header["parameters"][0]["type"], "document", "{sent}");
    assert!(header["parameters"][0]["document"]["id"].is_string(), "{sent}");
    assert_eq!(
        header["parameters"][0]["document"]["filename"], "INV-7.pdf",
        "{sent}"
    );

    // A PNG for a document header.
    let form = Form::new()
        .text("template", template.to_string())
        .part("file", file_part(files::png(), "INV-7.png", "image/png"));
    let before = app.message_count().await;
    let mismatch = app.post_form("/api/v1/messages/send-template-media", form).await;
    assert_problem(mismatch, 422, "header_media_mismatch").await;
    assert_eq!(app.message_count().await, before);

    // An upload takes nothing but its file, and says so.
    let stray = app
        .post_form(
            "/api/v1/media",
            Form::new()
                .text("to", RECIPIENT)
                .part("file", file_part(files::jpeg(), "promo.jpg", "image/jpeg")),
        )
        .await;
    let problem = assert_problem(stray, 422, "validation_failed").await;
    assert_eq!(problem["errors"][0]["field"], "to", "{problem}");
    assert_eq!(
        problem["errors"][0]["message"], "is not a part of this form (it takes `file` only)",
        "{problem}"
    );

    // The JSON form names an upload.
    let upload: Value = app
        .post_form(
            "/api/v1/media",
            Form::new().part("file", file_part(files::jpeg(), "promo.jpg", "image/jpeg")),
        )
        .await
        .json()
        .await
        .unwrap();
    let accepted = app
        .send(
            "/api/v1/messages/send-template",
            json!({
                "to": RECIPIENT,
                "template": { "name": "promo_image", "language": "en_US" },
                "variables": {
                    "header": { "type": "image", "media_id": upload["id"] },
                    "body": ["20%"],
                },
            }),
        )
        .await;
    let id = accepted["id"].as_str().unwrap();
    app.wait_status(id, "delivered").await;
    let sent = app.sent_for(id).await;
    assert!(
        sent["template"]["components"][0]["parameters"][0]["image"]["id"].is_string(),
        "{sent}"
    );

    // The same upload declared as a document header is a mismatch too.
    let response = app
        .post_response(
            "/api/v1/messages/send-template",
            &json!({
                "to": RECIPIENT,
                "template": { "name": "invoice_ready", "language": "en_US" },
                "variables": { "header": { "type": "document", "media_id": upload["id"] }, "body": ["x"] },
            }),
        )
        .await;
    assert_problem(response, 422, "header_media_mismatch").await;
}

async fn spoofed_files_are_refused_and_leave_nothing_behind(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    app.open_window_with(RECIPIENT).await;
    let spoofs = [
        (files::text_posing_as_pdf(), "contract.pdf", "application/pdf"),
        (files::png(), "clip.mp4", "video/mp4"),
        (files::elf(), "setup.pdf", "application/octet-stream"),
    ];
    for (bytes, name, declared) in spoofs {
        for path in ["/api/v1/messages/send-file", "/api/v1/media"] {
            let mut form = Form::new().part("file", file_part(bytes.clone(), name, declared));
            if path.ends_with("send-file") {
                form = form.text("to", RECIPIENT);
            }
            let response = app.post_form(path, form).await;
            assert_problem(response, 415, "unsupported_file_type").await;
        }
    }
    assert_eq!(app.message_count().await, 0);
    assert_eq!(files_under(app.media_root()), Vec::<String>::new());
}

/// A body that starts as a file of some kind and goes on (zeros) for `len` bytes, generated as it is sent.
pub(crate) fn streamed(head: Vec<u8>, len: usize) -> reqwest::Body {
    let chunk = 256 * 1024;
    let mut sent = 0_usize;
    let mut head = Some(head);
    let stream = futures::stream::iter(std::iter::from_fn(move || {
        if sent >= len {
            return None;
        }
        let mut bytes = head.take().unwrap_or_default();
        let fill = chunk.min(len - sent).saturating_sub(bytes.len());
        bytes.resize(bytes.len() + fill, 0);
        sent += bytes.len();
        Some(Ok::<_, std::io::Error>(bytes))
    }));
    reqwest::Body::wrap_stream(stream)
}

/// The process's peak resident set (VmHWM), bytes. Each test runs in its own process under nextest, so
/// this is the server's and this test's memory together.
fn peak_rss() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    let kib: usize = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib * 1024
}

async fn oversized_files_are_refused_while_they_stream(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    app.open_window_with(RECIPIENT).await;
    let baseline = peak_rss();
    let cases = [
        (files::png(), 5 * MB + 1, "image/png"),
        (files::mp4(), 16 * MB + 1, "video/mp4"),
        (files::pdf(), 100 * MB + 1, "application/pdf"),
    ];
    for (head, len, mime) in cases {
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
        // The server answers as soon as the limit is passed; a client still writing may see the
        // connection close first. Either way nothing may be stored.
        match response {
            Ok(response) => {
                assert_problem(response, 413, "payload_too_large").await;
            }
            Err(error) => eprintln!("{mime}: the connection closed before the answer was read ({error})"),
        }
    }
    let growth = peak_rss().saturating_sub(baseline);
    eprintln!(
        "peak RSS {} MB before, {} MB after 121 MB of oversized uploads (+{} MB)",
        baseline / MB,
        peak_rss() / MB,
        growth / MB
    );
    assert!(
        growth < 40 * MB,
        "uploading 121 MB of oversized files grew the peak RSS by {} MB: uploads are being buffered",
        growth / MB
    );
    assert_eq!(app.message_count().await, 0);
    assert_eq!(files_under(app.media_root()), Vec::<String>::new());

    // Just under the image limit is fine.
    let form = Form::new().text("to", RECIPIENT).part(
        "file",
        file_part(files::padded(files::png(), 5 * MB), "edge.png", "image/png"),
    );
    app.accepted_form("/api/v1/messages/send-file", form).await;
}

async fn a_refused_send_leaves_no_file_and_no_message(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    // No window with this number: refused after the file streamed in.
    let form = Form::new()
        .text("to", "+15551239999")
        .part("file", file_part(files::jpeg(), "a.jpg", "image/jpeg"));
    let response = app.post_form("/api/v1/messages/send-file", form).await;
    assert_problem(response, 422, "service_window_closed").await;
    // A template that does not exist.
    let form = Form::new()
        .text(
            "template",
            json!({ "to": RECIPIENT, "template": { "name": "nope", "language": "en_US" } }).to_string(),
        )
        .part("file", file_part(files::pdf(), "a.pdf", "application/pdf"));
    let response = app.post_form("/api/v1/messages/send-template-media", form).await;
    assert_problem(response, 404, "template_not_found").await;
    assert_eq!(app.message_count().await, 0);
    assert_eq!(files_under(app.media_root()), Vec::<String>::new());
    assert_eq!(
        app.services
            .store
            .messages()
            .usage(
                &app.org,
                &herald_domain::time::BillingPeriod::containing(chrono::Utc::now())
            )
            .await
            .unwrap(),
        0
    );
}

async fn bad_forms_get_the_contract_codes(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    app.open_window_with(RECIPIENT).await;
    let jpeg = || file_part(files::jpeg(), "a.jpg", "image/jpeg");
    let cases: Vec<(Form, &str)> = vec![
        (Form::new().part("file", jpeg()), "to"),
        (Form::new().text("to", RECIPIENT), "file"),
        (
            Form::new()
                .text("to", RECIPIENT)
                .part("file", file_part(Vec::new(), "a.jpg", "image/jpeg")),
            "file",
        ),
        (
            Form::new()
                .text("to", RECIPIENT)
                .text("caption", "x".repeat(1025))
                .part("file", jpeg()),
            "caption",
        ),
        (Form::new().text("to", "0015551230001").part("file", jpeg()), "to"),
        (
            Form::new()
                .text("to", RECIPIENT)
                .text("colour", "red")
                .part("file", jpeg()),
            "colour",
        ),
    ];
    for (form, field) in cases {
        let response = app.post_form("/api/v1/messages/send-file", form).await;
        let problem = assert_problem(response, 422, "validation_failed").await;
        assert!(
            problem["errors"]
                .as_array()
                .unwrap()
                .iter()
                .any(|e| e["field"] == field),
            "expected an error on {field}: {problem}"
        );
    }
    // Neither multipart nor JSON.
    let plain = app
        .http
        .post(format!("{}/api/v1/messages/send-file", app.base))
        .bearer_auth(&app.key)
        .header("content-type", "text/plain")
        .body("hello")
        .send()
        .await
        .unwrap();
    assert_problem(plain, 415, "unsupported_media_type").await;
    // A multipart body that is not one.
    let broken = app
        .http
        .post(format!("{}/api/v1/media", app.base))
        .bearer_auth(&app.key)
        .header("content-type", "multipart/form-data; boundary=XYZ")
        .body("--XYZ\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nunterminated")
        .send()
        .await
        .unwrap();
    assert_problem(broken, 400, "invalid_json").await;
    // A plan without media answers before the body is read.
    let (_, trial_key) = crate::helpers::new_org(&app.services, "trial").await;
    let refused = app
        .http
        .post(format!("{}/api/v1/media", app.base))
        .bearer_auth(&trial_key)
        .multipart(Form::new().part("file", jpeg()))
        .send()
        .await
        .unwrap();
    assert_problem(refused, 403, "plan_forbids").await;
    // Without a key, nothing is read or stored.
    let anonymous = app
        .http
        .post(format!("{}/api/v1/media", app.base))
        .multipart(Form::new().part("file", jpeg()))
        .send()
        .await
        .unwrap();
    assert_problem(anonymous, 401, "unauthenticated").await;
    assert_eq!(app.message_count().await, 0);
    assert_eq!(files_under(app.media_root()), Vec::<String>::new());
}

async fn inbound_media_from_the_network_fixtures_can_be_downloaded(db: Db) {
    let app = spawn(
        db,
        |settings| {
            settings.webhooks.allow_insecure = true;
            settings.webhooks.allow_private_targets = true;
        },
        80,
    )
    .await;
    let receiver = crate::webhooks::spawn_receiver(&[], crate::webhooks::Answer::Status(200));
    let created = app
        .post_response(
            "/api/v1/webhooks",
            &json!({ "url": receiver.url, "events": ["message.inbound"] }),
        )
        .await;
    assert_eq!(created.status(), 201);

    let fixtures: Value =
        serde_json::from_str(include_str!("../../fixtures/cloud-api/message.json")).unwrap();
    let cases = [
        ("image", "image", files::jpeg(), "image/jpeg"),
        ("video", "video", files::mp4(), "video/mp4"),
        ("document", "document", files::pdf(), "application/pdf"),
        ("audio", "audio", b"OggS fake opus".to_vec(), "audio/ogg"),
        (
            "static_sticker",
            "sticker",
            b"RIFF\x10\0\0\0WEBPVP8 ".to_vec(),
            "image/webp",
        ),
    ];
    for (n, (fixture, kind, bytes, mime)) in cases.into_iter().enumerate() {
        // The network holds the file under an id of its own: upload it to the simulator as Meta would
        // have stored the user's file, and point the fixture's envelope at it.
        let network_id = upload_to_simulator(&app, bytes.clone(), mime).await;
        let mut envelope = fixtures[fixture].clone();
        let value = &mut envelope["entry"][0]["changes"][0]["value"];
        value["metadata"]["phone_number_id"] = json!("1000000001");
        let message = &mut value["messages"][0];
        message["id"] = json!(format!("wamid.fixture-{n}"));
        message["timestamp"] = json!(chrono::Utc::now().timestamp().to_string());
        message[kind]["id"] = json!(network_id);
        let body = serde_json::to_vec(&envelope).unwrap();
        post_signed_callback(&app, body).await;

        let requests = receiver
            .wait_until(Duration::from_secs(30), |r| r.len() > n)
            .await;
        let event = requests[n].json();
        assert_eq!(event["type"], "message.inbound", "{event}");
        let media = &event["data"]["media"];
        let media_id = media["id"]
            .as_str()
            .unwrap_or_else(|| panic!("no media.id: {event}"));
        assert!(media_id.starts_with("med_"), "{event}");
        assert!(media.get("mime_type").is_some(), "{event}");

        let content = app
            .get_response(&format!("/api/v1/media/{media_id}/content"))
            .await;
        assert_eq!(content.status(), 200, "{fixture}");
        assert_eq!(content.headers()["content-type"], mime, "{fixture}");
        let got: Vec<u8> = content
            .bytes_stream()
            .map(|chunk| chunk.unwrap().to_vec())
            .concat()
            .await;
        assert_eq!(got, bytes, "{fixture}: the downloaded bytes differ");

        // Another organization cannot read it.
        let (_, other_key) = crate::helpers::new_org(&app.services, "business").await;
        let foreign = app
            .http
            .get(format!("{}/api/v1/media/{media_id}/content", app.base))
            .bearer_auth(&other_key)
            .send()
            .await
            .unwrap();
        assert_problem(foreign, 404, "not_found").await;
    }
}

pub(crate) async fn upload_to_simulator(app: &NetApp, bytes: Vec<u8>, mime: &str) -> String {
    let form = Form::new()
        .text("messaging_product", "whatsapp")
        .text("type", mime.to_owned())
        .part("file", file_part(bytes, "user-file", mime));
    let answer: Value = app
        .http
        .post(format!("{}/simulator/v23.0/1000000001/media", app.base))
        .bearer_auth(herald_simulator::DEFAULT_ACCESS_TOKEN)
        .multipart(form)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    answer["id"]
        .as_str()
        .unwrap_or_else(|| panic!("simulator upload: {answer}"))
        .to_owned()
}

pub(crate) async fn post_signed_callback(app: &NetApp, body: Vec<u8>) {
    let signature = crate::network::hub_signature(app.app_secret.as_bytes(), &body);
    let response = app
        .http
        .post(format!("{}/webhooks/whatsapp", app.base))
        .header("x-hub-signature-256", signature)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
}

async fn expired_uploads_go_with_the_bytes_nothing_else_needs(db: Db) {
    use herald_domain::ids::MediaId;
    use herald_domain::media::{MediaFile, MediaRecord};
    use herald_domain::ports::MediaStore as _;
    let app = spawn(db, |_| {}, 80).await;
    // A live upload of a PDF, through the API.
    let live: Value = app
        .post_form(
            "/api/v1/media",
            Form::new().part("file", file_part(files::pdf(), "live.pdf", "application/pdf")),
        )
        .await
        .json()
        .await
        .unwrap();
    // Two uploads made 31 days ago: one of other bytes (a JPEG), one sharing the live PDF's bytes.
    async fn stage(store: &herald_media::FsMediaStore, bytes: Vec<u8>) -> herald_domain::media::ContentRef {
        let mut upload = herald_domain::ports::MediaStore::begin_upload(store, u64::MAX)
            .await
            .unwrap();
        upload.push(&bytes).await.unwrap();
        let staged = upload.finish().await.unwrap();
        store.commit(staged).await.unwrap()
    }
    let jpeg = stage(&app.services.files, files::jpeg()).await;
    let pdf = stage(&app.services.files, files::pdf()).await;
    let long_ago = chrono::Utc::now() - chrono::TimeDelta::days(31);
    let catalog = app.services.store.media();
    let mut expired = Vec::new();
    for content in [jpeg.clone(), pdf.clone()] {
        let file = MediaFile::new(
            MediaId::from_ulid(app.services.ids.next_ulid()),
            app.org,
            content,
            None,
            long_ago,
        );
        catalog.insert_media(&file, None).await.unwrap();
        expired.push(file.id);
    }
    let network: std::sync::Arc<dyn herald_domain::ports::MessagingNetwork> = std::sync::Arc::new(
        herald_cloudapi::CloudApiClient::new(herald_cloudapi::CloudApiConfig::new(
            format!("{}/simulator", app.base),
            "v23.0",
        ))
        .unwrap(),
    );

    let deleted = app.services.media(network).expire(100).await.unwrap();

    assert_eq!(deleted, 2);
    for id in &expired {
        assert!(catalog.media(&app.org, id).await.unwrap().is_none());
    }
    assert!(
        app.services.files.open(&jpeg.sha256).await.unwrap().is_none(),
        "unshared bytes must go"
    );
    assert!(
        app.services.files.open(&pdf.sha256).await.unwrap().is_some(),
        "shared bytes must stay"
    );
    let live_id = MediaId::parse(live["id"].as_str().unwrap()).unwrap();
    assert!(matches!(
        catalog.media(&app.org, &live_id).await.unwrap(),
        Some(MediaRecord::Uploaded(_))
    ));
    let content = app
        .get_response(&format!("/api/v1/media/{live_id}/content"))
        .await;
    assert_eq!(content.status(), 200);
    assert_eq!(content.bytes().await.unwrap().to_vec(), files::pdf());
}

/// Moves the app's organization to a plan of its own, made from `business` with `change` applied.
pub(crate) async fn custom_plan(app: &NetApp, change: impl FnOnce(&mut herald_domain::organization::Plan)) {
    let accounts = app.services.store.accounts();
    let business = herald_domain::organization::PlanName::parse("business").unwrap();
    let mut plan = accounts.plan(&business).await.unwrap().unwrap();
    plan.name = herald_domain::organization::PlanName::parse("files-test").unwrap();
    change(&mut plan);
    accounts.put_plan(&plan).await.unwrap();
    app.services.admin().set_plan(&app.org, plan.name).await.unwrap();
}

/// A request with a `Content-Length` it never sends: the answer must come from the header alone.
async fn declared_only(app: &NetApp, length: u64) -> (u16, String) {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let address = app.base.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    let head = format!(
        "POST /api/v1/media HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {}\r\n\
         Content-Type: multipart/form-data; boundary=XYZ\r\nContent-Length: {length}\r\n\r\n--XYZ\r\n",
        app.key
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut answer = vec![0_u8; 4096];
    let read = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut answer))
        .await
        .expect("the server answers without waiting for the declared body")
        .unwrap();
    let text = String::from_utf8_lossy(&answer[..read]).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, text)
}

async fn forms_are_bounded_as_a_whole_and_by_the_plan(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    app.open_window_with(RECIPIENT).await;
    let jpeg = || file_part(files::jpeg(), "a.jpg", "image/jpeg");

    // A text part, known or not, is refused as soon as it passes 64 KiB, not read to its end.
    for name in ["caption", "colour"] {
        let form = Form::new()
            .text("to", RECIPIENT)
            .text(name, "x".repeat(200 * 1024))
            .part("file", jpeg());
        let response = app.post_form("/api/v1/messages/send-file", form).await;
        let problem = assert_problem(response, 413, "payload_too_large").await;
        assert!(
            problem["detail"].as_str().unwrap().contains(&format!("`{name}`")),
            "{problem}"
        );
    }

    // The plan's largest file holds the upload while it streams.
    custom_plan(&app, |plan| plan.max_file_bytes = 2_000).await;
    let form = Form::new().part(
        "file",
        file_part(files::padded(files::png(), 3_000), "big.png", "image/png"),
    );
    let response = app.post_form("/api/v1/media", form).await;
    let problem = assert_problem(response, 413, "payload_too_large").await;
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("plan's limit of 2000 bytes"),
        "{problem}"
    );
    let form = Form::new().part(
        "file",
        file_part(files::padded(files::png(), 2_000), "edge.png", "image/png"),
    );
    let response = app.post_form("/api/v1/media", form).await;
    assert_eq!(response.status(), 201, "{}", response.text().await.unwrap());

    // A second file is not read without end: the whole form has a budget of one file and its text parts.
    let form = Form::new().text("to", RECIPIENT).part("file", jpeg()).part(
        "file",
        file_part(vec![0; 3 * MB], "b.bin", "application/octet-stream"),
    );
    let response = app.post_form("/api/v1/messages/send-file", form).await;
    let problem = assert_problem(response, 413, "payload_too_large").await;
    assert!(
        problem["detail"].as_str().unwrap().contains("The form is larger"),
        "{problem}"
    );

    // A declared length over the budget is refused before any of the body is read.
    let (status, answer) = declared_only(&app, 10 * MB as u64).await;
    assert_eq!(status, 413, "{answer}");

    assert_eq!(app.message_count().await, 0);
    let stored: Vec<_> = files_under(app.media_root())
        .into_iter()
        .filter(|f| f.starts_with("staging/"))
        .collect();
    assert_eq!(stored, Vec::<String>::new(), "nothing is left staged");
}

async fn uploads_stop_at_the_plans_media_storage(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    app.open_window_with(RECIPIENT).await;
    let size = files::padded(files::png(), 10_000).len() as u64;
    custom_plan(&app, |plan| plan.media_storage_bytes = Some(2 * size + size / 2)).await;
    // Each upload has its own bytes, so deduplication on disk cannot hide one.
    let png = |n: u8| {
        let mut bytes = files::padded(files::png(), 10_000);
        *bytes.last_mut().unwrap() = n;
        file_part(bytes, "p.png", "image/png")
    };
    for n in 0..2 {
        let response = app
            .post_form("/api/v1/media", Form::new().part("file", png(n)))
            .await;
        assert_eq!(response.status(), 201, "{}", response.text().await.unwrap());
    }
    let before = files_under(app.media_root());
    let response = app
        .post_form("/api/v1/media", Form::new().part("file", png(2)))
        .await;
    let problem = assert_problem(response, 413, "payload_too_large").await;
    let detail = problem["detail"].as_str().unwrap();
    assert!(
        detail.contains("media storage is full") && detail.contains(&format!("hold {}", 2 * size)),
        "{problem}"
    );
    // A send with its own file counts against the same storage.
    let form = Form::new().text("to", RECIPIENT).part("file", png(3));
    let response = app.post_form("/api/v1/messages/send-file", form).await;
    assert_problem(response, 413, "payload_too_large").await;
    assert_eq!(
        files_under(app.media_root()),
        before,
        "a refused file leaves no bytes"
    );
    assert_eq!(app.message_count().await, 0, "and no message");
}

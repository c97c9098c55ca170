//! Media: upload (multipart), retrieve, download, delete.

use sha2::{Digest, Sha256};

use crate::helpers::*;

pub const BOUNDARY: &str = "herald-test-boundary";

pub fn multipart(fields: &[(&str, &str)], file: Option<(&str, &str, &[u8])>) -> Vec<u8> {
    let mut body = Vec::new();
    for (name, value) in fields {
        body.extend_from_slice(
            format!("--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n")
                .as_bytes(),
        );
    }
    if let Some((filename, mime, bytes)) = file {
        body.extend_from_slice(
            format!(
                "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{filename}\"\r\n\
                 Content-Type: {mime}\r\n\r\n"
            )
            .as_bytes(),
        );
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
    body
}

async fn upload(sim: &TestSim, token: Option<&str>, body: Vec<u8>) -> (u16, serde_json::Value) {
    let mut request = sim
        .client
        .post(format!("{}/v23.0/{PNID_1}/media", sim.base))
        .header(
            "Content-Type",
            format!("multipart/form-data; boundary={BOUNDARY}"),
        )
        .body(body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

#[tokio::test]
async fn upload_retrieve_download_delete() {
    let sim = spawn_simulator().await;
    let bytes: Vec<u8> = (0..=255u8).cycle().take(70_000).collect();
    let fields = [("messaging_product", "whatsapp"), ("type", "application/pdf")];
    let (status, body) = upload(
        &sim,
        Some(TOKEN),
        multipart(&fields, Some(("inv.pdf", "application/pdf", &bytes))),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let id = body["id"].as_str().unwrap().to_owned();
    assert!(!id.is_empty() && id.chars().all(|c| c.is_ascii_digit()), "{id}");

    let (status, info) = sim.get(&format!("/v23.0/{id}")).await;
    assert_eq!(status, 200, "{info}");
    assert_eq!(info["messaging_product"], "whatsapp");
    assert_eq!(info["id"], id.as_str());
    assert_eq!(info["mime_type"], "application/pdf");
    assert_eq!(info["file_size"], 70_000);
    assert_eq!(info["sha256"], hex::encode(Sha256::digest(&bytes)));
    let url = info["url"].as_str().unwrap();
    assert_eq!(url, format!("{}/media-download/{id}", sim.base));
    let (status, _) = sim.get(&format!("/v23.0/{id}?phone_number_id={PNID_2}")).await;
    assert_eq!(status, 400, "another sender does not own it");

    let anonymous = sim.client.get(url).send().await.unwrap();
    assert_eq!(anonymous.status().as_u16(), 401);
    let download = sim.client.get(url).bearer_auth(TOKEN).send().await.unwrap();
    assert_eq!(download.status().as_u16(), 200);
    assert_eq!(download.headers()["content-type"], "application/pdf");
    assert_eq!(download.bytes().await.unwrap().as_ref(), bytes.as_slice());

    let deleted = sim
        .client
        .delete(format!("{}/v23.0/{id}", sim.base))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status().as_u16(), 200);
    assert_eq!(
        deleted.json::<serde_json::Value>().await.unwrap(),
        serde_json::json!({ "success": true })
    );
    let (status, error) = sim.get(&format!("/v23.0/{id}")).await;
    assert_graph_error(status, &error, 400, 100);
}

#[tokio::test]
async fn bad_uploads_are_rejected() {
    let sim = spawn_simulator().await;
    let png = b"\x89PNG\r\n\x1a\n";
    let good = [("messaging_product", "whatsapp"), ("type", "image/png")];
    let (status, error) = upload(&sim, None, multipart(&good, Some(("a.png", "image/png", png)))).await;
    assert_graph_error(status, &error, 401, 190);
    let (status, error) = upload(&sim, Some(TOKEN), multipart(&good, None)).await;
    assert_graph_error(status, &error, 400, 100);
    let no_product = [("type", "image/png")];
    let (status, error) = upload(
        &sim,
        Some(TOKEN),
        multipart(&no_product, Some(("a.png", "image/png", png))),
    )
    .await;
    assert_graph_error(status, &error, 400, 100);
    let gif = [("messaging_product", "whatsapp"), ("type", "image/gif")];
    let (status, error) = upload(
        &sim,
        Some(TOKEN),
        multipart(&gif, Some(("a.gif", "image/gif", b"GIF89a"))),
    )
    .await;
    assert_graph_error(status, &error, 400, 100);
    let (status, body) = upload(
        &sim,
        Some(TOKEN),
        multipart(&good, Some(("a.png", "image/png", png))),
    )
    .await;
    assert_eq!(status, 200, "{body}");
}

/// Uploads `bytes` as `mime` for `pnid` and returns the media id.
async fn upload_file(sim: &TestSim, pnid: &str, mime: &str, filename: &str, bytes: &[u8]) -> String {
    let fields = [("messaging_product", "whatsapp"), ("type", mime)];
    let response = sim
        .client
        .post(format!("{}/v23.0/{pnid}/media", sim.base))
        .header(
            "Content-Type",
            format!("multipart/form-data; boundary={BOUNDARY}"),
        )
        .bearer_auth(TOKEN)
        .body(multipart(&fields, Some((filename, mime, bytes))))
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(status, 200, "{body}");
    body["id"].as_str().unwrap().to_owned()
}

/// Downloads media `id` the way a client does: look it up, then GET its URL with the token.
async fn download(sim: &TestSim, pnid: &str, id: &str) -> (String, Vec<u8>) {
    let (status, info) = sim.get(&format!("/v23.0/{id}?phone_number_id={pnid}")).await;
    assert_eq!(status, 200, "{info}");
    let response = sim
        .client
        .get(info["url"].as_str().unwrap())
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let mime = response.headers()["content-type"].to_str().unwrap().to_owned();
    let bytes = response.bytes().await.unwrap().to_vec();
    assert_eq!(info["file_size"], bytes.len());
    assert_eq!(info["sha256"], hex::encode(Sha256::digest(&bytes)));
    (mime, bytes)
}

#[tokio::test]
async fn a_16_mib_video_and_a_100_mib_document_upload_and_download() {
    // Big files leave connections idle for seconds in a debug build; a pooled one the server has just
    // closed (keep-alive) would fail the next request, so every request gets a fresh connection.
    let sim = TestSim {
        client: reqwest::Client::builder()
            .pool_max_idle_per_host(0)
            .build()
            .unwrap(),
        ..spawn_simulator().await
    };
    for (mime, name, size) in [
        ("video/mp4", "clip.mp4", 16 << 20),
        ("application/pdf", "big.pdf", 100 << 20),
    ] {
        let bytes: Vec<u8> = (0..size).map(|i: usize| (i % 251) as u8).collect();
        let id = upload_file(&sim, PNID_1, mime, name, &bytes).await;
        let (got_mime, got) = download(&sim, PNID_1, &id).await;
        assert_eq!(got_mime, mime);
        assert!(got == bytes, "{name}: the download returns the uploaded bytes");
    }
    // One byte over a kind's cap is the network's parameter error, not a transport failure.
    let too_big = vec![0u8; (16 << 20) + 1];
    let (status, error) = upload(
        &sim,
        Some(TOKEN),
        multipart(
            &[("messaging_product", "whatsapp"), ("type", "video/mp4")],
            Some(("clip.mp4", "video/mp4", &too_big)),
        ),
    )
    .await;
    assert_graph_error(status, &error, 400, 100);
}

/// Opens the service window of `customer` with `business` (a display number).
async fn open_window(sim: &TestSim, customer: &str, business: &str) {
    let (status, body) = sim.inbound(customer, business, "hi").await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn media_goes_by_id_only_for_ids_of_the_same_number() {
    let sim = spawn_simulator().await;
    let customer = "+4915112345678";
    open_window(&sim, customer, "+15550001111").await;
    open_window(&sim, customer, "+15550002222").await;
    let png = b"\x89PNG\r\n\x1a\nimage-bytes".to_vec();
    let pdf = b"%PDF-1.7 invoice".to_vec();
    let image_id = upload_file(&sim, PNID_1, "image/png", "a.png", &png).await;
    let pdf_id = upload_file(&sim, PNID_1, "application/pdf", "inv.pdf", &pdf).await;

    let media = |kind: &str, object: serde_json::Value| serde_json::json!({ "messaging_product": "whatsapp", "to": customer, "type": kind, kind: object });
    let (status, body) = sim
        .send(
            PNID_1,
            &media("image", serde_json::json!({ "id": image_id, "caption": "Look" })),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = sim
        .send(
            PNID_1,
            &media(
                "document",
                serde_json::json!({ "id": pdf_id, "caption": "Invoice #9", "filename": "invoice-9.pdf" }),
            ),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let header = template(
        customer,
        "promo_image",
        "en_US",
        serde_json::json!([
            { "type": "header", "parameters": [ { "type": "image", "image": { "id": image_id } } ] },
            { "type": "body", "parameters": [ { "type": "text", "text": "50% off" } ] }
        ]),
    );
    let (status, body) = sim.send(PNID_1, &header).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = sim
        .send(
            PNID_1,
            &media(
                "video",
                serde_json::json!({ "link": "https://example.com/v.mp4" }),
            ),
        )
        .await;
    assert_eq!(status, 200, "{body}");

    let (status, listed) = sim.get("/control/sent").await;
    assert_eq!(status, 200);
    let listed: Vec<herald_simulator::SentRecord> = serde_json::from_value(listed).unwrap();
    let recorded: Vec<_> = listed.iter().map(|r| r.media.clone().unwrap()).collect();
    assert_eq!(
        recorded,
        vec![
            herald_simulator::SentMedia {
                kind: "image".into(),
                role: "message".into(),
                id: Some(image_id.clone()),
                link: None,
                caption: Some("Look".into()),
                filename: None,
                mime_type: Some("image/png".into()),
                sha256: Some(hex::encode(Sha256::digest(&png))),
                size: Some(png.len() as u64),
            },
            herald_simulator::SentMedia {
                kind: "document".into(),
                role: "message".into(),
                id: Some(pdf_id.clone()),
                link: None,
                caption: Some("Invoice #9".into()),
                filename: Some("invoice-9.pdf".into()),
                mime_type: Some("application/pdf".into()),
                sha256: Some(hex::encode(Sha256::digest(&pdf))),
                size: Some(pdf.len() as u64),
            },
            herald_simulator::SentMedia {
                kind: "image".into(),
                role: "template_header".into(),
                id: Some(image_id.clone()),
                link: None,
                caption: None,
                filename: None,
                mime_type: Some("image/png".into()),
                sha256: Some(hex::encode(Sha256::digest(&png))),
                size: Some(png.len() as u64),
            },
            herald_simulator::SentMedia {
                kind: "video".into(),
                role: "message".into(),
                id: None,
                link: Some("https://example.com/v.mp4".into()),
                caption: None,
                filename: None,
                mime_type: None,
                sha256: None,
                size: None,
            },
        ]
    );

    // Unknown ids, another number's ids, and ids of the wrong kind are the network's media error.
    let refused = [
        (PNID_1, media("image", serde_json::json!({ "id": "4242" }))),
        (PNID_2, media("image", serde_json::json!({ "id": image_id }))),
        (PNID_1, media("image", serde_json::json!({ "id": pdf_id }))),
        (PNID_1, media("video", serde_json::json!({ "id": image_id }))),
    ];
    for (pnid, body) in refused {
        let (status, error) = sim.send(pnid, &body).await;
        assert_graph_error(status, &error, 400, 131053);
    }
    let unknown_header = template(
        customer,
        "promo_image",
        "en_US",
        serde_json::json!([
            { "type": "header", "parameters": [ { "type": "image", "image": { "id": "4242" } } ] },
            { "type": "body", "parameters": [ { "type": "text", "text": "50% off" } ] }
        ]),
    );
    let (status, error) = sim.send(PNID_1, &unknown_header).await;
    assert_graph_error(status, &error, 400, 131053);
    assert_eq!(sim.simulator.sent().len(), 4, "nothing refused was recorded");
}

async fn inbound_media(sim: &TestSim, media: serde_json::Value) -> (u16, serde_json::Value) {
    let response = sim
        .client
        .post(format!("{}/control/inbound", sim.base))
        .json(&serde_json::json!({ "from": "+4915112345678", "to": "+15550001111", "media": media }))
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

#[tokio::test]
async fn inbound_media_is_stored_and_announced_in_the_network_shape() {
    use base64::Engine as _;
    let b64 = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
    let sim = spawn_simulator().await;
    let cases = [
        (
            serde_json::json!({ "type": "image", "mime_type": "image/jpeg", "caption": "My order" }),
            b"\xff\xd8\xff\xe0jpeg".to_vec(),
            vec!["caption", "id", "mime_type", "sha256"],
        ),
        (
            serde_json::json!({ "type": "video", "mime_type": "video/mp4" }),
            b"\x00\x00\x00\x18ftypmp42".to_vec(),
            vec!["id", "mime_type", "sha256"],
        ),
        (
            serde_json::json!({
                "type": "document", "mime_type": "application/pdf", "caption": "Receipt",
                "filename": "receipt.pdf"
            }),
            b"%PDF-1.4 receipt".to_vec(),
            vec!["caption", "filename", "id", "mime_type", "sha256"],
        ),
        (
            serde_json::json!({ "type": "audio", "mime_type": "audio/ogg; codecs=opus", "voice": true }),
            b"OggS voice".to_vec(),
            vec!["id", "mime_type", "sha256", "voice"],
        ),
        (
            serde_json::json!({ "type": "sticker", "mime_type": "image/webp" }),
            b"RIFF\x00\x00\x00\x00WEBP".to_vec(),
            vec!["animated", "id", "mime_type", "sha256"],
        ),
    ];
    for (index, (mut media, bytes, keys)) in cases.into_iter().enumerate() {
        media["data_base64"] = b64(&bytes).into();
        let (status, answer) = inbound_media(&sim, media.clone()).await;
        assert_eq!(status, 200, "{answer}");
        let media_id = answer["media_id"].as_str().unwrap().to_owned();

        let received = sim.receiver.received();
        let callback = &received[index];
        assert_eq!(
            callback.signature.as_deref(),
            Some(expected_signature(&callback.body).as_str())
        );
        let message = &callback.json()["entry"][0]["changes"][0]["value"]["messages"][0];
        let kind = media["type"].as_str().unwrap();
        assert_eq!(message["type"], kind);
        assert_eq!(message["id"], answer["id"]);
        let object = message[kind].as_object().unwrap();
        let mut got: Vec<&str> = object.keys().map(String::as_str).collect();
        got.sort_unstable();
        assert_eq!(got, keys, "{message}");
        assert_eq!(object["id"], media_id.as_str());
        assert_eq!(object["mime_type"], media["mime_type"]);
        // Real webhooks carry the digest in base64.
        assert_eq!(object["sha256"], b64(&Sha256::digest(&bytes)));
        for key in ["caption", "filename"] {
            if let Some(value) = media.get(key) {
                assert_eq!(&object[key], value);
            }
        }
        match kind {
            "audio" => assert_eq!(object["voice"], true),
            "sticker" => assert_eq!(object["animated"], false),
            _ => {}
        }

        let (mime, downloaded) = download(&sim, PNID_1, &media_id).await;
        assert_eq!(mime, media["mime_type"].as_str().unwrap());
        assert_eq!(downloaded, bytes);
        // The media belongs to the receiving number only.
        let (status, _) = sim
            .get(&format!("/v23.0/{media_id}?phone_number_id={PNID_2}"))
            .await;
        assert_eq!(status, 400);
    }
}

#[tokio::test]
async fn bad_inbound_media_is_refused_without_a_callback() {
    let sim = spawn_simulator().await;
    let data = "aGVsbG8=";
    let bad = [
        serde_json::json!({ "type": "gif", "mime_type": "image/gif", "data_base64": data }),
        serde_json::json!({ "type": "audio", "mime_type": "audio/ogg", "data_base64": data, "caption": "x" }),
        serde_json::json!({ "type": "image", "mime_type": "image/jpeg", "data_base64": data, "filename": "a" }),
        serde_json::json!({ "type": "image", "mime_type": "image/jpeg", "data_base64": "not base64!" }),
        serde_json::json!({ "type": "image", "mime_type": "image/jpeg", "data_base64": "" }),
    ];
    for media in bad {
        let (status, body) = inbound_media(&sim, media.clone()).await;
        assert_eq!(status, 400, "{media}: {body}");
    }
    let response = sim
        .client
        .post(format!("{}/control/inbound", sim.base))
        .json(&serde_json::json!({
            "from": "+4915112345678", "to": "+15550001111", "text": "hi",
            "media": { "type": "image", "mime_type": "image/jpeg", "data_base64": data }
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 400);
    assert!(sim.receiver.received().is_empty());
}

//! Media: upload (multipart), retrieve, download, delete.

use sha2::{Digest, Sha256};

use crate::helpers::*;

const BOUNDARY: &str = "herald-test-boundary";

fn multipart(fields: &[(&str, &str)], file: Option<(&str, &str, &[u8])>) -> Vec<u8> {
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

//! The media round trip of the real client against the real simulator: what wiremock cannot tell is whether
//! both sides read the same wire format (the client's streamed multipart, the simulator's download URLs).

use crate::helpers::*;
use base64::Engine as _;
use herald_cloudapi::CloudApiClient;
use herald_domain::attachment::{MediaAttachment, MediaKind, MediaSource};
use herald_domain::ids::MediaId;
use herald_domain::message::MessageContent;
use herald_domain::organization::{NetworkRef, SenderNumber};
use herald_domain::ports::{MediaUpload, MessagingNetwork, NetworkError, NetworkMediaIds};
use herald_domain::values::{Caption, FileName};
use herald_simulator::{DEFAULT_ACCESS_TOKEN, Simulator, SimulatorConfig, standalone};
use secrecy::SecretString;
use sha2::{Digest as _, Sha256};
use std::io::{Seek as _, Write as _};

struct Sim {
    base: String,
    simulator: std::sync::Arc<Simulator>,
    client: CloudApiClient,
}

async fn spawn() -> Sim {
    let simulator = Simulator::new(SimulatorConfig {
        callback_delay_ms: (1, 2),
        ..SimulatorConfig::default()
    });
    let (server, port) = standalone("127.0.0.1:0", std::sync::Arc::clone(&simulator)).unwrap();
    tokio::spawn(server);
    let base = format!("http://127.0.0.1:{port}/simulator");
    let mut config = config(&base);
    config.default_access_token = Some(SecretString::from(DEFAULT_ACCESS_TOKEN));
    Sim {
        client: CloudApiClient::new(config).unwrap(),
        base,
        simulator,
    }
}

/// The simulator's first seeded number.
fn simulator_sender() -> SenderNumber {
    let seeded = &herald_simulator::seeded_senders()[0];
    SenderNumber {
        phone_number_id: NetworkRef::parse(seeded.phone_number_id).unwrap(),
        waba_id: NetworkRef::parse(seeded.waba_id).unwrap(),
        ..sender()
    }
}

/// A control call: the customer writes to the first seeded number (with a file, when given).
async fn inbound(sim: &Sim, media: Option<serde_json::Value>) -> serde_json::Value {
    let mut body = serde_json::json!({
        "from": "+16505551234",
        "to": herald_simulator::seeded_senders()[0].display_phone_number,
    });
    match media {
        Some(media) => body["media"] = media,
        None => body["text"] = "hi".into(),
    }
    let response = reqwest::Client::new()
        .post(format!("{}/control/inbound", sim.base))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    response.json().await.unwrap()
}

#[tokio::test]
async fn upload_then_send_by_id_reaches_the_simulator_with_caption_and_filename() {
    let sim = spawn().await;
    inbound(&sim, None).await; // opens the service window
    let pdf: Vec<u8> = b"%PDF-1.7\n"
        .iter()
        .copied()
        .chain((0..300_000u32).map(|i| (i % 249) as u8))
        .collect();
    let mut file = tempfile::tempfile().unwrap();
    file.write_all(&pdf).unwrap();
    file.rewind().unwrap();
    let network_id = sim
        .client
        .upload_media(
            &simulator_sender(),
            MediaUpload {
                file,
                size: pdf.len() as u64,
                mime_type: "application/pdf".into(),
                filename: "invoice-7.pdf".into(),
            },
        )
        .await
        .unwrap();

    let media_id = MediaId::parse("med_01J0000000000000000000000D").unwrap();
    let content = MessageContent::Media {
        media: MediaAttachment {
            kind: MediaKind::Document,
            source: MediaSource::Stored(media_id),
            filename: Some(FileName::parse("Invoice 7.pdf").unwrap()),
        },
        caption: Some(Caption::parse("Your invoice").unwrap()),
    };
    let mut ids = NetworkMediaIds::new();
    ids.insert(media_id, network_id.clone());
    sim.client
        .send(&simulator_sender(), &message(content.clone()), &ids)
        .await
        .unwrap();
    let sent = sim.simulator.sent();
    let media = sent[0].media.clone().unwrap();
    assert_eq!(media.id.as_deref(), Some(network_id.as_str()));
    assert_eq!(media.caption.as_deref(), Some("Your invoice"));
    assert_eq!(media.filename.as_deref(), Some("Invoice 7.pdf"));
    assert_eq!(media.mime_type.as_deref(), Some("application/pdf"));
    assert_eq!(media.sha256, Some(hex::encode(Sha256::digest(&pdf))));

    // An id the network never handed out is its media error, a permanent failure.
    ids.insert(media_id, "4242".to_owned());
    match sim
        .client
        .send(&simulator_sender(), &message(content), &ids)
        .await
    {
        Err(NetworkError::Permanent(error)) => assert_eq!(error.code, "media_upload_failed"),
        other => panic!("expected media_upload_failed, got {other:?}"),
    }
}

/// An Ogg Opus voice note and a WebP sticker go up through the client's streamed upload and out by id in
/// Meta's shape: `{"type":"audio","audio":{"id":…}}`, no caption or filename.
#[tokio::test]
async fn audio_and_a_sticker_upload_then_send_by_id() {
    let sim = spawn().await;
    inbound(&sim, None).await; // opens the service window
    // The simulator takes an upload's declared type, as Meta does; Herald judges the bytes before.
    let files: [(MediaKind, &[u8], &str, &str); 2] = [
        (
            MediaKind::Audio,
            b"OggS\0\x02 an opus voice note",
            "audio/ogg",
            "voice.ogg",
        ),
        (
            MediaKind::Sticker,
            b"RIFF\x1a\0\0\0WEBPVP8L a sticker",
            "image/webp",
            "party.webp",
        ),
    ];
    for (n, (kind, bytes, mime_type, filename)) in files.into_iter().enumerate() {
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(bytes).unwrap();
        file.rewind().unwrap();
        let network_id = sim
            .client
            .upload_media(
                &simulator_sender(),
                MediaUpload {
                    file,
                    size: bytes.len() as u64,
                    mime_type: mime_type.into(),
                    filename: filename.into(),
                },
            )
            .await
            .unwrap();
        let media_id = MediaId::parse("med_01J0000000000000000000000D").unwrap();
        let content = MessageContent::Media {
            media: MediaAttachment {
                kind,
                source: MediaSource::Stored(media_id),
                filename: None,
            },
            caption: None,
        };
        let mut ids = NetworkMediaIds::new();
        ids.insert(media_id, network_id.clone());
        sim.client
            .send(&simulator_sender(), &message(content), &ids)
            .await
            .unwrap();

        let sent = sim.simulator.sent();
        let record = &sent[n];
        assert_eq!(record.request["type"], kind.as_str());
        assert_eq!(
            record.request[kind.as_str()],
            serde_json::json!({ "id": network_id })
        );
        let media = record.media.clone().unwrap();
        assert_eq!(media.kind, kind.as_str());
        assert_eq!(media.mime_type.as_deref(), Some(mime_type));
        assert_eq!(media.sha256, Some(hex::encode(Sha256::digest(bytes))));
    }
}

#[tokio::test]
async fn inbound_media_downloads_through_the_client() {
    let sim = spawn().await;
    let jpeg = b"\xff\xd8\xff\xe0 a tiny jpeg".to_vec();
    let answer = inbound(
        &sim,
        Some(serde_json::json!({
            "type": "image",
            "mime_type": "image/jpeg",
            "data_base64": base64::engine::general_purpose::STANDARD.encode(&jpeg),
            "caption": "my order",
        })),
    )
    .await;
    let media_id = answer["media_id"].as_str().unwrap();
    let download = sim
        .client
        .download_media(&simulator_sender(), media_id)
        .await
        .unwrap();
    assert_eq!(download.mime_type.as_deref(), Some("image/jpeg"));
    assert_eq!(download.size, Some(jpeg.len() as u64));
    let bytes: Vec<u8> = futures::TryStreamExt::try_concat(download.body).await.unwrap();
    assert_eq!(bytes, jpeg);

    // Another number does not own it; an unknown id is not found either.
    let other = SenderNumber {
        phone_number_id: NetworkRef::parse(herald_simulator::seeded_senders()[1].phone_number_id).unwrap(),
        ..simulator_sender()
    };
    for (sender, id) in [(other, media_id), (simulator_sender(), "4242")] {
        match sim.client.download_media(&sender, id).await {
            Err(NetworkError::Permanent(error)) => assert_eq!(error.code, "media_not_found"),
            other => panic!("expected media_not_found, got {other:?}"),
        }
    }
}

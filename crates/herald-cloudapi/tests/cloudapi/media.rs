//! Media: sends of stored files by their network id, streamed multipart uploads, two-step streamed downloads,
//! and the rule for which download URLs the client follows.

use crate::helpers::*;
use futures::TryStreamExt as _;
use herald_cloudapi::CloudApiClient;
use herald_domain::attachment::{MediaAttachment, MediaKind, MediaSource};
use herald_domain::ids::MediaId;
use herald_domain::message::{MessageContent, MessageError};
use herald_domain::ports::{MediaUpload, MessagingNetwork, NetworkError, NetworkMediaIds};
use herald_domain::template::{
    BodyValues, HeaderValue, LanguageCode, TemplateName, TemplateRef, TemplateVariables,
};
use herald_domain::values::{Caption, FileName};
use serde_json::{Value, json};
use std::io::Write as _;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use wiremock::matchers::{header, method, path, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

const DOC: &str = "med_01J0000000000000000000000D";
const IMAGE: &str = "med_01J0000000000000000000000E";
const NETWORK_DOC: &str = "1479537139650973";
const NETWORK_IMAGE: &str = "765756756";
const NETWORK_MEDIA: &str = "1234567890987654321";

fn stored(kind: MediaKind, id: &str, filename: Option<&str>) -> MediaAttachment {
    MediaAttachment {
        kind,
        source: MediaSource::Stored(MediaId::parse(id).unwrap()),
        filename: filename.map(|f| FileName::parse(f).unwrap()),
    }
}

fn ids() -> NetworkMediaIds {
    let mut ids = NetworkMediaIds::new();
    ids.insert(MediaId::parse(DOC).unwrap(), NETWORK_DOC.to_owned());
    ids.insert(MediaId::parse(IMAGE).unwrap(), NETWORK_IMAGE.to_owned());
    ids
}

fn media_message(media: MediaAttachment, caption: Option<&str>) -> MessageContent {
    MessageContent::Media {
        media,
        caption: caption.map(|c| Caption::parse(c).unwrap()),
    }
}

/// Sends `content` with `media` to an accepting server and returns the `<kind>` object of the body.
async fn sent_object(content: MessageContent, media: &NetworkMediaIds, kind: &str) -> Value {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(format!("/{VERSION}/{PHONE_NUMBER_ID}/messages")))
        .respond_with(accepted())
        .mount(&server)
        .await;
    let receipt = client(&server)
        .send(&sender(), &message(content), media)
        .await
        .unwrap();
    assert_eq!(receipt.network_message_id, WAMID);
    let requests = server.received_requests().await.unwrap();
    let body: Value = requests[0].body_json().unwrap();
    assert_eq!(body["type"], kind, "{body}");
    body[kind].clone()
}

#[tokio::test]
async fn stored_files_are_sent_by_their_network_id() {
    let document = media_message(
        stored(MediaKind::Document, DOC, Some("invoice-123.pdf")),
        Some("Invoice #123"),
    );
    assert_eq!(
        sent_object(document, &ids(), "document").await,
        json!({ "id": NETWORK_DOC, "caption": "Invoice #123", "filename": "invoice-123.pdf" })
    );
    let image = media_message(
        stored(MediaKind::Image, IMAGE, None),
        Some("The best succulent ever?"),
    );
    assert_eq!(
        sent_object(image, &ids(), "image").await,
        json!({ "id": NETWORK_IMAGE, "caption": "The best succulent ever?" })
    );
    let mut video_ids = NetworkMediaIds::new();
    video_ids.insert(MediaId::parse(DOC).unwrap(), "9988".to_owned());
    // A filename on anything but a document is not the network's business.
    let video = media_message(stored(MediaKind::Video, DOC, Some("clip.mp4")), None);
    assert_eq!(
        sent_object(video, &video_ids, "video").await,
        json!({ "id": "9988" })
    );
}

#[tokio::test]
async fn stored_audio_and_stickers_go_by_id_with_no_caption_or_filename() {
    for kind in [MediaKind::Audio, MediaKind::Sticker] {
        let plain = media_message(stored(kind, IMAGE, None), None);
        assert_eq!(
            sent_object(plain, &ids(), kind.as_str()).await,
            json!({ "id": NETWORK_IMAGE })
        );
        // The domain refuses both on these kinds; should one ever get this far, the wire leaves it out.
        let dressed = media_message(stored(kind, IMAGE, Some("voice.ogg")), Some("hello"));
        assert_eq!(
            sent_object(dressed, &ids(), kind.as_str()).await,
            json!({ "id": NETWORK_IMAGE })
        );
    }
}

#[tokio::test]
async fn template_headers_name_stored_files_by_id_without_a_caption() {
    let template = |header: MediaAttachment| MessageContent::Template {
        template: TemplateRef {
            name: TemplateName::parse("invoice_ready").unwrap(),
            language: LanguageCode::parse("en_US").unwrap(),
        },
        variables: TemplateVariables {
            header: Some(HeaderValue::Media(header)),
            body: BodyValues::Positional(vec![text("Asha")]),
            buttons: vec![],
            ..TemplateVariables::default()
        },
    };
    let object = sent_object(
        template(stored(MediaKind::Document, DOC, Some("invoice-9.pdf"))),
        &ids(),
        "template",
    )
    .await;
    assert_eq!(
        object["components"],
        json!([
            { "type": "header", "parameters": [ {
                "type": "document", "document": { "id": NETWORK_DOC, "filename": "invoice-9.pdf" }
            } ] },
            { "type": "body", "parameters": [ { "type": "text", "text": "Asha" } ] }
        ])
    );
    let object = sent_object(
        template(stored(MediaKind::Image, IMAGE, None)),
        &ids(),
        "template",
    )
    .await;
    assert_eq!(
        object["components"][0],
        json!({ "type": "header", "parameters": [ { "type": "image", "image": { "id": NETWORK_IMAGE } } ] })
    );
}

#[tokio::test]
async fn a_file_without_a_network_id_never_reaches_the_network() {
    let server = MockServer::start().await;
    let missing = media_message(
        stored(MediaKind::Image, "med_01J0000000000000000000000F", None),
        None,
    );
    let upload = media_message(
        MediaAttachment {
            kind: MediaKind::Document,
            source: MediaSource::Upload,
            filename: None,
        },
        None,
    );
    for content in [missing, upload] {
        match client(&server).send(&sender(), &message(content), &ids()).await {
            Err(NetworkError::Permanent(MessageError {
                code, network_code, ..
            })) => {
                assert_eq!(code, "media_unavailable");
                assert_eq!(network_code, None);
            }
            other => panic!("expected media_unavailable, got {other:?}"),
        }
    }
    assert!(server.received_requests().await.unwrap().is_empty());
}

/// A multipart part as the server received it.
#[derive(Debug)]
struct Part {
    headers: String,
    data: Vec<u8>,
}

/// Splits a multipart body on the boundary named by `content_type` (written independently of any client).
fn parts(content_type: &str, body: &[u8]) -> Vec<Part> {
    let boundary = content_type.split("boundary=").nth(1).unwrap().trim_matches('"');
    let delimiter = format!("--{boundary}");
    let find = |haystack: &[u8], needle: &[u8], from: usize| {
        haystack[from..]
            .windows(needle.len())
            .position(|w| w == needle)
            .map(|p| p + from)
    };
    let mut parts = Vec::new();
    let mut at = find(body, delimiter.as_bytes(), 0).unwrap() + delimiter.len();
    loop {
        if body[at..].starts_with(b"--") {
            return parts;
        }
        at += 2; // CRLF after the delimiter
        let next = find(body, format!("\r\n{delimiter}").as_bytes(), at).unwrap();
        let part = &body[at..next];
        let split = find(part, b"\r\n\r\n", 0).unwrap();
        parts.push(Part {
            headers: String::from_utf8(part[..split].to_vec()).unwrap(),
            data: part[split + 4..].to_vec(),
        });
        at = next + 2 + delimiter.len();
    }
}

fn upload_of(bytes: &[u8], mime_type: &str, filename: &str) -> MediaUpload {
    let mut file = tempfile::tempfile().unwrap();
    file.write_all(bytes).unwrap();
    let mut file = file;
    std::io::Seek::rewind(&mut file).unwrap();
    MediaUpload {
        file,
        size: bytes.len() as u64,
        mime_type: mime_type.to_owned(),
        filename: filename.to_owned(),
    }
}

#[tokio::test]
async fn an_upload_is_multipart_with_the_exact_fields() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(format!("/{VERSION}/{PHONE_NUMBER_ID}/media")))
        .and(header("authorization", format!("Bearer {TOKEN}").as_str()))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({ "id": NETWORK_DOC })))
        .mount(&server)
        .await;
    // Bytes that look like a part boundary must come through untouched.
    let mut bytes = b"%PDF-1.7\r\n--not-a-boundary\r\n\x00\xff".to_vec();
    bytes.extend((0..=255u8).cycle().take(70_000));
    let id = client(&server)
        .upload_media(&sender(), upload_of(&bytes, "application/pdf", "invoice-123.pdf"))
        .await
        .unwrap();
    assert_eq!(id, NETWORK_DOC);

    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    let content_type = request.headers["content-type"].to_str().unwrap();
    assert!(
        content_type.starts_with("multipart/form-data; boundary="),
        "{content_type}"
    );
    assert_eq!(
        request.headers["content-length"].to_str().unwrap(),
        request.body.len().to_string(),
        "the length is known up front, so the body is not sent chunked"
    );
    let parts = parts(content_type, &request.body);
    let headers: Vec<&str> = parts.iter().map(|p| p.headers.as_str()).collect();
    assert_eq!(
        headers,
        [
            "Content-Disposition: form-data; name=\"messaging_product\"",
            "Content-Disposition: form-data; name=\"type\"",
            "Content-Disposition: form-data; name=\"file\"; filename=\"invoice-123.pdf\"\r\n\
             Content-Type: application/pdf",
        ]
    );
    assert_eq!(parts[0].data, b"whatsapp");
    assert_eq!(parts[1].data, b"application/pdf");
    assert!(
        parts[2].data == bytes,
        "the file part carries the file's exact bytes"
    );
}

#[tokio::test]
async fn upload_failures_are_classified_like_sends() {
    let cases = [
        (
            graph_error(400, 131053, "Unsupported file"),
            "media_upload_failed",
        ),
        (
            graph_error(400, 100, "Param file is required"),
            "invalid_parameter",
        ),
    ];
    for (response, expected) in cases {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(response)
            .mount(&server)
            .await;
        let outcome = client(&server)
            .upload_media(&sender(), upload_of(b"\x89PNG", "image/png", "a.png"))
            .await;
        match outcome {
            Err(NetworkError::Permanent(error)) => assert_eq!(error.code, expected),
            other => panic!("expected {expected}, got {other:?}"),
        }
    }
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(graph_error(401, 190, "expired"))
        .mount(&server)
        .await;
    let outcome = client(&server)
        .upload_media(&sender(), upload_of(b"\x89PNG", "image/png", "a.png"))
        .await;
    assert!(
        matches!(outcome, Err(NetworkError::Credentials { code: Some(190), .. })),
        "{outcome:?}"
    );
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(503))
        .mount(&server)
        .await;
    let outcome = client(&server)
        .upload_media(&sender(), upload_of(b"\x89PNG", "image/png", "a.png"))
        .await;
    assert!(
        matches!(outcome, Err(NetworkError::Retryable { .. })),
        "{outcome:?}"
    );
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_string("{}"))
        .mount(&server)
        .await;
    let outcome = client(&server)
        .upload_media(&sender(), upload_of(b"\x89PNG", "image/png", "a.png"))
        .await;
    assert!(
        matches!(outcome, Err(NetworkError::OutcomeUnknown { .. })),
        "{outcome:?}"
    );
}

/// The file is a FIFO whose writer sends the first MiB, then waits until the server has RECEIVED those
/// bytes before writing the other 19 MiB. A client that read the file whole before sending would wait for
/// the end of the file forever; only a streaming client gets the upload through.
#[tokio::test]
async fn a_20_mib_upload_is_streamed_from_the_file() {
    const SIZE: usize = 20 << 20;
    const FIRST: usize = 1 << 20;
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("video.mp4");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let pattern = |i: usize| (i % 251) as u8;

    let (first_seen, wait_first) = std::sync::mpsc::channel::<()>();
    let writer_path = fifo.clone();
    let writer = std::thread::spawn(move || {
        let mut out = std::fs::OpenOptions::new().write(true).open(writer_path).unwrap();
        let bytes: Vec<u8> = (0..SIZE).map(pattern).collect();
        out.write_all(&bytes[..FIRST]).unwrap();
        out.flush().unwrap();
        wait_first.recv().unwrap();
        out.write_all(&bytes[FIRST..]).unwrap();
    });
    let file = tokio::task::spawn_blocking(move || std::fs::File::open(fifo))
        .await
        .unwrap()
        .unwrap();

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let server = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut received = Vec::new();
        let mut chunk = vec![0u8; 64 * 1024];
        let head_end = loop {
            let n = socket.read(&mut chunk).await.unwrap();
            assert!(n > 0, "the request ended before its headers");
            received.extend_from_slice(&chunk[..n]);
            if let Some(end) = received.windows(4).position(|w| w == b"\r\n\r\n") {
                break end + 4;
            }
        };
        let head = String::from_utf8_lossy(&received[..head_end]).to_ascii_lowercase();
        assert!(
            head.starts_with(&format!("post /{VERSION}/{PHONE_NUMBER_ID}/media ")),
            "{head}"
        );
        let length: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length: "))
            .expect("a streamed upload of known size has a Content-Length")
            .trim()
            .parse()
            .unwrap();
        let mut first_seen = Some(first_seen);
        while received.len() - head_end < length {
            let n = socket.read(&mut chunk).await.unwrap();
            assert!(n > 0, "the connection closed mid-body");
            received.extend_from_slice(&chunk[..n]);
            if received.len() - head_end > FIRST
                && let Some(signal) = first_seen.take()
            {
                signal.send(()).unwrap();
            }
        }
        let answer = br#"{"id":"4490709327384033"}"#;
        let response = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
            answer.len()
        );
        socket.write_all(response.as_bytes()).await.unwrap();
        socket.write_all(answer).await.unwrap();
        let content_type = head
            .lines()
            .find_map(|l| l.strip_prefix("content-type: "))
            .unwrap()
            .trim()
            .to_owned();
        (content_type, received.split_off(head_end))
    });

    let upload = MediaUpload {
        file,
        size: SIZE as u64,
        mime_type: "video/mp4".into(),
        filename: "video.mp4".into(),
    };
    // A hang here (the client buffering the file) fails the test instead of blocking the suite.
    let outcome = tokio::time::timeout(
        std::time::Duration::from_secs(120),
        CloudApiClient::new(config(&base))
            .unwrap()
            .upload_media(&sender(), upload),
    )
    .await
    .expect("the upload did not stream: the client waited for the whole file");
    assert_eq!(outcome.unwrap(), "4490709327384033");
    writer.join().unwrap();
    let (content_type, body) = server.await.unwrap();
    let parts = parts(&content_type, &body);
    assert_eq!(parts.len(), 3);
    assert_eq!(parts[2].data.len(), SIZE);
    assert!(parts[2].data.iter().enumerate().all(|(i, b)| *b == pattern(i)));
}

/// Mounts the media lookup of `NETWORK_MEDIA` answering `url`.
async fn mount_lookup(server: &MockServer, url: &str) {
    Mock::given(method("GET"))
        .and(path(format!("/{VERSION}/{NETWORK_MEDIA}")))
        .and(query_param("phone_number_id", PHONE_NUMBER_ID))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "messaging_product": "whatsapp",
            "url": url,
            "mime_type": "image/jpeg",
            "sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "file_size": 150_000,
            "id": NETWORK_MEDIA,
        })))
        .mount(server)
        .await;
}

async fn collect(download: herald_domain::ports::MediaDownload) -> Vec<u8> {
    download
        .body
        .try_fold(Vec::new(), |mut all, chunk| async move {
            all.extend_from_slice(&chunk);
            Ok(all)
        })
        .await
        .unwrap()
}

#[tokio::test]
async fn a_download_looks_the_id_up_then_streams_the_url_with_the_same_token() {
    let server = MockServer::start().await;
    let url = format!(
        "{}/whatsapp_business/attachments/?mid={NETWORK_MEDIA}",
        server.uri()
    );
    mount_lookup(&server, &url).await;
    let bytes: Vec<u8> = (0..150_000u32).map(|i| (i % 253) as u8).collect();
    Mock::given(method("GET"))
        .and(path("/whatsapp_business/attachments/"))
        .and(query_param("mid", NETWORK_MEDIA))
        .respond_with(ResponseTemplate::new(200).set_body_raw(bytes.clone(), "image/jpeg"))
        .mount(&server)
        .await;
    let download = client(&server)
        .download_media(&sender(), NETWORK_MEDIA)
        .await
        .unwrap();
    assert_eq!(download.mime_type.as_deref(), Some("image/jpeg"));
    assert_eq!(download.size, Some(150_000));
    assert_eq!(collect(download).await, bytes);

    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].url.path(), format!("/{VERSION}/{NETWORK_MEDIA}"));
    assert_eq!(requests[1].url.path(), "/whatsapp_business/attachments/");
    for request in &requests {
        assert_eq!(
            request.headers["authorization"].to_str().unwrap(),
            format!("Bearer {TOKEN}"),
            "{}",
            request.url
        );
    }
}

fn assert_code(outcome: Result<herald_domain::ports::MediaDownload, NetworkError>, expected: &str) {
    match outcome {
        Err(NetworkError::Permanent(error)) => assert_eq!(error.code, expected, "{error:?}"),
        other => panic!("expected {expected}, got {other:?}"),
    }
}

#[tokio::test]
async fn unknown_media_is_not_found() {
    // Graph's answer for an id it does not know (or that another number owns).
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(graph_error(
            400,
            100,
            "Unsupported get request. Object with ID does not exist",
        ))
        .mount(&server)
        .await;
    assert_code(
        client(&server).download_media(&sender(), NETWORK_MEDIA).await,
        "media_not_found",
    );
    // A bare 404, on the lookup or on the download URL.
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(404))
        .mount(&server)
        .await;
    assert_code(
        client(&server).download_media(&sender(), NETWORK_MEDIA).await,
        "media_not_found",
    );
    let server = MockServer::start().await;
    mount_lookup(&server, &format!("{}/gone", server.uri())).await;
    assert_code(
        client(&server).download_media(&sender(), NETWORK_MEDIA).await,
        "media_not_found",
    );
    // Something that is not an id never becomes a path.
    let server = MockServer::start().await;
    for id in ["", "../v23.0/1", "1/2", "1?x=2", ".."] {
        assert_code(
            client(&server).download_media(&sender(), id).await,
            "media_not_found",
        );
    }
    assert!(server.received_requests().await.unwrap().is_empty());
}

#[tokio::test]
async fn other_download_failures_are_classified_like_sends() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(graph_error(401, 190, "expired"))
        .mount(&server)
        .await;
    let outcome = client(&server).download_media(&sender(), NETWORK_MEDIA).await;
    assert!(
        matches!(outcome, Err(NetworkError::Credentials { code: Some(190), .. })),
        "{outcome:?}"
    );
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(502))
        .mount(&server)
        .await;
    let outcome = client(&server).download_media(&sender(), NETWORK_MEDIA).await;
    assert!(
        matches!(outcome, Err(NetworkError::Retryable { .. })),
        "{outcome:?}"
    );
    // A download URL of a server that is not listening: a GET can always be asked again.
    let server = MockServer::start().await;
    mount_lookup(&server, "http://127.0.0.1:9/never").await;
    let mut allow_port_9 = config(&server.uri());
    allow_port_9.media_download_hosts = vec!["127.0.0.1:9".into()];
    let outcome = CloudApiClient::new(allow_port_9)
        .unwrap()
        .download_media(&sender(), NETWORK_MEDIA)
        .await;
    assert!(
        matches!(outcome, Err(NetworkError::Retryable { .. })),
        "{outcome:?}"
    );
}

#[tokio::test]
async fn download_urls_elsewhere_are_refused_unless_their_host_is_allowed() {
    let api = MockServer::start().await;
    let elsewhere = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/file"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(b"secret".to_vec(), "image/jpeg"))
        .mount(&elsewhere)
        .await;
    let foreign = format!("{}/file", elsewhere.uri());
    mount_lookup(&api, &foreign).await;
    assert_code(
        client(&api).download_media(&sender(), NETWORK_MEDIA).await,
        "media_download_refused",
    );
    assert!(
        elsewhere.received_requests().await.unwrap().is_empty(),
        "neither the token nor a request went to the foreign host"
    );

    // The same host once the settings allow it (with its port, as the URL names one).
    let mut allowed = config(&api.uri());
    let host = elsewhere.address().to_string();
    allowed.media_download_hosts = vec![host];
    let download = CloudApiClient::new(allowed)
        .unwrap()
        .download_media(&sender(), NETWORK_MEDIA)
        .await
        .unwrap();
    assert_eq!(collect(download).await, b"secret");
    assert_eq!(elsewhere.received_requests().await.unwrap().len(), 1);
}

#[tokio::test]
async fn a_redirect_to_a_foreign_host_is_not_followed() {
    let api = MockServer::start().await;
    let elsewhere = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(b"internal".to_vec(), "text/plain"))
        .mount(&elsewhere)
        .await;
    mount_lookup(&api, &format!("{}/download", api.uri())).await;
    Mock::given(method("GET"))
        .and(path("/download"))
        .respond_with(
            ResponseTemplate::new(302).insert_header("location", format!("{}/admin", elsewhere.uri())),
        )
        .mount(&api)
        .await;
    assert_code(
        client(&api).download_media(&sender(), NETWORK_MEDIA).await,
        "media_download_refused",
    );
    assert!(elsewhere.received_requests().await.unwrap().is_empty());

    // A redirect that stays on the base origin is followed.
    let api = MockServer::start().await;
    mount_lookup(&api, &format!("{}/download", api.uri())).await;
    Mock::given(method("GET"))
        .and(path("/download"))
        .respond_with(ResponseTemplate::new(302).insert_header("location", "/bytes"))
        .mount(&api)
        .await;
    Mock::given(method("GET"))
        .and(path("/bytes"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(b"here".to_vec(), "image/jpeg"))
        .mount(&api)
        .await;
    let download = client(&api)
        .download_media(&sender(), NETWORK_MEDIA)
        .await
        .unwrap();
    assert_eq!(collect(download).await, b"here");
}

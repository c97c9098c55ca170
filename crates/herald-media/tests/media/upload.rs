use crate::fixtures::{self, entries, store};
use herald_domain::attachment::MediaKind;
use herald_domain::ports::MediaStore;
use herald_media::{LimitedUpload, Limits, SNIFF_LEN, UploadError};

const MB: u64 = 1_000_000;

#[tokio::test]
async fn a_file_pushed_byte_by_byte_is_judged_sized_and_hashed() {
    let (_dir, store) = store().await;
    let mut bytes = fixtures::png();
    bytes.resize(SNIFF_LEN + 100, 0);
    let mut upload = store.begin_upload().await.unwrap();
    for byte in &bytes {
        upload.push(std::slice::from_ref(byte)).await.unwrap();
    }
    assert_eq!(upload.sniffed().map(|s| s.mime), Some("image/png"));
    let staged = upload.finish().await.unwrap();

    let content = staged.content().clone();
    assert_eq!(content.kind, MediaKind::Image);
    assert_eq!(content.mime_type, "image/png");
    assert_eq!(content.size, bytes.len() as u64);
    assert_eq!(content.sha256.as_bytes(), &fixtures::sha256(&bytes));
    assert_eq!(std::fs::read(staged.path()).unwrap(), bytes);
}

#[tokio::test]
async fn a_file_shorter_than_the_sniff_window_is_judged_at_finish() {
    let (_dir, store) = store().await;
    let bytes = fixtures::three_gp();
    assert!(bytes.len() < SNIFF_LEN);
    let mut upload = store.begin_upload().await.unwrap();
    upload.push(&bytes).await.unwrap();
    assert_eq!(upload.sniffed(), None);
    let staged = upload.finish().await.unwrap();
    assert_eq!(staged.content().mime_type, "video/3gpp");
    assert_eq!(staged.content().size, bytes.len() as u64);
}

#[tokio::test]
async fn an_image_stream_stops_as_soon_as_it_passes_five_megabytes() {
    let (_dir, store) = store().await;
    let chunk_len = 64 * 1024;
    let mut upload = store.begin_upload().await.unwrap();
    let mut pushed = 0_u64;
    upload.push(&fixtures::jpeg()).await.unwrap();
    pushed += fixtures::jpeg().len() as u64;
    let chunk = vec![0xAB_u8; chunk_len];
    let error = loop {
        assert!(pushed <= 6 * MB, "the limit was never enforced");
        pushed += chunk_len as u64;
        if let Err(error) = upload.push(&chunk).await {
            break error;
        }
    };

    assert!(
        matches!(error, UploadError::TooLarge { kind: MediaKind::Image, limit, .. } if limit == 5 * MB),
        "{error:?}"
    );
    assert!(pushed > 5 * MB);
    assert!(pushed <= 5 * MB + chunk_len as u64, "pushed {pushed}");
    assert!(upload.size() <= 5 * MB);
    assert!(
        entries(&store.staging_dir()).is_empty(),
        "the staging file must be gone"
    );
    assert!(matches!(upload.push(b"more").await, Err(UploadError::Closed)));
    assert!(matches!(upload.finish().await, Err(UploadError::Closed)));
}

fn tiny(limit: u64) -> Limits {
    Limits::network().capped(limit)
}

#[tokio::test]
async fn the_limit_is_inclusive_and_applies_to_the_judged_kind() {
    let (_dir, store) = store().await;
    let limits = Limits {
        document: 1000,
        ..Limits::network().capped(10)
    };
    let mut exact = fixtures::pdf();
    exact.resize(1000, b' ');
    let mut upload = store.begin_upload_with_limits(limits).await.unwrap();
    upload.push(&exact).await.unwrap();
    assert_eq!(upload.finish().await.unwrap().content().size, 1000);

    let mut upload = store.begin_upload_with_limits(limits).await.unwrap();
    upload.push(&exact).await.unwrap();
    let error = upload.push(b" ").await.unwrap_err();
    assert!(
        matches!(
            error,
            UploadError::TooLarge {
                kind: MediaKind::Document,
                animated: false,
                limit: 1000
            }
        ),
        "{error:?}"
    );
    assert!(entries(&store.staging_dir()).is_empty());
}

#[tokio::test]
async fn a_small_file_over_its_limit_is_refused_at_finish() {
    let (_dir, store) = store().await;
    let mut upload = store.begin_upload_with_limits(tiny(20)).await.unwrap();
    upload.push(&fixtures::jpeg()).await.unwrap();
    let error = upload.finish().await.unwrap_err();
    assert!(
        matches!(error, UploadError::TooLarge { limit: 20, .. }),
        "{error:?}"
    );
    assert!(entries(&store.staging_dir()).is_empty());
}

#[tokio::test]
async fn unsupported_and_empty_uploads_are_refused_and_leave_nothing() {
    let (_dir, store) = store().await;

    let mut upload = store.begin_upload().await.unwrap();
    let error = upload.push(&fixtures::noise(1000)).await.unwrap_err();
    assert!(matches!(error, UploadError::Unsupported(_)), "{error:?}");
    assert!(entries(&store.staging_dir()).is_empty());

    let mut upload = store.begin_upload().await.unwrap();
    upload.push(&fixtures::gif()).await.unwrap();
    assert!(matches!(upload.finish().await, Err(UploadError::Unsupported(_))));

    let upload = store.begin_upload().await.unwrap();
    assert!(matches!(upload.finish().await, Err(UploadError::Empty)));
    assert!(entries(&store.staging_dir()).is_empty());
}

#[tokio::test]
async fn dropping_an_unfinished_upload_removes_its_staging_file() {
    let (_dir, store) = store().await;
    let mut upload = LimitedUpload::begin(&store.staging_dir()).await.unwrap();
    upload.push(&fixtures::pdf()).await.unwrap();
    upload.push(&vec![b' '; SNIFF_LEN]).await.unwrap();
    assert_eq!(entries(&store.staging_dir()).len(), 1);
    drop(upload);
    assert!(entries(&store.staging_dir()).is_empty());
}

/// Pushes `file` padded to `len` bytes in 16 KiB chunks; the upload's error, if any.
async fn push_padded(file: Vec<u8>, len: usize) -> Result<u64, UploadError> {
    let (_dir, store) = store().await;
    let bytes = herald_testkit::files::padded(file, len);
    let mut upload = store.begin_upload().await.unwrap();
    for chunk in bytes.chunks(16 * 1024) {
        upload.push(chunk).await?;
    }
    Ok(upload.finish().await?.content().size)
}

#[tokio::test]
async fn a_static_sticker_is_held_to_100_kb_and_an_animated_one_to_500_kb() {
    const KB: usize = 1_000;
    assert_eq!(
        push_padded(fixtures::webp_static(), 100 * KB).await.unwrap(),
        100_000
    );
    let error = push_padded(fixtures::webp_static(), 100 * KB + 1)
        .await
        .unwrap_err();
    assert!(
        matches!(
            error,
            UploadError::TooLarge {
                kind: MediaKind::Sticker,
                animated: false,
                limit: 100_000
            }
        ),
        "{error:?}"
    );
    assert_eq!(error.to_string(), "a static sticker is larger than 100000 bytes");

    // What is too big for a static sticker is fine for an animated one, up to its own limit.
    assert_eq!(
        push_padded(fixtures::webp_animated(), 500 * KB).await.unwrap(),
        500_000
    );
    let error = push_padded(fixtures::webp_animated(), 500 * KB + 1)
        .await
        .unwrap_err();
    assert!(
        matches!(
            error,
            UploadError::TooLarge {
                kind: MediaKind::Sticker,
                animated: true,
                limit: 500_000
            }
        ),
        "{error:?}"
    );
}

#[tokio::test]
async fn audio_is_held_to_16_mb() {
    assert_eq!(
        push_padded(fixtures::ogg_opus(), 16 * MB as usize).await.unwrap(),
        16 * MB
    );
    let error = push_padded(fixtures::mp3_id3(), 16 * MB as usize + 1)
        .await
        .unwrap_err();
    assert!(
        matches!(
            error,
            UploadError::TooLarge {
                kind: MediaKind::Audio,
                animated: false,
                limit
            } if limit == 16 * MB
        ),
        "{error:?}"
    );
}

use crate::fixtures::{self, entries, store, stored_files};
use herald_domain::media::{ContentRef, MediaBytes, MediaBytesError, Sha256Digest, StagedFile};
use herald_domain::message::MediaKind;
use herald_media::FsMediaStore;
use std::io::Read;

async fn stage(store: &FsMediaStore, bytes: &[u8]) -> StagedFile {
    let mut upload = store.begin_upload().await.unwrap();
    upload.push(bytes).await.unwrap();
    upload.finish().await.unwrap()
}

fn read_all(mut file: std::fs::File) -> Vec<u8> {
    let mut out = Vec::new();
    file.read_to_end(&mut out).unwrap();
    out
}

/// The port's contract, run against any adapter. Checks observable behaviour only.
async fn media_bytes_contract(bytes: &dyn MediaBytes, stage_one: &[u8], staged: [StagedFile; 3]) {
    let [first, twin, other] = staged;
    let digest = first.content().sha256;
    assert_eq!(digest.as_bytes(), &fixtures::sha256(stage_one));

    assert!(bytes.open(&digest).await.unwrap().is_none());
    let committed = bytes.commit(first).await.unwrap();
    assert_eq!(committed.sha256, digest);
    assert_eq!(read_all(bytes.open(&digest).await.unwrap().unwrap()), stage_one);

    // Identical content again: accepted, same reference, still readable.
    assert_eq!(bytes.commit(twin).await.unwrap(), committed);
    assert_eq!(read_all(bytes.open(&digest).await.unwrap().unwrap()), stage_one);

    // Discarded content is never readable.
    let other_digest = other.content().sha256;
    bytes.discard(other).await.unwrap();
    assert!(bytes.open(&other_digest).await.unwrap().is_none());

    assert!(bytes.remove(&digest).await.unwrap());
    assert!(!bytes.remove(&digest).await.unwrap());
    assert!(bytes.open(&digest).await.unwrap().is_none());
}

#[tokio::test]
async fn the_filesystem_store_meets_the_port_contract() {
    let (_dir, store) = store().await;
    let png = fixtures::png();
    let staged = [
        stage(&store, &png).await,
        stage(&store, &png).await,
        stage(&store, &fixtures::pdf()).await,
    ];
    media_bytes_contract(&store, &png, staged).await;
    assert!(entries(&store.staging_dir()).is_empty());
}

#[tokio::test]
async fn commit_is_content_addressed_and_idempotent() {
    let (_dir, store) = store().await;
    let jpeg = fixtures::jpeg();
    let first = store.commit(stage(&store, &jpeg).await).await.unwrap();
    let second = store.commit(stage(&store, &jpeg).await).await.unwrap();
    assert_eq!(first, second);
    assert_eq!(first.kind, MediaKind::Image);
    assert_eq!(first.size, jpeg.len() as u64);

    let hex = first.sha256.to_hex();
    assert_eq!(stored_files(store.root()), vec![format!("{}/{hex}", &hex[..2])]);
    assert_eq!(std::fs::read(store.path_of(&first.sha256)).unwrap(), jpeg);
    assert!(
        entries(&store.staging_dir()).is_empty(),
        "the duplicate staging file must be gone"
    );

    let pdf = store.commit(stage(&store, &fixtures::pdf()).await).await.unwrap();
    assert_ne!(pdf.sha256, first.sha256);
    assert_eq!(stored_files(store.root()).len(), 2);
}

#[tokio::test]
async fn discard_and_drop_leave_no_staging_files() {
    let (_dir, store) = store().await;
    let staged = stage(&store, &fixtures::mp4_isom()).await;
    assert_eq!(entries(&store.staging_dir()).len(), 1);
    store.discard(staged).await.unwrap();
    assert!(entries(&store.staging_dir()).is_empty());

    let staged = stage(&store, &fixtures::mp4_mp42()).await;
    assert_eq!(entries(&store.staging_dir()).len(), 1);
    drop(staged);
    assert!(entries(&store.staging_dir()).is_empty());
    assert!(stored_files(store.root()).is_empty());
}

#[tokio::test]
async fn a_file_from_outside_the_staging_area_is_not_committed() {
    let (dir, store) = store().await;
    let outside = dir.path().join("elsewhere");
    std::fs::write(&outside, b"%PDF-1.4 not ours").unwrap();
    let staged = StagedFile::new(
        outside.clone(),
        ContentRef {
            sha256: Sha256Digest::from_bytes([7; 32]),
            kind: MediaKind::Document,
            mime_type: "application/pdf".into(),
            size: 17,
        },
    );
    let error = store.commit(staged).await.unwrap_err();
    assert!(matches!(error, MediaBytesError::NotStaged(_)), "{error:?}");
    assert!(stored_files(store.root()).is_empty());
}

use crate::fixtures::{self, entries, store, stored_files};
use herald_domain::attachment::MediaKind;
use herald_domain::media::{ContentRef, Sha256Digest, StagedFile};
use herald_domain::ports::{MediaStore, MediaStoreError};
use herald_media::FsMediaStore;

async fn stage(store: &FsMediaStore, bytes: &[u8]) -> StagedFile {
    let mut upload = store.begin_upload().await.unwrap();
    upload.push(bytes).await.unwrap();
    upload.finish().await.unwrap()
}

#[tokio::test]
async fn commit_is_content_addressed_and_idempotent() {
    let (_dir, store) = store().await;
    let jpeg = fixtures::jpeg();
    let first = store.commit(stage(&store, &jpeg).await).await.unwrap();
    let second = store.commit(stage(&store, &jpeg).await).await.unwrap();
    assert_eq!(first, second);
    assert_eq!(
        first.sha256.as_bytes(),
        &fixtures::sha256(&jpeg),
        "the address is the SHA-256 of the bytes"
    );
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
    assert!(matches!(error, MediaStoreError::NotStaged(_)), "{error:?}");
    assert!(stored_files(store.root()).is_empty());
}

/// The `MediaStore` contract of herald-testkit, on a fresh filesystem store per scenario, staging through
/// the real upload path.
mod contract {
    use herald_testkit::contract::MediaStoreUnderTest;
    use std::sync::Arc;

    async fn fresh() -> MediaStoreUnderTest {
        let (dir, store) = crate::fixtures::store().await;
        let store = Arc::new(store);
        let stager = store.clone();
        MediaStoreUnderTest {
            store,
            stage: Box::new(move |bytes| {
                let store = stager.clone();
                Box::pin(async move {
                    let mut upload = store.begin_upload().await.expect("begin an upload");
                    upload.push(&bytes).await.expect("stage the bytes");
                    upload.finish().await.expect("a PDF is accepted")
                })
            }),
            guard: Box::new(dir),
        }
    }

    herald_testkit::media_store_suite!(fresh());
}

/// Sets a file's modification time `age` into the past.
fn age(path: &std::path::Path, age: std::time::Duration) {
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(std::time::SystemTime::now() - age).unwrap();
}

#[tokio::test]
async fn sweep_staging_deletes_only_stale_staging_files() {
    let (_dir, store) = store().await;
    let hour = std::time::Duration::from_secs(3_600);
    // What a crash leaves behind: staged files nobody will commit (forgotten, so `Drop` does not run).
    let stale = stage(&store, &fixtures::pdf()).await;
    let (stale_path, _) = stale.into_parts();
    age(&stale_path, 2 * hour);
    let stale_half = store.staging_dir().join("half-written");
    std::fs::write(&stale_half, b"%PDF-1.4 trunc").unwrap();
    age(&stale_half, 25 * hour);
    let recent = stage(&store, &fixtures::png()).await;
    let committed = store
        .commit(stage(&store, &fixtures::jpeg()).await)
        .await
        .unwrap();
    assert_eq!(entries(&store.staging_dir()).len(), 3);

    assert_eq!(store.sweep_staging(hour).await.unwrap(), 2);
    assert!(!stale_path.exists());
    assert!(!stale_half.exists());
    assert!(recent.path().exists(), "a recent staging file is kept");
    assert!(
        store.open(&committed.sha256).await.unwrap().is_some(),
        "stored files are never swept"
    );
    assert_eq!(store.sweep_staging(hour).await.unwrap(), 0);
    store.commit(recent).await.unwrap();
    assert!(entries(&store.staging_dir()).is_empty());
}

/// `make run` names the media folder relatively (`./data/media`) while staged uploads carry absolute
/// paths: both constructors must take a relative root and still commit their own uploads.
#[tokio::test]
async fn a_store_with_a_relative_root_commits_its_uploads() {
    // A folder under the working directory (the crate's folder under cargo), named relatively.
    let dir = tempfile::Builder::new()
        .prefix("relative-media-")
        .tempdir_in(".")
        .unwrap();
    let relative = std::path::PathBuf::from(dir.path().file_name().unwrap()).join("media");
    assert!(relative.is_relative());

    for store in [
        FsMediaStore::open(&relative).await.unwrap(),
        FsMediaStore::at(&relative),
    ] {
        assert!(store.root().is_absolute(), "{}", store.root().display());
        let pdf = fixtures::pdf();
        let stored = store.commit(stage(&store, &pdf).await).await.unwrap();
        assert_eq!(std::fs::read(store.path_of(&stored.sha256)).unwrap(), pdf);
        assert!(
            dir.path()
                .join("media")
                .join(&stored.sha256.to_hex()[..2])
                .is_dir()
        );
    }
}

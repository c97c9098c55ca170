//! `MediaStore`: the bytes of uploaded media, content-addressed and committed atomically. Run by every
//! adapter through [`crate::media_store_suite!`].
//!
//! The adapter stages files through its own upload path (which hashes and judges them), so the contract
//! never makes up a digest for bytes it hands in; it only ever uses the [`ContentRef`] the adapter
//! computed. The contents are tiny PDFs, which every adapter must accept.

use futures::future::BoxFuture;
use herald_domain::media::StagedFile;
use herald_domain::ports::{MediaStore, MediaStoreError};
use std::any::Any;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

/// Stages bytes through the adapter's own upload path.
pub type Stager = Box<dyn Fn(Vec<u8>) -> BoxFuture<'static, StagedFile> + Send + Sync>;

/// A FRESH media store under test, with its way of staging files.
pub struct MediaStoreUnderTest {
    pub store: Arc<dyn MediaStore>,
    pub stage: Stager,
    /// Whatever must live as long as the store (a temporary directory).
    pub guard: Box<dyn Any + Send + Sync>,
}

impl MediaStoreUnderTest {
    async fn stage(&self, bytes: &[u8]) -> StagedFile {
        (self.stage)(bytes.to_vec()).await
    }
}

/// The names of every scenario, in the order [`crate::media_store_suite!`] declares them.
pub const MEDIA_STORE_SCENARIOS: &[&str] = &[
    "media_store_commit_is_atomic_and_content_addressed",
    "media_store_same_content_twice_keeps_one_copy",
    "media_store_discard_removes_the_staged_file",
    "media_store_a_dropped_staged_file_is_removed",
    "media_store_unknown_digests_are_absent",
    "media_store_refuses_a_file_outside_its_staging_area",
];

/// Runs every `MediaStore` scenario as its own `#[tokio::test]`, each on the [`MediaStoreUnderTest`]
/// `$make` yields (a future, evaluated once per test: it must build a FRESH store each time).
#[macro_export]
macro_rules! media_store_suite {
    ($make:expr) => {
        $crate::media_store_suite!(@scenarios $make;
            media_store_commit_is_atomic_and_content_addressed,
            media_store_same_content_twice_keeps_one_copy,
            media_store_discard_removes_the_staged_file,
            media_store_a_dropped_staged_file_is_removed,
            media_store_unknown_digests_are_absent,
            media_store_refuses_a_file_outside_its_staging_area,
        );
    };
    (@scenarios $make:expr; $($scenario:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $scenario() {
                $crate::contract::$scenario($make.await).await
            }
        )*
    };
}

fn pdf(text: &str) -> Vec<u8> {
    format!("%PDF-1.4\n% {text}\ntrailer\n<< >>\n%%EOF\n").into_bytes()
}

fn read_all(file: Option<std::fs::File>) -> Option<Vec<u8>> {
    file.map(|mut file| {
        let mut out = Vec::new();
        file.read_to_end(&mut out).expect("a stored file is readable");
        out
    })
}

/// The files left in the staging area.
fn staging_files(store: &dyn MediaStore) -> Vec<String> {
    let dir = store.staging_dir();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("the staging area {} is readable: {e}", dir.display()))
        .map(|e| {
            e.expect("a staging entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

async fn open(store: &dyn MediaStore, staged_digest: &herald_domain::media::Sha256Digest) -> Option<Vec<u8>> {
    read_all(store.open(staged_digest).await.expect("open"))
}

/// A committed file is readable at its digest, whole, and leaves the staging area; different contents get
/// different digests and are both readable.
pub async fn media_store_commit_is_atomic_and_content_addressed(t: MediaStoreUnderTest) {
    let store = t.store.as_ref();
    let (one, two) = (pdf("one"), pdf("two"));
    let staged_one = t.stage(&one).await;
    let staged_two = t.stage(&two).await;
    let (ref_one, ref_two) = (staged_one.content().clone(), staged_two.content().clone());
    assert_ne!(
        ref_one.sha256, ref_two.sha256,
        "different contents have different digests"
    );
    assert_eq!(
        open(store, &ref_one.sha256).await,
        None,
        "a staged file is not readable before its commit"
    );
    let committed = store.commit(staged_one).await.expect("commit of a staged file");
    assert_eq!(committed, ref_one, "commit answers the staged file's reference");
    assert_eq!(open(store, &ref_one.sha256).await, Some(one.clone()));
    assert_eq!(ref_one.size, one.len() as u64);
    store.commit(staged_two).await.expect("commit of a staged file");
    assert_eq!(open(store, &ref_two.sha256).await, Some(two));
    assert_eq!(open(store, &ref_one.sha256).await, Some(one));
    assert!(
        staging_files(store).is_empty(),
        "a commit moves the file out of the staging area"
    );
}

/// Committing content that is already stored succeeds with the same reference and keeps one copy: one
/// removal makes it unreadable.
pub async fn media_store_same_content_twice_keeps_one_copy(t: MediaStoreUnderTest) {
    let store = t.store.as_ref();
    let bytes = pdf("twice");
    let first = store.commit(t.stage(&bytes).await).await.expect("commit");
    let second = store
        .commit(t.stage(&bytes).await)
        .await
        .expect("committing stored content again must succeed");
    assert_eq!(first, second);
    assert_eq!(open(store, &first.sha256).await, Some(bytes));
    assert!(
        staging_files(store).is_empty(),
        "the duplicate staged file is dropped"
    );
    assert!(store.remove(&first.sha256).await.expect("remove"));
    assert_eq!(
        open(store, &first.sha256).await,
        None,
        "one copy was kept: after one removal nothing is left"
    );
    assert!(!store.remove(&first.sha256).await.expect("remove"));
}

/// A discarded file leaves the staging area and never becomes readable.
pub async fn media_store_discard_removes_the_staged_file(t: MediaStoreUnderTest) {
    let store = t.store.as_ref();
    let staged = t.stage(&pdf("discarded")).await;
    let digest = staged.content().sha256;
    assert_eq!(
        staging_files(store).len(),
        1,
        "the staged file is in the staging area"
    );
    store.discard(staged).await.expect("discard");
    assert!(staging_files(store).is_empty(), "discard removes the staged file");
    assert_eq!(open(store, &digest).await, None);
}

/// A staged file dropped without commit or discard (an early return on a refused request) removes its
/// file.
pub async fn media_store_a_dropped_staged_file_is_removed(t: MediaStoreUnderTest) {
    let store = t.store.as_ref();
    let staged = t.stage(&pdf("dropped")).await;
    let digest = staged.content().sha256;
    assert_eq!(staging_files(store).len(), 1);
    drop(staged);
    assert!(
        staging_files(store).is_empty(),
        "a dropped staged file leaves nothing behind"
    );
    assert_eq!(open(store, &digest).await, None);
}

/// `open` answers `None` and `remove` answers `false` for a digest never stored.
pub async fn media_store_unknown_digests_are_absent(t: MediaStoreUnderTest) {
    let store = t.store.as_ref();
    let staged = t.stage(&pdf("never stored")).await;
    let digest = staged.content().sha256;
    store.discard(staged).await.expect("discard");
    assert!(store.open(&digest).await.expect("open").is_none());
    assert!(!store.remove(&digest).await.expect("remove"));
}

/// A file outside the store's staging area is refused with `NotStaged` and nothing is stored.
pub async fn media_store_refuses_a_file_outside_its_staging_area(t: MediaStoreUnderTest) {
    let store = t.store.as_ref();
    let bytes = pdf("outside");
    let staged = t.stage(&bytes).await;
    let content = staged.content().clone();
    store.discard(staged).await.expect("discard");
    let outside_dir = std::env::temp_dir().join(format!("herald-contract-{}", crate::fixtures::next_ulid()));
    std::fs::create_dir_all(&outside_dir).expect("a temporary directory");
    let outside = outside_dir.join("upload.pdf");
    std::fs::write(&outside, &bytes).expect("write the outside file");
    let error = store
        .commit(StagedFile::new(outside.clone(), content.clone()))
        .await
        .expect_err("a file outside the staging area must be refused");
    assert!(
        matches!(error, MediaStoreError::NotStaged(_)),
        "the refusal is NotStaged, got {error:?}"
    );
    assert_eq!(open(store, &content.sha256).await, None, "nothing was stored");
    let _ = std::fs::remove_dir_all(&outside_dir);
    assert!(!Path::new(&outside_dir).exists());
}

//! The multipart front of the file operations (`herald_http::fuzzing::read_form`, over the real
//! `multipart::read_form`) with the real filesystem media store in a temporary directory.
//!
//! Input: the first line is the `Content-Type` value (an empty line: no header), the second the chunk
//! pattern (comma-separated sizes, cycled; empty: the body arrives whole), the rest the body. Each input
//! is read twice, whole and cut by the pattern. What must hold:
//! - no panic, and a refusal is one of the front's documented codes (`unsupported_media_type`,
//!   `invalid_json`, `payload_too_large`, `unsupported_file_type`), never `internal` or `unavailable`;
//! - an accepted file's staged size and SHA-256 are those of the bytes pushed into its upload, the staged
//!   file holds exactly those bytes, they occur in the body, they are judged as the type the sniffer
//!   gives their first bytes, and they are within the kind's limit;
//! - a refused form, a form without a file, and a form whose staged file was dropped leave nothing in the
//!   store's directory;
//! - a form read whole is read the same when cut anywhere: if either reading accepts the form, both do,
//!   with the same parts and the same file.
//!
//! With `MULTIPART_FUZZ_SHOW=1` in the environment, each input's two readings are printed (to see what a
//! seed or a crash input does: `cargo fuzz run multipart <file>`).
#![no_main]

use async_trait::async_trait;
use herald_domain::media::{ContentRef, Sha256Digest, StagedFile};
use herald_domain::ports::{MediaStore, MediaStoreError, Upload, UploadError};
use herald_http::fuzzing::{Outcome, read_form};
use herald_media::{FsMediaStore, LimitedUpload, Limits, SNIFF_LEN, sniff};
use libfuzzer_sys::fuzz_target;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Small limits, so that inputs of a few KiB reach `payload_too_large`.
const LIMITS: Limits = Limits {
    document: 3000,
    image: 1000,
    video: 2000,
    audio: 2000,
    static_sticker: 500,
    animated_sticker: 1500,
};

/// The bytes each upload of one reading was given, and whether it finished with a staged file.
type Log = Arc<Mutex<Vec<(Vec<u8>, bool)>>>;

/// The filesystem store, with small limits and a record of what went into each upload.
struct Recording {
    inner: FsMediaStore,
    log: Log,
}

struct RecordingUpload {
    inner: LimitedUpload,
    bytes: Vec<u8>,
    log: Log,
}

#[async_trait]
impl Upload for RecordingUpload {
    async fn push(&mut self, chunk: &[u8]) -> Result<(), UploadError> {
        self.bytes.extend_from_slice(chunk);
        self.inner.push(chunk).await.map_err(Into::into)
    }

    async fn finish(self: Box<Self>) -> Result<StagedFile, UploadError> {
        let this = *self;
        let result = this.inner.finish().await.map_err(Into::into);
        this.log.lock().unwrap().push((this.bytes, result.is_ok()));
        result
    }
}

#[async_trait]
impl MediaStore for Recording {
    fn staging_dir(&self) -> PathBuf {
        self.inner.staging_dir()
    }

    async fn begin_upload(&self, max_bytes: u64) -> Result<Box<dyn Upload>, MediaStoreError> {
        let inner = self.inner.begin_upload_with_limits(LIMITS.capped(max_bytes)).await?;
        Ok(Box::new(RecordingUpload {
            inner,
            bytes: Vec::new(),
            log: Arc::clone(&self.log),
        }))
    }

    async fn commit(&self, staged: StagedFile) -> Result<ContentRef, MediaStoreError> {
        self.inner.commit(staged).await
    }

    async fn discard(&self, staged: StagedFile) -> Result<(), MediaStoreError> {
        self.inner.discard(staged).await
    }

    async fn open(&self, sha256: &Sha256Digest) -> Result<Option<std::fs::File>, MediaStoreError> {
        self.inner.open(sha256).await
    }

    async fn remove(&self, sha256: &Sha256Digest) -> Result<bool, MediaStoreError> {
        self.inner.remove(sha256).await
    }
}

struct Harness {
    runtime: tokio::runtime::Runtime,
    _dir: tempfile::TempDir,
    root: PathBuf,
    store: Recording,
}

thread_local! {
    static HARNESS: Harness = {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("media");
        let inner = FsMediaStore::at(&root);
        Harness {
            runtime: tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap(),
            _dir: dir,
            root,
            store: Recording { inner, log: Log::default() },
        }
    };
}

static SHOW: std::sync::LazyLock<bool> =
    std::sync::LazyLock::new(|| std::env::var_os("MULTIPART_FUZZ_SHOW").is_some_and(|v| v == "1"));

/// What one reading came to, for comparing the whole and the cut readings.
#[derive(Debug, PartialEq, Eq)]
enum Seen {
    BadHeader,
    Refused(&'static str),
    Read {
        fields: Vec<(String, String)>,
        file: Option<ContentRef>,
        filename: Option<String>,
        errors: String,
    },
}

fuzz_target!(|data: &[u8]| {
    let (content_type, rest) = line(data);
    let (pattern, body) = line(rest);
    let content_type = (!content_type.is_empty()).then_some(content_type);
    let chunks: Vec<usize> = String::from_utf8_lossy(pattern)
        .split(',')
        .filter_map(|size| size.trim().parse::<u16>().ok())
        .map(usize::from)
        .take(32)
        .collect();
    HARNESS.with(|harness| {
        let whole = check(harness, content_type, body, &[]);
        let cut = check(harness, content_type, body, &chunks);
        if *SHOW {
            eprintln!("whole: {whole:?}\ncut by {chunks:?}: {cut:?}");
        }
        if matches!(whole, Seen::Read { .. }) || matches!(cut, Seen::Read { .. }) {
            assert_eq!(
                whole, cut,
                "the form reads differently whole and cut by {chunks:?}"
            );
        }
    });
});

/// The input up to its first newline, and what follows it.
fn line(data: &[u8]) -> (&[u8], &[u8]) {
    match data.iter().position(|&b| b == b'\n') {
        Some(end) => (&data[..end], &data[end + 1..]),
        None => (data, &[]),
    }
}

fn check(harness: &Harness, content_type: Option<&[u8]>, body: &[u8], chunks: &[usize]) -> Seen {
    let store = &harness.store;
    store.log.lock().unwrap().clear();
    let outcome = harness
        .runtime
        .block_on(read_form(content_type, body, chunks, store));
    let log = std::mem::take(&mut *store.log.lock().unwrap());
    let staging = store.staging_dir();
    let seen = match outcome {
        Outcome::BadHeader => Seen::BadHeader,
        Outcome::Refused(error) => {
            let code = error.code();
            assert!(
                matches!(
                    code,
                    "unsupported_media_type" | "invalid_json" | "payload_too_large" | "unsupported_file_type"
                ),
                "refused with {code}: {error}"
            );
            assert_empty(&staging, "after a refused form");
            Seen::Refused(code)
        }
        Outcome::Read(form) => {
            let finished: Vec<&Vec<u8>> = log.iter().filter(|(_, ok)| *ok).map(|(bytes, _)| bytes).collect();
            let file = form.file.as_ref().map(|staged| {
                let [pushed] = finished.as_slice() else {
                    panic!("one file staged but {} uploads finished", finished.len());
                };
                check_staged(staged, pushed, body, &staging);
                staged.content().clone()
            });
            if file.is_none() {
                assert!(finished.is_empty(), "an upload finished but the form has no file");
            }
            let seen = Seen::Read {
                fields: form.fields.clone().into_iter().collect(),
                file,
                filename: form.filename.clone(),
                errors: format!("{:?}", form.errors),
            };
            drop(form);
            assert_empty(&staging, "once the form is dropped");
            seen
        }
    };
    // Nothing is ever committed by reading a form.
    for entry in std::fs::read_dir(&harness.root).unwrap() {
        let entry = entry.unwrap();
        assert_eq!(entry.file_name(), "staging", "the store holds {:?}", entry.path());
    }
    seen
}

fn check_staged(staged: &StagedFile, pushed: &[u8], body: &[u8], staging: &Path) {
    let content = staged.content();
    assert!(!pushed.is_empty(), "an empty upload was staged");
    assert_eq!(content.size, pushed.len() as u64, "staged size");
    let digest: [u8; 32] = Sha256::digest(pushed).into();
    assert_eq!(content.sha256, Sha256Digest::from_bytes(digest), "staged digest");
    assert_eq!(
        staged.path().parent(),
        Some(staging),
        "staged outside the staging area"
    );
    let on_disk = std::fs::read(staged.path()).unwrap();
    assert!(
        on_disk == pushed,
        "the staged file holds other bytes than were pushed"
    );
    assert!(
        memchr::memmem::find(body, pushed).is_some(),
        "the staged bytes are not a part of the body"
    );
    let head = &pushed[..pushed.len().min(SNIFF_LEN)];
    let judged = sniff(head).expect("a staged file whose first bytes are refused");
    assert_eq!(content.mime_type, judged.mime, "judged type");
    assert_eq!(content.kind, judged.kind, "judged kind");
    assert!(
        content.size <= LIMITS.for_file(&judged),
        "over the kind's limit"
    );
}

fn assert_empty(staging: &Path, when: &str) {
    let left: Vec<_> = std::fs::read_dir(staging)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(left.is_empty(), "staged files left {when}: {left:?}");
}

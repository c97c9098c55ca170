//! Real (tiny) files built byte by byte, and helpers.

use herald_media::FsMediaStore;
use sha2::{Digest, Sha256};
use std::path::Path;

// The accepted kinds come from herald-testkit, shared with the end-to-end tests.
pub use herald_testkit::files::{elf, iso_media, jpeg, mp4 as mp4_isom, pdf, png, three_gp};

pub fn mp4_mp42() -> Vec<u8> {
    iso_media(b"mp42", &[b"mp42", b"isom"])
}

pub fn gif() -> Vec<u8> {
    let mut out = b"GIF89a".to_vec();
    out.extend_from_slice(&[1, 0, 1, 0, 0, 0, 0, b';']);
    out
}

pub fn webp() -> Vec<u8> {
    let mut out = b"RIFF".to_vec();
    out.extend_from_slice(&[26, 0, 0, 0]);
    out.extend_from_slice(b"WEBPVP8L");
    out.extend_from_slice(&[0; 18]);
    out
}

pub fn pe() -> Vec<u8> {
    let mut out = b"MZ".to_vec();
    out.resize(128, 0);
    out.extend_from_slice(b"PE\0\0");
    out
}

/// Deterministic noise (a fixed-seed xorshift), long enough to be sniffed in full.
pub fn noise(len: usize) -> Vec<u8> {
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state.to_le_bytes()[3]
        })
        .collect()
}

pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// A fresh store in its own temporary directory (kept alive by the returned guard).
pub async fn store() -> (tempfile::TempDir, FsMediaStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = FsMediaStore::open(dir.path().join("media")).await.unwrap();
    (dir, store)
}

/// Every file name in a directory.
pub fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Every stored (non-staging) file under a store root, as relative paths.
pub fn stored_files(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for dir in entries(root) {
        if dir == "staging" {
            continue;
        }
        for file in entries(&root.join(&dir)) {
            out.push(format!("{dir}/{file}"));
        }
    }
    out
}

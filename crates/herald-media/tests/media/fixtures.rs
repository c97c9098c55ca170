//! Real (tiny) files built byte by byte, and helpers.

use herald_media::FsMediaStore;
use sha2::{Digest, Sha256};
use std::path::Path;

// The accepted kinds come from herald-testkit, shared with the end-to-end tests.
pub use herald_testkit::files::{
    aac_adts, amr, elf, iso_media, jpeg, m4a, mp3_frame, mp3_id3, mp4 as mp4_isom, ogg_opus, ogg_vorbis, pdf,
    png, three_gp, webp_animated, webp_lossless, webp_static,
};

pub fn mp4_mp42() -> Vec<u8> {
    iso_media(b"mp42", &[b"mp42", b"isom"])
}

pub fn gif() -> Vec<u8> {
    let mut out = b"GIF89a".to_vec();
    out.extend_from_slice(&[1, 0, 1, 0, 0, 0, 0, b';']);
    out
}

/// A RIFF `WEBP` form whose first chunk is none WebP defines.
pub fn webp_without_chunk() -> Vec<u8> {
    let mut out = b"RIFF".to_vec();
    out.extend_from_slice(&[26, 0, 0, 0]);
    out.extend_from_slice(b"WEBPJUNK");
    out.extend_from_slice(&[0; 18]);
    out
}

/// A RIFF `WAVE` header: audio the network does not take.
pub fn wav() -> Vec<u8> {
    let mut out = b"RIFF".to_vec();
    out.extend_from_slice(&[36, 0, 0, 0]);
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&[
        16, 0, 0, 0, 1, 0, 1, 0, 0x44, 0xAC, 0, 0, 0x88, 0x58, 1, 0, 2, 0, 16, 0,
    ]);
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

//! Real (tiny) files built byte by byte, and helpers.

use herald_media::FsMediaStore;
use sha2::{Digest, Sha256};
use std::path::Path;

pub fn pdf() -> Vec<u8> {
    b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n\
      2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n\
      trailer\n<< /Root 1 0 R >>\n%%EOF\n"
        .to_vec()
}

/// SOI, an APP0 JFIF header, EOI.
pub fn jpeg() -> Vec<u8> {
    let mut out = vec![0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10];
    out.extend_from_slice(b"JFIF\0");
    out.extend_from_slice(&[0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]);
    out.extend_from_slice(&[0xFF, 0xD9]);
    out
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFF_u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn adler32(bytes: &[u8]) -> u32 {
    let (mut a, mut b) = (1_u32, 0_u32);
    for &x in bytes {
        a = (a + u32::from(x)) % 65521;
        b = (b + a) % 65521;
    }
    (b << 16) | a
}

fn png_chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&u32::try_from(data.len()).unwrap().to_be_bytes());
    let mut typed = kind.to_vec();
    typed.extend_from_slice(data);
    out.extend_from_slice(&typed);
    out.extend_from_slice(&crc32(&typed).to_be_bytes());
}

/// A valid 1×1 greyscale PNG: signature, IHDR, IDAT (a stored zlib block), IEND, with correct CRCs.
pub fn png() -> Vec<u8> {
    let mut out = vec![0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];
    png_chunk(&mut out, b"IHDR", &[0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0]);
    let scanline = [0_u8, 0];
    let mut zlib = vec![0x78, 0x01, 0x01, 0x02, 0x00, 0xFD, 0xFF];
    zlib.extend_from_slice(&scanline);
    zlib.extend_from_slice(&adler32(&scanline).to_be_bytes());
    png_chunk(&mut out, b"IDAT", &zlib);
    png_chunk(&mut out, b"IEND", &[]);
    out
}

/// An ISO media file: an `ftyp` box with these brands, then an empty `mdat`.
fn iso_media(major: &[u8; 4], compatible: &[&[u8; 4]]) -> Vec<u8> {
    let size = 16 + 4 * compatible.len();
    let mut out = u32::try_from(size).unwrap().to_be_bytes().to_vec();
    out.extend_from_slice(b"ftyp");
    out.extend_from_slice(major);
    out.extend_from_slice(&[0, 0, 2, 0]);
    for brand in compatible {
        out.extend_from_slice(*brand);
    }
    out.extend_from_slice(&[0, 0, 0, 8]);
    out.extend_from_slice(b"mdat");
    out
}

pub fn mp4_isom() -> Vec<u8> {
    iso_media(b"isom", &[b"isom", b"iso2", b"avc1", b"mp41"])
}

pub fn mp4_mp42() -> Vec<u8> {
    iso_media(b"mp42", &[b"mp42", b"isom"])
}

pub fn three_gp() -> Vec<u8> {
    iso_media(b"3gp4", &[b"3gp4", b"isom"])
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

pub fn elf() -> Vec<u8> {
    let mut out = vec![0x7F, b'E', b'L', b'F', 2, 1, 1, 0];
    out.resize(64, 0);
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

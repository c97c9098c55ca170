//! Real, tiny files of every kind Herald takes (and some it refuses), built byte by byte, for tests that
//! upload, sniff and send them.

/// A minimal PDF: header, catalog, empty page tree, trailer.
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

/// An MP4 (ISO base media, `isom` brand with H.264 `avc1`): an `ftyp` box and an empty `mdat`.
pub fn mp4() -> Vec<u8> {
    iso_media(b"isom", &[b"isom", b"iso2", b"avc1", b"mp41"])
}

/// A 3GPP file: an `ftyp` box with a `3gp4` major brand and an empty `mdat`.
pub fn three_gp() -> Vec<u8> {
    iso_media(b"3gp4", &[b"3gp4", b"isom"])
}

/// The start of a Linux executable.
pub fn elf() -> Vec<u8> {
    let mut out = vec![0x7F, b'E', b'L', b'F', 2, 1, 1, 0];
    out.resize(64, 0);
    out
}

/// Plain text that mentions PDF without being one.
pub fn text_posing_as_pdf() -> Vec<u8> {
    b"This is not a PDF, although it says %PDF-1.4 somewhere in its first line.\n".to_vec()
}

/// `file` followed by zero bytes up to `len` (the kind is judged from the head; the size counts all).
pub fn padded(mut file: Vec<u8>, len: usize) -> Vec<u8> {
    file.resize(len.max(file.len()), 0);
    file
}

/// An ISO base media file: an `ftyp` box with these brands, then an empty `mdat`.
pub fn iso_media(major: &[u8; 4], compatible: &[&[u8; 4]]) -> Vec<u8> {
    let size = 16 + 4 * compatible.len();
    let mut out = u32::try_from(size).unwrap_or(u32::MAX).to_be_bytes().to_vec();
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
    out.extend_from_slice(&u32::try_from(data.len()).unwrap_or(u32::MAX).to_be_bytes());
    let mut typed = kind.to_vec();
    typed.extend_from_slice(data);
    out.extend_from_slice(&typed);
    out.extend_from_slice(&crc32(&typed).to_be_bytes());
}

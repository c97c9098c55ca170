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

/// An Ogg Opus file (RFC 7845): a first page holding the `OpusHead` identification header (mono, 48 kHz),
/// a second holding `OpusTags`, each with its real Ogg CRC.
pub fn ogg_opus() -> Vec<u8> {
    let mut head = b"OpusHead".to_vec();
    head.extend_from_slice(&[1, 1]);
    head.extend_from_slice(&312_u16.to_le_bytes());
    head.extend_from_slice(&48_000_u32.to_le_bytes());
    head.extend_from_slice(&[0, 0, 0]);
    let mut tags = b"OpusTags".to_vec();
    tags.extend_from_slice(&6_u32.to_le_bytes());
    tags.extend_from_slice(b"herald");
    tags.extend_from_slice(&0_u32.to_le_bytes());
    let mut out = ogg_page(0x02, 0, &head);
    out.extend_from_slice(&ogg_page(0x00, 1, &tags));
    out
}

/// An Ogg Vorbis file's first page (the `\x01vorbis` identification header): Ogg, but not Opus.
pub fn ogg_vorbis() -> Vec<u8> {
    let mut head = b"\x01vorbis".to_vec();
    head.extend_from_slice(&0_u32.to_le_bytes());
    head.push(1);
    head.extend_from_slice(&44_100_u32.to_le_bytes());
    head.extend_from_slice(&[0; 4]);
    head.extend_from_slice(&128_000_u32.to_le_bytes());
    head.extend_from_slice(&[0; 4]);
    head.extend_from_slice(&[0xB8, 0x01]);
    ogg_page(0x02, 0, &head)
}

/// An AMR narrowband file (RFC 4867 §5): the `#!AMR\n` magic and three 12.2 kbit/s frames of silence.
pub fn amr() -> Vec<u8> {
    let mut out = b"#!AMR\n".to_vec();
    for _ in 0..3 {
        out.push(0x3C);
        out.extend_from_slice(&[0; 31]);
    }
    out
}

/// An MP3 with an ID3v2.4 tag (10 bytes of padding) before one MPEG-1 Layer III frame (128 kbit/s,
/// 44.1 kHz, 417 bytes).
pub fn mp3_id3() -> Vec<u8> {
    let mut out = b"ID3".to_vec();
    out.extend_from_slice(&[4, 0, 0, 0, 0, 0, 10]);
    out.extend_from_slice(&[0; 10]);
    out.extend_from_slice(&mp3_frame());
    out
}

/// One MPEG-1 Layer III frame with no tag before it: frame sync, 128 kbit/s, 44.1 kHz.
pub fn mp3_frame() -> Vec<u8> {
    let mut out = vec![0xFF, 0xFB, 0x90, 0x64];
    out.resize(417, 0);
    out
}

/// Raw AAC in ADTS: two 13-byte frames (MPEG-4 AAC LC, 44.1 kHz, mono, no CRC).
pub fn aac_adts() -> Vec<u8> {
    let frame = [
        0xFF, 0xF1, 0x50, 0x40, 0x01, 0xBF, 0xFC, 0x21, 0x10, 0x04, 0x60, 0x8C, 0x1C,
    ];
    let mut out = frame.to_vec();
    out.extend_from_slice(&frame);
    out
}

/// MP4 audio (`.m4a`): an `ftyp` box with the `M4A ` major brand and an empty `mdat`.
pub fn m4a() -> Vec<u8> {
    iso_media(b"M4A ", &[b"M4A ", b"mp42", b"isom"])
}

/// A static 1×1 lossy WebP (`VP8 `), a real file (Modernizr's WebP probe).
pub fn webp_static() -> Vec<u8> {
    vec![
        0x52, 0x49, 0x46, 0x46, 0x24, 0x00, 0x00, 0x00, 0x57, 0x45, 0x42, 0x50, 0x56, 0x50, 0x38, 0x20, 0x18,
        0x00, 0x00, 0x00, 0x30, 0x01, 0x00, 0x9D, 0x01, 0x2A, 0x01, 0x00, 0x01, 0x00, 0x03, 0x00, 0x34, 0x25,
        0xA4, 0x00, 0x03, 0x70, 0x00, 0xFE, 0xFB, 0x94, 0x00, 0x00,
    ]
}

/// A static 1×1 lossless WebP (`VP8L`), a real file (Modernizr's lossless probe).
pub fn webp_lossless() -> Vec<u8> {
    vec![
        0x52, 0x49, 0x46, 0x46, 0x1A, 0x00, 0x00, 0x00, 0x57, 0x45, 0x42, 0x50, 0x56, 0x50, 0x38, 0x4C, 0x0D,
        0x00, 0x00, 0x00, 0x2F, 0x00, 0x00, 0x00, 0x10, 0x07, 0x10, 0x11, 0x11, 0x88, 0x88, 0xFE, 0x07, 0x00,
    ]
}

/// An animated 1×1 WebP: a `VP8X` header with the animation (and alpha) flags, `ANIM`, one `ANMF`
/// frame (Modernizr's animation probe).
pub fn webp_animated() -> Vec<u8> {
    vec![
        0x52, 0x49, 0x46, 0x46, 0x52, 0x00, 0x00, 0x00, 0x57, 0x45, 0x42, 0x50, 0x56, 0x50, 0x38, 0x58, 0x0A,
        0x00, 0x00, 0x00, 0x12, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x41, 0x4E, 0x49, 0x4D,
        0x06, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x41, 0x4E, 0x4D, 0x46, 0x26, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x64, 0x00, 0x00, 0x00,
        0x56, 0x50, 0x38, 0x4C, 0x0D, 0x00, 0x00, 0x00, 0x2F, 0x00, 0x00, 0x00, 0x10, 0x07, 0x10, 0x11, 0x11,
        0x88, 0x88, 0xFE, 0x07, 0x00,
    ]
}

/// One Ogg page holding `payload` as a single packet (`payload` under 255 bytes), with its CRC.
fn ogg_page(header_type: u8, sequence: u32, payload: &[u8]) -> Vec<u8> {
    let mut page = b"OggS".to_vec();
    page.push(0);
    page.push(header_type);
    page.extend_from_slice(&0_u64.to_le_bytes());
    page.extend_from_slice(&0x4845_5241_u32.to_le_bytes());
    page.extend_from_slice(&sequence.to_le_bytes());
    page.extend_from_slice(&[0; 4]);
    page.push(1);
    page.push(u8::try_from(payload.len()).unwrap_or(u8::MAX));
    page.extend_from_slice(payload);
    let crc = ogg_crc(&page).to_le_bytes();
    page.splice(22..26, crc);
    page
}

/// Ogg's CRC-32: polynomial 0x04C11DB7, not reflected, no initial or final XOR.
fn ogg_crc(bytes: &[u8]) -> u32 {
    let mut crc = 0_u32;
    for &b in bytes {
        crc ^= u32::from(b) << 24;
        for _ in 0..8 {
            crc = if crc & 0x8000_0000 != 0 {
                (crc << 1) ^ 0x04C1_1DB7
            } else {
                crc << 1
            };
        }
    }
    crc
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

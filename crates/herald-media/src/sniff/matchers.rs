//! Strict magic-number checks for the types `infer` judges loosely or not at all. Each looks only at the
//! first few dozen bytes, so [`super::SNIFF_LEN`] is plenty; none indexes past what it was given.

/// `len` bytes at `at`, if the buffer has them.
fn bytes(buf: &[u8], at: usize, len: usize) -> Option<&[u8]> {
    buf.get(at..at.checked_add(len)?)
}

fn byte(buf: &[u8], at: usize) -> Option<u8> {
    buf.get(at).copied()
}

/// An ISO media file whose major brand is a 3GPP one (`3gp4` … `3gp7`); `3g2` files are 3GPP2, which
/// the network does not take.
pub(super) fn is_3gpp(buf: &[u8]) -> bool {
    bytes(buf, 4, 4) == Some(b"ftyp") && bytes(buf, 8, 3) == Some(b"3gp")
}

/// An ISO media file whose major brand is `M4A ` (Apple's and ffmpeg's `.m4a`): MP4 audio. Video brands
/// stay video.
pub(super) fn is_m4a(buf: &[u8]) -> bool {
    bytes(buf, 4, 4) == Some(b"ftyp") && bytes(buf, 8, 4) == Some(b"M4A ")
}

/// The first page of an Ogg stream (`OggS`, stream structure version 0).
pub(super) fn is_ogg(buf: &[u8]) -> bool {
    bytes(buf, 0, 4) == Some(b"OggS")
}

/// An Ogg stream whose first page opens an Opus stream: the beginning-of-stream page carries the
/// `OpusHead` identification header (RFC 7845 §5.1), after the page header's 27 bytes and its segment
/// table, with a version whose major part is 0 and at least one channel. Ogg Vorbis, FLAC or Speex is not.
pub(super) fn is_ogg_opus(buf: &[u8]) -> bool {
    const BEGINNING_OF_STREAM: u8 = 0x02;
    let first_page = is_ogg(buf)
        && byte(buf, 4) == Some(0)
        && byte(buf, 5).is_some_and(|flags| flags & BEGINNING_OF_STREAM != 0);
    let Some(segments) = byte(buf, 26) else {
        return false;
    };
    let payload = 27 + usize::from(segments);
    first_page
        && bytes(buf, payload, 8) == Some(b"OpusHead")
        && byte(buf, payload + 8).is_some_and(|version| version & 0xF0 == 0)
        && byte(buf, payload + 9).is_some_and(|channels| channels > 0)
}

/// An AMR (narrowband) file: the `#!AMR\n` magic of RFC 4867 §5. AMR-WB (`#!AMR-WB\n`) is another type
/// (`audio/amr-wb`), which the network does not list.
pub(super) fn is_amr(buf: &[u8]) -> bool {
    bytes(buf, 0, 6) == Some(b"#!AMR\n")
}

/// An MP3: an ID3v2 tag (`ID3`, version 2 to 4, a size of four 7-bit bytes) or an MPEG audio frame header
/// of Layer III (sync bits, a defined version, a bitrate that is neither free nor invalid, a defined
/// sample rate).
pub(super) fn is_mp3(buf: &[u8]) -> bool {
    let id3 = bytes(buf, 0, 3) == Some(b"ID3")
        && byte(buf, 3).is_some_and(|major| (2..=4).contains(&major))
        && byte(buf, 4).is_some_and(|revision| revision != 0xFF)
        && bytes(buf, 6, 4).is_some_and(|size| size.iter().all(|b| b & 0x80 == 0));
    id3 || is_mp3_frame(buf)
}

fn is_mp3_frame(buf: &[u8]) -> bool {
    let (Some(b0), Some(b1), Some(b2)) = (byte(buf, 0), byte(buf, 1), byte(buf, 2)) else {
        return false;
    };
    let sync = b0 == 0xFF && b1 & 0xE0 == 0xE0;
    let version_defined = (b1 >> 3) & 0b11 != 0b01;
    let layer_3 = (b1 >> 1) & 0b11 == 0b01;
    let bitrate = b2 >> 4;
    let sample_rate = (b2 >> 2) & 0b11;
    sync && version_defined && layer_3 && bitrate != 0 && bitrate != 0xF && sample_rate != 0b11
}

/// Raw AAC in ADTS frames (`.aac`): the 12 sync bits, layer 0, a defined sampling frequency index and a
/// frame at least as long as its own 7-byte header.
pub(super) fn is_aac_adts(buf: &[u8]) -> bool {
    let Some(&[b0, b1, b2, b3, b4, b5, _]) = bytes(buf, 0, 7) else {
        return false;
    };
    let sync = b0 == 0xFF && b1 & 0xF0 == 0xF0;
    let layer_0 = (b1 >> 1) & 0b11 == 0;
    let frequency_defined = (b2 >> 2) & 0x0F <= 12;
    let frame_length = (usize::from(b3 & 0b11) << 11) | (usize::from(b4) << 3) | usize::from(b5 >> 5);
    sync && layer_0 && frequency_defined && frame_length >= 7
}

/// A WebP file: a RIFF container of form `WEBP` whose first chunk is one WebP defines (`VP8 ` lossy,
/// `VP8L` lossless, `VP8X` extended).
pub(super) fn is_webp(buf: &[u8]) -> bool {
    bytes(buf, 0, 4) == Some(b"RIFF")
        && bytes(buf, 8, 4) == Some(b"WEBP")
        && matches!(bytes(buf, 12, 4), Some(b"VP8 " | b"VP8L" | b"VP8X"))
}

/// A WebP whose `VP8X` header sets the animation flag (bit 1 of the flags byte): an animated sticker. The
/// simple formats (`VP8 `, `VP8L`) cannot animate.
pub(super) fn webp_is_animated(buf: &[u8]) -> bool {
    const ANIMATION: u8 = 0x02;
    bytes(buf, 12, 4) == Some(b"VP8X") && byte(buf, 20).is_some_and(|flags| flags & ANIMATION != 0)
}

use crate::fixtures;
use herald_domain::attachment::MediaKind;
use herald_media::{Sniffed, Unsupported, sniff};

fn verdict(kind: MediaKind, mime: &'static str) -> Result<Sniffed, Unsupported> {
    Ok(Sniffed {
        kind,
        mime,
        animated: false,
    })
}

#[test]
fn accepted_types_are_judged_from_their_bytes() {
    assert_eq!(
        sniff(&fixtures::pdf()),
        verdict(MediaKind::Document, "application/pdf")
    );
    assert_eq!(sniff(&fixtures::jpeg()), verdict(MediaKind::Image, "image/jpeg"));
    assert_eq!(sniff(&fixtures::png()), verdict(MediaKind::Image, "image/png"));
    assert_eq!(
        sniff(&fixtures::mp4_isom()),
        verdict(MediaKind::Video, "video/mp4")
    );
    assert_eq!(
        sniff(&fixtures::mp4_mp42()),
        verdict(MediaKind::Video, "video/mp4")
    );
    assert_eq!(
        sniff(&fixtures::three_gp()),
        verdict(MediaKind::Video, "video/3gpp")
    );
}

#[test]
fn text_with_a_document_name_is_refused() {
    // The name `invoice.pdf` never reaches the sniffer: only the bytes count.
    assert_eq!(
        sniff(b"This is invoice.pdf, honestly. %PDF-1.4"),
        Err(Unsupported::Other)
    );
    assert_eq!(sniff(b""), Err(Unsupported::Other));
}

#[test]
fn other_real_types_are_refused() {
    for (name, bytes) in [
        ("gif", fixtures::gif()),
        ("riff webp with no webp chunk", fixtures::webp_without_chunk()),
        ("wav", fixtures::wav()),
        ("amr-wb", b"#!AMR-WB\n\x04\x00\x00\x00".to_vec()),
        ("mp3 frame of layer ii", {
            let mut b = fixtures::mp3_frame();
            b[1] = 0xFD;
            b
        }),
        ("mp3 frame of a bad bitrate", {
            let mut b = fixtures::mp3_frame();
            b[2] = 0xF0;
            b
        }),
        ("id3 with a bad size", {
            let mut b = fixtures::mp3_id3();
            b[9] = 0x80;
            b
        }),
        ("m4v", fixtures::iso_media(b"M4V ", &[b"M4V ", b"isom"])),
        ("elf", fixtures::elf()),
        ("pe", fixtures::pe()),
        ("3gpp2", {
            let mut b = fixtures::three_gp();
            b[8..12].copy_from_slice(b"3g2a");
            b
        }),
    ] {
        assert_eq!(sniff(&bytes), Err(Unsupported::Other), "{name} must be refused");
    }
}

#[test]
fn random_bytes_are_refused() {
    assert_eq!(sniff(&fixtures::noise(4096)), Err(Unsupported::Other));
}

#[test]
fn a_pdf_marker_after_other_bytes_is_not_a_document() {
    let mut bytes = b"<html>".to_vec();
    bytes.extend_from_slice(&fixtures::pdf());
    assert_eq!(sniff(&bytes), Err(Unsupported::Other));
}

#[test]
fn audio_types_are_judged_from_their_bytes() {
    assert_eq!(
        sniff(&fixtures::ogg_opus()),
        verdict(MediaKind::Audio, "audio/ogg")
    );
    assert_eq!(sniff(&fixtures::amr()), verdict(MediaKind::Audio, "audio/amr"));
    assert_eq!(
        sniff(&fixtures::mp3_id3()),
        verdict(MediaKind::Audio, "audio/mpeg")
    );
    assert_eq!(
        sniff(&fixtures::mp3_frame()),
        verdict(MediaKind::Audio, "audio/mpeg")
    );
    assert_eq!(
        sniff(&fixtures::aac_adts()),
        verdict(MediaKind::Audio, "audio/aac")
    );
    // The `M4A ` brand is audio; the video brands beside it stay video.
    assert_eq!(sniff(&fixtures::m4a()), verdict(MediaKind::Audio, "audio/mp4"));
    assert_eq!(
        sniff(&fixtures::mp4_isom()),
        verdict(MediaKind::Video, "video/mp4")
    );
}

#[test]
fn ogg_is_audio_only_with_the_opus_codec() {
    assert_eq!(sniff(&fixtures::ogg_vorbis()), Err(Unsupported::OggNotOpus));
    // `OpusHead` must open the first packet of the first page, not merely appear in it.
    let mut shifted = fixtures::ogg_opus();
    shifted.insert(28, 0);
    assert_eq!(sniff(&shifted), Err(Unsupported::OggNotOpus));
    // A first page that is not the beginning of a stream cannot be a file's start.
    let mut not_first = fixtures::ogg_opus();
    not_first[5] = 0;
    assert_eq!(sniff(&not_first), Err(Unsupported::OggNotOpus));
    assert!(
        Unsupported::OggNotOpus
            .to_string()
            .contains("audio/ogg; codecs=opus")
    );
}

#[test]
fn webp_is_a_sticker_never_an_image_and_animation_is_read_from_vp8x() {
    let sticker = |animated| {
        Ok(Sniffed {
            kind: MediaKind::Sticker,
            mime: "image/webp",
            animated,
        })
    };
    assert_eq!(sniff(&fixtures::webp_static()), sticker(false));
    assert_eq!(sniff(&fixtures::webp_lossless()), sticker(false));
    assert_eq!(sniff(&fixtures::webp_animated()), sticker(true));
    // A VP8X header without the animation flag is a still image, however it is laid out.
    let mut still = fixtures::webp_animated();
    still[20] &= !0x02;
    assert_eq!(sniff(&still), sticker(false));
}

#[test]
fn each_sticker_limit_follows_its_animation() {
    let limit = |file: Vec<u8>| sniff(&file).unwrap().max_bytes();
    assert_eq!(limit(fixtures::webp_static()), 100_000);
    assert_eq!(limit(fixtures::webp_animated()), 500_000);
    assert_eq!(limit(fixtures::ogg_opus()), 16_000_000);
}

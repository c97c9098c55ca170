use crate::fixtures;
use herald_domain::message::MediaKind;
use herald_media::{Sniffed, Unsupported, sniff};

fn verdict(kind: MediaKind, mime: &'static str) -> Result<Sniffed, Unsupported> {
    Ok(Sniffed { kind, mime })
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
        Err(Unsupported)
    );
    assert_eq!(sniff(b""), Err(Unsupported));
}

#[test]
fn other_real_types_are_refused() {
    for (name, bytes) in [
        ("gif", fixtures::gif()),
        ("webp", fixtures::webp()),
        ("elf", fixtures::elf()),
        ("pe", fixtures::pe()),
        ("3gpp2", {
            let mut b = fixtures::three_gp();
            b[8..12].copy_from_slice(b"3g2a");
            b
        }),
    ] {
        assert_eq!(sniff(&bytes), Err(Unsupported), "{name} must be refused");
    }
}

#[test]
fn random_bytes_are_refused() {
    assert_eq!(sniff(&fixtures::noise(4096)), Err(Unsupported));
}

#[test]
fn a_pdf_marker_after_other_bytes_is_not_a_document() {
    let mut bytes = b"<html>".to_vec();
    bytes.extend_from_slice(&fixtures::pdf());
    assert_eq!(sniff(&bytes), Err(Unsupported));
}

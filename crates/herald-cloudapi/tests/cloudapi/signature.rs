//! `X-Hub-Signature-256` verification.

use herald_cloudapi::{SignatureError, verify_signature};

const SECRET: &[u8] = b"app-secret";
const BODY: &[u8] = br#"{"object":"whatsapp_business_account","entry":[]}"#;
/// HMAC-SHA256(SECRET, BODY), computed independently (Python's `hmac`).
const DIGEST: &str = "d3e4f9da0ce6c71ab3dba55929b8eeeee2455349e534924ead19f98d143e904f";

#[test]
fn the_right_signature_is_accepted() {
    assert_eq!(
        verify_signature(SECRET, Some(&format!("sha256={DIGEST}")), BODY),
        Ok(())
    );
}

#[test]
fn wrong_missing_and_malformed_signatures_are_refused() {
    let header = format!("sha256={DIGEST}");
    assert_eq!(
        verify_signature(b"another-secret", Some(&header), BODY),
        Err(SignatureError::Mismatch)
    );
    assert_eq!(verify_signature(SECRET, None, BODY), Err(SignatureError::Missing));
    for malformed in [
        DIGEST.to_owned(),
        format!("sha1={DIGEST}"),
        "sha256=zz".to_owned(),
        String::new(),
    ] {
        assert_eq!(
            verify_signature(SECRET, Some(&malformed), BODY),
            Err(SignatureError::Malformed),
            "{malformed}"
        );
    }
    // A truncated digest is well-formed hex but not the signature.
    assert_eq!(
        verify_signature(SECRET, Some(&header[..header.len() - 2]), BODY),
        Err(SignatureError::Mismatch)
    );
}

#[test]
fn a_body_changed_by_one_byte_is_refused() {
    let header = format!("sha256={DIGEST}");
    let mut changed = BODY.to_vec();
    let last_brace = changed.len() - 2;
    changed[last_brace] ^= 0x01;
    assert_eq!(
        verify_signature(SECRET, Some(&header), &changed),
        Err(SignatureError::Mismatch)
    );
    let mut longer = BODY.to_vec();
    longer.push(b' ');
    assert_eq!(
        verify_signature(SECRET, Some(&header), &longer),
        Err(SignatureError::Mismatch)
    );
}

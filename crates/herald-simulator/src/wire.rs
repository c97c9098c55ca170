//! Small wire-format helpers: ids shaped like Meta's, ASCII-only JSON, callback signatures.

use std::fmt::Write as _;

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use hmac::{Hmac, Mac};
use rand::Rng as _;
use sha2::Sha256;

/// A wamid: `wamid.` + base64, at most 128 characters like Meta's.
pub(crate) fn wamid(wa_id: &str) -> String {
    // Meta's wamids are base64 of a binary record that embeds the recipient; embedding a ULID keeps
    // ours unique and roughly time-ordered.
    let raw = format!("HBgL{wa_id}FQIAERgS{}", ulid::Ulid::new());
    format!("wamid.{}", STANDARD.encode(raw))
}

/// An opaque `fbtrace_id` like the ones on Graph errors.
pub(crate) fn fbtrace_id() -> String {
    let bytes: [u8; 17] = rand::rng().random();
    URL_SAFE_NO_PAD.encode(bytes)
}

/// The digits of a phone number (`+1 (650) 555-1234` → `16505551234`), or `None` if it holds anything
/// besides digits and the usual formatting characters, or too few or too many digits.
pub(crate) fn wa_id(phone: &str) -> Option<String> {
    if !phone
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '+' | ' ' | '-' | '(' | ')' | '.'))
    {
        return None;
    }
    let digits: String = phone.chars().filter(char::is_ascii_digit).collect();
    (5..=15).contains(&digits.len()).then_some(digits)
}

/// Unix seconds as the string webhooks carry.
pub(crate) fn timestamp_now() -> String {
    chrono::Utc::now().timestamp().to_string()
}

/// Serializes `value` as JSON with every non-ASCII character written as a lowercase `\uXXXX` escape
/// (surrogate pairs beyond the BMP), the form Meta signs (docs/cloud-api.md §4.2).
pub(crate) fn ascii_json(value: &serde_json::Value) -> Vec<u8> {
    // serde_json only ever emits non-ASCII characters inside string literals, so escaping them after
    // the fact yields valid JSON that parses back to the same value.
    let text = value.to_string();
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                let _ = write!(out, "\\u{unit:04x}");
            }
        }
    }
    out.into_bytes()
}

/// `sha256=<lowercase hex HMAC-SHA256(secret, body)>`, the `X-Hub-Signature-256` header value.
pub(crate) fn signature(secret: &str, body: &[u8]) -> String {
    // HMAC accepts keys of any length, so this never falls back in practice.
    match Hmac::<Sha256>::new_from_slice(secret.as_bytes()) {
        Ok(mut mac) => {
            mac.update(body);
            format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
        }
        Err(_) => "sha256=".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_json_escapes_bmp_and_astral_characters() {
        let value = serde_json::json!({ "t": "Olá 😀 \"q\"" });
        let bytes = ascii_json(&value);
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(text.is_ascii());
        assert!(text.contains(r#"Ol\u00e1 \ud83d\ude00 \"q\""#), "{text}");
        let back: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(back, value);
    }

    #[test]
    fn wa_id_strips_formatting_and_rejects_garbage() {
        assert_eq!(wa_id("+1 (650) 555-1234").as_deref(), Some("16505551234"));
        assert_eq!(wa_id("abc123"), None);
        assert_eq!(wa_id("+12"), None);
    }

    #[test]
    fn wamids_are_prefixed_unique_and_short() {
        let (a, b) = (wamid("16505551234"), wamid("16505551234"));
        assert!(a.starts_with("wamid.") && a.len() <= 128);
        assert_ne!(a, b);
    }

    #[test]
    fn signature_matches_a_known_vector() {
        // RFC 4231 test case 2.
        let sig = signature("Jefe", b"what do ya want for nothing?");
        assert_eq!(
            sig,
            "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }
}

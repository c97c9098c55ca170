//! Value types with validating constructors. A value of one of these types is valid by construction;
//! adapters turn client input into them and report the [`InvalidValue`] under the client's field name.

use crate::error::InvalidValue;
use std::fmt;

mod person_key;
mod user_id;

pub use user_id::UserId;

fn char_count_between(value: &str, min: usize, max: usize, what: &str) -> Result<(), InvalidValue> {
    let count = value.chars().count();
    if count < min {
        return Err(if min == 1 {
            InvalidValue::new(format!("{what} must not be empty"))
        } else {
            InvalidValue::new(format!("{what} must be at least {min} characters"))
        });
    }
    if count > max {
        return Err(InvalidValue::new(format!(
            "{what} must be at most {max} characters, got {count}"
        )));
    }
    Ok(())
}

/// A phone number in E.164 form: `+`, then 8 to 15 digits, the first not 0.
///
/// Nothing is "fixed": spaces, dashes, a missing `+` or letters are refused, so what is stored is
/// exactly what the client meant. A contact is kept under [`PhoneNumber::person_key`], which makes the national
/// variants of one person's number one.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PhoneNumber(String);

impl PhoneNumber {
    /// # Errors
    /// [`InvalidValue`] when `value` is not strict E.164.
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        let invalid = || {
            InvalidValue::new(
                "must be an E.164 number: `+` then 8 to 15 digits, the first not 0 (e.g. +15551234567)",
            )
        };
        let digits = value.strip_prefix('+').ok_or_else(invalid)?;
        let valid = (8..=15).contains(&digits.len())
            && digits.bytes().all(|b| b.is_ascii_digit())
            && !digits.starts_with('0');
        if valid {
            Ok(Self(value.to_owned()))
        } else {
            Err(invalid())
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The digits without `+`, as the network writes a WhatsApp id (`wa_id`).
    pub fn digits(&self) -> &str {
        self.0.strip_prefix('+').unwrap_or(&self.0)
    }

    /// Parses the network's digits-only form (`16505551234`).
    ///
    /// # Errors
    /// [`InvalidValue`] when the digits do not make an E.164 number.
    pub fn from_digits(digits: &str) -> Result<Self, InvalidValue> {
        Self::parse(&format!("+{digits}"))
    }
}

impl fmt::Display for PhoneNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Refuses control characters (NUL above all: PostgreSQL cannot store it in text), except the line breaks
/// and tabs of multi-line text when `line_breaks` allows them.
pub fn no_control_characters(value: &str, what: &str, line_breaks: bool) -> Result<(), InvalidValue> {
    let allowed = |c: char| line_breaks && matches!(c, '\n' | '\r' | '\t');
    if value.chars().any(|c| c.is_control() && !allowed(c)) {
        return Err(InvalidValue::new(if line_breaks {
            format!("{what} must not contain control characters other than line breaks and tabs")
        } else {
            format!("{what} must not contain control characters")
        }));
    }
    Ok(())
}

macro_rules! bounded_text {
    ($(#[$doc:meta])* $name:ident, $min:expr, $max:expr, $what:literal, line_breaks: $breaks:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub struct $name(String);

        impl $name {
            /// Smallest length, in Unicode scalar values.
            pub const MIN_CHARS: usize = $min;
            /// Largest length, in Unicode scalar values.
            pub const MAX_CHARS: usize = $max;

            /// # Errors
            /// [`InvalidValue`] when the length is out of bounds or the text holds control characters.
            pub fn parse(value: &str) -> Result<Self, InvalidValue> {
                char_count_between(value, $min, $max, $what)?;
                no_control_characters(value, $what, $breaks)?;
                Ok(Self(value.to_owned()))
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

bounded_text!(
    /// The body of a text message: 1 to 4096 characters of any script, emoji included.
    MessageText, 1, 4096, "message", line_breaks: true
);
bounded_text!(
    /// A media caption: 1 to 1024 characters.
    Caption, 1, 1024, "caption", line_breaks: true
);
bounded_text!(
    /// A document's file name as the recipient sees it: 1 to 240 characters.
    FileName, 1, 240, "filename", line_breaks: false
);
bounded_text!(
    /// A human name for an organization, key or endpoint: 1 to 200 characters.
    DisplayName, 1, 200, "name", line_breaks: false
);

/// The integrator's own reference for a message, echoed in the resource and every event: 1 to 128
/// printable characters.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ClientReference(String);

impl ClientReference {
    pub const MAX_CHARS: usize = 128;

    /// # Errors
    /// [`InvalidValue`] when empty, too long or holding control characters.
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        char_count_between(value, 1, Self::MAX_CHARS, "client_reference")?;
        if value.chars().any(char::is_control) {
            return Err(InvalidValue::new(
                "client_reference must not contain control characters",
            ));
        }
        Ok(Self(value.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The `Idempotency-Key` header: 1 to 255 visible ASCII characters.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IdempotencyKey(String);

impl IdempotencyKey {
    pub const MAX_LEN: usize = 255;

    /// # Errors
    /// [`InvalidValue`] when empty, too long, or not visible ASCII.
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        if value.is_empty() || value.len() > Self::MAX_LEN {
            return Err(InvalidValue::new("Idempotency-Key must be 1 to 255 characters"));
        }
        if !value.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(InvalidValue::new(
                "Idempotency-Key must be visible ASCII characters",
            ));
        }
        Ok(Self(value.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A digest of a send request's meaning (operation + canonical body), so a retry with the same key and a
/// different body can be told apart from a true retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RequestFingerprint([u8; 32]);

impl RequestFingerprint {
    /// Digests the canonical bytes of a request.
    pub fn of(canonical: &[u8]) -> Self {
        use sha2::Digest;
        Self(sha2::Sha256::digest(canonical).into())
    }

    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        Self(bytes)
    }

    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// Lowercase hex, for storage.
    pub fn to_hex(&self) -> String {
        hex_lower(&self.0)
    }

    /// # Errors
    /// [`InvalidValue`] when `value` is not 64 hex digits.
    pub fn from_hex(value: &str) -> Result<Self, InvalidValue> {
        parse_hex32(value).map(Self)
    }
}

/// A public `https://` (or, where the operator allows it, `http://`) URL of a hosted file.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MediaLink(String);

impl MediaLink {
    /// # Errors
    /// [`InvalidValue`] when not an absolute http(s) URL of at most 2048 characters with a host.
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        let rest = value
            .strip_prefix("https://")
            .or_else(|| value.strip_prefix("http://"))
            .ok_or_else(|| InvalidValue::new("link must be an absolute https:// URL"))?;
        let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
        if host.is_empty() || value.len() > 2048 || value.chars().any(|c| c.is_whitespace() || c.is_control())
        {
            return Err(InvalidValue::new("link must be an absolute https:// URL"));
        }
        Ok(Self(value.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

pub(crate) fn hex_lower(bytes: &[u8]) -> String {
    use fmt::Write;
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

pub(crate) fn parse_hex32(value: &str) -> Result<[u8; 32], InvalidValue> {
    let invalid = || InvalidValue::new("must be 64 hexadecimal digits");
    if value.len() != 64 {
        return Err(invalid());
    }
    let mut out = [0_u8; 32];
    for (slot, pair) in out.iter_mut().zip(value.as_bytes().chunks_exact(2)) {
        let text = std::str::from_utf8(pair).map_err(|_| invalid())?;
        *slot = u8::from_str_radix(text, 16).map_err(|_| invalid())?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_text_refuses_control_characters_but_multi_line_text_keeps_its_line_breaks() {
        for bad in ["nul\0", "bell\u{7}", "esc\u{1b}[0m", "del\u{7f}", "c1\u{85}"] {
            assert!(DisplayName::parse(bad).is_err(), "{bad:?}");
            assert!(FileName::parse(bad).is_err(), "{bad:?}");
            assert!(MessageText::parse(bad).is_err(), "{bad:?}");
            assert!(Caption::parse(bad).is_err(), "{bad:?}");
        }
        for name_only in ["two\nlines", "tab\there"] {
            assert!(DisplayName::parse(name_only).is_err(), "{name_only:?}");
            assert!(FileName::parse(name_only).is_err(), "{name_only:?}");
            assert!(MessageText::parse(name_only).is_ok(), "{name_only:?}");
            assert!(Caption::parse(name_only).is_ok(), "{name_only:?}");
        }
        assert!(DisplayName::parse("Acme — Ünïcode ✓ 📦").is_ok());
    }

    #[test]
    fn phone_numbers_are_strict_e164() {
        for good in ["+15551234567", "+49301234567", "+12345678", "+123456789012345"] {
            assert_eq!(PhoneNumber::parse(good).unwrap().as_str(), good, "{good}");
        }
        for bad in [
            "15551234567",
            "+1 555 123 4567",
            "+1-555-123-4567",
            "+05551234567",
            "+1234567",
            "+1234567890123456",
            "+1555abc4567",
            "",
            "+",
            "++15551234567",
            "+１５５５１２３４５６７",
        ] {
            assert!(PhoneNumber::parse(bad).is_err(), "{bad} should be refused");
        }
    }

    #[test]
    fn phone_number_digits_round_trip() {
        let number = PhoneNumber::parse("+16505551234").unwrap();
        assert_eq!(number.digits(), "16505551234");
        assert_eq!(PhoneNumber::from_digits("16505551234").unwrap(), number);
    }

    #[test]
    fn message_text_counts_scalar_values_not_bytes() {
        assert!(MessageText::parse("").is_err());
        assert!(MessageText::parse(&"📦".repeat(4096)).is_ok());
        let too_long = MessageText::parse(&"a".repeat(4097)).unwrap_err();
        assert!(too_long.0.contains("at most 4096"), "{too_long}");
    }

    #[test]
    fn caption_and_reference_bounds() {
        assert!(Caption::parse(&"x".repeat(1024)).is_ok());
        assert!(Caption::parse(&"x".repeat(1025)).is_err());
        assert!(ClientReference::parse(&"r".repeat(128)).is_ok());
        assert!(ClientReference::parse(&"r".repeat(129)).is_err());
        assert!(ClientReference::parse("a\nb").is_err());
    }

    #[test]
    fn idempotency_keys_are_visible_ascii() {
        assert!(IdempotencyKey::parse("order-1234/retry").is_ok());
        assert!(IdempotencyKey::parse(&"k".repeat(255)).is_ok());
        assert!(IdempotencyKey::parse(&"k".repeat(256)).is_err());
        assert!(IdempotencyKey::parse("has space").is_err());
        assert!(IdempotencyKey::parse("").is_err());
    }

    #[test]
    fn fingerprints_round_trip_as_hex() {
        let fp = RequestFingerprint::of(b"body");
        assert_eq!(RequestFingerprint::from_hex(&fp.to_hex()).unwrap(), fp);
        assert_ne!(RequestFingerprint::of(b"other"), fp);
        assert!(RequestFingerprint::from_hex("zz").is_err());
    }

    #[test]
    fn links_need_a_scheme_and_host() {
        assert!(MediaLink::parse("https://example.com/a.pdf").is_ok());
        assert!(MediaLink::parse("ftp://example.com/a.pdf").is_err());
        assert!(MediaLink::parse("https:///a.pdf").is_err());
        assert!(MediaLink::parse("https://exa mple.com").is_err());
    }
}

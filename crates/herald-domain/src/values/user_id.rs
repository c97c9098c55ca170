//! The network's business-scoped user id of a person, usable where a phone number is.

use crate::error::InvalidValue;
use std::fmt;

/// The longest user id accepted: Meta's ids are a country code, a dot and up to 128 characters, and a
/// parent id adds one more segment (`US.ENT.…`).
const USER_ID_MAX: usize = 160;

/// A business-scoped user id (BSUID): the network's id of a WhatsApp user within one business portfolio,
/// usable instead of a phone number (`US.13491208655302741918`; a parent id `US.ENT.…`).
///
/// Syntax: two upper-case ASCII letters, then one or more `.`-separated segments of ASCII letters and
/// digits, at most 160 characters. It never begins with `+`, so it cannot be taken for an E.164 number.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UserId(String);

impl UserId {
    /// # Errors
    /// [`InvalidValue`] when `value` does not have the syntax above.
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        let invalid = || {
            InvalidValue::new(
                "must be a business-scoped user id: a two-letter country code, `.`, then letters and digits \
                 (e.g. US.13491208655302741918)",
            )
        };
        if value.len() > USER_ID_MAX {
            return Err(invalid());
        }
        let mut segments = value.split('.');
        let country = segments.next().unwrap_or_default();
        if country.len() != 2 || !country.bytes().all(|b| b.is_ascii_uppercase()) {
            return Err(invalid());
        }
        let mut rest = 0;
        for segment in segments {
            if segment.is_empty() || !segment.bytes().all(|b| b.is_ascii_alphanumeric()) {
                return Err(invalid());
            }
            rest += 1;
        }
        if rest == 0 {
            return Err(invalid());
        }
        Ok(Self(value.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for UserId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_ids_have_a_country_code_and_segments() {
        for good in [
            "US.13491208655302741918",
            "US.ENT.11815799212886844830",
            "BR.abc123",
        ] {
            assert_eq!(UserId::parse(good).unwrap().as_str(), good);
        }
        for bad in [
            "",
            "US",
            "US.",
            "us.123",
            "USA.123",
            "US..1",
            "US.12 3",
            "+15551234567",
            "15551234567",
            &format!("US.{}", "1".repeat(200)),
        ] {
            assert!(UserId::parse(bad).is_err(), "{bad} should be refused");
        }
    }
}

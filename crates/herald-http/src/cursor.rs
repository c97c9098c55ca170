//! The message log's page cursor: opaque to clients, URL-safe, versioned so its inside can change.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use herald_domain::ids::{BroadcastId, InboundId, MessageId};

/// Tags the encoding, so a later change of what a cursor holds can refuse (or translate) old ones.
const VERSION: &str = "v1:";

/// Encodes "the page after this message".
pub(crate) fn encode(last: &MessageId) -> String {
    URL_SAFE_NO_PAD.encode(format!("{VERSION}{last}"))
}

/// Encodes "the page after this inbound message" (the inbound list's cursor).
pub(crate) fn encode_inbound(last: &InboundId) -> String {
    URL_SAFE_NO_PAD.encode(format!("{VERSION}{last}"))
}

/// Decodes a cursor made by [`encode_inbound`].
///
/// # Errors
/// A message for the `cursor` field when it is not one of ours.
pub(crate) fn decode_inbound(cursor: &str) -> Result<InboundId, &'static str> {
    const INVALID: &str = "is not a cursor returned by this API";
    let bytes = URL_SAFE_NO_PAD.decode(cursor).map_err(|_| INVALID)?;
    let text = String::from_utf8(bytes).map_err(|_| INVALID)?;
    let id = text.strip_prefix(VERSION).ok_or(INVALID)?;
    InboundId::parse(id).map_err(|_| INVALID)
}

/// Encodes "the page after this broadcast" (the broadcast list's cursor).
pub(crate) fn encode_broadcast(last: &BroadcastId) -> String {
    URL_SAFE_NO_PAD.encode(format!("{VERSION}{last}"))
}

/// Decodes a cursor made by [`encode_broadcast`].
///
/// # Errors
/// A message for the `cursor` field when it is not one of ours.
pub(crate) fn decode_broadcast(cursor: &str) -> Result<BroadcastId, &'static str> {
    const INVALID: &str = "is not a cursor returned by this API";
    let bytes = URL_SAFE_NO_PAD.decode(cursor).map_err(|_| INVALID)?;
    let text = String::from_utf8(bytes).map_err(|_| INVALID)?;
    let id = text.strip_prefix(VERSION).ok_or(INVALID)?;
    BroadcastId::parse(id).map_err(|_| INVALID)
}

/// Decodes a cursor made by [`encode`].
///
/// # Errors
/// A message for the `cursor` field when it is not one of ours.
pub(crate) fn decode(cursor: &str) -> Result<MessageId, &'static str> {
    const INVALID: &str = "is not a cursor returned by this API";
    let bytes = URL_SAFE_NO_PAD.decode(cursor).map_err(|_| INVALID)?;
    let text = String::from_utf8(bytes).map_err(|_| INVALID)?;
    let id = text.strip_prefix(VERSION).ok_or(INVALID)?;
    MessageId::parse(id).map_err(|_| INVALID)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ulid::Ulid;

    #[test]
    fn round_trips_and_is_url_safe() {
        for parts in [(0, 0), (1_700_000_000_000, 42), ((1 << 48) - 1, u128::MAX)] {
            let id = MessageId::from_ulid(Ulid::from_parts(parts.0, parts.1));
            let cursor = encode(&id);
            assert!(
                cursor
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'),
                "{cursor}"
            );
            assert!(!cursor.contains(&id.to_string()), "opaque, not the id in clear");
            assert_eq!(decode(&cursor).unwrap(), id);
        }
    }

    #[test]
    fn refuses_what_it_did_not_make() {
        let id = MessageId::from_ulid(Ulid::from_parts(1, 1));
        let unversioned = URL_SAFE_NO_PAD.encode(id.to_string());
        let other_version = URL_SAFE_NO_PAD.encode(format!("v2:{id}"));
        let not_an_id = URL_SAFE_NO_PAD.encode("v1:msg_nope");
        for bad in [
            "",
            "!!!",
            id.to_string().as_str(),
            unversioned.as_str(),
            other_version.as_str(),
            not_an_id.as_str(),
            "//8", // base64 of invalid UTF-8, and not URL-safe
        ] {
            assert!(decode(bad).is_err(), "{bad:?}");
        }
    }
}

//! API keys: the secret a client holds, and the record Herald keeps of it (never the secret itself).

use crate::error::InvalidValue;
use crate::ids::{ApiKeyId, OrganizationId};
use crate::ports::system::SecretSource;
use crate::time::Timestamp;
use crate::values::{DisplayName, hex_lower, parse_hex32};
use std::fmt;

const KEY_PREFIX: &str = "hk_live_";
const KEY_BODY_LEN: usize = 40;
const PUBLIC_PREFIX_LEN: usize = 12;
const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// A whole API key as the client sends it: `hk_live_` + 40 base62 characters (about 238 bits).
///
/// Deliberately not `Display` and with a redacting `Debug`: the key must never reach a log.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Parses what came after `Bearer `.
    ///
    /// # Errors
    /// [`InvalidValue`] when the text is not shaped like a key (the caller answers `unauthenticated`).
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        let body = value
            .strip_prefix(KEY_PREFIX)
            .ok_or_else(|| InvalidValue::new("malformed API key"))?;
        if body.len() == KEY_BODY_LEN && body.bytes().all(|b| b.is_ascii_alphanumeric()) {
            Ok(Self(value.to_owned()))
        } else {
            Err(InvalidValue::new("malformed API key"))
        }
    }

    /// Makes a fresh key from the secret source.
    pub fn generate(source: &dyn SecretSource) -> Self {
        let mut key = String::with_capacity(KEY_PREFIX.len() + KEY_BODY_LEN);
        key.push_str(KEY_PREFIX);
        let mut produced = 0;
        while produced < KEY_BODY_LEN {
            let mut buf = [0_u8; 64];
            source.fill(&mut buf);
            // Rejection sampling keeps every base62 character equally likely.
            for byte in buf {
                if produced == KEY_BODY_LEN {
                    break;
                }
                if byte < 248
                    && let Some(&c) = BASE62.get(usize::from(byte % 62))
                {
                    key.push(char::from(c));
                    produced += 1;
                }
            }
        }
        Self(key)
    }

    /// The secret text, to show exactly once at creation.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// The public prefix shown in listings (`hk_live_XXXX`).
    pub fn public_prefix(&self) -> String {
        self.0.chars().take(PUBLIC_PREFIX_LEN).collect()
    }

    /// The SHA-256 digest under which the key is stored and looked up.
    pub fn digest(&self) -> ApiKeyDigest {
        use sha2::Digest;
        ApiKeyDigest(sha2::Sha256::digest(self.0.as_bytes()).into())
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ApiKey({}…)", self.public_prefix())
    }
}

/// SHA-256 of a whole API key. Stored instead of the key; compared in constant time.
#[derive(Clone, Copy, Eq)]
pub struct ApiKeyDigest([u8; 32]);

impl ApiKeyDigest {
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    pub fn to_hex(&self) -> String {
        hex_lower(&self.0)
    }

    /// # Errors
    /// [`InvalidValue`] when not 64 hex digits.
    pub fn from_hex(value: &str) -> Result<Self, InvalidValue> {
        parse_hex32(value).map(Self)
    }
}

impl PartialEq for ApiKeyDigest {
    fn eq(&self, other: &Self) -> bool {
        use subtle::ConstantTimeEq;
        self.0.ct_eq(&other.0).into()
    }
}

impl fmt::Debug for ApiKeyDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKeyDigest(..)")
    }
}

/// Whether a key still opens the API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApiKeyStatus {
    Active,
    Disabled,
}

impl ApiKeyStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Active => "active",
            Self::Disabled => "disabled",
        }
    }

    /// # Errors
    /// [`InvalidValue`] for an unknown status.
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        match value {
            "active" => Ok(Self::Active),
            "disabled" => Ok(Self::Disabled),
            other => Err(InvalidValue::new(format!("unknown key status `{other}`"))),
        }
    }
}

/// What Herald keeps of a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiKeyRecord {
    pub id: ApiKeyId,
    pub organization_id: OrganizationId,
    pub name: Option<DisplayName>,
    /// `hk_live_XXXX`, safe to show.
    pub prefix: String,
    pub digest: ApiKeyDigest,
    pub status: ApiKeyStatus,
    pub created_at: Timestamp,
    pub last_used_at: Option<Timestamp>,
    pub disabled_at: Option<Timestamp>,
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Counter(std::sync::atomic::AtomicU8);
    impl SecretSource for Counter {
        fn fill(&self, buf: &mut [u8]) {
            for b in buf {
                *b = self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        }
    }

    #[test]
    fn generated_keys_have_the_documented_shape() {
        let key = ApiKey::generate(&Counter(std::sync::atomic::AtomicU8::new(200)));
        assert!(key.expose().starts_with("hk_live_"));
        assert_eq!(key.expose().len(), 48);
        assert_eq!(ApiKey::parse(key.expose()).unwrap(), key);
        assert_eq!(key.public_prefix().len(), 12);
        assert!(key.expose().starts_with(&key.public_prefix()));
    }

    #[test]
    fn malformed_keys_are_refused() {
        let body = "a".repeat(40);
        assert!(ApiKey::parse(&format!("hk_live_{body}")).is_ok());
        assert!(ApiKey::parse(&format!("hk_test_{body}")).is_err());
        assert!(ApiKey::parse(&format!("hk_live_{}", "a".repeat(39))).is_err());
        assert!(ApiKey::parse(&format!("hk_live_{}-", "a".repeat(39))).is_err());
        assert!(ApiKey::parse("").is_err());
    }

    #[test]
    fn debug_never_shows_the_secret() {
        let key = ApiKey::parse(&format!("hk_live_{}", "Z".repeat(40))).unwrap();
        let shown = format!("{key:?}");
        assert!(!shown.contains(&"Z".repeat(10)), "{shown}");
    }

    #[test]
    fn digest_is_sha256_hex_and_round_trips() {
        let key = ApiKey::parse(&format!("hk_live_{}", "a".repeat(40))).unwrap();
        let digest = key.digest();
        assert_eq!(digest.to_hex().len(), 64);
        assert_eq!(ApiKeyDigest::from_hex(&digest.to_hex()).unwrap(), digest);
        let other = ApiKey::parse(&format!("hk_live_{}", "b".repeat(40))).unwrap();
        assert_ne!(other.digest(), digest);
    }
}

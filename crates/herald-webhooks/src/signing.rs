//! Standard Webhooks signatures: `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// The prefix every Standard Webhooks secret carries.
pub const SECRET_PREFIX: &str = "whsec_";
/// Fewest key bytes a secret may decode to (the specification's own vector has 24).
pub const MIN_SECRET_BYTES: usize = 24;
/// Most key bytes a secret may decode to.
pub const MAX_SECRET_BYTES: usize = 64;
/// Key bytes in a freshly generated secret.
pub const GENERATED_SECRET_BYTES: usize = 32;

/// Why a secret string was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SecretError {
    /// The string does not start with `whsec_`.
    #[error("a webhook secret starts with `whsec_`")]
    MissingPrefix,
    /// The part after the prefix is not standard base64.
    #[error("a webhook secret is `whsec_` followed by standard base64")]
    NotBase64,
    /// The key decodes to too few or too many bytes.
    #[error("a webhook secret decodes to {MIN_SECRET_BYTES}–{MAX_SECRET_BYTES} bytes, not {0}")]
    BadLength(usize),
}

/// The key an endpoint's deliveries are signed with (`whsec_` + base64 of the key bytes).
///
/// Debug is redacted; the only way to see the text is [`WebhookSecret::expose`], meant for the single
/// display at creation or rotation and for storage.
#[derive(Clone, PartialEq, Eq)]
pub struct WebhookSecret {
    key: Vec<u8>,
}

impl WebhookSecret {
    /// A new secret of [`GENERATED_SECRET_BYTES`] random bytes.
    pub fn generate<R: rand::CryptoRng + ?Sized>(rng: &mut R) -> Self {
        let mut key = vec![0u8; GENERATED_SECRET_BYTES];
        rng.fill_bytes(&mut key);
        Self { key }
    }

    /// Parses `whsec_<base64>`, requiring the key to be 24–64 bytes.
    ///
    /// # Errors
    /// [`SecretError`] naming the rule the text breaks.
    pub fn parse(text: &str) -> Result<Self, SecretError> {
        let encoded = text
            .strip_prefix(SECRET_PREFIX)
            .ok_or(SecretError::MissingPrefix)?;
        let key = STANDARD.decode(encoded).map_err(|_| SecretError::NotBase64)?;
        if !(MIN_SECRET_BYTES..=MAX_SECRET_BYTES).contains(&key.len()) {
            return Err(SecretError::BadLength(key.len()));
        }
        Ok(Self { key })
    }

    /// The secret's text, `whsec_` + base64. Never log it.
    #[must_use]
    pub fn expose(&self) -> String {
        format!("{SECRET_PREFIX}{}", STANDARD.encode(&self.key))
    }

    fn mac(&self, msg_id: &str, timestamp: i64, body: &[u8]) -> HmacSha256 {
        // HMAC accepts keys of any length, so this cannot fail; the fallback keeps the path panic-free.
        let mut mac = HmacSha256::new_from_slice(&self.key)
            .unwrap_or_else(|_| <HmacSha256 as hmac::digest::KeyInit>::new(&Default::default()));
        mac.update(msg_id.as_bytes());
        mac.update(b".");
        mac.update(timestamp.to_string().as_bytes());
        mac.update(b".");
        mac.update(body);
        mac
    }
}

impl fmt::Debug for WebhookSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("WebhookSecret(whsec_[REDACTED])")
    }
}

/// The `webhook-signature` header value: one `v1,<base64>` entry per secret, separated by a space.
///
/// During a rotation both the old and the new secret sign, so a receiver holding either one verifies.
#[must_use]
pub fn sign(secrets: &[&WebhookSecret], msg_id: &str, timestamp: i64, body: &[u8]) -> String {
    secrets
        .iter()
        .map(|secret| {
            let tag = secret.mac(msg_id, timestamp, body).finalize().into_bytes();
            format!("v1,{}", STANDARD.encode(tag))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether any `v1` entry of a `webhook-signature` header is the signature of this message under `secret`.
///
/// Compares in constant time. It does not check the timestamp's age: a receiver should also refuse
/// timestamps far from its clock to limit replays.
#[must_use]
pub fn verify(secret: &WebhookSecret, msg_id: &str, timestamp: i64, body: &[u8], header: &str) -> bool {
    header
        .split(' ')
        .filter_map(|entry| entry.split_once(','))
        .filter(|(version, _)| *version == "v1")
        .filter_map(|(_, sig)| STANDARD.decode(sig).ok())
        .any(|sig| secret.mac(msg_id, timestamp, body).verify_slice(&sig).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC_SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const SPEC_ID: &str = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    const SPEC_TS: i64 = 1_614_265_330;
    const SPEC_BODY: &[u8] = br#"{"test": 2432232314}"#;
    const SPEC_SIG: &str = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

    #[test]
    fn specification_known_answer() {
        let secret = WebhookSecret::parse(SPEC_SECRET).unwrap();
        assert_eq!(sign(&[&secret], SPEC_ID, SPEC_TS, SPEC_BODY), SPEC_SIG);
        assert!(verify(&secret, SPEC_ID, SPEC_TS, SPEC_BODY, SPEC_SIG));
    }

    #[test]
    fn verify_refuses_tampering() {
        let secret = WebhookSecret::parse(SPEC_SECRET).unwrap();
        assert!(!verify(&secret, SPEC_ID, SPEC_TS + 1, SPEC_BODY, SPEC_SIG));
        assert!(!verify(&secret, "msg_other", SPEC_TS, SPEC_BODY, SPEC_SIG));
        assert!(!verify(
            &secret,
            SPEC_ID,
            SPEC_TS,
            br#"{"test": 2432232315}"#,
            SPEC_SIG
        ));
        assert!(!verify(
            &secret,
            SPEC_ID,
            SPEC_TS,
            SPEC_BODY,
            "v2,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        ));
        let other = WebhookSecret::generate(&mut rand::rng());
        assert!(!verify(&other, SPEC_ID, SPEC_TS, SPEC_BODY, SPEC_SIG));
    }

    #[test]
    fn two_secrets_give_two_entries_each_verifying() {
        let old = WebhookSecret::parse(SPEC_SECRET).unwrap();
        let new = WebhookSecret::generate(&mut rand::rng());
        let header = sign(&[&old, &new], SPEC_ID, SPEC_TS, SPEC_BODY);
        let entries: Vec<&str> = header.split(' ').collect();
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0], SPEC_SIG);
        assert!(entries[1].starts_with("v1,"));
        assert!(verify(&old, SPEC_ID, SPEC_TS, SPEC_BODY, &header));
        assert!(verify(&new, SPEC_ID, SPEC_TS, SPEC_BODY, &header));
    }

    #[test]
    fn generated_secret_round_trips_and_differs() {
        let mut rng = rand::rng();
        let a = WebhookSecret::generate(&mut rng);
        let b = WebhookSecret::generate(&mut rng);
        assert_ne!(a, b);
        let text = a.expose();
        assert!(text.starts_with("whsec_"));
        assert_eq!(STANDARD.decode(&text[6..]).unwrap().len(), 32);
        assert_eq!(WebhookSecret::parse(&text).unwrap(), a);
    }

    #[test]
    fn parse_rules() {
        assert_eq!(
            WebhookSecret::parse("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"),
            Err(SecretError::MissingPrefix)
        );
        assert_eq!(
            WebhookSecret::parse("whsec_not base64!"),
            Err(SecretError::NotBase64)
        );
        let short = format!("whsec_{}", STANDARD.encode([7u8; 23]));
        assert_eq!(WebhookSecret::parse(&short), Err(SecretError::BadLength(23)));
        let long = format!("whsec_{}", STANDARD.encode([7u8; 65]));
        assert_eq!(WebhookSecret::parse(&long), Err(SecretError::BadLength(65)));
        for n in [24, 64] {
            let ok = format!("whsec_{}", STANDARD.encode(vec![7u8; n]));
            assert!(WebhookSecret::parse(&ok).is_ok(), "{n} bytes");
        }
    }

    #[test]
    fn debug_is_redacted() {
        let secret = WebhookSecret::parse(SPEC_SECRET).unwrap();
        let shown = format!("{secret:?}");
        assert!(!shown.contains("MfKQ9r8"), "{shown}");
        assert!(shown.contains("REDACTED"));
    }
}

//! `X-Hub-Signature-256` verification of network callbacks (docs/cloud-api.md §4.2).

use herald_domain::ports::CallbackAuthenticator;
use hmac::{Hmac, Mac};
use secrecy::{ExposeSecret, SecretString};
use sha2::Sha256;

/// Why a callback's signature was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    #[error("the X-Hub-Signature-256 header is missing")]
    Missing,
    #[error("the X-Hub-Signature-256 header is not `sha256=` followed by a hex digest")]
    Malformed,
    #[error("the signature does not match the body")]
    Mismatch,
}

/// Checks `header` (the value of `X-Hub-Signature-256`: `sha256=` + hex HMAC-SHA256 of the body keyed by the app
/// secret) against the raw bytes exactly as received. The comparison runs in constant time.
///
/// # Errors
/// [`SignatureError`] when the header is missing or malformed, or the digest does not match.
pub fn verify_signature(
    app_secret: &[u8],
    header: Option<&str>,
    raw_body: &[u8],
) -> Result<(), SignatureError> {
    let header = header.ok_or(SignatureError::Missing)?;
    let hex_digest = header
        .trim()
        .strip_prefix("sha256=")
        .ok_or(SignatureError::Malformed)?;
    let expected = hex::decode(hex_digest).map_err(|_| SignatureError::Malformed)?;
    // HMAC takes keys of any length, so this only fails on a broken hmac crate; refuse rather than accept.
    let mut mac = Hmac::<Sha256>::new_from_slice(app_secret).map_err(|_| SignatureError::Mismatch)?;
    mac.update(raw_body);
    mac.verify_slice(&expected).map_err(|_| SignatureError::Mismatch)
}

/// Checks `X-Hub-Signature-256` with the app secret and the handshake's verify token, in constant time.
pub struct AppSecretAuthenticator {
    pub app_secret: SecretString,
    pub verify_token: Option<SecretString>,
}

impl CallbackAuthenticator for AppSecretAuthenticator {
    fn signature_valid(&self, signature: Option<&str>, raw_body: &[u8]) -> bool {
        verify_signature(self.app_secret.expose_secret().as_bytes(), signature, raw_body).is_ok()
    }

    fn verify_token_valid(&self, token: &str) -> bool {
        use subtle::ConstantTimeEq;
        self.verify_token
            .as_ref()
            .is_some_and(|expected| bool::from(expected.expose_secret().as_bytes().ct_eq(token.as_bytes())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verify_token_compares_exactly() {
        let auth = AppSecretAuthenticator {
            app_secret: SecretString::from("s"),
            verify_token: Some(SecretString::from("token-1")),
        };
        assert!(auth.verify_token_valid("token-1"));
        assert!(!auth.verify_token_valid("token-2"));
        assert!(!auth.verify_token_valid(""));
        let none = AppSecretAuthenticator {
            app_secret: SecretString::from("s"),
            verify_token: None,
        };
        assert!(!none.verify_token_valid("anything"));
    }
}

//! Secrets kept at rest, sealed by an adapter that owns the cipher and the key.

use crate::ids::{OrganizationId, SenderId, WebhookId};

/// Why a sealed secret could not be opened. Never carries the secret or the key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SealError {
    /// Too short or otherwise not something [`SecretSealer::seal`] produced.
    #[error("the sealed secret is malformed")]
    Malformed,
    /// Authentication failed: the bytes were altered, sealed with another key, or sealed for another row or
    /// purpose (copied from another sender or endpoint).
    #[error(
        "the sealed secret does not authenticate: it was altered, sealed with another key, or belongs to \
         another row"
    )]
    Rejected,
}

/// What a sealed secret is for. Part of the associated data, so a value sealed for one use never opens
/// as another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SealPurpose {
    /// A sender's own network access token.
    SenderAccessToken,
    /// A webhook endpoint's signing secret (current or previous).
    WebhookSecret,
}

impl SealPurpose {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::SenderAccessToken => "sender-access-token",
            Self::WebhookSecret => "webhook-secret",
        }
    }
}

/// The row a sealed secret belongs to, bound into the seal as associated data: a value copied into another
/// row (another organization's sender or endpoint) does not open there.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SealContext {
    purpose: SealPurpose,
    row: String,
}

impl SealContext {
    /// The access token of this sender.
    pub fn sender(id: &SenderId) -> Self {
        Self {
            purpose: SealPurpose::SenderAccessToken,
            row: id.to_string(),
        }
    }

    /// A signing secret of this webhook endpoint.
    pub fn webhook(id: &WebhookId) -> Self {
        Self {
            purpose: SealPurpose::WebhookSecret,
            row: id.to_string(),
        }
    }

    pub fn purpose(&self) -> SealPurpose {
        self.purpose
    }

    /// The row's id in its text form (`snd_…`, `whk_…`).
    pub fn row(&self) -> &str {
        &self.row
    }

    /// `herald-seal/v2/<purpose>/<row id>`: the associated data of a version 2 seal.
    pub fn associated_data(&self) -> Vec<u8> {
        format!("herald-seal/v2/{}/{}", self.purpose.as_str(), self.row).into_bytes()
    }
}

/// A secret opened by [`SecretSealer::open`]. Its `Debug` prints no content.
#[derive(Clone, PartialEq, Eq)]
pub struct Opened {
    pub text: String,
    /// Sealed in the version 1 form, bound to no row: it should be sealed again (`herald admin reseal`).
    pub legacy: bool,
}

impl std::fmt::Debug for Opened {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Opened")
            .field("text", &"[redacted]")
            .field("legacy", &self.legacy)
            .finish()
    }
}

/// Authenticated encryption of secrets kept at rest (senders' access tokens, webhook secrets). The domain
/// only moves sealed bytes around; the adapter owns the cipher and the key.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
pub trait SecretSealer: Send + Sync + 'static {
    /// Encrypts `plaintext` bound to `context`; two seals of the same text differ (a fresh nonce each time).
    fn seal(&self, context: &SealContext, plaintext: &str) -> Vec<u8>;

    /// Decrypts what [`SecretSealer::seal`] produced with the same key and the same `context`. A value
    /// sealed before seals were bound to their row (legacy) still opens, reported as such.
    ///
    /// # Errors
    /// [`SealError`] when the bytes were altered, sealed with another key or for another context, or are
    /// not a sealed secret.
    fn open(&self, context: &SealContext, sealed: &[u8]) -> Result<Opened, SealError>;

    /// A keyed one-way digest of one identity (a number's person key, a user id) of a person within
    /// `organization`, for the marker of an erased person (docs/api.md §7.2): the same input always gives
    /// the same digest, and without the key it can be neither reversed nor checked against a guess.
    fn person_digest(&self, organization: &OrganizationId, identity: &str) -> [u8; 32];
}

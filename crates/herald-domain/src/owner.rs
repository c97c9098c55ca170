//! The organization owner's dashboard login: owner accounts (email + Argon2id password hash) and
//! dashboard sessions (an opaque random token held by the browser; only its SHA-256 digest is stored).

use crate::customer_event::CustomerEventType;
use crate::error::InvalidValue;
use crate::ids::{DeliveryId, EventId, OrganizationId, WebhookId};
use crate::time::Timestamp;
use crate::values::{hex_lower, parse_hex32};
use crate::webhook::DeliveryStatus;
use std::fmt;

/// An owner's login email: trimmed and lowercased, so `Ann@Example.com` and `ann@example.com` are one login.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct OwnerEmail(String);

impl OwnerEmail {
    /// # Errors
    /// [`InvalidValue`] when not shaped like `local@domain` (3 to 254 characters, no spaces).
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        let value = value.trim().to_lowercase();
        let shaped = (3..=254).contains(&value.len())
            && !value.chars().any(char::is_whitespace)
            && value.split_once('@').is_some_and(|(local, domain)| {
                !local.is_empty() && !domain.is_empty() && !domain.contains('@')
            });
        if shaped {
            Ok(Self(value))
        } else {
            Err(InvalidValue::new(
                "must be an email address like owner@example.com",
            ))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for OwnerEmail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A password hash in PHC string form (`$argon2id$v=19$…`). Not a secret in itself, but never shown.
#[derive(Clone, PartialEq, Eq)]
pub struct PasswordHash(String);

impl PasswordHash {
    pub fn new(phc: impl Into<String>) -> Self {
        Self(phc.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for PasswordHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PasswordHash([redacted])")
    }
}

/// The owner of an organization who may log in to its dashboard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnerAccount {
    pub organization_id: OrganizationId,
    pub email: OwnerEmail,
    pub password_hash: PasswordHash,
    pub password_set_at: Timestamp,
}

/// The SHA-256 digest of a session token: what the store keeps and looks sessions up by, so a copy of
/// the database opens no session.
#[derive(Clone, Copy)]
pub struct SessionDigest([u8; 32]);

impl SessionDigest {
    /// The digest of a token as the browser sent it.
    pub fn of(token: &str) -> Self {
        use sha2::{Digest, Sha256};
        Self(Sha256::digest(token.as_bytes()).into())
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

impl PartialEq for SessionDigest {
    fn eq(&self, other: &Self) -> bool {
        use subtle::ConstantTimeEq;
        self.0.ct_eq(&other.0).into()
    }
}

impl Eq for SessionDigest {}

impl fmt::Debug for SessionDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SessionDigest([redacted])")
    }
}

/// A dashboard session as stored. Its `Debug` leaves out the CSRF token: a session printed in a log must
/// not hand out what its forms prove.
#[derive(Clone, PartialEq, Eq)]
pub struct DashboardSession {
    pub digest: SessionDigest,
    pub organization_id: OrganizationId,
    pub email: OwnerEmail,
    /// The synchronizer token every form of this session carries (compared in constant time).
    pub csrf_token: String,
    pub created_at: Timestamp,
    /// The last request seen; the idle expiry counts from here.
    pub last_seen_at: Timestamp,
    /// The absolute expiry: no activity keeps the session past this.
    pub expires_at: Timestamp,
}

impl std::fmt::Debug for DashboardSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DashboardSession")
            .field("digest", &self.digest)
            .field("organization_id", &self.organization_id)
            .field("email", &self.email)
            .field("csrf_token", &"[redacted]")
            .field("created_at", &self.created_at)
            .field("last_seen_at", &self.last_seen_at)
            .field("expires_at", &self.expires_at)
            .finish()
    }
}

/// One customer event written about a message, with where it went (the dashboard's message page).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentEvent {
    pub event_id: EventId,
    pub event_type: CustomerEventType,
    pub sequence: u32,
    pub occurred_at: Timestamp,
    /// One per endpoint the event was fanned out to, oldest first.
    pub deliveries: Vec<SentDelivery>,
}

/// An event's delivery to one endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentDelivery {
    pub delivery_id: DeliveryId,
    pub endpoint_id: WebhookId,
    pub status: DeliveryStatus,
    pub attempts: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_are_normalized_and_checked() {
        assert_eq!(
            OwnerEmail::parse("  Ann@Example.COM ").unwrap().as_str(),
            "ann@example.com"
        );
        for bad in ["", "ann", "@example.com", "ann@", "a b@example.com", "a@b@c"] {
            assert!(OwnerEmail::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn session_digests_round_trip_and_redact() {
        let digest = SessionDigest::of("token");
        assert_eq!(SessionDigest::from_hex(&digest.to_hex()).unwrap(), digest);
        assert_ne!(SessionDigest::of("other"), digest);
        assert!(!format!("{digest:?}").contains(&digest.to_hex()));
        assert!(!format!("{:?}", PasswordHash::new("$argon2id$x")).contains("argon2id"));
    }
}

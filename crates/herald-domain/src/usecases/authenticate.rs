use crate::api_key::{ApiKey, ApiKeyStatus};
use crate::ids::ApiKeyId;
use crate::organization::{Organization, Plan};
use crate::ports::{AccountStore, Clock, StoreError};
use crate::time::{Duration, Timestamp};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// Who is calling: the tenant scope of every request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authenticated {
    pub organization: Organization,
    pub plan: Plan,
    pub key_id: ApiKeyId,
}

/// Why a request is not let in (docs/api.md §1).
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// Missing, malformed, or matching no key. One variant for all, so the answer is no oracle.
    #[error("unauthenticated")]
    Unauthenticated,
    #[error("the API key is disabled")]
    KeyDisabled,
    #[error("the organization is not active")]
    AccountInactive,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Which organizations a key is let in for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// Only an active organization's keys: every operation but erasing a person.
    ActiveOnly,
    /// The keys of an organization in any state, suspended and closed included: erasing a person (docs/api.md
    /// §7.2). A privacy duty does not end when the operator stops the account, and an erasure sends nothing
    /// and costs nothing, so refusing it would protect no one.
    AnyState,
}

/// Turns a bearer token into an [`Authenticated`] scope.
pub struct Authenticate {
    accounts: Arc<dyn crate::ports::AccountStore>,
    clock: Arc<dyn Clock>,
    unknown: UnknownKeys,
}

/// How long a well-formed key that matched nothing is answered `unauthenticated` without asking the store
/// again. A key created within this time after someone tried it is refused for at most this long; since
/// keys are 256 random bits, in practice only a client retrying a wrong or deleted key meets this cache.
pub const UNKNOWN_KEY_TTL_SECONDS: i64 = 5;

/// Most digests the negative cache holds (32 bytes and a time each, about half a MiB at most).
const UNKNOWN_KEYS_MAX: usize = 10_000;

/// The negative cache: digests of well-formed keys the store did not know, each until it expires.
///
/// It saves the store a query per retry of the same wrong key (a misconfigured client hammering in a
/// loop). It cannot help against guessing, where every key is new: the HTTP adapter's per-address limit on
/// failed authentications is what bounds that.
struct UnknownKeys {
    entries: Mutex<HashMap<[u8; 32], Timestamp>>,
}

impl UnknownKeys {
    fn new() -> Self {
        Self {
            entries: Mutex::new(HashMap::new()),
        }
    }

    fn holds(&self, digest: &[u8; 32], now: Timestamp) -> bool {
        // The map holds plain values, never left half-written: a panic elsewhere cannot corrupt it.
        let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        entries.get(digest).is_some_and(|until| now < *until)
    }

    fn remember(&self, digest: [u8; 32], now: Timestamp) {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if entries.len() >= UNKNOWN_KEYS_MAX {
            entries.retain(|_, until| now < *until);
            if entries.len() >= UNKNOWN_KEYS_MAX {
                // Every entry is live: a flood of distinct keys. Forgetting them all costs only store
                // queries, which the per-address limit already bounds; memory stays bounded.
                entries.clear();
            }
        }
        entries.insert(digest, now + Duration::seconds(UNKNOWN_KEY_TTL_SECONDS));
    }
}

/// How stale `last_used_at` may get before it is written again; keeps a write off most requests.
fn touch_interval() -> Duration {
    Duration::seconds(60)
}

impl Authenticate {
    pub fn new(accounts: Arc<dyn AccountStore>, clock: Arc<dyn Clock>) -> Self {
        Self {
            accounts,
            clock,
            unknown: UnknownKeys::new(),
        }
    }

    /// The scope of `token`, for an active organization only ([`Admission::ActiveOnly`]).
    ///
    /// # Errors
    /// See [`Authenticate::execute_admitting`].
    pub async fn execute(&self, token: &str) -> Result<Authenticated, AuthError> {
        self.execute_admitting(token, Admission::ActiveOnly).await
    }

    /// The scope of `token`, for the organizations `admission` lets in.
    ///
    /// # Errors
    /// See [`AuthError`]; a disabled key is refused before the organization's state is looked at. A
    /// well-formed key the store did not know is refused again without a store query for
    /// [`UNKNOWN_KEY_TTL_SECONDS`].
    pub async fn execute_admitting(
        &self,
        token: &str,
        admission: Admission,
    ) -> Result<Authenticated, AuthError> {
        let key = ApiKey::parse(token).map_err(|_| AuthError::Unauthenticated)?;
        let digest = key.digest();
        if self.unknown.holds(digest.as_bytes(), self.clock.now()) {
            return Err(AuthError::Unauthenticated);
        }
        let Some(credential) = self.accounts.find_credential(&digest).await? else {
            self.unknown.remember(*digest.as_bytes(), self.clock.now());
            return Err(AuthError::Unauthenticated);
        };
        // The store found the row by digest; compare again in constant time so no adapter's lookup
        // shortcut can let a near-miss through.
        if credential.key.digest != digest {
            return Err(AuthError::Unauthenticated);
        }
        if credential.key.status == ApiKeyStatus::Disabled {
            return Err(AuthError::KeyDisabled);
        }
        if admission == Admission::ActiveOnly && !credential.organization.status.is_active() {
            return Err(AuthError::AccountInactive);
        }
        let now = self.clock.now();
        if credential
            .key
            .last_used_at
            .is_none_or(|used| now - used >= touch_interval())
        {
            // Bookkeeping only: a failed write must not lock a valid key out.
            if let Err(error) = self.accounts.touch_api_key(&credential.key.id, now).await {
                tracing::warn!(%error, key = %credential.key.id, "could not record the key's last use");
            }
        }
        Ok(Authenticated {
            organization: credential.organization,
            plan: credential.plan,
            key_id: credential.key.id,
        })
    }
}

#[cfg(test)]
mod unknown_key_tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::*;

    #[test]
    fn the_negative_cache_expires_and_stays_bounded() {
        let cache = UnknownKeys::new();
        let t0 = chrono::DateTime::from_timestamp(1_800_000_000, 0).unwrap();
        cache.remember([1; 32], t0);
        assert!(cache.holds(&[1; 32], t0 + Duration::seconds(UNKNOWN_KEY_TTL_SECONDS - 1)));
        assert!(!cache.holds(&[1; 32], t0 + Duration::seconds(UNKNOWN_KEY_TTL_SECONDS)));
        assert!(!cache.holds(&[2; 32], t0));
        for i in 0..UNKNOWN_KEYS_MAX + 5 {
            let mut digest = [0_u8; 32];
            digest[..8].copy_from_slice(&i.to_le_bytes());
            cache.remember(digest, t0);
            assert!(cache.entries.lock().unwrap().len() <= UNKNOWN_KEYS_MAX);
        }
    }
}

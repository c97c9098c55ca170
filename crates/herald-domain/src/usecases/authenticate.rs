use crate::api_key::{ApiKey, ApiKeyStatus};
use crate::ids::ApiKeyId;
use crate::organization::{Organization, Plan};
use crate::ports::{AccountStore, Clock, StoreError};
use crate::time::Duration;
use std::sync::Arc;

/// Who is calling: the tenant scope of every request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authenticated {
    pub organization: Organization,
    pub plan: Plan,
    pub key_id: ApiKeyId,
}

/// Why a request is not let in (api.md §1).
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

/// Turns a bearer token into an [`Authenticated`] scope.
pub struct Authenticate {
    accounts: Arc<dyn crate::ports::AccountStore>,
    clock: Arc<dyn Clock>,
}

/// How stale `last_used_at` may get before it is written again; keeps a write off most requests.
fn touch_interval() -> Duration {
    Duration::seconds(60)
}

impl Authenticate {
    pub fn new(accounts: Arc<dyn AccountStore>, clock: Arc<dyn Clock>) -> Self {
        Self { accounts, clock }
    }

    /// # Errors
    /// See [`AuthError`]; a disabled key is refused before the organization's state is looked at.
    pub async fn execute(&self, token: &str) -> Result<Authenticated, AuthError> {
        let key = ApiKey::parse(token).map_err(|_| AuthError::Unauthenticated)?;
        let credential = self
            .accounts
            .find_credential(&key.digest())
            .await?
            .ok_or(AuthError::Unauthenticated)?;
        // The store found the row by digest; compare again in constant time so no adapter's lookup
        // shortcut can let a near-miss through.
        if credential.key.digest != key.digest() {
            return Err(AuthError::Unauthenticated);
        }
        if credential.key.status == ApiKeyStatus::Disabled {
            return Err(AuthError::KeyDisabled);
        }
        if !credential.organization.status.is_active() {
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

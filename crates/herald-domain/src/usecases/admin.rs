use super::shared::new_id;
use crate::api_key::{ApiKey, ApiKeyRecord, ApiKeyStatus};
use crate::ids::{ApiKeyId, OrganizationId, SenderId};
use crate::organization::{AccountStatus, NetworkRef, Organization, PlanName, SealedSecret, SenderNumber};
use crate::ports::{AccountStore, Clock, IdGenerator, SealContext, SecretSealer, SecretSource, StoreError};
use crate::values::{DisplayName, PhoneNumber};
use std::fmt;
use std::sync::Arc;

/// Why an operator command failed.
#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    #[error("no organization {0}")]
    UnknownOrganization(OrganizationId),
    #[error("no plan named `{0}`")]
    UnknownPlan(PlanName),
    #[error("no API key {0}")]
    UnknownKey(ApiKeyId),
    #[error("{0}")]
    Conflict(String),
    /// The business account already belongs to another organization, and the operator did not say to
    /// share it.
    #[error(
        "business account {waba_id} belongs to organization {owner}: one organization per business account \
         (its template and account notices, and its templates, are that organization's); pass --shared-waba \
         to share it with this organization on purpose"
    )]
    BusinessAccountTaken {
        waba_id: NetworkRef,
        owner: OrganizationId,
    },
    /// A secret was given to store, but this process has no key to seal it with.
    #[error("no encryption key is configured, so the access token cannot be stored")]
    NoSealer,
    #[error(transparent)]
    Store(StoreError),
}

impl From<StoreError> for AdminError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Conflict(what) => Self::Conflict(what),
            other => Self::Store(other),
        }
    }
}

/// A sender number to register.
#[derive(Clone)]
pub struct NewSender {
    pub organization_id: OrganizationId,
    pub number: PhoneNumber,
    pub phone_number_id: NetworkRef,
    pub waba_id: NetworkRef,
    pub access_token_env: Option<String>,
    /// The sender's own access token in plaintext: it lives only in memory and is sealed before it is
    /// stored.
    pub access_token: Option<String>,
    pub is_default: bool,
    pub throughput_per_second: u32,
    /// The operator shares the business account with the organizations that already have it, on purpose
    /// (`--shared-waba`). Without it, a business account another organization has is refused.
    pub shared_waba: bool,
}

impl fmt::Debug for NewSender {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NewSender")
            .field("organization_id", &self.organization_id)
            .field("number", &self.number)
            .field("phone_number_id", &self.phone_number_id)
            .field("waba_id", &self.waba_id)
            .field("access_token_env", &self.access_token_env)
            .field("access_token", &self.access_token.as_ref().map(|_| "[redacted]"))
            .field("is_default", &self.is_default)
            .field("throughput_per_second", &self.throughput_per_second)
            .field("shared_waba", &self.shared_waba)
            .finish()
    }
}

/// The operator's commands (`herald admin …`) and the owner's key management.
pub struct Admin {
    accounts: Arc<dyn AccountStore>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
    secrets: Arc<dyn SecretSource>,
    sealer: Option<Arc<dyn SecretSealer>>,
}

impl Admin {
    /// `sealer` encrypts the access tokens given with new senders; without one, such senders are refused
    /// ([`AdminError::NoSealer`]) and everything else works.
    pub fn new(
        accounts: Arc<dyn AccountStore>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdGenerator>,
        secrets: Arc<dyn SecretSource>,
        sealer: Option<Arc<dyn SecretSealer>>,
    ) -> Self {
        Self {
            accounts,
            clock,
            ids,
            secrets,
            sealer,
        }
    }

    /// # Errors
    /// [`AdminError::UnknownPlan`] when the plan does not exist.
    pub async fn create_organization(
        &self,
        name: DisplayName,
        plan: PlanName,
        owner_email: Option<String>,
    ) -> Result<Organization, AdminError> {
        if self.accounts.plan(&plan).await?.is_none() {
            return Err(AdminError::UnknownPlan(plan));
        }
        let organization = Organization {
            id: new_id(self.ids.as_ref(), OrganizationId::from_ulid),
            name,
            status: AccountStatus::Active,
            plan,
            owner_email,
            created_at: self.clock.now(),
        };
        self.accounts.create_organization(&organization).await?;
        Ok(organization)
    }

    /// # Errors
    /// [`AdminError::UnknownOrganization`] when it does not exist.
    pub async fn set_account_status(
        &self,
        id: &OrganizationId,
        status: AccountStatus,
    ) -> Result<(), AdminError> {
        self.accounts
            .set_account_status(id, status)
            .await
            .map_err(|e| match e {
                StoreError::NotFound => AdminError::UnknownOrganization(*id),
                other => other.into(),
            })
    }

    /// # Errors
    /// [`AdminError::UnknownPlan`] or [`AdminError::UnknownOrganization`].
    pub async fn set_plan(&self, id: &OrganizationId, plan: PlanName) -> Result<(), AdminError> {
        if self.accounts.plan(&plan).await?.is_none() {
            return Err(AdminError::UnknownPlan(plan));
        }
        self.accounts.set_plan(id, &plan).await.map_err(|e| match e {
            StoreError::NotFound => AdminError::UnknownOrganization(*id),
            other => other.into(),
        })
    }

    /// Registers a sender; its access token, if given, is stored sealed.
    ///
    /// One organization per business account: a sender of a business account that belongs to another
    /// organization is refused unless `shared_waba` says the operator shares it on purpose.
    ///
    /// # Errors
    /// [`AdminError::UnknownOrganization`]; [`AdminError::Conflict`] for a number already registered;
    /// [`AdminError::BusinessAccountTaken`] for another organization's business account, not shared;
    /// [`AdminError::NoSealer`] for a token without a sealer.
    pub async fn add_sender(&self, sender: NewSender) -> Result<SenderNumber, AdminError> {
        // Checked before anything is read, so a refused token leaves no trace in the store.
        if sender.access_token.is_some() && self.sealer.is_none() {
            return Err(AdminError::NoSealer);
        }
        // The id comes first: the token is sealed bound to it, so it opens for this sender only.
        let id = new_id(self.ids.as_ref(), SenderId::from_ulid);
        let sealed_access_token = match (&sender.access_token, &self.sealer) {
            (Some(token), Some(sealer)) => {
                Some(SealedSecret::new(sealer.seal(&SealContext::sender(&id), token)))
            }
            _ => None,
        };
        self.require_organization(&sender.organization_id).await?;
        let owners = self
            .accounts
            .business_account_organizations(&sender.waba_id)
            .await?;
        if let Some(owner) = owners.first()
            && !owners.contains(&sender.organization_id)
            && !sender.shared_waba
        {
            return Err(AdminError::BusinessAccountTaken {
                waba_id: sender.waba_id,
                owner: *owner,
            });
        }
        let existing = self.accounts.senders(&sender.organization_id).await?;
        let record = SenderNumber {
            id,
            organization_id: sender.organization_id,
            number: sender.number,
            phone_number_id: sender.phone_number_id,
            waba_id: sender.waba_id,
            access_token_env: sender.access_token_env,
            sealed_access_token,
            // The first sender is the default, so a one-number organization needs no `from`.
            is_default: sender.is_default || existing.is_empty(),
            throughput_per_second: sender.throughput_per_second,
            created_at: self.clock.now(),
        };
        if sender.shared_waba {
            self.accounts.add_shared_sender(&record).await?;
        } else {
            self.accounts.add_sender(&record).await?;
        }
        Ok(record)
    }

    /// Makes a key. The returned [`ApiKey`] is the only time the secret exists outside the client.
    ///
    /// # Errors
    /// [`AdminError::UnknownOrganization`].
    pub async fn create_key(
        &self,
        organization_id: &OrganizationId,
        name: Option<DisplayName>,
    ) -> Result<(ApiKeyRecord, ApiKey), AdminError> {
        self.require_organization(organization_id).await?;
        let key = ApiKey::generate(self.secrets.as_ref());
        let record = ApiKeyRecord {
            id: new_id(self.ids.as_ref(), ApiKeyId::from_ulid),
            organization_id: *organization_id,
            name,
            prefix: key.public_prefix(),
            digest: key.digest(),
            status: ApiKeyStatus::Active,
            created_at: self.clock.now(),
            last_used_at: None,
            disabled_at: None,
        };
        self.accounts.create_api_key(&record).await?;
        Ok((record, key))
    }

    /// # Errors
    /// [`AdminError::UnknownOrganization`].
    pub async fn list_keys(&self, organization_id: &OrganizationId) -> Result<Vec<ApiKeyRecord>, AdminError> {
        self.require_organization(organization_id).await?;
        Ok(self.accounts.api_keys(organization_id).await?)
    }

    /// Disables a key; this process refuses it from its next request on, other processes within their read
    /// cache's lifetime (at most 1 s, docs/api.md §1).
    ///
    /// # Errors
    /// [`AdminError::UnknownKey`].
    pub async fn disable_key(&self, id: &ApiKeyId) -> Result<ApiKeyRecord, AdminError> {
        self.accounts
            .disable_api_key(id, self.clock.now())
            .await
            .map_err(|e| match e {
                StoreError::NotFound => AdminError::UnknownKey(*id),
                other => other.into(),
            })
    }

    /// Disables one of the organization's keys (the owner's dashboard): another organization's key is,
    /// to the caller, a key that does not exist.
    ///
    /// # Errors
    /// [`AdminError::UnknownKey`].
    pub async fn disable_key_of(
        &self,
        organization_id: &OrganizationId,
        id: &ApiKeyId,
    ) -> Result<ApiKeyRecord, AdminError> {
        match self.accounts.api_key(id).await? {
            Some(key) if &key.organization_id == organization_id => self.disable_key(id).await,
            _ => Err(AdminError::UnknownKey(*id)),
        }
    }

    async fn require_organization(&self, id: &OrganizationId) -> Result<Organization, AdminError> {
        self.accounts
            .organization(id)
            .await?
            .ok_or(AdminError::UnknownOrganization(*id))
    }
}

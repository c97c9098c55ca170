use crate::ids::{MessageId, OrganizationId};
use crate::organization::{AccountStatus, Organization, Plan, SenderNumber};
use crate::owner::{DashboardSession, OwnerAccount, OwnerEmail, SentEvent, SessionDigest};
use crate::ports::{AccountStore, Clock, MessageStore, OwnerStore, PasswordHasher, SecretSource, StoreError};
use crate::time::{BillingPeriod, Duration, Timestamp};
use std::fmt;
use std::sync::Arc;

/// Why `herald admin owner set-password` was refused.
#[derive(Debug, thiserror::Error)]
pub enum OwnerError {
    #[error("no organization {0}")]
    UnknownOrganization(OrganizationId),
    /// The email is not the one given at `org create --owner-email`.
    #[error("{email} is not the owner email of organization {organization}")]
    NotTheOwner {
        organization: OrganizationId,
        email: OwnerEmail,
    },
    #[error("the password must be {min} to {max} characters long")]
    WeakPassword { min: usize, max: usize },
    #[error("{0}")]
    Conflict(String),
    #[error("hashing the password failed: {0}")]
    Hashing(String),
    #[error(transparent)]
    Store(StoreError),
}

/// Why a login or a session was refused. Deliberately one variant for every credential failure, so the
/// answer is no oracle for which part was wrong.
#[derive(Debug, thiserror::Error)]
pub enum LoginError {
    #[error("the email or password is not right")]
    Invalid,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Why a session token did not open a session.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// Unknown, logged out, idle too long or past its absolute lifetime.
    #[error("no live session")]
    NoSession,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// How long sessions live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionSettings {
    /// A session unused this long ends.
    pub idle: Duration,
    /// No session lives longer than this, however active.
    pub absolute: Duration,
}

impl Default for SessionSettings {
    fn default() -> Self {
        Self {
            idle: Duration::minutes(30),
            absolute: Duration::hours(12),
        }
    }
}

/// A session just opened: the token goes into the browser's cookie and nowhere else.
#[derive(Clone)]
pub struct NewSession {
    pub token: String,
    pub session: DashboardSession,
}

impl fmt::Debug for NewSession {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NewSession")
            .field("token", &"[redacted]")
            .field("session", &self.session)
            .finish()
    }
}

/// A live session with the organization it is scoped to: what every dashboard page works from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnerScope {
    pub session: DashboardSession,
    pub organization: Organization,
    pub plan: Plan,
}

/// The dashboard's account page: plan, this month's usage against the quota, sender numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountOverview {
    pub organization: Organization,
    pub plan: Plan,
    pub period: BillingPeriod,
    /// Messages counted against this month's quota so far.
    pub used: u64,
    /// When this month's count starts again.
    pub resets_at: Timestamp,
    pub senders: Vec<SenderNumber>,
}

/// Passwords of at least this many characters: long enough that a limited login cannot guess them.
pub const MIN_PASSWORD_CHARS: usize = 10;
/// Far above any passphrase, low enough that hashing one is no denial of service.
pub const MAX_PASSWORD_CHARS: usize = 512;

/// How stale `last_seen_at` may get before a request writes it again; keeps a write off most page views.
fn touch_interval() -> Duration {
    Duration::seconds(30)
}

/// Owner accounts and dashboard sessions (docs/api.md §11).
pub struct OwnerAccess {
    accounts: Arc<dyn AccountStore>,
    owners: Arc<dyn OwnerStore>,
    hasher: Arc<dyn PasswordHasher>,
    clock: Arc<dyn Clock>,
    secrets: Arc<dyn SecretSource>,
    settings: SessionSettings,
}

impl OwnerAccess {
    pub fn new(
        accounts: Arc<dyn AccountStore>,
        owners: Arc<dyn OwnerStore>,
        hasher: Arc<dyn PasswordHasher>,
        clock: Arc<dyn Clock>,
        secrets: Arc<dyn SecretSource>,
        settings: SessionSettings,
    ) -> Self {
        Self {
            accounts,
            owners,
            hasher,
            clock,
            secrets,
            settings,
        }
    }

    pub fn settings(&self) -> SessionSettings {
        self.settings
    }

    /// Sets the owner's password. `email` must be the organization's owner email (`org create
    /// --owner-email`). Ends the organization's open sessions.
    ///
    /// # Errors
    /// See [`OwnerError`].
    pub async fn set_password(
        &self,
        organization: &OrganizationId,
        email: &OwnerEmail,
        password: &str,
    ) -> Result<OwnerAccount, OwnerError> {
        let chars = password.chars().count();
        if !(MIN_PASSWORD_CHARS..=MAX_PASSWORD_CHARS).contains(&chars) {
            return Err(OwnerError::WeakPassword {
                min: MIN_PASSWORD_CHARS,
                max: MAX_PASSWORD_CHARS,
            });
        }
        let org = self
            .accounts
            .organization(organization)
            .await
            .map_err(OwnerError::Store)?
            .ok_or(OwnerError::UnknownOrganization(*organization))?;
        let registered = org.owner_email.as_deref().and_then(|e| OwnerEmail::parse(e).ok());
        if registered.as_ref() != Some(email) {
            return Err(OwnerError::NotTheOwner {
                organization: *organization,
                email: email.clone(),
            });
        }
        let password_hash = self.hasher.hash(password).await.map_err(OwnerError::Hashing)?;
        let owner = OwnerAccount {
            organization_id: *organization,
            email: email.clone(),
            password_hash,
            password_set_at: self.clock.now(),
        };
        self.owners.set_owner(&owner).await.map_err(|e| match e {
            StoreError::NotFound => OwnerError::UnknownOrganization(*organization),
            StoreError::Conflict(what) => OwnerError::Conflict(what),
            other => OwnerError::Store(other),
        })?;
        Ok(owner)
    }

    /// Checks the credentials and opens a session. The caller limits attempts before calling.
    ///
    /// # Errors
    /// [`LoginError::Invalid`] for an unknown email, a wrong password or a closed organization — the same
    /// answer for all, after the same hashing work.
    pub async fn login(&self, email: &str, password: &str) -> Result<NewSession, LoginError> {
        let owner = match OwnerEmail::parse(email) {
            Ok(email) => self.owners.owner_by_email(&email).await?,
            Err(_) => None,
        };
        let password_ok = self
            .hasher
            .verify(password, owner.as_ref().map(|o| o.password_hash.clone()))
            .await;
        let Some(owner) = owner.filter(|_| password_ok) else {
            return Err(LoginError::Invalid);
        };
        let organization = self.accounts.organization(&owner.organization_id).await?;
        if organization.is_none_or(|o| o.status == AccountStatus::Closed) {
            return Err(LoginError::Invalid);
        }
        let now = self.clock.now();
        // Sessions of everyone are swept here, at a rate bounded by the login limits.
        self.owners
            .delete_expired_sessions(now - self.settings.idle, now)
            .await?;
        let token = self.random_token();
        let session = DashboardSession {
            digest: SessionDigest::of(&token),
            organization_id: owner.organization_id,
            email: owner.email,
            csrf_token: self.random_token(),
            created_at: now,
            last_seen_at: now,
            expires_at: now + self.settings.absolute,
        };
        self.owners.create_session(&session).await?;
        Ok(NewSession { token, session })
    }

    /// The live session a token opens with its organization and plan, its activity recorded.
    ///
    /// # Errors
    /// [`SessionError::NoSession`] for an unknown, ended, idle or expired session (which is deleted), or
    /// one whose organization is gone or closed.
    pub async fn scope(&self, token: &str) -> Result<OwnerScope, SessionError> {
        let session = self.session(token).await?;
        let organization = self
            .accounts
            .organization(&session.organization_id)
            .await?
            .filter(|o| o.status != AccountStatus::Closed)
            .ok_or(SessionError::NoSession)?;
        let plan = self
            .accounts
            .plan(&organization.plan)
            .await?
            .ok_or(SessionError::NoSession)?;
        Ok(OwnerScope {
            session,
            organization,
            plan,
        })
    }

    /// The customer events written about one of the organization's messages, with their deliveries.
    ///
    /// # Errors
    /// A store failure.
    pub async fn sent_events(
        &self,
        organization: &OrganizationId,
        message: &MessageId,
    ) -> Result<Vec<SentEvent>, StoreError> {
        self.owners.sent_events(organization, message).await
    }

    /// The account page of the scope's organization.
    ///
    /// # Errors
    /// A store failure.
    pub async fn account(
        &self,
        scope: &OwnerScope,
        messages: &dyn MessageStore,
    ) -> Result<AccountOverview, StoreError> {
        let now = self.clock.now();
        let period = BillingPeriod::containing(now);
        let used = messages.usage(&scope.organization.id, &period).await?;
        let senders = self.accounts.senders(&scope.organization.id).await?;
        Ok(AccountOverview {
            organization: scope.organization.clone(),
            plan: scope.plan.clone(),
            period,
            used,
            resets_at: BillingPeriod::end_after(now),
            senders: senders.to_vec(),
        })
    }

    /// The live session a token opens, its activity recorded.
    ///
    /// # Errors
    /// [`SessionError::NoSession`] for an unknown, ended, idle or expired session (which is deleted).
    pub async fn session(&self, token: &str) -> Result<DashboardSession, SessionError> {
        let digest = SessionDigest::of(token);
        let session = self
            .owners
            .session(&digest)
            .await?
            .ok_or(SessionError::NoSession)?;
        let now = self.clock.now();
        if now >= session.expires_at || now - session.last_seen_at >= self.settings.idle {
            self.owners.delete_session(&digest).await?;
            return Err(SessionError::NoSession);
        }
        if now - session.last_seen_at >= touch_interval() {
            self.owners.touch_session(&digest, now).await?;
        }
        Ok(session)
    }

    /// Ends the session of this token (logout); idempotent.
    ///
    /// # Errors
    /// A store failure.
    pub async fn logout(&self, token: &str) -> Result<(), StoreError> {
        self.owners.delete_session(&SessionDigest::of(token)).await
    }

    /// A random token for a form shown before any session exists (the login form's CSRF token).
    pub fn new_form_token(&self) -> String {
        self.random_token()
    }

    /// 32 random bytes, base64url: 256 bits, unguessable.
    fn random_token(&self) -> String {
        use base64::Engine as _;
        let mut bytes = [0_u8; 32];
        self.secrets.fill(&mut bytes);
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    }
}

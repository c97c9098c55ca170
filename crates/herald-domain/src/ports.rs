//! Ports: what the domain needs from the outside world. Adapters implement them; use cases call them.
//!
//! Every store method takes the organization id first and must scope every read and write to it: a row
//! of another organization is, to the caller, a row that does not exist.

use crate::api_key::{ApiKeyDigest, ApiKeyRecord};
use crate::ids::{ApiKeyId, JobId, MessageId, OrganizationId, SenderId, WebhookId};
use crate::message::{Message, MessageStatus, MessageType, StatusEvent};
use crate::organization::{
    AccountStatus, NetworkRef, Organization, Plan, PlanName, SealedSecret, SenderNumber,
};
use crate::template::{LanguageCode, Template, TemplateName};
use crate::time::{BillingPeriod, Timestamp};
use crate::values::{ClientReference, IdempotencyKey, PhoneNumber, RequestFingerprint};
use crate::window::ServiceWindow;
use async_trait::async_trait;
use ulid::Ulid;

/// The current time. Use cases never read the system clock themselves.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
pub trait Clock: Send + Sync + 'static {
    fn now(&self) -> Timestamp;
}

/// Fresh ULIDs for ids. Successive calls in one process must return increasing values, so ids made by
/// one process sort in the order they were made.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
pub trait IdGenerator: Send + Sync + 'static {
    fn next_ulid(&self) -> Ulid;
}

/// Cryptographically secure random bytes, for API keys and secrets.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
pub trait SecretSource: Send + Sync + 'static {
    fn fill(&self, buf: &mut [u8]);
}

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
}

/// What any store operation can fail with, beyond its own business outcomes.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The row to change does not exist (for this organization).
    #[error("not found")]
    NotFound,
    /// A unique rule was broken (a duplicate number, id or name); the text says which.
    #[error("conflict: {0}")]
    Conflict(String),
    /// The store cannot be reached or is overloaded; the caller may retry later (`503`).
    #[error("store unavailable: {0}")]
    Unavailable(String),
    /// Anything else: a bug or corrupt data.
    #[error(transparent)]
    Unknown(#[from] anyhow::Error),
}

/// A key with everything authentication needs, read in one go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credential {
    pub key: ApiKeyRecord,
    pub organization: Organization,
    pub plan: Plan,
}

/// Organizations, plans, sender numbers and API keys.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait AccountStore: Send + Sync + 'static {
    /// Every plan, seeded ones included, ordered by name.
    async fn plans(&self) -> Result<Vec<Plan>, StoreError>;

    async fn plan(&self, name: &PlanName) -> Result<Option<Plan>, StoreError>;

    /// Creates the plan, or replaces every limit of the one with its name; organizations on it get the new
    /// limits from their next request.
    async fn put_plan(&self, plan: &Plan) -> Result<(), StoreError>;

    /// # Errors
    /// [`StoreError::Conflict`] when the id exists; [`StoreError::NotFound`] when the plan does not.
    async fn create_organization(&self, organization: &Organization) -> Result<(), StoreError>;

    async fn organization(&self, id: &OrganizationId) -> Result<Option<Organization>, StoreError>;

    /// All organizations, oldest first.
    async fn organizations(&self) -> Result<Vec<Organization>, StoreError>;

    /// # Errors
    /// [`StoreError::NotFound`] when the organization does not exist.
    async fn set_account_status(&self, id: &OrganizationId, status: AccountStatus) -> Result<(), StoreError>;

    /// # Errors
    /// [`StoreError::NotFound`] when the organization or the plan does not exist.
    async fn set_plan(&self, id: &OrganizationId, plan: &PlanName) -> Result<(), StoreError>;

    /// Registers a sender. When it is the default, the organization's other senders stop being default, in
    /// the same transaction.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when the number is already registered for the organization, or the
    /// network's phone number id is registered anywhere; [`StoreError::NotFound`] for an unknown
    /// organization.
    async fn add_sender(&self, sender: &SenderNumber) -> Result<(), StoreError>;

    /// The organization's senders, oldest first.
    async fn senders(&self, organization: &OrganizationId) -> Result<Vec<SenderNumber>, StoreError>;

    /// The sender the network knows by `phone_number_id`, whatever its organization (for routing the
    /// network's callbacks).
    async fn sender_by_phone_number_id(
        &self,
        phone_number_id: &NetworkRef,
    ) -> Result<Option<SenderNumber>, StoreError>;

    /// Replaces the sender's sealed access token with `new` only while it still is `expected` (compare and
    /// set): a token changed meanwhile is kept, never overwritten with one sealed from an older read.
    /// Answers whether it was replaced; `false` also for an unknown sender or one of another organization.
    async fn replace_sealed_access_token(
        &self,
        organization: &OrganizationId,
        id: &SenderId,
        expected: &SealedSecret,
        new: &SealedSecret,
    ) -> Result<bool, StoreError>;

    /// # Errors
    /// [`StoreError::Conflict`] on a duplicate id or digest; [`StoreError::NotFound`] for an unknown
    /// organization.
    async fn create_api_key(&self, key: &ApiKeyRecord) -> Result<(), StoreError>;

    /// The organization's keys, oldest first.
    async fn api_keys(&self, organization: &OrganizationId) -> Result<Vec<ApiKeyRecord>, StoreError>;

    async fn api_key(&self, id: &ApiKeyId) -> Result<Option<ApiKeyRecord>, StoreError>;

    /// Disables a key (idempotent) and returns it as it now is.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] when the key does not exist.
    async fn disable_api_key(&self, id: &ApiKeyId, at: Timestamp) -> Result<ApiKeyRecord, StoreError>;

    /// The key with this digest, its organization and plan.
    async fn find_credential(&self, digest: &ApiKeyDigest) -> Result<Option<Credential>, StoreError>;

    /// Records that the key was used at `at`.
    async fn touch_api_key(&self, id: &ApiKeyId, at: Timestamp) -> Result<(), StoreError>;
}

/// The result of claiming an `Idempotency-Key`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdempotencyBegin {
    /// The key is now held by this request until it completes or is released.
    Started,
    /// A request with this key already completed and produced `message_id`.
    Completed {
        fingerprint: RequestFingerprint,
        message_id: MessageId,
    },
    /// A request with this key is still being processed.
    InFlight { fingerprint: RequestFingerprint },
}

/// Claim of an `Idempotency-Key` for one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdempotencyClaim {
    pub organization_id: OrganizationId,
    pub key: IdempotencyKey,
    /// Identifies this claim: once its lock lapses and another request takes the key over, completing or
    /// releasing with this token changes nothing.
    pub token: crate::dispatch::ClaimToken,
    pub fingerprint: RequestFingerprint,
    pub now: Timestamp,
    /// A pending claim older than this is abandoned (its process died) and may be taken over.
    pub lock_until: Timestamp,
    /// A completed record older than this (24 h) is forgotten and may be taken over.
    pub completed_after: Timestamp,
}

impl IdempotencyClaim {
    /// What the request holds once the claim [`IdempotencyBegin::Started`].
    pub fn hold(&self) -> IdempotencyHold {
        IdempotencyHold {
            key: self.key.clone(),
            token: self.token,
        }
    }
}

/// An `Idempotency-Key` as one request holds it: the key and the token of its claim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdempotencyHold {
    pub key: IdempotencyKey,
    pub token: crate::dispatch::ClaimToken,
}

/// A dispatch job, written with the message it sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutboxJob {
    pub id: JobId,
    pub organization_id: OrganizationId,
    pub message_id: MessageId,
    pub sender_id: SenderId,
    /// Not to be attempted before this.
    pub available_at: Timestamp,
    /// Retries stop after this; the message fails.
    pub deadline: Timestamp,
    /// The trace of the request that accepted the message, kept with the message for the work after it.
    pub trace: Option<crate::trace::TraceContext>,
}

/// The monthly quota this accept counts against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuotaCharge {
    pub period: BillingPeriod,
    /// `None`: unlimited, but still counted.
    pub limit: Option<u64>,
}

/// Everything written when a message is accepted, in one transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcceptRequest {
    pub message: Message,
    /// Its first status event (`accepted`).
    pub event: StatusEvent,
    pub job: OutboxJob,
    pub quota: QuotaCharge,
    /// Completed in the same transaction, so a replay finds the message exactly when it exists; only while
    /// this claim still holds the key.
    pub idempotency: Option<IdempotencyHold>,
}

/// The outcome of [`MessageStore::accept`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AcceptOutcome {
    Accepted,
    /// The quota had no room: nothing was written.
    QuotaExceeded,
    /// The request's idempotency claim lapsed and another request took the key over: nothing was written
    /// (the key belongs to the other request now).
    IdempotencyClaimLost,
}

/// Filters and position of a message log read, newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MessageQuery {
    pub status: Option<MessageStatus>,
    pub to: Option<PhoneNumber>,
    pub message_type: Option<MessageType>,
    pub client_reference: Option<ClientReference>,
    /// Inclusive.
    pub created_after: Option<Timestamp>,
    /// Exclusive.
    pub created_before: Option<Timestamp>,
    /// Only messages whose id sorts before this one (the cursor).
    pub before: Option<MessageId>,
    /// At most this many rows.
    pub limit: u32,
}

/// Messages, their status history, the outbox, quota counts and idempotency records.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait MessageStore: Send + Sync + 'static {
    /// Claims `claim.key` for one request.
    ///
    /// An abandoned pending claim (past `lock_until`) or a completed record older than
    /// `completed_after` is taken over and answers [`IdempotencyBegin::Started`].
    async fn begin_idempotent(&self, claim: &IdempotencyClaim) -> Result<IdempotencyBegin, StoreError>;

    /// Drops a pending claim whose request was refused, so nothing of it stays. Completed records, and a
    /// claim another request took over (another token), are left alone.
    async fn release_idempotent(
        &self,
        organization: &OrganizationId,
        hold: &IdempotencyHold,
    ) -> Result<(), StoreError>;

    /// Accepts a message: writes the message, its first event, its outbox job, the quota count and the
    /// idempotency record in ONE transaction, or nothing at all. With an idempotency hold whose claim is no
    /// longer the record's (its lock lapsed and another request took the key over), nothing is written and
    /// the answer is [`AcceptOutcome::IdempotencyClaimLost`].
    ///
    /// # Errors
    /// [`StoreError::Conflict`] on a duplicate message id.
    async fn accept(&self, request: &AcceptRequest) -> Result<AcceptOutcome, StoreError>;

    async fn message(
        &self,
        organization: &OrganizationId,
        id: &MessageId,
    ) -> Result<Option<Message>, StoreError>;

    /// The log, newest first (by id), filtered.
    async fn messages(
        &self,
        organization: &OrganizationId,
        query: &MessageQuery,
    ) -> Result<Vec<Message>, StoreError>;

    /// The message's status history, oldest first; `None` when the message does not exist.
    async fn status_history(
        &self,
        organization: &OrganizationId,
        id: &MessageId,
    ) -> Result<Option<Vec<StatusEvent>>, StoreError>;

    /// Messages counted against the quota in `period`.
    async fn usage(&self, organization: &OrganizationId, period: &BillingPeriod) -> Result<u64, StoreError>;
}

/// Filters of a template listing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TemplateQuery {
    pub status: Option<String>,
    pub name: Option<TemplateName>,
}

/// Herald's copies of the organizations' templates.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait TemplateStore: Send + Sync + 'static {
    /// Replaces the organization's templates of business account `waba_id` with `templates` (a sync).
    async fn replace_templates(
        &self,
        organization: &OrganizationId,
        waba_id: &NetworkRef,
        templates: &[Template],
    ) -> Result<(), StoreError>;

    async fn template(
        &self,
        organization: &OrganizationId,
        waba_id: &NetworkRef,
        name: &TemplateName,
        language: &LanguageCode,
    ) -> Result<Option<Template>, StoreError>;

    /// The organization's templates, by name then language.
    async fn templates(
        &self,
        organization: &OrganizationId,
        query: &TemplateQuery,
    ) -> Result<Vec<Template>, StoreError>;
}

/// Service windows, opened by inbound messages.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait WindowStore: Send + Sync + 'static {
    async fn window(
        &self,
        organization: &OrganizationId,
        sender: &SenderId,
        recipient: &PhoneNumber,
    ) -> Result<Option<ServiceWindow>, StoreError>;

    /// Records an inbound message. A window only moves forward: an older `last_inbound_at` than the
    /// stored one changes nothing.
    async fn record_inbound(&self, window: &ServiceWindow) -> Result<(), StoreError>;
}

/// The verdict of a rate limiter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateDecision {
    Allowed {
        limit: u32,
        remaining: u32,
        reset_seconds: u64,
    },
    Limited {
        limit: u32,
        retry_after_seconds: u64,
    },
}

/// Send-rate limiting per organization, with the plan's rate and burst.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait RateLimiter: Send + Sync + 'static {
    /// Takes `cost` sends from the organization's allowance, or says how long to wait.
    async fn check(
        &self,
        organization: &OrganizationId,
        plan: &Plan,
        cost: u32,
    ) -> Result<RateDecision, StoreError>;
}

/// A limiter that allows everything, for deployments and tests that limit elsewhere.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoRateLimit;

#[async_trait]
impl RateLimiter for NoRateLimit {
    async fn check(&self, _: &OrganizationId, plan: &Plan, _: u32) -> Result<RateDecision, StoreError> {
        Ok(RateDecision::Allowed {
            limit: plan.burst,
            remaining: plan.burst,
            reset_seconds: 0,
        })
    }
}

/// The outbox: claiming due jobs with a lease, and recording each attempt's outcome.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait OutboxStore: Send + Sync + 'static {
    /// Claims up to `limit` jobs that are due at `now`: pending ones whose time has come, and in-flight ones
    /// whose lease expired (those come back as [`crate::dispatch::JobHistory::Reclaimed`]). Each claimed job
    /// is leased to `token` until `lease_until`. Each sender with due jobs gets a fair share of the batch,
    /// its oldest, and never more than [`crate::dispatch::sender_claim_cap`] (what it can send within the
    /// lease). Any number of workers may call this at once; no job is
    /// handed to two live claims.
    async fn claim_jobs(
        &self,
        token: &crate::dispatch::ClaimToken,
        now: Timestamp,
        lease_until: Timestamp,
        limit: u32,
    ) -> Result<Vec<crate::dispatch::ClaimedJob>, StoreError>;

    /// Extends to `lease_until` the lease of each of `jobs` still held by `token` (in flight under that
    /// claim); answers how many were. A worker renews the jobs it is still working on, so a slow sender or
    /// a long transfer never lets its lease lapse and another worker send the message again.
    async fn renew_jobs(
        &self,
        token: &crate::dispatch::ClaimToken,
        jobs: &[JobId],
        lease_until: Timestamp,
    ) -> Result<usize, StoreError>;

    /// Records an outcome, in one transaction with the message's status change it implies. Answers `false`
    /// (and writes nothing) when the job is no longer held by `completion.token`.
    async fn complete_job(&self, completion: &crate::dispatch::JobCompletion) -> Result<bool, StoreError>;

    /// Records the outcomes of one dispatch round together, in ONE transaction: each exactly as
    /// [`Self::complete_job`] would record it alone (with the message's status change it implies, and only
    /// while the job is held by that completion's token). Answers one flag per completion, in order: `false`
    /// when that job is no longer held by its token, and then nothing was written for it; a lost claim does
    /// not keep the others from being recorded.
    ///
    /// # Errors
    /// A store failure; then NOTHING of the batch was written (the transaction rolled back), so the caller
    /// may still record the completions one by one.
    async fn complete_jobs(
        &self,
        completions: &[crate::dispatch::JobCompletion],
    ) -> Result<Vec<bool>, StoreError>;

    /// Every sender with jobs not done yet (pending or in flight), with how many and the due time of its
    /// oldest pending job due at `now`. One aggregated read, for the monitoring gauges; senders with an
    /// empty outbox are not listed.
    async fn backlog(&self, now: Timestamp) -> Result<Vec<crate::dispatch::SenderBacklog>, StoreError>;
}

/// Status changes and inbound messages, driven by the network's callbacks.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait TrackingStore: Send + Sync + 'static {
    /// Applies a status report to the message (locked for the update) with the status machine; records the
    /// report in its history whether applied or not, and writes a customer event when it changed the status.
    /// `None` when the message does not exist for this organization.
    async fn apply_status(
        &self,
        update: &crate::dispatch::StatusUpdate,
    ) -> Result<Option<crate::dispatch::StatusApplied>, StoreError>;

    /// The organization's message with this network id.
    async fn message_by_network_id(
        &self,
        organization: &OrganizationId,
        network_message_id: &str,
    ) -> Result<Option<Message>, StoreError>;

    /// Records an inbound message, opens or refreshes its service window and writes its customer event, in one
    /// transaction. Answers `false` when that network message id was already recorded (a duplicate callback).
    async fn record_inbound_message(
        &self,
        record: &crate::dispatch::InboundRecord,
    ) -> Result<bool, StoreError>;

    /// Stores a raw network callback durably, before it is acknowledged.
    async fn store_callback(&self, callback: &crate::dispatch::StoredCallback) -> Result<(), StoreError>;

    /// Stored callbacks not yet processed (and not parked) that were received before `received_before`,
    /// oldest first.
    async fn unprocessed_callbacks(
        &self,
        received_before: Timestamp,
        limit: u32,
    ) -> Result<Vec<crate::dispatch::StoredCallback>, StoreError>;

    /// Marks a stored callback processed, with a note of anything skipped.
    async fn mark_callback_processed(
        &self,
        id: &crate::ids::EventId,
        at: Timestamp,
        note: Option<String>,
    ) -> Result<(), StoreError>;

    /// Records that processing a stored callback failed with `error`. The callback that has now failed
    /// `park_after` times is parked at `at`: [`Self::unprocessed_callbacks`] no longer lists it, and it is
    /// kept with its attempt count and last error. Answers whether it is parked.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] for an unknown callback.
    async fn record_callback_failure(
        &self,
        id: &crate::ids::EventId,
        at: Timestamp,
        error: &str,
        park_after: u32,
    ) -> Result<bool, StoreError>;

    /// Parked callbacks, oldest first.
    async fn parked_callbacks(&self, limit: u32) -> Result<Vec<crate::dispatch::ParkedCallback>, StoreError>;

    /// How many callbacks are parked.
    async fn count_parked_callbacks(&self) -> Result<u64, StoreError>;

    /// Puts every parked callback back into the backlog with a fresh attempt count; answers how many.
    async fn requeue_parked_callbacks(&self) -> Result<u64, StoreError>;
}

/// Paces sends per sender number to its throughput.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait Pacer: Send + Sync + 'static {
    /// Waits until `sender` may send one more message.
    async fn wait_turn(&self, sender: &SenderNumber);

    /// The network said `sender` is over its throughput: hold its sends back for `pause`.
    fn slow_down(&self, sender: &SenderNumber, pause: crate::time::Duration);
}

/// Turns a raw callback body into events (the network adapter's parser).
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
pub trait CallbackDecoder: Send + Sync + 'static {
    /// # Errors
    /// A description when the body is not a callback envelope at all.
    fn decode(&self, body: &[u8]) -> Result<crate::network::ParsedCallback, String>;
}

// ---- The owner's dashboard (issue 7): owner accounts, sessions, and the reads only the dashboard makes ----

/// Owner accounts and dashboard sessions.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait OwnerStore: Send + Sync + 'static {
    /// Creates or replaces the organization's owner account, and ends every session of the organization in
    /// the same transaction (a new password logs everyone out).
    ///
    /// # Errors
    /// [`StoreError::NotFound`] for an unknown organization; [`StoreError::Conflict`] when the email is
    /// already the login of another organization's owner.
    async fn set_owner(&self, owner: &crate::owner::OwnerAccount) -> Result<(), StoreError>;

    /// The owner whose login is `email`, whatever the organization.
    async fn owner_by_email(
        &self,
        email: &crate::owner::OwnerEmail,
    ) -> Result<Option<crate::owner::OwnerAccount>, StoreError>;

    /// Stores a new session.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] for an unknown organization; [`StoreError::Conflict`] on a duplicate digest.
    async fn create_session(&self, session: &crate::owner::DashboardSession) -> Result<(), StoreError>;

    /// The session with this digest, expired or not (the caller judges expiry).
    async fn session(
        &self,
        digest: &crate::owner::SessionDigest,
    ) -> Result<Option<crate::owner::DashboardSession>, StoreError>;

    /// Records activity on a session (moves `last_seen_at`); a missing session is not an error.
    async fn touch_session(
        &self,
        digest: &crate::owner::SessionDigest,
        at: Timestamp,
    ) -> Result<(), StoreError>;

    /// Ends a session; idempotent.
    async fn delete_session(&self, digest: &crate::owner::SessionDigest) -> Result<(), StoreError>;

    /// Deletes every session idle since before `idle_before` or past its absolute expiry at `now`;
    /// answers how many.
    async fn delete_expired_sessions(
        &self,
        idle_before: Timestamp,
        now: Timestamp,
    ) -> Result<u64, StoreError>;

    /// The customer events written about one of the organization's messages, by sequence, each with its
    /// deliveries. Empty for an unknown message or another organization's.
    async fn sent_events(
        &self,
        organization: &OrganizationId,
        message: &MessageId,
    ) -> Result<Vec<crate::owner::SentEvent>, StoreError>;
}

/// Hashes and checks owner passwords (Argon2id in production). Async because a hash costs tens of
/// milliseconds of CPU on purpose: adapters run it off the request threads.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait PasswordHasher: Send + Sync + 'static {
    /// # Errors
    /// A description when hashing failed (never contains the password).
    async fn hash(&self, password: &str) -> Result<crate::owner::PasswordHash, String>;

    /// Whether `password` matches `hash`. With `None` (no such owner) it does the same work and answers
    /// `false`, so a login's timing does not tell whether the email exists.
    async fn verify(&self, password: &str, hash: Option<crate::owner::PasswordHash>) -> bool;
}

//! An in-memory store implementing every store port, following the rules documented in
//! `herald_domain::ports` and checked by [`crate::contract`]. Use cases run on it in other crates' tests.
//!
//! All state sits behind one mutex, held only for the length of one port call and never across an
//! `.await`: each call is therefore one transaction, which is what makes `accept` all-or-nothing and
//! the quota exact under concurrent accepts.

use crate::contract::{EventLog, Ports, RecordedEvent};
use async_trait::async_trait;
use herald_domain::Timestamp;
use herald_domain::api_key::{ApiKeyDigest, ApiKeyRecord, ApiKeyStatus};
use herald_domain::dispatch::{
    ClaimToken, ClaimedJob, CustomerEventType, InboundRecord, JobCompletion, JobHistory, JobOutcome,
    ParkedCallback, StatusApplied, StatusUpdate, StoredCallback,
};
use herald_domain::ids::{
    ApiKeyId, DeliveryId, EventId, MediaId, MessageId, OrganizationId, SenderId, WebhookId,
};
use herald_domain::media::{
    InboundMedia, MediaCatalog, MediaFile, MediaInsert, MediaRecord, NetworkUpload, Sha256Digest,
};
use herald_domain::message::{EventSource, Message, MessageStatus, StatusEvent};
use herald_domain::network::InboundContent;
use herald_domain::organization::{
    AccountStatus, NetworkRef, Organization, Plan, PlanName, SealedSecret, SenderNumber,
};
use herald_domain::ports::{
    AcceptOutcome, AcceptRequest, AccountStore, Credential, IdempotencyBegin, IdempotencyClaim,
    IdempotencyHold, MessageQuery, MessageStore, OutboxJob, OutboxStore, StoreError, TemplateQuery,
    TemplateStore, TrackingStore, WindowStore,
};
use herald_domain::status::{self, StatusReport, StatusState, Transition};
use herald_domain::template::{LanguageCode, Template, TemplateName};
use herald_domain::time::BillingPeriod;
use herald_domain::values::{IdempotencyKey, PhoneNumber, RequestFingerprint};
use herald_domain::webhook::{
    ClaimedDelivery, Delivery, DeliveryCompletion, DeliveryStatus, EndpointPatch, SecretSlot, TestEvent,
    WebhookEndpoint, WebhookStore,
};
use herald_domain::window::ServiceWindow;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// Where an idempotency record stands.
#[derive(Debug, Clone)]
enum Claim {
    Pending {
        locked_at: Timestamp,
    },
    Completed {
        message_id: MessageId,
        completed_at: Timestamp,
    },
}

#[derive(Debug, Clone)]
struct IdempotencyRecord {
    fingerprint: RequestFingerprint,
    /// The token of the claim that created or took over the record.
    token: ClaimToken,
    claim: Claim,
}

/// Where an outbox job stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum JobState {
    Pending,
    InFlight,
    Done,
    Failed,
}

/// An outbox job and its dispatch state.
#[derive(Debug, Clone)]
struct JobRecord {
    job: OutboxJob,
    state: JobState,
    attempts: u32,
    claim: Option<(ClaimToken, Timestamp)>,
    awaiting_callback: bool,
}

impl JobRecord {
    fn is_due(&self, now: Timestamp) -> bool {
        match self.state {
            JobState::Pending => self.job.available_at <= now,
            JobState::InFlight => self.claim.is_some_and(|(_, lease_until)| lease_until < now),
            JobState::Done | JobState::Failed => false,
        }
    }
}

#[derive(Debug, Clone)]
struct CallbackEntry {
    callback: StoredCallback,
    processed: Option<(Timestamp, Option<String>)>,
    attempts: u32,
    last_error: Option<String>,
    parked_at: Option<Timestamp>,
}

/// A delivery and its claim.
#[derive(Debug, Clone)]
struct DeliveryRecord {
    delivery: Delivery,
    claim: Option<(ClaimToken, Timestamp)>,
}

impl DeliveryRecord {
    fn has_live_lease(&self, now: Timestamp) -> bool {
        self.delivery.status == DeliveryStatus::Pending
            && self.claim.is_some_and(|(_, lease_until)| lease_until >= now)
    }

    fn is_due(&self, now: Timestamp) -> bool {
        self.delivery.status == DeliveryStatus::Pending
            && self.delivery.next_attempt_at.is_some_and(|at| at <= now)
            && self.claim.is_none_or(|(_, lease_until)| lease_until < now)
    }
}

#[derive(Debug, Default, Clone)]
struct State {
    plans: BTreeMap<PlanName, Plan>,
    organizations: Vec<Organization>,
    senders: Vec<SenderNumber>,
    api_keys: Vec<ApiKeyRecord>,
    messages: BTreeMap<MessageId, Message>,
    events: HashMap<MessageId, Vec<StatusEvent>>,
    jobs: Vec<JobRecord>,
    inbound: Vec<InboundRecord>,
    callbacks: Vec<CallbackEntry>,
    customer_events: Vec<RecordedEvent>,
    endpoints: Vec<WebhookEndpoint>,
    deliveries: Vec<DeliveryRecord>,
    usage: HashMap<(OrganizationId, BillingPeriod), u64>,
    idempotency: HashMap<(OrganizationId, IdempotencyKey), IdempotencyRecord>,
    templates: Vec<Template>,
    windows: HashMap<(OrganizationId, SenderId, PhoneNumber), ServiceWindow>,
    media_files: Vec<MediaFile>,
    network_uploads: HashMap<(SenderId, Sha256Digest), NetworkUpload>,
    owners: Vec<herald_domain::owner::OwnerAccount>,
    sessions: Vec<herald_domain::owner::DashboardSession>,
}

impl State {
    fn organization_exists(&self, id: &OrganizationId) -> bool {
        self.organizations.iter().any(|o| &o.id == id)
    }

    fn organization_mut(&mut self, id: &OrganizationId) -> Result<&mut Organization, StoreError> {
        self.organizations
            .iter_mut()
            .find(|o| &o.id == id)
            .ok_or(StoreError::NotFound)
    }
}

/// One in-memory store behind every store port, seeded with [`Plan::defaults`].
#[derive(Debug)]
pub struct InMemoryStore {
    state: Mutex<State>,
}

impl Default for InMemoryStore {
    fn default() -> Self {
        Self::new()
    }
}

impl InMemoryStore {
    /// An empty store with the default plans.
    pub fn new() -> Self {
        let state = State {
            plans: Plan::defaults()
                .into_iter()
                .map(|plan| (plan.name.clone(), plan))
                .collect(),
            ..State::default()
        };
        Self {
            state: Mutex::new(state),
        }
    }

    /// This store as every port, consumed.
    pub fn ports(self) -> Ports {
        Arc::new(self).shared_ports()
    }

    /// This store as every port, keeping `self` for inspection ([`InMemoryStore::outbox`]).
    pub fn shared_ports(self: &Arc<Self>) -> Ports {
        Ports {
            accounts: self.clone(),
            messages: self.clone(),
            templates: self.clone(),
            windows: self.clone(),
            outbox: self.clone(),
            tracking: self.clone(),
            webhooks: self.clone(),
            media: self.clone(),
            events: self.clone(),
            owners: self.clone(),
        }
    }

    /// Every outbox job written so far, in the order written, as accepted (for tests of the send path).
    pub fn outbox(&self) -> Vec<OutboxJob> {
        self.state().jobs.iter().map(|j| j.job.clone()).collect()
    }

    /// Every customer event written so far, in the order written.
    pub fn customer_events(&self) -> Vec<RecordedEvent> {
        self.state().customer_events.clone()
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // Every method checks before it writes, so a panic while holding the lock (a bug) cannot leave a
        // half-written change behind: the state stays usable.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn conflict(what: &str) -> StoreError {
    StoreError::Conflict(what.to_owned())
}

#[async_trait]
impl AccountStore for InMemoryStore {
    async fn plans(&self) -> Result<Vec<Plan>, StoreError> {
        Ok(self.state().plans.values().cloned().collect())
    }

    async fn plan(&self, name: &PlanName) -> Result<Option<Plan>, StoreError> {
        Ok(self.state().plans.get(name).cloned())
    }

    async fn put_plan(&self, plan: &Plan) -> Result<(), StoreError> {
        self.state().plans.insert(plan.name.clone(), plan.clone());
        Ok(())
    }

    async fn create_organization(&self, organization: &Organization) -> Result<(), StoreError> {
        let mut state = self.state();
        if state.organization_exists(&organization.id) {
            return Err(conflict("organization id already exists"));
        }
        if !state.plans.contains_key(&organization.plan) {
            return Err(StoreError::NotFound);
        }
        state.organizations.push(organization.clone());
        Ok(())
    }

    async fn organization(&self, id: &OrganizationId) -> Result<Option<Organization>, StoreError> {
        Ok(self.state().organizations.iter().find(|o| &o.id == id).cloned())
    }

    async fn organizations(&self) -> Result<Vec<Organization>, StoreError> {
        let mut all = self.state().organizations.clone();
        all.sort_by_key(|o| (o.created_at, o.id));
        Ok(all)
    }

    async fn set_account_status(&self, id: &OrganizationId, status: AccountStatus) -> Result<(), StoreError> {
        self.state().organization_mut(id)?.status = status;
        Ok(())
    }

    async fn set_plan(&self, id: &OrganizationId, plan: &PlanName) -> Result<(), StoreError> {
        let mut state = self.state();
        if !state.plans.contains_key(plan) {
            return Err(StoreError::NotFound);
        }
        state.organization_mut(id)?.plan = plan.clone();
        Ok(())
    }

    async fn add_sender(&self, sender: &SenderNumber) -> Result<(), StoreError> {
        let mut state = self.state();
        if !state.organization_exists(&sender.organization_id) {
            return Err(StoreError::NotFound);
        }
        if state.senders.iter().any(|s| s.id == sender.id) {
            return Err(conflict("sender id already exists"));
        }
        if state
            .senders
            .iter()
            .any(|s| s.organization_id == sender.organization_id && s.number == sender.number)
        {
            return Err(conflict("number is already a sender of this organization"));
        }
        if state
            .senders
            .iter()
            .any(|s| s.phone_number_id == sender.phone_number_id)
        {
            return Err(conflict("phone_number_id is already registered"));
        }
        if sender.is_default {
            for other in state
                .senders
                .iter_mut()
                .filter(|s| s.organization_id == sender.organization_id)
            {
                other.is_default = false;
            }
        }
        state.senders.push(sender.clone());
        Ok(())
    }

    async fn senders(&self, organization: &OrganizationId) -> Result<Vec<SenderNumber>, StoreError> {
        let mut senders: Vec<SenderNumber> = self
            .state()
            .senders
            .iter()
            .filter(|s| &s.organization_id == organization)
            .cloned()
            .collect();
        senders.sort_by_key(|s| (s.created_at, s.id));
        Ok(senders)
    }

    async fn sender_by_phone_number_id(
        &self,
        phone_number_id: &NetworkRef,
    ) -> Result<Option<SenderNumber>, StoreError> {
        Ok(self
            .state()
            .senders
            .iter()
            .find(|s| &s.phone_number_id == phone_number_id)
            .cloned())
    }

    async fn replace_sealed_access_token(
        &self,
        organization: &OrganizationId,
        id: &SenderId,
        expected: &SealedSecret,
        new: &SealedSecret,
    ) -> Result<bool, StoreError> {
        let mut state = self.state();
        let Some(sender) = state.senders.iter_mut().find(|s| {
            &s.organization_id == organization
                && &s.id == id
                && s.sealed_access_token.as_ref() == Some(expected)
        }) else {
            return Ok(false);
        };
        sender.sealed_access_token = Some(new.clone());
        Ok(true)
    }

    async fn create_api_key(&self, key: &ApiKeyRecord) -> Result<(), StoreError> {
        let mut state = self.state();
        if !state.organization_exists(&key.organization_id) {
            return Err(StoreError::NotFound);
        }
        if state.api_keys.iter().any(|k| k.id == key.id) {
            return Err(conflict("api key id already exists"));
        }
        if state.api_keys.iter().any(|k| k.digest == key.digest) {
            return Err(conflict("api key digest already exists"));
        }
        state.api_keys.push(key.clone());
        Ok(())
    }

    async fn api_keys(&self, organization: &OrganizationId) -> Result<Vec<ApiKeyRecord>, StoreError> {
        let mut keys: Vec<ApiKeyRecord> = self
            .state()
            .api_keys
            .iter()
            .filter(|k| &k.organization_id == organization)
            .cloned()
            .collect();
        keys.sort_by_key(|k| (k.created_at, k.id));
        Ok(keys)
    }

    async fn api_key(&self, id: &ApiKeyId) -> Result<Option<ApiKeyRecord>, StoreError> {
        Ok(self.state().api_keys.iter().find(|k| &k.id == id).cloned())
    }

    async fn disable_api_key(&self, id: &ApiKeyId, at: Timestamp) -> Result<ApiKeyRecord, StoreError> {
        let mut state = self.state();
        let key = state
            .api_keys
            .iter_mut()
            .find(|k| &k.id == id)
            .ok_or(StoreError::NotFound)?;
        // Idempotent: disabling again keeps the first disabling time.
        if key.status != ApiKeyStatus::Disabled {
            key.status = ApiKeyStatus::Disabled;
            key.disabled_at = Some(at);
        }
        Ok(key.clone())
    }

    async fn find_credential(&self, digest: &ApiKeyDigest) -> Result<Option<Credential>, StoreError> {
        let state = self.state();
        let Some(key) = state.api_keys.iter().find(|k| &k.digest == digest) else {
            return Ok(None);
        };
        let organization = state
            .organizations
            .iter()
            .find(|o| o.id == key.organization_id)
            .ok_or_else(|| StoreError::Unknown(anyhow::anyhow!("api key of a missing organization")))?;
        let plan = state
            .plans
            .get(&organization.plan)
            .ok_or_else(|| StoreError::Unknown(anyhow::anyhow!("organization on a missing plan")))?;
        Ok(Some(Credential {
            key: key.clone(),
            organization: organization.clone(),
            plan: plan.clone(),
        }))
    }

    async fn touch_api_key(&self, id: &ApiKeyId, at: Timestamp) -> Result<(), StoreError> {
        let mut state = self.state();
        let key = state
            .api_keys
            .iter_mut()
            .find(|k| &k.id == id)
            .ok_or(StoreError::NotFound)?;
        key.last_used_at = Some(at);
        Ok(())
    }
}

fn matches(message: &Message, query: &MessageQuery) -> bool {
    query.status.is_none_or(|s| message.status == s)
        && query.to.as_ref().is_none_or(|to| &message.to == to)
        && query
            .message_type
            .is_none_or(|t| message.content.message_type() == t)
        && query
            .client_reference
            .as_ref()
            .is_none_or(|r| message.client_reference.as_ref() == Some(r))
        && query.created_after.is_none_or(|t| message.created_at >= t)
        && query.created_before.is_none_or(|t| message.created_at < t)
        && query.before.is_none_or(|id| message.id < id)
}

#[async_trait]
impl MessageStore for InMemoryStore {
    async fn begin_idempotent(&self, claim: &IdempotencyClaim) -> Result<IdempotencyBegin, StoreError> {
        let mut state = self.state();
        let slot = (claim.organization_id, claim.key.clone());
        if let Some(record) = state.idempotency.get(&slot) {
            match &record.claim {
                Claim::Pending { locked_at } if *locked_at >= claim.lock_until => {
                    return Ok(IdempotencyBegin::InFlight {
                        fingerprint: record.fingerprint,
                    });
                }
                Claim::Completed {
                    message_id,
                    completed_at,
                } if *completed_at >= claim.completed_after => {
                    return Ok(IdempotencyBegin::Completed {
                        fingerprint: record.fingerprint,
                        message_id: *message_id,
                    });
                }
                // Abandoned or forgotten: taken over below.
                _ => {}
            }
        }
        state.idempotency.insert(
            slot,
            IdempotencyRecord {
                fingerprint: claim.fingerprint,
                token: claim.token,
                claim: Claim::Pending { locked_at: claim.now },
            },
        );
        Ok(IdempotencyBegin::Started)
    }

    async fn release_idempotent(
        &self,
        organization: &OrganizationId,
        hold: &IdempotencyHold,
    ) -> Result<(), StoreError> {
        let mut state = self.state();
        let slot = (*organization, hold.key.clone());
        if state
            .idempotency
            .get(&slot)
            .is_some_and(|r| r.token == hold.token && matches!(r.claim, Claim::Pending { .. }))
        {
            state.idempotency.remove(&slot);
        }
        Ok(())
    }

    async fn accept(&self, request: &AcceptRequest) -> Result<AcceptOutcome, StoreError> {
        let mut state = self.state();
        let message = &request.message;
        if state.messages.contains_key(&message.id) {
            return Err(conflict("message id already exists"));
        }
        if state.events.values().flatten().any(|e| e.id == request.event.id) {
            return Err(conflict("event id already exists"));
        }
        if state.jobs.iter().any(|j| j.job.id == request.job.id) {
            return Err(conflict("job id already exists"));
        }
        if let Some(hold) = &request.idempotency {
            let held = state
                .idempotency
                .get(&(message.organization_id, hold.key.clone()))
                .is_some_and(|r| r.token == hold.token && matches!(r.claim, Claim::Pending { .. }));
            if !held {
                return Ok(AcceptOutcome::IdempotencyClaimLost);
            }
        }
        let counter = (message.organization_id, request.quota.period.clone());
        let used = state.usage.get(&counter).copied().unwrap_or(0);
        if request.quota.limit.is_some_and(|limit| used >= limit) {
            return Ok(AcceptOutcome::QuotaExceeded);
        }
        // Every check passed: from here on, nothing can fail, so the writes below are all-or-nothing.
        state.usage.insert(counter, used.saturating_add(1));
        state.messages.insert(message.id, message.clone());
        state.events.insert(message.id, vec![request.event.clone()]);
        state.jobs.push(JobRecord {
            job: request.job.clone(),
            state: JobState::Pending,
            attempts: 0,
            claim: None,
            awaiting_callback: false,
        });
        if let Some(hold) = &request.idempotency
            && let Some(record) = state
                .idempotency
                .get_mut(&(message.organization_id, hold.key.clone()))
        {
            record.claim = Claim::Completed {
                message_id: message.id,
                completed_at: message.created_at,
            };
        }
        Ok(AcceptOutcome::Accepted)
    }

    async fn message(
        &self,
        organization: &OrganizationId,
        id: &MessageId,
    ) -> Result<Option<Message>, StoreError> {
        Ok(self
            .state()
            .messages
            .get(id)
            .filter(|m| &m.organization_id == organization)
            .cloned())
    }

    async fn messages(
        &self,
        organization: &OrganizationId,
        query: &MessageQuery,
    ) -> Result<Vec<Message>, StoreError> {
        let limit = usize::try_from(query.limit).unwrap_or(usize::MAX);
        Ok(self
            .state()
            .messages
            .values()
            .rev()
            .filter(|m| &m.organization_id == organization && matches(m, query))
            .take(limit)
            .cloned()
            .collect())
    }

    async fn status_history(
        &self,
        organization: &OrganizationId,
        id: &MessageId,
    ) -> Result<Option<Vec<StatusEvent>>, StoreError> {
        let state = self.state();
        let own = state
            .messages
            .get(id)
            .filter(|m| &m.organization_id == organization);
        if own.is_none() {
            return Ok(None);
        }
        let mut events = state.events.get(id).cloned().unwrap_or_default();
        events.sort_by_key(|e| (e.recorded_at, e.id));
        Ok(Some(events))
    }

    async fn usage(&self, organization: &OrganizationId, period: &BillingPeriod) -> Result<u64, StoreError> {
        Ok(self
            .state()
            .usage
            .get(&(*organization, period.clone()))
            .copied()
            .unwrap_or(0))
    }
}

#[async_trait]
impl TemplateStore for InMemoryStore {
    async fn replace_templates(
        &self,
        organization: &OrganizationId,
        waba_id: &NetworkRef,
        templates: &[Template],
    ) -> Result<(), StoreError> {
        let mut state = self.state();
        if !state.organization_exists(organization) {
            return Err(StoreError::NotFound);
        }
        state
            .templates
            .retain(|t| !(&t.organization_id == organization && &t.waba_id == waba_id));
        // The call's scope wins over what the values say, so a sync can never write into another tenant.
        state.templates.extend(templates.iter().map(|t| Template {
            organization_id: *organization,
            waba_id: waba_id.clone(),
            ..t.clone()
        }));
        Ok(())
    }

    async fn template(
        &self,
        organization: &OrganizationId,
        waba_id: &NetworkRef,
        name: &TemplateName,
        language: &LanguageCode,
    ) -> Result<Option<Template>, StoreError> {
        Ok(self
            .state()
            .templates
            .iter()
            .find(|t| {
                &t.organization_id == organization
                    && &t.waba_id == waba_id
                    && &t.name == name
                    && &t.language == language
            })
            .cloned())
    }

    async fn templates(
        &self,
        organization: &OrganizationId,
        query: &TemplateQuery,
    ) -> Result<Vec<Template>, StoreError> {
        let mut found: Vec<Template> = self
            .state()
            .templates
            .iter()
            .filter(|t| {
                &t.organization_id == organization
                    && query.status.as_deref().is_none_or(|s| t.status.as_str() == s)
                    && query.name.as_ref().is_none_or(|n| &t.name == n)
            })
            .cloned()
            .collect();
        found.sort_by(|a, b| {
            (&a.name, &a.language, a.waba_id.as_str()).cmp(&(&b.name, &b.language, b.waba_id.as_str()))
        });
        Ok(found)
    }
}

#[async_trait]
impl WindowStore for InMemoryStore {
    async fn window(
        &self,
        organization: &OrganizationId,
        sender: &SenderId,
        recipient: &PhoneNumber,
    ) -> Result<Option<ServiceWindow>, StoreError> {
        Ok(self
            .state()
            .windows
            .get(&(*organization, *sender, recipient.clone()))
            .cloned())
    }

    async fn record_inbound(&self, window: &ServiceWindow) -> Result<(), StoreError> {
        self.state().record_window(window);
        Ok(())
    }
}

impl State {
    /// `TrackingStore::apply_status` on the locked state (also the status change of a completed job).
    fn apply_status(&mut self, update: &StatusUpdate) -> Result<Option<StatusApplied>, StoreError> {
        let Some(message) = self
            .messages
            .get(&update.message_id)
            .filter(|m| m.organization_id == update.organization_id)
            .cloned()
        else {
            return Ok(None);
        };
        let current = StatusState {
            status: message.status,
            timestamps: message.timestamps.clone(),
            error: message.error.clone(),
        };
        let transition = status::apply(&current, &update.report);
        let mut after = message;
        let previous = match &transition {
            Transition::Applied { previous, state } => {
                after.status = state.status;
                after.timestamps = state.timestamps.clone();
                after.error = state.error.clone();
                after.updated_at = update.recorded_at;
                if after.network_message_id.is_none() {
                    after.network_message_id = update.network_message_id.clone();
                }
                Some(*previous)
            }
            Transition::Recorded { .. } => None,
        };
        let customer_event = match previous {
            Some(previous) => {
                let last = self
                    .customer_events
                    .iter()
                    .filter(|e| e.message_id == Some(after.id))
                    .map(|e| e.sequence)
                    .max()
                    .unwrap_or(0);
                let sequence = last.saturating_add(1);
                let payload = herald_events::status_event(
                    &after,
                    previous,
                    update.report.occurred_at,
                    sequence,
                    update.recorded_at,
                );
                Some(RecordedEvent {
                    id: update.customer_event_id,
                    organization_id: after.organization_id,
                    event_type: CustomerEventType::for_status(after.status),
                    message_id: Some(after.id),
                    sequence,
                    payload: serde_json::to_string(&payload)
                        .map_err(|e| StoreError::Unknown(anyhow::anyhow!("cannot encode an event: {e}")))?,
                    occurred_at: update.report.occurred_at,
                    created_at: update.recorded_at,
                })
            }
            None => None,
        };
        // Every check passed: the writes below cannot fail.
        self.events.entry(after.id).or_default().push(StatusEvent {
            id: update.event_id,
            organization_id: after.organization_id,
            message_id: after.id,
            status: update.report.status,
            previous_status: previous,
            applied: previous.is_some(),
            source: update.source,
            error: update.report.error.clone(),
            occurred_at: update.report.occurred_at,
            recorded_at: update.recorded_at,
        });
        if let Some(event) = customer_event {
            self.push_customer_event(event);
        }
        self.messages.insert(after.id, after.clone());
        Ok(Some(StatusApplied {
            transition,
            message: after,
        }))
    }

    /// Writes a customer event and its fan-out (`WebhookStore`'s rule): one delivery per endpoint of the
    /// organization subscribed to its type, pending at the event's recording time when the endpoint is
    /// enabled, skipped when not.
    fn push_customer_event(&mut self, event: RecordedEvent) {
        if event.event_type != CustomerEventType::WebhookTest {
            let mut endpoints: Vec<&WebhookEndpoint> = self
                .endpoints
                .iter()
                .filter(|e| e.organization_id == event.organization_id && e.events.includes(event.event_type))
                .collect();
            endpoints.sort_by_key(|e| e.id);
            let deliveries: Vec<DeliveryRecord> = endpoints
                .into_iter()
                .map(|endpoint| DeliveryRecord {
                    delivery: Delivery {
                        id: fan_out_delivery_id(&event.id, &endpoint.id),
                        organization_id: event.organization_id,
                        endpoint_id: endpoint.id,
                        event_id: event.id,
                        event_type: event.event_type,
                        status: if endpoint.enabled {
                            DeliveryStatus::Pending
                        } else {
                            DeliveryStatus::Skipped
                        },
                        next_attempt_at: endpoint.enabled.then_some(event.created_at),
                        attempts: Vec::new(),
                        created_at: event.created_at,
                    },
                    claim: None,
                })
                .collect();
            self.deliveries.extend(deliveries);
        }
        self.customer_events.push(event);
    }

    fn endpoint_exists(&self, organization: &OrganizationId, id: &WebhookId) -> bool {
        self.endpoints
            .iter()
            .any(|e| &e.organization_id == organization && &e.id == id)
    }

    fn record_window(&mut self, window: &ServiceWindow) {
        let slot = (window.organization_id, window.sender_id, window.recipient.clone());
        let newer = self
            .windows
            .get(&slot)
            .is_none_or(|stored| window.last_inbound_at > stored.last_inbound_at);
        if newer {
            self.windows.insert(slot, window.clone());
        }
    }
}

#[async_trait]
impl OutboxStore for InMemoryStore {
    async fn claim_jobs(
        &self,
        token: &ClaimToken,
        now: Timestamp,
        lease_until: Timestamp,
        limit: u32,
    ) -> Result<Vec<ClaimedJob>, StoreError> {
        let mut state = self.state();
        let mut due: Vec<usize> = (0..state.jobs.len())
            .filter(|i| state.jobs.get(*i).is_some_and(|j| j.is_due(now)))
            .collect();
        due.sort_by_key(|i| state.jobs.get(*i).map(|j| (j.job.available_at, j.job.id)));
        // A fair share per sender, as the stores take it: each sender's oldest, at most
        // max(1, limit / senders with due jobs) of them, then the oldest `limit` of those.
        let limit = usize::try_from(limit).unwrap_or(usize::MAX);
        let mut per_sender: BTreeMap<SenderId, usize> = BTreeMap::new();
        for index in &due {
            if let Some(record) = state.jobs.get(*index) {
                per_sender.entry(record.job.sender_id).or_default();
            }
        }
        let share = (limit / per_sender.len().max(1)).max(1);
        // And no more of a sender than it can send within the lease.
        let cap = |sender_id: SenderId| {
            state.senders.iter().find(|s| s.id == sender_id).map_or(1, |s| {
                herald_domain::dispatch::sender_claim_cap(s.throughput_per_second, now, lease_until)
            })
        };
        let caps: BTreeMap<SenderId, usize> = per_sender
            .keys()
            .map(|id| (*id, usize::try_from(cap(*id)).unwrap_or(usize::MAX).min(share)))
            .collect();
        due.retain(|index| {
            state.jobs.get(*index).is_some_and(|record| {
                let taken = per_sender.entry(record.job.sender_id).or_default();
                *taken += 1;
                *taken <= caps.get(&record.job.sender_id).copied().unwrap_or(share)
            })
        });
        due.truncate(limit);
        let mut claimed = Vec::with_capacity(due.len());
        for index in due {
            let Some(record) = state.jobs.get(index).cloned() else {
                continue;
            };
            let missing =
                || StoreError::Unknown(anyhow::anyhow!("outbox job {} without its rows", record.job.id));
            let message = state
                .messages
                .get(&record.job.message_id)
                .cloned()
                .ok_or_else(missing)?;
            let sender = state
                .senders
                .iter()
                .find(|s| s.id == message.sender_id)
                .cloned()
                .ok_or_else(missing)?;
            let account_status = state
                .organizations
                .iter()
                .find(|o| o.id == message.organization_id)
                .map(|o| o.status)
                .ok_or_else(missing)?;
            let history = if record.state == JobState::InFlight {
                JobHistory::Reclaimed
            } else if record.awaiting_callback {
                JobHistory::AwaitedCallback
            } else if record.attempts > 0 {
                JobHistory::Retried
            } else {
                JobHistory::Fresh
            };
            let attempts = record.attempts.saturating_add(1);
            if let Some(stored) = state.jobs.get_mut(index) {
                stored.state = JobState::InFlight;
                stored.attempts = attempts;
                stored.claim = Some((*token, lease_until));
                stored.awaiting_callback = false;
            }
            claimed.push(ClaimedJob {
                job_id: record.job.id,
                organization_id: record.job.organization_id,
                attempts,
                history,
                deadline: record.job.deadline,
                message,
                sender,
                account_status,
            });
        }
        Ok(claimed)
    }

    async fn renew_jobs(
        &self,
        token: &ClaimToken,
        jobs: &[herald_domain::ids::JobId],
        lease_until: Timestamp,
    ) -> Result<usize, StoreError> {
        let mut state = self.state();
        let mut renewed = 0;
        for record in state.jobs.iter_mut().filter(|j| {
            jobs.contains(&j.job.id)
                && j.state == JobState::InFlight
                && j.claim.is_some_and(|(held, _)| held == *token)
        }) {
            record.claim = Some((*token, lease_until));
            renewed += 1;
        }
        Ok(renewed)
    }

    async fn complete_job(&self, completion: &JobCompletion) -> Result<bool, StoreError> {
        self.state().complete_job(completion)
    }

    async fn complete_jobs(&self, completions: &[JobCompletion]) -> Result<Vec<bool>, StoreError> {
        let mut state = self.state();
        // All or nothing, like the databases' one transaction: the batch is written to a copy, kept only when
        // every completion could be written.
        let mut draft = state.clone();
        let held = completions
            .iter()
            .map(|completion| draft.complete_job(completion))
            .collect::<Result<Vec<bool>, StoreError>>()?;
        *state = draft;
        Ok(held)
    }

    async fn backlog(
        &self,
        now: Timestamp,
    ) -> Result<Vec<herald_domain::dispatch::SenderBacklog>, StoreError> {
        let state = self.state();
        let mut by_sender: BTreeMap<(OrganizationId, SenderId), (u64, Option<Timestamp>)> = BTreeMap::new();
        for record in &state.jobs {
            if !matches!(record.state, JobState::Pending | JobState::InFlight) {
                continue;
            }
            let entry = by_sender
                .entry((record.job.organization_id, record.job.sender_id))
                .or_default();
            entry.0 += 1;
            if record.state == JobState::Pending && record.job.available_at <= now {
                entry.1 = Some(
                    entry
                        .1
                        .map_or(record.job.available_at, |at| at.min(record.job.available_at)),
                );
            }
        }
        Ok(by_sender
            .into_iter()
            .map(|((organization_id, sender_id), (depth, oldest_due))| {
                herald_domain::dispatch::SenderBacklog {
                    organization_id,
                    sender_id,
                    depth,
                    oldest_due,
                }
            })
            .collect())
    }
}

impl State {
    /// `OutboxStore::complete_job` on this state: `false`, with nothing written, when the job is no longer
    /// held by the completion's token.
    fn complete_job(&mut self, completion: &JobCompletion) -> Result<bool, StoreError> {
        let Some(record) = self.jobs.iter_mut().find(|j| {
            j.job.id == completion.job_id
                && j.job.organization_id == completion.organization_id
                && j.state == JobState::InFlight
                && j.claim.is_some_and(|(token, _)| token == completion.token)
        }) else {
            return Ok(false);
        };
        record.claim = None;
        let report = match &completion.outcome {
            JobOutcome::Submitted { network_message_id } => {
                record.state = JobState::Done;
                Some((
                    StatusReport {
                        status: MessageStatus::Submitted,
                        occurred_at: completion.at,
                        error: None,
                    },
                    Some(network_message_id.clone()),
                ))
            }
            JobOutcome::AlreadyDone => {
                record.state = JobState::Done;
                None
            }
            JobOutcome::Failed { error } => {
                record.state = JobState::Failed;
                Some((
                    StatusReport {
                        status: MessageStatus::Failed,
                        occurred_at: completion.at,
                        error: Some(error.clone()),
                    },
                    None,
                ))
            }
            JobOutcome::Retry { at, .. } => {
                record.state = JobState::Pending;
                record.job.available_at = *at;
                None
            }
            JobOutcome::AwaitCallback { until, .. } => {
                record.state = JobState::Pending;
                record.job.available_at = *until;
                record.awaiting_callback = true;
                None
            }
            JobOutcome::Hold { until } => {
                record.state = JobState::Pending;
                record.job.available_at = *until;
                record.attempts = record.attempts.saturating_sub(1);
                None
            }
        };
        if let Some((report, network_message_id)) = report {
            self.apply_status(&StatusUpdate {
                organization_id: completion.organization_id,
                message_id: completion.message_id,
                report,
                network_message_id,
                source: EventSource::Herald,
                event_id: completion.event_id,
                customer_event_id: completion.customer_event_id,
                recorded_at: completion.at,
            })?;
        }
        Ok(true)
    }
}

#[async_trait]
impl TrackingStore for InMemoryStore {
    async fn apply_status(&self, update: &StatusUpdate) -> Result<Option<StatusApplied>, StoreError> {
        self.state().apply_status(update)
    }

    async fn message_by_network_id(
        &self,
        organization: &OrganizationId,
        network_message_id: &str,
    ) -> Result<Option<Message>, StoreError> {
        Ok(self
            .state()
            .messages
            .values()
            .find(|m| {
                &m.organization_id == organization
                    && m.network_message_id.as_deref() == Some(network_message_id)
            })
            .cloned())
    }

    async fn record_inbound_message(&self, record: &InboundRecord) -> Result<bool, StoreError> {
        let mut state = self.state();
        let to = state
            .senders
            .iter()
            .find(|s| s.id == record.sender_id && s.organization_id == record.organization_id)
            .map(|s| s.number.clone())
            .ok_or(StoreError::NotFound)?;
        if state.inbound.iter().any(|r| {
            r.organization_id == record.organization_id
                && r.message.network_message_id == record.message.network_message_id
        }) {
            return Ok(false);
        }
        if record.media_id.is_some() && state.inbound.iter().any(|r| r.media_id == record.media_id) {
            return Err(conflict("inbound media id already exists"));
        }
        let payload = serde_json::to_string(&herald_events::inbound_event(record, &to))
            .map_err(|e| StoreError::Unknown(anyhow::anyhow!("cannot encode an event: {e}")))?;
        state.record_window(&ServiceWindow {
            organization_id: record.organization_id,
            sender_id: record.sender_id,
            recipient: record.message.from.clone(),
            last_inbound_at: record.message.received_at,
        });
        state.push_customer_event(RecordedEvent {
            id: record.customer_event_id,
            organization_id: record.organization_id,
            event_type: CustomerEventType::MessageInbound,
            message_id: Some(record.id),
            sequence: 1,
            payload,
            occurred_at: record.message.received_at,
            created_at: record.recorded_at,
        });
        state.inbound.push(record.clone());
        Ok(true)
    }

    async fn store_callback(&self, callback: &StoredCallback) -> Result<(), StoreError> {
        let mut state = self.state();
        if state.callbacks.iter().any(|c| c.callback.id == callback.id) {
            return Err(conflict("callback id already exists"));
        }
        state.callbacks.push(CallbackEntry {
            callback: callback.clone(),
            processed: None,
            attempts: 0,
            last_error: None,
            parked_at: None,
        });
        Ok(())
    }

    async fn unprocessed_callbacks(
        &self,
        received_before: Timestamp,
        limit: u32,
    ) -> Result<Vec<StoredCallback>, StoreError> {
        let mut pending: Vec<StoredCallback> = self
            .state()
            .callbacks
            .iter()
            .filter(|c| {
                c.processed.is_none() && c.parked_at.is_none() && c.callback.received_at < received_before
            })
            .map(|c| c.callback.clone())
            .collect();
        pending.sort_by_key(|c| (c.received_at, c.id));
        pending.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
        Ok(pending)
    }

    async fn mark_callback_processed(
        &self,
        id: &EventId,
        at: Timestamp,
        note: Option<String>,
    ) -> Result<(), StoreError> {
        let mut state = self.state();
        let entry = state
            .callbacks
            .iter_mut()
            .find(|c| &c.callback.id == id)
            .ok_or(StoreError::NotFound)?;
        entry.processed = Some((at, note));
        Ok(())
    }

    async fn record_callback_failure(
        &self,
        id: &EventId,
        at: Timestamp,
        error: &str,
        park_after: u32,
    ) -> Result<bool, StoreError> {
        let mut state = self.state();
        let entry = state
            .callbacks
            .iter_mut()
            .find(|c| &c.callback.id == id)
            .ok_or(StoreError::NotFound)?;
        entry.attempts = entry.attempts.saturating_add(1);
        entry.last_error = Some(error.to_owned());
        if entry.attempts >= park_after && entry.parked_at.is_none() {
            entry.parked_at = Some(at);
        }
        Ok(entry.parked_at.is_some())
    }

    async fn parked_callbacks(&self, limit: u32) -> Result<Vec<ParkedCallback>, StoreError> {
        let mut parked: Vec<ParkedCallback> = self
            .state()
            .callbacks
            .iter()
            .filter(|c| c.processed.is_none())
            .filter_map(|c| {
                Some(ParkedCallback {
                    id: c.callback.id,
                    received_at: c.callback.received_at,
                    attempts: c.attempts,
                    last_error: c.last_error.clone(),
                    parked_at: c.parked_at?,
                })
            })
            .collect();
        parked.sort_by_key(|c| (c.received_at, c.id));
        parked.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
        Ok(parked)
    }

    async fn count_parked_callbacks(&self) -> Result<u64, StoreError> {
        Ok(self.parked_callbacks(u32::MAX).await?.len() as u64)
    }

    async fn requeue_parked_callbacks(&self) -> Result<u64, StoreError> {
        let mut state = self.state();
        let mut requeued = 0;
        for entry in state
            .callbacks
            .iter_mut()
            .filter(|c| c.processed.is_none() && c.parked_at.is_some())
        {
            entry.parked_at = None;
            entry.attempts = 0;
            requeued += 1;
        }
        Ok(requeued)
    }
}

#[async_trait]
impl EventLog for InMemoryStore {
    async fn customer_events(&self, organization: &OrganizationId) -> Result<Vec<RecordedEvent>, StoreError> {
        let mut events: Vec<RecordedEvent> = self
            .state()
            .customer_events
            .iter()
            .filter(|e| &e.organization_id == organization)
            .cloned()
            .collect();
        events.sort_by_key(|e| e.id);
        Ok(events)
    }
}

/// The fan-out's delivery id, derived as herald-store derives it (the event's millisecond and 80 bits of
/// FNV-1a over both ids), so ids from the fake look like the real stores'.
fn fan_out_delivery_id(event: &EventId, endpoint: &WebhookId) -> DeliveryId {
    const OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    const PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;
    let mut hash = OFFSET;
    for byte in event
        .ulid()
        .to_bytes()
        .into_iter()
        .chain(endpoint.ulid().to_bytes())
    {
        hash ^= u128::from(byte);
        hash = hash.wrapping_mul(PRIME);
    }
    let random = hash & ((1_u128 << 80) - 1);
    DeliveryId::from_ulid(ulid::Ulid::from_parts(event.ulid().timestamp_ms(), random))
}

#[async_trait]
impl WebhookStore for InMemoryStore {
    async fn create_endpoint(&self, endpoint: &WebhookEndpoint, limit: u32) -> Result<bool, StoreError> {
        let mut state = self.state();
        if !state.organization_exists(&endpoint.organization_id) {
            return Err(StoreError::NotFound);
        }
        if state.endpoints.iter().any(|e| e.id == endpoint.id) {
            return Err(conflict("webhook id already exists"));
        }
        let count = state
            .endpoints
            .iter()
            .filter(|e| e.organization_id == endpoint.organization_id)
            .count();
        if count >= limit as usize {
            return Ok(false);
        }
        state.endpoints.push(endpoint.clone());
        Ok(true)
    }

    async fn endpoints(&self, organization: &OrganizationId) -> Result<Vec<WebhookEndpoint>, StoreError> {
        let mut endpoints: Vec<WebhookEndpoint> = self
            .state()
            .endpoints
            .iter()
            .filter(|e| &e.organization_id == organization)
            .cloned()
            .collect();
        endpoints.sort_by_key(|e| (e.created_at, e.id));
        Ok(endpoints)
    }

    async fn endpoint(
        &self,
        organization: &OrganizationId,
        id: &WebhookId,
    ) -> Result<Option<WebhookEndpoint>, StoreError> {
        Ok(self
            .state()
            .endpoints
            .iter()
            .find(|e| &e.organization_id == organization && &e.id == id)
            .cloned())
    }

    async fn patch_endpoint(
        &self,
        organization: &OrganizationId,
        id: &WebhookId,
        patch: &EndpointPatch,
        at: Timestamp,
    ) -> Result<(), StoreError> {
        let mut state = self.state();
        let stored = state
            .endpoints
            .iter_mut()
            .find(|e| &e.organization_id == organization && &e.id == id)
            .ok_or(StoreError::NotFound)?;
        patch.apply_to(stored, at);
        Ok(())
    }

    async fn rotate_endpoint_secret(
        &self,
        organization: &OrganizationId,
        id: &WebhookId,
        secret: &SealedSecret,
        previous_until: Timestamp,
        at: Timestamp,
    ) -> Result<(), StoreError> {
        let mut state = self.state();
        let stored = state
            .endpoints
            .iter_mut()
            .find(|e| &e.organization_id == organization && &e.id == id)
            .ok_or(StoreError::NotFound)?;
        stored.previous_secret = Some(std::mem::replace(&mut stored.secret, secret.clone()));
        stored.previous_secret_expires_at = Some(previous_until);
        stored.updated_at = at;
        Ok(())
    }

    async fn replace_endpoint_secret(
        &self,
        organization: &OrganizationId,
        id: &WebhookId,
        which: SecretSlot,
        expected: &SealedSecret,
        new: &SealedSecret,
    ) -> Result<bool, StoreError> {
        let mut state = self.state();
        let Some(stored) = state
            .endpoints
            .iter_mut()
            .find(|e| &e.organization_id == organization && &e.id == id)
        else {
            return Ok(false);
        };
        let slot = match which {
            SecretSlot::Current => Some(&mut stored.secret),
            SecretSlot::Previous => stored.previous_secret.as_mut(),
        };
        match slot {
            Some(secret) if secret == expected => {
                *secret = new.clone();
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    async fn delete_endpoint(&self, organization: &OrganizationId, id: &WebhookId) -> Result<(), StoreError> {
        let mut state = self.state();
        if !state.endpoint_exists(organization, id) {
            return Err(StoreError::NotFound);
        }
        state.endpoints.retain(|e| &e.id != id);
        state.deliveries.retain(|d| &d.delivery.endpoint_id != id);
        Ok(())
    }

    async fn record_test_event(
        &self,
        organization: &OrganizationId,
        endpoint: &WebhookId,
        test: &TestEvent,
        max_pending: u32,
    ) -> Result<bool, StoreError> {
        let (event_id, delivery_id, at) = (&test.event_id, &test.delivery_id, test.at);
        let mut state = self.state();
        if !state.endpoint_exists(organization, endpoint) {
            return Err(StoreError::NotFound);
        }
        let pending = state
            .deliveries
            .iter()
            .filter(|d| {
                d.delivery.endpoint_id == *endpoint
                    && d.delivery.event_type == CustomerEventType::WebhookTest
                    && d.delivery.status == DeliveryStatus::Pending
            })
            .count();
        if pending >= max_pending as usize {
            return Ok(false);
        }
        if state.customer_events.iter().any(|e| &e.id == event_id) {
            return Err(conflict("event id already exists"));
        }
        if state.deliveries.iter().any(|d| &d.delivery.id == delivery_id) {
            return Err(conflict("delivery id already exists"));
        }
        state.customer_events.push(RecordedEvent {
            id: *event_id,
            organization_id: *organization,
            event_type: CustomerEventType::WebhookTest,
            message_id: None,
            sequence: 1,
            payload: test.payload.clone(),
            occurred_at: at,
            created_at: at,
        });
        state.deliveries.push(DeliveryRecord {
            delivery: Delivery {
                id: *delivery_id,
                organization_id: *organization,
                endpoint_id: *endpoint,
                event_id: *event_id,
                event_type: CustomerEventType::WebhookTest,
                status: DeliveryStatus::Pending,
                next_attempt_at: Some(at),
                attempts: Vec::new(),
                created_at: at,
            },
            claim: None,
        });
        Ok(true)
    }

    async fn deliveries(
        &self,
        organization: &OrganizationId,
        endpoint: &WebhookId,
        status: Option<DeliveryStatus>,
        before: Option<DeliveryId>,
        limit: u32,
    ) -> Result<Vec<Delivery>, StoreError> {
        let mut deliveries: Vec<Delivery> = self
            .state()
            .deliveries
            .iter()
            .map(|d| &d.delivery)
            .filter(|d| {
                &d.organization_id == organization
                    && &d.endpoint_id == endpoint
                    && status.is_none_or(|s| d.status == s)
                    && before.is_none_or(|cursor| d.id < cursor)
            })
            .cloned()
            .collect();
        deliveries.sort_by_key(|d| std::cmp::Reverse(d.id));
        deliveries.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
        Ok(deliveries)
    }

    async fn redeliver(
        &self,
        organization: &OrganizationId,
        endpoint: &WebhookId,
        delivery: &DeliveryId,
        at: Timestamp,
    ) -> Result<(), StoreError> {
        let mut state = self.state();
        let record = state
            .deliveries
            .iter_mut()
            .find(|d| {
                &d.delivery.id == delivery
                    && &d.delivery.organization_id == organization
                    && &d.delivery.endpoint_id == endpoint
            })
            .ok_or(StoreError::NotFound)?;
        record.delivery.status = DeliveryStatus::Pending;
        record.delivery.next_attempt_at = Some(at);
        record.claim = None;
        Ok(())
    }

    async fn recover(
        &self,
        organization: &OrganizationId,
        endpoint: &WebhookId,
        since: Timestamp,
        at: Timestamp,
    ) -> Result<u64, StoreError> {
        let mut state = self.state();
        if !state.endpoint_exists(organization, endpoint) {
            return Err(StoreError::NotFound);
        }
        let mut requeued = 0_u64;
        for record in state.deliveries.iter_mut().filter(|d| {
            &d.delivery.organization_id == organization
                && &d.delivery.endpoint_id == endpoint
                && matches!(
                    d.delivery.status,
                    DeliveryStatus::Failed | DeliveryStatus::Skipped
                )
                && d.delivery.created_at >= since
        }) {
            record.delivery.status = DeliveryStatus::Pending;
            record.delivery.next_attempt_at = Some(at);
            requeued += 1;
        }
        Ok(requeued)
    }

    async fn claim_deliveries(
        &self,
        token: &ClaimToken,
        now: Timestamp,
        lease_until: Timestamp,
        limit: u32,
        per_endpoint_cap: u32,
    ) -> Result<Vec<ClaimedDelivery>, StoreError> {
        let mut state = self.state();
        let mut in_flight: HashMap<WebhookId, u32> = HashMap::new();
        for record in state.deliveries.iter().filter(|d| d.has_live_lease(now)) {
            *in_flight.entry(record.delivery.endpoint_id).or_default() += 1;
        }
        let enabled: Vec<WebhookId> = state
            .endpoints
            .iter()
            .filter(|e| e.enabled)
            .map(|e| e.id)
            .collect();
        let mut due: Vec<usize> = (0..state.deliveries.len())
            .filter(|i| {
                state
                    .deliveries
                    .get(*i)
                    .is_some_and(|d| d.is_due(now) && enabled.contains(&d.delivery.endpoint_id))
            })
            .collect();
        due.sort_by_key(|i| {
            state
                .deliveries
                .get(*i)
                .map(|d| (d.delivery.next_attempt_at, d.delivery.id))
        });
        let limit = usize::try_from(limit).unwrap_or(usize::MAX);
        let mut claimed = Vec::new();
        for index in due {
            if claimed.len() >= limit {
                break;
            }
            let Some(record) = state.deliveries.get(index).cloned() else {
                continue;
            };
            let taken = in_flight.entry(record.delivery.endpoint_id).or_default();
            if *taken >= per_endpoint_cap {
                continue;
            }
            *taken += 1;
            let missing = || {
                StoreError::Unknown(anyhow::anyhow!(
                    "delivery {} without its endpoint or event",
                    record.delivery.id
                ))
            };
            let endpoint = state
                .endpoints
                .iter()
                .find(|e| e.id == record.delivery.endpoint_id)
                .cloned()
                .ok_or_else(missing)?;
            let payload = state
                .customer_events
                .iter()
                .find(|e| e.id == record.delivery.event_id)
                .map(|e| e.payload.clone())
                .ok_or_else(missing)?;
            if let Some(stored) = state.deliveries.get_mut(index) {
                stored.claim = Some((*token, lease_until));
            }
            let attempts = u32::try_from(record.delivery.attempts.len()).unwrap_or(u32::MAX);
            claimed.push(ClaimedDelivery {
                delivery_id: record.delivery.id,
                organization_id: record.delivery.organization_id,
                endpoint,
                event_id: record.delivery.event_id,
                event_type: record.delivery.event_type,
                payload,
                attempt_number: attempts.saturating_add(1),
                created_at: record.delivery.created_at,
            });
        }
        Ok(claimed)
    }

    async fn complete_delivery(&self, completion: &DeliveryCompletion) -> Result<bool, StoreError> {
        Ok(self.state().complete_delivery(completion))
    }

    async fn complete_deliveries(&self, completions: &[DeliveryCompletion]) -> Result<Vec<bool>, StoreError> {
        // Nothing here can fail halfway, so the batch is all or nothing as the databases' transaction is.
        let mut state = self.state();
        Ok(completions
            .iter()
            .map(|completion| state.complete_delivery(completion))
            .collect())
    }

    async fn count_pending_deliveries(&self) -> Result<u64, StoreError> {
        let state = self.state();
        Ok(state
            .deliveries
            .iter()
            .filter(|d| d.delivery.status == DeliveryStatus::Pending)
            .count() as u64)
    }
}

impl State {
    /// Records one delivery attempt under its claim; `false` (nothing written) when the claim is lost.
    fn complete_delivery(&mut self, completion: &DeliveryCompletion) -> bool {
        let Some(record) = self.deliveries.iter_mut().find(|d| {
            d.delivery.id == completion.delivery_id
                && d.delivery.status == DeliveryStatus::Pending
                && d.claim.is_some_and(|(token, _)| token == completion.token)
        }) else {
            return false;
        };
        record.claim = None;
        record.delivery.status = completion.status;
        record.delivery.next_attempt_at = completion.next_attempt_at;
        record.delivery.attempts.push(completion.attempt.clone());
        let endpoint_id = record.delivery.endpoint_id;
        if let Some(endpoint) = self.endpoints.iter_mut().find(|e| e.id == endpoint_id) {
            endpoint.failing_since = completion.failing_since;
            if let Some(reason) = &completion.disable_reason {
                endpoint.enabled = false;
                endpoint.disabled_reason = Some(reason.clone());
                endpoint.updated_at = completion.attempt.at;
            }
        }
        true
    }
}

// ---- Media (issue 4) ----

#[async_trait]
impl MediaCatalog for InMemoryStore {
    async fn insert_media(
        &self,
        file: &MediaFile,
        storage_limit: Option<u64>,
    ) -> Result<MediaInsert, StoreError> {
        let mut state = self.state();
        if !state.organization_exists(&file.organization_id) {
            return Err(StoreError::NotFound);
        }
        if state.media_files.iter().any(|f| f.id == file.id) {
            return Err(conflict("media id already exists"));
        }
        if let Some(limit) = storage_limit {
            let used: u64 = state
                .media_files
                .iter()
                .filter(|f| f.organization_id == file.organization_id && f.expires_at > file.created_at)
                .map(|f| f.size)
                .sum();
            if used.saturating_add(file.size) > limit {
                return Ok(MediaInsert::StorageFull { used });
            }
        }
        state.media_files.push(file.clone());
        Ok(MediaInsert::Stored)
    }

    async fn media(
        &self,
        organization: &OrganizationId,
        id: &MediaId,
    ) -> Result<Option<MediaRecord>, StoreError> {
        let state = self.state();
        if let Some(file) = state
            .media_files
            .iter()
            .find(|f| &f.id == id && &f.organization_id == organization)
        {
            return Ok(Some(MediaRecord::Uploaded(file.clone())));
        }
        let inbound = state
            .inbound
            .iter()
            .find(|r| r.media_id.as_ref() == Some(id) && &r.organization_id == organization);
        let Some(record) = inbound else {
            return Ok(None);
        };
        let InboundContent::Media {
            kind,
            network_media_id,
            mime_type,
            filename,
            ..
        } = &record.message.content
        else {
            return Err(StoreError::Unknown(anyhow::anyhow!(
                "an inbound message with a media id carries no media"
            )));
        };
        Ok(Some(MediaRecord::Inbound(InboundMedia {
            id: *id,
            organization_id: record.organization_id,
            sender_id: record.sender_id,
            network_media_id: network_media_id.clone(),
            kind: kind.clone(),
            mime_type: mime_type.clone(),
            filename: filename.clone(),
        })))
    }

    async fn delete_media(&self, organization: &OrganizationId, id: &MediaId) -> Result<bool, StoreError> {
        let mut state = self.state();
        let before = state.media_files.len();
        state
            .media_files
            .retain(|f| !(&f.id == id && &f.organization_id == organization));
        Ok(state.media_files.len() < before)
    }

    async fn digest_in_use(&self, sha256: &Sha256Digest) -> Result<bool, StoreError> {
        Ok(self.state().media_files.iter().any(|f| &f.sha256 == sha256))
    }

    async fn expire_media(&self, now: Timestamp, limit: u32) -> Result<Vec<Sha256Digest>, StoreError> {
        let mut state = self.state();
        let mut expired: Vec<(Timestamp, MediaId, Sha256Digest)> = state
            .media_files
            .iter()
            .filter(|f| f.expires_at <= now)
            .map(|f| (f.expires_at, f.id, f.sha256))
            .collect();
        expired.sort_by_key(|&(at, id, _)| (at, id));
        expired.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
        state
            .media_files
            .retain(|f| !expired.iter().any(|(_, id, _)| id == &f.id));
        state.network_uploads.retain(|_, upload| upload.reuse_until > now);
        let mut digests: Vec<Sha256Digest> = expired.into_iter().map(|(_, _, digest)| digest).collect();
        digests.sort_unstable();
        digests.dedup();
        Ok(digests)
    }

    async fn network_upload(
        &self,
        organization: &OrganizationId,
        sender: &SenderId,
        sha256: &Sha256Digest,
        now: Timestamp,
    ) -> Result<Option<String>, StoreError> {
        Ok(self
            .state()
            .network_uploads
            .get(&(*sender, *sha256))
            .filter(|u| &u.organization_id == organization && u.reuse_until > now)
            .map(|u| u.network_media_id.clone()))
    }

    async fn record_network_upload(&self, upload: &NetworkUpload) -> Result<(), StoreError> {
        self.state()
            .network_uploads
            .insert((upload.sender_id, upload.sha256), upload.clone());
        Ok(())
    }
}

// ---- The owner's dashboard (issue 7) ----

#[async_trait]
impl herald_domain::ports::OwnerStore for InMemoryStore {
    async fn set_owner(&self, owner: &herald_domain::owner::OwnerAccount) -> Result<(), StoreError> {
        let mut state = self.state();
        if !state.organization_exists(&owner.organization_id) {
            return Err(StoreError::NotFound);
        }
        if state
            .owners
            .iter()
            .any(|o| o.email == owner.email && o.organization_id != owner.organization_id)
        {
            return Err(conflict(
                "this email is already the owner login of another organization",
            ));
        }
        state
            .owners
            .retain(|o| o.organization_id != owner.organization_id);
        state.owners.push(owner.clone());
        state
            .sessions
            .retain(|s| s.organization_id != owner.organization_id);
        Ok(())
    }

    async fn owner_by_email(
        &self,
        email: &herald_domain::owner::OwnerEmail,
    ) -> Result<Option<herald_domain::owner::OwnerAccount>, StoreError> {
        Ok(self.state().owners.iter().find(|o| &o.email == email).cloned())
    }

    async fn create_session(
        &self,
        session: &herald_domain::owner::DashboardSession,
    ) -> Result<(), StoreError> {
        let mut state = self.state();
        if !state.organization_exists(&session.organization_id) {
            return Err(StoreError::NotFound);
        }
        if state.sessions.iter().any(|s| s.digest == session.digest) {
            return Err(conflict("duplicate session"));
        }
        state.sessions.push(session.clone());
        Ok(())
    }

    async fn session(
        &self,
        digest: &herald_domain::owner::SessionDigest,
    ) -> Result<Option<herald_domain::owner::DashboardSession>, StoreError> {
        Ok(self
            .state()
            .sessions
            .iter()
            .find(|s| &s.digest == digest)
            .cloned())
    }

    async fn touch_session(
        &self,
        digest: &herald_domain::owner::SessionDigest,
        at: Timestamp,
    ) -> Result<(), StoreError> {
        if let Some(session) = self.state().sessions.iter_mut().find(|s| &s.digest == digest) {
            session.last_seen_at = at;
        }
        Ok(())
    }

    async fn delete_session(&self, digest: &herald_domain::owner::SessionDigest) -> Result<(), StoreError> {
        self.state().sessions.retain(|s| &s.digest != digest);
        Ok(())
    }

    async fn delete_expired_sessions(
        &self,
        idle_before: Timestamp,
        now: Timestamp,
    ) -> Result<u64, StoreError> {
        let mut state = self.state();
        let before = state.sessions.len();
        state
            .sessions
            .retain(|s| s.last_seen_at >= idle_before && s.expires_at > now);
        Ok((before - state.sessions.len()) as u64)
    }

    async fn sent_events(
        &self,
        organization: &OrganizationId,
        message: &MessageId,
    ) -> Result<Vec<herald_domain::owner::SentEvent>, StoreError> {
        let state = self.state();
        let mut events: Vec<&RecordedEvent> = state
            .customer_events
            .iter()
            .filter(|e| &e.organization_id == organization && e.message_id.as_ref() == Some(message))
            .collect();
        events.sort_by_key(|e| e.sequence);
        Ok(events
            .into_iter()
            .map(|event| {
                let mut deliveries: Vec<&Delivery> = state
                    .deliveries
                    .iter()
                    .map(|d| &d.delivery)
                    .filter(|d| d.event_id == event.id && &d.organization_id == organization)
                    .collect();
                deliveries.sort_by_key(|d| d.id);
                herald_domain::owner::SentEvent {
                    event_id: event.id,
                    event_type: event.event_type,
                    sequence: event.sequence,
                    occurred_at: event.occurred_at,
                    deliveries: deliveries
                        .into_iter()
                        .map(|d| herald_domain::owner::SentDelivery {
                            delivery_id: d.id,
                            endpoint_id: d.endpoint_id,
                            status: d.status,
                            attempts: u32::try_from(d.attempts.len()).unwrap_or(u32::MAX),
                        })
                        .collect(),
                }
            })
            .collect())
    }
}

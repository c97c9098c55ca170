//! An in-memory store implementing every store port, following the rules documented in
//! `herald_domain::ports` and checked by [`crate::contract`]. Use cases run on it in other crates' tests.
//!
//! All state sits behind one mutex, held only for the length of one port call and never across an
//! `.await`: each call is therefore one transaction, which is what makes `accept` all-or-nothing and
//! the quota exact under concurrent accepts.

use crate::contract::Ports;
use async_trait::async_trait;
use herald_domain::Timestamp;
use herald_domain::api_key::{ApiKeyDigest, ApiKeyRecord, ApiKeyStatus};
use herald_domain::ids::{ApiKeyId, MessageId, OrganizationId, SenderId};
use herald_domain::message::{Message, StatusEvent};
use herald_domain::organization::{AccountStatus, NetworkRef, Organization, Plan, PlanName, SenderNumber};
use herald_domain::ports::{
    AcceptOutcome, AcceptRequest, AccountStore, Credential, IdempotencyBegin, IdempotencyClaim, MessageQuery,
    MessageStore, OutboxJob, StoreError, TemplateQuery, TemplateStore, WindowStore,
};
use herald_domain::template::{LanguageCode, Template, TemplateName};
use herald_domain::time::BillingPeriod;
use herald_domain::values::{IdempotencyKey, PhoneNumber, RequestFingerprint};
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
    claim: Claim,
}

#[derive(Debug, Default)]
struct State {
    plans: BTreeMap<PlanName, Plan>,
    organizations: Vec<Organization>,
    senders: Vec<SenderNumber>,
    api_keys: Vec<ApiKeyRecord>,
    messages: BTreeMap<MessageId, Message>,
    events: HashMap<MessageId, Vec<StatusEvent>>,
    jobs: Vec<OutboxJob>,
    usage: HashMap<(OrganizationId, BillingPeriod), u64>,
    idempotency: HashMap<(OrganizationId, IdempotencyKey), IdempotencyRecord>,
    templates: Vec<Template>,
    windows: HashMap<(OrganizationId, SenderId, PhoneNumber), ServiceWindow>,
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
        }
    }

    /// Every outbox job written so far, in the order written. No port reads the outbox yet; tests of the
    /// send path look here.
    pub fn outbox(&self) -> Vec<OutboxJob> {
        self.state().jobs.clone()
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
                claim: Claim::Pending { locked_at: claim.now },
            },
        );
        Ok(IdempotencyBegin::Started)
    }

    async fn release_idempotent(
        &self,
        organization: &OrganizationId,
        key: &IdempotencyKey,
    ) -> Result<(), StoreError> {
        let mut state = self.state();
        let slot = (*organization, key.clone());
        if matches!(
            state.idempotency.get(&slot).map(|r| &r.claim),
            Some(Claim::Pending { .. })
        ) {
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
        if state.jobs.iter().any(|j| j.id == request.job.id) {
            return Err(conflict("job id already exists"));
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
        state.jobs.push(request.job.clone());
        if let Some(key) = &request.idempotency_key
            && let Some(record) = state.idempotency.get_mut(&(message.organization_id, key.clone()))
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
        let mut state = self.state();
        let slot = (window.organization_id, window.sender_id, window.recipient.clone());
        let newer = state
            .windows
            .get(&slot)
            .is_none_or(|stored| window.last_inbound_at > stored.last_inbound_at);
        if newer {
            state.windows.insert(slot, window.clone());
        }
        Ok(())
    }
}

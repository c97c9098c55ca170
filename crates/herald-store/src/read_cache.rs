//! A short-lived, in-process cache of the reads every send makes before its accept: the key's credential
//! (with its organization and plan), the organization's senders, and the template (architecture.md,
//! "Hot-path reads cached safely").
//!
//! Without it each send pays three store round trips before the (group-committed) accept, and on
//! PostgreSQL those round trips, not Herald's own code, bound the accept rate.
//!
//! What keeps it safe (docs/api.md §1: a disabled key, or a key of a suspended organization, is refused "on its
//! very next request (no cache may keep it alive longer than 1 second on any instance; on the instance
//! that disabled it, at once)"):
//! - an entry lives at most `ttl` (default 500 ms) from the moment its read *began*, so a change made by
//!   another process is seen within `ttl` plus one query;
//! - every write through this process's store (disable a key, suspend or re-plan an organization, add a
//!   sender, replace templates, record a template notice) evicts what it changes before it returns, so this
//!   process sees it at once;
//! - a read that began before an eviction never stores its (possibly stale) result: each eviction bumps a
//!   generation, and a result is kept only if the generation did not move while it was read;
//! - only hits are kept: an unknown key or template is asked of the store every time, so random tokens
//!   cannot fill the cache, and a key created anywhere works at once.

mod tracking;

pub(crate) use tracking::EvictingTracking;

use async_trait::async_trait;
use hashbrown::{Equivalent, HashMap};
use herald_domain::Timestamp;
use herald_domain::api_key::{ApiKeyDigest, ApiKeyRecord};
use herald_domain::ids::{ApiKeyId, OrganizationId, SenderId};
use herald_domain::organization::{
    AccountStatus, NetworkRef, Organization, Plan, PlanName, SealedSecret, SenderNumber,
};
use herald_domain::ports::{AccountStore, Credential, StoreError, TemplateQuery, TemplateStore};
use herald_domain::template::{LanguageCode, Template, TemplateName};
use std::hash::{Hash, RandomState};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Entries kept at most per map; past it, expired ones go, and if that is not enough, all of them.
const MAX_ENTRIES: usize = 10_000;

/// One map of cached reads, with the generation that guards against storing a stale read.
struct Entries<K, V> {
    ttl: Duration,
    inner: Mutex<Inner<K, V>>,
}

struct Inner<K, V> {
    generation: u64,
    /// std's randomly seeded hasher, as `std::collections::HashMap` has: keys come from clients.
    map: HashMap<K, (Instant, V), RandomState>,
}

impl<K: Eq + Hash, V: Clone> Entries<K, V> {
    fn new(ttl: Duration) -> Self {
        Self {
            ttl,
            inner: Mutex::new(Inner {
                generation: 0,
                map: HashMap::with_hasher(RandomState::new()),
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner<K, V>> {
        // The map holds only copies of store rows: after a panic elsewhere it is still consistent.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The cached value, or the generation to hand back to [`Entries::put`] after reading the store.
    fn get<Q: Hash + Equivalent<K> + ?Sized>(&self, key: &Q) -> Result<V, (u64, Instant)> {
        let now = Instant::now();
        let inner = self.lock();
        match inner.map.get(key) {
            Some((expires, value)) if *expires > now => Ok(value.clone()),
            _ => Err((inner.generation, now)),
        }
    }

    /// Keeps `value` until `ttl` after `began` (when its read started), unless something was evicted
    /// meanwhile.
    fn put(&self, key: K, value: V, (generation, began): (u64, Instant)) {
        let mut inner = self.lock();
        if inner.generation != generation {
            return;
        }
        if inner.map.len() >= MAX_ENTRIES {
            let now = Instant::now();
            inner.map.retain(|_, (expires, _)| *expires > now);
            if inner.map.len() >= MAX_ENTRIES {
                inner.map.clear();
            }
        }
        inner.map.insert(key, (began + self.ttl, value));
    }

    /// Drops every entry `stale` matches, and turns away reads already under way.
    fn evict(&self, stale: impl Fn(&K, &V) -> bool) {
        let mut inner = self.lock();
        inner.generation = inner.generation.wrapping_add(1);
        inner.map.retain(|key, (_, value)| !stale(key, value));
    }

    /// Changes the cached values in place (no generation bump: nothing becomes more permissive).
    fn update(&self, change: impl Fn(&mut V)) {
        let mut inner = self.lock();
        for (_, value) in inner.map.values_mut() {
            change(value);
        }
    }
}

/// [`AccountStore`] with credentials and senders cached (see the module docs).
pub(crate) struct CachedAccounts {
    inner: Arc<dyn AccountStore>,
    credentials: Entries<[u8; 32], Credential>,
    senders: Entries<OrganizationId, Arc<[SenderNumber]>>,
    /// By the network's phone number id: every status callback names its business number this way, and
    /// reading it from the store took a pooled connection per callback before its transaction.
    numbers: Entries<String, SenderNumber>,
}

impl CachedAccounts {
    pub(crate) fn new(inner: Arc<dyn AccountStore>, ttl: Duration) -> Self {
        Self {
            inner,
            credentials: Entries::new(ttl),
            senders: Entries::new(ttl),
            numbers: Entries::new(ttl),
        }
    }

    fn forget_organization(&self, id: &OrganizationId) {
        self.credentials
            .evict(|_, credential| credential.organization.id == *id);
        self.forget_senders(id);
    }

    fn forget_senders(&self, organization: &OrganizationId) {
        self.senders.evict(|cached, _| cached == organization);
        self.numbers
            .evict(|_, sender| sender.organization_id == *organization);
    }
}

#[async_trait]
impl AccountStore for CachedAccounts {
    async fn plans(&self) -> Result<Vec<Plan>, StoreError> {
        self.inner.plans().await
    }

    async fn plan(&self, name: &PlanName) -> Result<Option<Plan>, StoreError> {
        self.inner.plan(name).await
    }

    async fn put_plan(&self, plan: &Plan) -> Result<(), StoreError> {
        let result = self.inner.put_plan(plan).await;
        // A cached credential carries its plan's limits.
        self.credentials
            .evict(|_, credential| credential.plan.name == plan.name);
        result
    }

    async fn create_organization(&self, organization: &Organization) -> Result<(), StoreError> {
        self.inner.create_organization(organization).await
    }

    async fn organization(&self, id: &OrganizationId) -> Result<Option<Organization>, StoreError> {
        self.inner.organization(id).await
    }

    async fn organizations(&self) -> Result<Vec<Organization>, StoreError> {
        self.inner.organizations().await
    }

    async fn set_account_status(&self, id: &OrganizationId, status: AccountStatus) -> Result<(), StoreError> {
        let result = self.inner.set_account_status(id, status).await;
        self.forget_organization(id);
        result
    }

    async fn set_plan(&self, id: &OrganizationId, plan: &PlanName) -> Result<(), StoreError> {
        let result = self.inner.set_plan(id, plan).await;
        self.forget_organization(id);
        result
    }

    async fn add_sender(&self, sender: &SenderNumber) -> Result<(), StoreError> {
        let result = self.inner.add_sender(sender).await;
        // Adding a default sender changes the others too: the organization's whole list goes, and a number
        // that moves to this organization is forgotten wherever it was.
        self.forget_senders(&sender.organization_id);
        self.numbers
            .evict(|number, _| number == sender.phone_number_id.as_str());
        result
    }

    async fn senders(&self, organization: &OrganizationId) -> Result<Arc<[SenderNumber]>, StoreError> {
        let began = match self.senders.get(organization) {
            Ok(senders) => return Ok(senders),
            Err(began) => began,
        };
        let senders = self.inner.senders(organization).await?;
        if !senders.is_empty() {
            self.senders.put(*organization, Arc::clone(&senders), began);
        }
        Ok(senders)
    }

    async fn sender_by_phone_number_id(
        &self,
        phone_number_id: &NetworkRef,
    ) -> Result<Option<SenderNumber>, StoreError> {
        let began = match self.numbers.get(phone_number_id.as_str()) {
            Ok(sender) => return Ok(Some(sender)),
            Err(began) => began,
        };
        let sender = self.inner.sender_by_phone_number_id(phone_number_id).await?;
        if let Some(sender) = &sender {
            self.numbers
                .put(phone_number_id.as_str().to_owned(), sender.clone(), began);
        }
        Ok(sender)
    }

    async fn add_shared_sender(&self, sender: &SenderNumber) -> Result<(), StoreError> {
        let result = self.inner.add_shared_sender(sender).await;
        // As for any new sender: the organization's list and the number's owner are read afresh.
        self.forget_senders(&sender.organization_id);
        self.numbers
            .evict(|number, _| number == sender.phone_number_id.as_str());
        result
    }

    async fn business_account_organizations(
        &self,
        waba_id: &NetworkRef,
    ) -> Result<Vec<OrganizationId>, StoreError> {
        // Not cached: read on a notice or a template change, never on the send path.
        self.inner.business_account_organizations(waba_id).await
    }

    async fn senders_of_business_account(
        &self,
        waba_id: &NetworkRef,
    ) -> Result<Vec<SenderNumber>, StoreError> {
        self.inner.senders_of_business_account(waba_id).await
    }

    async fn sender_qualities(
        &self,
        organization: &OrganizationId,
    ) -> Result<Vec<(SenderId, herald_domain::notice::SenderQuality)>, StoreError> {
        // Not cached: a notice changes them at any time, and the resource must show the last report.
        self.inner.sender_qualities(organization).await
    }

    async fn record_webhook_fields_missing(
        &self,
        organization: &OrganizationId,
        waba_id: &NetworkRef,
        missing: &[String],
    ) -> Result<(), StoreError> {
        // Not part of any cached value: the senders' resource reads them afresh.
        self.inner
            .record_webhook_fields_missing(organization, waba_id, missing)
            .await
    }

    async fn webhook_fields_missing(
        &self,
        organization: &OrganizationId,
    ) -> Result<Vec<(SenderId, Vec<String>)>, StoreError> {
        self.inner.webhook_fields_missing(organization).await
    }

    async fn replace_sealed_access_token(
        &self,
        organization: &OrganizationId,
        id: &SenderId,
        expected: &SealedSecret,
        new: &SealedSecret,
    ) -> Result<bool, StoreError> {
        let result = self
            .inner
            .replace_sealed_access_token(organization, id, expected, new)
            .await;
        // The cached senders carry the old sealed bytes, which would no longer match the store.
        self.forget_senders(organization);
        result
    }

    async fn create_api_key(&self, key: &ApiKeyRecord) -> Result<(), StoreError> {
        self.inner.create_api_key(key).await
    }

    async fn api_keys(&self, organization: &OrganizationId) -> Result<Vec<ApiKeyRecord>, StoreError> {
        self.inner.api_keys(organization).await
    }

    async fn api_key(&self, id: &ApiKeyId) -> Result<Option<ApiKeyRecord>, StoreError> {
        self.inner.api_key(id).await
    }

    async fn disable_api_key(&self, id: &ApiKeyId, at: Timestamp) -> Result<ApiKeyRecord, StoreError> {
        let result = self.inner.disable_api_key(id, at).await;
        // Evicted whatever the outcome: a write that failed half-way must not leave a live copy.
        self.credentials.evict(|_, credential| credential.key.id == *id);
        result
    }

    async fn find_credential(&self, digest: &ApiKeyDigest) -> Result<Option<Credential>, StoreError> {
        let key = *digest.as_bytes();
        let began = match self.credentials.get(&key) {
            Ok(credential) => return Ok(Some(credential)),
            Err(began) => began,
        };
        let credential = self.inner.find_credential(digest).await?;
        if let Some(credential) = &credential {
            self.credentials.put(key, credential.clone(), began);
        }
        Ok(credential)
    }

    async fn touch_api_key(&self, id: &ApiKeyId, at: Timestamp) -> Result<(), StoreError> {
        self.inner.touch_api_key(id, at).await?;
        // So the cached copy does not ask for another touch on every request until it expires.
        self.credentials.update(|credential| {
            if credential.key.id == *id {
                credential.key.last_used_at = Some(at);
            }
        });
        Ok(())
    }
}

/// The key of one cached template.
#[derive(PartialEq, Eq, Hash)]
struct TemplateKey {
    organization: OrganizationId,
    waba_id: String,
    name: String,
    language: String,
}

/// [`TemplateKey`] borrowed from a send's request: a hit builds no key. Its fields hash as the owned key's do
/// (`&str` as `String`, in the same order), which `Equivalent` lookups need.
#[derive(Hash)]
struct TemplateKeyRef<'a> {
    organization: OrganizationId,
    waba_id: &'a str,
    name: &'a str,
    language: &'a str,
}

impl Equivalent<TemplateKey> for TemplateKeyRef<'_> {
    fn equivalent(&self, key: &TemplateKey) -> bool {
        self.organization == key.organization
            && self.waba_id == key.waba_id
            && self.name == key.name
            && self.language == key.language
    }
}

impl TemplateKeyRef<'_> {
    fn to_owned(&self) -> TemplateKey {
        TemplateKey {
            organization: self.organization,
            waba_id: self.waba_id.to_owned(),
            name: self.name.to_owned(),
            language: self.language.to_owned(),
        }
    }
}

/// [`TemplateStore`] with single-template reads cached (see the module docs).
pub(crate) struct CachedTemplates {
    inner: Arc<dyn TemplateStore>,
    templates: Entries<TemplateKey, Arc<Template>>,
}

impl CachedTemplates {
    pub(crate) fn new(inner: Arc<dyn TemplateStore>, ttl: Duration) -> Self {
        Self {
            inner,
            templates: Entries::new(ttl),
        }
    }
}

#[async_trait]
impl TemplateStore for CachedTemplates {
    async fn replace_templates(
        &self,
        organization: &OrganizationId,
        waba_id: &NetworkRef,
        templates: &[Template],
    ) -> Result<(), StoreError> {
        let result = self
            .inner
            .replace_templates(organization, waba_id, templates)
            .await;
        self.templates.evict(|key, _| key.organization == *organization);
        result
    }

    async fn template(
        &self,
        organization: &OrganizationId,
        waba_id: &NetworkRef,
        name: &TemplateName,
        language: &LanguageCode,
    ) -> Result<Option<Arc<Template>>, StoreError> {
        let key = TemplateKeyRef {
            organization: *organization,
            waba_id: waba_id.as_str(),
            name: name.as_str(),
            language: language.as_str(),
        };
        let began = match self.templates.get(&key) {
            Ok(template) => return Ok(Some(template)),
            Err(began) => began,
        };
        let template = self.inner.template(organization, waba_id, name, language).await?;
        if let Some(template) = &template {
            self.templates.put(key.to_owned(), Arc::clone(template), began);
        }
        Ok(template)
    }

    async fn templates(
        &self,
        organization: &OrganizationId,
        query: &TemplateQuery,
    ) -> Result<Vec<Template>, StoreError> {
        self.inner.templates(organization, query).await
    }

    async fn template_author(
        &self,
        waba_id: &NetworkRef,
        name: &TemplateName,
    ) -> Result<Option<OrganizationId>, StoreError> {
        self.inner.template_author(waba_id, name).await
    }

    async fn claim_template(
        &self,
        organization: &OrganizationId,
        waba_id: &NetworkRef,
        name: &TemplateName,
        at: herald_domain::Timestamp,
    ) -> Result<OrganizationId, StoreError> {
        self.inner.claim_template(organization, waba_id, name, at).await
    }

    async fn release_template(
        &self,
        organization: &OrganizationId,
        waba_id: &NetworkRef,
        name: &TemplateName,
    ) -> Result<(), StoreError> {
        self.inner.release_template(organization, waba_id, name).await
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code")]

    use super::{Entries, TemplateKeyRef};
    use herald_domain::ids::OrganizationId;
    use std::time::Duration;

    #[test]
    fn a_read_that_began_before_an_eviction_is_not_kept() {
        let entries: Entries<u8, &str> = Entries::new(Duration::from_secs(60));
        let began = entries.get(&1).unwrap_err();
        // A write evicts while the read is still at the store: what the read brings back may be stale.
        entries.evict(|_, _| true);
        entries.put(1, "stale", began);
        assert!(entries.get(&1).is_err());

        let began = entries.get(&1).unwrap_err();
        entries.put(1, "fresh", began);
        assert_eq!(entries.get(&1).unwrap(), "fresh");
    }

    #[test]
    fn entries_live_their_lifetime_from_when_the_read_began() {
        let entries: Entries<u8, &str> = Entries::new(Duration::from_millis(50));
        let (generation, began) = entries.get(&1).unwrap_err();
        entries.put(1, "late", (generation, began - Duration::from_millis(60)));
        assert!(
            entries.get(&1).is_err(),
            "a read older than the lifetime is already expired"
        );
    }

    #[test]
    fn a_template_is_found_by_its_borrowed_key_and_only_by_its_own() {
        let entries = Entries::new(Duration::from_secs(60));
        let (org, other_org) = (
            OrganizationId::from_ulid(ulid::Ulid::from_parts(1, 1)),
            OrganizationId::from_ulid(ulid::Ulid::from_parts(1, 2)),
        );
        let key = |organization, waba_id, name, language| TemplateKeyRef {
            organization,
            waba_id,
            name,
            language,
        };
        let began = entries
            .get(&key(org, "2000000001", "hello_world", "en_US"))
            .unwrap_err();
        entries.put(
            key(org, "2000000001", "hello_world", "en_US").to_owned(),
            "hello",
            began,
        );

        assert_eq!(
            entries
                .get(&key(org, "2000000001", "hello_world", "en_US"))
                .unwrap(),
            "hello"
        );
        for miss in [
            key(other_org, "2000000001", "hello_world", "en_US"),
            key(org, "2000000002", "hello_world", "en_US"),
            key(org, "2000000001", "hello_world", "en_GB"),
            key(org, "2000000001", "hello_worl", "den_US"),
            key(org, "200000000", "1hello_world", "en_US"),
        ] {
            assert!(
                entries.get(&miss).is_err(),
                "another template's parts must not find it"
            );
        }
    }

    #[test]
    fn eviction_takes_only_what_matches() {
        let entries: Entries<u8, u8> = Entries::new(Duration::from_secs(60));
        for key in 0..4 {
            let began = entries.get(&key).unwrap_err();
            entries.put(key, key * 10, began);
        }
        entries.evict(|key, _| key % 2 == 0);
        assert!(entries.get(&0).is_err());
        assert_eq!(entries.get(&1).unwrap(), 10);
        assert!(entries.get(&2).is_err());
        assert_eq!(entries.get(&3).unwrap(), 30);
    }
}

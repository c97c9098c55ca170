use super::shared::new_id;
use crate::ids::{OrganizationId, TemplateId};
use crate::network::WEBHOOK_FIELDS_NEEDED;
use crate::organization::SenderNumber;
use crate::ports::{
    AccountStore, AppSubscription, Clock, IdGenerator, MessagingNetwork, NetworkError, StoreError,
    TemplateQuery, TemplateStore,
};
use crate::template::{LanguageCode, Template, TemplateHealth, TemplateName};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Why a template sync failed.
#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    #[error("the network refused the template listing: {0}")]
    Network(#[from] NetworkError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What a sync did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SyncReport {
    pub business_accounts: usize,
    pub templates: usize,
}

/// Copies each business account's templates from the network into the store (flow 5).
pub struct SyncTemplates {
    accounts: Arc<dyn AccountStore>,
    templates: Arc<dyn TemplateStore>,
    network: Arc<dyn MessagingNetwork>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
}

impl SyncTemplates {
    pub fn new(
        accounts: Arc<dyn AccountStore>,
        templates: Arc<dyn TemplateStore>,
        network: Arc<dyn MessagingNetwork>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdGenerator>,
    ) -> Self {
        Self {
            accounts,
            templates,
            network,
            clock,
            ids,
        }
    }

    /// The clock's time (the template use cases share this one).
    pub(super) fn now(&self) -> crate::time::Timestamp {
        self.clock.now()
    }

    /// Syncs every business account the organization's senders belong to.
    ///
    /// # Errors
    /// The first network or store failure; accounts synced before it keep their new copy.
    #[tracing::instrument(name = "sync_templates", skip(self))]
    pub async fn sync_organization(&self, organization: &OrganizationId) -> Result<SyncReport, SyncError> {
        let senders = self.accounts.senders(organization).await?;
        // One listing per business account, through any of its senders.
        let mut by_account = BTreeMap::new();
        for sender in senders.iter() {
            by_account
                .entry(sender.waba_id.as_str().to_owned())
                .or_insert(sender);
        }
        let mut report = SyncReport::default();
        for sender in by_account.values() {
            let listed = self.network.templates(sender).await?;
            let now = self.clock.now();
            let copies: Vec<Template> = listed
                .into_iter()
                .map(|t| Template {
                    id: new_id(self.ids.as_ref(), TemplateId::from_ulid),
                    organization_id: *organization,
                    waba_id: sender.waba_id.clone(),
                    name: t.name,
                    language: t.language,
                    status: t.status,
                    category: t.category,
                    structure: t.structure,
                    network_id: t.network_id,
                    synced_at: now,
                    health: TemplateHealth {
                        updated_at: Some(now),
                        ..t.health
                    },
                })
                .collect();
            self.templates
                .replace_templates(organization, &sender.waba_id, &copies)
                .await?;
            report.business_accounts += 1;
            report.templates += copies.len();
            self.check_webhook_fields(organization, sender, &senders).await?;
        }
        Ok(report)
    }

    /// Checks that the sender's business account delivers its webhooks to Herald's app, and records on
    /// each of the organization's senders in that account which of [`WEBHOOK_FIELDS_NEEDED`] it misses,
    /// with a `warn` naming each such sender and its fields. Meta names subscribed apps, not fields
    /// (docs/cloud-api.md §4.7): an account that does not deliver to Herald's app misses every field. A
    /// network failure leaves the last result in place (logged), so the template sync goes on.
    ///
    /// # Errors
    /// A store failure.
    async fn check_webhook_fields(
        &self,
        organization: &OrganizationId,
        sender: &SenderNumber,
        senders: &[SenderNumber],
    ) -> Result<(), StoreError> {
        let missing: Vec<String> = match self.network.app_subscription(sender).await {
            Ok(AppSubscription::Subscribed) => Vec::new(),
            Ok(AppSubscription::NotSubscribed) => {
                WEBHOOK_FIELDS_NEEDED.iter().map(|f| (*f).to_owned()).collect()
            }
            Err(error) => {
                tracing::warn!(waba_id = %sender.waba_id, %error, "the webhook subscription could not be checked");
                return Ok(());
            }
        };
        if !missing.is_empty() {
            for in_account in senders.iter().filter(|s| s.waba_id == sender.waba_id) {
                tracing::warn!(
                    sender = %in_account.id,
                    number = %in_account.number.as_str(),
                    waba_id = %in_account.waba_id,
                    fields = %missing.join(","),
                    "the sender's business account does not deliver these webhook fields to Herald's app"
                );
            }
        }
        self.accounts
            .record_webhook_fields_missing(organization, &sender.waba_id, &missing)
            .await
    }

    /// Syncs every active organization, logging (not stopping on) one organization's failure.
    ///
    /// # Errors
    /// When the organizations cannot be listed.
    pub async fn sync_all(&self) -> Result<SyncReport, StoreError> {
        let mut total = SyncReport::default();
        for org in self.accounts.organizations().await? {
            if !org.status.is_active() {
                continue;
            }
            match self.sync_organization(&org.id).await {
                Ok(report) => {
                    total.business_accounts += report.business_accounts;
                    total.templates += report.templates;
                }
                Err(error) => tracing::warn!(org = %org.id, %error, "template sync failed"),
            }
        }
        Ok(total)
    }
}

/// The organization's stored templates.
pub struct ListTemplates {
    templates: Arc<dyn TemplateStore>,
    accounts: Arc<dyn AccountStore>,
}

impl ListTemplates {
    pub fn new(templates: Arc<dyn TemplateStore>, accounts: Arc<dyn AccountStore>) -> Self {
        Self { templates, accounts }
    }

    /// # Errors
    /// A store failure.
    pub async fn execute(
        &self,
        organization: &OrganizationId,
        query: &TemplateQuery,
    ) -> Result<Vec<Template>, StoreError> {
        self.templates.templates(organization, query).await
    }

    /// One template by name and language, `None` when the organization has none such. An organization with
    /// several business accounts may hold a copy in each: then the one a send without `from` uses, the
    /// default sender's, else the first.
    ///
    /// # Errors
    /// A store failure.
    pub async fn one(
        &self,
        organization: &OrganizationId,
        name: &TemplateName,
        language: &LanguageCode,
    ) -> Result<Option<Template>, StoreError> {
        let query = TemplateQuery {
            status: None,
            name: Some(name.clone()),
        };
        let mut copies: Vec<Template> = self
            .templates
            .templates(organization, &query)
            .await?
            .into_iter()
            .filter(|t| &t.language == language)
            .collect();
        if copies.len() > 1 {
            let senders = self.accounts.senders(organization).await?;
            if let Some(default) = senders.iter().find(|s| s.is_default)
                && let Some(at) = copies.iter().position(|t| t.waba_id == default.waba_id)
            {
                return Ok(Some(copies.swap_remove(at)));
            }
        }
        Ok(copies.into_iter().next())
    }
}

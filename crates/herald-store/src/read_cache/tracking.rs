//! [`TrackingStore`] that keeps the template cache's promise for notices: a notice changes a template copy
//! (its status, category, quality) outside `TemplateStore`, so once this process has recorded one, the
//! organization's cached templates are evicted before it returns, and a send right after an approval sees
//! it at once.

use super::CachedTemplates;
use async_trait::async_trait;
use herald_domain::Timestamp;
use herald_domain::customer_event::InboundRecord;
use herald_domain::dispatch::{CallbackPage, ParkedCallback, StoredCallback};
use herald_domain::ids::{EventId, OrganizationId};
use herald_domain::message::Message;
use herald_domain::notice::NoticeRecord;
use herald_domain::ports::{StoreError, TrackingStore};
use herald_domain::status::{StatusApplied, StatusUpdate};
use std::sync::Arc;

pub(crate) struct EvictingTracking {
    inner: Arc<dyn TrackingStore>,
    templates: Arc<CachedTemplates>,
}

impl EvictingTracking {
    pub(crate) fn new(inner: Arc<dyn TrackingStore>, templates: Arc<CachedTemplates>) -> Self {
        Self { inner, templates }
    }
}

#[async_trait]
impl TrackingStore for EvictingTracking {
    async fn record_notice(&self, record: &NoticeRecord) -> Result<bool, StoreError> {
        let recorded = self.inner.record_notice(record).await?;
        if recorded {
            self.templates
                .templates
                .evict(|key, _| key.organization == record.organization_id);
        }
        Ok(recorded)
    }

    async fn apply_status(&self, update: &StatusUpdate) -> Result<Option<StatusApplied>, StoreError> {
        self.inner.apply_status(update).await
    }

    async fn apply_callback_status(
        &self,
        update: &StatusUpdate,
        callback: &EventId,
        at: Timestamp,
    ) -> Result<Option<StatusApplied>, StoreError> {
        self.inner.apply_callback_status(update, callback, at).await
    }

    async fn store_callback_applying_status(
        &self,
        callback: &StoredCallback,
        update: &StatusUpdate,
        at: Timestamp,
    ) -> Result<Option<StatusApplied>, StoreError> {
        self.inner
            .store_callback_applying_status(callback, update, at)
            .await
    }

    async fn message_by_network_id(
        &self,
        organization: &OrganizationId,
        network_message_id: &str,
    ) -> Result<Option<Message>, StoreError> {
        self.inner
            .message_by_network_id(organization, network_message_id)
            .await
    }

    async fn record_inbound_message(&self, record: &InboundRecord) -> Result<bool, StoreError> {
        self.inner.record_inbound_message(record).await
    }

    async fn store_callback(&self, callback: &StoredCallback) -> Result<(), StoreError> {
        self.inner.store_callback(callback).await
    }

    async fn unprocessed_callbacks(
        &self,
        received_before: Timestamp,
        limit: u32,
        now: Timestamp,
    ) -> Result<CallbackPage, StoreError> {
        self.inner
            .unprocessed_callbacks(received_before, limit, now)
            .await
    }

    async fn mark_callback_processed(
        &self,
        id: &EventId,
        at: Timestamp,
        note: Option<String>,
    ) -> Result<(), StoreError> {
        self.inner.mark_callback_processed(id, at, note).await
    }

    async fn record_callback_failure(
        &self,
        id: &EventId,
        at: Timestamp,
        error: &str,
        park_after: u32,
    ) -> Result<bool, StoreError> {
        self.inner
            .record_callback_failure(id, at, error, park_after)
            .await
    }

    async fn parked_callbacks(&self, limit: u32) -> Result<Vec<ParkedCallback>, StoreError> {
        self.inner.parked_callbacks(limit).await
    }

    async fn count_parked_callbacks(&self) -> Result<u64, StoreError> {
        self.inner.count_parked_callbacks().await
    }

    async fn requeue_parked_callbacks(&self) -> Result<u64, StoreError> {
        self.inner.requeue_parked_callbacks().await
    }
}

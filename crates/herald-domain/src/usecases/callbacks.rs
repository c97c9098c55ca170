use super::new_id;
use crate::dispatch::{InboundRecord, StatusUpdate, StoredCallback};
use crate::ids::{EventId, MediaId, MessageId};
use crate::message::EventSource;
use crate::network::{InboundContent, InboundMessage, NetworkEvent, NetworkStatusReport};
use crate::ports::{AccountStore, CallbackDecoder, Clock, IdGenerator, StoreError, TrackingStore};
use crate::status::StatusReport;
use crate::time::Duration;
use std::sync::Arc;

/// What processing one callback did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallbackReport {
    pub statuses_applied: usize,
    pub statuses_recorded_only: usize,
    pub inbound_recorded: usize,
    pub duplicates: usize,
    /// Items that could not be used, with the reason (unknown number or message, unparseable item).
    pub skipped: Vec<String>,
}

/// The network's callbacks (flow 3): stored durably first, then applied to messages, windows and events.
pub struct ProcessCallbacks {
    accounts: Arc<dyn AccountStore>,
    tracking: Arc<dyn TrackingStore>,
    decoder: Arc<dyn CallbackDecoder>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
}

impl ProcessCallbacks {
    pub fn new(
        accounts: Arc<dyn AccountStore>,
        tracking: Arc<dyn TrackingStore>,
        decoder: Arc<dyn CallbackDecoder>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdGenerator>,
    ) -> Self {
        Self {
            accounts,
            tracking,
            decoder,
            clock,
            ids,
        }
    }

    /// Stores a verified callback body. Once this returns, the network may be answered 200: the callback
    /// is processed even if this process dies right after.
    ///
    /// # Errors
    /// When the store cannot take it (the network then retries it).
    pub async fn receive(&self, body: Vec<u8>) -> Result<StoredCallback, StoreError> {
        let callback = StoredCallback {
            id: new_id(self.ids.as_ref(), EventId::from_ulid),
            received_at: self.clock.now(),
            body,
        };
        self.tracking.store_callback(&callback).await?;
        Ok(callback)
    }

    /// Applies every event of a stored callback and marks it processed. Safe to run twice: statuses go
    /// through the status machine (a repeat changes nothing) and inbound messages are deduplicated by the
    /// network's message id.
    ///
    /// # Errors
    /// A store failure; the callback stays unprocessed and the backlog sweep retries it.
    #[tracing::instrument(name = "process_callback", skip_all, fields(callback = %callback.id))]
    pub async fn process(&self, callback: &StoredCallback) -> Result<CallbackReport, StoreError> {
        let mut report = CallbackReport::default();
        match self.decoder.decode(&callback.body) {
            Err(reason) => report.skipped.push(format!("not a callback envelope: {reason}")),
            Ok(parsed) => {
                report.skipped.extend(parsed.skipped);
                for event in parsed.events {
                    match event {
                        NetworkEvent::Status(status) => self.apply_status(status, &mut report).await?,
                        NetworkEvent::Inbound(inbound) => self.record_inbound(inbound, &mut report).await?,
                    }
                }
            }
        }
        for note in &report.skipped {
            tracing::info!(note, "callback item skipped");
        }
        let note = (!report.skipped.is_empty()).then(|| report.skipped.join("; "));
        self.tracking
            .mark_callback_processed(&callback.id, self.clock.now(), note)
            .await?;
        Ok(report)
    }

    /// Processes callbacks that were stored but not processed (their process died in between).
    ///
    /// # Errors
    /// A store failure.
    pub async fn process_backlog(&self, older_than: Duration, limit: u32) -> Result<usize, StoreError> {
        let pending = self
            .tracking
            .unprocessed_callbacks(self.clock.now() - older_than, limit)
            .await?;
        for callback in &pending {
            self.process(callback).await?;
        }
        Ok(pending.len())
    }

    async fn apply_status(
        &self,
        status: NetworkStatusReport,
        report: &mut CallbackReport,
    ) -> Result<(), StoreError> {
        let Some(sender) = self
            .accounts
            .sender_by_phone_number_id(&status.phone_number_id)
            .await?
        else {
            report.skipped.push(format!(
                "status for unknown phone_number_id {}",
                status.phone_number_id
            ));
            return Ok(());
        };
        let org = sender.organization_id;
        let by_callback_data = status
            .callback_data
            .as_deref()
            .and_then(|data| MessageId::parse(data).ok());
        let message_id = match by_callback_data {
            Some(id) => Some(id),
            None => self
                .tracking
                .message_by_network_id(&org, &status.network_message_id)
                .await?
                .map(|m| m.id),
        };
        let Some(message_id) = message_id else {
            report.skipped.push(format!(
                "status for unknown message {}",
                status.network_message_id
            ));
            return Ok(());
        };
        let update = StatusUpdate {
            organization_id: org,
            message_id,
            report: StatusReport {
                status: status.status.as_message_status(),
                occurred_at: status.occurred_at,
                error: status.error,
            },
            network_message_id: Some(status.network_message_id.clone()),
            source: EventSource::Network,
            event_id: new_id(self.ids.as_ref(), EventId::from_ulid),
            customer_event_id: new_id(self.ids.as_ref(), EventId::from_ulid),
            recorded_at: self.clock.now(),
        };
        match self.tracking.apply_status(&update).await? {
            None => report.skipped.push(format!(
                "status for unknown message {}",
                status.network_message_id
            )),
            Some(applied) => match applied.transition {
                crate::status::Transition::Applied { .. } => report.statuses_applied += 1,
                crate::status::Transition::Recorded { .. } => report.statuses_recorded_only += 1,
            },
        }
        Ok(())
    }

    async fn record_inbound(
        &self,
        inbound: InboundMessage,
        report: &mut CallbackReport,
    ) -> Result<(), StoreError> {
        let Some(sender) = self
            .accounts
            .sender_by_phone_number_id(&inbound.phone_number_id)
            .await?
        else {
            report.skipped.push(format!(
                "inbound for unknown phone_number_id {}",
                inbound.phone_number_id
            ));
            return Ok(());
        };
        let media_id = matches!(inbound.content, InboundContent::Media { .. })
            .then(|| new_id(self.ids.as_ref(), MediaId::from_ulid));
        let record = InboundRecord {
            id: new_id(self.ids.as_ref(), MessageId::from_ulid),
            organization_id: sender.organization_id,
            sender_id: sender.id,
            message: inbound,
            media_id,
            customer_event_id: new_id(self.ids.as_ref(), EventId::from_ulid),
            recorded_at: self.clock.now(),
        };
        if self.tracking.record_inbound_message(&record).await? {
            report.inbound_recorded += 1;
        } else {
            report.duplicates += 1;
        }
        Ok(())
    }
}

//! Data retention: what each organization's plan keeps, and the removal of what is older.

use crate::ports::StoreError;
use crate::time::Timestamp;
use async_trait::async_trait;

/// What one retention batch removed, row counts per table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RetentionReport {
    /// Outbound messages (`messages`).
    pub messages: u64,
    /// Inbound messages (`inbound_messages`).
    pub inbound: u64,
    /// Status history entries (`message_events`).
    pub status_events: u64,
    /// Customer events (`events`), of messages and of the organization itself.
    pub customer_events: u64,
    /// Of `customer_events`, those that belong to no message (template, number and account news, webhook
    /// tests): removed by age on their own, so they count toward the batch bound.
    pub account_events: u64,
    /// Outbox jobs.
    pub jobs: u64,
    /// Webhook deliveries and their recorded attempts.
    pub deliveries: u64,
    /// Stored network callbacks, processed or parked.
    pub callbacks: u64,
    /// Broadcasts that ended (completed or cancelled) and whose messages are all gone.
    pub broadcasts: u64,
}

impl RetentionReport {
    /// Every row removed.
    pub fn total(&self) -> u64 {
        self.messages
            + self.inbound
            + self.status_events
            + self.customer_events
            + self.jobs
            + self.deliveries
            + self.callbacks
            + self.broadcasts
    }

    /// The messages, callbacks and organization events removed: what the batch bound counts.
    pub fn roots(&self) -> u64 {
        self.messages + self.inbound + self.callbacks + self.account_events + self.broadcasts
    }

    /// Each table's count with its name, for metrics and logs.
    pub fn by_table(&self) -> [(&'static str, u64); 8] {
        [
            ("messages", self.messages),
            ("inbound_messages", self.inbound),
            ("message_events", self.status_events),
            ("events", self.customer_events),
            ("outbox", self.jobs),
            ("webhook_deliveries", self.deliveries),
            ("network_callbacks", self.callbacks),
            ("broadcasts", self.broadcasts),
        ]
    }
}

/// Removes rows older than their organization's plan's retention (`plans.retention_days`).
#[async_trait]
pub trait RetentionStore: Send + Sync + 'static {
    /// In ONE transaction, removes up to `limit` outbound messages, up to `limit` inbound messages, up to
    /// `limit` customer events that belong to no message, and up to `limit` stored network callbacks older
    /// than the retention at `now`, with every row that belongs to them: a message's status history, its
    /// outbox job, its customer events and their webhook deliveries (an event still waiting for its
    /// delivery stays). An outbound message is old when it was created before `now` minus its organization's
    /// retention; it stays while its job is pending or in flight, or while one of its events still waits
    /// for a webhook delivery. A callback goes once processed or parked, after the shortest retention of
    /// any plan (callbacks belong to no organization). Answers what was removed; a report whose
    /// [`RetentionReport::roots`] is below `limit` means nothing more is due now.
    async fn purge_expired(&self, now: Timestamp, limit: u32) -> Result<RetentionReport, StoreError>;
}

mod unknown_fields;

pub use unknown_fields::{MAX_WARNED_FIELDS, UnknownFieldWarnings};

use super::shared::new_id;
use crate::contact::{PreferenceChange, PreferenceSource, Recipient};
use crate::customer_event::InboundRecord;
use crate::dispatch::{ParkedCallback, StoredCallback};
use crate::ids::{EventId, InboundId, MediaId, MessageId, OrganizationId};
use crate::message::{EventSource, MessageStatus};
use crate::network::{
    AccountNotice, InboundContent, InboundMessage, NetworkEvent, NetworkStatusReport, NoticeChange,
    ParsedCallback, UserPreference,
};
use crate::notice::{NoticeRecord, NoticeSender};
use crate::ports::{
    AccountStore, CallbackDecoder, Clock, ContactStore, IdGenerator, StoreError, TrackingStore,
};
use crate::status::StatusReport;
use crate::status::StatusUpdate;
use crate::time::Duration;
use crate::trace::{NoTraceLinks, TraceLinks, span_following};
use crate::values::PhoneNumber;
use std::sync::Arc;

/// What processing one callback did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallbackReport {
    pub statuses_applied: usize,
    pub statuses_recorded_only: usize,
    pub inbound_recorded: usize,
    /// Customer events recorded for account notices (one per organization the notice concerns).
    pub notices_recorded: usize,
    /// Marketing preferences recorded: the network's `user_preferences`, and inbound texts that matched
    /// an organization's STOP keyword rule.
    pub preferences_recorded: usize,
    pub duplicates: usize,
    /// Items that could not be used, with the reason (unknown number or message, unparseable item).
    pub skipped: Vec<String>,
    /// For each message this callback moved to `delivered`: how long after its submission the network
    /// says it was delivered.
    pub submitted_to_delivered: Vec<Duration>,
}

/// Failures after which a stored callback is parked rather than retried by the backlog sweep.
pub const CALLBACK_ATTEMPTS: u32 = 5;

/// What one backlog sweep did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BacklogReport {
    pub processed: usize,
    /// Callbacks whose processing failed this time (each retried by a later sweep, or parked).
    pub failed: usize,
    /// Of those, the ones that reached [`CALLBACK_ATTEMPTS`] and are parked now.
    pub parked: usize,
    /// Rows the store could not read back, parked as it read the page (never processed, not among `failed`).
    pub unreadable: usize,
    /// Stored callbacks the page held, unreadable ones included: a page of the limit asked for means more may
    /// be waiting.
    pub read: usize,
}

/// How a status report's transaction treats the callback that carried it alone.
#[derive(Clone, Copy)]
enum Marking<'a> {
    /// Not at all: the callback carried more, and is marked processed once all of it is applied.
    No,
    /// Stored already: marked processed in the transaction that applies the status.
    Stored(&'a StoredCallback),
    /// Not stored yet: stored (processed, when the status applied) by the transaction that applies it.
    New(&'a StoredCallback),
}

/// What [`ProcessCallbacks::receive_and_apply`] did with a callback.
#[derive(Debug)]
pub enum Received {
    /// Stored and processed (the network's usual callback, one status report).
    Processed(CallbackReport),
    /// Stored, not processed yet: the caller processes it ([`ProcessCallbacks::process`]) after answering.
    Stored(StoredCallback),
}

/// The network's callbacks (flow 3): stored durably first, then applied to messages, windows and events.
pub struct ProcessCallbacks {
    accounts: Arc<dyn AccountStore>,
    tracking: Arc<dyn TrackingStore>,
    decoder: Arc<dyn CallbackDecoder>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
    traces: Arc<dyn TraceLinks>,
    /// Where preferences, keyword opt-outs and user ids go; without it they are skipped with a note.
    contacts: Option<Arc<dyn ContactStore>>,
    unknown_fields: UnknownFieldWarnings,
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
            traces: Arc::new(NoTraceLinks),
            contacts: None,
            unknown_fields: UnknownFieldWarnings::default(),
        }
    }

    /// Records the network's marketing preferences, the organizations' STOP keyword rules on inbound
    /// texts, and the user ids inbound messages carry (docs/api.md §7.1).
    #[must_use]
    pub fn with_contacts(mut self, contacts: Arc<dyn ContactStore>) -> Self {
        self.contacts = Some(contacts);
        self
    }

    /// Marks each applied status in the trace of the request that accepted its message.
    #[must_use]
    pub fn with_trace_links(mut self, traces: Arc<dyn TraceLinks>) -> Self {
        self.traces = traces;
        self
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

    /// Stores a verified callback body, and when it is the network's usual callback (one status report and
    /// nothing else) applies it in the same transaction: one commit from arrival to applied instead of one
    /// to store it and one to apply it. Any other callback, or one whose transaction failed, is
    /// only stored, for the caller to [`Self::process`]. Either way, once this returns the network may be
    /// answered 200.
    ///
    /// # Errors
    /// When the store cannot take it (the network then retries it).
    #[tracing::instrument(name = "receive_callback", skip_all)]
    pub async fn receive_and_apply(&self, body: Vec<u8>) -> Result<Received, StoreError> {
        let callback = StoredCallback {
            id: new_id(self.ids.as_ref(), EventId::from_ulid),
            received_at: self.clock.now(),
            body,
        };
        if let Ok(parsed) = self.decoder.decode(&callback.body)
            && parsed.skipped.is_empty()
            && parsed.events.len() == 1
            && let Some(NetworkEvent::Status(status)) = parsed.events.into_iter().next()
        {
            let mut report = CallbackReport::default();
            match self
                .apply_status(status, Marking::New(&callback), &mut report)
                .await
            {
                Ok(marked) => {
                    for note in &report.skipped {
                        tracing::info!(note, "callback item skipped");
                    }
                    if !marked {
                        let note = (!report.skipped.is_empty()).then(|| report.skipped.join("; "));
                        if let Err(error) = self
                            .tracking
                            .mark_callback_processed(&callback.id, self.clock.now(), note)
                            .await
                        {
                            // Stored: the backlog sweep processes it again.
                            tracing::warn!(%error, callback = %callback.id, "could not mark a callback processed");
                        }
                    }
                    return Ok(Received::Processed(report));
                }
                Err(error) => {
                    tracing::warn!(%error, "applying a callback as it arrived failed; it is stored for processing");
                }
            }
        }
        match self.tracking.store_callback(&callback).await {
            // Already there: the failed transaction did commit (its outcome was unknown); processing it again
            // changes nothing.
            Ok(()) | Err(StoreError::Conflict(_)) => Ok(Received::Stored(callback)),
            Err(error) => Err(error),
        }
    }

    /// Applies every event of a stored callback and marks it processed. Safe to run twice: statuses go
    /// through the status machine (a repeat changes nothing), inbound messages are deduplicated by the
    /// network's message id, and notices by their key within each organization.
    ///
    /// # Errors
    /// A store failure; the callback stays unprocessed and the backlog sweep retries it.
    pub async fn process(&self, callback: &StoredCallback) -> Result<CallbackReport, StoreError> {
        self.process_decoded(callback, self.decoder.decode(&callback.body))
            .await
    }

    /// [`Self::process`] with the callback's body decoded already (the backlog sweep decodes a page first to
    /// plan its waves).
    #[tracing::instrument(name = "process_callback", skip_all, fields(callback = %callback.id))]
    async fn process_decoded(
        &self,
        callback: &StoredCallback,
        decoded: Result<ParsedCallback, String>,
    ) -> Result<CallbackReport, StoreError> {
        let mut report = CallbackReport::default();
        let mut marked = false;
        match decoded {
            Err(reason) => report.skipped.push(format!("not a callback envelope: {reason}")),
            Ok(parsed) => {
                self.unknown_fields.warn_new(&parsed.unknown_fields);
                report.skipped.extend(parsed.skipped);
                // The network's usual callback is one status report and nothing else: it is applied and the
                // callback marked processed in one transaction.
                let marking = if parsed.events.len() == 1 && report.skipped.is_empty() {
                    Marking::Stored(callback)
                } else {
                    Marking::No
                };
                for event in parsed.events {
                    match event {
                        NetworkEvent::Status(status) => {
                            marked = self.apply_status(status, marking, &mut report).await?;
                        }
                        NetworkEvent::Inbound(inbound) => self.record_inbound(inbound, &mut report).await?,
                        NetworkEvent::Notice(notice) => self.record_notice(notice, &mut report).await?,
                        NetworkEvent::Preference(preference) => {
                            self.record_preference(preference, &mut report).await?;
                        }
                    }
                }
            }
        }
        for note in &report.skipped {
            tracing::info!(note, "callback item skipped");
        }
        if !marked {
            let note = (!report.skipped.is_empty()).then(|| report.skipped.join("; "));
            self.tracking
                .mark_callback_processed(&callback.id, self.clock.now(), note)
                .await?;
        }
        Ok(report)
    }

    /// Processes callbacks that were stored but not processed (their process died in between, or processing
    /// failed), oldest first. One that fails does not stop the others: its failure is counted, and after
    /// [`CALLBACK_ATTEMPTS`] failures it is parked, so one callback that can never be applied does not hold
    /// up every status and inbound message after it.
    ///
    /// The page is processed in waves ([`backlog_waves`]): the status reports of one wave concern distinct
    /// messages and are applied concurrently, so the store writes them together (group commit) instead of
    /// one transaction each; a report about a message already in the wave, and any other callback, waits
    /// for the wave before it. Each message thus sees its reports in the order they arrived.
    ///
    /// # Errors
    /// A store failure while listing the backlog or recording a failure.
    pub async fn process_backlog(
        &self,
        older_than: Duration,
        limit: u32,
    ) -> Result<BacklogReport, StoreError> {
        let now = self.clock.now();
        let page = self
            .tracking
            .unprocessed_callbacks(now - older_than, limit, now)
            .await?;
        let pending = page.callbacks;
        let decoded: Vec<Result<ParsedCallback, String>> = pending
            .iter()
            .map(|callback| self.decoder.decode(&callback.body))
            .collect();
        let waves = backlog_waves(&decoded.iter().map(lone_status_message).collect::<Vec<_>>());
        let mut items = pending.iter().zip(decoded);
        let mut report = BacklogReport {
            unreadable: page.unreadable,
            read: pending.len() + page.unreadable,
            ..BacklogReport::default()
        };
        for wave in waves {
            let outcomes = futures::future::join_all(items.by_ref().take(wave.len()).map(
                |(callback, parsed)| async move { (callback, self.process_decoded(callback, parsed).await) },
            ))
            .await;
            for (callback, outcome) in outcomes {
                let Err(error) = outcome else {
                    report.processed += 1;
                    continue;
                };
                self.record_backlog_failure(callback, &error, &mut report).await?;
            }
        }
        Ok(report)
    }

    /// Counts a stored callback's failed processing, parking it after [`CALLBACK_ATTEMPTS`].
    async fn record_backlog_failure(
        &self,
        callback: &StoredCallback,
        error: &StoreError,
        report: &mut BacklogReport,
    ) -> Result<(), StoreError> {
        report.failed += 1;
        let parked = self
            .tracking
            .record_callback_failure(
                &callback.id,
                self.clock.now(),
                &error.to_string(),
                CALLBACK_ATTEMPTS,
            )
            .await?;
        if parked {
            report.parked += 1;
            tracing::error!(
                callback = %callback.id,
                %error,
                "a stored callback failed {CALLBACK_ATTEMPTS} times and is parked (`herald admin callbacks`)"
            );
        } else {
            tracing::warn!(callback = %callback.id, %error, "processing a stored callback failed; it is retried");
        }
        Ok(())
    }

    /// How many stored callbacks are parked.
    ///
    /// # Errors
    /// A store failure.
    pub async fn parked_count(&self) -> Result<u64, StoreError> {
        self.tracking.count_parked_callbacks().await
    }

    /// The parked callbacks, oldest first (for an operator).
    ///
    /// # Errors
    /// A store failure.
    pub async fn parked(&self, limit: u32) -> Result<Vec<ParkedCallback>, StoreError> {
        self.tracking.parked_callbacks(limit).await
    }

    /// Puts every parked callback back into the backlog (once what made it fail is fixed); answers how many.
    ///
    /// # Errors
    /// A store failure.
    pub async fn requeue_parked(&self) -> Result<u64, StoreError> {
        self.tracking.requeue_parked_callbacks().await
    }

    /// Applies one status report; with a callback that carried nothing else, marks that callback processed
    /// in the same transaction ([`Marking`]). Answers whether it did. With [`Marking::New`] the callback is
    /// stored whatever the answer.
    async fn apply_status(
        &self,
        status: NetworkStatusReport,
        marking: Marking<'_>,
        report: &mut CallbackReport,
    ) -> Result<bool, StoreError> {
        let Some(update) = self.status_update(&status, report).await? else {
            if let Marking::New(callback) = marking {
                self.tracking.store_callback(callback).await?;
            }
            return Ok(false);
        };
        let now = self.clock.now();
        let applied = match marking {
            Marking::No => self.tracking.apply_status(&update).await?,
            Marking::Stored(callback) => {
                self.tracking
                    .apply_callback_status(&update, &callback.id, now)
                    .await?
            }
            Marking::New(callback) => {
                self.tracking
                    .store_callback_applying_status(callback, &update, now)
                    .await?
            }
        };
        match applied {
            None => {
                report.skipped.push(format!(
                    "status for unknown message {}",
                    status.network_message_id
                ));
                Ok(false)
            }
            Some(applied) => {
                self.note_applied(&applied, report);
                Ok(!matches!(marking, Marking::No))
            }
        }
    }

    /// The status update a report asks for: `None` (with a note) when its number or message is unknown.
    async fn status_update(
        &self,
        status: &NetworkStatusReport,
        report: &mut CallbackReport,
    ) -> Result<Option<StatusUpdate>, StoreError> {
        let Some(sender) = self
            .accounts
            .sender_by_phone_number_id(&status.phone_number_id)
            .await?
        else {
            report.skipped.push(format!(
                "status for unknown phone_number_id {}",
                status.phone_number_id
            ));
            return Ok(None);
        };
        let org = sender.organization_id;
        self.pair_recipient(&org, status).await?;
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
            return Ok(None);
        };
        Ok(Some(StatusUpdate {
            organization_id: org,
            message_id,
            report: StatusReport {
                status: status.status.as_message_status(),
                occurred_at: status.occurred_at,
                error: status.error.clone(),
            },
            network_message_id: Some(status.network_message_id.clone()),
            pricing: status.pricing.clone(),
            source: EventSource::Network,
            event_id: new_id(self.ids.as_ref(), EventId::from_ulid),
            customer_event_id: new_id(self.ids.as_ref(), EventId::from_ulid),
            recorded_at: self.clock.now(),
        }))
    }

    /// A report naming the recipient both ways (`recipient_id` and `recipient_user_id`) links the two in the
    /// organization's contacts, as an inbound message naming both does: a stop recorded under either then
    /// holds for the other. Only a pair not known yet is written, so the reports of one message after its
    /// first cost a read each.
    async fn pair_recipient(
        &self,
        organization: &OrganizationId,
        status: &NetworkStatusReport,
    ) -> Result<(), StoreError> {
        let (Some(contacts), Some(digits), Some(user_id)) =
            (&self.contacts, &status.recipient, &status.recipient_user_id)
        else {
            return Ok(());
        };
        let Ok(number) = PhoneNumber::from_digits(digits) else {
            return Ok(());
        };
        let known = contacts
            .contact(organization, &Recipient::User(user_id.clone()))
            .await?
            .and_then(|contact| contact.number)
            .is_some_and(|known| known.person_key() == number.person_key());
        if !known {
            contacts
                .pair_user_id(organization, &number, user_id, self.clock.now())
                .await?;
        }
        Ok(())
    }

    /// Counts an applied status in the report and marks it in its message's trace.
    fn note_applied(&self, applied: &crate::status::StatusApplied, report: &mut CallbackReport) {
        if let Some(trace) = &applied.trace {
            // The callback's own span began before its message was known: a span in the message's
            // trace marks the status applied there.
            let span = tracing::info_span!(
                "status_applied",
                message_id = %applied.message.id,
                status = applied.message.status.as_str(),
            );
            span_following(self.traces.as_ref(), span, Some(trace))
                .in_scope(|| tracing::debug!("network status applied"));
        }
        match applied.transition {
            crate::status::Transition::Applied { .. } => {
                report.statuses_applied += 1;
                let times = &applied.message.timestamps;
                if applied.message.status == MessageStatus::Delivered
                    && let (Some(submitted), Some(delivered)) = (times.submitted, times.delivered)
                {
                    // The network's clock against Herald's: a skew must not make it negative.
                    report
                        .submitted_to_delivered
                        .push((delivered - submitted).max(Duration::zero()));
                }
            }
            crate::status::Transition::Recorded { .. } => report.statuses_recorded_only += 1,
        }
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
        let inbound = self.by_paired_number(&sender.organization_id, inbound).await?;
        let media_id = matches!(inbound.content, InboundContent::Media { .. })
            .then(|| new_id(self.ids.as_ref(), MediaId::from_ulid));
        let record = InboundRecord {
            id: new_id(self.ids.as_ref(), InboundId::from_ulid),
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
        // Also for a duplicate: the first processing may have failed after recording the message, and
        // both steps are idempotent (a pairing known changes nothing; a keyword's change has its key).
        self.inbound_contact(&record, report).await
    }

    /// A message from a user id alone (a user who hides their number) whose contact already pairs that id
    /// with a number is the same conversation as that number's: it is recorded from the number, so its
    /// thread, its window and the organization's view of the person stay one (docs/api.md §5.1).
    async fn by_paired_number(
        &self,
        organization: &OrganizationId,
        mut inbound: InboundMessage,
    ) -> Result<InboundMessage, StoreError> {
        if let (Recipient::User(_), Some(contacts)) = (&inbound.from, &self.contacts)
            && let Some(number) = contacts
                .contact(organization, &inbound.from)
                .await?
                .and_then(|contact| contact.number)
        {
            inbound.from = Recipient::Number(number);
        }
        Ok(inbound)
    }

    /// What an inbound message tells about its sender's contact: the user id paired with the number, and
    /// a STOP (or resume) keyword under the organization's rule.
    async fn inbound_contact(
        &self,
        record: &InboundRecord,
        report: &mut CallbackReport,
    ) -> Result<(), StoreError> {
        let Some(contacts) = &self.contacts else {
            return Ok(());
        };
        let org = record.organization_id;
        let message = &record.message;
        if let (Recipient::Number(number), Some(user_id)) = (&message.from, &message.from_user_id) {
            contacts
                .pair_user_id(&org, number, user_id, record.recorded_at)
                .await?;
        }
        // An echo is the business's own words to the user: never the user's STOP.
        let InboundContent::Text { body } = &message.content else {
            return Ok(());
        };
        if message.echo {
            return Ok(());
        }
        let Some(preference) = contacts.keyword_rule(&org).await?.match_text(body) else {
            return Ok(());
        };
        let change = PreferenceChange {
            organization_id: org,
            number: message.from.number().cloned(),
            user_id: message.from_user_id.clone(),
            preference,
            source: PreferenceSource::Keyword,
            occurred_at: message.received_at,
            recorded_at: self.clock.now(),
            event_id: new_id(self.ids.as_ref(), EventId::from_ulid),
            dedupe_key: Some(format!("keyword:{}", message.network_message_id)),
        };
        if contacts.record_preference(&change).await? {
            report.preferences_recorded += 1;
        } else {
            report.duplicates += 1;
        }
        Ok(())
    }

    /// Records a user's stop or resume of marketing messages for the organization of the business number.
    async fn record_preference(
        &self,
        preference: UserPreference,
        report: &mut CallbackReport,
    ) -> Result<(), StoreError> {
        let Some(contacts) = &self.contacts else {
            report
                .skipped
                .push("user_preferences: contacts are not kept by this process".to_owned());
            return Ok(());
        };
        let Some(sender) = self
            .accounts
            .sender_by_phone_number_id(&preference.phone_number_id)
            .await?
        else {
            report.skipped.push(format!(
                "user_preferences for unknown phone_number_id {}",
                preference.phone_number_id
            ));
            return Ok(());
        };
        let change = PreferenceChange {
            organization_id: sender.organization_id,
            number: preference.number,
            user_id: preference.user_id,
            preference: preference.preference,
            source: PreferenceSource::Network,
            occurred_at: preference.occurred_at,
            recorded_at: self.clock.now(),
            event_id: new_id(self.ids.as_ref(), EventId::from_ulid),
            dedupe_key: Some(preference.dedupe_key),
        };
        if contacts.record_preference(&change).await? {
            report.preferences_recorded += 1;
        } else {
            report.duplicates += 1;
        }
        Ok(())
    }

    /// Records a notice for each organization the business account belongs to (its owner, and those the
    /// operator shared it with explicitly: [`AccountStore::business_account_organizations`]): a number's
    /// notice for those of them that have that number, any other for all of them. Another organization
    /// with a sender of the account, not shared with it, receives nothing. A template an organization has
    /// no copy of yet is still reported (the next sync brings the copy).
    async fn record_notice(
        &self,
        notice: AccountNotice,
        report: &mut CallbackReport,
    ) -> Result<(), StoreError> {
        let owners = self
            .accounts
            .business_account_organizations(&notice.waba_id)
            .await?;
        let senders = self.accounts.senders_of_business_account(&notice.waba_id).await?;
        let mut routes: Vec<(crate::ids::OrganizationId, Option<NoticeSender>)> = Vec::new();
        for sender in senders {
            if !owners.contains(&sender.organization_id) {
                continue;
            }
            let named = match &notice.change {
                NoticeChange::SenderQuality {
                    display_phone_number, ..
                } => {
                    if !same_number(sender.number.as_str(), display_phone_number) {
                        continue;
                    }
                    Some(NoticeSender {
                        id: sender.id,
                        number: sender.number.clone(),
                    })
                }
                _ => None,
            };
            if !routes.iter().any(|(org, _)| *org == sender.organization_id) {
                routes.push((sender.organization_id, named));
            }
        }
        if routes.is_empty() {
            report.skipped.push(format!(
                "notice for unknown business account {} or number",
                notice.waba_id
            ));
            return Ok(());
        }
        for (organization_id, sender) in routes {
            let record = NoticeRecord {
                organization_id,
                event_id: new_id(self.ids.as_ref(), EventId::from_ulid),
                recorded_at: self.clock.now(),
                notice: notice.clone(),
                sender,
            };
            if self.tracking.record_notice(&record).await? {
                report.notices_recorded += 1;
            } else {
                report.duplicates += 1;
            }
        }
        Ok(())
    }
}

/// Whether an E.164 number and a number as the network displays it (digits, perhaps with `+`, spaces or
/// dashes) are the same.
fn same_number(e164: &str, displayed: &str) -> bool {
    let digits = |s: &str| s.chars().filter(char::is_ascii_digit).collect::<String>();
    let displayed = digits(displayed);
    !displayed.is_empty() && digits(e164) == displayed
}

/// The message a decoded callback is about when it is the network's usual callback, one status report and
/// nothing else (its message id on the network); `None` for any other callback.
fn lone_status_message(decoded: &Result<ParsedCallback, String>) -> Option<&str> {
    match decoded {
        Ok(ParsedCallback { events, skipped, .. }) if skipped.is_empty() => match events.as_slice() {
            [NetworkEvent::Status(status)] => Some(status.network_message_id.as_str()),
            _ => None,
        },
        _ => None,
    }
}

/// Splits a page of the backlog, in order, into the runs that may be processed concurrently: a run of lone
/// status reports about distinct messages (`keys[i]` is the message of callback `i`, as
/// [`lone_status_message`] gives it), or one other callback alone. A report about a message already in the
/// run starts the next one, so two reports about one message are applied in the order they arrived.
fn backlog_waves(keys: &[Option<&str>]) -> Vec<std::ops::Range<usize>> {
    let mut waves = Vec::new();
    let mut start = 0;
    let mut in_wave = std::collections::HashSet::new();
    for (index, key) in keys.iter().enumerate() {
        let joins = key.is_some_and(|key| !in_wave.contains(key));
        if !joins && index > start {
            waves.push(start..index);
            start = index;
            in_wave.clear();
        }
        match key {
            Some(key) => {
                in_wave.insert(*key);
            }
            // Anything but a lone status report runs alone.
            None => {
                waves.push(index..index + 1);
                start = index + 1;
            }
        }
    }
    if start < keys.len() {
        waves.push(start..keys.len());
    }
    waves
}

#[cfg(test)]
mod wave_tests {
    use super::backlog_waves;

    #[test]
    fn lone_status_reports_about_distinct_messages_form_one_wave() {
        assert_eq!(backlog_waves(&[Some("a"), Some("b"), Some("c")]), vec![0..3]);
    }

    #[test]
    fn a_second_report_about_a_message_waits_for_the_wave_holding_the_first() {
        assert_eq!(
            backlog_waves(&[Some("a"), Some("b"), Some("a"), Some("c"), Some("a"), Some("b")]),
            vec![0..2, 2..4, 4..6]
        );
    }

    #[test]
    fn any_other_callback_runs_alone_between_the_waves_around_it() {
        assert_eq!(
            backlog_waves(&[Some("a"), None, None, Some("a"), Some("b"), None]),
            vec![0..1, 1..2, 2..3, 3..5, 5..6]
        );
        assert_eq!(backlog_waves(&[None]), vec![0..1]);
        assert!(backlog_waves(&[]).is_empty());
    }
}

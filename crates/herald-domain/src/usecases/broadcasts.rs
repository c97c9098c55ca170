//! Broadcasts (docs/api.md §4.10): accepting one, reading them, cancelling and resuming, and the pacer
//! that releases their messages to dispatch.

mod dry_run;

pub use dry_run::BroadcastDryRun;

use super::recipients::RecipientChecks;
use super::send::{
    SendError, SendSettings, resolve_read_media, resolve_stored_media, seconds_until_period_end,
    stored_media_ids,
};
use super::shared::new_id;
use crate::broadcast::{
    Broadcast, BroadcastEvent, BroadcastEventKind, BroadcastState, BroadcastView, PauseReason,
    ReleaseOutcome, ReleasePolicy, held_until,
};
use crate::contact::{Recipient, SendPurpose};
use crate::error::{FieldError, ValidationErrors};
use crate::ids::{BroadcastId, EventId, JobId, MediaId, MessageId, OrganizationId};
use crate::media::MediaFile;
use crate::message::{EventSource, Message, MessageContent, MessageStatus, StatusEvent};
use crate::organization::{MessageKind, Organization, Plan, choose_sender};
use crate::ports::{
    AccountStore, BroadcastAccept, BroadcastAcceptOutcome, BroadcastMessage, BroadcastQuery, BroadcastStore,
    BroadcastTransition, Clock, DueBroadcast, IdGenerator, MediaCatalog, MessageQuery, MessageStore,
    OutboxJob, QuotaCharge, RateDecision, RateLimiter, ScheduleStore, StoreError, TemplateStore,
};
use crate::status::StatusUpdate;
use crate::template::check::{TemplateCheckError, check_variables, expand_code_shorthand};
use crate::template::{HeaderValue, Template, TemplateRef, TemplateVariables};
use crate::time::{BillingPeriod, Duration, Timestamp};
use crate::values::{ClientReference, IdempotencyKey, PhoneNumber, RequestFingerprint};
use std::collections::HashMap;
use std::sync::Arc;

/// One recipient of a broadcast whose fields passed their own rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BroadcastRecipient {
    /// A number or a business-scoped user id, as a single send's `to`.
    pub to: Recipient,
    pub variables: TemplateVariables,
    pub client_reference: Option<ClientReference>,
}

/// A broadcast request as the HTTP adapter hands it over: the shared fields checked, and each recipient
/// row with its own verdict, so every row's errors can be listed with its index.
#[derive(Debug, Clone)]
pub struct BroadcastDraft {
    pub template: TemplateRef,
    pub from: Option<PhoneNumber>,
    pub send_at: Option<Timestamp>,
    /// A header every recipient without one of its own gets (a file by `media_id`, typically).
    pub header: Option<HeaderValue>,
    pub recipients: Vec<Result<BroadcastRecipient, ValidationErrors>>,
}

/// `POST /api/v1/broadcasts`.
#[derive(Debug, Clone)]
pub struct BroadcastCommand {
    pub organization: Organization,
    pub plan: Plan,
    /// Checked after the plan and rate checks, as for a single send (docs/api.md §8).
    pub draft: Result<BroadcastDraft, ValidationErrors>,
    pub idempotency: Option<(IdempotencyKey, RequestFingerprint)>,
}

/// A recipient row that was left out, with why (field names within the row: `to`, `variables.body`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RejectedRow {
    pub index: usize,
    pub errors: ValidationErrors,
}

/// A broadcast accepted now, or found again by its `Idempotency-Key`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BroadcastCreated {
    Accepted {
        view: BroadcastView,
        rejected: Vec<RejectedRow>,
    },
    /// The same request was accepted before: nothing was written again (`rejected` is not kept).
    Replayed { view: BroadcastView },
}

/// Why a broadcast was refused. Nothing was stored, counted or sent.
#[derive(Debug, thiserror::Error)]
pub enum BroadcastError {
    #[error("the organization is not active")]
    AccountInactive,
    #[error("the plan does not allow template messages")]
    PlanForbids,
    #[error("send rate exceeded")]
    RateLimited { limit: u32, retry_after_seconds: u64 },
    /// The shared fields are wrong, or no recipient row is valid (then every row's errors are listed).
    #[error("validation failed: {errors}")]
    Invalid {
        errors: ValidationErrors,
        rejected: Vec<RejectedRow>,
    },
    #[error("no template {} in {}", .0.name, .0.language)]
    TemplateNotFound(TemplateRef),
    #[error("the template is {0}, not APPROVED")]
    TemplateNotApproved(String),
    #[error("{0}")]
    HeaderMediaMismatch(String),
    /// The quota has room for fewer messages than the broadcast's valid rows: all or nothing.
    #[error("the broadcast needs {needed} messages but the monthly quota of {limit} has {remaining} left")]
    QuotaExceeded {
        limit: u64,
        needed: u64,
        remaining: u64,
        retry_after_seconds: u64,
    },
    #[error("this Idempotency-Key was used with a different request")]
    IdempotencyKeyReused,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The ports the broadcast use cases drive.
pub struct BroadcastPorts {
    pub accounts: Arc<dyn AccountStore>,
    pub broadcasts: Arc<dyn BroadcastStore>,
    pub messages: Arc<dyn MessageStore>,
    pub schedule: Arc<dyn ScheduleStore>,
    pub templates: Arc<dyn TemplateStore>,
    pub catalog: Arc<dyn MediaCatalog>,
    pub limiter: Arc<dyn RateLimiter>,
    pub clock: Arc<dyn Clock>,
    pub ids: Arc<dyn IdGenerator>,
}

/// Tunables of the pacer.
#[derive(Debug, Clone)]
pub struct PaceSettings {
    /// At most one `broadcast.progress` per broadcast per this interval.
    pub progress_interval: Duration,
    /// Broadcasts looked at per round.
    pub batch: u32,
}

impl Default for PaceSettings {
    fn default() -> Self {
        Self {
            progress_interval: Duration::seconds(30),
            batch: 100,
        }
    }
}

/// How many messages one cancel transaction takes.
const CANCEL_CHUNK: u32 = 500;

/// How long a `cancelling` broadcast is left to the cancel working on it before the pacer takes it as
/// stopped half-way and finishes it (a 10,000-message cancel takes seconds; two finishing at once is safe,
/// only wasted work).
pub const CANCEL_RESUME_AFTER: Duration = Duration::seconds(60);

/// Why a broadcast cancel or resume was refused.
#[derive(Debug, thiserror::Error)]
pub enum BroadcastChangeError {
    #[error("not found")]
    NotFound,
    /// `409 broadcast_state`: the broadcast is in a state the change cannot start from.
    #[error("the broadcast is {}; {}", .state.as_str(), .wanted)]
    WrongState {
        state: BroadcastState,
        wanted: &'static str,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A page of a broadcast's messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BroadcastMessages {
    pub messages: Vec<Message>,
}

/// What one pacer round did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PaceReport {
    pub released: u32,
    pub paused: u32,
    pub completed: u32,
    /// Cancels that had stopped half-way, finished.
    pub cancelled: u32,
}

/// Accepting, reading, cancelling, resuming and pacing broadcasts.
pub struct Broadcasts {
    ports: BroadcastPorts,
    recipients: RecipientChecks,
    send: SendSettings,
    pace: PaceSettings,
}

impl Broadcasts {
    pub fn new(ports: BroadcastPorts, send: SendSettings, pace: PaceSettings) -> Self {
        Self {
            ports,
            recipients: RecipientChecks::allow_all(),
            send,
            pace,
        }
    }

    /// Refuses rows to blocked recipients, and marketing templates to recipients who stopped them.
    #[must_use]
    pub fn with_recipient_checks(mut self, recipients: RecipientChecks) -> Self {
        self.recipients = recipients;
        self
    }

    /// Checks the request and every row, and accepts the valid rows as one broadcast.
    ///
    /// # Errors
    /// See [`BroadcastError`].
    #[tracing::instrument(name = "create_broadcast", skip_all, fields(org = %command.organization.id))]
    pub async fn create(&self, command: BroadcastCommand) -> Result<BroadcastCreated, BroadcastError> {
        let BroadcastCommand {
            organization,
            plan,
            draft,
            idempotency,
        } = command;
        if !organization.status.is_active() {
            return Err(BroadcastError::AccountInactive);
        }
        if let Some((key, fingerprint)) = &idempotency
            && let Some(view) = self.replay(&organization.id, key, *fingerprint).await?
        {
            return Ok(BroadcastCreated::Replayed { view });
        }
        if !plan.allows(MessageKind::Template) {
            return Err(BroadcastError::PlanForbids);
        }
        if let RateDecision::Limited {
            limit,
            retry_after_seconds,
        } = self.ports.limiter.check(&organization.id, &plan, 1).await?
        {
            return Err(BroadcastError::RateLimited {
                limit,
                retry_after_seconds: retry_after_seconds.max(1),
            });
        }
        let draft = draft.map_err(|errors| BroadcastError::Invalid {
            errors,
            rejected: Vec::new(),
        })?;
        let now = self.ports.clock.now();
        self.send
            .check_send_at(draft.send_at, now)
            .map_err(|errors| BroadcastError::Invalid {
                errors,
                rejected: Vec::new(),
            })?;
        let senders = self.ports.accounts.senders(&organization.id).await?;
        let sender = choose_sender(&senders, draft.from.as_ref()).ok_or_else(|| BroadcastError::Invalid {
            errors: ValidationErrors::single(
                "from",
                match &draft.from {
                    Some(number) => format!("{number} is not a sender number of this organization"),
                    None => "the organization has no default sender number; name one in `from`".to_owned(),
                },
            ),
            rejected: Vec::new(),
        })?;
        let template = self
            .ports
            .templates
            .template(
                &organization.id,
                &sender.waba_id,
                &draft.template.name,
                &draft.template.language,
            )
            .await?
            .ok_or_else(|| BroadcastError::TemplateNotFound(draft.template.clone()))?;
        if !template.status.is_approved() {
            return Err(BroadcastError::TemplateNotApproved(
                template.status.as_str().to_owned(),
            ));
        }
        let header = self
            .shared_header(&organization, &draft.template, draft.header.clone(), now)
            .await?;
        let (valid, rejected) = self
            .check_rows(&organization, &template, header, draft.recipients, now)
            .await?;
        if valid.is_empty() {
            return Err(BroadcastError::Invalid {
                errors: ValidationErrors::single("recipients", "no recipient row is valid"),
                rejected,
            });
        }

        let id = new_id(self.ports.ids.as_ref(), BroadcastId::from_ulid);
        let total = u32::try_from(valid.len()).unwrap_or(u32::MAX);
        let broadcast = Broadcast {
            id,
            organization_id: organization.id,
            sender_id: sender.id,
            from: sender.number.clone(),
            template: draft.template.clone(),
            state: BroadcastState::Scheduled,
            total,
            released: 0,
            send_at: draft.send_at,
            pause: None,
            created_at: now,
            updated_at: now,
            completed_at: None,
            cancelled_at: None,
        };
        let messages = valid
            .into_iter()
            .map(|row| self.message_of(&broadcast, &draft.template, row, now))
            .collect();
        let request = BroadcastAccept {
            broadcast,
            messages,
            quota: QuotaCharge {
                period: BillingPeriod::containing(now),
                limit: plan.monthly_quota,
            },
            idempotency: idempotency.clone(),
        };
        match self.ports.broadcasts.accept(&request).await? {
            BroadcastAcceptOutcome::Accepted => {}
            BroadcastAcceptOutcome::QuotaExceeded { remaining } => {
                return Err(BroadcastError::QuotaExceeded {
                    limit: plan.monthly_quota.unwrap_or_default(),
                    needed: u64::from(total),
                    remaining,
                    retry_after_seconds: seconds_until_period_end(now),
                });
            }
            BroadcastAcceptOutcome::KeyTaken => {
                // Another request with the key won the race: it decides, as a replay would.
                if let Some((key, fingerprint)) = &idempotency
                    && let Some(view) = self.replay(&organization.id, key, *fingerprint).await?
                {
                    return Ok(BroadcastCreated::Replayed { view });
                }
                return Err(BroadcastError::Store(StoreError::Unknown(anyhow::anyhow!(
                    "an Idempotency-Key conflict without a broadcast behind it"
                ))));
            }
        }
        let first_status = if request.broadcast.send_at.is_some() {
            MessageStatus::Scheduled
        } else {
            MessageStatus::Accepted
        };
        let view = BroadcastView {
            counts: crate::broadcast::BroadcastCounts([(first_status, total)].into_iter().collect()),
            broadcast: request.broadcast,
        };
        Ok(BroadcastCreated::Accepted { view, rejected })
    }

    /// Whether the organization already has a broadcast accepted with `key`: a request with it is a replay
    /// (or a reuse the create refuses), which stores nothing new, so the edge charges it no rows.
    ///
    /// # Errors
    /// The store's.
    pub async fn has_key(
        &self,
        organization: &OrganizationId,
        key: &IdempotencyKey,
    ) -> Result<bool, StoreError> {
        Ok(self.ports.broadcasts.keyed(organization, key).await?.is_some())
    }

    async fn replay(
        &self,
        organization: &OrganizationId,
        key: &IdempotencyKey,
        fingerprint: RequestFingerprint,
    ) -> Result<Option<BroadcastView>, BroadcastError> {
        let Some(keyed) = self.ports.broadcasts.keyed(organization, key).await? else {
            return Ok(None);
        };
        if keyed.fingerprint != fingerprint {
            return Err(BroadcastError::IdempotencyKeyReused);
        }
        Ok(self.ports.broadcasts.broadcast(organization, &keyed.id).await?)
    }

    /// The shared header with its stored file looked up once (its kind and file name filled in).
    async fn shared_header(
        &self,
        organization: &Organization,
        template: &TemplateRef,
        header: Option<HeaderValue>,
        now: Timestamp,
    ) -> Result<Option<HeaderValue>, BroadcastError> {
        let Some(header) = header else {
            return Ok(None);
        };
        let mut content = MessageContent::Template {
            template: template.clone(),
            variables: TemplateVariables {
                header: Some(header),
                ..TemplateVariables::default()
            },
        };
        resolve_stored_media(self.ports.catalog.as_ref(), organization, &mut content, now)
            .await
            .map_err(|error| match error {
                SendError::Invalid(errors) => BroadcastError::Invalid {
                    errors: prefix_fields(errors, "variables.header", "header"),
                    rejected: Vec::new(),
                },
                SendError::HeaderMediaMismatch(detail) => BroadcastError::HeaderMediaMismatch(detail),
                SendError::Store(error) => BroadcastError::Store(error),
                other => BroadcastError::Store(StoreError::Unknown(anyhow::anyhow!("{other}"))),
            })?;
        Ok(match content {
            MessageContent::Template { variables, .. } => variables.header,
            _ => None,
        })
    }

    /// Splits the rows into the valid ones and the rejected ones (with their indexes), checking each as a
    /// single template send would: its fields, its files, its variables against the template, a repeated
    /// recipient, and the recipient checks.
    async fn check_rows(
        &self,
        organization: &Organization,
        template: &Template,
        header: Option<HeaderValue>,
        rows: Vec<Result<BroadcastRecipient, ValidationErrors>>,
        now: Timestamp,
    ) -> Result<(Vec<BroadcastRecipient>, Vec<RejectedRow>), BroadcastError> {
        let purpose = SendPurpose::of_template_category(&template.category);
        let reference = TemplateRef {
            name: template.name.clone(),
            language: template.language.clone(),
        };
        // First each row on its own (fields, files, variables: every row's files read at once); then the
        // recipient checks of all that passed in one store read; then, in row order, repeats.
        let mut contents = Vec::with_capacity(rows.len());
        let mut rejected = Vec::new();
        for (index, row) in rows.into_iter().enumerate() {
            let mut row = match row {
                Ok(row) => row,
                Err(errors) => {
                    rejected.push(RejectedRow { index, errors });
                    continue;
                }
            };
            if row.variables.header.is_none() {
                row.variables.header.clone_from(&header);
            }
            let content = MessageContent::Template {
                template: reference.clone(),
                variables: row.variables,
            };
            contents.push((index, row.to, row.client_reference, content));
        }
        let mut ids: Vec<MediaId> = contents
            .iter()
            .flat_map(|(_, _, _, content)| stored_media_ids(content))
            .collect();
        ids.sort_unstable();
        ids.dedup();
        let uploads = if ids.is_empty() {
            HashMap::new()
        } else {
            self.ports.catalog.uploads(&organization.id, &ids).await?
        };
        let mut candidates = Vec::with_capacity(contents.len());
        for (index, to, client_reference, mut content) in contents {
            if let Err(errors) = check_row(&uploads, template, &mut content, now) {
                rejected.push(RejectedRow { index, errors });
                continue;
            }
            let MessageContent::Template { variables, .. } = content else {
                continue;
            };
            candidates.push((
                index,
                BroadcastRecipient {
                    to,
                    variables,
                    client_reference,
                },
            ));
        }
        let asked: Vec<Recipient> = candidates.iter().map(|(_, row)| row.to.clone()).collect();
        let refused = self
            .recipients
            .refused_recipients(&organization.id, &asked, purpose)
            .await?;
        // A person once: the national variants of a number are one recipient.
        let person = |to: &Recipient| match to {
            Recipient::Number(number) => Recipient::Number(number.person_key()),
            Recipient::User(_) | Recipient::Erased(_) => to.clone(),
        };
        let mut seen: HashMap<Recipient, usize> = HashMap::with_capacity(candidates.len());
        let mut valid = Vec::with_capacity(candidates.len());
        for (index, row) in candidates {
            if let Some(refusal) = refused.get(&row.to) {
                rejected.push(RejectedRow {
                    index,
                    errors: ValidationErrors::single("to", format!("{}: {refusal}", refusal.code())),
                });
                continue;
            }
            if let Some(first) = seen.get(&person(&row.to)) {
                rejected.push(RejectedRow {
                    index,
                    errors: ValidationErrors::single(
                        "to",
                        format!("repeats the recipient of row {first}: a broadcast sends once per person"),
                    ),
                });
                continue;
            }
            seen.insert(person(&row.to), index);
            valid.push(row);
        }
        rejected.sort_by_key(|row| row.index);
        Ok((valid, rejected))
    }

    fn message_of(
        &self,
        broadcast: &Broadcast,
        template: &TemplateRef,
        row: BroadcastRecipient,
        now: Timestamp,
    ) -> BroadcastMessage {
        let ids = self.ports.ids.as_ref();
        let mut message = Message::accepted(
            new_id(ids, MessageId::from_ulid),
            broadcast.organization_id,
            (broadcast.sender_id, broadcast.from.clone()),
            row.to,
            MessageContent::Template {
                template: template.clone(),
                variables: row.variables,
            },
            row.client_reference,
            now,
        );
        if let Some(send_at) = broadcast.send_at {
            message = message.scheduled_for(send_at);
        }
        message.broadcast_id = Some(broadcast.id);
        BroadcastMessage {
            event: StatusEvent {
                id: new_id(ids, EventId::from_ulid),
                organization_id: broadcast.organization_id,
                message_id: message.id,
                status: message.status,
                previous_status: None,
                applied: true,
                source: EventSource::Herald,
                error: None,
                occurred_at: now,
                recorded_at: now,
            },
            job: OutboxJob {
                id: new_id(ids, JobId::from_ulid),
                organization_id: broadcast.organization_id,
                message_id: message.id,
                sender_id: broadcast.sender_id,
                // Held: the pacer sets both when it releases the job.
                available_at: held_until(),
                deadline: held_until(),
                trace: None,
            },
            message,
        }
    }

    /// # Errors
    /// A store failure.
    pub async fn get(
        &self,
        organization: &OrganizationId,
        id: &BroadcastId,
    ) -> Result<Option<BroadcastView>, StoreError> {
        self.ports.broadcasts.broadcast(organization, id).await
    }

    /// # Errors
    /// A store failure.
    pub async fn list(
        &self,
        organization: &OrganizationId,
        query: &BroadcastQuery,
    ) -> Result<Vec<BroadcastView>, StoreError> {
        self.ports.broadcasts.broadcasts(organization, query).await
    }

    /// A page of the broadcast's messages (the message log's filters apply); `None` when the broadcast is
    /// not the organization's.
    ///
    /// # Errors
    /// A store failure.
    pub async fn messages(
        &self,
        organization: &OrganizationId,
        id: &BroadcastId,
        mut query: MessageQuery,
    ) -> Result<Option<BroadcastMessages>, StoreError> {
        if self.ports.broadcasts.broadcast(organization, id).await?.is_none() {
            return Ok(None);
        }
        query.broadcast = Some(*id);
        let messages = self.ports.messages.messages(organization, &query).await?;
        Ok(Some(BroadcastMessages { messages }))
    }

    /// Stops the broadcast: nothing more is released, and every message dispatch has not taken is
    /// `cancelled` with its quota given back. Messages already taken by dispatch go on.
    ///
    /// The broadcast is `cancelling` while its messages are cancelled (a chunk per transaction, so a
    /// 10,000-message cancel never holds the store's writers for long), and `cancelled` only once none is
    /// left: a cancel that stops half-way (a lost connection, a crash) is finished by a retry, or by the
    /// pacer ([`Broadcasts::pace`]) once it has been left alone for [`CANCEL_RESUME_AFTER`].
    ///
    /// # Errors
    /// See [`BroadcastChangeError`]; `WrongState` only once the broadcast is completed or really
    /// cancelled.
    #[tracing::instrument(name = "cancel_broadcast", skip_all, fields(org = %organization, broadcast = %id))]
    pub async fn cancel(
        &self,
        organization: &OrganizationId,
        id: &BroadcastId,
    ) -> Result<BroadcastView, BroadcastChangeError> {
        let change = BroadcastTransition {
            from: vec![
                BroadcastState::Scheduled,
                BroadcastState::Running,
                BroadcastState::Paused,
                // A cancel that stopped half-way: this one finishes it.
                BroadcastState::Cancelling,
            ],
            to: BroadcastState::Cancelling,
            pause: None,
            at: self.ports.clock.now(),
            event: None,
        };
        self.change(
            organization,
            id,
            &change,
            "only a scheduled, running or paused broadcast can be cancelled",
        )
        .await?;
        self.finish_cancel(organization, id).await
    }

    /// Cancels what is left of a `cancelling` broadcast, then makes it `cancelled` with its completion
    /// event in one transaction. Every step is safe to repeat, and two finishing at once both end well.
    async fn finish_cancel(
        &self,
        organization: &OrganizationId,
        id: &BroadcastId,
    ) -> Result<BroadcastView, BroadcastChangeError> {
        // Nothing is released any more, so the untaken messages only ever get fewer; a chunk that cancels
        // nothing was taken by dispatch meanwhile, and the next look no longer finds it.
        let mut idle_rounds = 0;
        while idle_rounds < 3 {
            let untaken = self
                .ports
                .broadcasts
                .untaken(organization, id, CANCEL_CHUNK)
                .await?;
            if untaken.is_empty() {
                break;
            }
            let updates: Vec<StatusUpdate> = untaken
                .iter()
                .map(|message| self.cancel_update(organization, message))
                .collect();
            if self.ports.schedule.cancel_many(&updates).await? == 0 {
                idle_rounds += 1;
            } else {
                idle_rounds = 0;
            }
        }
        let view = self
            .ports
            .broadcasts
            .broadcast(organization, id)
            .await?
            .ok_or(BroadcastChangeError::NotFound)?;
        let now = self.ports.clock.now();
        let change = BroadcastTransition {
            from: vec![BroadcastState::Cancelling],
            to: BroadcastState::Cancelled,
            pause: None,
            at: now,
            event: Some(self.event(BroadcastEventKind::Completed, cancelled_view(view, now), now)),
        };
        // `None`: another cancel (or the pacer) finished it first, and recorded the event.
        self.ports
            .broadcasts
            .transition(organization, id, &change)
            .await?;
        self.ports
            .broadcasts
            .broadcast(organization, id)
            .await?
            .ok_or(BroadcastChangeError::NotFound)
    }

    /// Lets a paused broadcast go on.
    ///
    /// # Errors
    /// See [`BroadcastChangeError`].
    pub async fn resume(
        &self,
        organization: &OrganizationId,
        id: &BroadcastId,
    ) -> Result<BroadcastView, BroadcastChangeError> {
        let now = self.ports.clock.now();
        let change = BroadcastTransition {
            from: vec![BroadcastState::Paused],
            to: BroadcastState::Running,
            pause: None,
            at: now,
            event: None,
        };
        self.change(
            organization,
            id,
            &change,
            "only a paused broadcast can be resumed",
        )
        .await?;
        self.ports
            .broadcasts
            .broadcast(organization, id)
            .await?
            .ok_or(BroadcastChangeError::NotFound)
    }

    async fn change(
        &self,
        organization: &OrganizationId,
        id: &BroadcastId,
        change: &BroadcastTransition,
        wanted: &'static str,
    ) -> Result<Broadcast, BroadcastChangeError> {
        if let Some(broadcast) = self.ports.broadcasts.transition(organization, id, change).await? {
            return Ok(broadcast);
        }
        match self.ports.broadcasts.broadcast(organization, id).await? {
            None => Err(BroadcastChangeError::NotFound),
            Some(view) => Err(BroadcastChangeError::WrongState {
                state: view.broadcast.state,
                wanted,
            }),
        }
    }

    fn cancel_update(&self, organization: &OrganizationId, message: &MessageId) -> StatusUpdate {
        super::shared::cancel_update(
            self.ports.ids.as_ref(),
            organization,
            message,
            self.ports.clock.now(),
        )
    }

    fn event(&self, kind: BroadcastEventKind, view: BroadcastView, at: Timestamp) -> BroadcastEvent {
        BroadcastEvent {
            id: new_id(self.ports.ids.as_ref(), EventId::from_ulid),
            kind,
            view,
            recorded_at: at,
        }
    }

    /// One pacer round: first finish every cancel that stopped half-way (left `cancelling` for
    /// [`CANCEL_RESUME_AFTER`]); then for every active broadcast whose time has come, pause it if the network answered
    /// one of its messages with a sender, template or quality error; otherwise release what its pace
    /// allows, report progress at most once per interval, and complete it once dispatch is done with
    /// every message.
    ///
    /// # Errors
    /// A store failure (the round stops; the next one starts over, as every step is safe to repeat).
    pub async fn pace(&self) -> Result<PaceReport, StoreError> {
        let now = self.ports.clock.now();
        let mut report = PaceReport::default();
        let stranded = self
            .ports
            .broadcasts
            .cancelling(now - CANCEL_RESUME_AFTER, self.pace.batch)
            .await?;
        for broadcast in stranded {
            tracing::info!(broadcast = %broadcast.id, "finishing a cancel that stopped half-way");
            match self
                .finish_cancel(&broadcast.organization_id, &broadcast.id)
                .await
            {
                Ok(_) => report.cancelled += 1,
                Err(BroadcastChangeError::Store(error)) => return Err(error),
                // Gone meanwhile (retention): nothing left to finish.
                Err(_) => {}
            }
        }
        for due in self.ports.broadcasts.due(now, self.pace.batch).await? {
            self.pace_one(&due, now, &mut report).await?;
        }
        Ok(report)
    }

    async fn pace_one(
        &self,
        due: &DueBroadcast,
        now: Timestamp,
        report: &mut PaceReport,
    ) -> Result<(), StoreError> {
        let broadcast = &due.broadcast;
        let (org, id) = (&broadcast.organization_id, &broadcast.id);
        if self.pause_if_needed(due, now).await? {
            report.paused += 1;
            return Ok(());
        }
        let policy = ReleasePolicy::new(
            now,
            self.send.dispatch_deadline,
            due.throughput_per_second,
            due.messaging_limit.as_deref(),
        );
        let held = match self.ports.broadcasts.release(org, id, &policy).await? {
            ReleaseOutcome::Inactive => return Ok(()),
            ReleaseOutcome::Released { count, held, .. } => {
                report.released += count;
                held
            }
        };
        let progress_due = due
            .progress_at
            .is_none_or(|at| now - at >= self.pace.progress_interval);
        if held > 0 && !progress_due {
            return Ok(());
        }
        let Some(view) = self.ports.broadcasts.broadcast(org, id).await? else {
            return Ok(());
        };
        if held == 0 && view.counts.undispatched() == 0 {
            let change = BroadcastTransition {
                from: vec![BroadcastState::Scheduled, BroadcastState::Running],
                to: BroadcastState::Completed,
                pause: None,
                at: now,
                event: Some(self.event(BroadcastEventKind::Completed, completed_view(view, now), now)),
            };
            if self
                .ports
                .broadcasts
                .transition(org, id, &change)
                .await?
                .is_some()
            {
                report.completed += 1;
            }
        } else if progress_due && view.broadcast.released > 0 {
            self.ports
                .broadcasts
                .record_progress(&self.event(BroadcastEventKind::Progress, view, now))
                .await?;
        }
        Ok(())
    }

    /// Looks at the broadcast's failures since the last round; pauses it (with a progress event saying
    /// why) on the first one that calls for it.
    async fn pause_if_needed(&self, due: &DueBroadcast, now: Timestamp) -> Result<bool, StoreError> {
        let broadcast = &due.broadcast;
        let (org, id) = (&broadcast.organization_id, &broadcast.id);
        let failures = self
            .ports
            .broadcasts
            .failures(org, id, due.failures_seen, 200)
            .await?;
        let Some(last) = failures.iter().map(|f| f.failed_at).max() else {
            return Ok(false);
        };
        // Once every recipient is released there is nothing left to hold back: a pause would only keep a
        // finished broadcast from completing (the failures stay on its messages).
        let pause = failures
            .iter()
            .find_map(|failure| PauseReason::for_error(&failure.error, now))
            .filter(|_| broadcast.released < broadcast.total);
        let Some(pause) = pause else {
            self.ports.broadcasts.see_failures(org, id, last).await?;
            return Ok(false);
        };
        tracing::warn!(broadcast = %id, code = %pause.code, "broadcast paused");
        let mut view = self
            .ports
            .broadcasts
            .broadcast(org, id)
            .await?
            .unwrap_or_else(|| BroadcastView {
                broadcast: broadcast.clone(),
                counts: crate::broadcast::BroadcastCounts::default(),
            });
        view.broadcast.state = BroadcastState::Paused;
        view.broadcast.pause = Some(pause.clone());
        let change = BroadcastTransition {
            from: vec![BroadcastState::Scheduled, BroadcastState::Running],
            to: BroadcastState::Paused,
            pause: Some(pause),
            at: now,
            event: Some(self.event(BroadcastEventKind::Progress, view, now)),
        };
        let paused = self
            .ports
            .broadcasts
            .transition(org, id, &change)
            .await?
            .is_some();
        self.ports.broadcasts.see_failures(org, id, last).await?;
        Ok(paused)
    }
}

/// The view a cancel's completion event carries: the broadcast as it is once cancelled.
fn cancelled_view(mut view: BroadcastView, now: Timestamp) -> BroadcastView {
    view.broadcast.state = BroadcastState::Cancelled;
    view.broadcast.cancelled_at = Some(now);
    view.broadcast.updated_at = now;
    view
}

/// The view a completion event carries: the broadcast as it is once completed.
fn completed_view(mut view: BroadcastView, now: Timestamp) -> BroadcastView {
    view.broadcast.state = BroadcastState::Completed;
    view.broadcast.completed_at = Some(now);
    view.broadcast.updated_at = now;
    view
}

/// One row's files (from the uploads read for every row) and variables; `Err` is the row's rejection.
fn check_row(
    uploads: &HashMap<MediaId, MediaFile>,
    template: &Template,
    content: &mut MessageContent,
    now: Timestamp,
) -> Result<(), ValidationErrors> {
    match resolve_read_media(uploads, content, now) {
        Ok(()) => {}
        Err(SendError::Invalid(errors)) => return Err(prefix_fields(errors, "", "variables.")),
        Err(SendError::HeaderMediaMismatch(detail)) => {
            return Err(ValidationErrors::single("variables.header", detail));
        }
        Err(other) => return Err(ValidationErrors::single("variables", other.to_string())),
    }
    let MessageContent::Template { variables, .. } = content else {
        return Ok(());
    };
    expand_code_shorthand(template, variables);
    match check_variables(template, variables) {
        Ok(()) => Ok(()),
        Err(TemplateCheckError::Mismatch(detail)) => Err(ValidationErrors::single("variables", detail)),
        Err(error) => Err(ValidationErrors::single("variables", error.to_string())),
    }
}

/// Field names of a shared part's errors, renamed to where the client wrote them.
fn prefix_fields(errors: ValidationErrors, from: &str, to: &str) -> ValidationErrors {
    let mut renamed = ValidationErrors::new();
    for error in errors.into_errors() {
        let field = match error.field.strip_prefix(from) {
            Some(rest) if !from.is_empty() => format!("{to}{rest}"),
            _ if from.is_empty() && !error.field.starts_with(to) => format!("{to}{}", error.field),
            _ => error.field,
        };
        renamed.push(FieldError::new(field, error.message));
    }
    renamed
}

use super::media::forget_upload;
use super::recipients::RecipientChecks;
use super::shared::new_id;
use crate::attachment::{AttachmentRole, MediaSource};
use crate::contact::{Recipient, SendPurpose};
use crate::content::MessageRef;
use crate::dispatch::ClaimToken;
use crate::error::ValidationErrors;
use crate::ids::{EventId, JobId, MediaId, MessageId};
use crate::media::{MediaFile, MediaRecord, StagedFile};
use crate::message::{EventSource, Message, MessageContent, MessageStatus, StatusEvent};
use crate::organization::{MessageKind, Organization, Plan, SenderNumber, choose_sender};
use crate::ports::{
    AcceptOutcome, AcceptRequest, AccountStore, Clock, IdGenerator, IdempotencyBegin, IdempotencyClaim,
    IdempotencyHold, MediaCatalog, MediaInsert, MediaStore, MessageStore, OutboxJob, QuotaCharge,
    RateDecision, RateLimiter, StoreError, TemplateStore, WindowStore,
};
use crate::template::TemplateRef;
use crate::template::check::{TemplateCheckError, check_variables, expand_code_shorthand};
use crate::time::{BillingPeriod, Duration, Timestamp};
use crate::trace::{NoTraceLinks, TraceLinks, send_span};
use crate::values::{ClientReference, IdempotencyKey, PhoneNumber, RequestFingerprint};
use crate::window::free_form_allowed;
use std::sync::Arc;
use tracing::Instrument as _;

mod dry_run;
mod marketing;
mod recipient;
mod targets;

pub use dry_run::{DryRun, WindowState};

/// A send request whose fields passed their own rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SendDraft {
    /// A number, or a business-scoped user id (docs/api.md §4).
    pub to: Recipient,
    pub from: Option<PhoneNumber>,
    pub content: MessageContent,
    /// The message of the conversation this one replies to, as the client named it.
    pub reply_to: Option<MessageRef>,
    pub client_reference: Option<ClientReference>,
    /// When to send it (docs/api.md §4: `send_at`); `None` sends at once. Its range is checked by the use
    /// case, against its clock.
    pub send_at: Option<Timestamp>,
    /// The send path a marketing template asks for (`marketing_route`); `None` takes the default.
    pub marketing_route: Option<crate::marketing::MarketingRoute>,
    /// Meta's `message_activity_sharing` for the Marketing Messages API.
    pub activity_sharing: Option<bool>,
}

/// One send, as the HTTP adapter hands it over.
///
/// The field checks ran in the adapter, but their verdict (`draft`) is only looked at after the plan and
/// rate checks, so the order of checks is the documented one (docs/api.md §8) whatever is wrong with a request.
#[derive(Debug, Clone)]
pub struct SendCommand {
    pub organization: Organization,
    pub plan: Plan,
    /// The kind, known from the operation and `type` before the fields are validated.
    pub kind: MessageKind,
    pub draft: Result<SendDraft, ValidationErrors>,
    pub idempotency: Option<(IdempotencyKey, RequestFingerprint)>,
}

/// A successful send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SendOutcome {
    /// Stored and queued now.
    Accepted(Message),
    /// The same request was accepted before; this is its first response, and nothing was sent again.
    Replayed(Message),
}

/// Why a send was refused. Nothing was stored, counted or sent.
#[derive(Debug, thiserror::Error)]
pub enum SendError {
    #[error("the organization is not active")]
    AccountInactive,
    #[error("the plan does not allow {} messages", .0.as_str())]
    PlanForbids(MessageKind),
    #[error("send rate exceeded")]
    RateLimited { limit: u32, retry_after_seconds: u64 },
    #[error("validation failed: {0}")]
    Invalid(ValidationErrors),
    #[error("no template {} in {}", .0.name, .0.language)]
    TemplateNotFound(TemplateRef),
    #[error("the template is {0}, not APPROVED")]
    TemplateNotApproved(String),
    #[error("{0}")]
    TemplateMismatch(String),
    #[error("{0}")]
    HeaderMediaMismatch(String),
    /// The uploaded file is larger than the plan allows (`413 payload_too_large`).
    #[error("the file is larger than the plan's {limit} bytes")]
    FileTooLarge { limit: u64 },
    /// The organization's unexpired uploads and the request's file would pass the plan's media storage
    /// (`413 payload_too_large`).
    #[error("the organization's media storage is full")]
    StorageFull(super::media::StorageFull),
    #[error("the service window with {to} is closed")]
    WindowClosed { to: Recipient },
    /// The recipient is blocked, or stopped marketing messages (docs/api.md §7.1).
    #[error("{refusal}: {to}")]
    Recipient {
        refusal: crate::contact::RecipientRefusal,
        to: Recipient,
    },
    #[error("the monthly quota of {limit} messages is used up")]
    QuotaExceeded { limit: u64, retry_after_seconds: u64 },
    #[error("a request with this Idempotency-Key is still in flight")]
    IdempotencyConflict,
    #[error("this Idempotency-Key was used with a different request")]
    IdempotencyKeyReused,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Accepts a message for sending (docs/api.md §4, flow 1 of the architecture).
pub struct SendMessage {
    accounts: Arc<dyn AccountStore>,
    messages: Arc<dyn MessageStore>,
    templates: Arc<dyn TemplateStore>,
    windows: Arc<dyn WindowStore>,
    limiter: Arc<dyn RateLimiter>,
    catalog: Arc<dyn MediaCatalog>,
    files: Arc<dyn MediaStore>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
    traces: Arc<dyn TraceLinks>,
    recipients: RecipientChecks,
    settings: SendSettings,
}

/// Tunables of [`SendMessage`].
#[derive(Debug, Clone)]
pub struct SendSettings {
    /// How long a pending idempotency claim blocks retries before it counts as abandoned.
    pub idempotency_lock: Duration,
    /// How long a completed idempotency record answers replays.
    pub idempotency_retention: Duration,
    /// How long dispatch keeps retrying a message before it fails, counted from its `send_at` when it
    /// has one.
    pub dispatch_deadline: Duration,
    /// How far ahead `send_at` must be at least (1 minute; operators and tests may shorten it).
    pub schedule_min_lead: Duration,
    /// How far ahead `send_at` may be at most.
    pub schedule_max_lead: Duration,
}

impl SendSettings {
    /// `send_at` must lie between `schedule_min_lead` and `schedule_max_lead` from now (`422` on `send_at`).
    pub(super) fn check_send_at(
        &self,
        send_at: Option<Timestamp>,
        now: Timestamp,
    ) -> Result<(), ValidationErrors> {
        let Some(send_at) = send_at else {
            return Ok(());
        };
        let earliest = now + self.schedule_min_lead;
        let latest = now + self.schedule_max_lead;
        if send_at < earliest || send_at > latest {
            return Err(ValidationErrors::single(
                "send_at",
                format!(
                    "must be from {} s to {} days ahead (between {} and {})",
                    self.schedule_min_lead.num_seconds(),
                    self.schedule_max_lead.num_days(),
                    earliest.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                    latest.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                ),
            ));
        }
        Ok(())
    }
}

impl Default for SendSettings {
    fn default() -> Self {
        Self {
            idempotency_lock: Duration::seconds(60),
            idempotency_retention: Duration::hours(24),
            dispatch_deadline: Duration::hours(24),
            schedule_min_lead: Duration::seconds(60),
            schedule_max_lead: Duration::days(35),
        }
    }
}

/// The ports [`SendMessage`] drives.
pub struct SendPorts {
    pub accounts: Arc<dyn AccountStore>,
    pub messages: Arc<dyn MessageStore>,
    pub templates: Arc<dyn TemplateStore>,
    pub windows: Arc<dyn WindowStore>,
    pub limiter: Arc<dyn RateLimiter>,
    /// Uploaded files' metadata: `media_id` references are checked against it.
    pub catalog: Arc<dyn MediaCatalog>,
    /// Uploaded files' bytes: a multipart send's file is committed here when the message is accepted.
    pub files: Arc<dyn MediaStore>,
    pub clock: Arc<dyn Clock>,
    pub ids: Arc<dyn IdGenerator>,
}

impl SendMessage {
    pub fn new(ports: SendPorts, settings: SendSettings) -> Self {
        Self {
            accounts: ports.accounts,
            messages: ports.messages,
            templates: ports.templates,
            windows: ports.windows,
            limiter: ports.limiter,
            catalog: ports.catalog,
            files: ports.files,
            clock: ports.clock,
            ids: ports.ids,
            traces: Arc::new(NoTraceLinks),
            recipients: RecipientChecks::allow_all(),
            settings,
        }
    }

    /// Keeps the accepting request's trace with each message, so its dispatch, callbacks and webhook
    /// deliveries join that trace (off by default).
    #[must_use]
    pub fn with_trace_links(mut self, traces: Arc<dyn TraceLinks>) -> Self {
        self.traces = traces;
        self
    }

    /// Refuses sends to blocked recipients, and marketing templates to recipients who stopped them (off
    /// until set: the checks then refuse nothing).
    #[must_use]
    pub fn with_recipient_checks(mut self, recipients: RecipientChecks) -> Self {
        self.recipients = recipients;
        self
    }

    /// Runs the checks in the documented order and accepts the message, or refuses it having stored
    /// nothing.
    ///
    /// # Errors
    /// See [`SendError`].
    pub async fn execute(&self, command: SendCommand) -> Result<SendOutcome, SendError> {
        self.execute_with_upload(command, None).await
    }

    /// [`SendMessage::execute`] for a send that carries its file (multipart): the draft names it as
    /// [`MediaSource::Upload`]. The file is stored only if the message is accepted; on any refusal it is
    /// removed, and no media row is left behind.
    ///
    /// # Errors
    /// See [`SendError`].
    pub async fn execute_with_upload(
        &self,
        command: SendCommand,
        upload: Option<StagedFile>,
    ) -> Result<SendOutcome, SendError> {
        let span = send_span(
            self.traces.as_ref(),
            || tracing::info_span!("send_message", org = %command.organization.id, kind = command.kind.as_str()),
        );
        self.accept(command, upload).instrument(span).await
    }

    async fn accept(
        &self,
        command: SendCommand,
        upload: Option<StagedFile>,
    ) -> Result<SendOutcome, SendError> {
        if !command.organization.status.is_active() {
            return Err(SendError::AccountInactive);
        }
        let now = self.clock.now();
        let org = command.organization.id;
        let idempotency_key = match &command.idempotency {
            None => None,
            Some((key, fingerprint)) => {
                let claim = IdempotencyClaim {
                    organization_id: org,
                    key: key.clone(),
                    token: ClaimToken(self.ids.next_ulid()),
                    fingerprint: *fingerprint,
                    now,
                    lock_until: now - self.settings.idempotency_lock,
                    completed_after: now - self.settings.idempotency_retention,
                };
                match self.messages.begin_idempotent(&claim).await? {
                    IdempotencyBegin::Started => Some(claim.hold()),
                    IdempotencyBegin::Completed {
                        fingerprint: stored,
                        message_id,
                    } => {
                        return self.replay(&command, *fingerprint, stored, message_id).await;
                    }
                    IdempotencyBegin::InFlight { fingerprint: stored } => {
                        return Err(if stored == *fingerprint {
                            SendError::IdempotencyConflict
                        } else {
                            SendError::IdempotencyKeyReused
                        });
                    }
                }
            }
        };
        let result = self
            .check_and_accept(command, upload, now, idempotency_key.clone())
            .await;
        if result.is_err()
            && let Some(hold) = idempotency_key
        {
            // The refusal must leave nothing behind, the claim included. If this fails the claim expires
            // on its own after `idempotency_lock`.
            if let Err(error) = self.messages.release_idempotent(&org, &hold).await {
                tracing::warn!(%error, "could not release an idempotency claim; it expires on its own");
            }
        }
        result
    }

    async fn replay(
        &self,
        command: &SendCommand,
        fingerprint: RequestFingerprint,
        stored: RequestFingerprint,
        message_id: MessageId,
    ) -> Result<SendOutcome, SendError> {
        if stored != fingerprint {
            return Err(SendError::IdempotencyKeyReused);
        }
        let message = self
            .messages
            .message(&command.organization.id, &message_id)
            .await?
            .ok_or_else(|| {
                StoreError::Unknown(anyhow::anyhow!("idempotency record points at a missing message"))
            })?;
        Ok(SendOutcome::Replayed(message.as_accepted()))
    }

    async fn check_and_accept(
        &self,
        command: SendCommand,
        upload: Option<StagedFile>,
        now: Timestamp,
        idempotency_key: Option<IdempotencyHold>,
    ) -> Result<SendOutcome, SendError> {
        let SendCommand {
            organization,
            plan,
            kind,
            draft,
            ..
        } = command;
        if !plan.allows(kind) {
            return Err(SendError::PlanForbids(kind));
        }
        if let RateDecision::Limited {
            limit,
            retry_after_seconds,
        } = self.limiter.check(&organization.id, &plan, 1).await?
        {
            return Err(SendError::RateLimited {
                limit,
                retry_after_seconds: retry_after_seconds.max(1),
            });
        }
        let mut draft = draft.map_err(SendError::Invalid)?;
        self.settings
            .check_send_at(draft.send_at, now)
            .map_err(SendError::Invalid)?;
        // The adapter named the kind before validating; a draft of another kind must pass the plan too.
        let actual = draft.content.kind();
        if actual != kind && !plan.allows(actual) {
            return Err(SendError::PlanForbids(actual));
        }
        let senders = self.accounts.senders(&organization.id).await?;
        let sender = choose_sender(&senders, draft.from.as_ref()).ok_or_else(|| {
            SendError::Invalid(ValidationErrors::single(
                "from",
                match &draft.from {
                    Some(number) => format!("{number} is not a sender number of this organization"),
                    None => "the organization has no default sender number; name one in `from`".to_owned(),
                },
            ))
        })?;
        let reply_to = self.resolve_targets(&organization, sender, &mut draft).await?;
        self.resolve_stored_media(&organization, &mut draft.content, now)
            .await?;
        let upload = self.place_upload(&organization, &plan, &mut draft.content, upload, now)?;
        draft
            .content
            .file_field_errors()
            .finish(())
            .map_err(SendError::Invalid)?;
        let purpose = self.check_content(&organization, sender, &mut draft, now).await?;
        let marketing =
            marketing::marketing_send(purpose, &draft, crate::marketing::MarketingRoute::default())?;
        // The recipient's own refusals (blocked, stopped marketing) are checked by the accept's transaction,
        // for a whole batch of accepts at once, rather than by a read of each send's own.
        let upload = match upload {
            Some((file, staged)) => Some(self.store_upload(&plan, file, staged).await?),
            None => None,
        };

        let mut message = Message::accepted(
            new_id(self.ids.as_ref(), MessageId::from_ulid),
            organization.id,
            (sender.id, sender.number.clone()),
            draft.to,
            draft.content,
            draft.client_reference,
            now,
        );
        message.reply_to = reply_to;
        message.marketing = marketing;
        if let Some(send_at) = draft.send_at {
            message = message.scheduled_for(send_at);
        }
        // A scheduled message is due at its `send_at`, and its retries run their full time from then.
        let due = draft.send_at.unwrap_or(now);
        let mut request = AcceptRequest {
            customer_event: None,
            event: StatusEvent {
                id: new_id(self.ids.as_ref(), EventId::from_ulid),
                organization_id: organization.id,
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
                id: new_id(self.ids.as_ref(), JobId::from_ulid),
                organization_id: organization.id,
                message_id: message.id,
                sender_id: sender.id,
                available_at: due,
                deadline: due + self.settings.dispatch_deadline,
                trace: self.traces.current(),
            },
            quota: QuotaCharge {
                period: BillingPeriod::containing(now),
                limit: plan.monthly_quota,
            },
            idempotency: idempotency_key,
            recipient_check: self.recipients.enabled().then_some(purpose),
            message,
        };
        // A scheduled message tells the customer it is waiting; an immediate one's first event is `submitted`.
        if request.message.status == MessageStatus::Scheduled {
            request.customer_event = crate::customer_event::scheduled(
                new_id(self.ids.as_ref(), EventId::from_ulid),
                &request.message,
            );
        }
        // A store error leaves a stored upload in place: the accept may have committed before the error
        // (a connection lost during COMMIT), and deleting the file would then fail an accepted message.
        // An upload no message uses expires like any other (30 days) and the cleanup job removes it.
        match self.messages.accept(&request).await? {
            AcceptOutcome::Accepted => Ok(SendOutcome::Accepted(request.message)),
            AcceptOutcome::QuotaExceeded => {
                if let Some(file) = &upload {
                    self.forget_upload(file).await;
                }
                Err(SendError::QuotaExceeded {
                    limit: plan.monthly_quota.unwrap_or_default(),
                    retry_after_seconds: seconds_until_period_end(now),
                })
            }
            // This request outlived its claim and a retry holds the key now: that one decides the outcome,
            // as for any request that finds the key in flight.
            AcceptOutcome::IdempotencyClaimLost => {
                if let Some(file) = &upload {
                    self.forget_upload(file).await;
                }
                Err(SendError::IdempotencyConflict)
            }
            AcceptOutcome::RecipientRefused(refusal) => {
                if let Some(file) = &upload {
                    self.forget_upload(file).await;
                }
                Err(SendError::Recipient {
                    refusal,
                    to: request.message.to,
                })
            }
        }
    }

    /// Checks every `media_id` reference (JSON sends) against the organization's uploads
    /// ([`resolve_stored_media`]).
    async fn resolve_stored_media(
        &self,
        organization: &Organization,
        content: &mut MessageContent,
        now: Timestamp,
    ) -> Result<(), SendError> {
        resolve_stored_media(self.catalog.as_ref(), organization, content, now).await
    }

    /// Gives the request's file (multipart) its media id and puts it where the draft says
    /// [`MediaSource::Upload`]. Nothing is written yet.
    fn place_upload(
        &self,
        organization: &Organization,
        plan: &Plan,
        content: &mut MessageContent,
        upload: Option<StagedFile>,
        now: Timestamp,
    ) -> Result<Option<(MediaFile, StagedFile)>, SendError> {
        let attachment = content
            .attachment_mut()
            .filter(|(_, media)| media.source == MediaSource::Upload);
        let (Some((_, media)), Some(staged)) = (attachment, upload) else {
            if content
                .attachment()
                .is_some_and(|(_, media)| media.source == MediaSource::Upload)
            {
                return Err(SendError::Invalid(ValidationErrors::single(
                    "file",
                    "a file is required",
                )));
            }
            return Ok(None);
        };
        if staged.content().size > plan.max_file_bytes {
            return Err(SendError::FileTooLarge {
                limit: plan.max_file_bytes,
            });
        }
        let id = new_id(self.ids.as_ref(), MediaId::from_ulid);
        let file = MediaFile::new(
            id,
            organization.id,
            staged.content().clone(),
            media.filename.clone(),
            now,
        );
        media.kind = file.kind;
        media.source = MediaSource::Stored(id);
        Ok(Some((file, staged)))
    }

    /// Commits the request's file and records it, just before the message is accepted.
    async fn store_upload(
        &self,
        plan: &Plan,
        file: MediaFile,
        staged: StagedFile,
    ) -> Result<MediaFile, SendError> {
        self.files
            .commit(staged)
            .await
            .map_err(|error| StoreError::Unavailable(error.to_string()))?;
        match self.catalog.insert_media(&file, plan.media_storage_bytes).await {
            Ok(MediaInsert::Stored) => Ok(file),
            Ok(MediaInsert::StorageFull { used }) => {
                self.forget_upload(&file).await;
                Err(SendError::StorageFull(super::media::StorageFull::of(
                    plan, used, &file,
                )))
            }
            Err(error) => {
                self.forget_upload(&file).await;
                Err(error.into())
            }
        }
    }

    /// Undoes [`SendMessage::store_upload`] for a refused message: the row goes, and the bytes too unless
    /// another upload shares them. Best effort: what is left behind expires with the cleanup job.
    async fn forget_upload(&self, file: &MediaFile) {
        forget_upload(self.catalog.as_ref(), self.files.as_ref(), file).await;
    }

    /// Template and window checks: the ones that need the store. Answers what the send is for, which the
    /// recipient checks need.
    async fn check_content(
        &self,
        organization: &Organization,
        sender: &SenderNumber,
        draft: &mut SendDraft,
        now: Timestamp,
    ) -> Result<SendPurpose, SendError> {
        match &mut draft.content {
            MessageContent::Template {
                template: reference,
                variables,
            } => {
                let template = self
                    .templates
                    .template(
                        &organization.id,
                        &sender.waba_id,
                        &reference.name,
                        &reference.language,
                    )
                    .await?
                    .ok_or_else(|| SendError::TemplateNotFound(reference.clone()))?;
                expand_code_shorthand(&template, variables);
                check_variables(&template, variables).map_err(|error| match error {
                    TemplateCheckError::NotApproved(status) => SendError::TemplateNotApproved(status),
                    TemplateCheckError::Mismatch(detail) => SendError::TemplateMismatch(detail),
                    mismatch @ TemplateCheckError::HeaderMediaMismatch { .. } => {
                        SendError::HeaderMediaMismatch(mismatch.to_string())
                    }
                })?;
                Ok(SendPurpose::of_template_category(&template.category))
            }
            _ => {
                let window = self.window_with(organization, sender, &draft.to).await?;
                if free_form_allowed(window.as_ref(), now) {
                    Ok(SendPurpose::Other)
                } else {
                    Err(SendError::WindowClosed { to: draft.to.clone() })
                }
            }
        }
    }
}

impl SendMessage {
    /// The service window of `sender` with `to`: windows are kept by number, so a user id's is its paired
    /// number's (docs/api.md §4); a user id no contact pairs with a number has the window its own messages
    /// opened (a user who writes without a number), if any.
    async fn window_with(
        &self,
        organization: &Organization,
        sender: &SenderNumber,
        to: &Recipient,
    ) -> Result<Option<crate::window::ServiceWindow>, SendError> {
        let key = self
            .recipients
            .linked_number(&organization.id, to)
            .await?
            .map_or_else(|| to.clone(), Recipient::Number);
        Ok(self.windows.window(&organization.id, &sender.id, &key).await?)
    }
}

/// Whole seconds until the quota period ends, rounded up, so a client honouring `Retry-After` never comes
/// back while the old period still counts.
pub(super) fn seconds_until_period_end(now: Timestamp) -> u64 {
    let remaining = BillingPeriod::end_after(now) - now;
    let whole = remaining.num_seconds();
    let rounded = if remaining > Duration::seconds(whole) {
        whole + 1
    } else {
        whole
    };
    u64::try_from(rounded).unwrap_or(1).max(1)
}

/// Checks every `media_id` reference (JSON sends, broadcasts) against the organization's uploads. A media message
/// takes its kind (and, for a document, its default file name) from the stored file; a template
/// header's or card's declared kind must be the file's.
pub(super) async fn resolve_stored_media(
    catalog: &dyn MediaCatalog,
    organization: &Organization,
    content: &mut MessageContent,
    now: Timestamp,
) -> Result<(), SendError> {
    for (role, media) in content.attachments_mut() {
        let MediaSource::Stored(id) = media.source else {
            continue;
        };
        let upload = match catalog.media(&organization.id, &id).await? {
            Some(MediaRecord::Uploaded(file)) => Some(file),
            _ => None,
        };
        resolve_upload(role, media, upload, now)?;
    }
    Ok(())
}

/// [`resolve_stored_media`] with the organization's uploads already read: a broadcast reads every row's at
/// once ([`MediaCatalog::uploads`]) instead of once per row.
pub(super) fn resolve_read_media(
    uploads: &std::collections::HashMap<MediaId, MediaFile>,
    content: &mut MessageContent,
    now: Timestamp,
) -> Result<(), SendError> {
    for (role, media) in content.attachments_mut() {
        let MediaSource::Stored(id) = media.source else {
            continue;
        };
        resolve_upload(role, media, uploads.get(&id).cloned(), now)?;
    }
    Ok(())
}

/// The stored media ids `content` names.
pub(super) fn stored_media_ids(content: &MessageContent) -> Vec<MediaId> {
    content
        .attachments()
        .into_iter()
        .filter_map(|(_, media)| match media.source {
            MediaSource::Stored(id) => Some(id),
            _ => None,
        })
        .collect()
}

/// One stored-media reference checked against the organization's upload of that id (`None`: no such
/// upload, or not an upload).
fn resolve_upload(
    role: AttachmentRole,
    media: &mut crate::attachment::MediaAttachment,
    upload: Option<MediaFile>,
    now: Timestamp,
) -> Result<(), SendError> {
    let MediaSource::Stored(id) = media.source else {
        return Ok(());
    };
    let file = match upload {
        Some(file) if !file.is_expired(now) => file,
        _ => {
            let field = match role {
                AttachmentRole::InteractiveHeader => format!("header.{}.media_id", media.kind.as_str()),
                _ => role.media_id_field(),
            };
            return Err(SendError::Invalid(ValidationErrors::single(
                field,
                format!("{id} is not an upload of this organization, or it expired (uploads last 30 days)"),
            )));
        }
    };
    match role {
        AttachmentRole::Message => {
            media.kind = file.kind;
            if media.filename.is_none() && file.kind == crate::attachment::MediaKind::Document {
                media.filename = file.filename;
            }
        }
        AttachmentRole::TemplateHeader
        | AttachmentRole::InteractiveHeader
        | AttachmentRole::TemplateCard(_)
            if media.kind != file.kind =>
        {
            let part = match role {
                AttachmentRole::TemplateCard(index) => format!("card {index}'s header"),
                _ => "the header".to_owned(),
            };
            return Err(SendError::HeaderMediaMismatch(format!(
                "{part} declares {} but {id} is {} ({})",
                media.kind.as_str(),
                file.kind.as_str(),
                file.mime_type
            )));
        }
        AttachmentRole::TemplateHeader
        | AttachmentRole::InteractiveHeader
        | AttachmentRole::TemplateCard(_) => {
            if media.filename.is_none() && file.kind == crate::attachment::MediaKind::Document {
                media.filename = file.filename;
            }
        }
    }
    Ok(())
}

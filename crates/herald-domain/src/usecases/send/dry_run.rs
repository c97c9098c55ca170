//! The dry run of a send (`?dry_run=true`, docs/api.md §4): every check [`SendMessage`] makes, in the
//! order it makes them, run with the same methods, but nothing is stored, counted, spent or sent.
//!
//! A real send stops at its first refusal; a dry run goes on wherever the next check can still be judged,
//! so the client learns every refusal it would meet, in the order it would meet them, fixing one after the
//! other. A check that needs what a refused one would give (the fields, the sender) ends the run there.
//! What differs from a real send, and why:
//! - the rate limit is peeked ([`crate::ports::RateLimiter::peek`]): a dry run must not spend a send;
//! - the quota is read ([`crate::ports::MessageStore::usage`]), not taken in the accept transaction, so a
//!   dry run near the limit can pass and the real send, racing others, still be refused;
//! - the `Idempotency-Key` is not looked at: a dry run neither claims a key nor replays one;
//! - a multipart file is checked against the plan's largest file and the organization's media storage (the
//!   bytes its unexpired uploads hold, read, plus the file's), but never stored: a real send racing other
//!   uploads may still find the storage full.

use super::{SendCommand, SendError, SendMessage};
use crate::contact::SendPurpose;
use crate::error::ValidationErrors;
use crate::media::StagedFile;
use crate::message::MessageContent;
use crate::organization::{SenderNumber, choose_sender};
use crate::ports::RateDecision;
use crate::pricing::{ExpectedPricing, SendMoment};
use crate::time::{BillingPeriod, Timestamp};
use crate::trace::send_span;
use crate::window::ServiceWindow;
use tracing::Instrument as _;

/// The service window with the recipient, as a dry run found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowState {
    pub open: bool,
    pub last_inbound_at: Option<Timestamp>,
    /// When it closes (or closed).
    pub expires_at: Option<Timestamp>,
}

impl WindowState {
    fn of(window: Option<&ServiceWindow>, now: Timestamp) -> Self {
        Self {
            open: window.is_some_and(|w| w.is_open_at(now)),
            last_inbound_at: window.map(|w| w.last_inbound_at),
            expires_at: window.map(ServiceWindow::expires_at),
        }
    }
}

/// What a send would meet.
#[derive(Debug)]
pub struct DryRun {
    /// The refusals, in the order the real send would meet them; empty: it would be accepted.
    pub refusals: Vec<SendError>,
    /// The window with the recipient, once the sender and the recipient are known.
    pub window: Option<WindowState>,
    /// The category the message would be billed in, once known (a template's needs the template).
    pub pricing: Option<ExpectedPricing>,
    /// The send path a marketing template would ask for; `None` for any other message (the Cloud API).
    pub marketing_route: Option<crate::marketing::MarketingRoute>,
}

impl DryRun {
    pub fn would_accept(&self) -> bool {
        self.refusals.is_empty()
    }
}

impl SendMessage {
    /// Runs every check of [`SendMessage::execute_with_upload`] on `command` and reports what the send
    /// would meet. `upload` (a multipart send's file) is dropped, never stored.
    ///
    /// # Errors
    /// Only a store failure: what a real send would be refused for is in [`DryRun::refusals`].
    pub async fn dry_run(
        &self,
        command: SendCommand,
        upload: Option<StagedFile>,
    ) -> Result<DryRun, SendError> {
        let span = send_span(
            self.traces.as_ref(),
            || tracing::info_span!("dry_run_send", org = %command.organization.id, kind = command.kind.as_str()),
        );
        self.check_dry(command, upload).instrument(span).await
    }

    async fn check_dry(&self, command: SendCommand, upload: Option<StagedFile>) -> Result<DryRun, SendError> {
        let now = self.clock.now();
        let SendCommand {
            organization,
            plan,
            kind,
            draft,
            ..
        } = command;
        let mut run = DryRun {
            refusals: Vec::new(),
            window: None,
            pricing: None,
            marketing_route: None,
        };
        if !organization.status.is_active() {
            run.refusals.push(SendError::AccountInactive);
        }
        if !plan.allows(kind) {
            run.refusals.push(SendError::PlanForbids(kind));
        }
        if let RateDecision::Limited {
            limit,
            retry_after_seconds,
        } = self.limiter.peek(&organization.id, &plan, 1).await?
        {
            run.refusals.push(SendError::RateLimited {
                limit,
                retry_after_seconds: retry_after_seconds.max(1),
            });
        }
        let mut draft = match draft {
            Ok(draft) => draft,
            Err(errors) => {
                run.refusals.push(SendError::Invalid(errors));
                return Ok(run);
            }
        };
        let actual = draft.content.kind();
        if actual != kind && !plan.allows(actual) {
            run.refusals.push(SendError::PlanForbids(actual));
        }
        let senders = self.accounts.senders(&organization.id).await?;
        let Some(sender) = choose_sender(&senders, draft.from.as_ref()) else {
            run.refusals.push(SendError::Invalid(ValidationErrors::single(
                "from",
                match &draft.from {
                    Some(number) => format!("{number} is not a sender number of this organization"),
                    None => "the organization has no default sender number; name one in `from`".to_owned(),
                },
            )));
            return Ok(run);
        };
        let window = self.window_with(&organization, sender, &draft.to).await?;
        let window = WindowState::of(window.as_ref(), now);
        run.pricing = self
            .expected_pricing(&organization.id, sender, &draft.content, &window, now)
            .await?;
        run.window = Some(window);
        if let Err(refusal) = self.resolve_targets(&organization, sender, &mut draft).await {
            push_refusal(&mut run, refusal)?;
        }
        if let Err(refusal) = self
            .resolve_stored_media(&organization, &mut draft.content, now)
            .await
        {
            push_refusal(&mut run, refusal)?;
        }
        // The staged file is dropped at the end of this call, which removes it: nothing is stored.
        let placed = match self.place_upload(&organization, &plan, &mut draft.content, upload, now) {
            Ok(placed) => placed.map(|(file, _staged)| file),
            Err(refusal) => {
                push_refusal(&mut run, refusal)?;
                None
            }
        };
        if let Err(errors) = draft.content.file_field_errors().finish(()) {
            run.refusals.push(SendError::Invalid(errors));
        }
        let checked = self.check_content(&organization, sender, &mut draft, now).await;
        // The route is judged only once the content passed: a template that failed has no known category.
        if let Ok(purpose) = &checked {
            match super::marketing::marketing_send(
                *purpose,
                &draft,
                crate::marketing::MarketingRoute::default(),
            ) {
                Ok(marketing) => run.marketing_route = marketing.map(|m| m.route),
                Err(refusal) => push_refusal(&mut run, refusal)?,
            }
        }
        let purpose = match checked {
            Ok(purpose) => purpose,
            Err(refusal) => {
                push_refusal(&mut run, refusal)?;
                // Whether it is marketing is known only from a template that passed: a block still
                // refuses any send, an opt-out only the marketing one a real send would then be.
                SendPurpose::Other
            }
        };
        // Where the real send stores its file: before its accept, whose transaction checks the recipient
        // and then takes the quota.
        if let (Some(file), Some(limit)) = (&placed, plan.media_storage_bytes) {
            let used = self
                .catalog
                .storage_used(&organization.id, file.created_at)
                .await?;
            if used.saturating_add(file.size) > limit {
                run.refusals
                    .push(SendError::StorageFull(super::super::media::StorageFull::of(
                        &plan, used, file,
                    )));
            }
        }
        for refusal in self.recipient_refusals(&organization, &draft, purpose).await? {
            push_refusal(&mut run, refusal)?;
        }
        if let Some(limit) = plan.monthly_quota {
            let used = self
                .messages
                .usage(&organization.id, &BillingPeriod::containing(now))
                .await?;
            if used >= limit {
                run.refusals.push(SendError::QuotaExceeded {
                    limit,
                    retry_after_seconds: super::seconds_until_period_end(now),
                });
            }
        }
        Ok(run)
    }

    /// The category a send would be billed in, and whether, by Meta's rules in force `now`
    /// ([`ExpectedPricing::for_content`]): a template's category from Herald's copy of it (none when the
    /// template is unknown; the refusal says so), `service` for everything else. Herald keeps no
    /// free entry-point window, so none counts as open; the network's report says `free_entry_point`.
    async fn expected_pricing(
        &self,
        organization: &crate::ids::OrganizationId,
        sender: &SenderNumber,
        content: &MessageContent,
        window: &WindowState,
        now: Timestamp,
    ) -> Result<Option<ExpectedPricing>, SendError> {
        let category = match content {
            MessageContent::Template { template, .. } => self
                .templates
                .template(organization, &sender.waba_id, &template.name, &template.language)
                .await?
                .map(|t| t.category.clone()),
            _ => None,
        };
        let moment = SendMoment {
            at: now,
            service_window_open: window.open,
            entry_point_open: false,
        };
        Ok(ExpectedPricing::for_content(
            content,
            category.as_deref(),
            &moment,
        ))
    }
}

/// Keeps a refusal; a store failure is no refusal and ends the dry run as it would the send.
fn push_refusal(run: &mut DryRun, refusal: SendError) -> Result<(), SendError> {
    match refusal {
        SendError::Store(error) => Err(SendError::Store(error)),
        refusal => {
            run.refusals.push(refusal);
            Ok(())
        }
    }
}

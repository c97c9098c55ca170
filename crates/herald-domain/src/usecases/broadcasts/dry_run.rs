//! The dry run of a broadcast (`POST /api/v1/broadcasts?dry_run=true`, docs/api.md §4.10): every check
//! [`Broadcasts::create`] makes, every row judged as it would judge it, but nothing is stored, counted or
//! sent.
//!
//! As a send's dry run (`super::super::send::DryRun`), it goes on past a refusal wherever the next check
//! can still be judged, and differs from the real create only where judging would spend something:
//! - the send rate is peeked ([`crate::ports::RateLimiter::peek`]), not spent;
//! - the quota is read ([`crate::ports::MessageStore::usage`]), not taken: a dry run near the limit can pass
//!   and the real create, racing other sends, still be refused;
//! - the `Idempotency-Key` is not looked at (its format still is): a dry run neither claims nor replays one.

use super::{BroadcastCommand, BroadcastError, Broadcasts, RejectedRow};
use crate::error::ValidationErrors;
use crate::organization::{MessageKind, choose_sender};
use crate::ports::RateDecision;
use crate::pricing::{ExpectedPricing, PricingWord, SendMoment};
use crate::time::BillingPeriod;

/// What a broadcast would meet.
#[derive(Debug, Default)]
pub struct BroadcastDryRun {
    /// The refusals of the whole broadcast, in the order the real create would meet them; empty: it would
    /// be accepted.
    pub refusals: Vec<BroadcastError>,
    /// The rows that would be accepted (each would be one message), once the rows could be judged.
    pub accepted: u32,
    /// The rows that would be left out, with why, by index.
    pub rejected: Vec<RejectedRow>,
    /// The category each message would be billed in, once the template is known.
    pub pricing: Option<ExpectedPricing>,
}

impl BroadcastDryRun {
    pub fn would_accept(&self) -> bool {
        self.refusals.is_empty()
    }
}

impl Broadcasts {
    /// Runs every check of [`Broadcasts::create`] on `command` and reports what the broadcast would meet.
    ///
    /// # Errors
    /// Only a store failure: what the real create would be refused for is in
    /// [`BroadcastDryRun::refusals`].
    #[tracing::instrument(name = "dry_run_broadcast", skip_all, fields(org = %command.organization.id))]
    pub async fn dry_run(&self, command: BroadcastCommand) -> Result<BroadcastDryRun, BroadcastError> {
        let BroadcastCommand {
            organization,
            plan,
            draft,
            ..
        } = command;
        let mut run = BroadcastDryRun::default();
        if !organization.status.is_active() {
            run.refusals.push(BroadcastError::AccountInactive);
        }
        if !plan.allows(MessageKind::Template) {
            run.refusals.push(BroadcastError::PlanForbids);
        }
        if let RateDecision::Limited {
            limit,
            retry_after_seconds,
        } = self.ports.limiter.peek(&organization.id, &plan, 1).await?
        {
            run.refusals.push(BroadcastError::RateLimited {
                limit,
                retry_after_seconds: retry_after_seconds.max(1),
            });
        }
        let draft = match draft {
            Ok(draft) => draft,
            Err(errors) => {
                run.refusals.push(invalid(errors));
                return Ok(run);
            }
        };
        let now = self.ports.clock.now();
        if let Err(errors) = self.send.check_send_at(draft.send_at, now) {
            run.refusals.push(invalid(errors));
        }
        let senders = self.ports.accounts.senders(&organization.id).await?;
        let Some(sender) = choose_sender(&senders, draft.from.as_ref()) else {
            run.refusals.push(invalid(ValidationErrors::single(
                "from",
                match &draft.from {
                    Some(number) => format!("{number} is not a sender number of this organization"),
                    None => "the organization has no default sender number; name one in `from`".to_owned(),
                },
            )));
            return Ok(run);
        };
        let Some(template) = self
            .ports
            .templates
            .template(
                &organization.id,
                &sender.waba_id,
                &draft.template.name,
                &draft.template.language,
            )
            .await?
        else {
            // Rows are judged against the template: without it there is nothing more to judge.
            run.refusals
                .push(BroadcastError::TemplateNotFound(draft.template.clone()));
            return Ok(run);
        };
        // By the rules in force when the broadcast would go; its rows' windows are not looked up, so
        // each is priced as outside them (what a template to a number that has not written is).
        let moment = SendMoment {
            at: draft.send_at.unwrap_or(now),
            service_window_open: false,
            entry_point_open: false,
        };
        run.pricing = PricingWord::parse(&template.category)
            .ok()
            .and_then(|category| ExpectedPricing::for_category(category, &moment));
        if !template.status.is_approved() {
            // Every row's variables are checked against an approved template only: none can be judged.
            run.refusals.push(BroadcastError::TemplateNotApproved(
                template.status.as_str().to_owned(),
            ));
            return Ok(run);
        }
        let header = match self
            .shared_header(&organization, &draft.template, draft.header.clone(), now)
            .await
        {
            Ok(header) => header,
            Err(BroadcastError::Store(error)) => return Err(BroadcastError::Store(error)),
            // Every row without a header of its own takes the shared one: none can be judged without it.
            Err(refusal) => {
                run.refusals.push(refusal);
                return Ok(run);
            }
        };
        let (valid, rejected) = self
            .check_rows(&organization, &template, header, draft.recipients, now)
            .await?;
        run.accepted = u32::try_from(valid.len()).unwrap_or(u32::MAX);
        run.rejected = rejected;
        if valid.is_empty() {
            run.refusals.push(invalid(ValidationErrors::single(
                "recipients",
                "no recipient row is valid",
            )));
            return Ok(run);
        }
        if let Some(limit) = plan.monthly_quota {
            let used = self
                .ports
                .messages
                .usage(&organization.id, &BillingPeriod::containing(now))
                .await?;
            let remaining = limit.saturating_sub(used);
            let needed = u64::from(run.accepted);
            if remaining < needed {
                run.refusals.push(BroadcastError::QuotaExceeded {
                    limit,
                    needed,
                    remaining,
                    retry_after_seconds: super::super::send::seconds_until_period_end(now),
                });
            }
        }
        Ok(run)
    }
}

/// A refusal of the shared fields (the rows are listed beside the refusals, not in them).
fn invalid(errors: ValidationErrors) -> BroadcastError {
    BroadcastError::Invalid {
        errors,
        rejected: Vec::new(),
    }
}

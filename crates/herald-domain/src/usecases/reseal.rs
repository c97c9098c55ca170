//! `herald admin reseal`: rewrites every stored secret still sealed in the legacy form (bound to no row) in
//! the current form, bound to its row and purpose.

use crate::ids::{OrganizationId, SenderId, WebhookId};
use crate::organization::SealedSecret;
use crate::ports::{AccountStore, SealContext, SealError, SecretSealer, StoreError, WebhookStore};
use crate::webhook::SecretSlot;
use std::sync::Arc;

/// What one reseal run did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResealReport {
    /// Sender access tokens rewritten in the current form.
    pub sender_tokens: usize,
    /// Webhook secrets (current or previous) rewritten in the current form.
    pub webhook_secrets: usize,
    /// Values already in the current form, left as they are.
    pub already_current: usize,
    /// Legacy values that changed between the read and the write (a rotation meanwhile), left as the
    /// change made them.
    pub changed_meanwhile: usize,
    /// Values that do not open with this key for their row, left as they are: one line each naming the
    /// row and why (never the value).
    pub cannot_open: Vec<String>,
}

/// See the module docs.
pub struct Reseal {
    accounts: Arc<dyn AccountStore>,
    webhooks: Arc<dyn WebhookStore>,
    sealer: Arc<dyn SecretSealer>,
}

enum Outcome {
    Resealed,
    Current,
    ChangedMeanwhile,
    CannotOpen(SealError),
}

impl Reseal {
    pub fn new(
        accounts: Arc<dyn AccountStore>,
        webhooks: Arc<dyn WebhookStore>,
        sealer: Arc<dyn SecretSealer>,
    ) -> Self {
        Self {
            accounts,
            webhooks,
            sealer,
        }
    }

    /// Goes through every organization's senders and webhook endpoints. A value that does not open is
    /// reported and the run goes on; each write is a compare and set, so a value changed meanwhile (a
    /// rotation) is never overwritten. Running it again finds nothing left to do.
    ///
    /// # Errors
    /// A store failure, which stops the run; what was resealed before it stays resealed.
    pub async fn run(&self) -> Result<ResealReport, StoreError> {
        let mut report = ResealReport::default();
        for organization in self.accounts.organizations().await? {
            let org = organization.id;
            for sender in self.accounts.senders(&org).await?.iter() {
                let Some(sealed) = &sender.sealed_access_token else {
                    continue;
                };
                let outcome = self.reseal_sender(&org, &sender.id, sealed).await?;
                count(&mut report, outcome, Kind::Sender, || {
                    format!(
                        "the access token of sender {} ({}) of {org}",
                        sender.id, sender.number
                    )
                });
            }
            for endpoint in self.webhooks.endpoints(&org).await? {
                let slots = std::iter::once((SecretSlot::Current, &endpoint.secret))
                    .chain(endpoint.previous_secret.iter().map(|p| (SecretSlot::Previous, p)));
                for (slot, sealed) in slots {
                    let outcome = self.reseal_endpoint(&org, &endpoint.id, slot, sealed).await?;
                    count(&mut report, outcome, Kind::Webhook, || {
                        let which = match slot {
                            SecretSlot::Current => "current",
                            SecretSlot::Previous => "previous",
                        };
                        format!("the {which} secret of webhook endpoint {} of {org}", endpoint.id)
                    });
                }
            }
        }
        Ok(report)
    }

    async fn reseal_sender(
        &self,
        org: &OrganizationId,
        id: &SenderId,
        sealed: &SealedSecret,
    ) -> Result<Outcome, StoreError> {
        let context = SealContext::sender(id);
        let Some(resealed) = (match self.resealed(&context, sealed) {
            Ok(resealed) => resealed,
            Err(error) => return Ok(Outcome::CannotOpen(error)),
        }) else {
            return Ok(Outcome::Current);
        };
        let replaced = self
            .accounts
            .replace_sealed_access_token(org, id, sealed, &resealed)
            .await?;
        Ok(if replaced {
            Outcome::Resealed
        } else {
            Outcome::ChangedMeanwhile
        })
    }

    async fn reseal_endpoint(
        &self,
        org: &OrganizationId,
        id: &WebhookId,
        slot: SecretSlot,
        sealed: &SealedSecret,
    ) -> Result<Outcome, StoreError> {
        let context = SealContext::webhook(id);
        let Some(resealed) = (match self.resealed(&context, sealed) {
            Ok(resealed) => resealed,
            Err(error) => return Ok(Outcome::CannotOpen(error)),
        }) else {
            return Ok(Outcome::Current);
        };
        let replaced = self
            .webhooks
            .replace_endpoint_secret(org, id, slot, sealed, &resealed)
            .await?;
        Ok(if replaced {
            Outcome::Resealed
        } else {
            Outcome::ChangedMeanwhile
        })
    }

    /// The value sealed again for `context` when it is legacy; `None` when it is already current.
    fn resealed(
        &self,
        context: &SealContext,
        sealed: &SealedSecret,
    ) -> Result<Option<SealedSecret>, SealError> {
        let opened = self.sealer.open(context, sealed.as_bytes())?;
        Ok(opened
            .legacy
            .then(|| SealedSecret::new(self.sealer.seal(context, &opened.text))))
    }
}

#[derive(Clone, Copy)]
enum Kind {
    Sender,
    Webhook,
}

fn count(report: &mut ResealReport, outcome: Outcome, kind: Kind, what: impl FnOnce() -> String) {
    match (outcome, kind) {
        (Outcome::Resealed, Kind::Sender) => report.sender_tokens += 1,
        (Outcome::Resealed, Kind::Webhook) => report.webhook_secrets += 1,
        (Outcome::Current, _) => report.already_current += 1,
        (Outcome::ChangedMeanwhile, _) => report.changed_meanwhile += 1,
        (Outcome::CannotOpen(error), _) => report.cannot_open.push(format!("{}: {error}", what())),
    }
}

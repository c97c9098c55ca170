//! The outbox: job states, claimed jobs and their history.

use super::accounts::SenderRow;
use super::messages::MessageRow;
use super::shared::*;
use herald_domain::dispatch::{ClaimedJob, JobHistory};
use herald_domain::ids::{JobId, OrganizationId};
use herald_domain::message::MessageError;
use herald_domain::organization::AccountStatus;
use herald_domain::ports::StoreError;

/// The `state` of a job waiting for a dispatch worker.
pub(crate) const JOB_PENDING: &str = "pending";

/// The `state` of a job leased to a dispatch worker.
pub(crate) const JOB_IN_FLIGHT: &str = "in_flight";
/// The `state` of a job whose message went out or needs no sending.
pub(crate) const JOB_DONE: &str = "done";
/// The `state` of a job whose message failed.
pub(crate) const JOB_FAILED: &str = "failed";

/// A job just claimed: its new values, and the old ones that say what happened to it before.
#[derive(Debug)]
pub(crate) struct ClaimedRow {
    pub id: String,
    pub organization_id: String,
    pub message_id: String,
    /// Including this claim.
    pub attempts: i32,
    pub deadline: Time,
    pub old_state: String,
    pub old_attempts: i32,
    pub old_awaiting: bool,
}

impl ClaimedRow {
    /// What happened to the job before this claim, read from its row as it was.
    pub(crate) fn history(&self) -> JobHistory {
        if self.old_state == JOB_IN_FLIGHT {
            JobHistory::Reclaimed
        } else if self.old_awaiting {
            JobHistory::AwaitedCallback
        } else if self.old_attempts > 0 {
            JobHistory::Retried
        } else {
            JobHistory::Fresh
        }
    }

    /// The claimed job with its message, sender and the organization's account status (`status`).
    pub(crate) fn into_job(
        self,
        message: MessageRow,
        sender: SenderRow,
        status: &str,
    ) -> Result<ClaimedJob, StoreError> {
        let trace = message.trace();
        Ok(ClaimedJob {
            job_id: parse("job id", JobId::parse(&self.id))?,
            organization_id: parse("organization id", OrganizationId::parse(&self.organization_id))?,
            attempts: to_u32("job attempts", self.attempts)?,
            history: self.history(),
            deadline: self.deadline,
            message: message.try_into()?,
            sender: sender.try_into()?,
            account_status: parse("account status", AccountStatus::parse(status))?,
            trace,
        })
    }
}

/// A job's last error as stored: Herald's code and the detail.
pub(crate) fn job_error(error: &MessageError) -> String {
    format!("{}: {}", error.code, error.detail)
}

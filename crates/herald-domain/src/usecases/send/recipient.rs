//! The checks about the recipient themself (issue 20: a marketing opt-out, a block), made after the
//! content checks by a real send and by its dry run alike: the one place they plug in.

use super::{SendDraft, SendError, SendMessage};
use crate::organization::{Organization, SenderNumber};

impl SendMessage {
    /// Refuses a send the recipient's state forbids. None is recorded yet, so every recipient passes;
    /// the opt-out and block checks go here, so that a real send and a dry run meet them at one place.
    #[allow(
        clippy::unused_async,
        clippy::unused_self,
        reason = "the seam the recipient checks fill in; its callers already await it"
    )]
    pub(super) async fn check_recipient(
        &self,
        _organization: &Organization,
        _sender: &SenderNumber,
        _draft: &SendDraft,
    ) -> Result<(), SendError> {
        Ok(())
    }
}

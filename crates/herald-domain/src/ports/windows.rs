//! Service windows, opened by inbound messages.

use super::error::StoreError;
use crate::contact::Recipient;
use crate::ids::{OrganizationId, SenderId};
use crate::window::ServiceWindow;
use async_trait::async_trait;

/// Service windows, opened by inbound messages.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait WindowStore: Send + Sync + 'static {
    async fn window(
        &self,
        organization: &OrganizationId,
        sender: &SenderId,
        recipient: &Recipient,
    ) -> Result<Option<ServiceWindow>, StoreError>;

    /// Records an inbound message. A window only moves forward: an older `last_inbound_at` than the
    /// stored one changes nothing.
    async fn record_inbound(&self, window: &ServiceWindow) -> Result<(), StoreError>;
}

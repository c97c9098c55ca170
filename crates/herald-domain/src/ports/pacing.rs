//! Each sender at its throughput.

use crate::organization::SenderNumber;
use async_trait::async_trait;

/// Paces sends per sender number to its throughput.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait Pacer: Send + Sync + 'static {
    /// Waits until `sender` may send one more message.
    async fn wait_turn(&self, sender: &SenderNumber);

    /// The network said `sender` is over its throughput: hold its sends back for `pause`.
    fn slow_down(&self, sender: &SenderNumber, pause: crate::time::Duration);
}

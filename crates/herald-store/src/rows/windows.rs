//! Rows of `service_windows`.

use super::shared::*;
use herald_domain::contact::Recipient;
use herald_domain::ids::{OrganizationId, SenderId};
use herald_domain::ports::StoreError;
use herald_domain::window::ServiceWindow;

row! {
    #[derive(Debug)]
    pub(crate) struct WindowRow in service_windows {
        pub organization_id: String,
        pub sender_id: String,
        pub recipient: String,
        pub last_inbound_at: Time,
    }
}

impl TryFrom<WindowRow> for ServiceWindow {
    type Error = StoreError;

    fn try_from(row: WindowRow) -> Result<Self, Self::Error> {
        Ok(Self {
            organization_id: parse("organization id", OrganizationId::parse(&row.organization_id))?,
            sender_id: parse("sender id", SenderId::parse(&row.sender_id))?,
            recipient: parse("recipient", Recipient::parse(&row.recipient))?,
            last_inbound_at: row.last_inbound_at,
        })
    }
}

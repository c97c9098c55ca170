//! Rows of `network_callbacks`.

use super::shared::*;
use crate::error::corrupt;
use herald_domain::dispatch::{ParkedCallback, StoredCallback};
use herald_domain::ids::EventId;
use herald_domain::ports::StoreError;

row! {
    #[derive(Debug)]
    pub(crate) struct CallbackRow in network_callbacks {
        pub id: String,
        pub received_at: Time,
        pub body: Vec<u8>,
    }
}

row! {
    #[derive(Debug)]
    pub(crate) struct ParkedCallbackRow in network_callbacks {
        pub id: String,
        pub received_at: Time,
        pub attempts: i32,
        pub last_error: Option<String>,
        pub parked_at: Option<Time>,
    }
}

impl TryFrom<ParkedCallbackRow> for ParkedCallback {
    type Error = StoreError;

    fn try_from(row: ParkedCallbackRow) -> Result<Self, Self::Error> {
        Ok(Self {
            // Listed as stored, even unreadable: parking is where such a row ends up (`unprocessed_callbacks`).
            id: row.id,
            received_at: row.received_at,
            attempts: u32::try_from(row.attempts).unwrap_or_default(),
            last_error: row.last_error,
            parked_at: row
                .parked_at
                .ok_or_else(|| corrupt("parked callback", "not parked"))?,
        })
    }
}

impl TryFrom<CallbackRow> for StoredCallback {
    type Error = StoreError;

    fn try_from(row: CallbackRow) -> Result<Self, Self::Error> {
        Ok(Self {
            id: parse("callback id", EventId::parse(&row.id))?,
            received_at: row.received_at,
            body: row.body,
        })
    }
}

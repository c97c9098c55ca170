//! Rows of `owners` and `dashboard_sessions` (the dashboard's logins).

use super::shared::*;
use crate::error::corrupt;
use herald_domain::owner::{DashboardSession, OwnerAccount, OwnerEmail, PasswordHash, SessionDigest};
use herald_domain::ports::StoreError;

row! {
    #[derive(Debug)]
    pub(crate) struct OwnerRow in owners {
        pub organization_id: String,
        pub email: String,
        pub password_hash: String,
        pub password_set_at: Time,
    }
}

row! {
    #[derive(Debug)]
    pub(crate) struct SessionRow in dashboard_sessions {
        pub digest: String,
        pub organization_id: String,
        pub email: String,
        pub csrf_token: String,
        pub created_at: Time,
        pub last_seen_at: Time,
        pub expires_at: Time,
    }
}

impl TryFrom<OwnerRow> for OwnerAccount {
    type Error = StoreError;

    fn try_from(row: OwnerRow) -> Result<Self, Self::Error> {
        Ok(Self {
            organization_id: row
                .organization_id
                .parse()
                .map_err(|e| corrupt("owner organization id", e))?,
            email: OwnerEmail::parse(&row.email).map_err(|e| corrupt("owner email", e))?,
            password_hash: PasswordHash::new(row.password_hash),
            password_set_at: row.password_set_at,
        })
    }
}

impl TryFrom<SessionRow> for DashboardSession {
    type Error = StoreError;

    fn try_from(row: SessionRow) -> Result<Self, Self::Error> {
        Ok(Self {
            digest: SessionDigest::from_hex(&row.digest).map_err(|e| corrupt("session digest", e))?,
            organization_id: row
                .organization_id
                .parse()
                .map_err(|e| corrupt("session organization id", e))?,
            email: OwnerEmail::parse(&row.email).map_err(|e| corrupt("session email", e))?,
            csrf_token: row.csrf_token,
            created_at: row.created_at,
            last_seen_at: row.last_seen_at,
            expires_at: row.expires_at,
        })
    }
}

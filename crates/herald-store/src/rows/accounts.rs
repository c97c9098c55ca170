//! Rows of the accounts tables: plans, organizations, senders and API keys.

use super::shared::*;
use crate::error::corrupt;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use herald_domain::api_key::{ApiKeyDigest, ApiKeyRecord, ApiKeyStatus};
use herald_domain::ids::{ApiKeyId, OrganizationId, SenderId};
use herald_domain::organization::{
    AccountStatus, NetworkRef, Organization, Plan, PlanName, SealedSecret, SenderNumber,
};
use herald_domain::ports::StoreError;
use herald_domain::values::{DisplayName, PhoneNumber};

impl PlanRow {
    pub(crate) fn new(plan: &Plan) -> Result<Self, StoreError> {
        Ok(Self {
            name: plan.name.as_str().to_owned(),
            rate_per_second: to_i32("plan rate", plan.rate_per_second)?,
            burst: to_i32("plan burst", plan.burst)?,
            monthly_quota: plan.monthly_quota.map(|q| to_i64("plan quota", q)).transpose()?,
            text_allowed: plan.text_allowed,
            template_allowed: plan.template_allowed,
            media_allowed: plan.media_allowed,
            max_file_bytes: to_i64("plan file size", plan.max_file_bytes)?,
            webhook_endpoints: to_i32("plan endpoints", plan.webhook_endpoints)?,
            media_storage_bytes: plan
                .media_storage_bytes
                .map(|b| to_i64("plan media storage", b))
                .transpose()?,
        })
    }
}

row! {
    #[derive(Debug)]
    pub(crate) struct PlanRow in plans {
        pub name: String,
        pub rate_per_second: i32,
        pub burst: i32,
        pub monthly_quota: Option<i64>,
        pub text_allowed: bool,
        pub template_allowed: bool,
        pub media_allowed: bool,
        pub max_file_bytes: i64,
        pub webhook_endpoints: i32,
        pub media_storage_bytes: Option<i64>,
    }
}

impl TryFrom<PlanRow> for Plan {
    type Error = StoreError;

    fn try_from(row: PlanRow) -> Result<Self, Self::Error> {
        Ok(Self {
            name: parse("plan name", PlanName::parse(&row.name))?,
            rate_per_second: to_u32("plan rate", row.rate_per_second)?,
            burst: to_u32("plan burst", row.burst)?,
            monthly_quota: row.monthly_quota.map(|q| to_u64("plan quota", q)).transpose()?,
            text_allowed: row.text_allowed,
            template_allowed: row.template_allowed,
            media_allowed: row.media_allowed,
            max_file_bytes: to_u64("plan file size", row.max_file_bytes)?,
            webhook_endpoints: to_u32("plan endpoints", row.webhook_endpoints)?,
            media_storage_bytes: row
                .media_storage_bytes
                .map(|b| to_u64("plan media storage", b))
                .transpose()?,
        })
    }
}

row! {
    #[derive(Debug)]
    pub(crate) struct OrganizationRow in organizations {
        pub id: String,
        pub name: String,
        pub status: String,
        pub plan: String,
        pub owner_email: Option<String>,
        pub created_at: Time,
    }
}

impl From<&Organization> for OrganizationRow {
    fn from(org: &Organization) -> Self {
        Self {
            id: org.id.to_string(),
            name: org.name.as_str().to_owned(),
            status: org.status.as_str().to_owned(),
            plan: org.plan.as_str().to_owned(),
            owner_email: org.owner_email.clone(),
            created_at: org.created_at,
        }
    }
}

impl TryFrom<OrganizationRow> for Organization {
    type Error = StoreError;

    fn try_from(row: OrganizationRow) -> Result<Self, Self::Error> {
        Ok(Self {
            id: parse("organization id", OrganizationId::parse(&row.id))?,
            name: parse("organization name", DisplayName::parse(&row.name))?,
            status: parse("account status", AccountStatus::parse(&row.status))?,
            plan: parse("plan name", PlanName::parse(&row.plan))?,
            owner_email: row.owner_email,
            created_at: row.created_at,
        })
    }
}

/// A sealed access token as the `senders` column keeps it (standard base64).
pub(crate) fn sealed_text(sealed: &SealedSecret) -> String {
    BASE64.encode(sealed.as_bytes())
}

row! {
    #[derive(Debug)]
    pub(crate) struct SenderRow in senders {
        pub id: String,
        pub organization_id: String,
        pub number: String,
        pub phone_number_id: String,
        pub waba_id: String,
        pub access_token_env: Option<String>,
        /// The sealed access token as standard base64: the column is TEXT on both backends, and text keeps the
        /// stored form identical on both.
        pub access_token_ciphertext: Option<String>,
        pub is_default: bool,
        pub throughput_per_second: i32,
        pub created_at: Time,
    }
}

impl SenderRow {
    pub(crate) fn new(sender: &SenderNumber) -> Result<Self, StoreError> {
        Ok(Self {
            id: sender.id.to_string(),
            organization_id: sender.organization_id.to_string(),
            number: sender.number.as_str().to_owned(),
            phone_number_id: sender.phone_number_id.as_str().to_owned(),
            waba_id: sender.waba_id.as_str().to_owned(),
            access_token_env: sender.access_token_env.clone(),
            access_token_ciphertext: sender.sealed_access_token.as_ref().map(sealed_text),
            is_default: sender.is_default,
            throughput_per_second: to_i32("throughput", sender.throughput_per_second)?,
            created_at: sender.created_at,
        })
    }
}

impl TryFrom<SenderRow> for SenderNumber {
    type Error = StoreError;

    fn try_from(row: SenderRow) -> Result<Self, Self::Error> {
        Ok(Self {
            id: parse("sender id", SenderId::parse(&row.id))?,
            organization_id: parse("organization id", OrganizationId::parse(&row.organization_id))?,
            number: parse("sender number", PhoneNumber::parse(&row.number))?,
            phone_number_id: parse("phone number id", NetworkRef::parse(&row.phone_number_id))?,
            waba_id: parse("business account id", NetworkRef::parse(&row.waba_id))?,
            access_token_env: row.access_token_env,
            sealed_access_token: row
                .access_token_ciphertext
                .map(|text| {
                    // The decoder's error would quote the stored text; keep sealed material out of messages.
                    BASE64
                        .decode(text.as_bytes())
                        .map(SealedSecret::new)
                        .map_err(|_| corrupt("sealed access token", "not base64"))
                })
                .transpose()?,
            is_default: row.is_default,
            throughput_per_second: to_u32("throughput", row.throughput_per_second)?,
            created_at: row.created_at,
        })
    }
}

row! {
    #[derive(Debug)]
    pub(crate) struct ApiKeyRow in api_keys {
        pub id: String,
        pub organization_id: String,
        pub name: Option<String>,
        pub prefix: String,
        pub digest: String,
        pub status: String,
        pub created_at: Time,
        pub last_used_at: Option<Time>,
        pub disabled_at: Option<Time>,
    }
}

impl From<&ApiKeyRecord> for ApiKeyRow {
    fn from(key: &ApiKeyRecord) -> Self {
        Self {
            id: key.id.to_string(),
            organization_id: key.organization_id.to_string(),
            name: key.name.as_ref().map(|n| n.as_str().to_owned()),
            prefix: key.prefix.clone(),
            digest: key.digest.to_hex(),
            status: key.status.as_str().to_owned(),
            created_at: key.created_at,
            last_used_at: key.last_used_at,
            disabled_at: key.disabled_at,
        }
    }
}

impl TryFrom<ApiKeyRow> for ApiKeyRecord {
    type Error = StoreError;

    fn try_from(row: ApiKeyRow) -> Result<Self, Self::Error> {
        Ok(Self {
            id: parse("key id", ApiKeyId::parse(&row.id))?,
            organization_id: parse("organization id", OrganizationId::parse(&row.organization_id))?,
            name: row
                .name
                .as_deref()
                .map(|n| parse("key name", DisplayName::parse(n)))
                .transpose()?,
            prefix: row.prefix,
            digest: parse("key digest", ApiKeyDigest::from_hex(&row.digest))?,
            status: parse("key status", ApiKeyStatus::parse(&row.status))?,
            created_at: row.created_at,
            last_used_at: row.last_used_at,
            disabled_at: row.disabled_at,
        })
    }
}

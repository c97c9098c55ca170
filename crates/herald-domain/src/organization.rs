//! Organizations (tenants), their plans and their sender numbers.

use crate::error::InvalidValue;
use crate::ids::{OrganizationId, SenderId};
use crate::time::Timestamp;
use crate::values::{DisplayName, PhoneNumber};
use std::fmt;

/// Whether an organization may use the API at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AccountStatus {
    Active,
    /// Temporarily stopped by the operator: every call answers `account_inactive`, queued messages wait.
    Suspended,
    /// Permanently stopped.
    Closed,
}

impl AccountStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Active => "active",
            Self::Suspended => "suspended",
            Self::Closed => "closed",
        }
    }

    /// # Errors
    /// [`InvalidValue`] for an unknown status name.
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        match value {
            "active" => Ok(Self::Active),
            "suspended" => Ok(Self::Suspended),
            "closed" => Ok(Self::Closed),
            other => Err(InvalidValue::new(format!("unknown account status `{other}`"))),
        }
    }

    pub fn is_active(self) -> bool {
        self == Self::Active
    }
}

/// The kinds of message a plan can allow. Documents, images and videos are all `Media`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MessageKind {
    Text,
    Template,
    Media,
}

impl MessageKind {
    pub const ALL: [Self; 3] = [Self::Text, Self::Template, Self::Media];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Text => "text",
            Self::Template => "template",
            Self::Media => "media",
        }
    }

    /// # Errors
    /// [`InvalidValue`] for an unknown kind.
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        match value {
            "text" => Ok(Self::Text),
            "template" => Ok(Self::Template),
            "media" => Ok(Self::Media),
            other => Err(InvalidValue::new(format!("unknown message kind `{other}`"))),
        }
    }
}

/// A plan's name (`trial`, `starter`, …): lowercase letters, digits, `-` and `_`, 1 to 40 characters.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PlanName(String);

impl PlanName {
    /// # Errors
    /// [`InvalidValue`] when not a valid plan name.
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        let valid = (1..=40).contains(&value.len())
            && value
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_');
        if valid {
            Ok(Self(value.to_owned()))
        } else {
            Err(InvalidValue::new(
                "plan names are 1 to 40 lowercase letters, digits, `-` or `_`",
            ))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for PlanName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What an organization may do: send rate, monthly quota, kinds, file size, webhook endpoints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub name: PlanName,
    /// Sustained sends per second.
    pub rate_per_second: u32,
    /// Sends allowed at once above the sustained rate.
    pub burst: u32,
    /// Messages accepted per calendar month (UTC); `None` is unlimited.
    pub monthly_quota: Option<u64>,
    pub text_allowed: bool,
    pub template_allowed: bool,
    pub media_allowed: bool,
    /// The largest file accepted, in bytes.
    pub max_file_bytes: u64,
    /// How many bytes of unexpired uploads the organization may hold at once; `None` is unlimited.
    pub media_storage_bytes: Option<u64>,
    /// How many customer webhook endpoints may exist.
    pub webhook_endpoints: u32,
}

impl Plan {
    /// The bucket broadcast recipient rows are counted in (docs/api.md §3): the plan's send rate in rows per
    /// second, and a burst of the largest broadcast (or the plan's burst, if larger), so one broadcast of any
    /// allowed size can always pass once the bucket is full. Kept apart from the send rate's own bucket.
    pub fn broadcast_rows(&self) -> Plan {
        let largest = u32::try_from(crate::broadcast::MAX_RECIPIENTS).unwrap_or(u32::MAX);
        Plan {
            burst: self.burst.max(largest),
            ..self.clone()
        }
    }

    /// Whether this plan lets the organization send `kind`.
    pub fn allows(&self, kind: MessageKind) -> bool {
        match kind {
            MessageKind::Text => self.text_allowed,
            MessageKind::Template => self.template_allowed,
            MessageKind::Media => self.media_allowed,
        }
    }

    /// The plans seeded on first start (docs/api.md §8).
    pub fn defaults() -> Vec<Plan> {
        const MB: u64 = 1_000_000;
        const GB: u64 = 1_000 * MB;
        let plan = |name: &str, rate, burst, quota, media, storage, endpoints| Plan {
            name: PlanName(name.to_owned()),
            rate_per_second: rate,
            burst,
            monthly_quota: quota,
            text_allowed: true,
            template_allowed: true,
            media_allowed: media,
            max_file_bytes: 100 * MB,
            media_storage_bytes: Some(storage),
            webhook_endpoints: endpoints,
        };
        vec![
            plan("trial", 1, 5, Some(1_000), false, 0, 1),
            plan("starter", 20, 40, Some(100_000), true, 2 * GB, 3),
            plan("business", 80, 160, Some(5_000_000), true, 20 * GB, 10),
            plan("enterprise", 1_000, 2_000, None, true, 200 * GB, 50),
        ]
    }
}

/// A tenant. Every API key, message, template and endpoint belongs to exactly one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Organization {
    pub id: OrganizationId,
    pub name: DisplayName,
    pub status: AccountStatus,
    pub plan: PlanName,
    pub owner_email: Option<String>,
    pub created_at: Timestamp,
}

/// A business phone number registered on the network, through which an organization sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SenderNumber {
    pub id: SenderId,
    pub organization_id: OrganizationId,
    pub number: PhoneNumber,
    /// The network's id of this number (`phone_number_id`), a numeric string.
    pub phone_number_id: NetworkRef,
    /// The network's business account id (WABA) that owns the number and its templates.
    pub waba_id: NetworkRef,
    /// Name of the environment variable holding this sender's access token, if not the default.
    pub access_token_env: Option<String>,
    /// This sender's own access token, encrypted by a [`crate::ports::SecretSealer`]; opened only to send.
    pub sealed_access_token: Option<SealedSecret>,
    pub is_default: bool,
    /// Messages per second the network allows this number (80 by default, up to 1,000).
    pub throughput_per_second: u32,
    pub created_at: Timestamp,
}

/// Bytes produced by a [`crate::ports::SecretSealer`]. Its `Debug` prints no content, so a sender can be
/// logged whole without leaking even the ciphertext.
#[derive(Clone, PartialEq, Eq)]
pub struct SealedSecret(Vec<u8>);

impl SealedSecret {
    pub fn new(bytes: Vec<u8>) -> Self {
        Self(bytes)
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.0
    }
}

impl fmt::Debug for SealedSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SealedSecret(..)")
    }
}

/// A network-side numeric id (`phone_number_id`, WABA id): 1 to 32 digits.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NetworkRef(String);

impl NetworkRef {
    /// # Errors
    /// [`InvalidValue`] when not 1 to 32 ASCII digits.
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        if (1..=32).contains(&value.len()) && value.bytes().all(|b| b.is_ascii_digit()) {
            Ok(Self(value.to_owned()))
        } else {
            Err(InvalidValue::new(
                "must be the network's numeric id (1 to 32 digits)",
            ))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for NetworkRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Picks the sender a send goes out from: the one asked for, else the organization's default (or its only
/// sender).
pub fn choose_sender<'a>(
    senders: &'a [SenderNumber],
    wanted: Option<&PhoneNumber>,
) -> Option<&'a SenderNumber> {
    match wanted {
        Some(number) => senders.iter().find(|s| &s.number == number),
        None => senders
            .iter()
            .find(|s| s.is_default)
            .or_else(|| if senders.len() == 1 { senders.first() } else { None }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_plans_match_the_contract() {
        let plans = Plan::defaults();
        let names: Vec<_> = plans.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["trial", "starter", "business", "enterprise"]);
        let trial = &plans[0];
        assert_eq!(
            (trial.rate_per_second, trial.burst, trial.monthly_quota),
            (1, 5, Some(1_000))
        );
        assert!(trial.allows(MessageKind::Text) && trial.allows(MessageKind::Template));
        assert!(!trial.allows(MessageKind::Media));
        assert!(plans[3].monthly_quota.is_none());
        assert_eq!(
            plans.iter().map(|p| p.webhook_endpoints).collect::<Vec<_>>(),
            [1, 3, 10, 50]
        );
    }

    #[test]
    fn sealed_secrets_print_no_bytes() {
        let sealed = SealedSecret::new(vec![0xAB, 0xCD]);
        assert_eq!(format!("{sealed:?}"), "SealedSecret(..)");
        assert_eq!(format!("{:?}", Some(sealed.clone())), "Some(SealedSecret(..))");
        assert_eq!(sealed.as_bytes(), [0xAB, 0xCD]);
        assert_eq!(sealed.into_bytes(), vec![0xAB, 0xCD]);
    }

    #[test]
    fn statuses_and_kinds_round_trip() {
        for s in [
            AccountStatus::Active,
            AccountStatus::Suspended,
            AccountStatus::Closed,
        ] {
            assert_eq!(AccountStatus::parse(s.as_str()).unwrap(), s);
        }
        for k in MessageKind::ALL {
            assert_eq!(MessageKind::parse(k.as_str()).unwrap(), k);
        }
        assert!(AccountStatus::parse("deleted").is_err());
        assert!(PlanName::parse("Trial").is_err());
        assert!(NetworkRef::parse("12a").is_err());
    }
}

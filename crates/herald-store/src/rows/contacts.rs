//! Rows of `contacts` and `contact_keyword_rules`.

use super::shared::*;
use herald_domain::contact::{Contact, KeywordRule, MarketingPreference, PreferenceSource};
use herald_domain::ids::OrganizationId;
use herald_domain::ports::StoreError;
use herald_domain::values::PhoneNumber;
use herald_domain::values::UserId;

row! {
    #[derive(Debug)]
    pub(crate) struct ContactRow in contacts {
        pub organization_id: String,
        pub contact_key: String,
        pub number: Option<String>,
        /// The number's person key (`PhoneNumber::person_key`), the number the contact is found by.
        pub number_key: Option<String>,
        pub user_id: Option<String>,
        pub marketing: String,
        pub marketing_changed_at: Option<Time>,
        pub marketing_source: Option<String>,
        pub blocked: bool,
        pub blocked_at: Option<Time>,
        pub updated_at: Time,
    }
}

impl TryFrom<ContactRow> for Contact {
    type Error = StoreError;

    fn try_from(row: ContactRow) -> Result<Self, Self::Error> {
        Ok(Self {
            organization_id: parse("organization id", OrganizationId::parse(&row.organization_id))?,
            number: row
                .number
                .as_deref()
                .map(|n| parse("contact number", PhoneNumber::parse(n)))
                .transpose()?,
            user_id: row
                .user_id
                .as_deref()
                .map(|u| parse("contact user id", UserId::parse(u)))
                .transpose()?,
            marketing: parse("marketing preference", MarketingPreference::parse(&row.marketing))?,
            marketing_changed_at: row.marketing_changed_at,
            marketing_source: row
                .marketing_source
                .as_deref()
                .map(|s| parse("preference source", PreferenceSource::parse(s)))
                .transpose()?,
            blocked: row.blocked,
            blocked_at: row.blocked_at,
            updated_at: row.updated_at,
        })
    }
}

/// Keywords as stored: upper-case, one per line.
pub(crate) fn keywords_text(words: &[String]) -> String {
    words.join("\n")
}

/// A stored rule read back through the domain's checks.
pub(crate) fn keyword_rule(stop: &str, resume: &str) -> Result<KeywordRule, StoreError> {
    let words = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|line| !line.is_empty())
            .map(str::to_owned)
            .collect()
    };
    parse("keyword rule", KeywordRule::new(words(stop), words(resume)))
}

//! Contacts (docs/api.md §7.1): what an organization knows of one person it messages — their number, the
//! business-scoped user id the network gives them, whether they stopped marketing messages, and whether the
//! organization blocked them — and the recipient checks every send meets.

use crate::erasure::ErasedPerson;
use crate::error::InvalidValue;
use crate::ids::{EventId, OrganizationId};
use crate::time::Timestamp;
use crate::values::{PhoneNumber, UserId};
use std::fmt;

/// Whom a request names: a phone number (E.164, begins with `+`) or a business-scoped user id (begins
/// with a two-letter country code). The first character tells them apart.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Recipient {
    Number(PhoneNumber),
    User(UserId),
    /// A person since erased: what their kept rows hold instead (docs/api.md §7.2). Never taken from a
    /// request ([`Recipient::parse`] refuses it); only read back from the store ([`Recipient::parse_stored`]).
    Erased(ErasedPerson),
}

impl Recipient {
    /// # Errors
    /// [`InvalidValue`] when `value` is neither form.
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        if value.starts_with('+') {
            return PhoneNumber::parse(value).map(Self::Number);
        }
        UserId::parse(value).map(Self::User).map_err(|_| {
            InvalidValue::new(
                "must be an E.164 number (`+` then 8 to 15 digits) or a business-scoped user id \
                 (e.g. US.13491208655302741918)",
            )
        })
    }

    /// [`Recipient::parse`], or the marker of an erased person: how a stored row is read back.
    ///
    /// # Errors
    /// [`InvalidValue`] when `value` is none of the three forms.
    pub fn parse_stored(value: &str) -> Result<Self, InvalidValue> {
        if value.starts_with(crate::erasure::ERASED_PREFIX) {
            return ErasedPerson::parse(value).map(Self::Erased);
        }
        Self::parse(value)
    }

    pub fn as_str(&self) -> &str {
        match self {
            Self::Number(number) => number.as_str(),
            Self::User(id) => id.as_str(),
            Self::Erased(marker) => marker.as_str(),
        }
    }

    pub fn number(&self) -> Option<&PhoneNumber> {
        match self {
            Self::Number(number) => Some(number),
            Self::User(_) | Self::Erased(_) => None,
        }
    }

    /// The form the network takes in a `user` field: a number's digits, or the user id as it is (an erased
    /// person's marker, which the network refuses: nothing is sent to them).
    pub fn network_form(&self) -> &str {
        match self {
            Self::Number(number) => number.digits(),
            Self::User(id) => id.as_str(),
            Self::Erased(marker) => marker.as_str(),
        }
    }
}

impl From<PhoneNumber> for Recipient {
    fn from(number: PhoneNumber) -> Self {
        Self::Number(number)
    }
}

impl From<UserId> for Recipient {
    fn from(id: UserId) -> Self {
        Self::User(id)
    }
}

impl fmt::Display for Recipient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether a person receives marketing messages from the organization.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarketingPreference {
    Allowed,
    Stopped,
}

impl MarketingPreference {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Allowed => "allowed",
            Self::Stopped => "stopped",
        }
    }

    /// # Errors
    /// [`InvalidValue`] for any other text.
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        match value {
            "allowed" => Ok(Self::Allowed),
            "stopped" => Ok(Self::Stopped),
            other => Err(InvalidValue::new(format!(
                "unknown marketing preference `{other}`"
            ))),
        }
    }
}

/// Who recorded a preference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PreferenceSource {
    /// The network's `user_preferences` webhook: the person used WhatsApp's own stop or resume.
    Network,
    /// The organization, through `POST /api/v1/contacts/{…}/opt-out` or `/opt-in`.
    Api,
    /// The organization's STOP keyword rule, on an inbound text.
    Keyword,
}

impl PreferenceSource {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Network => "network",
            Self::Api => "api",
            Self::Keyword => "keyword",
        }
    }

    /// # Errors
    /// [`InvalidValue`] for any other text.
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        match value {
            "network" => Ok(Self::Network),
            "api" => Ok(Self::Api),
            "keyword" => Ok(Self::Keyword),
            other => Err(InvalidValue::new(format!("unknown preference source `{other}`"))),
        }
    }
}

/// One person as an organization knows them. At least one of `number` and `user_id` is set; both are
/// when the network has shown them together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contact {
    pub organization_id: OrganizationId,
    pub number: Option<PhoneNumber>,
    pub user_id: Option<UserId>,
    pub marketing: MarketingPreference,
    /// When the marketing preference last changed, and who changed it.
    pub marketing_changed_at: Option<Timestamp>,
    pub marketing_source: Option<PreferenceSource>,
    pub blocked: bool,
    pub blocked_at: Option<Timestamp>,
    pub updated_at: Timestamp,
}

impl Contact {
    /// A person nothing is recorded about: marketing allowed, not blocked.
    pub fn unknown(organization_id: OrganizationId, recipient: &Recipient, now: Timestamp) -> Self {
        let (number, user_id) = match recipient {
            Recipient::Number(number) => (Some(number.clone()), None),
            Recipient::User(id) => (None, Some(id.clone())),
            Recipient::Erased(_) => (None, None),
        };
        Self {
            organization_id,
            number,
            user_id,
            marketing: MarketingPreference::Allowed,
            marketing_changed_at: None,
            marketing_source: None,
            blocked: false,
            blocked_at: None,
            updated_at: now,
        }
    }
}

impl Contact {
    /// The person's two records made one, once something links them (an inbound message showing the number
    /// with the user id, a change naming both, a national variant of the number): `self` keeps its
    /// identifiers, gaining those it lacks from `other`. Nothing either record refuses is dropped unseen:
    ///
    /// - **Blocked** if either was (the earlier `blocked_at`): only an unblock of the merged contact lifts it.
    /// - **Marketing**: when the two agree, that, with the later change. When one is `stopped` and the other
    ///   `allowed`, `stopped` stays unless the `allowed` is the later change *and* the person's own (`network`
    ///   or `keyword`: they resumed after stopping). An organization's opt-in (`api`) under one identity, or
    ///   no change at all, does not undo a stop the person made under the other, which it could not see.
    pub fn merged_with(self, other: Contact) -> Contact {
        let (stopped, allowed) = match (self.marketing, other.marketing) {
            (MarketingPreference::Stopped, MarketingPreference::Allowed) => (Some(&self), Some(&other)),
            (MarketingPreference::Allowed, MarketingPreference::Stopped) => (Some(&other), Some(&self)),
            _ => (None, None),
        };
        let marketing_from = match (stopped, allowed) {
            (Some(stopped), Some(allowed)) => {
                let resumed_later = allowed.marketing_changed_at > stopped.marketing_changed_at
                    && matches!(
                        allowed.marketing_source,
                        Some(PreferenceSource::Network | PreferenceSource::Keyword)
                    );
                if resumed_later { allowed } else { stopped }
            }
            // They agree: the later change says when and who.
            _ if other.marketing_changed_at > self.marketing_changed_at => &other,
            _ => &self,
        };
        let (marketing, marketing_changed_at, marketing_source) = (
            marketing_from.marketing,
            marketing_from.marketing_changed_at,
            marketing_from.marketing_source,
        );
        let blocked_at = [&self, &other]
            .into_iter()
            .filter(|c| c.blocked)
            .filter_map(|c| c.blocked_at)
            .min();
        Contact {
            organization_id: self.organization_id,
            number: self.number.or(other.number),
            user_id: self.user_id.or(other.user_id),
            marketing,
            marketing_changed_at,
            marketing_source,
            blocked: self.blocked || other.blocked,
            blocked_at,
            updated_at: self.updated_at.max(other.updated_at),
        }
    }
}

/// A change of a person's marketing preference, to record with its `contact.preferences` event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreferenceChange {
    pub organization_id: OrganizationId,
    /// The person as the change names them: a number, a user id, or both.
    pub number: Option<PhoneNumber>,
    pub user_id: Option<UserId>,
    pub preference: MarketingPreference,
    pub source: PreferenceSource,
    /// When it happened, per its reporter.
    pub occurred_at: Timestamp,
    pub recorded_at: Timestamp,
    pub event_id: EventId,
    /// For the network's changes: the same for every delivery of one webhook item, so a redelivered or
    /// reprocessed callback records it once.
    pub dedupe_key: Option<String>,
}

impl PreferenceChange {
    /// The recipient the change is looked up by: the number when known, else the user id.
    pub fn recipient(&self) -> Option<Recipient> {
        self.number
            .clone()
            .map(Recipient::Number)
            .or_else(|| self.user_id.clone().map(Recipient::User))
    }
}

/// What a send is for, as far as the recipient checks care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SendPurpose {
    /// A template of category `MARKETING`.
    Marketing,
    /// Anything else: other templates, and every free-form kind.
    Other,
}

impl SendPurpose {
    /// The purpose of a template of the network's `category`.
    pub fn of_template_category(category: &str) -> Self {
        if category.eq_ignore_ascii_case("MARKETING") {
            Self::Marketing
        } else {
            Self::Other
        }
    }
}

/// Why a send to a recipient is refused (checked after the template and window, before the quota).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum RecipientRefusal {
    /// The organization blocked the recipient (`422 recipient_blocked`).
    #[error("the recipient is blocked")]
    Blocked,
    /// A marketing template to someone who stopped marketing messages (`422 recipient_opted_out`).
    #[error("the recipient stopped marketing messages")]
    OptedOut,
}

impl RecipientRefusal {
    /// The problem code a send refused for this answers with (docs/api.md §2).
    pub fn code(self) -> &'static str {
        match self {
            Self::Blocked => "recipient_blocked",
            Self::OptedOut => "recipient_opted_out",
        }
    }

    /// The refusals a send of `purpose` to `contact` meets, in the order they are checked.
    pub fn all_for(contact: &Contact, purpose: SendPurpose) -> Vec<Self> {
        let mut refusals = Vec::new();
        if contact.blocked {
            refusals.push(Self::Blocked);
        }
        if purpose == SendPurpose::Marketing && contact.marketing == MarketingPreference::Stopped {
            refusals.push(Self::OptedOut);
        }
        refusals
    }
}

/// The STOP keyword rule: inbound texts that record a marketing preference. An organization's rule is
/// off until keywords are set; a text matches when, trimmed and compared without regard to case, it is
/// one of the keywords exactly (so "stop" stops, "please stop calling" does not).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeywordRule {
    pub stop: Vec<String>,
    pub resume: Vec<String>,
}

impl KeywordRule {
    /// The keywords suggested when an organization turns the rule on without naming any.
    pub const DEFAULT_STOP: [&'static str; 2] = ["STOP", "UNSUBSCRIBE"];
    pub const DEFAULT_RESUME: [&'static str; 1] = ["START"];

    /// The most keywords of each kind, and the longest keyword.
    pub const MAX_KEYWORDS: usize = 20;
    pub const MAX_KEYWORD_CHARS: usize = 32;

    /// # Errors
    /// [`InvalidValue`] for too many keywords, an empty or overlong one, or one in both lists.
    pub fn new(stop: Vec<String>, resume: Vec<String>) -> Result<Self, InvalidValue> {
        let clean = |words: Vec<String>, what: &str| -> Result<Vec<String>, InvalidValue> {
            if words.len() > Self::MAX_KEYWORDS {
                return Err(InvalidValue::new(format!(
                    "at most {} {what} keywords",
                    Self::MAX_KEYWORDS
                )));
            }
            words
                .into_iter()
                .map(|word| {
                    let word = word.trim().to_uppercase();
                    if word.is_empty()
                        || word.chars().count() > Self::MAX_KEYWORD_CHARS
                        || word.chars().any(char::is_control)
                    {
                        Err(InvalidValue::new(format!(
                            "each {what} keyword must be 1 to {} characters, without control characters",
                            Self::MAX_KEYWORD_CHARS
                        )))
                    } else {
                        Ok(word)
                    }
                })
                .collect()
        };
        let stop = clean(stop, "stop")?;
        let resume = clean(resume, "resume")?;
        if let Some(both) = stop.iter().find(|word| resume.contains(word)) {
            return Err(InvalidValue::new(format!(
                "`{both}` cannot be both a stop and a resume keyword"
            )));
        }
        Ok(Self { stop, resume })
    }

    pub fn is_off(&self) -> bool {
        self.stop.is_empty() && self.resume.is_empty()
    }

    /// The preference an inbound text records, if it is a keyword.
    pub fn match_text(&self, text: &str) -> Option<MarketingPreference> {
        let text = text.trim().to_uppercase();
        if self.stop.contains(&text) {
            Some(MarketingPreference::Stopped)
        } else if self.resume.contains(&text) {
            Some(MarketingPreference::Allowed)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recipient_is_told_apart_by_its_first_character() {
        assert_eq!(
            Recipient::parse("+15551234567").unwrap(),
            Recipient::Number(PhoneNumber::parse("+15551234567").unwrap())
        );
        let user = Recipient::parse("US.13491208655302741918").unwrap();
        assert!(matches!(user, Recipient::User(_)));
        assert_eq!(user.network_form(), "US.13491208655302741918");
        assert_eq!(
            Recipient::parse("+15551234567").unwrap().network_form(),
            "15551234567"
        );
        for bad in ["15551234567", "+1555", "US-123", "alice"] {
            assert!(Recipient::parse(bad).is_err(), "{bad} should be refused");
        }
    }

    #[test]
    fn blocked_comes_before_opted_out_and_opt_out_only_stops_marketing() {
        let org = OrganizationId::from_ulid(ulid::Ulid::nil());
        let now = chrono::DateTime::UNIX_EPOCH;
        let mut contact = Contact::unknown(org, &Recipient::parse("+15551234567").unwrap(), now);
        assert!(RecipientRefusal::all_for(&contact, SendPurpose::Marketing).is_empty());
        contact.marketing = MarketingPreference::Stopped;
        assert_eq!(
            RecipientRefusal::all_for(&contact, SendPurpose::Marketing),
            [RecipientRefusal::OptedOut]
        );
        assert!(RecipientRefusal::all_for(&contact, SendPurpose::Other).is_empty());
        contact.blocked = true;
        assert_eq!(
            RecipientRefusal::all_for(&contact, SendPurpose::Marketing),
            [RecipientRefusal::Blocked, RecipientRefusal::OptedOut]
        );
        assert_eq!(
            RecipientRefusal::all_for(&contact, SendPurpose::Other),
            [RecipientRefusal::Blocked]
        );
    }

    fn contact_at(
        recipient: &str,
        marketing: MarketingPreference,
        changed: Option<(i64, PreferenceSource)>,
        blocked_at: Option<i64>,
    ) -> Contact {
        let org = OrganizationId::from_ulid(ulid::Ulid::nil());
        let at = |s: i64| chrono::DateTime::UNIX_EPOCH + chrono::Duration::seconds(s);
        Contact {
            marketing,
            marketing_changed_at: changed.map(|(s, _)| at(s)),
            marketing_source: changed.map(|(_, source)| source),
            blocked: blocked_at.is_some(),
            blocked_at: blocked_at.map(at),
            ..Contact::unknown(org, &Recipient::parse(recipient).unwrap(), at(0))
        }
    }

    #[test]
    fn a_merge_keeps_either_records_stop_and_block() {
        use MarketingPreference::{Allowed, Stopped};
        use PreferenceSource::{Api, Keyword, Network};
        let number = "+15552220003";
        let user = "US.99900031";
        // The attacker's case: opted in by number, then stopped by user id.
        let merged = contact_at(number, Allowed, Some((10, Api)), None).merged_with(contact_at(
            user,
            Stopped,
            Some((20, Network)),
            None,
        ));
        assert_eq!(merged.marketing, Stopped);
        assert_eq!(merged.marketing_source, Some(Network));
        assert_eq!(merged.number.as_ref().unwrap().as_str(), number);
        assert_eq!(merged.user_id.as_ref().unwrap().as_str(), user);
        // An opt-in by the organization under the other identity does not undo it, even later...
        let merged = contact_at(number, Allowed, Some((30, Api)), None).merged_with(contact_at(
            user,
            Stopped,
            Some((20, Network)),
            None,
        ));
        assert_eq!(merged.marketing, Stopped);
        // ...nor does no change at all; the person's own later resume does.
        let merged = contact_at(number, Allowed, None, None).merged_with(contact_at(
            user,
            Stopped,
            Some((20, Keyword)),
            None,
        ));
        assert_eq!(merged.marketing, Stopped);
        let merged = contact_at(number, Stopped, Some((20, Network)), None).merged_with(contact_at(
            user,
            Allowed,
            Some((30, Network)),
            None,
        ));
        assert_eq!(merged.marketing, Allowed);
        assert_eq!(
            merged.marketing_changed_at,
            Some(chrono::DateTime::UNIX_EPOCH + chrono::Duration::seconds(30))
        );
        // A resume as old as the stop does not win.
        let merged = contact_at(number, Stopped, Some((20, Network)), None).merged_with(contact_at(
            user,
            Allowed,
            Some((20, Network)),
            None,
        ));
        assert_eq!(merged.marketing, Stopped);
        // A block of either stays, from the earlier time.
        let merged =
            contact_at(number, Allowed, None, Some(50)).merged_with(contact_at(user, Allowed, None, None));
        assert!(merged.blocked);
        let merged = contact_at(number, Allowed, None, Some(50)).merged_with(contact_at(
            user,
            Allowed,
            None,
            Some(40),
        ));
        assert_eq!(
            merged.blocked_at,
            Some(chrono::DateTime::UNIX_EPOCH + chrono::Duration::seconds(40))
        );
        let merged =
            contact_at(number, Allowed, None, None).merged_with(contact_at(user, Allowed, None, Some(40)));
        assert!(merged.blocked);
    }

    #[test]
    fn keywords_match_whole_trimmed_texts_in_any_case() {
        let rule =
            KeywordRule::new(vec!["stop".into(), " Unsubscribe ".into()], vec!["START".into()]).unwrap();
        assert_eq!(rule.match_text(" Stop \n"), Some(MarketingPreference::Stopped));
        assert_eq!(rule.match_text("UNSUBSCRIBE"), Some(MarketingPreference::Stopped));
        assert_eq!(rule.match_text("start"), Some(MarketingPreference::Allowed));
        assert_eq!(rule.match_text("please stop"), None);
        assert!(KeywordRule::default().is_off());
        assert_eq!(KeywordRule::default().match_text("STOP"), None);
        assert!(KeywordRule::new(vec!["STOP".into()], vec!["stop".into()]).is_err());
        assert!(KeywordRule::new(vec![String::new()], vec![]).is_err());
    }
}

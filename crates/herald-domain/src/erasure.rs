//! Erasing a person (docs/api.md §7.2): what an organization holds about one person is erased, and what
//! billing and statistics need is kept under a keyed one-way marker instead of their number.

use crate::error::InvalidValue;
use crate::ids::{EventId, OrganizationId};
use crate::time::Timestamp;
use crate::values::{PhoneNumber, UserId};
use std::fmt;

/// What every marker begins with; neither a number (`+…`) nor a user id (two upper-case letters) does.
pub const ERASED_PREFIX: &str = "erased:";

/// The length of a marker's digest in hex: HMAC-SHA256.
const DIGEST_HEX: usize = 64;

/// The most numbers and user ids one erasure names: a number's forms and the user ids paired with them.
pub const MAX_IDENTITIES: usize = 32;

/// What kept rows hold instead of an erased person's number or user id: `erased:` and the hex of a keyed
/// one-way digest of the identity ([`crate::ports::SecretSealer::person_digest`]). The same identity of the
/// same organization always gives the same marker, so a later erasure finds the rows again; without the
/// key it cannot be reversed or checked against a guessed number.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ErasedPerson(String);

impl ErasedPerson {
    /// The marker of a digest.
    pub fn from_digest(digest: &[u8; 32]) -> Self {
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        Self(format!("{ERASED_PREFIX}{hex}"))
    }

    /// # Errors
    /// [`InvalidValue`] when `value` is not `erased:` and 64 lower-case hex digits.
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        let hex = value
            .strip_prefix(ERASED_PREFIX)
            .filter(|hex| hex.len() == DIGEST_HEX)
            .filter(|hex| {
                hex.bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
            });
        match hex {
            Some(_) => Ok(Self(value.to_owned())),
            None => Err(InvalidValue::new(
                "must be `erased:` and 64 lower-case hex digits",
            )),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ErasedPerson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Every way one person is named in an organization's rows: each form of their number (its national
/// variants) and each user id the network paired with them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PersonIdentities {
    pub numbers: Vec<PhoneNumber>,
    pub user_ids: Vec<UserId>,
}

impl PersonIdentities {
    /// Adds `number` with all its forms, and `user_id`, each once, up to [`MAX_IDENTITIES`] in all.
    pub fn add(&mut self, number: Option<&PhoneNumber>, user_id: Option<&UserId>) {
        for form in number.map(PhoneNumber::variants).unwrap_or_default() {
            if !self.numbers.contains(&form) && self.len() < MAX_IDENTITIES {
                self.numbers.push(form);
            }
        }
        if let Some(user_id) = user_id
            && !self.user_ids.contains(user_id)
            && self.len() < MAX_IDENTITIES
        {
            self.user_ids.push(user_id.clone());
        }
    }

    pub fn len(&self) -> usize {
        self.numbers.len() + self.user_ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The identity the person's kept rows are marked with: the key of their number when one is known
    /// (every form of it gives the same), else their first user id.
    pub fn primary(&self) -> Option<String> {
        self.numbers
            .first()
            .map(|n| n.person_key().as_str().to_owned())
            .or_else(|| self.user_ids.first().map(|u| u.as_str().to_owned()))
    }

    /// Every identity in text, each number by its person key (one per person), then each user id: what
    /// the erasure log records the markers of.
    pub fn texts(&self) -> Vec<String> {
        let mut all: Vec<String> = Vec::new();
        for number in &self.numbers {
            let key = number.person_key().as_str().to_owned();
            if !all.contains(&key) {
                all.push(key);
            }
        }
        all.extend(self.user_ids.iter().map(|u| u.as_str().to_owned()));
        all
    }
}

/// One erasure as the store carries it out, in one transaction.
#[derive(Debug, Clone)]
pub struct Erasure {
    pub organization_id: OrganizationId,
    pub identities: PersonIdentities,
    /// What kept rows hold instead of the number or user id (the marker of [`PersonIdentities::primary`]).
    pub marker: ErasedPerson,
    /// The markers of every identity ([`PersonIdentities::texts`]), recorded in the erasure log so a
    /// later request naming any of them is known as erased.
    pub markers: Vec<ErasedPerson>,
    /// The `contact.erased` customer event's id.
    pub event_id: EventId,
    pub at: Timestamp,
}

/// What an erasure found and did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ErasureOutcome {
    /// Whether anything named the person: a row about them, or an earlier erasure of them.
    pub known: bool,
    /// Outbound messages whose content was erased (their ids, times, statuses and pricing are kept).
    pub messages: u64,
    /// Inbound messages whose content was erased.
    pub inbound: u64,
    /// The digests of the uploads only the person's messages used, whose rows are deleted: their bytes are
    /// the caller's to remove ([`crate::ports::ErasureStore::files_removed`] once done).
    pub files: Vec<crate::media::Sha256Digest>,
}

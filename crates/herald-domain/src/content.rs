//! The message kinds beside text, files, templates and interactive messages (docs/api.md §14.1): a
//! location, contact cards, a reaction, and the reply (`reply_to`) any message can be.
//!
//! As in [`crate::interactive`], clients write Meta's field names and errors name the path they wrote.

use crate::error::{InvalidValue, ValidationErrors};
use crate::ids::{InboundId, MessageId};
use crate::values::no_control_characters;

/// Meta, "Location messages": `name` and `address` are free text with no documented limit; Herald caps them
/// at 1,000 characters so a stored message stays small.
pub const PLACE_TEXT_MAX: usize = 1000;
/// Meta, "Contacts messages": no count is documented; Herald sends at most 20 cards in one message.
pub const CONTACTS_MAX: usize = 20;
/// Each list inside a card (phones, emails, urls, addresses): Herald keeps at most 20 entries.
pub const CARD_ENTRIES_MAX: usize = 20;
const CARD_TEXT_MAX: usize = 1000;
/// Meta, "Reaction messages": one emoji. The longest standard emoji (a family with skin tones, joined by
/// zero-width joiners) is 10 Unicode scalar values.
pub const EMOJI_SCALARS_MAX: usize = 10;

/// A coordinate in decimal degrees, kept as the client wrote it so it goes out unchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Degrees(String);

impl Degrees {
    fn parse(value: &str, limit: f64) -> Result<Self, InvalidValue> {
        let number: f64 = value
            .parse()
            .map_err(|_| InvalidValue::new("must be a number of decimal degrees"))?;
        if !number.is_finite() || number.abs() > limit || value.len() > 32 {
            return Err(InvalidValue::new(format!("must be between -{limit} and {limit}")));
        }
        Ok(Self(value.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn value(&self) -> f64 {
        self.0.parse().unwrap_or_default()
    }
}

/// Free text of a location or contact card field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field(String);

impl Field {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

fn field(errors: &mut ValidationErrors, path: &str, value: Option<&str>, max: usize) -> Option<Field> {
    let value = value?;
    let count = value.chars().count();
    let checked = if value.trim().is_empty() {
        Err(InvalidValue::new("must not be empty"))
    } else if count > max {
        Err(InvalidValue::new(format!(
            "must be at most {max} characters, got {count}"
        )))
    } else {
        no_control_characters(value, "the text", false).map(|()| Field(value.to_owned()))
    };
    errors.check(path, checked)
}

/// A place on the map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub latitude: Degrees,
    pub longitude: Degrees,
    pub name: Option<Field>,
    pub address: Option<Field>,
}

/// The client's location before it is checked; numbers as text, as JSON carried them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LocationDraft {
    pub latitude: Option<String>,
    pub longitude: Option<String>,
    pub name: Option<String>,
    pub address: Option<String>,
}

impl Location {
    /// # Errors
    /// [`ValidationErrors`] for a missing or out-of-range coordinate and over-long text.
    pub fn parse(draft: &LocationDraft) -> Result<Self, ValidationErrors> {
        let mut errors = ValidationErrors::new();
        let mut degrees = |path: &str, value: Option<&str>, limit: f64| match value {
            Some(value) => errors.check(path, Degrees::parse(value, limit)),
            None => {
                errors.push(InvalidValue::new("is required").at(path));
                None
            }
        };
        let latitude = degrees("latitude", draft.latitude.as_deref(), 90.0);
        let longitude = degrees("longitude", draft.longitude.as_deref(), 180.0);
        let name = field(&mut errors, "name", draft.name.as_deref(), PLACE_TEXT_MAX);
        let address = field(&mut errors, "address", draft.address.as_deref(), PLACE_TEXT_MAX);
        match (latitude, longitude) {
            (Some(latitude), Some(longitude)) if errors.is_empty() => Ok(Self {
                latitude,
                longitude,
                name,
                address,
            }),
            _ => Err(errors),
        }
    }
}

impl Location {
    /// The draft this location parses from ([`Location::parse`] of it gives it back).
    pub fn to_draft(&self) -> LocationDraft {
        LocationDraft {
            latitude: Some(self.latitude.as_str().to_owned()),
            longitude: Some(self.longitude.as_str().to_owned()),
            name: text(self.name.as_ref()),
            address: text(self.address.as_ref()),
        }
    }
}

fn text(field: Option<&Field>) -> Option<String> {
    field.map(|f| f.as_str().to_owned())
}

/// One typed entry of a card: a phone, email or URL with its optional label (`HOME`, `WORK`, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardEntry {
    pub value: Field,
    pub label: Option<Field>,
}

/// A contact card's postal address; every part optional, as in Meta's object.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CardAddress {
    pub street: Option<Field>,
    pub city: Option<Field>,
    pub state: Option<Field>,
    pub zip: Option<Field>,
    pub country: Option<Field>,
    pub country_code: Option<Field>,
    pub label: Option<Field>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CardName {
    pub formatted_name: Option<Field>,
    pub first_name: Option<Field>,
    pub last_name: Option<Field>,
    pub middle_name: Option<Field>,
    pub prefix: Option<Field>,
    pub suffix: Option<Field>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CardOrg {
    pub company: Option<Field>,
    pub department: Option<Field>,
    pub title: Option<Field>,
}

/// One contact card (Meta's `contacts[i]`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContactCard {
    pub name: CardName,
    pub phones: Vec<CardEntry>,
    pub emails: Vec<CardEntry>,
    pub urls: Vec<CardEntry>,
    pub addresses: Vec<CardAddress>,
    pub org: Option<CardOrg>,
    /// `YYYY-MM-DD`.
    pub birthday: Option<Field>,
}

/// A card before it is checked: the same shape with unchecked text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContactDraft {
    pub formatted_name: Option<String>,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub middle_name: Option<String>,
    pub prefix: Option<String>,
    pub suffix: Option<String>,
    /// (value, label) pairs.
    pub phones: Vec<(Option<String>, Option<String>)>,
    pub emails: Vec<(Option<String>, Option<String>)>,
    pub urls: Vec<(Option<String>, Option<String>)>,
    /// street, city, state, zip, country, country_code, label.
    pub addresses: Vec<[Option<String>; 7]>,
    pub org: Option<[Option<String>; 3]>,
    pub birthday: Option<String>,
}

fn entries(
    errors: &mut ValidationErrors,
    path: &str,
    value_name: &str,
    drafts: &[(Option<String>, Option<String>)],
) -> Vec<CardEntry> {
    if drafts.len() > CARD_ENTRIES_MAX {
        errors.push(InvalidValue::new(format!("must hold at most {CARD_ENTRIES_MAX} entries")).at(path));
        return Vec::new();
    }
    let mut out = Vec::with_capacity(drafts.len());
    for (i, (value, label)) in drafts.iter().enumerate() {
        let value_path = format!("{path}[{i}].{value_name}");
        let value = match value.as_deref() {
            Some(value) => field(errors, &value_path, Some(value), CARD_TEXT_MAX),
            None => {
                errors.push(InvalidValue::new("is required").at(&value_path));
                None
            }
        };
        let label = field(errors, &format!("{path}[{i}].type"), label.as_deref(), 50);
        if let Some(value) = value {
            out.push(CardEntry { value, label });
        }
    }
    out
}

fn birthday(value: &str) -> Result<Field, InvalidValue> {
    let invalid = || InvalidValue::new("must be a date written YYYY-MM-DD");
    let parts: Vec<&str> = value.split('-').collect();
    let [year, month, day] = parts.as_slice() else {
        return Err(invalid());
    };
    let numbers = (year.parse::<i32>(), month.parse::<u32>(), day.parse::<u32>());
    match numbers {
        (Ok(y), Ok(m), Ok(d)) if year.len() == 4 && month.len() == 2 && day.len() == 2 => {
            chrono::NaiveDate::from_ymd_opt(y, m, d).ok_or_else(invalid)?;
            Ok(Field(value.to_owned()))
        }
        _ => Err(invalid()),
    }
}

impl ContactCard {
    /// Checks every card; `contacts` paths are `contacts[i].…`.
    ///
    /// # Errors
    /// [`ValidationErrors`] for no card, too many, a card without `name.formatted_name` or without any other
    /// name part (Meta requires both), and any field over its limit.
    pub fn parse_all(drafts: &[ContactDraft]) -> Result<Vec<Self>, ValidationErrors> {
        let mut errors = ValidationErrors::new();
        if drafts.is_empty() || drafts.len() > CONTACTS_MAX {
            errors.push(
                InvalidValue::new(format!(
                    "must hold 1 to {CONTACTS_MAX} contact cards, got {}",
                    drafts.len()
                ))
                .at("contacts"),
            );
            return Err(errors);
        }
        let mut cards = Vec::with_capacity(drafts.len());
        for (i, draft) in drafts.iter().enumerate() {
            let at = |path: &str| format!("contacts[{i}].{path}");
            let mut name_part = |path: &str, value: &Option<String>| {
                field(&mut errors, &at(path), value.as_deref(), CARD_TEXT_MAX)
            };
            let name = CardName {
                formatted_name: name_part("name.formatted_name", &draft.formatted_name),
                first_name: name_part("name.first_name", &draft.first_name),
                last_name: name_part("name.last_name", &draft.last_name),
                middle_name: name_part("name.middle_name", &draft.middle_name),
                prefix: name_part("name.prefix", &draft.prefix),
                suffix: name_part("name.suffix", &draft.suffix),
            };
            if draft.formatted_name.is_none() {
                errors.push(InvalidValue::new("is required").at(at("name.formatted_name")));
            }
            let other_parts = [
                &draft.first_name,
                &draft.last_name,
                &draft.middle_name,
                &draft.prefix,
                &draft.suffix,
            ];
            if other_parts.iter().all(|part| part.is_none()) {
                errors.push(
                    InvalidValue::new(
                        "needs at least one of first_name, last_name, middle_name, prefix, suffix",
                    )
                    .at(at("name")),
                );
            }
            let phones = entries(&mut errors, &at("phones"), "phone", &draft.phones);
            let emails = entries(&mut errors, &at("emails"), "email", &draft.emails);
            let urls = entries(&mut errors, &at("urls"), "url", &draft.urls);
            let mut addresses = Vec::new();
            if draft.addresses.len() > CARD_ENTRIES_MAX {
                errors.push(
                    InvalidValue::new(format!("must hold at most {CARD_ENTRIES_MAX} entries"))
                        .at(at("addresses")),
                );
            } else {
                for (a, parts) in draft.addresses.iter().enumerate() {
                    let names = [
                        "street",
                        "city",
                        "state",
                        "zip",
                        "country",
                        "country_code",
                        "type",
                    ];
                    let mut checked = names.iter().zip(parts).map(|(name, value)| {
                        field(
                            &mut errors,
                            &at(&format!("addresses[{a}].{name}")),
                            value.as_deref(),
                            CARD_TEXT_MAX,
                        )
                    });
                    let mut next = || checked.next().flatten();
                    addresses.push(CardAddress {
                        street: next(),
                        city: next(),
                        state: next(),
                        zip: next(),
                        country: next(),
                        country_code: next(),
                        label: next(),
                    });
                }
            }
            let org = draft.org.as_ref().map(|[company, department, title]| CardOrg {
                company: field(&mut errors, &at("org.company"), company.as_deref(), CARD_TEXT_MAX),
                department: field(
                    &mut errors,
                    &at("org.department"),
                    department.as_deref(),
                    CARD_TEXT_MAX,
                ),
                title: field(&mut errors, &at("org.title"), title.as_deref(), CARD_TEXT_MAX),
            });
            let birthday = draft
                .birthday
                .as_deref()
                .and_then(|value| errors.check(&at("birthday"), birthday(value)));
            cards.push(Self {
                name,
                phones,
                emails,
                urls,
                addresses,
                org,
                birthday,
            });
        }
        errors.finish(cards)
    }
}

impl ContactCard {
    /// The draft this card parses from ([`ContactCard::parse_all`] of the drafts gives the cards back).
    pub fn to_draft(&self) -> ContactDraft {
        let entries = |list: &[CardEntry]| {
            list.iter()
                .map(|e| (Some(e.value.as_str().to_owned()), text(e.label.as_ref())))
                .collect()
        };
        ContactDraft {
            formatted_name: text(self.name.formatted_name.as_ref()),
            first_name: text(self.name.first_name.as_ref()),
            last_name: text(self.name.last_name.as_ref()),
            middle_name: text(self.name.middle_name.as_ref()),
            prefix: text(self.name.prefix.as_ref()),
            suffix: text(self.name.suffix.as_ref()),
            phones: entries(&self.phones),
            emails: entries(&self.emails),
            urls: entries(&self.urls),
            addresses: self
                .addresses
                .iter()
                .map(|a| {
                    [
                        text(a.street.as_ref()),
                        text(a.city.as_ref()),
                        text(a.state.as_ref()),
                        text(a.zip.as_ref()),
                        text(a.country.as_ref()),
                        text(a.country_code.as_ref()),
                        text(a.label.as_ref()),
                    ]
                })
                .collect(),
            org: self.org.as_ref().map(|o| {
                [
                    text(o.company.as_ref()),
                    text(o.department.as_ref()),
                    text(o.title.as_ref()),
                ]
            }),
            birthday: text(self.birthday.as_ref()),
        }
    }
}

/// What a reaction reacts to: a message Herald sent or one it received, of the same organization.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MessageRef {
    Outbound(MessageId),
    Inbound(InboundId),
}

impl MessageRef {
    /// # Errors
    /// [`InvalidValue`] for anything but a `msg_` or `inb_` id.
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        if value.starts_with(InboundId::PREFIX) {
            InboundId::parse(value).map(Self::Inbound)
        } else if value.starts_with(MessageId::PREFIX) {
            MessageId::parse(value).map(Self::Outbound)
        } else {
            Err(InvalidValue::new(
                "must be a Herald message id (`msg_…` or `inb_…`)",
            ))
        }
    }
}

impl std::fmt::Display for MessageRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Outbound(id) => id.fmt(f),
            Self::Inbound(id) => id.fmt(f),
        }
    }
}

/// A reaction's emoji; empty removes the reaction the business gave before.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Emoji(String);

impl Emoji {
    /// # Errors
    /// [`InvalidValue`] for text that is not one emoji (letters, spaces, several emoji...).
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        if value.is_empty() {
            return Ok(Self(String::new()));
        }
        let invalid = || InvalidValue::new("must be one emoji, or empty to remove the reaction");
        let scalars = value.chars().count();
        // Skin-tone modifiers sit in the pictograph block but only colour the emoji before them; regional
        // indicators count only as a pair (a flag).
        let pictographs = value
            .chars()
            .filter(|&c| is_pictograph(c) && !matches!(c as u32, 0x1F3FB..=0x1F3FF | 0x1F1E6..=0x1F1FF))
            .count();
        let only_emoji_parts = value.chars().all(|c| {
            is_pictograph(c)
                || matches!(c as u32, 0x200D | 0xFE0F | 0x20E3 | 0x1F3FB..=0x1F3FF | 0xE0020..=0xE007F)
                || c.is_ascii_digit()
                || c == '#'
                || c == '*'
        });
        // Zero-width joiners glue several pictographs into one emoji; without them, two pictographs are two.
        let joined = value.contains('\u{200D}');
        let keycap = value.contains('\u{20E3}');
        let flag = value.chars().all(|c| matches!(c as u32, 0x1F1E6..=0x1F1FF)) && scalars == 2;
        let one = flag || keycap && scalars <= 3 || pictographs == 1 || joined && pictographs > 1;
        if scalars > EMOJI_SCALARS_MAX || !only_emoji_parts || !one {
            return Err(invalid());
        }
        Ok(Self(value.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// An empty emoji takes the reaction back.
    pub fn removes(&self) -> bool {
        self.0.is_empty()
    }
}

fn is_pictograph(c: char) -> bool {
    matches!(c as u32,
        0x1F000..=0x1FAFF | 0x2600..=0x27BF | 0x2B00..=0x2BFF | 0x2300..=0x23FF | 0x2190..=0x21FF
        | 0x3030 | 0x303D | 0x3297 | 0x3299 | 0x00A9 | 0x00AE | 0x203C | 0x2049 | 0x2122 | 0x2139)
}

/// A message of the conversation another one points at: the one a reply answers or a reaction reacts to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageTarget {
    /// The Herald id the client named.
    pub message: MessageRef,
    /// Its network id (`wamid…`), filled in when the message is accepted so dispatch needs no extra read;
    /// `None` only in a send draft.
    pub network_message_id: Option<String>,
}

impl MessageTarget {
    /// A target named by the client, not yet looked up.
    pub fn named(message: MessageRef) -> Self {
        Self {
            message,
            network_message_id: None,
        }
    }
}

/// A reaction to a message of the conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reaction {
    pub target: MessageTarget,
    pub emoji: Emoji,
}

#[cfg(test)]
mod tests;

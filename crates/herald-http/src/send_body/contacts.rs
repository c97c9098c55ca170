//! send-contacts's body (docs/api.md §4.9): Meta's array of contact objects, read into the domain's drafts
//! and checked by [`ContactCard::parse_all`], errors under `contacts[i].…`.

use super::fields::{array_at, json_type, merge, object_at, required, text_at};
use herald_domain::content::{ContactCard, ContactDraft};
use herald_domain::message::MessageContent;
use herald_domain::{FieldError, ValidationErrors};
use serde_json::{Map, Value};

/// One card's list of `{<value_key>, type}` entries.
fn entries(
    card: &Map<String, Value>,
    key: &str,
    value_key: &str,
    at: &str,
    errors: &mut ValidationErrors,
) -> Vec<(Option<String>, Option<String>)> {
    let Some(list) = array_at(card, key, &format!("{at}.{key}"), errors) else {
        return Vec::new();
    };
    list.iter()
        .enumerate()
        .filter_map(|(i, entry)| {
            let path = format!("{at}.{key}[{i}]");
            let Some(entry) = entry.as_object() else {
                errors.push(FieldError::new(path, "must be an object"));
                return None;
            };
            Some((
                text_at(entry, value_key, &format!("{path}.{value_key}"), errors),
                text_at(entry, "type", &format!("{path}.type"), errors),
            ))
        })
        .collect()
}

fn card(card: &Map<String, Value>, at: &str, errors: &mut ValidationErrors) -> ContactDraft {
    let empty = Map::new();
    let name = object_at(card, "name", &format!("{at}.name"), errors).unwrap_or(&empty);
    let part =
        |key: &str, errors: &mut ValidationErrors| text_at(name, key, &format!("{at}.name.{key}"), errors);
    let mut draft = ContactDraft {
        formatted_name: part("formatted_name", errors),
        first_name: part("first_name", errors),
        last_name: part("last_name", errors),
        middle_name: part("middle_name", errors),
        prefix: part("prefix", errors),
        suffix: part("suffix", errors),
        phones: entries(card, "phones", "phone", at, errors),
        emails: entries(card, "emails", "email", at, errors),
        urls: entries(card, "urls", "url", at, errors),
        birthday: text_at(card, "birthday", &format!("{at}.birthday"), errors),
        ..ContactDraft::default()
    };
    if let Some(addresses) = array_at(card, "addresses", &format!("{at}.addresses"), errors) {
        for (i, address) in addresses.iter().enumerate() {
            let path = format!("{at}.addresses[{i}]");
            let Some(address) = address.as_object() else {
                errors.push(FieldError::new(path, "must be an object"));
                continue;
            };
            let keys = [
                "street",
                "city",
                "state",
                "zip",
                "country",
                "country_code",
                "type",
            ];
            draft
                .addresses
                .push(keys.map(|key| text_at(address, key, &format!("{path}.{key}"), errors)));
        }
    }
    if let Some(org) = object_at(card, "org", &format!("{at}.org"), errors) {
        let keys = ["company", "department", "title"];
        draft.org = Some(keys.map(|key| text_at(org, key, &format!("{at}.org.{key}"), errors)));
    }
    draft
}

/// `send-contacts`: `contacts`, Meta's array of contact objects.
pub(super) fn contacts_content(
    object: &Map<String, Value>,
    errors: &mut ValidationErrors,
) -> Option<MessageContent> {
    let list = required(object, "contacts", "contacts", errors)?;
    let Some(list) = list.as_array() else {
        errors.push(FieldError::new(
            "contacts",
            format!("must be an array, not {}", json_type(list)),
        ));
        return None;
    };
    let mut drafts = Vec::with_capacity(list.len());
    for (i, value) in list.iter().enumerate() {
        let at = format!("contacts[{i}]");
        match value.as_object() {
            Some(object) => drafts.push(card(object, &at, errors)),
            None => {
                errors.push(FieldError::new(at, "must be an object"));
                // Keeps the indexes of the cards after it as the client wrote them.
                drafts.push(ContactDraft::default());
            }
        }
    }
    merge(ContactCard::parse_all(&drafts), errors).map(MessageContent::Contacts)
}

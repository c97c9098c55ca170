//! The `CAROUSEL` and `LIMITED_TIME_OFFER` components.

use super::buttons::{ButtonRules, buttons};
use super::examples::{example_text, media_sample};
use super::fields::{bounded, unknown};
use super::node::At;
use super::{
    CARD_BODY_MAX, CARDS_MAX, CARDS_MIN, Card, Component, MediaSample, OFFER_TEXT_MAX, ParameterFormat,
};
use crate::FieldError;
use crate::attachment::MediaKind;
use crate::error::ValidationErrors;

pub(super) fn carousel(
    errors: &mut ValidationErrors,
    at: At<'_>,
    format: ParameterFormat,
) -> Option<Vec<Card>> {
    unknown(errors, at, &["type", "cards"]);
    let items = at.list(errors, "cards")?;
    if !(CARDS_MIN..=CARDS_MAX).contains(&items.len()) {
        errors.push(FieldError::new(
            at.path_of("cards"),
            format!("holds {CARDS_MIN} to {CARDS_MAX} cards"),
        ));
        return None;
    }
    let mut cards = Vec::new();
    for (path, node) in &items {
        let card = At { node, path };
        if !card.is_object(errors) {
            continue;
        }
        unknown(errors, card, &["components"]);
        cards.extend(one_card(errors, card, format));
    }
    if cards.len() != items.len() {
        return None;
    }
    // Every card has the same shape: the same header format and the same buttons in the same order.
    let first = cards.first()?;
    let shape = |card: &Card| {
        (
            card.header.0,
            card.buttons
                .iter()
                .map(super::ButtonDefinition::wire_type)
                .collect::<Vec<_>>(),
        )
    };
    let expected = shape(first);
    for (i, card) in cards.iter().enumerate().skip(1) {
        if shape(card) != expected {
            errors.push(FieldError::new(
                format!("{}[{i}]", at.path_of("cards")),
                "every card needs the first card's header format and button types, in the same order",
            ));
        }
    }
    Some(cards)
}

fn one_card(errors: &mut ValidationErrors, card: At<'_>, format: ParameterFormat) -> Option<Card> {
    let items = card.list(errors, "components")?;
    let (mut header, mut body, mut buttons_of) = (None, None, None);
    let mut seen: Vec<&str> = Vec::new();
    for (path, node) in &items {
        let at = At { node, path };
        if !at.is_object(errors) {
            continue;
        }
        let kind = at.text(errors, "type", true).map(str::to_ascii_uppercase);
        match kind.as_deref() {
            Some("HEADER") => {
                seen.push("HEADER");
                header = header_in_card(errors, at);
            }
            Some("BODY") => {
                seen.push("BODY");
                unknown(errors, at, &["type", "text", "example"]);
                body = example_text(errors, at, format, CARD_BODY_MAX);
            }
            Some("BUTTONS") => {
                seen.push("BUTTONS");
                buttons_of = buttons(errors, at, &ButtonRules::card());
            }
            Some(_) => errors.push(FieldError::new(
                at.path_of("type"),
                "a card holds HEADER, BODY and BUTTONS",
            )),
            None => {}
        }
    }
    for (kind, what) in [
        ("HEADER", "HEADER (IMAGE or VIDEO)"),
        ("BODY", "BODY"),
        ("BUTTONS", "BUTTONS component with 1 or 2 buttons"),
    ] {
        if !seen.contains(&kind) {
            errors.push(FieldError::new(
                card.path_of("components"),
                format!("a card needs a {what}"),
            ));
        }
    }
    Some(Card {
        header: header?,
        body: body?,
        buttons: buttons_of?,
    })
}

fn header_in_card(errors: &mut ValidationErrors, at: At<'_>) -> Option<(MediaKind, MediaSample)> {
    unknown(errors, at, &["type", "format", "example"]);
    let kind = match at.text(errors, "format", true)?.to_ascii_uppercase().as_str() {
        "IMAGE" => MediaKind::Image,
        "VIDEO" => MediaKind::Video,
        _ => {
            errors.push(FieldError::new(
                at.path_of("format"),
                "a card's header is IMAGE or VIDEO",
            ));
            return None;
        }
    };
    media_sample(errors, at).map(|sample| (kind, sample))
}

pub(super) fn offer(errors: &mut ValidationErrors, at: At<'_>) -> Option<Component> {
    unknown(errors, at, &["type", "limited_time_offer"]);
    let Some(node) = at.field("limited_time_offer") else {
        errors.push(FieldError::new(at.path_of("limited_time_offer"), "is required"));
        return None;
    };
    let path = at.path_of("limited_time_offer");
    let inner = At { node, path: &path };
    if !inner.is_object(errors) {
        return None;
    }
    unknown(errors, inner, &["text", "has_expiration"]);
    let text = bounded(errors, inner, "text", OFFER_TEXT_MAX)?;
    let has_expiration = inner.boolean(errors, "has_expiration").unwrap_or(false);
    Some(Component::LimitedTimeOffer {
        text: text.to_owned(),
        has_expiration,
    })
}

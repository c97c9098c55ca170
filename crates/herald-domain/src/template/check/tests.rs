//! The checks of the richer template types: location and named headers, Flow buttons, limited-time offers,
//! carousels, and the authentication code shorthand.

use super::*;
use crate::attachment::{MediaAttachment, MediaSource};
use crate::content::{Location, LocationDraft};
use crate::ids::{OrganizationId, TemplateId};
use crate::organization::NetworkRef;
use crate::template::{LanguageCode, TemplateName, TemplateStatus, TemplateStructure, TemplateText};
use crate::values::MediaLink;
use ulid::Ulid;

fn text(v: &str) -> TemplateText {
    TemplateText::parse(v).unwrap()
}

fn p(v: &str) -> ParamName {
    ParamName::parse(v).unwrap()
}

fn template(category: &str, structure: TemplateStructure) -> Template {
    Template {
        id: TemplateId::from_ulid(Ulid::from_parts(1, 1)),
        organization_id: OrganizationId::from_ulid(Ulid::from_parts(1, 2)),
        waba_id: NetworkRef::parse("2000000001").unwrap(),
        name: TemplateName::parse("t").unwrap(),
        language: LanguageCode::parse("en_US").unwrap(),
        status: TemplateStatus::approved(),
        category: category.into(),
        structure,
        network_id: None,
        synced_at: chrono::DateTime::from_timestamp(0, 0).unwrap(),
        health: Default::default(),
    }
}

fn mismatch(result: Result<(), TemplateCheckError>) -> String {
    match result {
        Err(TemplateCheckError::Mismatch(detail)) => detail,
        other => panic!("expected a mismatch, got {other:?}"),
    }
}

fn spec(index: u8, kind: ButtonKind, parameters: u8) -> ButtonSpec {
    ButtonSpec {
        index,
        kind,
        parameters,
    }
}

fn image(kind: MediaKind) -> MediaAttachment {
    MediaAttachment {
        kind,
        source: MediaSource::Link(MediaLink::parse("https://example.com/a.png").unwrap()),
        filename: None,
    }
}

fn location() -> Location {
    Location::parse(&LocationDraft {
        latitude: Some("1.5".into()),
        longitude: Some("2.5".into()),
        ..LocationDraft::default()
    })
    .unwrap()
}

#[test]
fn a_location_header_takes_a_location_and_nothing_else() {
    let store = template(
        "UTILITY",
        TemplateStructure {
            header: HeaderSpec::Location,
            ..TemplateStructure::default()
        },
    );
    let mut vars = TemplateVariables {
        header: Some(HeaderValue::Location(location())),
        ..TemplateVariables::default()
    };
    assert_eq!(check_variables(&store, &vars), Ok(()));
    vars.header = None;
    assert_eq!(
        mismatch(check_variables(&store, &vars)),
        "header expects a location"
    );
    vars.header = Some(HeaderValue::Text(vec![text("x")]));
    assert_eq!(
        mismatch(check_variables(&store, &vars)),
        "header expects a location, got text"
    );
    let plain = template("UTILITY", TemplateStructure::default());
    vars.header = Some(HeaderValue::Location(location()));
    assert_eq!(
        mismatch(check_variables(&plain, &vars)),
        "the template's header takes no parameter"
    );
}

#[test]
fn a_named_header_takes_its_one_name() {
    let order = template(
        "UTILITY",
        TemplateStructure {
            header: HeaderSpec::NamedText(p("order_id")),
            ..TemplateStructure::default()
        },
    );
    let with = |header: HeaderValue| TemplateVariables {
        header: Some(header),
        ..TemplateVariables::default()
    };
    let good = with(HeaderValue::NamedText(vec![(p("order_id"), text("ORD-1"))]));
    assert_eq!(check_variables(&order, &good), Ok(()));
    let wrong = with(HeaderValue::NamedText(vec![(p("order"), text("ORD-1"))]));
    assert_eq!(
        mismatch(check_variables(&order, &wrong)),
        "header expects the parameter named order_id, got order"
    );
    let positional = with(HeaderValue::Text(vec![text("ORD-1")]));
    assert_eq!(
        mismatch(check_variables(&order, &positional)),
        "header expects the parameter named order_id, got 1 by position"
    );
    let text_header = template(
        "UTILITY",
        TemplateStructure {
            header: HeaderSpec::Text,
            ..TemplateStructure::default()
        },
    );
    assert_eq!(
        mismatch(check_variables(&text_header, &good)),
        "header expects 1 parameter by position, got one by name"
    );
}

#[test]
fn flow_buttons_take_an_optional_token_and_data_others_take_no_data() {
    let survey = template(
        "MARKETING",
        TemplateStructure {
            buttons: vec![spec(0, ButtonKind::Flow, 0), spec(1, ButtonKind::QuickReply, 0)],
            ..TemplateStructure::default()
        },
    );
    assert_eq!(check_variables(&survey, &TemplateVariables::default()), Ok(()));
    let flow = ButtonValue {
        flow_action_data: Some("{}".into()),
        ..ButtonValue::new(0, ButtonKind::Flow, vec![text("tok")])
    };
    let mut vars = TemplateVariables {
        buttons: vec![flow],
        ..TemplateVariables::default()
    };
    assert_eq!(check_variables(&survey, &vars), Ok(()));
    vars.buttons = vec![ButtonValue::new(0, ButtonKind::Flow, vec![text("a"), text("b")])];
    assert_eq!(
        mismatch(check_variables(&survey, &vars)),
        "button 0 (flow) expects 1 parameter, got 2"
    );
    vars.buttons = vec![ButtonValue {
        flow_action_data: Some("{}".into()),
        ..ButtonValue::new(1, ButtonKind::QuickReply, vec![])
    }];
    assert_eq!(
        mismatch(check_variables(&survey, &vars)),
        "button 1 is a quick_reply button: only Flow buttons take flow_action_data"
    );
}

#[test]
fn an_offer_with_an_expiration_needs_one_and_others_take_none() {
    let at = chrono::DateTime::from_timestamp(1_900_000_000, 0).unwrap();
    let offer = |has_expiration| {
        template(
            "MARKETING",
            TemplateStructure {
                offer: Some(OfferSpec { has_expiration }),
                ..TemplateStructure::default()
            },
        )
    };
    let given = TemplateVariables {
        offer: Some(at),
        ..TemplateVariables::default()
    };
    let none = TemplateVariables::default();
    assert_eq!(check_variables(&offer(true), &given), Ok(()));
    assert_eq!(
        mismatch(check_variables(&offer(true), &none)),
        "offer: the limited-time offer expects its expiration (offer.expires_at)"
    );
    assert_eq!(check_variables(&offer(false), &none), Ok(()));
    assert_eq!(
        mismatch(check_variables(&offer(false), &given)),
        "offer: the template's limited-time offer has no expiration"
    );
    assert_eq!(
        mismatch(check_variables(
            &template("MARKETING", TemplateStructure::default()),
            &given
        )),
        "offer: the template has no limited-time offer"
    );
}

fn carousel() -> Template {
    let card = CardSpec {
        header: MediaKind::Image,
        body: BodySpec::Positional(1),
        buttons: vec![spec(0, ButtonKind::QuickReply, 0), spec(1, ButtonKind::Url, 1)],
    };
    template(
        "MARKETING",
        TemplateStructure {
            body: BodySpec::Positional(1),
            cards: vec![card.clone(), card],
            ..TemplateStructure::default()
        },
    )
}

fn card(plant: &str) -> CardValues {
    CardValues {
        header: image(MediaKind::Image),
        body: BodyValues::Positional(vec![text(plant)]),
        buttons: vec![ButtonValue::new(1, ButtonKind::Url, vec![text(plant)])],
    }
}

#[test]
fn carousel_cards_are_checked_one_by_one_and_named() {
    let mut vars = TemplateVariables {
        body: BodyValues::Positional(vec![text("Ana")]),
        cards: vec![card("aloe"), card("pot")],
        ..TemplateVariables::default()
    };
    assert_eq!(check_variables(&carousel(), &vars), Ok(()));

    vars.cards.truncate(1);
    assert_eq!(
        mismatch(check_variables(&carousel(), &vars)),
        "the carousel expects 2 cards, got 1"
    );
    vars.cards = vec![card("aloe"), card("pot")];
    vars.cards[1].body = BodyValues::Positional(vec![]);
    assert_eq!(
        mismatch(check_variables(&carousel(), &vars)),
        "card 1: body expects 1 parameter, got 0"
    );
    vars.cards[1] = card("pot");
    vars.cards[1].buttons.clear();
    assert_eq!(
        mismatch(check_variables(&carousel(), &vars)),
        "card 1: button 1 (url) expects 1 parameter, got none"
    );
    vars.cards[1] = card("pot");
    vars.cards[0].header = image(MediaKind::Video);
    assert_eq!(
        check_variables(&carousel(), &vars),
        Err(TemplateCheckError::HeaderMediaMismatch {
            part: "card 0's header".into(),
            expected: "an image",
            got: "a video",
        })
    );
    let plain = template("MARKETING", TemplateStructure::default());
    let cards_only = TemplateVariables {
        cards: vec![card("aloe")],
        ..TemplateVariables::default()
    };
    assert_eq!(
        mismatch(check_variables(&plain, &cards_only)),
        "the template is not a carousel, got 1 card"
    );
}

fn authentication() -> Template {
    template(
        "AUTHENTICATION",
        TemplateStructure {
            body: BodySpec::Positional(1),
            buttons: vec![spec(0, ButtonKind::Url, 1)],
            ..TemplateStructure::default()
        },
    )
}

#[test]
fn the_code_shorthand_fills_the_body_and_the_code_button() {
    let mut vars = TemplateVariables::named(vec![(p("code"), text("482913"))]);
    expand_code_shorthand(&authentication(), &mut vars);
    assert_eq!(
        vars,
        TemplateVariables {
            body: BodyValues::Positional(vec![text("482913")]),
            buttons: vec![ButtonValue::new(0, ButtonKind::Url, vec![text("482913")])],
            ..TemplateVariables::default()
        }
    );
    assert_eq!(check_variables(&authentication(), &vars), Ok(()));
}

#[test]
fn the_code_shorthand_leaves_other_templates_and_forms_alone() {
    let named = template(
        "UTILITY",
        TemplateStructure {
            body: BodySpec::Named(vec![p("code")]),
            ..TemplateStructure::default()
        },
    );
    let shorthand = TemplateVariables::named(vec![(p("code"), text("482913"))]);
    let mut vars = shorthand.clone();
    expand_code_shorthand(&named, &mut vars);
    assert_eq!(vars, shorthand, "a named `code` variable keeps its meaning");
    assert_eq!(check_variables(&named, &vars), Ok(()));

    let mut other_key = TemplateVariables::named(vec![(p("otp"), text("1"))]);
    expand_code_shorthand(&authentication(), &mut other_key);
    assert!(matches!(other_key.body, BodyValues::Named(_)));
    assert!(mismatch(check_variables(&authentication(), &other_key)).contains("by name"));
}

use super::*;
use crate::attachment::MediaSource;
use crate::values::MediaLink;
use check::{TemplateCheckError, check_variables};
use ulid::Ulid;

fn text(v: &str) -> TemplateText {
    TemplateText::parse(v).unwrap()
}

fn template(structure: TemplateStructure) -> Template {
    Template {
        id: TemplateId::from_ulid(Ulid::from_parts(1, 1)),
        organization_id: OrganizationId::from_ulid(Ulid::from_parts(1, 2)),
        waba_id: NetworkRef::parse("2000000001").unwrap(),
        name: TemplateName::parse("order_shipped").unwrap(),
        language: LanguageCode::parse("en_US").unwrap(),
        status: TemplateStatus::approved(),
        category: "UTILITY".into(),
        structure,
        network_id: None,
        synced_at: chrono::DateTime::from_timestamp(0, 0).unwrap(),
        health: Default::default(),
    }
}

fn order_shipped() -> Template {
    template(TemplateStructure {
        header: HeaderSpec::Text,
        body: BodySpec::Positional(3),
        buttons: vec![ButtonSpec {
            index: 0,
            kind: ButtonKind::Url,
            parameters: 1,
        }],
        ..TemplateStructure::default()
    })
}

fn full_order_variables() -> TemplateVariables {
    TemplateVariables {
        header: Some(HeaderValue::Text(vec![text("#1234")])),
        body: BodyValues::Positional(vec![text("Ana"), text("#1234"), text("Friday")]),
        buttons: vec![ButtonValue {
            index: 0,
            kind: ButtonKind::Url,
            values: vec![text("track/1234")],
            flow_action_data: None,
        }],
        ..TemplateVariables::default()
    }
}

fn media(kind: MediaKind) -> HeaderValue {
    HeaderValue::Media(MediaAttachment {
        kind,
        source: MediaSource::Link(MediaLink::parse("https://example.com/f").unwrap()),
        filename: None,
    })
}

fn mismatch(result: Result<(), TemplateCheckError>) -> String {
    match result {
        Err(TemplateCheckError::Mismatch(detail)) => detail,
        other => panic!("expected a mismatch, got {other:?}"),
    }
}

#[test]
fn the_full_form_fits_order_shipped() {
    assert_eq!(check_variables(&order_shipped(), &full_order_variables()), Ok(()));
}

#[test]
fn body_count_is_reported_expected_vs_given() {
    let mut vars = full_order_variables();
    vars.body = BodyValues::Positional(vec![text("Ana"), text("#1234")]);
    assert_eq!(
        mismatch(check_variables(&order_shipped(), &vars)),
        "body expects 3 parameters, got 2"
    );
    let hello = template(TemplateStructure {
        header: HeaderSpec::None,
        body: BodySpec::Positional(0),
        buttons: vec![],
        ..TemplateStructure::default()
    });
    let extra = TemplateVariables::positional(vec![text("x")]);
    assert_eq!(
        mismatch(check_variables(&hello, &extra)),
        "body expects 0 parameters, got 1"
    );
    assert_eq!(check_variables(&hello, &TemplateVariables::default()), Ok(()));
}

#[test]
fn not_approved_templates_are_refused_first() {
    let mut paused = order_shipped();
    paused.status = TemplateStatus::parse("PAUSED").unwrap();
    assert_eq!(
        check_variables(&paused, &full_order_variables()),
        Err(TemplateCheckError::NotApproved("PAUSED".into()))
    );
}

#[test]
fn header_presence_and_kind() {
    let mut vars = full_order_variables();
    vars.header = None;
    assert_eq!(
        mismatch(check_variables(&order_shipped(), &vars)),
        "header expects 1 parameter, got 0"
    );
    vars.header = Some(HeaderValue::Text(vec![text("a"), text("b")]));
    assert_eq!(
        mismatch(check_variables(&order_shipped(), &vars)),
        "header expects 1 parameter, got 2"
    );

    let invoice = template(TemplateStructure {
        header: HeaderSpec::Media(MediaKind::Document),
        body: BodySpec::Positional(1),
        buttons: vec![],
        ..TemplateStructure::default()
    });
    let mut vars = TemplateVariables::positional(vec![text("INV-1")]);
    assert_eq!(
        mismatch(check_variables(&invoice, &vars)),
        "header expects a document"
    );
    vars.header = Some(media(MediaKind::Image));
    assert_eq!(
        check_variables(&invoice, &vars),
        Err(TemplateCheckError::HeaderMediaMismatch {
            part: "the template header".into(),
            expected: "a document",
            got: "an image"
        })
    );
    vars.header = Some(media(MediaKind::Document));
    assert_eq!(check_variables(&invoice, &vars), Ok(()));

    let plain = template(TemplateStructure {
        header: HeaderSpec::None,
        body: BodySpec::Positional(1),
        buttons: vec![],
        ..TemplateStructure::default()
    });
    assert_eq!(
        mismatch(check_variables(&plain, &vars)),
        "the template's header takes no parameter"
    );
}

#[test]
fn named_bodies_match_by_name() {
    let named = template(TemplateStructure {
        header: HeaderSpec::None,
        body: BodySpec::Named(vec![
            ParamName::parse("customer").unwrap(),
            ParamName::parse("date").unwrap(),
        ]),
        buttons: vec![],
        ..TemplateStructure::default()
    });
    let p = |n: &str| ParamName::parse(n).unwrap();
    let ok = TemplateVariables::named(vec![(p("date"), text("Friday")), (p("customer"), text("Ana"))]);
    assert_eq!(check_variables(&named, &ok), Ok(()));
    let missing = TemplateVariables::named(vec![(p("customer"), text("Ana")), (p("when"), text("x"))]);
    assert_eq!(
        mismatch(check_variables(&named, &missing)),
        "body expects parameters named customer, date; missing date; unknown when"
    );
    let positional = TemplateVariables::positional(vec![text("Ana"), text("Friday")]);
    assert_eq!(
        mismatch(check_variables(&named, &positional)),
        "body expects named parameters (customer, date), got 2 by position"
    );
    let twice = TemplateVariables::named(vec![(p("customer"), text("A")), (p("customer"), text("B"))]);
    assert!(mismatch(check_variables(&named, &twice)).contains("twice"));
    let positional_template = template(TemplateStructure {
        header: HeaderSpec::None,
        body: BodySpec::Positional(1),
        buttons: vec![],
        ..TemplateStructure::default()
    });
    let by_name = TemplateVariables::named(vec![(p("customer"), text("A"))]);
    assert_eq!(
        mismatch(check_variables(&positional_template, &by_name)),
        "body expects 1 parameter by position, got 1 by name"
    );
}

#[test]
fn buttons_by_index() {
    let mut vars = full_order_variables();
    vars.buttons.clear();
    assert_eq!(
        mismatch(check_variables(&order_shipped(), &vars)),
        "button 0 (url) expects 1 parameter, got none"
    );
    vars.buttons = vec![ButtonValue {
        index: 1,
        kind: ButtonKind::Url,
        values: vec![text("x")],
        flow_action_data: None,
    }];
    assert_eq!(
        mismatch(check_variables(&order_shipped(), &vars)),
        "the template has no button at index 1"
    );
    vars.buttons = vec![ButtonValue {
        index: 0,
        kind: ButtonKind::QuickReply,
        values: vec![],
        flow_action_data: None,
    }];
    assert_eq!(
        mismatch(check_variables(&order_shipped(), &vars)),
        "button 0 is a url button, got quick_reply"
    );
    vars.buttons = vec![ButtonValue {
        index: 0,
        kind: ButtonKind::Url,
        values: vec![text("a"), text("b")],
        flow_action_data: None,
    }];
    assert_eq!(
        mismatch(check_variables(&order_shipped(), &vars)),
        "button 0 (url) expects 1 parameter, got 2"
    );
    let url = ButtonValue {
        index: 0,
        kind: ButtonKind::Url,
        values: vec![text("a")],
        flow_action_data: None,
    };
    vars.buttons = vec![url.clone(), url];
    assert_eq!(
        mismatch(check_variables(&order_shipped(), &vars)),
        "button 0 is given twice"
    );
}

#[test]
fn quick_reply_payload_is_optional() {
    let promo = template(TemplateStructure {
        header: HeaderSpec::None,
        body: BodySpec::Positional(0),
        buttons: vec![ButtonSpec {
            index: 0,
            kind: ButtonKind::QuickReply,
            parameters: 0,
        }],
        ..TemplateStructure::default()
    });
    assert_eq!(check_variables(&promo, &TemplateVariables::default()), Ok(()));
    let with_payload = TemplateVariables {
        buttons: vec![ButtonValue {
            index: 0,
            kind: ButtonKind::QuickReply,
            values: vec![text("STOP")],
            flow_action_data: None,
        }],
        ..TemplateVariables::default()
    };
    assert_eq!(check_variables(&promo, &with_payload), Ok(()));
}

#[test]
fn text_values_follow_the_network_rules() {
    assert!(TemplateText::parse("Ana").is_ok());
    assert!(TemplateText::parse("four    spaces").is_ok());
    assert!(TemplateText::parse("five     spaces").is_err());
    assert!(TemplateText::parse("line\nbreak").is_err());
    assert!(TemplateText::parse("tab\there").is_err());
    assert!(TemplateText::parse("").is_err());
    assert!(TemplateText::parse(&"é".repeat(1024)).is_ok());
    assert!(TemplateText::parse(&"é".repeat(1025)).is_err());
}

#[test]
fn names_and_languages() {
    assert!(TemplateName::parse("order_shipped").is_ok());
    assert!(TemplateName::parse("Order").is_err());
    for ok in ["en", "en_US", "pt_BR", "fil", "zh_HK"] {
        assert!(LanguageCode::parse(ok).is_ok(), "{ok}");
    }
    for bad in ["", "e", "EN", "en-US", "en_", "english_US"] {
        assert!(LanguageCode::parse(bad).is_err(), "{bad}");
    }
}

//! `template::check_variables` with arbitrary template structures and arbitrary variables: never a panic,
//! an unapproved template always refused, and variables built to fit a structure always accepted.
#![no_main]

use arbitrary::Arbitrary;
use herald_domain::ids::{OrganizationId, TemplateId};
use herald_domain::attachment::{MediaAttachment, MediaKind, MediaSource};
use herald_domain::organization::NetworkRef;
use herald_domain::template::{
    BodySpec, BodyValues, ButtonKind, ButtonSpec, ButtonValue, HeaderSpec, HeaderValue, LanguageCode,
    ParamName, Template, TemplateName, TemplateStatus, TemplateStructure, TemplateText, TemplateVariables,
};
use herald_domain::template::check::check_variables;
use herald_domain::values::MediaLink;
use libfuzzer_sys::fuzz_target;

#[derive(Debug, Arbitrary)]
enum Kind {
    Document,
    Image,
    Video,
}

#[derive(Debug, Arbitrary)]
enum Header {
    None,
    Text,
    Media(Kind),
    Location,
}

#[derive(Debug, Arbitrary)]
enum Body {
    Positional(u8),
    Named(Vec<String>),
}

#[derive(Debug, Arbitrary)]
enum Button {
    QuickReply,
    Url,
    CopyCode,
    Flow,
    Static,
}

#[derive(Debug, Arbitrary)]
struct Structure {
    approved: bool,
    header: Header,
    body: Body,
    buttons: Vec<(u8, Button, u8)>,
}

#[derive(Debug, Arbitrary)]
enum HeaderGiven {
    Text(Vec<String>),
    Media(Kind),
}

#[derive(Debug, Arbitrary)]
enum BodyGiven {
    Positional(Vec<String>),
    Named(Vec<(String, String)>),
}

#[derive(Debug, Arbitrary)]
struct Variables {
    header: Option<HeaderGiven>,
    body: BodyGiven,
    buttons: Vec<(u8, Button, Vec<String>)>,
}

#[derive(Debug, Arbitrary)]
struct Input {
    structure: Structure,
    variables: Variables,
}

fn kind(kind: &Kind) -> MediaKind {
    match kind {
        Kind::Document => MediaKind::Document,
        Kind::Image => MediaKind::Image,
        Kind::Video => MediaKind::Video,
    }
}

fn button(button: &Button) -> ButtonKind {
    match button {
        Button::QuickReply => ButtonKind::QuickReply,
        Button::Url => ButtonKind::Url,
        Button::CopyCode => ButtonKind::CopyCode,
        Button::Flow => ButtonKind::Flow,
        Button::Static => ButtonKind::Static,
    }
}

fn media(kind: MediaKind) -> MediaAttachment {
    MediaAttachment {
        kind,
        source: MediaSource::Link(MediaLink::parse("https://example.com/file").unwrap()),
        filename: None,
    }
}

/// Strings that pass the domain's rules; the rest are dropped, as the HTTP front refuses them.
fn texts(values: &[String]) -> Vec<TemplateText> {
    values
        .iter()
        .filter_map(|v| TemplateText::parse(v).ok())
        .collect()
}

fn text() -> TemplateText {
    TemplateText::parse("x").unwrap()
}

fn template(structure: TemplateStructure, approved: bool) -> Template {
    Template {
        id: TemplateId::from_ulid(ulid::Ulid::nil()),
        organization_id: OrganizationId::from_ulid(ulid::Ulid::nil()),
        waba_id: NetworkRef::parse("1").unwrap(),
        name: TemplateName::parse("fuzz").unwrap(),
        language: LanguageCode::parse("en").unwrap(),
        status: if approved {
            TemplateStatus::approved()
        } else {
            TemplateStatus::parse("PAUSED").unwrap()
        },
        category: "UTILITY".to_owned(),
        structure,
        network_id: None,
        synced_at: chrono::DateTime::UNIX_EPOCH,
        health: Default::default(),
    }
}

/// Variables that fill `structure` exactly, when it can be filled at all.
fn fitting(structure: &TemplateStructure) -> Option<TemplateVariables> {
    let header = match &structure.header {
        HeaderSpec::None => None,
        HeaderSpec::Text => Some(HeaderValue::Text(vec![text()])),
        HeaderSpec::NamedText(name) => Some(HeaderValue::NamedText(vec![(name.clone(), text())])),
        HeaderSpec::Media(kind) => Some(HeaderValue::Media(media(*kind))),
        HeaderSpec::Location => return None,
    };
    let body = match &structure.body {
        BodySpec::Positional(n) => BodyValues::Positional(vec![text(); *n]),
        BodySpec::Named(names) => BodyValues::Named(names.iter().map(|n| (n.clone(), text())).collect()),
    };
    let mut indexes = std::collections::BTreeSet::new();
    let buttons = structure
        .buttons
        .iter()
        .filter(|b| b.parameters > 0)
        .map(|b| {
            indexes.insert(b.index).then(|| ButtonValue {
                index: b.index,
                kind: b.kind,
                values: vec![text(); usize::from(b.parameters)],
                flow_action_data: None,
            })
        })
        .collect::<Option<Vec<_>>>()?;
    // Two buttons sharing an index cannot both be filled: such a structure is not fillable.
    let all: std::collections::BTreeSet<u8> = structure.buttons.iter().map(|b| b.index).collect();
    (all.len() == structure.buttons.len()).then_some(TemplateVariables {
        header,
        body,
        buttons,
        ..TemplateVariables::default()
    })
}

fuzz_target!(|input: Input| {
    let s = &input.structure;
    let mut names: Vec<ParamName> = match &s.body {
        Body::Named(names) => names.iter().filter_map(|n| ParamName::parse(n).ok()).collect(),
        Body::Positional(_) => Vec::new(),
    };
    names.sort();
    names.dedup();
    let structure = TemplateStructure {
        header: match &s.header {
            Header::None => HeaderSpec::None,
            Header::Text => HeaderSpec::Text,
            Header::Media(k) => HeaderSpec::Media(kind(k)),
            Header::Location => HeaderSpec::Location,
        },
        body: match &s.body {
            Body::Positional(n) => BodySpec::Positional(usize::from(*n)),
            Body::Named(_) => BodySpec::Named(names),
        },
        buttons: s
            .buttons
            .iter()
            .map(|(index, b, parameters)| ButtonSpec {
                index: *index % 10,
                kind: button(b),
                // A quick reply's payload and a Flow's token are one optional value at most: the
                // network's template definitions never declare more for them.
                parameters: if matches!(b, Button::QuickReply | Button::Flow) {
                    *parameters % 2
                } else {
                    *parameters % 3
                },
            })
            .collect(),
        ..TemplateStructure::default()
    };
    let v = &input.variables;
    let variables = TemplateVariables {
        header: v.header.as_ref().map(|h| match h {
            HeaderGiven::Text(values) => HeaderValue::Text(texts(values)),
            HeaderGiven::Media(k) => HeaderValue::Media(media(kind(k))),
        }),
        body: match &v.body {
            BodyGiven::Positional(values) => BodyValues::Positional(texts(values)),
            BodyGiven::Named(pairs) => BodyValues::Named(
                pairs
                    .iter()
                    .filter_map(|(n, t)| Some((ParamName::parse(n).ok()?, TemplateText::parse(t).ok()?)))
                    .collect(),
            ),
        },
        buttons: v
            .buttons
            .iter()
            .map(|(index, b, values)| ButtonValue {
                index: *index % 10,
                kind: button(b),
                values: texts(values),
                flow_action_data: None,
            })
            .collect(),
        ..TemplateVariables::default()
    };
    let fit = fitting(&structure);
    let template = template(structure, s.approved);
    let result = check_variables(&template, &variables);
    if let Err(error) = &result {
        let _ = error.to_string();
    }
    if !s.approved {
        assert!(result.is_err(), "an unapproved template accepted variables");
    } else if let Some(fit) = fit {
        assert_eq!(
            check_variables(&template, &fit),
            Ok(()),
            "fitting variables refused: {template:?}"
        );
    }
});

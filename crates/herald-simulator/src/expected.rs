//! What a send of a template must give, read from its definition as the listing shows it (seeded or
//! created through the simulator alike): header, body, buttons, limited-time offer, carousel cards.

use serde_json::Value;

/// A template's header at send time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Header {
    None,
    /// A TEXT header with one `{{1}}`.
    Text,
    /// A TEXT header with one named variable.
    NamedText(String),
    /// A media header; the value is the lowercase send-time parameter type.
    Media(String),
    Location,
}

/// The body's variables: how many positional ones, or which names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum BodyParams {
    Positional(usize),
    Named(Vec<String>),
}

/// A button and what its send-time component must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Button {
    /// A URL button ending in `{{1}}`, or an authentication template's code button: `sub_type: url`, one
    /// text parameter, required.
    DynamicUrl,
    /// `sub_type: quick_reply`, optional, one payload parameter.
    QuickReply,
    /// `sub_type: copy_code`, required, one coupon_code parameter.
    CopyCode,
    /// `sub_type: flow`, optional, one action parameter.
    Flow,
    /// Phone number, static URL, and others: nothing to give.
    Static,
}

impl Button {
    pub(crate) fn sub_type(self) -> &'static str {
        match self {
            Self::DynamicUrl => "url",
            Self::QuickReply => "quick_reply",
            Self::CopyCode => "copy_code",
            Self::Flow => "flow",
            Self::Static => "static",
        }
    }

    pub(crate) fn required(self) -> bool {
        matches!(self, Self::DynamicUrl | Self::CopyCode)
    }
}

/// A carousel card at send time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Card {
    /// `image` or `video`.
    pub(crate) header: String,
    pub(crate) body: BodyParams,
    pub(crate) buttons: Vec<Button>,
}

/// What a send of a template must give, whichever way the template came to exist.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Expected {
    pub(crate) status: String,
    pub(crate) category: String,
    pub(crate) header: Header,
    pub(crate) body: BodyParams,
    /// By index.
    pub(crate) buttons: Vec<Button>,
    /// A limited-time offer: whether its expiration is given at send time.
    pub(crate) offer: Option<bool>,
    pub(crate) cards: Vec<Card>,
}

impl Expected {
    /// Reads a definition in the listing's format (docs/cloud-api.md §3).
    pub(crate) fn from_definition(definition: &Value) -> Self {
        let named = text_of(definition, "parameter_format").eq_ignore_ascii_case("NAMED");
        let components = components_of(definition);
        let mut expected = Self {
            status: text_of(definition, "status").to_owned(),
            category: text_of(definition, "category").to_owned(),
            header: Header::None,
            body: BodyParams::Positional(0),
            buttons: Vec::new(),
            offer: None,
            cards: Vec::new(),
        };
        for component in components {
            match text_of(component, "type").to_ascii_uppercase().as_str() {
                "HEADER" => expected.header = header(component, named),
                // An authentication template's text is the network's: "{{1}} is your verification code".
                "BODY" if expected.category.eq_ignore_ascii_case("AUTHENTICATION") => {
                    expected.body = BodyParams::Positional(1);
                }
                "BODY" => expected.body = body(component, named),
                "BUTTONS" => expected.buttons = buttons(component),
                "LIMITED_TIME_OFFER" => {
                    expected.offer = Some(
                        component
                            .get("limited_time_offer")
                            .and_then(|o| o.get("has_expiration"))
                            .and_then(Value::as_bool)
                            .unwrap_or(false),
                    );
                }
                "CAROUSEL" => {
                    expected.cards = component
                        .get("cards")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .map(|card| {
                            let mut parsed = Card {
                                header: "image".to_owned(),
                                body: BodyParams::Positional(0),
                                buttons: Vec::new(),
                            };
                            for part in components_of(card) {
                                match text_of(part, "type").to_ascii_uppercase().as_str() {
                                    "HEADER" => {
                                        parsed.header = text_of(part, "format").to_ascii_lowercase();
                                    }
                                    "BODY" => parsed.body = body(part, named),
                                    "BUTTONS" => parsed.buttons = buttons(part),
                                    _ => {}
                                }
                            }
                            parsed
                        })
                        .collect();
                }
                _ => {}
            }
        }
        expected
    }
}

fn components_of(value: &Value) -> impl Iterator<Item = &Value> {
    value
        .get("components")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

fn header(component: &Value, named: bool) -> Header {
    match text_of(component, "format").to_ascii_uppercase().as_str() {
        "TEXT" | "" => match placeholders(text_of(component, "text")).into_iter().next() {
            None => Header::None,
            Some(name) if named => Header::NamedText(name),
            Some(_) => Header::Text,
        },
        "LOCATION" => Header::Location,
        other => Header::Media(other.to_ascii_lowercase()),
    }
}

fn body(component: &Value, named: bool) -> BodyParams {
    let names = placeholders(text_of(component, "text"));
    if named {
        BodyParams::Named(names)
    } else {
        BodyParams::Positional(names.len())
    }
}

fn buttons(component: &Value) -> Vec<Button> {
    component
        .get("buttons")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|b| match text_of(b, "type").to_ascii_uppercase().as_str() {
            "URL" if text_of(b, "url").contains("{{") => Button::DynamicUrl,
            "OTP" => Button::DynamicUrl,
            "QUICK_REPLY" => Button::QuickReply,
            "COPY_CODE" => Button::CopyCode,
            "FLOW" => Button::Flow,
            _ => Button::Static,
        })
        .collect()
}

pub(crate) fn text_of<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// The distinct `{{…}}` variables of a text, in order of first appearance.
pub(crate) fn placeholders(text: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        let after = rest.get(start + 2..).unwrap_or_default();
        let Some(end) = after.find("}}") else { break };
        let name = after.get(..end).unwrap_or_default().trim().to_owned();
        if !found.contains(&name) {
            found.push(name);
        }
        rest = after.get(end + 2..).unwrap_or_default();
    }
    found
}

//! The `BUTTONS` component: each button type's fields and the counts Meta allows.

use super::examples::placeholders;
use super::fields::{bounded, unknown};
use super::node::At;
use super::{
    BUTTON_TEXT_MAX, BUTTONS_MAX, ButtonDefinition, CARD_BUTTONS_MAX, COPY_CODE_MAX, Category, FlowTarget,
    Node, OtpKind, SIGNATURE_HASH_LEN, SUPPORTED_APPS_MAX, SupportedApp, URL_BUTTONS_MAX, URL_MAX,
};
use crate::FieldError;
use crate::error::ValidationErrors;
use crate::values::PhoneNumber;

/// Which buttons a `BUTTONS` component may hold where it is.
pub(super) struct ButtonRules {
    max: usize,
    /// Authentication templates hold exactly one OTP button and nothing else; others never hold one.
    authentication: bool,
    /// A carousel card's buttons: quick replies, URLs and phone numbers only.
    card: bool,
}

impl ButtonRules {
    pub fn top_level(category: Category) -> Self {
        Self {
            max: BUTTONS_MAX,
            authentication: category == Category::Authentication,
            card: false,
        }
    }

    pub fn card() -> Self {
        Self {
            max: CARD_BUTTONS_MAX,
            authentication: false,
            card: true,
        }
    }
}

pub(super) fn buttons(
    errors: &mut ValidationErrors,
    at: At<'_>,
    rules: &ButtonRules,
) -> Option<Vec<ButtonDefinition>> {
    unknown(errors, at, &["type", "buttons"]);
    let items = at.list(errors, "buttons")?;
    let list_path = at.path_of("buttons");
    if items.is_empty() || items.len() > rules.max {
        errors.push(FieldError::new(
            list_path,
            format!("holds 1 to {} buttons", rules.max),
        ));
        return None;
    }
    let mut parsed = Vec::new();
    for (path, node) in &items {
        let button = At { node, path };
        if !button.is_object(errors) {
            continue;
        }
        parsed.extend(one(errors, button, rules));
    }
    if parsed.len() != items.len() {
        return None;
    }
    counts(errors, &list_path, &parsed, rules);
    Some(parsed)
}

fn counts(errors: &mut ValidationErrors, path: &str, buttons: &[ButtonDefinition], rules: &ButtonRules) {
    let count = |kind: &str| buttons.iter().filter(|b| b.wire_type() == kind).count();
    let mut refuse = |message: String| errors.push(FieldError::new(path, message));
    if count("URL") > URL_BUTTONS_MAX {
        refuse(format!("holds {URL_BUTTONS_MAX} URL buttons at most"));
    }
    for kind in ["PHONE_NUMBER", "COPY_CODE", "FLOW", "VOICE_CALL"] {
        if count(kind) > 1 {
            refuse(format!("holds one {kind} button at most"));
        }
    }
    if rules.authentication && (buttons.len() != 1 || count("OTP") != 1) {
        refuse("an AUTHENTICATION template has exactly one button, of type OTP".to_owned());
    }
    // Quick replies sit together, before or after the other buttons: the network refuses them interleaved.
    let quick: Vec<bool> = buttons.iter().map(|b| b.wire_type() == "QUICK_REPLY").collect();
    let changes = quick
        .iter()
        .zip(quick.iter().skip(1))
        .filter(|(a, b)| a != b)
        .count();
    if changes > 1 {
        refuse("QUICK_REPLY buttons must be grouped together, before or after the other buttons".to_owned());
    }
    let mut texts: Vec<&str> = buttons.iter().filter_map(text_of).collect();
    texts.sort_unstable();
    if texts.iter().zip(texts.iter().skip(1)).any(|(a, b)| a == b) {
        refuse("button texts must differ from each other".to_owned());
    }
}

fn text_of(button: &ButtonDefinition) -> Option<&str> {
    match button {
        ButtonDefinition::QuickReply { text }
        | ButtonDefinition::Url { text, .. }
        | ButtonDefinition::PhoneNumber { text, .. }
        | ButtonDefinition::Flow { text, .. }
        | ButtonDefinition::VoiceCall { text } => Some(text),
        ButtonDefinition::Otp { text, .. } => text.as_deref(),
        ButtonDefinition::CopyCode { .. } => None,
    }
}

fn one(errors: &mut ValidationErrors, at: At<'_>, rules: &ButtonRules) -> Option<ButtonDefinition> {
    let kind = at.text(errors, "type", true)?.to_ascii_uppercase();
    let allowed: &[&str] = if rules.card {
        &["QUICK_REPLY", "URL", "PHONE_NUMBER"]
    } else if rules.authentication {
        &["OTP"]
    } else {
        &[
            "QUICK_REPLY",
            "URL",
            "PHONE_NUMBER",
            "COPY_CODE",
            "FLOW",
            "VOICE_CALL",
        ]
    };
    if !allowed.contains(&kind.as_str()) {
        errors.push(FieldError::new(
            at.path_of("type"),
            format!("must be one of {} here", allowed.join(", ")),
        ));
        return None;
    }
    let text =
        |errors: &mut ValidationErrors| bounded(errors, at, "text", BUTTON_TEXT_MAX).map(str::to_owned);
    match kind.as_str() {
        "QUICK_REPLY" => {
            unknown(errors, at, &["type", "text"]);
            text(errors).map(|text| ButtonDefinition::QuickReply { text })
        }
        "URL" => {
            unknown(errors, at, &["type", "text", "url", "example"]);
            let text = text(errors);
            let url = url(errors, at);
            let example = url_example(errors, at, url.as_deref());
            Some(ButtonDefinition::Url {
                text: text?,
                url: url?,
                example: example?,
            })
        }
        "PHONE_NUMBER" => {
            unknown(errors, at, &["type", "text", "phone_number"]);
            let text = text(errors);
            let phone = at
                .text(errors, "phone_number", true)
                .and_then(|s| errors.check(&at.path_of("phone_number"), PhoneNumber::parse(s)));
            Some(ButtonDefinition::PhoneNumber {
                text: text?,
                phone_number: phone?.as_str().to_owned(),
            })
        }
        "COPY_CODE" => {
            unknown(errors, at, &["type", "example"]);
            let example = bounded(errors, at, "example", COPY_CODE_MAX)?;
            Some(ButtonDefinition::CopyCode {
                example: example.to_owned(),
            })
        }
        "OTP" => otp(errors, at),
        "FLOW" => flow(errors, at),
        _ => {
            unknown(errors, at, &["type", "text"]);
            text(errors).map(|text| ButtonDefinition::VoiceCall { text })
        }
    }
}

/// An absolute http(s) address, with at most one variable, `{{1}}`, at its very end.
fn url(errors: &mut ValidationErrors, at: At<'_>) -> Option<String> {
    let url = bounded(errors, at, "url", URL_MAX)?;
    let path = at.path_of("url");
    let scheme_ok = url.starts_with("https://") || url.starts_with("http://");
    if !scheme_ok || url.contains(char::is_whitespace) {
        errors.push(FieldError::new(path, "must be an absolute http(s) address"));
        return None;
    }
    match placeholders(url).as_slice() {
        [] => {}
        ["1"] if url.ends_with("{{1}}") => {}
        _ => {
            errors.push(FieldError::new(
                path,
                "may hold one variable, {{1}}, and only at its end",
            ));
            return None;
        }
    }
    Some(url.to_owned())
}

/// A URL with a variable needs `example: ["<the full address>"]`; a fixed URL takes none.
fn url_example(errors: &mut ValidationErrors, at: At<'_>, url: Option<&str>) -> Option<Option<String>> {
    let dynamic = url.is_some_and(|u| u.ends_with("{{1}}"));
    let path = at.path_of("example");
    match (at.field("example"), dynamic) {
        (None, false) => Some(None),
        (Some(_), false) => {
            errors.push(FieldError::new(
                path,
                "only a URL with a {{1}} variable takes an example",
            ));
            None
        }
        (None, true) => {
            errors.push(FieldError::new(
                path,
                "a URL with a variable needs an example: the full address",
            ));
            None
        }
        (Some(Node::List(items)), true) => match items.as_slice() {
            [Node::Text(full)] if full.starts_with("http") => Some(Some(full.clone())),
            _ => {
                errors.push(FieldError::new(
                    path,
                    "must hold exactly one full example address",
                ));
                None
            }
        },
        (Some(other), true) => {
            errors.push(FieldError::new(
                path,
                format!("must be an array, not {}", other.describe()),
            ));
            None
        }
    }
}

fn otp(errors: &mut ValidationErrors, at: At<'_>) -> Option<ButtonDefinition> {
    unknown(
        errors,
        at,
        &[
            "type",
            "otp_type",
            "text",
            "autofill_text",
            "supported_apps",
            "zero_tap_terms_accepted",
        ],
    );
    let kind = match at.text(errors, "otp_type", true)?.to_ascii_uppercase().as_str() {
        "COPY_CODE" => OtpKind::CopyCode,
        "ONE_TAP" => OtpKind::OneTap,
        "ZERO_TAP" => OtpKind::ZeroTap,
        _ => {
            errors.push(FieldError::new(
                at.path_of("otp_type"),
                "must be COPY_CODE, ONE_TAP or ZERO_TAP",
            ));
            return None;
        }
    };
    let optional_text = |errors: &mut ValidationErrors, name: &str| {
        at.has(name)
            .then(|| bounded(errors, at, name, BUTTON_TEXT_MAX).map(str::to_owned))
            .flatten()
    };
    let text = optional_text(errors, "text");
    let autofill_text = optional_text(errors, "autofill_text");
    if autofill_text.is_some() && kind != OtpKind::OneTap {
        errors.push(FieldError::new(
            at.path_of("autofill_text"),
            "only a ONE_TAP button has an autofill text",
        ));
    }
    let apps = if kind == OtpKind::CopyCode {
        if at.has("supported_apps") {
            errors.push(FieldError::new(
                at.path_of("supported_apps"),
                "a COPY_CODE button names no app",
            ));
        }
        Vec::new()
    } else {
        supported_apps(errors, at)?
    };
    let zero_tap_terms_accepted = at.boolean(errors, "zero_tap_terms_accepted").unwrap_or(false);
    if kind == OtpKind::ZeroTap && !zero_tap_terms_accepted {
        errors.push(FieldError::new(
            at.path_of("zero_tap_terms_accepted"),
            "must be true: zero-tap needs the business to accept Meta's zero-tap terms",
        ));
        return None;
    }
    Some(ButtonDefinition::Otp {
        kind,
        text,
        autofill_text,
        apps,
        zero_tap_terms_accepted,
    })
}

fn supported_apps(errors: &mut ValidationErrors, at: At<'_>) -> Option<Vec<SupportedApp>> {
    let items = at.list(errors, "supported_apps")?;
    if items.is_empty() || items.len() > SUPPORTED_APPS_MAX {
        errors.push(FieldError::new(
            at.path_of("supported_apps"),
            format!("names 1 to {SUPPORTED_APPS_MAX} apps"),
        ));
        return None;
    }
    let mut apps = Vec::new();
    for (path, node) in &items {
        let app = At { node, path };
        if !app.is_object(errors) {
            continue;
        }
        unknown(errors, app, &["package_name", "signature_hash"]);
        let package = app.text(errors, "package_name", true).filter(|p| {
            let valid = p.len() <= 224
                && p.split('.').count() >= 2
                && p.split('.').all(|part| {
                    part.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                        && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                });
            if !valid {
                errors.push(FieldError::new(
                    app.path_of("package_name"),
                    "must be an Android package name such as com.example.app",
                ));
            }
            valid
        });
        let hash = app.text(errors, "signature_hash", true).filter(|h| {
            let valid = h.chars().count() == SIGNATURE_HASH_LEN
                && h.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '+' || c == '/');
            if !valid {
                errors.push(FieldError::new(
                    app.path_of("signature_hash"),
                    format!("must be the app's {SIGNATURE_HASH_LEN}-character signature hash"),
                ));
            }
            valid
        });
        if let (Some(package), Some(hash)) = (package, hash) {
            apps.push(SupportedApp {
                package_name: package.to_owned(),
                signature_hash: hash.to_owned(),
            });
        }
    }
    (apps.len() == items.len()).then_some(apps)
}

fn flow(errors: &mut ValidationErrors, at: At<'_>) -> Option<ButtonDefinition> {
    unknown(
        errors,
        at,
        &[
            "type",
            "text",
            "flow_id",
            "flow_name",
            "flow_action",
            "navigate_screen",
        ],
    );
    let text = bounded(errors, at, "text", BUTTON_TEXT_MAX).map(str::to_owned);
    let id = at.text(errors, "flow_id", false);
    let name = at.text(errors, "flow_name", false);
    let target = match (id, name) {
        (Some(id), None) if !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()) => {
            Some(FlowTarget::Id(id.to_owned()))
        }
        (Some(_), None) => {
            errors.push(FieldError::new(
                at.path_of("flow_id"),
                "must be the Flow's numeric id",
            ));
            None
        }
        (None, Some(name)) if !name.trim().is_empty() => Some(FlowTarget::Name(name.to_owned())),
        _ => {
            errors.push(FieldError::new(
                at.path.to_owned(),
                "needs exactly one of `flow_id` and `flow_name`",
            ));
            None
        }
    };
    let action = at.text(errors, "flow_action", false).map(str::to_ascii_lowercase);
    if let Some(action) = &action
        && action != "navigate"
        && action != "data_exchange"
    {
        errors.push(FieldError::new(
            at.path_of("flow_action"),
            "must be navigate or data_exchange",
        ));
    }
    let navigate_screen = at.text(errors, "navigate_screen", false).map(str::to_owned);
    if navigate_screen.is_some() && action.as_deref() == Some("data_exchange") {
        errors.push(FieldError::new(
            at.path_of("navigate_screen"),
            "only a navigate Flow opens on a named screen",
        ));
    }
    Some(ButtonDefinition::Flow {
        text: text?,
        flow: target?,
        action,
        navigate_screen,
    })
}

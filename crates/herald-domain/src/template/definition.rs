//! A template to create or edit (docs/api.md §6.1): Meta's `message_templates` body, checked against Meta's
//! rules before it goes to the network, each error under the path the client wrote
//! (`components[2].buttons[1].url`). A definition Herald accepts is one the network cannot refuse for its
//! shape; the review of its content stays the network's.
//!
//! The limits, with their sources (Meta's "Message templates" guide, "Template components", "Authentication
//! templates", "Media card carousel templates", "Limited-time offer templates" pages):

mod buttons;
mod carousel;
mod examples;
mod fields;
mod node;
mod parse;
#[cfg(test)]
mod tests;

pub use node::Node;

use super::{
    BodySpec, ButtonKind, ButtonSpec, CardSpec, HeaderSpec, LanguageCode, OfferSpec, ParamName, TemplateName,
    TemplateStructure,
};
use crate::attachment::MediaKind;
use crate::ids::MediaId;

/// Header text: at most 60 characters, at most one variable.
pub const HEADER_TEXT_MAX: usize = 60;
/// Body text: at most 1,024 characters.
pub const BODY_MAX: usize = 1024;
/// Footer text: at most 60 characters, no variable.
pub const FOOTER_MAX: usize = 60;
/// Button text: at most 25 characters.
pub const BUTTON_TEXT_MAX: usize = 25;
/// At most 10 buttons in all; of them at most 2 URL buttons, 1 phone-number button, 1 copy-code button.
pub const BUTTONS_MAX: usize = 10;
pub const URL_BUTTONS_MAX: usize = 2;
/// A URL button's address: at most 2,000 characters.
pub const URL_MAX: usize = 2000;
/// A copy-code button's example code: at most 15 characters.
pub const COPY_CODE_MAX: usize = 15;
/// Carousel: 2 to 10 cards; each card's body at most 160 characters and 1 or 2 buttons.
pub const CARDS_MIN: usize = 2;
pub const CARDS_MAX: usize = 10;
pub const CARD_BODY_MAX: usize = 160;
pub const CARD_BUTTONS_MAX: usize = 2;
/// Limited-time offer text: at most 16 characters.
pub const OFFER_TEXT_MAX: usize = 16;
/// Authentication templates: the code expires after 1 to 90 minutes; one-tap and zero-tap buttons name 1 to 5
/// apps, each by its package name and its 11-character app signature hash.
pub const CODE_EXPIRATION_MAX: u8 = 90;
pub const SUPPORTED_APPS_MAX: usize = 5;
pub const SIGNATURE_HASH_LEN: usize = 11;

/// A template's category.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Category {
    Marketing,
    Utility,
    Authentication,
}

impl Category {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Marketing => "MARKETING",
            Self::Utility => "UTILITY",
            Self::Authentication => "AUTHENTICATION",
        }
    }
}

/// How a definition's variables are written: `{{1}}`, `{{2}}`, … or `{{first_name}}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParameterFormat {
    Positional,
    Named,
}

/// The example values Meta's review needs for a text's variables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Examples {
    /// The text has no variable.
    None,
    /// One value per `{{n}}`, in order.
    Positional(Vec<String>),
    /// One value per `{{name}}`.
    Named(Vec<(ParamName, String)>),
}

/// A text with its variables' examples.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExampleText {
    pub text: String,
    pub examples: Examples,
}

/// The sample file Meta's review needs for a media header: a handle of the network's resumable upload, or a
/// file uploaded to Herald, which Herald uploads for the review.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MediaSample {
    Handle(String),
    Upload(MediaId),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeaderDefinition {
    Text(ExampleText),
    Media { kind: MediaKind, sample: MediaSample },
    Location,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodyDefinition {
    Text(ExampleText),
    /// Authentication templates: the network writes the text; only the security sentence is optional.
    Authentication {
        add_security_recommendation: bool,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FooterDefinition {
    Text(String),
    /// Authentication templates: "This code expires in N minutes."
    CodeExpiration(u8),
}

/// How an authentication template hands its code over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OtpKind {
    CopyCode,
    OneTap,
    ZeroTap,
}

impl OtpKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::CopyCode => "COPY_CODE",
            Self::OneTap => "ONE_TAP",
            Self::ZeroTap => "ZERO_TAP",
        }
    }
}

/// An Android app a one-tap or zero-tap code is handed to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SupportedApp {
    pub package_name: String,
    pub signature_hash: String,
}

/// Which Flow a Flow button opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FlowTarget {
    Id(String),
    Name(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ButtonDefinition {
    QuickReply {
        text: String,
    },
    /// `url` may end in `{{1}}`, filled at send time; `example` is then the full address.
    Url {
        text: String,
        url: String,
        example: Option<String>,
    },
    PhoneNumber {
        text: String,
        phone_number: String,
    },
    CopyCode {
        example: String,
    },
    Otp {
        kind: OtpKind,
        text: Option<String>,
        autofill_text: Option<String>,
        apps: Vec<SupportedApp>,
        zero_tap_terms_accepted: bool,
    },
    Flow {
        text: String,
        flow: FlowTarget,
        /// `navigate` or `data_exchange`.
        action: Option<String>,
        navigate_screen: Option<String>,
    },
    VoiceCall {
        text: String,
    },
}

impl ButtonDefinition {
    /// The button's `type` as Meta writes it.
    pub fn wire_type(&self) -> &'static str {
        match self {
            Self::QuickReply { .. } => "QUICK_REPLY",
            Self::Url { .. } => "URL",
            Self::PhoneNumber { .. } => "PHONE_NUMBER",
            Self::CopyCode { .. } => "COPY_CODE",
            Self::Otp { .. } => "OTP",
            Self::Flow { .. } => "FLOW",
            Self::VoiceCall { .. } => "VOICE_CALL",
        }
    }

    /// What a send must give this button, as the stored structure says it.
    fn spec(&self, index: u8) -> ButtonSpec {
        let (kind, parameters) = match self {
            Self::QuickReply { .. } => (ButtonKind::QuickReply, 0),
            Self::Url { url, .. } => (ButtonKind::Url, u8::from(url.ends_with("{{1}}"))),
            Self::CopyCode { .. } => (ButtonKind::CopyCode, 1),
            // The code of an authentication template goes in its button, as a URL parameter would.
            Self::Otp { .. } => (ButtonKind::Url, 1),
            Self::Flow { .. } => (ButtonKind::Flow, 0),
            Self::PhoneNumber { .. } | Self::VoiceCall { .. } => (ButtonKind::Static, 0),
        };
        ButtonSpec {
            index,
            kind,
            parameters,
        }
    }
}

/// One card of a media-card carousel: a media header, a short body and 1 or 2 buttons.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Card {
    pub header: (MediaKind, MediaSample),
    pub body: ExampleText,
    pub buttons: Vec<ButtonDefinition>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Component {
    Header(HeaderDefinition),
    Body(BodyDefinition),
    Footer(FooterDefinition),
    Buttons(Vec<ButtonDefinition>),
    Carousel(Vec<Card>),
    LimitedTimeOffer { text: String, has_expiration: bool },
}

/// A template definition that passed every rule ([`TemplateDefinition::parse`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateDefinition {
    pub name: TemplateName,
    pub language: LanguageCode,
    pub category: Category,
    pub parameter_format: ParameterFormat,
    /// Lets the network move the template to the category its review finds.
    pub allow_category_change: bool,
    pub components: Vec<Component>,
}

impl TemplateDefinition {
    /// What a send of this template must fill, for the copy Herald keeps while the network reviews it.
    pub fn structure(&self) -> TemplateStructure {
        let mut structure = TemplateStructure::default();
        for component in &self.components {
            match component {
                Component::Header(HeaderDefinition::Text(text)) => match &text.examples {
                    Examples::None => {}
                    Examples::Named(pairs) => {
                        if let Some((name, _)) = pairs.first() {
                            structure.header = HeaderSpec::NamedText(name.clone());
                        }
                    }
                    Examples::Positional(_) => structure.header = HeaderSpec::Text,
                },
                Component::Header(HeaderDefinition::Media { kind, .. }) => {
                    structure.header = HeaderSpec::Media(*kind);
                }
                Component::Header(HeaderDefinition::Location) => structure.header = HeaderSpec::Location,
                Component::Body(BodyDefinition::Text(text)) => structure.body = body_spec(&text.examples),
                Component::Body(BodyDefinition::Authentication { .. }) => {
                    // "{{1}} is your verification code.": the code fills the one body variable.
                    structure.body = BodySpec::Positional(1);
                }
                Component::Buttons(buttons) => structure.buttons = button_specs(buttons),
                Component::Carousel(cards) => {
                    structure.cards = cards
                        .iter()
                        .map(|card| CardSpec {
                            header: card.header.0,
                            body: body_spec(&card.body.examples),
                            buttons: button_specs(&card.buttons),
                        })
                        .collect();
                }
                Component::LimitedTimeOffer { has_expiration, .. } => {
                    structure.offer = Some(OfferSpec {
                        has_expiration: *has_expiration,
                    });
                }
                Component::Footer(_) => {}
            }
        }
        structure
    }
}

fn body_spec(examples: &Examples) -> BodySpec {
    match examples {
        Examples::None => BodySpec::Positional(0),
        Examples::Positional(values) => BodySpec::Positional(values.len()),
        Examples::Named(pairs) => BodySpec::Named(pairs.iter().map(|(name, _)| name.clone()).collect()),
    }
}

fn button_specs(buttons: &[ButtonDefinition]) -> Vec<ButtonSpec> {
    buttons
        .iter()
        .enumerate()
        .filter_map(|(i, b)| u8::try_from(i).ok().map(|i| b.spec(i)))
        .collect()
}

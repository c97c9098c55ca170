//! Templates: the stored copy of what the network approved, the variables a send supplies, and the
//! matcher that checks one against the other before anything is stored or sent.

use crate::attachment::{MediaAttachment, MediaKind};
use crate::content::Location;
use crate::error::InvalidValue;
use crate::ids::{OrganizationId, TemplateId};
use crate::organization::NetworkRef;
use crate::time::Timestamp;
use std::fmt;

pub mod check;
pub mod definition;

/// A template's name: 1 to 512 lowercase letters, digits and underscores (the network's rule).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TemplateName(String);

impl TemplateName {
    /// # Errors
    /// [`InvalidValue`] when not a valid template name.
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        let valid = (1..=512).contains(&value.len())
            && value
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        if valid {
            Ok(Self(value.to_owned()))
        } else {
            Err(InvalidValue::new(
                "template names are 1 to 512 lowercase letters, digits or underscores",
            ))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for TemplateName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A template language code as the network writes it: `en`, `en_US`, `pt_BR`, `zh_HK`, `fil`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LanguageCode(String);

impl LanguageCode {
    /// # Errors
    /// [`InvalidValue`] when not shaped like `ll` or `ll_RR`.
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        let (lang, region) = match value.split_once('_') {
            Some((lang, region)) => (lang, Some(region)),
            None => (value, None),
        };
        let lang_ok = (2..=3).contains(&lang.len()) && lang.bytes().all(|b| b.is_ascii_lowercase());
        let region_ok =
            region.is_none_or(|r| (2..=4).contains(&r.len()) && r.bytes().all(|b| b.is_ascii_alphanumeric()));
        if lang_ok && region_ok {
            Ok(Self(value.to_owned()))
        } else {
            Err(InvalidValue::new(
                "language must be a code such as `en` or `en_US`",
            ))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for LanguageCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Names a template in one language.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TemplateRef {
    pub name: TemplateName,
    pub language: LanguageCode,
}

/// The network's review status of a template (`APPROVED`, `PAUSED`, …); unknown values are kept as given.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TemplateStatus(String);

impl TemplateStatus {
    pub const APPROVED: &'static str = "APPROVED";

    /// # Errors
    /// [`InvalidValue`] when empty or not uppercase letters and underscores.
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        if !value.is_empty()
            && value.len() <= 64
            && value.bytes().all(|b| b.is_ascii_uppercase() || b == b'_')
        {
            Ok(Self(value.to_owned()))
        } else {
            Err(InvalidValue::new(
                "template status must be an uppercase word such as APPROVED",
            ))
        }
    }

    pub fn approved() -> Self {
        Self(Self::APPROVED.to_owned())
    }

    pub fn is_approved(&self) -> bool {
        self.0 == Self::APPROVED
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The parameter name of a named template variable: 1 to 64 lowercase letters, digits and underscores.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ParamName(String);

impl ParamName {
    /// # Errors
    /// [`InvalidValue`] when not a valid parameter name.
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        let valid = (1..=64).contains(&value.len())
            && value
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        if valid {
            Ok(Self(value.to_owned()))
        } else {
            Err(InvalidValue::new(
                "parameter names are lowercase letters, digits or underscores",
            ))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// What a template's header needs at send time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeaderSpec {
    /// No header, or a header with no variable.
    None,
    /// A text header with one variable, `{{1}}`.
    Text,
    /// A text header with one named variable, `{{order_id}}`.
    NamedText(ParamName),
    /// A document, image or video header: the send supplies the file.
    Media(MediaKind),
    /// A location header: the send supplies the coordinates (and optionally a name and an address).
    Location,
}

/// What a template's body needs at send time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodySpec {
    /// `{{1}}…{{n}}`, filled in order.
    Positional(usize),
    /// `{{customer}}`, filled by name.
    Named(Vec<ParamName>),
}

/// A button's type as the send request names it (`sub_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ButtonKind {
    QuickReply,
    Url,
    CopyCode,
    Flow,
    /// Phone number, OTP, catalog and other buttons that take nothing at send time.
    Static,
}

impl ButtonKind {
    pub fn sub_type(self) -> &'static str {
        match self {
            Self::QuickReply => "quick_reply",
            Self::Url => "url",
            Self::CopyCode => "copy_code",
            Self::Flow => "flow",
            Self::Static => "static",
        }
    }

    /// # Errors
    /// [`InvalidValue`] for a sub_type a send cannot use.
    pub fn parse_sub_type(value: &str) -> Result<Self, InvalidValue> {
        match value {
            "quick_reply" => Ok(Self::QuickReply),
            "url" => Ok(Self::Url),
            "copy_code" => Ok(Self::CopyCode),
            "flow" => Ok(Self::Flow),
            other => Err(InvalidValue::new(format!(
                "sub_type must be url, quick_reply, copy_code or flow, not `{other}`"
            ))),
        }
    }
}

/// One button of a template and how many values a send must give it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ButtonSpec {
    /// Zero-based position in the template.
    pub index: u8,
    pub kind: ButtonKind,
    /// Values the send must supply (a dynamic URL suffix or a coupon code: 1; most others: 0).
    pub parameters: u8,
}

/// A limited-time offer component: whether the send gives the offer's expiration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OfferSpec {
    pub has_expiration: bool,
}

/// One card of a media-card carousel: its media header, its body's variables and its buttons.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardSpec {
    pub header: MediaKind,
    pub body: BodySpec,
    pub buttons: Vec<ButtonSpec>,
}

/// The parsed structure of a template: exactly what a send must fill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateStructure {
    pub header: HeaderSpec,
    pub body: BodySpec,
    pub buttons: Vec<ButtonSpec>,
    /// Limited-time offer templates only.
    pub offer: Option<OfferSpec>,
    /// Media-card carousels only: one entry per card, in the template's order (2 to 10).
    pub cards: Vec<CardSpec>,
}

impl Default for TemplateStructure {
    /// A template that takes nothing at send time.
    fn default() -> Self {
        Self {
            header: HeaderSpec::None,
            body: BodySpec::Positional(0),
            buttons: Vec::new(),
            offer: None,
            cards: Vec::new(),
        }
    }
}

/// Herald's copy of a template, as last synced from the network.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    pub id: TemplateId,
    pub organization_id: OrganizationId,
    pub waba_id: NetworkRef,
    pub name: TemplateName,
    pub language: LanguageCode,
    pub status: TemplateStatus,
    /// `MARKETING`, `UTILITY`, `AUTHENTICATION`, or a legacy value, kept as given.
    pub category: String,
    pub structure: TemplateStructure,
    /// The network's id of the template, when known.
    pub network_id: Option<String>,
    pub synced_at: Timestamp,
    /// Quality, rejection reason and the time of the last change.
    pub health: TemplateHealth,
}

/// What the network says of a template besides its definition: its quality rating and why it was rejected,
/// from the listing (`quality_score.score`, `rejected_reason`) or from the template webhooks, and when
/// Herald's copy last changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TemplateHealth {
    /// `GREEN`, `YELLOW`, `RED` or `UNKNOWN`, when the network rated it.
    pub quality: Option<crate::network::QualityScore>,
    /// The network's reason for a rejection (`INVALID_FORMAT`, …); `None` when not rejected.
    pub rejected_reason: Option<String>,
    /// When Herald's copy last changed (a sync or a template event); `None` from the network's listing.
    pub updated_at: Option<Timestamp>,
}

impl TemplateHealth {
    /// The network's `NONE` (and an empty value) means there is no reason.
    pub fn reason(value: Option<&str>) -> Option<String> {
        value
            .map(str::trim)
            .filter(|r| !r.is_empty() && !r.eq_ignore_ascii_case("NONE"))
            .map(str::to_owned)
    }
}

/// A value filling a template variable: 1 to 1024 characters, no newline or tab, at most 4 consecutive
/// spaces (the network's own rules).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TemplateText(String);

impl TemplateText {
    /// # Errors
    /// [`InvalidValue`] when the value breaks the network's rules.
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        let count = value.chars().count();
        if count == 0 {
            return Err(InvalidValue::new("must not be empty"));
        }
        if count > 1024 {
            return Err(InvalidValue::new(format!(
                "must be at most 1024 characters, got {count}"
            )));
        }
        if value.contains(['\n', '\r', '\t']) {
            return Err(InvalidValue::new("must not contain a newline or a tab"));
        }
        if value.contains("     ") {
            return Err(InvalidValue::new(
                "must not contain more than 4 consecutive spaces",
            ));
        }
        Ok(Self(value.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The header part of a send's variables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeaderValue {
    Text(Vec<TemplateText>),
    /// `{"order_id": "ORD-1"}` for a header with a named variable.
    NamedText(Vec<(ParamName, TemplateText)>),
    Media(MediaAttachment),
    Location(Location),
}

/// The body part of a send's variables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodyValues {
    Positional(Vec<TemplateText>),
    Named(Vec<(ParamName, TemplateText)>),
}

/// Values for one button.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ButtonValue {
    pub index: u8,
    pub kind: ButtonKind,
    pub values: Vec<TemplateText>,
    /// Flow buttons only: the data the Flow's first screen opens with (a JSON object, kept as the client
    /// wrote it, like an interactive Flow's).
    pub flow_action_data: Option<String>,
}

impl ButtonValue {
    /// A button filled with `values` and nothing else.
    pub fn new(index: u8, kind: ButtonKind, values: Vec<TemplateText>) -> Self {
        Self {
            index,
            kind,
            values,
            flow_action_data: None,
        }
    }
}

/// Values for one card of a media-card carousel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardValues {
    pub header: MediaAttachment,
    pub body: BodyValues,
    pub buttons: Vec<ButtonValue>,
}

/// Everything a template send supplies. The full form of docs/api.md §4.1 maps onto this directly; the two
/// shorthands map through [`TemplateVariables::positional`] and [`TemplateVariables::named`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateVariables {
    pub header: Option<HeaderValue>,
    pub body: BodyValues,
    pub buttons: Vec<ButtonValue>,
    /// A limited-time offer's expiration.
    pub offer: Option<Timestamp>,
    /// A carousel's cards, in the template's order.
    pub cards: Vec<CardValues>,
}

impl Default for TemplateVariables {
    fn default() -> Self {
        Self {
            header: None,
            body: BodyValues::Positional(Vec::new()),
            buttons: Vec::new(),
            offer: None,
            cards: Vec::new(),
        }
    }
}

impl TemplateVariables {
    /// The shorthand `"variables": ["Ana", "#1234"]`: body values in order.
    pub fn positional(values: Vec<TemplateText>) -> Self {
        Self {
            body: BodyValues::Positional(values),
            ..Self::default()
        }
    }

    /// The shorthand `"variables": { "customer": "Ana" }`: body values by name.
    pub fn named(values: Vec<(ParamName, TemplateText)>) -> Self {
        Self {
            body: BodyValues::Named(values),
            ..Self::default()
        }
    }
}

#[cfg(test)]
mod tests;

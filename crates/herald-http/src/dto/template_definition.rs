//! The bodies of `POST /api/v1/templates` and `PATCH /api/v1/templates/{name}/{language}`, for the
//! reference: the handlers read Meta's `message_templates` shape by hand (`TemplateDefinition::parse`, which
//! checks every rule per component type and names the path of each broken one), so these types only
//! describe it to clients and SDK generators.

use serde::Serialize;
use utoipa::ToSchema;

/// A template to submit for the network's review: Meta's own `message_templates` body plus `from`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[allow(
    dead_code,
    reason = "describes the body in the OpenAPI document; bodies are parsed by hand"
)]
#[schema(example = json!({
    "name": "order_ready",
    "language": "en_US",
    "category": "UTILITY",
    "components": [{"type": "BODY", "text": "Your order {{1}} is ready.", "example": {"body_text": [["A-1001"]]}}]
}))]
pub struct TemplateCreateRequest {
    /// Lowercase letters, digits and `_`; at most 512 characters.
    #[schema(pattern = "^[a-z0-9_]{1,512}$")]
    pub name: String,
    /// The language code, e.g. `en_US`.
    pub language: String,
    pub category: TemplateCategoryRequest,
    pub parameter_format: Option<TemplateParameterFormatRequest>,
    /// Whether the network may change the category on review.
    pub allow_category_change: Option<bool>,
    /// One `BODY` and, by category, `HEADER`, `FOOTER`, `BUTTONS`, `CAROUSEL` or `LIMITED_TIME_OFFER`.
    pub components: Vec<TemplateComponentRequest>,
    /// The sender number (E.164) whose business account gets it; default: the default sender.
    pub from: Option<String>,
}

/// New components for a template, which goes back to review; `name` and `language` are the path's.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[allow(
    dead_code,
    reason = "describes the body in the OpenAPI document; bodies are parsed by hand"
)]
pub struct TemplateEditRequest {
    pub components: Vec<TemplateComponentRequest>,
    /// Default: the template's current category.
    pub category: Option<TemplateCategoryRequest>,
    pub parameter_format: Option<TemplateParameterFormatRequest>,
    /// The sender number (E.164) whose business account holds it; default: the default sender.
    pub from: Option<String>,
}

/// A template's category.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[allow(
    dead_code,
    reason = "describes the body in the OpenAPI document; bodies are parsed by hand"
)]
#[serde(rename_all = "UPPERCASE")]
pub enum TemplateCategoryRequest {
    Marketing,
    Utility,
    Authentication,
}

/// How the template's variables are written: `{{1}}` (the default) or `{{name}}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[allow(
    dead_code,
    reason = "describes the body in the OpenAPI document; bodies are parsed by hand"
)]
#[serde(rename_all = "UPPERCASE")]
pub enum TemplateParameterFormatRequest {
    Positional,
    Named,
}

/// One component in Meta's shape. Which fields a component takes depends on its `type` (docs/api.md
/// §6.1): `HEADER` `format` (`TEXT`, `IMAGE`, `VIDEO`, `DOCUMENT`, `LOCATION`), `text`, `example`; `BODY`
/// `text`, `example` (authentication: `add_security_recommendation`); `FOOTER` `text` (authentication:
/// `code_expiration_minutes`); `BUTTONS` `buttons`; `CAROUSEL` `cards`; `LIMITED_TIME_OFFER`
/// `limited_time_offer`. Any other field is refused with the path that names it.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[allow(
    dead_code,
    reason = "describes the body in the OpenAPI document; bodies are parsed by hand"
)]
pub struct TemplateComponentRequest {
    /// `HEADER`, `BODY`, `FOOTER`, `BUTTONS`, `CAROUSEL` or `LIMITED_TIME_OFFER`.
    #[serde(rename = "type")]
    pub type_: String,
    /// `HEADER` only: `TEXT`, `IMAGE`, `VIDEO`, `DOCUMENT` or `LOCATION`.
    pub format: Option<String>,
    pub text: Option<String>,
    /// Samples for the review: `header_text`, `body_text` (positional), `header_text_named_params`,
    /// `body_text_named_params` (named), and for a media header `media_id` (an upload) or
    /// `header_handle`.
    pub example: Option<serde_json::Map<String, serde_json::Value>>,
    /// `BUTTONS`: `QUICK_REPLY`, `URL`, `PHONE_NUMBER`, `COPY_CODE`, `FLOW`, `VOICE_CALL` or `OTP`
    /// buttons in Meta's shape.
    pub buttons: Option<Vec<serde_json::Map<String, serde_json::Value>>>,
    /// `CAROUSEL`: 2 to 10 cards, each `{"components": [...]}`.
    pub cards: Option<Vec<serde_json::Map<String, serde_json::Value>>>,
    /// `LIMITED_TIME_OFFER`: `{"text", "has_expiration"?}`.
    pub limited_time_offer: Option<serde_json::Map<String, serde_json::Value>>,
    /// Authentication `BODY`: add the security recommendation.
    pub add_security_recommendation: Option<bool>,
    /// Authentication `FOOTER`: 1 to 90.
    #[schema(minimum = 1, maximum = 90)]
    pub code_expiration_minutes: Option<u32>,
}

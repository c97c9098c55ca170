//! Herald's adapter to Meta's WhatsApp Cloud API (or the simulator speaking its wire format).
//!
//! Outbound: [`CloudApiClient`] implements the domain's [`MessagingNetwork`](herald_domain::ports::MessagingNetwork)
//! port: it builds the exact send bodies of the Cloud API (stored files by their network media id), uploads
//! media (streamed multipart) and downloads it (streamed, only from the base URL's origin or an allowed media
//! host), lists message templates, and translates every Graph error into the reaction dispatch must take.
//!
//! Inbound: [`verify_signature`] checks `X-Hub-Signature-256` on the raw bytes of a callback, and
//! [`parse_callback`] turns a verified body into the domain's status reports and inbound messages; behind the
//! domain's ports they are [`AppSecretAuthenticator`] (`CallbackAuthenticator`) and [`CloudApiDecoder`]
//! (`CallbackDecoder`).
//!
//! Both directions translate Graph error codes through the same table, [`classify`].

mod callback;
mod client;
mod errors;
mod signature;
mod template_wire;
mod templates;
mod wire;
mod wire_kinds;
mod wire_media;
mod wire_template;

pub use callback::{CloudApiDecoder, ParseError, parse_callback};
pub use client::{CloudApiClient, CloudApiConfig, META_MEDIA_HOST};
pub use errors::{ErrorClass, Reaction, classify};
pub use signature::{AppSecretAuthenticator, SignatureError, verify_signature};

/// Parses one template definition as `GET /{waba_id}/message_templates` lists it into what a send must fill.
///
/// # Errors
/// A human-readable reason when the definition cannot be used.
pub fn parse_template_definition(
    definition: serde_json::Value,
) -> Result<herald_domain::ports::NetworkTemplate, String> {
    templates::parse_template(definition)
}

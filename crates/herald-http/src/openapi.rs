//! The OpenAPI document's frame (its info, the schemas it lists, security, tags), and the `/docs` page
//! rendered from a document. The paths come from the route table (`routes`), which adds them.

use crate::dto;
use crate::error::{Problem, ProblemField, RejectedRowResource};
use crate::routes::media;
use crate::routes::send_media;
use crate::routes::templates;
use crate::routes::webhooks;
use std::fmt::Write;
use utoipa::openapi::path::{Operation, ParameterIn};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Herald",
        version = "1",
        description = "Send WhatsApp messages (text, files and approved templates, with media headers too) through one REST API, and follow their status.\n\nEvery `/api/v1` call carries `Authorization: Bearer <API key>`. Every error is `application/problem+json` with a stable `code`. Every response carries `X-Request-Id`.",
        license(name = "Apache-2.0", identifier = "Apache-2.0"),
    ),
    components(schemas(
        Problem,
        ProblemField,
        RejectedRowResource,
        dto::MessageResource,
        dto::MessagePageResource,
        dto::EventListResource,
        dto::InboundResource,
        dto::InboundContextResource,
        dto::InboundPageResource,
        dto::InboundReadRequest,
        dto::WindowResource,
        dto::DryRunResource,
        dto::DryRunWindowResource,
        dto::ExpectedPricingResource,
        dto::HealthResource,
        dto::SendTextRequest,
        dto::SendTemplateRequest,
        dto::SendFileRequest,
        dto::BroadcastRequest,
        dto::BroadcastRecipientRequest,
        dto::BroadcastResource,
        dto::BroadcastCreatedResource,
        dto::BroadcastDryRunResource,
        dto::BroadcastPageResource,
        dto::PauseResource,
        send_media::SendFileForm,
        send_media::SendTemplateMediaForm,
        media::UploadMediaForm,
        media::MediaUploadResource,
        templates::TemplateResource,
        templates::TemplateListResource,
        templates::TemplateSyncResource,
        webhooks::WebhookResource,
        webhooks::WebhookWithSecretResource,
        webhooks::WebhookListResource,
        webhooks::CreateWebhookRequest,
        webhooks::UpdateWebhookRequest,
        webhooks::RecoverRequest,
        webhooks::WebhookTestResource,
        webhooks::RecoverResource,
        webhooks::RedeliverResource,
        webhooks::DeliveryResource,
        webhooks::DeliveryAttemptResource,
        webhooks::DeliveryPageResource,
    )),
    modifiers(&BearerAuth),
    tags(
        (name = "messages", description = "Send messages and follow their status (docs/api.md §4, §5)."),
        (name = "broadcasts", description = "One template to up to 10,000 recipients, accepted whole and released at the sender's pace; progress, cancel and resume (docs/api.md §4.10)."),
        (name = "inbound", description = "What customers sent: every inbound kind as a resource, and read receipts (docs/api.md §5.1)."),
        (name = "media", description = "Upload a file once and send it many times; read uploaded and inbound files back (docs/api.md §4.5, §9)."),
        (name = "contacts", description = "The 24-hour service window, opt-outs, blocks and the STOP keyword rule (docs/api.md §7, §7.1)."),
        (name = "templates", description = "The organization's templates as synced from the network (docs/api.md §6)."),
        (name = "senders", description = "The organization's sender numbers with their quality and messaging limit (docs/api.md §6.2)."),
        (name = "webhooks", description = "Customer webhooks: signed events about messages, templates, senders and the account, delivered with retries (docs/api.md §9)."),
        (name = "operations", description = "Health, readiness and this reference (docs/api.md §11)."),
    )
)]
struct ApiDoc;

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some("An API key: `hk_live_` and 40 base62 characters."))
                    .build(),
            ),
        );
    }
}

/// The document without its paths.
pub(crate) fn base() -> utoipa::openapi::OpenApi {
    ApiDoc::openapi()
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn operations(item: &utoipa::openapi::PathItem) -> Vec<(&'static str, &Operation)> {
    [
        ("GET", item.get.as_ref()),
        ("POST", item.post.as_ref()),
        ("PUT", item.put.as_ref()),
        ("PATCH", item.patch.as_ref()),
        ("DELETE", item.delete.as_ref()),
    ]
    .into_iter()
    .filter_map(|(method, op)| op.map(|op| (method, op)))
    .collect()
}

/// A plain page: no script, no stylesheet or font from elsewhere, so it works offline and under any CSP.
pub(crate) fn render_docs(doc: &utoipa::openapi::OpenApi) -> String {
    let mut html = String::new();
    let title = escape(&doc.info.title);
    let _ = write!(
        html,
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title} API reference</title>\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<style>body{{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.5}}\
code{{background:#f3f3f3;padding:0 .2rem}}section{{border-top:1px solid #ddd;padding:.5rem 0}}\
.m{{font-weight:bold;display:inline-block;min-width:4rem}}table{{border-collapse:collapse}}td,th{{border:1px solid #ddd;padding:.2rem .5rem;text-align:left;vertical-align:top}}</style>\
</head><body>\n<h1>{title} API reference</h1>\n"
    );
    if let Some(description) = &doc.info.description {
        for paragraph in description.split("\n\n") {
            let _ = writeln!(html, "<p>{}</p>", escape(paragraph));
        }
    }
    let _ = writeln!(
        html,
        "<p>Machine-readable: <a href=\"/api/v1/openapi.json\"><code>/api/v1/openapi.json</code></a></p>"
    );
    for (path, item) in &doc.paths.paths {
        for (method, op) in operations(item) {
            let _ = writeln!(
                html,
                "<section id=\"{id}\"><h2><span class=\"m\">{method}</span> <code>{path}</code></h2>",
                id = escape(op.operation_id.as_deref().unwrap_or(path)),
                path = escape(path),
            );
            if let Some(summary) = &op.summary {
                let _ = writeln!(html, "<p><strong>{}</strong></p>", escape(summary));
            }
            if let Some(description) = &op.description {
                let _ = writeln!(html, "<p>{}</p>", escape(description));
            }
            if op.security.is_some() {
                let _ = writeln!(
                    html,
                    "<p>Needs <code>Authorization: Bearer &lt;API key&gt;</code>.</p>"
                );
            }
            if let Some(parameters) = op.parameters.as_ref().filter(|p| !p.is_empty()) {
                html.push_str("<table><tr><th>parameter</th><th>in</th><th>description</th></tr>\n");
                for parameter in parameters {
                    let place = match parameter.parameter_in {
                        ParameterIn::Path => "path",
                        ParameterIn::Query => "query",
                        ParameterIn::Header => "header",
                        ParameterIn::Cookie => "cookie",
                    };
                    let _ = writeln!(
                        html,
                        "<tr><td><code>{}</code></td><td>{place}</td><td>{}</td></tr>",
                        escape(&parameter.name),
                        escape(parameter.description.as_deref().unwrap_or(""))
                    );
                }
                html.push_str("</table>\n");
            }
            if let Some(body) = &op.request_body {
                let types: Vec<String> = body.content.keys().map(|k| escape(k)).collect();
                let _ = writeln!(html, "<p>Request body: <code>{}</code></p>", types.join(", "));
            }
            html.push_str("<table><tr><th>status</th><th>meaning</th></tr>\n");
            for (status, response) in &op.responses.responses {
                let description = match response {
                    utoipa::openapi::RefOr::T(response) => response.description.as_str(),
                    utoipa::openapi::RefOr::Ref(_) => "",
                };
                let _ = writeln!(
                    html,
                    "<tr><td>{}</td><td>{}</td></tr>",
                    escape(status),
                    escape(description)
                );
            }
            html.push_str("</table></section>\n");
        }
    }
    html.push_str("</body></html>\n");
    html
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped() {
        assert_eq!(
            escape("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }
}

//! The API's operations, one resource per file, each handler next to its `#[utoipa::path]`, and the one
//! table that both serves and documents them.

mod broadcasts;
mod contacts;
mod docs;
pub(crate) mod fallback;
mod health;
mod inbound;
pub(crate) mod media;
pub(crate) mod messages;
pub(crate) mod query;
pub(crate) mod send;
mod send_kinds;
pub(crate) mod send_media;
pub(crate) mod senders;
mod table;
pub(crate) mod template_review;
pub(crate) mod templates;
pub(crate) mod usage;
pub(crate) mod webhooks;

use actix_web::web;
use std::sync::OnceLock;
use table::Routes;

/// Every operation, in the order actix matches them.
fn table() -> Routes {
    use broadcasts::*;
    use contacts::*;
    use docs::*;
    use health::*;
    use inbound::*;
    use media::*;
    use messages::*;
    use send::*;
    use send_kinds::*;
    use send_media::*;
    use senders::*;
    use template_review::*;
    use templates::*;
    use usage::*;
    use webhooks::*;
    Routes::default()
        // The send operations come before `/messages/{id}`, so `GET /messages/send-text` is a 405.
        .send::<__path_send_template, _, _>(send_template)
        .send::<__path_send_text, _, _>(send_text)
        .send::<__path_send_file, _, _>(send_file)
        .send::<__path_send_template_media, _, _>(send_template_media)
        .send::<__path_send_interactive, _, _>(send_interactive)
        .send::<__path_send_reaction, _, _>(send_reaction)
        .send::<__path_send_location, _, _>(send_location)
        .send::<__path_send_contacts, _, _>(send_contacts)
        .send::<__path_create_broadcast, _, _>(create_broadcast)
        .add::<__path_list_broadcasts, _, _>(list_broadcasts)
        .add::<__path_get_broadcast, _, _>(get_broadcast)
        .add::<__path_cancel_broadcast, _, _>(cancel_broadcast)
        .add::<__path_resume_broadcast, _, _>(resume_broadcast)
        .add::<__path_broadcast_messages, _, _>(broadcast_messages)
        .add::<__path_upload_media, _, _>(upload_media)
        .add::<__path_media_content, _, _>(media_content)
        .add::<__path_list_messages, _, _>(list_messages)
        .add::<__path_get_message, _, _>(get_message)
        .add::<__path_message_events, _, _>(message_events)
        .add::<__path_usage, _, _>(usage)
        .add::<__path_cancel_message, _, _>(cancel_message)
        .add::<__path_list_inbound, _, _>(list_inbound)
        .add::<__path_get_inbound, _, _>(get_inbound)
        .add::<__path_read_inbound, _, _>(read_inbound)
        .add::<__path_window, _, _>(window)
        // The keyword rule before `/contacts/{recipient}`, whose segment it would otherwise be.
        .add::<__path_get_keyword_rule, _, _>(get_keyword_rule)
        .add::<__path_set_keyword_rule, _, _>(set_keyword_rule)
        .add::<__path_get_contact, _, _>(get_contact)
        .add::<__path_erase_contact, _, _>(erase_contact)
        .add::<__path_opt_out, _, _>(opt_out)
        .add::<__path_opt_in, _, _>(opt_in)
        .add::<__path_block, _, _>(block)
        .add::<__path_unblock, _, _>(unblock)
        .add::<__path_list_templates, _, _>(list_templates)
        .add::<__path_create_template, _, _>(create_template)
        .add::<__path_sync_templates, _, _>(sync_templates)
        .add::<__path_get_template, _, _>(get_template)
        .add::<__path_edit_template, _, _>(edit_template)
        .add::<__path_delete_template_language, _, _>(delete_template_language)
        .add::<__path_delete_template, _, _>(delete_template)
        .add::<__path_list_senders, _, _>(list_senders)
        .add::<__path_get_sender, _, _>(get_sender)
        .add::<__path_create_webhook, _, _>(create_webhook)
        .add::<__path_list_webhooks, _, _>(list_webhooks)
        .add::<__path_get_webhook, _, _>(get_webhook)
        .add::<__path_update_webhook, _, _>(update_webhook)
        .add::<__path_delete_webhook, _, _>(delete_webhook)
        .add::<__path_rotate_secret, _, _>(rotate_secret)
        .add::<__path_test_webhook, _, _>(test_webhook)
        .add::<__path_list_deliveries, _, _>(list_deliveries)
        .add::<__path_redeliver, _, _>(redeliver)
        .add::<__path_recover, _, _>(recover)
        .add::<__path_openapi_json, _, _>(openapi_json)
        .add::<__path_healthz, _, _>(healthz)
        .add::<__path_readyz, _, _>(readyz)
        .add::<__path_docs, _, _>(docs)
}

/// The OpenAPI document of every operation served.
pub(crate) fn openapi() -> utoipa::openapi::OpenApi {
    let mut document = crate::openapi::base();
    table().document(&mut document);
    document
}

/// Serves every operation, with the document `/api/v1/openapi.json` and `/docs` answer.
pub(crate) fn configure(config: &mut web::ServiceConfig) {
    static SERVED: OnceLock<web::Data<docs::ServedDocument>> = OnceLock::new();
    let served = SERVED.get_or_init(|| {
        let document = openapi();
        web::Data::new(docs::ServedDocument {
            json: document
                .to_pretty_json()
                .unwrap_or_else(|_| "{}".to_owned())
                .into(),
            html: crate::openapi::render_docs(&document).into(),
        })
    });
    config.app_data(served.clone());
    table().register(config);
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::App;
    use actix_web::http::{Method, StatusCode};
    use actix_web::test::{TestRequest, call_service, init_service};
    use std::collections::BTreeSet;
    use utoipa::openapi::path::HttpMethod;

    fn method_name(method: &HttpMethod) -> &'static str {
        match method {
            HttpMethod::Get => "GET",
            HttpMethod::Post => "POST",
            HttpMethod::Put => "PUT",
            HttpMethod::Delete => "DELETE",
            HttpMethod::Options => "OPTIONS",
            HttpMethod::Head => "HEAD",
            HttpMethod::Patch => "PATCH",
            HttpMethod::Trace => "TRACE",
        }
    }

    /// Every (method, path) the table serves.
    fn served() -> BTreeSet<(String, &'static str)> {
        table()
            .entries()
            .iter()
            .flat_map(|entry| {
                entry
                    .methods
                    .iter()
                    .map(|method| (entry.path.clone(), method_name(method)))
            })
            .collect()
    }

    /// Every (method, path) the OpenAPI document describes, read from its JSON as clients read it.
    fn documented() -> BTreeSet<(String, &'static str)> {
        let json = serde_json::to_value(openapi()).unwrap();
        let mut operations = BTreeSet::new();
        for (path, item) in json["paths"].as_object().unwrap() {
            for method in [
                "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE",
            ] {
                if item.get(method.to_lowercase()).is_some() {
                    operations.insert((path.clone(), method));
                }
            }
        }
        operations
    }

    #[test]
    fn every_served_route_is_documented_and_every_documented_operation_served() {
        let served = served();
        let documented = documented();
        assert!(!served.is_empty());
        assert_eq!(
            served.difference(&documented).collect::<Vec<_>>(),
            Vec::<&(String, &str)>::new(),
            "served, not documented"
        );
        assert_eq!(
            documented.difference(&served).collect::<Vec<_>>(),
            Vec::<&(String, &str)>::new(),
            "documented, not served"
        );
        // One entry per (method, path): a second would never be reached.
        let entries: usize = table().entries().iter().map(|e| e.methods.len()).sum();
        assert_eq!(entries, served.len());
    }

    #[test]
    fn every_handler_is_registered_with_its_own_documentation() {
        let mut operation_ids = BTreeSet::new();
        for entry in table().entries() {
            let (module, name) = entry.handler.rsplit_once("::").unwrap();
            assert_eq!(
                entry.documentation,
                format!("{module}::__path_{name}"),
                "{} {}",
                entry.handler,
                entry.path
            );
            let operation = entry.operation();
            assert!(
                operation.tags.as_ref().is_some_and(|tags| !tags.is_empty()),
                "{} has no tag",
                entry.handler
            );
            let id = operation.operation_id.unwrap_or_default();
            assert!(!id.is_empty(), "{} has no operation id", entry.handler);
            assert!(operation_ids.insert(id.clone()), "operation id {id} twice");
        }
    }

    /// Each documented path with its parameters filled in, as a client would call it.
    fn concrete(path: &str) -> String {
        path.split('/')
            .map(|segment| if segment.starts_with('{') { "x" } else { segment })
            .collect::<Vec<_>>()
            .join("/")
    }

    #[actix_rt::test]
    async fn every_documented_operation_reaches_its_handler_and_other_methods_are_refused() {
        let app = init_service(
            App::new()
                .configure(configure)
                .default_service(web::to(fallback::not_found)),
        )
        .await;
        for (path, method) in documented() {
            let request = TestRequest::default()
                .method(Method::from_bytes(method.as_bytes()).unwrap())
                .uri(&concrete(&path))
                .to_request();
            let response = call_service(&app, request).await;
            // Without an `ApiContext` every handler that needs one fails past the router; none answers
            // as an unrouted request would.
            let status = response.status();
            assert!(
                status != StatusCode::NOT_FOUND && status != StatusCode::METHOD_NOT_ALLOWED,
                "{method} {path}: {status}"
            );
        }
        let served = served();
        for path in served
            .iter()
            .map(|(path, _)| path.clone())
            .collect::<BTreeSet<_>>()
        {
            // A method the path does not serve: PUT, or DELETE where PUT is served (the keyword rule).
            let (method, request) = if served.contains(&(path.clone(), "PUT")) {
                ("DELETE", TestRequest::delete())
            } else {
                ("PUT", TestRequest::put())
            };
            let response = call_service(&app, request.uri(&concrete(&path)).to_request()).await;
            assert_eq!(
                response.status(),
                StatusCode::METHOD_NOT_ALLOWED,
                "{method} {path}"
            );
        }
        let response = call_service(&app, TestRequest::get().uri("/api/v1/nothing").to_request()).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND);
    }

    #[test]
    fn docs_list_every_operation() {
        let html = crate::openapi::render_docs(&openapi());
        for needle in [
            "<code>/api/v1/messages/send-template</code>",
            "<code>/api/v1/messages/send-text</code>",
            "<code>/api/v1/messages/{id}/events</code>",
            "<code>/api/v1/contacts/{number}/window</code>",
            "<code>/readyz</code>",
        ] {
            assert!(html.contains(needle), "{needle}");
        }
        assert!(!html.contains("<script"));
        assert!(!html.contains("http://") && !html.contains("https://cdn"));
    }
}

//! Contacts: the 24-hour service window (docs/api.md §7), and the contact resource with its opt-outs,
//! blocks and STOP keyword rule (§7.1).

use crate::auth::{Caller, CallerInAnyState};
use crate::context::ApiContext;
use crate::dto::{ContactResource, ErasureResource, KeywordRuleResource, WindowResource};
use crate::error::{ApiError, HandlerResult, Problem};
use crate::responses::{KeyedResponses, ReadResponses, WriteResponses};
use crate::routes::query::query_pairs;
use actix_web::{FromRequest, HttpRequest, HttpResponse, web};
use herald_domain::contact::{KeywordRule, MarketingPreference, Recipient};
use herald_domain::values::PhoneNumber;
use herald_domain::{FieldError, ValidationErrors};
use serde_json::Value;

/// Whether free-form messages to a number may go now (the 24-hour service window).
#[utoipa::path(
    get,
    path = "/api/v1/contacts/{number}/window",
    tag = "contacts",
    operation_id = "getWindow",
    params(
        ("number" = String, Path, description = "The recipient, E.164 and URL-encoded (`%2B15551234567`)"),
        ("from" = Option<String>, Query, description = "The sender number (E.164, URL-encoded); default: the organization's default sender"),
    ),
    responses(
        (status = 200, description = "The window.", body = WindowResource),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation_failed`: `number` or `from` is invalid.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        ReadResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn window(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    number: web::Path<String>,
    req: HttpRequest,
) -> HandlerResult {
    let mut errors = ValidationErrors::new();
    // actix's `Path` percent-decodes the segment, so `%2B1555…` arrives as `+1555…`.
    let number = errors.check("number", PhoneNumber::parse(&number));
    let mut from = None;
    for (key, value) in query_pairs(&req)? {
        if key == "from" && !value.is_empty() {
            from = errors.check("from", PhoneNumber::parse(&value));
        }
    }
    let number = match number {
        Some(number) if errors.is_empty() => number,
        _ => return Err(ApiError::Validation(errors).into()),
    };
    let view = ctx
        .window_status
        .execute(&caller.0.organization.id, number, from)
        .await
        .map_err(ApiError::from)?;
    Ok(HttpResponse::Ok().json(WindowResource::from(&view)))
}

/// The `{recipient}` segment (percent-decoded by actix) and the `from` query parameter.
fn recipient_and_from(
    recipient: &str,
    req: &HttpRequest,
) -> Result<(Recipient, Option<PhoneNumber>), ApiError> {
    let mut errors = ValidationErrors::new();
    let recipient = errors.check("recipient", Recipient::parse(recipient));
    let mut from = None;
    for (key, value) in query_pairs(req)? {
        if key == "from" && !value.is_empty() {
            from = errors.check("from", PhoneNumber::parse(&value));
        }
    }
    match recipient {
        Some(recipient) if errors.is_empty() => Ok((recipient, from)),
        _ => Err(ApiError::Validation(errors)),
    }
}

/// A contact: its window, marketing preference and block state (docs/api.md §7.1).
#[utoipa::path(
    get,
    path = "/api/v1/contacts/{recipient}",
    tag = "contacts",
    operation_id = "getContact",
    params(
        ("recipient" = String, Path, description = "An E.164 number, URL-encoded (`%2B15551234567`), or a business-scoped user id (`US.13491208655302741918`)"),
        ("from" = Option<String>, Query, description = "The sender whose window is shown (E.164, URL-encoded); default: the organization's default sender"),
    ),
    responses(
        (status = 200, description = "The contact; someone nothing is recorded about reads as marketing allowed, not blocked.", body = ContactResource),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation_failed`: `recipient` or `from` is invalid.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        ReadResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn get_contact(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    recipient: web::Path<String>,
    req: HttpRequest,
) -> HandlerResult {
    let (recipient, from) = recipient_and_from(&recipient, &req)?;
    let view = ctx
        .contacts
        .get(&caller.0.organization.id, &recipient, from)
        .await
        .map_err(ApiError::from)?;
    Ok(HttpResponse::Ok().json(ContactResource::from(&view)))
}

/// Erases what the organization holds about a person (docs/api.md §7.2): their queued messages are
/// cancelled first, then their messages' and inbound messages' content, contact, windows, event payloads and
/// files are erased, keeping ids, times, statuses and pricing under a keyed marker. Idempotent. A suspended
/// or closed organization may still erase (privacy duties do not stop with the account), so no `403`.
#[utoipa::path(
    delete,
    path = "/api/v1/contacts/{recipient}",
    tag = "contacts",
    operation_id = "eraseContact",
    params(("recipient" = String, Path, description = "An E.164 number (any of its national forms), URL-encoded, or a business-scoped user id")),
    responses(
        (status = 200, description = "Erased (now, or before: then nothing new is counted); a `contact.erased` event is sent the first time. A suspended or closed organization may erase too: privacy duties do not stop with the account.", body = ErasureResource),
        (status = 404, description = "`not_found`: nothing names this person and they were never erased; nothing was written.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation_failed`: `recipient` is invalid.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable` (also when messages to the person kept being queued during the erasure); `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        WriteResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn erase_contact(
    ctx: web::Data<ApiContext>,
    caller: CallerInAnyState,
    recipient: web::Path<String>,
    req: HttpRequest,
) -> HandlerResult {
    let (recipient, _) = recipient_and_from(&recipient, &req)?;
    let erased = ctx
        .erase
        .erase(&caller.0.organization.id, &recipient)
        .await
        .map_err(ApiError::from)?;
    Ok(HttpResponse::Ok().json(ErasureResource::from(&erased)))
}

async fn set_marketing(
    ctx: &ApiContext,
    caller: &Caller,
    recipient: &str,
    req: &HttpRequest,
    preference: MarketingPreference,
) -> HandlerResult {
    let (recipient, _) = recipient_and_from(recipient, req)?;
    let view = ctx
        .contacts
        .set_marketing(&caller.0.organization.id, &recipient, preference)
        .await
        .map_err(ApiError::from)?;
    Ok(HttpResponse::Ok().json(ContactResource::from(&view)))
}

/// Records the organization's own opt-out: marketing templates to this person are refused (`422
/// recipient_opted_out`) until an opt-in, and a `contact.preferences` event is sent. No body.
#[utoipa::path(
    post,
    path = "/api/v1/contacts/{recipient}/opt-out",
    tag = "contacts",
    operation_id = "optOutContact",
    params(("recipient" = String, Path, description = "An E.164 number, URL-encoded, or a business-scoped user id")),
    responses(
        (status = 200, description = "The contact, marketing `stopped`.", body = ContactResource),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation_failed`: `recipient` is invalid.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        WriteResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn opt_out(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    recipient: web::Path<String>,
    req: HttpRequest,
) -> HandlerResult {
    set_marketing(&ctx, &caller, &recipient, &req, MarketingPreference::Stopped).await
}

/// Records the organization's own opt-in: marketing templates go again, and a `contact.preferences` event
/// is sent. No body.
#[utoipa::path(
    post,
    path = "/api/v1/contacts/{recipient}/opt-in",
    tag = "contacts",
    operation_id = "optInContact",
    params(("recipient" = String, Path, description = "An E.164 number, URL-encoded, or a business-scoped user id")),
    responses(
        (status = 200, description = "The contact, marketing `allowed`.", body = ContactResource),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation_failed`: `recipient` is invalid.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        WriteResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn opt_in(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    recipient: web::Path<String>,
    req: HttpRequest,
) -> HandlerResult {
    set_marketing(&ctx, &caller, &recipient, &req, MarketingPreference::Allowed).await
}

async fn set_blocked(
    ctx: &ApiContext,
    caller: &Caller,
    recipient: &str,
    req: &HttpRequest,
    blocked: bool,
) -> HandlerResult {
    let (recipient, from) = recipient_and_from(recipient, req)?;
    let view = ctx
        .contacts
        .set_blocked(&caller.0.organization.id, &recipient, from, blocked)
        .await
        .map_err(ApiError::from)?;
    Ok(HttpResponse::Ok().json(ContactResource::from(&view)))
}

/// Blocks the person on the network's block list of the sender `from` (default: the default sender):
/// they cannot write to it, and every send to them is refused (`422 recipient_blocked`). The network only
/// blocks people who wrote to that sender in the last 24 hours. No body.
#[utoipa::path(
    post,
    path = "/api/v1/contacts/{recipient}/block",
    tag = "contacts",
    operation_id = "blockContact",
    params(
        ("recipient" = String, Path, description = "An E.164 number, URL-encoded, or a business-scoped user id"),
        ("from" = Option<String>, Query, description = "The sender whose block list changes (E.164, URL-encoded); default: the organization's default sender"),
    ),
    responses(
        (status = 200, description = "Blocked.", body = ContactResource),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation_failed`: `recipient` or `from` is invalid; `service_window_closed`: the person has not written to that sender in the last 24 hours; `network_refused`: the network would not block them (its reason in `detail`).", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`: the store or the network is down; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        WriteResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn block(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    recipient: web::Path<String>,
    req: HttpRequest,
) -> HandlerResult {
    set_blocked(&ctx, &caller, &recipient, &req, true).await
}

/// Removes the person from the sender's block list (no 24-hour rule). No body.
#[utoipa::path(
    post,
    path = "/api/v1/contacts/{recipient}/unblock",
    tag = "contacts",
    operation_id = "unblockContact",
    params(
        ("recipient" = String, Path, description = "An E.164 number, URL-encoded, or a business-scoped user id"),
        ("from" = Option<String>, Query, description = "The sender whose block list changes (E.164, URL-encoded); default: the organization's default sender"),
    ),
    responses(
        (status = 200, description = "Unblocked.", body = ContactResource),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation_failed`: `recipient` or `from` is invalid; `network_refused`: the network would not unblock them.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`: the store or the network is down; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        WriteResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn unblock(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    recipient: web::Path<String>,
    req: HttpRequest,
) -> HandlerResult {
    set_blocked(&ctx, &caller, &recipient, &req, false).await
}

/// The organization's STOP keyword rule (off by default: both lists empty).
#[utoipa::path(
    get,
    path = "/api/v1/contacts/keyword-rule",
    tag = "contacts",
    operation_id = "getKeywordRule",
    responses(
        (status = 200, description = "The rule.", body = KeywordRuleResource),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        ReadResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn get_keyword_rule(ctx: web::Data<ApiContext>, caller: Caller) -> HandlerResult {
    let rule = ctx
        .contacts
        .keyword_rule(&caller.0.organization.id)
        .await
        .map_err(ApiError::from)?;
    Ok(HttpResponse::Ok().json(KeywordRuleResource::from(&rule)))
}

/// Replaces the organization's STOP keyword rule. Both lists are required; turning the rule off is said
/// explicitly, with both empty (`{"stop": [], "resume": []}`). Any other field is refused.
#[utoipa::path(
    put,
    path = "/api/v1/contacts/keyword-rule",
    tag = "contacts",
    operation_id = "setKeywordRule",
    request_body(content = KeywordRuleResource, content_type = "application/json"),
    responses(
        (status = 200, description = "The rule as stored (upper-case).", body = KeywordRuleResource),
        (status = 400, description = "`invalid_json`.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "`payload_too_large`.", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "`unsupported_media_type`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation_failed`: `stop` or `resume` missing or not a list of strings, another field, too many keywords, an empty or overlong one, or one in both lists.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        WriteResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn set_keyword_rule(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    req: HttpRequest,
    payload: web::Payload,
) -> HandlerResult {
    // Read only now, after authentication and the key's write limit.
    let body = web::Json::<Value>::from_request(&req, &mut payload.into_inner())
        .await?
        .into_inner();
    let (stop, resume) = keyword_lists(&body).map_err(ApiError::Validation)?;
    let rule = KeywordRule::new(stop, resume)
        .map_err(|e| ApiError::Validation(ValidationErrors::from(e.at("keywords"))))?;
    ctx.contacts
        .set_keyword_rule(&caller.0.organization.id, &rule)
        .await
        .map_err(ApiError::from)?;
    Ok(HttpResponse::Ok().json(KeywordRuleResource::from(&rule)))
}

/// The two lists of a keyword rule's body, both required: a body that leaves one out, misspells one or adds
/// another field must not silently turn the rule off.
fn keyword_lists(body: &Value) -> Result<(Vec<String>, Vec<String>), ValidationErrors> {
    const FIELDS: [&str; 2] = ["stop", "resume"];
    let Some(object) = body.as_object() else {
        return Err(ValidationErrors::single("body", "must be a JSON object"));
    };
    let mut errors = ValidationErrors::new();
    for key in object.keys().filter(|key| !FIELDS.contains(&key.as_str())) {
        errors.push(FieldError::new(
            key.as_str(),
            "is not a field of a keyword rule; it takes `stop` and `resume`",
        ));
    }
    let mut list = |field: &str| -> Option<Vec<String>> {
        let Some(value) = object.get(field) else {
            errors.push(FieldError::new(
                field,
                "is required (an empty list, with the other empty too, turns the rule off)",
            ));
            return None;
        };
        let strings = value.as_array().and_then(|items| {
            items
                .iter()
                .map(|item| item.as_str().map(str::to_owned))
                .collect()
        });
        if strings.is_none() {
            errors.push(FieldError::new(field, "must be a list of strings"));
        }
        strings
    };
    let stop = list("stop");
    let resume = list("resume");
    match (stop, resume) {
        (Some(stop), Some(resume)) if errors.is_empty() => Ok((stop, resume)),
        _ => Err(errors),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn refused(body: Value) -> Vec<String> {
        keyword_lists(&body)
            .unwrap_err()
            .errors()
            .iter()
            .map(|e| e.field.clone())
            .collect()
    }

    #[test]
    fn a_keyword_rule_body_is_strict() {
        assert_eq!(refused(json!({})), ["stop", "resume"]);
        assert_eq!(
            refused(json!({"stops": ["STOP"], "resume": []})),
            ["stops", "stop"]
        );
        assert_eq!(
            refused(json!({"stop": "STOP", "resume": [1]})),
            ["stop", "resume"]
        );
        assert_eq!(refused(json!([])), ["body"]);
        let (stop, resume) = keyword_lists(&json!({"stop": [], "resume": []})).unwrap();
        assert!(stop.is_empty() && resume.is_empty());
        let (stop, _) = keyword_lists(&json!({"stop": ["STOP"], "resume": ["START"]})).unwrap();
        assert_eq!(stop, ["STOP"]);
    }
}

//! Sending files: a file message, and a template with a media header (docs/api.md §4.3, §4.4).

use crate::auth::Caller;
use crate::context::ApiContext;
use crate::dto::SendFileRequest;
use crate::error::{ApiError, HandlerResult, Problem};
use crate::multipart::{self, Form};
use crate::responses::{KeyedResponses, SendAccepted, SendResponses};
use crate::routes::media::refuse_media_early;
use crate::routes::send;
use crate::send_body::{self, SendOperation};
use actix_web::{HttpRequest, web};
use herald_domain::organization::MessageKind;
use herald_domain::usecases::SendCommand;
use utoipa::Path as _;
use utoipa::ToSchema;

const SEND_FILE_PARTS: [&str; 6] = ["to", "caption", "from", "client_reference", "reply_to", "send_at"];
const SEND_TEMPLATE_MEDIA_PARTS: [&str; 1] = ["template"];

/// A multipart `send-file` form, for the reference (the server reads it as a stream).
#[allow(dead_code)]
#[derive(ToSchema)]
pub(crate) struct SendFileForm {
    /// The recipient, E.164.
    to: String,
    /// The file: PDF, JPEG, PNG, MP4 or 3GPP video, AAC, AMR, MP3, MP4 audio, Ogg Opus, or WebP (a sticker),
    /// judged from its bytes; a document's part filename is the name the recipient sees.
    #[schema(format = Binary, value_type = String)]
    file: Vec<u8>,
    /// 1–1024 characters; not for audio or stickers.
    caption: Option<String>,
    /// The sender number (E.164), when the organization has several.
    from: Option<String>,
    /// Up to 128 characters, echoed in the resource and every event.
    client_reference: Option<String>,
    /// The message of the conversation this one replies to: a `msg_…` or `inb_…` id.
    reply_to: Option<String>,
}

/// A multipart `send-template-media` form, for the reference.
#[allow(dead_code)]
#[derive(ToSchema)]
pub(crate) struct SendTemplateMediaForm {
    /// The JSON body of send-template's template form (`to`, `template`, `variables`, `from`,
    /// `client_reference`, `reply_to`), without a header: the header's file is the `file` part.
    template: String,
    /// The header's file: its kind must be the template header's format.
    #[schema(format = Binary, value_type = String)]
    file: Vec<u8>,
}

/// Send a file: a document (PDF), an image (JPEG, PNG) or a video (MP4, 3GPP) with an optional caption,
/// or audio (AAC, AMR, MP3, MP4 audio, Ogg Opus) or a sticker (WebP) without one; only inside the 24-hour
/// service window.
///
/// Multipart: parts `to`, `file` (its kind is judged from its bytes, never from its name or declared
/// type; limits 100 MB for documents, 5 MB for images, 16 MB for videos and audio, 100 KB for static and
/// 500 KB for animated stickers, enforced while it streams in),
/// `caption`, `from`, `client_reference`. JSON: `{ "to", "media_id" | "link", "type", "caption",
/// "filename" }` for a file uploaded before (`POST /api/v1/media`; its kind is the upload's) or hosted
/// elsewhere (`type` required).
#[utoipa::path(
    post,
    path = "/api/v1/messages/send-file",
    tag = "messages",
    operation_id = "sendFile",
    request_body(content(
        (SendFileForm = "multipart/form-data"),
        (SendFileRequest = "application/json"),
    )),
    params(
        crate::dto::SendQuery,
        ("Idempotency-Key" = Option<String>, Header, description = "Up to 255 visible ASCII characters; a retry with the same key and the same parts (the same file bytes) within 24 hours answers the first response."),
    ),
    responses(
        (status = 400, description = "`invalid_json`: the JSON body or the multipart form cannot be parsed.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`account_inactive`, `plan_forbids`.", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "`payload_too_large`: the file is over its kind's or the plan's limit, a text part over 64 KiB, a form over its budget, or no room left in the organization's media storage.", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "`unsupported_file_type`: the bytes are none of the accepted types (an Ogg file not in Opus included); `unsupported_media_type`: neither multipart nor JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation_failed` (a missing `to` or `file`, an empty file, a caption over 1,024 characters, a caption or filename on audio or a sticker, an unknown `media_id`), `service_window_closed`, `idempotency_key_reused`.", body = Problem, content_type = "application/problem+json"),
        SendAccepted,
        SendResponses,
        KeyedResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn send_file(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    req: HttpRequest,
    payload: web::Payload,
) -> HandlerResult {
    if multipart::is_json(&req) {
        return send::json_send(
            &ctx,
            caller,
            &req,
            payload,
            SendOperation::File,
            &__path_send_file::path(),
        )
        .await;
    }
    if !multipart::is_multipart(&req) {
        return Err(ApiError::NotMultipart { json_too: true }.into());
    }
    refuse_media_early(&caller)?;
    let form = multipart::read_form(
        &req,
        payload,
        ctx.files.as_ref(),
        &SEND_FILE_PARTS,
        caller.0.plan.max_file_bytes,
    )
    .await?;
    let draft = send_body::form::multipart_file_draft(&form);
    send_form(
        &ctx,
        caller,
        &req,
        form,
        draft,
        &__path_send_file::path(),
        MessageKind::Media,
    )
    .await
}

/// Send a template whose header is a document, image or video, with the header's file.
///
/// Multipart: part `template` is send-template's template form as JSON (without a header), part `file`
/// the header's file; its kind, judged from its bytes, must be the template header's format
/// (`header_media_mismatch` otherwise). The template checks of send-template apply.
#[utoipa::path(
    post,
    path = "/api/v1/messages/send-template-media",
    tag = "messages",
    operation_id = "sendTemplateMedia",
    request_body(content = SendTemplateMediaForm, content_type = "multipart/form-data"),
    params(
        crate::dto::SendQuery,
        ("Idempotency-Key" = Option<String>, Header, description = "Up to 255 visible ASCII characters; a retry with the same key and the same parts within 24 hours answers the first response."),
    ),
    responses(
        (status = 400, description = "`invalid_json`: the multipart form cannot be parsed.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`account_inactive`, `plan_forbids`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`template_not_found`.", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "`payload_too_large`: the file is over its kind's or the plan's limit, a text part over 64 KiB, a form over its budget, or no room left in the organization's media storage.", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "`unsupported_file_type`, `unsupported_media_type`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation_failed`, `template_not_approved`, `template_variables_mismatch`, `header_media_mismatch`, `idempotency_key_reused`.", body = Problem, content_type = "application/problem+json"),
        SendAccepted,
        SendResponses,
        KeyedResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn send_template_media(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    req: HttpRequest,
    payload: web::Payload,
) -> HandlerResult {
    refuse_media_early(&caller)?;
    let form = multipart::read_form(
        &req,
        payload,
        ctx.files.as_ref(),
        &SEND_TEMPLATE_MEDIA_PARTS,
        caller.0.plan.max_file_bytes,
    )
    .await?;
    let draft = send_body::form::multipart_template_draft(&form);
    send_form(
        &ctx,
        caller,
        &req,
        form,
        draft,
        &__path_send_template_media::path(),
        MessageKind::Template,
    )
    .await
}

async fn send_form(
    ctx: &ApiContext,
    caller: Caller,
    req: &HttpRequest,
    mut form: Form,
    draft: Result<herald_domain::usecases::SendDraft, herald_domain::ValidationErrors>,
    path: &str,
    kind: MessageKind,
) -> HandlerResult {
    let dry_run = crate::dry_run::dry_run_requested(req)?;
    let (idempotency, header_error) = send::idempotency_with(req, || form.fingerprint(path));
    let Caller(caller) = caller;
    let command = SendCommand {
        organization: caller.organization,
        plan: caller.plan,
        kind,
        draft: send_body::with_header_error(draft, header_error),
        idempotency,
    };
    let upload = form.file.take().map(|file| file.staged);
    if dry_run {
        return send::dry_run_answer(ctx, command, upload).await;
    }
    let outcome = ctx
        .send
        .execute_with_upload(command, upload)
        .await
        .map_err(ApiError::from)?;
    Ok(send::accepted(outcome))
}

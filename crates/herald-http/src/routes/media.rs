//! Uploaded media: upload once and send many times, and read uploaded and inbound files back
//! (docs/api.md §4.5, §9).

use crate::auth::Caller;
use crate::context::ApiContext;
use crate::error::{ApiError, HandlerResult, Problem};
use crate::multipart;
use crate::responses::{KeyedResponses, ReadResponses, WriteResponses};
use actix_web::http::header::{self, ContentDisposition, DispositionParam, DispositionType};
use actix_web::{HttpRequest, HttpResponse, web};
use futures::StreamExt as _;
use herald_domain::ids::MediaId;
use herald_domain::media::MediaFile;
use herald_domain::organization::MessageKind;
use herald_domain::usecases::MediaBody;
use herald_domain::values::FileName;
use serde::Serialize;
use utoipa::ToSchema;

/// A multipart `media` upload form, for the reference.
#[allow(dead_code)]
#[derive(ToSchema)]
pub(crate) struct UploadMediaForm {
    /// PDF, JPEG, PNG, MP4 or 3GPP video, AAC, AMR, MP3, MP4 audio, Ogg Opus or WebP (a sticker), judged
    /// from its bytes.
    #[schema(format = Binary, value_type = String)]
    file: Vec<u8>,
}

/// A file's bytes, the body of `GET /api/v1/media/{id}/content`, for the reference.
#[allow(dead_code)]
#[derive(ToSchema)]
#[schema(value_type = String, format = Binary)]
pub(crate) struct FileContent(Vec<u8>);

/// An uploaded file, usable as `media_id` for 30 days.
#[derive(Debug, Serialize, ToSchema)]
pub struct MediaUploadResource {
    /// `med_…`
    pub id: String,
    /// `document`, `image`, `video`, `audio` or `sticker`.
    pub kind: String,
    /// Judged from the bytes, e.g. `image/png`.
    pub mime_type: String,
    /// Bytes.
    pub size: u64,
    /// Lowercase hex SHA-256 of the bytes.
    pub sha256: String,
    #[schema(nullable)]
    pub filename: Option<String>,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub expires_at: String,
}

impl From<&MediaFile> for MediaUploadResource {
    fn from(file: &MediaFile) -> Self {
        Self {
            id: file.id.to_string(),
            kind: file.kind.as_str().to_owned(),
            mime_type: file.mime_type.clone(),
            size: file.size,
            sha256: file.sha256.to_hex(),
            filename: file.filename.as_ref().map(|name| name.as_str().to_owned()),
            created_at: crate::dto::time(file.created_at),
            expires_at: crate::dto::time(file.expires_at),
        }
    }
}

/// The plan check comes before the body is read (docs/api.md §8), so a plan without media never streams a
/// 100 MB upload only to refuse it.
pub(crate) fn refuse_media_early(caller: &Caller) -> Result<(), ApiError> {
    if caller.0.plan.allows(MessageKind::Media) {
        Ok(())
    } else {
        Err(ApiError::PlanForbids(MessageKind::Media))
    }
}

/// Upload a file once and send it many times: answers `201` with its `media_id`, usable for 30 days.
#[utoipa::path(
    post,
    path = "/api/v1/media",
    tag = "media",
    operation_id = "uploadMedia",
    request_body(content = UploadMediaForm, content_type = "multipart/form-data"),
    responses(
        (status = 201, description = "Stored.", body = MediaUploadResource,
            headers(("Location" = String, description = "/api/v1/media/{id}/content"))),
        (status = 400, description = "`invalid_json`: the multipart form cannot be parsed.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`account_inactive`, `plan_forbids`.", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "`payload_too_large`: over the kind's or the plan's largest file, a text part over 64 KiB, a form over its budget, or no room left in the organization's media storage.", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "`unsupported_file_type`, `unsupported_media_type`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation_failed`: no `file` part, an empty file, or an unknown part.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        WriteResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn upload_media(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    req: HttpRequest,
    payload: web::Payload,
) -> HandlerResult {
    refuse_media_early(&caller)?;
    let mut form = multipart::read_form(
        &req,
        payload,
        ctx.files.as_ref(),
        &[],
        caller.0.plan.max_file_bytes,
    )
    .await?;
    let mut errors = form.errors.clone();
    let file = form.file.take();
    let filename = file
        .as_ref()
        .and_then(|file| file.filename.as_deref())
        .and_then(|name| errors.check("file", FileName::parse(name)));
    let Some(file) = file else {
        if errors.is_empty() {
            errors.push(herald_domain::FieldError::new("file", "is required"));
        }
        return Err(ApiError::Validation(errors).into());
    };
    if !errors.is_empty() {
        return Err(ApiError::Validation(errors).into());
    }
    let Caller(caller) = caller;
    let stored = ctx
        .media
        .upload(&caller.organization, &caller.plan, file.staged, filename)
        .await
        .map_err(ApiError::from)?;
    Ok(HttpResponse::Created()
        .insert_header((header::LOCATION, format!("/api/v1/media/{}/content", stored.id)))
        .json(MediaUploadResource::from(&stored)))
}

/// The bytes of an uploaded file, or of a file received with an inbound message (fetched from the
/// network with the organization's credentials, so integrators never need network tokens).
#[utoipa::path(
    get,
    path = "/api/v1/media/{id}/content",
    tag = "media",
    operation_id = "getMediaContent",
    params(("id" = String, Path, description = "The media id (`med_…`) of an upload or of an inbound message's file")),
    responses(
        (status = 200, description = "The file, streamed, with its own type: an upload's judged type, or the type the network gives an inbound file (audio and stickers too).",
            content(
                (FileContent = "application/pdf"),
                (FileContent = "image/jpeg"),
                (FileContent = "image/png"),
                (FileContent = "video/mp4"),
                (FileContent = "video/3gpp"),
                (FileContent = "audio/aac"),
                (FileContent = "audio/amr"),
                (FileContent = "audio/mpeg"),
                (FileContent = "audio/mp4"),
                (FileContent = "audio/ogg"),
                (FileContent = "image/webp"),
                (FileContent = "*/*"),
            ),
            headers(("Content-Disposition" = String, description = "`attachment` with the file name, when known"))),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not_found`: no such file for this organization, an expired upload, or one the network no longer keeps (7 days for inbound media).", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`: the network or the media store failed; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        ReadResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn media_content(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    id: web::Path<String>,
) -> HandlerResult {
    let id = MediaId::parse(&id).map_err(|_| ApiError::NotFound)?;
    let content = ctx
        .media
        .content(&caller.0.organization.id, &id)
        .await
        .map_err(ApiError::from)?;
    let mut response = HttpResponse::Ok();
    response.insert_header((header::CONTENT_TYPE, content.mime_type.as_str()));
    // The bytes are the organization's files, never to be rendered as a page of this origin.
    response.insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"));
    if let Some(name) = content.filename {
        response.insert_header(ContentDisposition {
            disposition: DispositionType::Attachment,
            parameters: vec![DispositionParam::Filename(name)],
        });
    }
    let body = match content.body {
        MediaBody::File(file) => {
            // Herald's own copy: its size is exact, so the client can show progress.
            if let Some(size) = content.size {
                response.no_chunking(size);
            }
            let file = tokio::fs::File::from_std(file);
            tokio_util::io::ReaderStream::new(file)
                .map(|chunk| chunk.map_err(actix_web::Error::from))
                .boxed_local()
        }
        MediaBody::Stream(download) => download
            .body
            .map(|chunk| {
                chunk
                    .map(actix_web::web::Bytes::from)
                    .map_err(actix_web::Error::from)
            })
            .boxed_local(),
    };
    Ok(response.streaming(body))
}

//! `GET /api/v1/senders`, `GET /api/v1/senders/{id}`: the organization's numbers, read-only (docs/api.md
//! §6.2). Credentials (access tokens, their environment variable) never appear.

use crate::auth::Caller;
use crate::context::ApiContext;
use crate::error::{ApiError, HandlerResult, Problem};
use crate::responses::{KeyedResponses, ReadResponses};
use actix_web::{HttpResponse, web};
use herald_domain::ids::SenderId;
use herald_domain::usecases::SenderView;
use serde::Serialize;
use utoipa::ToSchema;

/// One of the organization's sender numbers, with what the network last reported of it.
#[derive(Debug, Serialize, ToSchema)]
pub struct SenderResource {
    #[schema(example = "snd_01JD…")]
    pub id: String,
    /// The number, E.164.
    #[schema(example = "+15550001111")]
    pub number: String,
    /// Sends without `from` use the default sender.
    pub default: bool,
    /// The network's id of the number (`phone_number_id`).
    pub phone_number_id: String,
    /// The business account (WABA) that owns the number and its templates.
    pub business_account_id: String,
    /// Messages per second the network allows this number.
    pub throughput_per_second: u32,
    /// `GREEN`, `YELLOW`, `RED` or `UNKNOWN`; `null` until the network reports on the number.
    #[schema(example = "GREEN")]
    pub quality_rating: Option<String>,
    /// The network's messaging limit tier (`TIER_250`, `TIER_1K`, `TIER_10K`, `TIER_100K`,
    /// `TIER_UNLIMITED`, …); `null` until reported.
    #[schema(example = "TIER_10K")]
    pub messaging_limit: Option<String>,
    /// When the network last reported the number's quality or limit.
    #[schema(format = DateTime)]
    pub quality_updated_at: Option<String>,
    /// The webhook fields Herald reads that the number's business account was last found not to deliver to
    /// Herald's Meta app (`[]`: none missing); `null` until checked, which the template sync does for each
    /// business account. Meta's `subscribed_apps` names apps, not fields, so an account that does not
    /// deliver to Herald's app lists every field.
    #[schema(example = json!([]))]
    pub webhook_fields_missing: Option<Vec<String>>,
    #[schema(format = DateTime)]
    pub created_at: String,
}

impl From<&SenderView> for SenderResource {
    fn from(view: &SenderView) -> Self {
        let sender = &view.sender;
        Self {
            id: sender.id.to_string(),
            number: sender.number.as_str().to_owned(),
            default: sender.is_default,
            phone_number_id: sender.phone_number_id.as_str().to_owned(),
            business_account_id: sender.waba_id.as_str().to_owned(),
            throughput_per_second: sender.throughput_per_second,
            quality_rating: view.quality.quality_rating.clone(),
            messaging_limit: view.quality.messaging_limit.clone(),
            quality_updated_at: view.quality.quality_updated_at.map(crate::dto::time),
            webhook_fields_missing: view.webhook_fields_missing.clone(),
            created_at: crate::dto::time(sender.created_at),
        }
    }
}

/// `{ "data": [...] }`
#[derive(Debug, Serialize, ToSchema)]
pub struct SenderListResource {
    pub data: Vec<SenderResource>,
}

/// The organization's sender numbers, oldest first.
#[utoipa::path(
    get,
    path = "/api/v1/senders",
    tag = "senders",
    operation_id = "listSenders",
    responses(
        (status = 200, description = "The senders, oldest first.", body = SenderListResource),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        ReadResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn list_senders(ctx: web::Data<ApiContext>, caller: Caller) -> HandlerResult {
    let senders = ctx
        .senders
        .list(&caller.0.organization.id)
        .await
        .map_err(ApiError::from)?;
    Ok(HttpResponse::Ok().json(SenderListResource {
        data: senders.iter().map(SenderResource::from).collect(),
    }))
}

/// One sender number; another organization's id is `404 not_found`.
#[utoipa::path(
    get,
    path = "/api/v1/senders/{id}",
    tag = "senders",
    operation_id = "getSender",
    params(("id" = String, Path, description = "Sender id (`snd_…`)")),
    responses(
        (status = 200, description = "The sender.", body = SenderResource),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not_found`.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        ReadResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn get_sender(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    path: web::Path<String>,
) -> HandlerResult {
    let id = SenderId::parse(&path.into_inner()).map_err(|_| ApiError::NotFound)?;
    let sender = ctx
        .senders
        .one(&caller.0.organization.id, &id)
        .await
        .map_err(ApiError::from)?
        .ok_or(ApiError::NotFound)?;
    Ok(HttpResponse::Ok().json(SenderResource::from(&sender)))
}

//! How a JSON body is read: its size limit and what each way of failing answers.

use crate::error::ApiError;
use actix_web::error::JsonPayloadError;
use actix_web::{HttpRequest, web};

/// The largest JSON body a send takes (docs/api.md §2: `payload_too_large` above it).
pub const JSON_LIMIT_BYTES: usize = 256 * 1024;

pub(crate) fn json_config() -> web::JsonConfig {
    web::JsonConfig::default()
        .limit(JSON_LIMIT_BYTES)
        .error_handler(json_error)
}

/// Reads a JSON body of up to `limit` bytes (an operation whose body may be larger than the usual
/// [`JSON_LIMIT_BYTES`], such as a broadcast's), failing as every JSON body does.
pub(crate) async fn read_json_up_to(
    req: &HttpRequest,
    payload: web::Payload,
    limit: usize,
) -> Result<serde_json::Value, actix_web::Error> {
    web::JsonBody::<serde_json::Value>::new(req, &mut payload.into_inner(), None, true)
        .limit(limit)
        .await
        .map_err(|error| api_error(error, limit).into())
}

fn json_error(error: JsonPayloadError, _: &HttpRequest) -> actix_web::Error {
    api_error(error, JSON_LIMIT_BYTES).into()
}

fn api_error(error: JsonPayloadError, configured: usize) -> ApiError {
    use actix_web::error::PayloadError;
    match &error {
        JsonPayloadError::OverflowKnownLength { limit, .. } | JsonPayloadError::Overflow { limit } => {
            ApiError::PayloadTooLarge { limit: *limit }
        }
        JsonPayloadError::Payload(PayloadError::Overflow) => ApiError::PayloadTooLarge { limit: configured },
        JsonPayloadError::ContentType => ApiError::UnsupportedMediaType,
        JsonPayloadError::Deserialize(reason) => ApiError::InvalidJson(reason.to_string()),
        JsonPayloadError::Payload(_) => ApiError::InvalidJson("the body could not be read".to_owned()),
        other => ApiError::Internal(anyhow::anyhow!("reading a JSON body: {other}")),
    }
}

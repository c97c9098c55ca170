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

fn json_error(error: JsonPayloadError, _: &HttpRequest) -> actix_web::Error {
    use actix_web::error::PayloadError;
    let api = match &error {
        JsonPayloadError::OverflowKnownLength { limit, .. } | JsonPayloadError::Overflow { limit } => {
            ApiError::PayloadTooLarge { limit: *limit }
        }
        JsonPayloadError::Payload(PayloadError::Overflow) => ApiError::PayloadTooLarge {
            limit: JSON_LIMIT_BYTES,
        },
        JsonPayloadError::ContentType => ApiError::UnsupportedMediaType,
        JsonPayloadError::Deserialize(reason) => ApiError::InvalidJson(reason.to_string()),
        JsonPayloadError::Payload(_) => ApiError::InvalidJson("the body could not be read".to_owned()),
        other => ApiError::Internal(anyhow::anyhow!("reading a JSON body: {other}")),
    };
    api.into()
}

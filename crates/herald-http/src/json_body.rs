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

/// Reads a JSON body of type `T` (up to [`JSON_LIMIT_BYTES`]) once the handler runs, that is after
/// authentication and the rate checks of [`crate::auth::Caller`]: a `web::Json` argument would be read
/// and parsed while the caller is still being authenticated.
pub(crate) async fn read_json<T: serde::de::DeserializeOwned>(
    req: &HttpRequest,
    payload: web::Payload,
) -> Result<web::Json<T>, actix_web::Error> {
    use actix_web::FromRequest as _;
    web::Json::<T>::from_request(req, &mut payload.into_inner()).await
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
        JsonPayloadError::Deserialize(reason) => match unknown_field(reason) {
            Some(field) => ApiError::field(&field, "is not a field of this operation"),
            None => ApiError::InvalidJson(reason.to_string()),
        },
        JsonPayloadError::Payload(_) => ApiError::InvalidJson("the body could not be read".to_owned()),
        other => ApiError::Internal(anyhow::anyhow!("reading a JSON body: {other}")),
    }
}

/// The field a typed body (`#[serde(deny_unknown_fields)]`) refused, from serde's message (`unknown field
/// `x`, expected …`): refused as a field error, like every hand-parsed body's unknown field.
fn unknown_field(error: &serde_json::Error) -> Option<String> {
    if !error.is_data() {
        return None;
    }
    let message = error.to_string();
    let rest = message.strip_prefix("unknown field `")?;
    let end = rest
        .find("`, expected")
        .or_else(|| rest.find("`, there are no fields"))?;
    rest.get(..end).map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Strict {
        url: Option<String>,
    }

    #[test]
    fn an_unknown_field_of_a_typed_body_is_a_field_error() {
        let error = serde_json::from_str::<Strict>(r#"{"url": "x", "colour": 1}"#).unwrap_err();
        assert_eq!(unknown_field(&error).as_deref(), Some("colour"));
        let error = serde_json::from_str::<Strict>(r#"{"url": 1}"#).unwrap_err();
        assert_eq!(unknown_field(&error), None);
        match api_error(
            JsonPayloadError::Deserialize(serde_json::from_str::<Strict>(r#"{"colour": 1}"#).unwrap_err()),
            JSON_LIMIT_BYTES,
        ) {
            ApiError::Validation(errors) => assert_eq!(errors.errors()[0].field, "colour"),
            other => panic!("{other:?}"),
        }
    }
}

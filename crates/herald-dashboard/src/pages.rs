//! The pages, one module per section.

pub mod account;
pub mod broadcasts;
pub mod erase;
pub mod keys;
pub mod login;
pub mod messages;
pub mod templates;
pub mod webhooks;

use crate::auth::{context, signed_cookie};
use crate::error::PageError;
use crate::session::SESSION_COOKIE;
use actix_web::http::header::{CACHE_CONTROL, LOCATION};
use actix_web::{HttpRequest, HttpResponse};

/// `/dashboard`: the keys page for a logged-in owner, the login form otherwise.
pub async fn home(req: HttpRequest) -> Result<HttpResponse, PageError> {
    let ctx = context(&req)?;
    let target = match signed_cookie(&req, &ctx.cookie_key, SESSION_COOKIE) {
        Some(token) if ctx.access.session(&token).await.is_ok() => "/dashboard/keys",
        _ => "/dashboard/login",
    };
    Ok(HttpResponse::SeeOther()
        .insert_header((LOCATION, target))
        .finish())
}

pub async fn stylesheet() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/css; charset=utf-8")
        .insert_header((CACHE_CONTROL, "public, max-age=3600"))
        .body(include_str!("../assets/app.css"))
}

pub async fn script() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/javascript; charset=utf-8")
        .insert_header((CACHE_CONTROL, "public, max-age=3600"))
        .body(include_str!("../assets/app.js"))
}

pub async fn not_found() -> Result<HttpResponse, PageError> {
    Err(PageError::NotFound)
}

/// Parses an id from the path; a malformed one is, to the owner, an id that does not exist.
pub(crate) fn parse_id<T>(
    value: &str,
    parse: fn(&str) -> Result<T, herald_domain::error::InvalidValue>,
) -> Result<T, PageError> {
    parse(value).map_err(|_| PageError::NotFound)
}

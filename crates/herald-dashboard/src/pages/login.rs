//! Login and logout.

use crate::auth::{client_address, context, make_cookie, removal_cookie, same_token, signed_cookie};
use crate::error::PageError;
use crate::session::{LOGIN_COOKIE, SESSION_COOKIE};
use crate::view;
use actix_web::http::StatusCode;
use actix_web::http::header::LOCATION;
use actix_web::{HttpRequest, HttpResponse, web};
use herald_domain::client_address::AddressBucket;
use herald_domain::usecases::LoginError;
use maud::html;
use serde::Deserialize;

/// The one answer to every failed login: it never says which part was wrong, or that attempts ran out.
pub const LOGIN_FAILED: &str = "That email and password did not work. Check them and try again in a minute.";

#[derive(Deserialize)]
pub struct LoginForm {
    #[serde(default)]
    email: String,
    #[serde(default)]
    password: String,
    #[serde(default)]
    csrf: String,
}

fn login_page(status: StatusCode, csrf: &str, email: &str, error: Option<&str>) -> HttpResponse {
    view::page(
        status,
        None,
        "Log in",
        html! {
            section.card.narrow {
                h1 { "Log in to your dashboard" }
                @if let Some(error) = error {
                    p.error role="alert" id="login-error" { (error) }
                }
                form method="post" action="/dashboard/login" {
                    input type="hidden" name="csrf" value=(csrf);
                    label { "Email" input type="email" name="email" id="email" value=(email) autocomplete="username" required; }
                    label { "Password" input type="password" name="password" id="password" autocomplete="current-password" required; }
                    button type="submit" id="login" { "Log in" }
                }
                p.muted { "The operator sets your password with " code { "herald admin owner set-password" } "." }
            }
        },
    )
}

/// A fresh login CSRF token in a signed cookie, and the page carrying it.
fn fresh_form(
    req: &HttpRequest,
    status: StatusCode,
    email: &str,
    error: Option<&str>,
) -> Result<HttpResponse, PageError> {
    let ctx = context(req)?;
    let token = ctx.access.new_form_token();
    let mut response = login_page(status, &token, email, error);
    response
        .add_cookie(&make_cookie(req, &ctx.cookie_key, LOGIN_COOKIE, token, None))
        .map_err(|e| PageError::Internal(e.to_string()))?;
    Ok(response)
}

pub async fn form(req: HttpRequest) -> Result<HttpResponse, PageError> {
    fresh_form(&req, StatusCode::OK, "", None)
}

pub async fn submit(req: HttpRequest, form: web::Form<LoginForm>) -> Result<HttpResponse, PageError> {
    let ctx = context(&req)?;
    let form = form.into_inner();
    let expected = signed_cookie(&req, &ctx.cookie_key, LOGIN_COOKIE).unwrap_or_default();
    if !same_token(&form.csrf, &expected) {
        return Err(PageError::Forbidden);
    }
    let address = client_address(&req, &ctx.trusted_proxies);
    if !ctx.login_limits.allow(&form.email, &AddressBucket::of(address)) {
        tracing::warn!(client = %address, "dashboard login refused: attempt limit reached");
        return fresh_form(&req, StatusCode::UNAUTHORIZED, &form.email, Some(LOGIN_FAILED));
    }
    match ctx.access.login(&form.email, &form.password).await {
        Ok(new) => {
            tracing::info!(organization = %new.session.organization_id, "dashboard login");
            let max_age = ctx.access.settings().absolute.num_seconds();
            let mut response = HttpResponse::SeeOther()
                .insert_header((LOCATION, "/dashboard/keys"))
                .finish();
            response
                .add_cookie(&make_cookie(
                    &req,
                    &ctx.cookie_key,
                    SESSION_COOKIE,
                    new.token,
                    Some(max_age),
                ))
                .map_err(|e| PageError::Internal(e.to_string()))?;
            response
                .add_cookie(&removal_cookie(&req, LOGIN_COOKIE))
                .map_err(|e| PageError::Internal(e.to_string()))?;
            Ok(response)
        }
        Err(LoginError::Invalid) => {
            tracing::info!(client = %address, "dashboard login failed");
            fresh_form(&req, StatusCode::UNAUTHORIZED, &form.email, Some(LOGIN_FAILED))
        }
        Err(LoginError::Store(e)) => Err(e.into()),
    }
}

#[derive(Deserialize)]
pub struct LogoutForm {
    #[serde(default)]
    csrf: String,
}

impl crate::auth::CsrfForm for LogoutForm {
    fn csrf(&self) -> &str {
        &self.csrf
    }
}

pub async fn logout(
    req: HttpRequest,
    posted: crate::auth::Posted<LogoutForm>,
) -> Result<HttpResponse, PageError> {
    let ctx = context(&req)?;
    let _ = &posted.form;
    if let Some(token) = signed_cookie(&req, &ctx.cookie_key, SESSION_COOKIE) {
        ctx.access.logout(&token).await?;
    }
    tracing::info!(organization = %posted.owner.organization_id(), "dashboard logout");
    let mut response = HttpResponse::SeeOther()
        .insert_header((LOCATION, "/dashboard/login"))
        .finish();
    response
        .add_cookie(&removal_cookie(&req, SESSION_COOKIE))
        .map_err(|e| PageError::Internal(e.to_string()))?;
    Ok(response)
}

//! Sessions in the browser: the signed session cookie, the [`Owner`] extractor every page takes, CSRF
//! checks on every form ([`Posted`]).
//!
//! The cookie holds an opaque 256-bit random token, signed with the cookie key; the server keeps only the
//! token's SHA-256 digest with the session's organization, CSRF token and expiry times. Server-side state
//! (rather than a self-contained signed session) is what makes logout, idle expiry and "a new password
//! ends every session" real: a stolen cookie stops working the moment its row is gone. The signature lets
//! a forged or tampered cookie be refused without a store read.

use crate::context::DashboardContext;
use crate::error::PageError;
use crate::session::{Owner, SESSION_COOKIE};
use actix_web::cookie::{Cookie, CookieJar, SameSite};
use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, web};
use futures::future::LocalBoxFuture;
use herald_domain::client_address::TrustedProxies;
use serde::de::DeserializeOwned;
use std::net::{IpAddr, Ipv4Addr};

/// Reads a cookie the server signed; `None` when absent, unsigned or tampered with.
pub(crate) fn signed_cookie(req: &HttpRequest, key: &actix_web::cookie::Key, name: &str) -> Option<String> {
    let cookie = req.cookie(name)?;
    let mut jar = CookieJar::new();
    jar.add_original(cookie.into_owned());
    jar.signed(key).get(name).map(|c| c.value().to_owned())
}

/// A signed, HttpOnly, SameSite=Strict cookie for the dashboard's path; `Secure` when the request came
/// over https. `max_age` in seconds; `None` makes a browser-session cookie.
pub(crate) fn make_cookie(
    req: &HttpRequest,
    key: &actix_web::cookie::Key,
    name: &'static str,
    value: String,
    max_age: Option<i64>,
) -> Cookie<'static> {
    let mut cookie = Cookie::build(name, value)
        .path("/dashboard")
        .http_only(true)
        .same_site(SameSite::Strict)
        .secure(is_https(req))
        .finish();
    if let Some(seconds) = max_age {
        cookie.set_max_age(actix_web::cookie::time::Duration::seconds(seconds));
    }
    let mut jar = CookieJar::new();
    jar.signed_mut(key).add(cookie);
    jar.get(name).cloned().unwrap_or_else(|| Cookie::new(name, ""))
}

/// A cookie that deletes `name` in the browser.
pub(crate) fn removal_cookie(req: &HttpRequest, name: &'static str) -> Cookie<'static> {
    let mut cookie = Cookie::build(name, "")
        .path("/dashboard")
        .http_only(true)
        .same_site(SameSite::Strict)
        .secure(is_https(req))
        .finish();
    cookie.make_removal();
    cookie
}

/// The client's address: the TCP peer, or what trusted proxies say in `X-Forwarded-For`
/// (`herald_domain::client_address`). Not actix's `realip_remote_addr`, which believes any sender's header.
pub(crate) fn client_address(req: &HttpRequest, proxies: &TrustedProxies) -> IpAddr {
    // Only in-process test requests have no socket peer; they share one bucket.
    let peer = req
        .peer_addr()
        .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |a| a.ip());
    let forwarded = req.headers().get_all("x-forwarded-for").map(|v| v.as_bytes());
    proxies.client_address(peer, forwarded)
}

fn is_https(req: &HttpRequest) -> bool {
    req.connection_info().scheme() == "https"
}

/// Compares two tokens in constant time.
pub(crate) fn same_token(a: &str, b: &str) -> bool {
    use subtle::ConstantTimeEq;
    !a.is_empty() && bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

pub(crate) fn context(req: &HttpRequest) -> Result<web::Data<DashboardContext>, PageError> {
    req.app_data::<web::Data<DashboardContext>>()
        .cloned()
        .ok_or_else(|| PageError::Internal("the dashboard context is not configured".to_owned()))
}

async fn owner_of(req: HttpRequest) -> Result<Owner, PageError> {
    let ctx = context(&req)?;
    let token = signed_cookie(&req, &ctx.cookie_key, SESSION_COOKIE).ok_or(PageError::LoginRequired)?;
    Ok(Owner(ctx.access.scope(&token).await?))
}

impl FromRequest for Owner {
    type Error = PageError;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        Box::pin(owner_of(req.clone()))
    }
}

/// A form with its CSRF token.
pub trait CsrfForm {
    fn csrf(&self) -> &str;
}

/// A POSTed form of the logged-in owner whose CSRF token matched the session's: the only way a handler
/// gets a form, so no form goes unchecked.
pub struct Posted<T> {
    pub owner: Owner,
    pub form: T,
}

impl<T> FromRequest for Posted<T>
where
    T: DeserializeOwned + CsrfForm + 'static,
{
    type Error = PageError;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let req = req.clone();
        let form = web::Form::<T>::from_request(&req, payload);
        Box::pin(async move {
            let owner = owner_of(req).await?;
            // An unreadable body is treated like a missing token: refused before anything is done.
            let form = form.await.map_err(|_| PageError::Forbidden)?.into_inner();
            if !same_token(form.csrf(), owner.csrf()) {
                return Err(PageError::Forbidden);
            }
            Ok(Self { owner, form })
        })
    }
}

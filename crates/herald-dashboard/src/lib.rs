//! The organization owner's dashboard at `/dashboard` (docs/api.md §11): owner login, API keys, the message
//! log, broadcasts, webhook endpoints and deliveries, templates, the account, and erasing a person. Pages are rendered on the server with
//! maud; the only browser code is a copy button (`assets/app.js`), served from this binary, so the dashboard
//! needs nothing from the network.
//!
//! Handlers call the domain's use cases (`OwnerAccess`, `Admin`, `ListMessages`, `ManageWebhooks`, …)
//! with the organization of the logged-in owner, which [`auth::Owner`] takes from the session: another
//! organization's id is, to the owner, an id that does not exist (404).

mod auth;
mod context;
mod error;
mod login_limits;
mod pages;
mod passwords;
mod session;
mod view;

pub use context::DashboardContext;
pub use login_limits::LoginLimits;
pub use passwords::Argon2Passwords;
pub use session::{CSRF_FIELD, LOGIN_COOKIE, SESSION_COOKIE};

use actix_web::http::header;
use actix_web::middleware::DefaultHeaders;
use actix_web::web;

/// The Content-Security-Policy of every page: only this server's own stylesheet and script, no frames,
/// forms only to this server.
const CSP: &str = "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; \
                   form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// Mounts the dashboard under `/dashboard`.
pub fn configure(config: &mut web::ServiceConfig, context: web::Data<DashboardContext>) {
    config.service(
        web::scope("/dashboard")
            .app_data(context)
            .app_data(web::FormConfig::default().limit(16 * 1024))
            .wrap(
                DefaultHeaders::new()
                    // Pages may hold a secret shown once: never cached, never framed, never sniffed.
                    .add((header::CACHE_CONTROL, "no-store"))
                    .add((header::CONTENT_SECURITY_POLICY, CSP))
                    .add((header::X_FRAME_OPTIONS, "DENY"))
                    .add((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
                    .add((header::REFERRER_POLICY, "no-referrer")),
            )
            .route("", web::get().to(pages::home))
            .route("/", web::get().to(pages::home))
            .route("/assets/app.css", web::get().to(pages::stylesheet))
            .route("/assets/app.js", web::get().to(pages::script))
            .route("/login", web::get().to(pages::login::form))
            .route("/login", web::post().to(pages::login::submit))
            .route("/logout", web::post().to(pages::login::logout))
            .route("/keys", web::get().to(pages::keys::list))
            .route("/keys", web::post().to(pages::keys::create))
            .route("/keys/{id}/disable", web::get().to(pages::keys::confirm_disable))
            .route("/keys/{id}/disable", web::post().to(pages::keys::disable))
            .route("/messages", web::get().to(pages::messages::list))
            .route("/messages/{id}", web::get().to(pages::messages::show))
            .route("/messages/{id}/cancel", web::post().to(pages::messages::cancel))
            .route("/broadcasts", web::get().to(pages::broadcasts::list))
            .route("/broadcasts/{id}", web::get().to(pages::broadcasts::show))
            .route(
                "/broadcasts/{id}/cancel",
                web::post().to(pages::broadcasts::cancel),
            )
            .route(
                "/broadcasts/{id}/resume",
                web::post().to(pages::broadcasts::resume),
            )
            .route("/webhooks", web::get().to(pages::webhooks::list))
            .route("/webhooks", web::post().to(pages::webhooks::create))
            .route("/webhooks/{id}", web::get().to(pages::webhooks::show))
            .route("/webhooks/{id}/enable", web::post().to(pages::webhooks::enable))
            .route("/webhooks/{id}/disable", web::post().to(pages::webhooks::disable))
            .route("/webhooks/{id}/rotate", web::post().to(pages::webhooks::rotate))
            .route("/webhooks/{id}/test", web::post().to(pages::webhooks::test))
            .route(
                "/webhooks/{id}/deliveries/{delivery}/redeliver",
                web::post().to(pages::webhooks::redeliver),
            )
            .route("/templates", web::get().to(pages::templates::list))
            .route("/templates/sync", web::post().to(pages::templates::sync))
            .route(
                "/templates/{name}/{language}",
                web::get().to(pages::templates::show),
            )
            .route("/account", web::get().to(pages::account::show))
            .route("/erase", web::get().to(pages::erase::form))
            .route("/erase/review", web::post().to(pages::erase::review))
            .route("/erase", web::post().to(pages::erase::erase))
            .default_service(web::to(pages::not_found)),
    );
}

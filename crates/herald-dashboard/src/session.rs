//! The names a browser session is carried under, and the logged-in owner every page is given
//! (its extractor is in [`crate::auth`]).

use herald_domain::usecases::OwnerScope;

/// The session cookie's name.
pub const SESSION_COOKIE: &str = "herald_session";
/// The cookie carrying the login form's CSRF token (there is no session yet to hold it).
pub const LOGIN_COOKIE: &str = "herald_login";
/// The hidden field every form carries its CSRF token in.
pub const CSRF_FIELD: &str = "csrf";

/// The logged-in owner: the live session of the request's cookie, with its organization and plan.
/// Without one, the page answers a redirect to the login form.
pub struct Owner(pub OwnerScope);

impl Owner {
    pub fn organization_id(&self) -> &herald_domain::ids::OrganizationId {
        &self.0.organization.id
    }

    pub fn csrf(&self) -> &str {
        &self.0.session.csrf_token
    }
}

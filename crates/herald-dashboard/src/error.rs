//! What a page answers when it cannot show what was asked: one place maps every failure to a status and
//! a page.

use crate::view;
use actix_web::http::StatusCode;
use actix_web::http::header::LOCATION;
use actix_web::{HttpResponse, ResponseError};
use herald_domain::ports::StoreError;
use herald_domain::usecases::{AdminError, QueryError, SessionError, WebhookError};
use std::fmt;

/// Why a page was not shown.
#[derive(Debug)]
pub enum PageError {
    /// No live session: go and log in.
    LoginRequired,
    /// The form's CSRF token is missing or is not this session's.
    Forbidden,
    /// No such thing in the owner's organization (another organization's ids included).
    NotFound,
    /// The request made no sense (a malformed id or form); the text says what to fix.
    BadRequest(String),
    /// A bug or an unreachable store: logged, never shown.
    Internal(String),
}

impl fmt::Display for PageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::LoginRequired => f.write_str("login required"),
            Self::Forbidden => f.write_str("forbidden"),
            Self::NotFound => f.write_str("not found"),
            Self::BadRequest(why) => write!(f, "bad request: {why}"),
            Self::Internal(why) => write!(f, "internal error: {why}"),
        }
    }
}

impl ResponseError for PageError {
    fn status_code(&self) -> StatusCode {
        match self {
            Self::LoginRequired => StatusCode::SEE_OTHER,
            Self::Forbidden => StatusCode::FORBIDDEN,
            Self::NotFound => StatusCode::NOT_FOUND,
            Self::BadRequest(_) => StatusCode::BAD_REQUEST,
            Self::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let (title, text) = match self {
            Self::LoginRequired => {
                return HttpResponse::SeeOther()
                    .insert_header((LOCATION, "/dashboard/login"))
                    .finish();
            }
            Self::Forbidden => (
                "Form expired",
                "This form is no longer valid (it was opened in another session, or the session ended). \
                 Go back, reload the page and try again."
                    .to_owned(),
            ),
            Self::NotFound => (
                "Not found",
                "There is nothing here in your organization.".to_owned(),
            ),
            Self::BadRequest(why) => ("Check the request", why.clone()),
            Self::Internal(why) => {
                tracing::error!(error = %why, "dashboard page failed");
                (
                    "Something went wrong",
                    "The page could not be shown. Try again in a moment.".to_owned(),
                )
            }
        };
        view::page(self.status_code(), None, title, view::notice_page(title, &text))
    }
}

impl From<StoreError> for PageError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::NotFound => Self::NotFound,
            other => Self::Internal(other.to_string()),
        }
    }
}

impl From<SessionError> for PageError {
    fn from(error: SessionError) -> Self {
        match error {
            SessionError::NoSession => Self::LoginRequired,
            SessionError::Store(e) => e.into(),
        }
    }
}

impl From<QueryError> for PageError {
    fn from(error: QueryError) -> Self {
        match error {
            QueryError::NotFound => Self::NotFound,
            QueryError::Invalid(errors) => Self::BadRequest(errors.to_string()),
            QueryError::Store(e) => e.into(),
        }
    }
}

impl From<WebhookError> for PageError {
    fn from(error: WebhookError) -> Self {
        match error {
            WebhookError::NotFound => Self::NotFound,
            WebhookError::PlanForbids { limit } => {
                Self::BadRequest(format!("Your plan allows {limit} webhook endpoints."))
            }
            WebhookError::Invalid(errors) => Self::BadRequest(errors.to_string()),
            WebhookError::TestsPending { limit } => Self::BadRequest(format!(
                "This endpoint already has {limit} test events waiting to be delivered; try again once they are."
            )),
            WebhookError::Store(e) => e.into(),
        }
    }
}

impl From<AdminError> for PageError {
    fn from(error: AdminError) -> Self {
        match error {
            AdminError::UnknownKey(_) | AdminError::UnknownOrganization(_) => Self::NotFound,
            AdminError::Store(e) => e.into(),
            other => Self::BadRequest(other.to_string()),
        }
    }
}

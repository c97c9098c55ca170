//! The query string as the handlers read it, and the one rule every operation keeps: a parameter its
//! OpenAPI document does not declare is refused (`422 validation_failed` naming it), never ignored.

use crate::error::ApiError;
use actix_web::dev::Payload;
use actix_web::http::Method;
use actix_web::{FromRequest, HttpRequest, web};
use herald_domain::error::InvalidValue;
use herald_domain::{FieldError, Timestamp, ValidationErrors};
use std::future::{Ready, ready};

/// Every `key=value` pair in order, repeats kept, so a handler can refuse a repeated filter.
pub(crate) fn query_pairs(req: &HttpRequest) -> Result<Vec<(String, String)>, ApiError> {
    web::Query::<Vec<(String, String)>>::from_query(req.query_string())
        .map(web::Query::into_inner)
        .map_err(|_| ApiError::field("query", "the query string cannot be decoded"))
}

/// A time filter: RFC 3339, any offset, read as UTC.
pub(crate) fn parse_time(value: &str) -> Result<Timestamp, InvalidValue> {
    chrono::DateTime::parse_from_rfc3339(value)
        .map(|t| t.with_timezone(&chrono::Utc))
        .map_err(|_| InvalidValue::new("must be an RFC 3339 time such as 2026-11-21T10:15:30Z"))
}

/// A page size from 1 to `max`.
pub(crate) fn parse_limit(value: &str, max: u32) -> Result<u32, InvalidValue> {
    value
        .parse::<u32>()
        .ok()
        .filter(|n| (1..=max).contains(n))
        .ok_or_else(|| InvalidValue::new(format!("must be an integer from 1 to {max}")))
}

/// The query parameters each method of one resource declares in its OpenAPI document, kept on the
/// resource by the route table so the document is the one list of what an operation takes.
#[derive(Debug, Clone, Default)]
pub(crate) struct DeclaredQuery(Vec<(Method, Vec<String>)>);

impl DeclaredQuery {
    pub(crate) fn declare(&mut self, method: Method, names: Vec<String>) {
        self.0.push((method, names));
    }

    fn names(&self, method: &Method) -> &[String] {
        self.0
            .iter()
            .find(|(declared, _)| declared == method)
            .map_or(&[], |(_, names)| names.as_slice())
    }
}

/// Refuses every query parameter the request's operation does not declare, each named in the answer. A
/// route without a [`DeclaredQuery`] (one another crate mounts) is left alone.
pub(crate) fn refuse_undeclared(req: &HttpRequest) -> Result<(), ApiError> {
    let Some(declared) = req.app_data::<DeclaredQuery>() else {
        return Ok(());
    };
    if req.query_string().is_empty() {
        return Ok(());
    }
    let names = declared.names(req.method());
    let mut errors = ValidationErrors::new();
    for (key, _) in query_pairs(req)? {
        if !names.contains(&key) {
            errors.push(FieldError::new(key, undeclared_message(names)));
        }
    }
    errors.finish(()).map_err(ApiError::Validation)
}

fn undeclared_message(names: &[String]) -> String {
    match names {
        [] => "is not a parameter of this operation; it takes none".to_owned(),
        names => {
            let list: Vec<String> = names.iter().map(|name| format!("`{name}`")).collect();
            format!(
                "is not a parameter of this operation; it takes {}",
                list.join(", ")
            )
        }
    }
}

/// The strict query check for an operation without a [`crate::auth::Caller`] (which makes it itself, after
/// authentication): health, the document and its page.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StrictQuery;

impl FromRequest for StrictQuery {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(refuse_undeclared(req).map(|()| Self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    fn refused(uri: &str, method: Method, declared: &[&str]) -> Vec<String> {
        let mut query = DeclaredQuery::default();
        query.declare(method.clone(), declared.iter().map(|s| (*s).to_owned()).collect());
        let req = TestRequest::with_uri(uri)
            .method(method)
            .app_data(query)
            .to_http_request();
        match refuse_undeclared(&req) {
            Ok(()) => Vec::new(),
            Err(ApiError::Validation(errors)) => errors.errors().iter().map(|e| e.field.clone()).collect(),
            Err(other) => panic!("{other:?}"),
        }
    }

    #[test]
    fn only_declared_parameters_of_the_method_pass() {
        assert!(refused("/x?limit=5&cursor=a", Method::GET, &["limit", "cursor"]).is_empty());
        assert_eq!(
            refused("/x?limit=5&colour=red", Method::GET, &["limit"]),
            ["colour"]
        );
        assert_eq!(refused("/x?dry_run=true", Method::POST, &[]), ["dry_run"]);
        // Another method's parameters are not this one's.
        let mut query = DeclaredQuery::default();
        query.declare(Method::GET, vec!["status".to_owned()]);
        let req = TestRequest::post()
            .uri("/x?status=a")
            .app_data(query)
            .to_http_request();
        assert!(refuse_undeclared(&req).is_err());
    }

    #[test]
    fn a_route_without_declarations_is_left_alone() {
        let req = TestRequest::with_uri("/x?anything=1").to_http_request();
        assert!(refuse_undeclared(&req).is_ok());
    }
}

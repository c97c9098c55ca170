//! `GET /api/v1/usage`: the organization's messages and their estimated cost by day and category
//! (docs/api.md §5.2).

use crate::auth::Caller;
use crate::context::ApiContext;
use crate::dto::{UsageQuery, UsageResource};
use crate::error::{ApiError, HandlerResult, Problem};
use crate::responses::{KeyedResponses, ReadResponses};
use crate::routes::query::query_pairs;
use actix_web::{HttpRequest, HttpResponse, web};
use chrono::NaiveDate;
use herald_domain::{FieldError, ValidationErrors};

/// Messages and their estimated cost, by UTC day and network pricing category.
///
/// A message counts on the day it was accepted, in the category the network's status reports gave it
/// (`null` until one did). Costs come from the organization's rate card and appear only where it has a
/// rate.
#[utoipa::path(
    get,
    path = "/api/v1/usage",
    tag = "messages",
    operation_id = "getUsage",
    params(UsageQuery),
    responses(
        (status = 200, description = "The usage of the range.", body = UsageResource),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation_failed`: `from` or `until` is not a date or not one from 2000-01-01 to 9999-12-31, `from` is after `until`, or the range is over 92 days.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        ReadResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn usage(ctx: web::Data<ApiContext>, caller: Caller, req: HttpRequest) -> HandlerResult {
    let (from, until) = parse_range(&query_pairs(&req)?).map_err(ApiError::Validation)?;
    let report = ctx
        .usage
        .execute(&caller.0.organization.id, from, until)
        .await
        .map_err(ApiError::from)?;
    Ok(HttpResponse::Ok().json(UsageResource::from(&report)))
}

/// `from` and `until` as dates; empty values count as absent. An unknown parameter never gets here
/// (`Caller` refuses every parameter the operation does not declare).
pub(crate) fn parse_range(
    pairs: &[(String, String)],
) -> Result<(Option<NaiveDate>, Option<NaiveDate>), ValidationErrors> {
    let mut errors = ValidationErrors::new();
    let mut date = |name: &str| {
        let value = pairs
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())?;
        if value.is_empty() {
            return None;
        }
        NaiveDate::parse_from_str(value, "%Y-%m-%d")
            .map_err(|_| errors.push(FieldError::new(name, "must be a date such as 2026-11-27")))
            .ok()
    };
    let from = date("from");
    let until = date("until");
    errors.finish((from, until))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn dates_are_read_and_bad_ones_named() {
        let (from, until) = parse_range(&pairs(&[("from", "2026-11-01"), ("until", "")])).unwrap();
        assert_eq!(from, NaiveDate::from_ymd_opt(2026, 11, 1));
        assert_eq!(until, None);
        let errors = parse_range(&pairs(&[("from", "2026-13-01"), ("until", "yesterday")])).unwrap_err();
        assert_eq!(errors.errors().len(), 2);
    }
}

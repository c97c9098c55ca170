//! The Block Users API (docs/cloud-api.md §2.4): `POST /{phone-number-id}/block_users` adds users to the
//! number's block list, `DELETE` with the same body removes them. At most 1,000 users per request; the
//! answer lists per user what was done (`added_users`/`removed_users`) and what was not (`failed_users`,
//! with HTTP 400 and error 139100 when some failed).

use super::CloudApiClient;
use super::failures::{error_response, idempotent};
use herald_domain::contact::Recipient;
use herald_domain::organization::SenderNumber;
use herald_domain::ports::{BlockFailure, NetworkError};
use serde::Deserialize;
use serde_json::json;

/// The most users one request may name (the network's limit).
pub(crate) const BLOCK_BATCH: usize = 1_000;

#[derive(Debug, Default, Deserialize)]
struct BlockAnswer {
    #[serde(default)]
    block_users: Option<BlockLists>,
}

#[derive(Debug, Default, Deserialize)]
struct BlockLists {
    #[serde(default)]
    failed_users: Vec<FailedUser>,
}

#[derive(Debug, Deserialize)]
struct FailedUser {
    #[serde(default)]
    input: Option<String>,
    #[serde(default)]
    wa_id: Option<String>,
    #[serde(default)]
    errors: Vec<FailedUserError>,
}

#[derive(Debug, Deserialize)]
struct FailedUserError {
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    code: Option<i64>,
    #[serde(default)]
    error_data: Option<ErrorData>,
}

#[derive(Debug, Deserialize)]
struct ErrorData {
    #[serde(default)]
    details: Option<String>,
}

impl CloudApiClient {
    pub(super) async fn block_users_batches(
        &self,
        sender: &SenderNumber,
        users: &[Recipient],
        block: bool,
    ) -> Result<Vec<BlockFailure>, NetworkError> {
        let token = self.token(sender)?;
        let url = format!("{}/{}/block_users", self.versioned_base, sender.phone_number_id);
        let mut failures = Vec::new();
        for batch in users.chunks(BLOCK_BATCH) {
            let body = json!({
                "messaging_product": "whatsapp",
                "block_users": batch
                    .iter()
                    .map(|user| json!({ "user": user.network_form() }))
                    .collect::<Vec<_>>(),
            });
            let request = if block {
                self.http.post(&url)
            } else {
                self.http.delete(&url)
            };
            // Blocking or unblocking twice leaves the same list, so a lost answer is worth another try.
            let (status, headers, bytes) =
                self.call(request.json(&body), &token).await.map_err(idempotent)?;
            let answer = serde_json::from_slice::<BlockAnswer>(&bytes).unwrap_or_default();
            let failed = answer
                .block_users
                .map(|lists| lists.failed_users)
                .unwrap_or_default();
            if failed.is_empty() {
                if !status.is_success() {
                    return Err(idempotent(error_response(status, &headers, &bytes)));
                }
                continue;
            }
            failures.extend(failed.into_iter().map(|user| {
                let reason = user
                    .errors
                    .first()
                    .map(|error| {
                        let text = error
                            .error_data
                            .as_ref()
                            .and_then(|data| data.details.clone())
                            .or_else(|| error.message.clone())
                            .unwrap_or_else(|| "no reason given".to_owned());
                        match error.code {
                            Some(code) => format!("{text} (error {code})"),
                            None => text,
                        }
                    })
                    .unwrap_or_else(|| "the network did not say why".to_owned());
                BlockFailure {
                    user: user.input.or(user.wa_id).unwrap_or_default(),
                    reason,
                }
            }));
        }
        Ok(failures)
    }
}

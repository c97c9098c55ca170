//! `GET /{waba-id}/subscribed_apps` (docs/cloud-api.md §4.7): the apps a business account delivers its
//! webhooks to. Meta's answer is `{ "data": [ { "whatsapp_business_api_data": { "id", "link", "name" } } ] }`
//! (with `override_callback_uri` where an app set one); it names no fields.

use super::CloudApiClient;
use super::failures::error_response;
use herald_domain::organization::SenderNumber;
use herald_domain::ports::{AppSubscription, NetworkError};
use serde::Deserialize;

/// Apps read from one answer at most: a business account has a handful, and the answer is not paged
/// through.
const MAX_APPS: usize = 100;

#[derive(Debug, Deserialize)]
struct SubscribedApps {
    #[serde(default)]
    data: Vec<SubscribedApp>,
}

#[derive(Debug, Deserialize)]
struct SubscribedApp {
    #[serde(default)]
    whatsapp_business_api_data: Option<AppData>,
}

#[derive(Debug, Deserialize)]
struct AppData {
    #[serde(default)]
    id: Option<String>,
}

impl CloudApiClient {
    pub(super) async fn read_app_subscription(
        &self,
        sender: &SenderNumber,
    ) -> Result<AppSubscription, NetworkError> {
        let token = self.token(sender)?;
        let url = format!("{}/{}/subscribed_apps", self.versioned_base, sender.waba_id);
        let (status, headers, bytes) = self.call(self.http.get(&url), &token).await?;
        if !status.is_success() {
            return Err(error_response(status, &headers, &bytes));
        }
        let answer: SubscribedApps = serde_json::from_slice(&bytes).map_err(|e| NetworkError::Retryable {
            code: None,
            detail: format!("the subscribed apps could not be read: {e}"),
            retry_after: None,
        })?;
        Ok(subscription_of(&answer, self.app_id.as_deref()))
    }
}

/// Subscribed when the answer names Herald's app, or, with no app id configured, any app.
fn subscription_of(answer: &SubscribedApps, own_app_id: Option<&str>) -> AppSubscription {
    let mut apps = answer
        .data
        .iter()
        .take(MAX_APPS)
        .filter_map(|app| app.whatsapp_business_api_data.as_ref()?.id.as_deref());
    let subscribed = match own_app_id {
        Some(own) => apps.any(|id| id == own),
        None => apps.next().is_some(),
    };
    if subscribed {
        AppSubscription::Subscribed
    } else {
        AppSubscription::NotSubscribed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(json: &str) -> SubscribedApps {
        serde_json::from_str(json).unwrap()
    }

    /// Meta's documented answer, two apps subscribed.
    const TWO_APPS: &str = r#"{ "data" : [
        { "whatsapp_business_api_data" : { "id" : "67084", "link" : "https://www.facebook.com/games/?app_id=67084", "name" : "Jaspers Market" } },
        { "whatsapp_business_api_data" : { "id" : "52565", "link" : "https://www.facebook.com/games/?app_id=52565", "name" : "Jaspers Fresh Finds" } }
    ] }"#;

    #[test]
    fn the_configured_app_must_be_among_the_subscribed_ones() {
        assert_eq!(
            subscription_of(&answer(TWO_APPS), Some("52565")),
            AppSubscription::Subscribed
        );
        assert_eq!(
            subscription_of(&answer(TWO_APPS), Some("99999")),
            AppSubscription::NotSubscribed
        );
    }

    #[test]
    fn without_an_app_id_any_subscribed_app_counts_and_none_is_not_subscribed() {
        assert_eq!(
            subscription_of(&answer(TWO_APPS), None),
            AppSubscription::Subscribed
        );
        assert_eq!(
            subscription_of(&answer(r#"{ "data": [] }"#), None),
            AppSubscription::NotSubscribed
        );
        assert_eq!(
            subscription_of(&answer("{}"), None),
            AppSubscription::NotSubscribed
        );
    }
}

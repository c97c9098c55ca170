//! Which path a send takes (docs/cloud-api.md §1.6): the Cloud API's `/messages`, or the Marketing
//! Messages API's `/marketing_messages` for a marketing template routed there.

use super::CloudApiClient;
use super::failures::{error_response, unreadable_success};
use herald_domain::marketing::{MarketingRoute, NetworkRoute};
use herald_domain::message::Message;
use herald_domain::organization::SenderNumber;
use herald_domain::ports::{NetworkError, NetworkReceipt};
use secrecy::SecretString;
use serde::Deserialize;
use serde_json::Value;

/// Meta's code for a send the Marketing Messages API will not take: the business has not accepted its
/// terms, or the template is not a marketing one (docs/cloud-api.md §1.6).
pub(crate) const MARKETING_REFUSED: i64 = 131055;

#[derive(Debug, Deserialize)]
struct SendResponse {
    #[serde(default)]
    messages: Vec<SentMessage>,
}

#[derive(Debug, Deserialize)]
struct SentMessage {
    id: String,
}

impl CloudApiClient {
    /// Sends `body` on the path `message` asks for. `auto` tries the Marketing Messages API and, when it
    /// refuses the send ([`MARKETING_REFUSED`]: a business that has not accepted its terms), sends the same
    /// body on `/messages`: that refusal is answered before anything is sent, so nothing goes out twice.
    pub(crate) async fn send_routed(
        &self,
        sender: &SenderNumber,
        message: &Message,
        body: Value,
        token: &SecretString,
    ) -> Result<NetworkReceipt, NetworkError> {
        let Some(marketing) = message.marketing else {
            return self.post_send(sender, NetworkRoute::CloudApi, &body, token).await;
        };
        let mut marketing_body = body.clone();
        if let (Some(sharing), Some(object)) = (marketing.activity_sharing, marketing_body.as_object_mut()) {
            object.insert("message_activity_sharing".to_owned(), Value::Bool(sharing));
        }
        match marketing.route {
            MarketingRoute::CloudApi => self.post_send(sender, NetworkRoute::CloudApi, &body, token).await,
            MarketingRoute::MarketingMessages => {
                self.post_send(sender, NetworkRoute::MarketingMessages, &marketing_body, token)
                    .await
            }
            MarketingRoute::Auto => {
                match self
                    .post_send(sender, NetworkRoute::MarketingMessages, &marketing_body, token)
                    .await
                {
                    Err(NetworkError::Permanent(error)) if error.network_code == Some(MARKETING_REFUSED) => {
                        tracing::info!(
                            message_id = %message.id,
                            "the Marketing Messages API refused the send; sending it on the Cloud API"
                        );
                        self.post_send(sender, NetworkRoute::CloudApi, &body, token).await
                    }
                    other => other,
                }
            }
        }
    }

    async fn post_send(
        &self,
        sender: &SenderNumber,
        route: NetworkRoute,
        body: &Value,
        token: &SecretString,
    ) -> Result<NetworkReceipt, NetworkError> {
        let path = match route {
            NetworkRoute::CloudApi => "messages",
            NetworkRoute::MarketingMessages => "marketing_messages",
        };
        let url = format!("{}/{}/{path}", self.versioned_base, sender.phone_number_id);
        let (status, headers, bytes) = self.call(self.http.post(&url).json(body), token).await?;
        if !status.is_success() {
            return Err(error_response(status, &headers, &bytes));
        }
        match serde_json::from_slice::<SendResponse>(&bytes) {
            Ok(SendResponse { messages }) => match messages.into_iter().next() {
                Some(SentMessage { id }) if !id.is_empty() => Ok(NetworkReceipt {
                    network_message_id: id,
                    route,
                }),
                _ => Err(unreadable_success("it names no message id")),
            },
            Err(error) => Err(unreadable_success(&error.to_string())),
        }
    }
}

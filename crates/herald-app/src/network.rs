//! Adapters that join the network pieces to the domain: the per-sender pacer, the callback decoder and the
//! callback authenticator.

use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use herald_domain::ids::SenderId;
use herald_domain::network::ParsedCallback;
use herald_domain::organization::SenderNumber;
use herald_domain::ports::{CallbackDecoder, Pacer};
use herald_http::network::CallbackAuthenticator;
use secrecy::{ExposeSecret, SecretString};
use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One GCRA bucket per sender number at its throughput, plus pauses the network asked for.
#[derive(Default)]
pub struct SenderPacer {
    buckets: Mutex<HashMap<SenderId, (u32, Arc<DefaultDirectRateLimiter>)>>,
    paused_until: Mutex<HashMap<SenderId, Instant>>,
}

impl SenderPacer {
    fn bucket(&self, sender: &SenderNumber) -> Option<Arc<DefaultDirectRateLimiter>> {
        let rate = NonZeroU32::new(sender.throughput_per_second.clamp(1, 1_000))?;
        let mut buckets = self.buckets.lock().ok()?;
        let entry = buckets
            .entry(sender.id)
            .or_insert_with(|| (0, Arc::new(RateLimiter::direct(Quota::per_second(rate)))));
        // A changed throughput (the operator raised it) gets a fresh bucket.
        if entry.0 != rate.get() {
            *entry = (rate.get(), Arc::new(RateLimiter::direct(Quota::per_second(rate))));
        }
        Some(entry.1.clone())
    }
}

#[async_trait::async_trait]
impl Pacer for SenderPacer {
    async fn wait_turn(&self, sender: &SenderNumber) {
        let pause = self
            .paused_until
            .lock()
            .ok()
            .and_then(|p| p.get(&sender.id).copied());
        if let Some(until) = pause {
            let now = Instant::now();
            if until > now {
                tokio::time::sleep(until - now).await;
            }
        }
        if let Some(bucket) = self.bucket(sender) {
            bucket.until_ready().await;
        }
    }

    fn slow_down(&self, sender: &SenderNumber, pause: herald_domain::time::Duration) {
        let pause = pause
            .to_std()
            .unwrap_or(Duration::from_secs(1))
            .min(Duration::from_secs(60));
        if let Ok(mut paused) = self.paused_until.lock() {
            let until = Instant::now() + pause;
            let entry = paused.entry(sender.id).or_insert(until);
            *entry = (*entry).max(until);
        }
    }
}

/// The Cloud API's callback parser behind the domain's port.
pub struct CloudApiDecoder;

impl CallbackDecoder for CloudApiDecoder {
    fn decode(&self, body: &[u8]) -> Result<ParsedCallback, String> {
        herald_cloudapi::parse_callback(body).map_err(|e| e.to_string())
    }
}

/// Checks `X-Hub-Signature-256` with the app secret and the handshake's verify token, in constant time.
pub struct AppSecretAuthenticator {
    pub app_secret: SecretString,
    pub verify_token: Option<SecretString>,
}

impl CallbackAuthenticator for AppSecretAuthenticator {
    fn signature_valid(&self, signature: Option<&str>, raw_body: &[u8]) -> bool {
        herald_cloudapi::verify_signature(self.app_secret.expose_secret().as_bytes(), signature, raw_body)
            .is_ok()
    }

    fn verify_token_valid(&self, token: &str) -> bool {
        use subtle::ConstantTimeEq;
        self.verify_token
            .as_ref()
            .is_some_and(|expected| bool::from(expected.expose_secret().as_bytes().ct_eq(token.as_bytes())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verify_token_compares_exactly() {
        let auth = AppSecretAuthenticator {
            app_secret: SecretString::from("s"),
            verify_token: Some(SecretString::from("token-1")),
        };
        assert!(auth.verify_token_valid("token-1"));
        assert!(!auth.verify_token_valid("token-2"));
        assert!(!auth.verify_token_valid(""));
        let none = AppSecretAuthenticator {
            app_secret: SecretString::from("s"),
            verify_token: None,
        };
        assert!(!none.verify_token_valid("anything"));
    }
}

//! The network-facing endpoints (docs/api.md §10): `GET /webhooks/whatsapp` answers the verification handshake,
//! `POST /webhooks/whatsapp` takes the network's signed callbacks.

use actix_web::{HttpRequest, HttpResponse, web};
use herald_domain::usecases::{CallbackReport, ProcessCallbacks, Received};
use serde::Deserialize;
use std::sync::Arc;

/// The largest callback body taken; the network sends at most 3 MB.
pub const CALLBACK_LIMIT_BYTES: usize = 4 * 1024 * 1024;

pub use herald_domain::ports::CallbackAuthenticator;

/// What the network endpoints need.
pub struct NetworkWebhook {
    pub callbacks: Arc<ProcessCallbacks>,
    pub authenticator: Arc<dyn CallbackAuthenticator>,
    /// Bounds how many stored callbacks are processed at once, so a burst of callbacks (the network sends
    /// about three per message) never takes every store connection from the API's own requests. The
    /// excess waits its turn; it is stored already, so nothing is lost if the process stops meanwhile.
    pub processing: Arc<tokio::sync::Semaphore>,
    /// Bounds how many callbacks are stored and applied as they arrive, before their `200`; the excess is
    /// stored alone and processed after the answer, under `processing`. Kept apart from `processing`: when
    /// they shared one bound, a burst's excess (each two transactions, store then apply) held the permits
    /// while it was processed, so every later callback took that dearer path too and the burst never
    /// drained back (15,992 of 16,000 callbacks of a P3 run took it).
    pub inline: Arc<tokio::sync::Semaphore>,
}

impl NetworkWebhook {
    /// Processing at most `concurrency` callbacks at once, after their answer, and as many as they arrive.
    pub fn new(
        callbacks: Arc<ProcessCallbacks>,
        authenticator: Arc<dyn CallbackAuthenticator>,
        concurrency: usize,
    ) -> Self {
        Self {
            callbacks,
            authenticator,
            processing: Arc::new(tokio::sync::Semaphore::new(concurrency.max(1))),
            inline: Arc::new(tokio::sync::Semaphore::new(concurrency.max(1))),
        }
    }

    /// Applies up to `bound` callbacks at once as they arrive. A store that group-commits callbacks holds one
    /// connection per batch in flight whatever the number waiting, so the bound can be far above the pool.
    #[must_use]
    pub fn applying_inline(mut self, bound: usize) -> Self {
        self.inline = Arc::new(tokio::sync::Semaphore::new(bound.max(1)));
        self
    }
}

/// Mounts `/webhooks/whatsapp`.
pub fn configure(config: &mut web::ServiceConfig, webhook: web::Data<NetworkWebhook>) {
    config.service(
        web::resource("/webhooks/whatsapp")
            .app_data(webhook)
            .app_data(web::PayloadConfig::new(CALLBACK_LIMIT_BYTES))
            .route(web::get().to(verify))
            .route(web::post().to(receive))
            .default_service(web::to(crate::routes::fallback::method_not_allowed)),
    );
}

#[derive(Debug, Deserialize)]
struct Handshake {
    #[serde(rename = "hub.mode")]
    mode: Option<String>,
    #[serde(rename = "hub.verify_token")]
    verify_token: Option<String>,
    #[serde(rename = "hub.challenge")]
    challenge: Option<String>,
}

async fn verify(webhook: web::Data<NetworkWebhook>, query: web::Query<Handshake>) -> HttpResponse {
    let handshake = query.into_inner();
    let token_ok = handshake
        .verify_token
        .as_deref()
        .is_some_and(|t| webhook.authenticator.verify_token_valid(t));
    match (handshake.mode.as_deref(), handshake.challenge) {
        (Some("subscribe"), Some(challenge)) if token_ok => {
            HttpResponse::Ok().content_type("text/plain").body(challenge)
        }
        _ => HttpResponse::Forbidden().finish(),
    }
}

/// Verifies the signature on the raw bytes before anything is parsed, stores the body durably, and answers
/// 200. The usual callback (one status report) is applied by the transaction that stores it; any other is
/// processed after the answer. A crash after the 200 loses nothing: the worker's backlog sweep processes
/// stored callbacks that were never marked processed.
async fn receive(webhook: web::Data<NetworkWebhook>, req: HttpRequest, body: web::Bytes) -> HttpResponse {
    let signature = req
        .headers()
        .get("x-hub-signature-256")
        .and_then(|v| v.to_str().ok());
    if !webhook.authenticator.signature_valid(signature, &body) {
        metrics::counter!("herald_callbacks_received_total", "outcome" => "bad_signature").increment(1);
        tracing::warn!("network callback refused: bad or missing signature");
        return HttpResponse::Unauthorized().finish();
    }
    // Applied as it arrives only within the inline bound: in a burst, the excess is stored alone and waits
    // its turn below, so callbacks never take every store connection from the API's own requests.
    let inline = Arc::clone(&webhook.inline).try_acquire_owned().ok();
    let received = match inline {
        Some(_) => webhook.callbacks.receive_and_apply(body.to_vec()).await,
        None => webhook
            .callbacks
            .receive(body.to_vec())
            .await
            .map(Received::Stored),
    };
    drop(inline);
    let stored = match received {
        Ok(Received::Processed(report)) => {
            metrics::counter!("herald_callbacks_received_total", "outcome" => "stored").increment(1);
            record_processed(&report);
            metrics::counter!("herald_callbacks_processed_total", "outcome" => "applied").increment(1);
            return HttpResponse::Ok().finish();
        }
        Ok(Received::Stored(stored)) => stored,
        Err(error) => {
            metrics::counter!("herald_callbacks_received_total", "outcome" => "not_stored").increment(1);
            // Not acknowledged: the network retries it.
            tracing::error!(%error, "could not store a network callback");
            return HttpResponse::ServiceUnavailable()
                .insert_header(("Retry-After", "5"))
                .finish();
        }
    };
    metrics::counter!("herald_callbacks_received_total", "outcome" => "stored").increment(1);
    let callbacks = webhook.callbacks.clone();
    let processing = webhook.processing.clone();
    actix_web::rt::spawn(async move {
        let Ok(_permit) = processing.acquire_owned().await else {
            return;
        };
        let outcome = match callbacks.process(&stored).await {
            Ok(report) => {
                record_processed(&report);
                "applied"
            }
            Err(error) => {
                tracing::warn!(%error, callback = %stored.id, "callback processing failed; the backlog sweep retries it");
                "left_to_the_backlog"
            }
        };
        metrics::counter!("herald_callbacks_processed_total", "outcome" => outcome).increment(1);
    });
    HttpResponse::Ok().finish()
}

fn record_processed(report: &CallbackReport) {
    for wait in &report.submitted_to_delivered {
        metrics::histogram!("herald_submitted_to_delivered_seconds")
            .record(wait.to_std().unwrap_or_default().as_secs_f64());
    }
}

//! The HTTP side of one delivery attempt.

use std::collections::HashMap;
use std::error::Error as StdError;
use std::fmt;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::header::{CONTENT_TYPE, HeaderValue, RETRY_AFTER, USER_AGENT};

use crate::destination::{CheckedUrl, DestinationPolicy};
use crate::retry_after::parse_retry_after;
use crate::signing::{WebhookSecret, sign};

/// The most response-body bytes an attempt keeps (docs/api.md §9: "first 1 KiB").
pub const BODY_PREFIX_LIMIT: usize = 1024;

/// How long an idle connection to a receiver is kept for the next attempt. Under Node.js's 5 s
/// `keepAliveTimeout`, the commonest receiver default: a connection the receiver is closing at the moment
/// it is reused loses that attempt without an answer, so Herald lets go first.
pub const IDLE_CONNECTION_TIMEOUT: Duration = Duration::from_secs(4);

const USER_AGENT_VALUE: &str = concat!("Herald-Webhooks/", env!("CARGO_PKG_VERSION"));

/// Why an attempt did not succeed, stored with the attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AttemptErrorKind {
    /// No complete answer within the total timeout (or no connection within the connect timeout).
    Timeout,
    /// The connection could not be made or broke (refused, reset, the host did not resolve).
    Connect,
    /// The destination broke an SSRF rule at delivery time.
    BlockedDestination,
    /// A 3xx answer; redirects are never followed.
    Redirect,
    /// Any other non-2xx answer.
    HttpStatus,
    /// The TLS handshake failed (bad certificate, not TLS at all, …).
    Tls,
    /// No signing secret could be used (none could be opened, e.g. after the encryption key changed): the
    /// request is not sent unsigned. Rotating the endpoint's secret mends it.
    NoSigningSecret,
}

impl AttemptErrorKind {
    /// The stored and displayed name, e.g. `blocked_destination`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Timeout => "timeout",
            Self::Connect => "connect",
            Self::BlockedDestination => "blocked_destination",
            Self::Redirect => "redirect",
            Self::HttpStatus => "http_status",
            Self::Tls => "tls",
            Self::NoSigningSecret => "no_signing_secret",
        }
    }
}

impl fmt::Display for AttemptErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What one attempt produced, ready to be recorded and fed to [`crate::next_attempt`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttemptOutcome {
    /// The response status, if an answer arrived.
    pub status: Option<u16>,
    /// At most the first [`BODY_PREFIX_LIMIT`] bytes of the response body, as lossy UTF-8.
    pub body_prefix: String,
    /// Why the attempt failed; `None` on success.
    pub error_kind: Option<AttemptErrorKind>,
    /// A human-readable detail for the failure (never contains the secret).
    pub error_detail: Option<String>,
    /// The answer's `Retry-After`, as a wait from when the answer arrived.
    pub retry_after: Option<Duration>,
    /// A 2xx answer arrived in time.
    pub succeeded: bool,
    /// From sending the request to the end of the attempt.
    pub duration: Duration,
}

impl AttemptOutcome {
    fn failure(kind: AttemptErrorKind, detail: String, duration: Duration) -> Self {
        Self {
            status: None,
            body_prefix: String::new(),
            error_kind: Some(kind),
            error_detail: Some(detail),
            retry_after: None,
            succeeded: false,
            duration,
        }
    }
}

/// Time limits of a delivery attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeliveryTimeouts {
    /// The whole attempt: connect, send, answer and the body prefix (docs/api.md §9: 15 s).
    pub total: Duration,
    /// Establishing the connection, TLS included.
    pub connect: Duration,
}

impl Default for DeliveryTimeouts {
    fn default() -> Self {
        Self {
            total: Duration::from_secs(15),
            connect: Duration::from_secs(5),
        }
    }
}

/// The delivery client could not be built (the TLS backend failed to initialise).
#[derive(Debug, thiserror::Error)]
#[error("cannot build the webhook HTTP client: {0}")]
pub struct DelivererBuildError(String);

/// Sends webhook attempts over one shared keep-alive client.
///
/// The client resolves host names only to the addresses a [`CheckedUrl`] was checked against, never
/// through DNS again, so a rebinding answer cannot slip a forbidden address in after the check.
#[derive(Clone)]
pub struct Deliverer {
    client: reqwest::Client,
    policy: DestinationPolicy,
    pins: Arc<PinnedResolver>,
}

impl fmt::Debug for Deliverer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Deliverer")
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

impl Deliverer {
    /// A deliverer enforcing `policy`, with the given time limits.
    ///
    /// # Errors
    /// [`DelivererBuildError`] if the HTTP client cannot be built.
    pub fn new(policy: DestinationPolicy, timeouts: DeliveryTimeouts) -> Result<Self, DelivererBuildError> {
        let pins = Arc::new(PinnedResolver::default());
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(timeouts.total)
            .connect_timeout(timeouts.connect)
            .pool_idle_timeout(IDLE_CONNECTION_TIMEOUT)
            // A proxy would do its own DNS and defeat the pinning; customer URLs go direct.
            .no_proxy()
            .dns_resolver(Arc::clone(&pins))
            .build()
            .map_err(|e| DelivererBuildError(e.to_string()))?;
        Ok(Self { client, policy, pins })
    }

    /// The policy this deliverer checks URLs with.
    #[must_use]
    pub const fn policy(&self) -> &DestinationPolicy {
        &self.policy
    }

    /// Checks `url` against the policy, then delivers to it; a refused URL becomes a failed attempt
    /// (`blocked_destination`, or `connect` when the host does not resolve) without any request.
    pub async fn check_and_deliver(
        &self,
        url: &str,
        msg_id: &str,
        timestamp: i64,
        body: &[u8],
        secrets: &[&WebhookSecret],
    ) -> AttemptOutcome {
        let started = Instant::now();
        match self.policy.check_url(url).await {
            Ok(target) => self.deliver(&target, msg_id, timestamp, body, secrets).await,
            Err(refused) => {
                let kind = if refused.is_blocked() {
                    AttemptErrorKind::BlockedDestination
                } else {
                    AttemptErrorKind::Connect
                };
                AttemptOutcome::failure(kind, refused.to_string(), started.elapsed())
            }
        }
    }

    /// Sends one signed `POST` to `target` and reports what happened. Never fails: every problem is an
    /// [`AttemptOutcome`] with an error kind.
    #[tracing::instrument(skip_all, fields(webhook_id = msg_id, host = target.url().host_str()))]
    pub async fn deliver(
        &self,
        target: &CheckedUrl,
        msg_id: &str,
        timestamp: i64,
        body: &[u8],
        secrets: &[&WebhookSecret],
    ) -> AttemptOutcome {
        let started = Instant::now();
        if secrets.is_empty() {
            // An empty `webhook-signature` would pass no receiver's check, or worse, one that skips it.
            return AttemptOutcome::failure(
                AttemptErrorKind::NoSigningSecret,
                "no signing secret of the endpoint could be opened; rotate its secret".to_owned(),
                started.elapsed(),
            );
        }
        let _pin = self.pins.pin(target);
        let request = self
            .client
            .post(target.url().clone())
            .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
            .header(USER_AGENT, HeaderValue::from_static(USER_AGENT_VALUE))
            .header("webhook-id", msg_id)
            .header("webhook-timestamp", timestamp.to_string())
            .header("webhook-signature", sign(secrets, msg_id, timestamp, body))
            .body(body.to_vec());
        let mut response = match request.send().await {
            Ok(response) => response,
            Err(err) => {
                // The URL may carry a customer's query-string token; keep it out of stored details.
                let err = err.without_url();
                let kind = classify(&err);
                tracing::debug!(kind = kind.as_str(), error = %err, "webhook attempt failed");
                return AttemptOutcome::failure(kind, error_chain(&err), started.elapsed());
            }
        };
        let status = response.status();
        let retry_after = response
            .headers()
            .get(RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| parse_retry_after(v, SystemTime::now()));
        let (body_prefix, body_error) = read_prefix(&mut response).await;
        // Dropping the response here abandons whatever the receiver still sends: nothing past the
        // prefix is ever read.
        drop(response);
        let (succeeded, error_kind, error_detail) = if status.is_success() {
            // The 2xx arrived in time; a body that stalls or breaks afterwards does not undo that.
            (true, None, None)
        } else if status.is_redirection() {
            (
                false,
                Some(AttemptErrorKind::Redirect),
                Some(format!("redirect answer {status} not followed")),
            )
        } else {
            (
                false,
                Some(AttemptErrorKind::HttpStatus),
                Some(format!("answer {status}")),
            )
        };
        if let Some(err) = body_error {
            tracing::debug!(error = %err, "webhook response body ended early");
        }
        AttemptOutcome {
            status: Some(status.as_u16()),
            body_prefix,
            error_kind,
            error_detail,
            retry_after,
            succeeded,
            duration: started.elapsed(),
        }
    }
}

/// Reads chunks until [`BODY_PREFIX_LIMIT`] bytes are kept or the body ends; a read error ends it early.
async fn read_prefix(response: &mut reqwest::Response) -> (String, Option<reqwest::Error>) {
    let mut kept: Vec<u8> = Vec::with_capacity(BODY_PREFIX_LIMIT);
    let mut error = None;
    while kept.len() < BODY_PREFIX_LIMIT {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                let room = BODY_PREFIX_LIMIT.saturating_sub(kept.len());
                kept.extend(chunk.iter().take(room));
            }
            Ok(None) => break,
            Err(err) => {
                error = Some(err);
                break;
            }
        }
    }
    (lossy_prefix(&kept), error)
}

/// Lossy UTF-8 that still fits the limit: replacement characters are longer than the bytes they replace.
fn lossy_prefix(bytes: &[u8]) -> String {
    let mut text = String::from_utf8_lossy(bytes).into_owned();
    while text.len() > BODY_PREFIX_LIMIT {
        text.pop();
    }
    text
}

fn classify(err: &reqwest::Error) -> AttemptErrorKind {
    if is_tls(err) {
        AttemptErrorKind::Tls
    } else if err.is_timeout() {
        AttemptErrorKind::Timeout
    } else if err.is_redirect() {
        AttemptErrorKind::Redirect
    } else {
        AttemptErrorKind::Connect
    }
}

/// Whether a rustls error sits anywhere in the chain. `io::Error::source` skips the error it wraps, so
/// wrapped errors are looked at through `get_ref` as well.
fn is_tls(err: &(dyn StdError + 'static)) -> bool {
    let mut current: Option<&(dyn StdError + 'static)> = Some(err);
    while let Some(e) = current {
        if e.is::<rustls::Error>() {
            return true;
        }
        if let Some(inner) = e.downcast_ref::<std::io::Error>().and_then(|io| io.get_ref())
            && is_tls(inner)
        {
            return true;
        }
        current = e.source();
    }
    false
}

fn error_chain(err: &reqwest::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(e) = source {
        text.push_str(": ");
        text.push_str(&e.to_string());
        source = e.source();
    }
    text
}

/// Answers the client's DNS questions from the addresses of the targets being delivered to right now.
///
/// Several deliveries to the same host may overlap; each holds a [`Pin`] and the entry lives until the
/// last one ends. Whichever checked set answers, it passed the same policy.
#[derive(Default)]
struct PinnedResolver {
    hosts: Mutex<HashMap<String, (Vec<SocketAddr>, usize)>>,
}

impl PinnedResolver {
    fn pin(self: &Arc<Self>, target: &CheckedUrl) -> Option<Pin> {
        if !target.is_domain() {
            return None;
        }
        let host = target.host()?.to_owned();
        let mut hosts = self.hosts.lock().unwrap_or_else(PoisonError::into_inner);
        let entry = hosts.entry(host.clone()).or_insert_with(|| (Vec::new(), 0));
        entry.0 = target.addrs().to_vec();
        entry.1 = entry.1.saturating_add(1);
        Some(Pin {
            resolver: Arc::clone(self),
            host,
        })
    }

    fn lookup(&self, host: &str) -> Option<Vec<SocketAddr>> {
        let hosts = self.hosts.lock().unwrap_or_else(PoisonError::into_inner);
        hosts.get(host).map(|(addrs, _)| addrs.clone())
    }
}

struct Pin {
    resolver: Arc<PinnedResolver>,
    host: String,
}

impl Drop for Pin {
    fn drop(&mut self) {
        let mut hosts = self.resolver.hosts.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(entry) = hosts.get_mut(&self.host) {
            entry.1 = entry.1.saturating_sub(1);
            if entry.1 == 0 {
                hosts.remove(&self.host);
            }
        }
    }
}

/// A host the client asked about that no delivery in flight has checked.
#[derive(Debug, thiserror::Error)]
#[error("host `{0}` was not checked against the destination policy")]
struct UncheckedHost(String);

impl Resolve for PinnedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let answer = self.lookup(name.as_str());
        let host = name.as_str().to_owned();
        Box::pin(async move {
            match answer {
                Some(addrs) if !addrs.is_empty() => Ok(Box::new(addrs.into_iter()) as Addrs),
                _ => Err(Box::new(UncheckedHost(host)) as Box<dyn StdError + Send + Sync>),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lossy_prefix_never_exceeds_the_limit() {
        let invalid = vec![0xffu8; BODY_PREFIX_LIMIT];
        let text = lossy_prefix(&invalid);
        assert!(text.len() <= BODY_PREFIX_LIMIT);
        assert!(text.starts_with('\u{fffd}'));
        // A multi-byte character cut at the limit.
        let mut cut = vec![b'a'; BODY_PREFIX_LIMIT - 1];
        cut.push(0xe2);
        let text = lossy_prefix(&cut);
        assert!(text.len() <= BODY_PREFIX_LIMIT);
        assert!(text.starts_with("aaa"));
        assert_eq!(lossy_prefix(b"plain"), "plain");
    }

    #[test]
    fn kinds_have_stable_names() {
        assert_eq!(
            AttemptErrorKind::BlockedDestination.as_str(),
            "blocked_destination"
        );
        assert_eq!(AttemptErrorKind::HttpStatus.to_string(), "http_status");
        assert_eq!(AttemptErrorKind::Timeout.as_str(), "timeout");
        assert_eq!(AttemptErrorKind::Connect.as_str(), "connect");
        assert_eq!(AttemptErrorKind::Redirect.as_str(), "redirect");
        assert_eq!(AttemptErrorKind::Tls.as_str(), "tls");
    }

    #[tokio::test]
    async fn resolver_answers_only_for_pinned_hosts() {
        let resolver = Arc::new(PinnedResolver::default());
        let unknown: Name = "example.com".parse().unwrap();
        assert!(resolver.resolve(unknown).await.is_err());

        let policy = DestinationPolicy {
            allow_insecure: true,
            allow_private: true,
        };
        let target = policy.check_url("http://localhost:9/").await.unwrap();
        let first = resolver.pin(&target).unwrap();
        let second = resolver.pin(&target).unwrap();
        let name: Name = "localhost".parse().unwrap();
        let got: Vec<SocketAddr> = resolver.resolve(name).await.unwrap().collect();
        assert_eq!(got, target.addrs());
        drop(first);
        assert!(
            resolver.lookup("localhost").is_some(),
            "still pinned by the second delivery"
        );
        drop(second);
        assert!(resolver.lookup("localhost").is_none());

        let literal = policy.check_url("http://127.0.0.1:9/").await.unwrap();
        assert!(
            resolver.pin(&literal).is_none(),
            "IP literals never reach the resolver"
        );
    }
}

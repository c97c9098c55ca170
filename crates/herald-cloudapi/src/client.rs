//! The outbound client: sends messages, uploads and downloads media, and lists templates over HTTP,
//! translating every failure into the [`NetworkError`] dispatch reacts to.

use crate::templates::{FIELDS, TemplatePage, parse_template};
use crate::wire::{read_body, send_body};
use anyhow::Context;
use async_trait::async_trait;
use futures::TryStreamExt as _;
use herald_domain::message::{Message, MessageError};
use herald_domain::organization::SenderNumber;
use herald_domain::ports::{
    AppSubscription, MediaDownload, MediaUpload, MessagingNetwork, NetworkError, NetworkMediaIds,
    NetworkReceipt, NetworkTemplate,
};
use herald_domain::ports::{SealContext, SecretSealer};
use reqwest::header::HeaderMap;
use reqwest::{RequestBuilder, StatusCode};
use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use std::sync::Arc;

/// Where the Cloud API is and how long to wait for it.
#[derive(Debug, Clone)]
pub struct CloudApiConfig {
    /// `https://graph.facebook.com`, or the simulator's base (`http://127.0.0.1:PORT/simulator`). No version.
    pub base_url: String,
    /// The Graph API version in every path, e.g. `v23.0`.
    pub graph_version: String,
    /// The token used when a sender has neither a stored token nor an environment variable of its own.
    pub default_access_token: Option<SecretString>,
    /// The whole request, answer included.
    pub request_timeout: std::time::Duration,
    /// Establishing the connection; nothing has been sent when it runs out, so it is safe to retry.
    pub connect_timeout: std::time::Duration,
    /// A whole media upload or download, body included (files of up to 100 MB go through it).
    pub media_timeout: std::time::Duration,
    /// Hosts, besides the base URL's own origin, whose media download URLs the client follows (with the
    /// sender's token): `host` for the default port, or `host:port`. Meta answers with
    /// `lookaside.fbsbx.com` URLs; the simulator's lie under its own base, so they need no entry.
    pub media_download_hosts: Vec<String>,
    /// The Meta app's id: template samples are uploaded through the app's resumable upload session
    /// (`POST /{app-id}/uploads`). Without it a template can only name its samples by upload handle.
    pub app_id: Option<String>,
}

impl CloudApiConfig {
    /// A configuration with the default timeouts (15 s per request, 5 s to connect, 10 min per media
    /// transfer), no default token, and Meta's media host `lookaside.fbsbx.com` allowed for downloads.
    pub fn new(base_url: impl Into<String>, graph_version: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            graph_version: graph_version.into(),
            default_access_token: None,
            request_timeout: std::time::Duration::from_secs(15),
            connect_timeout: std::time::Duration::from_secs(5),
            media_timeout: std::time::Duration::from_secs(600),
            media_download_hosts: vec![META_MEDIA_HOST.to_owned()],
            app_id: None,
        }
    }
}

/// Where Meta's media download URLs point (docs/cloud-api.md §2.2).
pub const META_MEDIA_HOST: &str = "lookaside.fbsbx.com";

/// Which URLs the client may fetch with a sender's token besides the API itself: the download URL a media
/// lookup answers comes from the network, and following any URL blindly would let whoever controls that
/// answer (or a redirect) point Herald, token and all, at internal services.
///
/// The rule: the URL has the same origin (scheme, host, port) as the configured base URL, or its host (and
/// port, when the entry names one; the scheme's default port otherwise) is listed in
/// [`CloudApiConfig::media_download_hosts`] and it uses `https` (plain `http` only when the base itself is
/// `http`, i.e. a local simulator). URLs with credentials in them are never followed. Every redirect hop must
/// pass the same rule.
#[derive(Debug, Clone)]
struct MediaHosts {
    base: reqwest::Url,
    allowed: Vec<(String, Option<u16>)>,
}

impl MediaHosts {
    fn new(base: reqwest::Url, hosts: &[String]) -> anyhow::Result<Self> {
        let allowed = hosts
            .iter()
            .map(|entry| {
                let entry = entry.trim().to_ascii_lowercase();
                let parsed = reqwest::Url::parse(&format!("https://{entry}"))
                    .ok()
                    .filter(|url| url.path() == "/" && url.username().is_empty())
                    .and_then(|url| Some((url.host_str()?.to_owned(), url.port())));
                parsed.ok_or_else(|| {
                    anyhow::anyhow!("`{entry}` is not a host or host:port for media downloads")
                })
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        Ok(Self { base, allowed })
    }

    fn allows(&self, url: &reqwest::Url) -> bool {
        if !url.username().is_empty() || url.password().is_some() {
            return false;
        }
        if url.origin() == self.base.origin() {
            return true;
        }
        let scheme_ok = url.scheme() == "https" || url.scheme() == self.base.scheme();
        let Some(host) = url.host_str() else {
            return false;
        };
        scheme_ok
            && self.allowed.iter().any(|(allowed, port)| {
                host.eq_ignore_ascii_case(allowed)
                    && match port {
                        Some(port) => url.port_or_known_default() == Some(*port),
                        None => url.port().is_none(),
                    }
            })
    }
}

/// Meta's WhatsApp Cloud API (or the simulator), over one shared connection pool.
#[derive(Clone)]
pub struct CloudApiClient {
    http: reqwest::Client,
    /// `{base_url}/{graph_version}` without a trailing slash.
    versioned_base: String,
    /// Scheme, host and port of the base: the bearer token is never sent anywhere else.
    origin: reqwest::Url,
    default_access_token: Option<SecretString>,
    /// Opens the senders' stored tokens; `None` when no encryption key is configured.
    sealer: Option<Arc<dyn SecretSealer>>,
    media_hosts: Arc<MediaHosts>,
    media_timeout: std::time::Duration,
    app_id: Option<String>,
}

impl std::fmt::Debug for CloudApiClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CloudApiClient")
            .field("versioned_base", &self.versioned_base)
            .field("default_access_token", &self.default_access_token)
            .field("sealer", &self.sealer.as_ref().map(|_| ".."))
            .finish_non_exhaustive()
    }
}

/// Pages followed at most when listing templates, so a server that keeps answering a cursor cannot loop forever.
const MAX_TEMPLATE_PAGES: usize = 1_000;
/// Redirects followed at most (each hop must also pass [`MediaHosts::allows`]).
const MAX_REDIRECTS: usize = 3;

impl CloudApiClient {
    /// Builds the client.
    ///
    /// # Errors
    /// When the base URL or version is unusable, or the HTTP client cannot be built.
    pub fn new(config: CloudApiConfig) -> anyhow::Result<Self> {
        let base = config.base_url.trim_end_matches('/');
        let version = config.graph_version.trim_matches('/');
        anyhow::ensure!(
            !version.is_empty() && !version.contains('/'),
            "the Graph API version must be a single path segment such as v23.0, got `{}`",
            config.graph_version
        );
        let versioned_base = format!("{base}/{version}");
        let origin = reqwest::Url::parse(&versioned_base)
            .with_context(|| format!("the Cloud API base URL `{}` is not a URL", config.base_url))?;
        let media_hosts = Arc::new(MediaHosts::new(origin.clone(), &config.media_download_hosts)?);
        let redirect_hosts = Arc::clone(&media_hosts);
        let http = reqwest::Client::builder()
            .timeout(config.request_timeout)
            .connect_timeout(config.connect_timeout)
            // The Graph API itself does not redirect; a download may, but only to where its URL could point.
            .redirect(reqwest::redirect::Policy::custom(move |attempt| {
                if attempt.previous().len() >= MAX_REDIRECTS {
                    attempt.error("too many redirects")
                } else if redirect_hosts.allows(attempt.url()) {
                    attempt.follow()
                } else {
                    attempt.stop()
                }
            }))
            .user_agent(concat!("herald/", env!("CARGO_PKG_VERSION")))
            .build()
            .context("building the Cloud API HTTP client")?;
        Ok(Self {
            http,
            versioned_base,
            origin,
            default_access_token: config.default_access_token,
            sealer: None,
            media_hosts,
            media_timeout: config.media_timeout,
            app_id: config.app_id,
        })
    }

    /// Lets the client open the senders' stored (sealed) access tokens. Without a sealer, a sender with a
    /// stored token cannot send.
    #[must_use]
    pub fn with_sealer(mut self, sealer: Option<Arc<dyn SecretSealer>>) -> Self {
        self.sealer = sealer;
        self
    }

    /// The sender's token: its stored one (opened now, kept no longer than the request), else the
    /// environment variable it names, else the default.
    fn token(&self, sender: &SenderNumber) -> Result<SecretString, NetworkError> {
        if let Some(sealed) = &sender.sealed_access_token {
            // A sender with its own token must never fall back to another source: that could send as another
            // account.
            let sealer = self.sealer.as_ref().ok_or_else(|| NetworkError::Credentials {
                code: None,
                detail: format!(
                    "sender {} has a stored access token but no encryption key is configured to open it",
                    sender.number
                ),
            })?;
            // Opened bound to this sender's own id: a token copied from another sender's row does not open,
            // so one organization can never send with another's token.
            return sealer
                .open(&SealContext::sender(&sender.id), sealed.as_bytes())
                .map(|opened| SecretString::from(opened.text))
                .map_err(|error| NetworkError::Credentials {
                    code: None,
                    detail: format!(
                        "the stored access token of sender {} cannot be opened ({error}); the encryption key \
                         may have changed since it was stored, or the token was stored for another sender",
                        sender.number
                    ),
                });
        }
        match &sender.access_token_env {
            Some(variable) => match std::env::var(variable) {
                Ok(token) if !token.trim().is_empty() => Ok(SecretString::from(token)),
                // A sender with its own variable must not silently fall back to another account's token.
                _ => Err(NetworkError::Credentials {
                    code: None,
                    detail: format!(
                        "the access token variable {variable} of sender {} is not set",
                        sender.number
                    ),
                }),
            },
            None => self
                .default_access_token
                .clone()
                .ok_or_else(|| NetworkError::Credentials {
                    code: None,
                    detail: format!(
                        "no access token is configured for sender {} and there is no default token",
                        sender.number
                    ),
                }),
        }
    }

    /// Sends `request` with the bearer token and returns the status, headers and body of the answer.
    async fn call(
        &self,
        request: RequestBuilder,
        token: &SecretString,
    ) -> Result<(StatusCode, HeaderMap, Vec<u8>), NetworkError> {
        let response = request
            .bearer_auth(token.expose_secret())
            .send()
            .await
            .map_err(transport_error)?;
        let status = response.status();
        let headers = response.headers().clone();
        let body = response.bytes().await.map_err(transport_error)?;
        Ok((status, headers, body.to_vec()))
    }
}

#[derive(Debug, Deserialize)]
struct UploadResponse {
    id: String,
}

/// `GET /{v}/{media-id}` (docs/cloud-api.md §2.2); the other fields are not needed.
#[derive(Debug, Deserialize)]
struct MediaInfo {
    url: String,
    #[serde(default)]
    mime_type: Option<String>,
    #[serde(default, deserialize_with = "lenient_size")]
    file_size: Option<u64>,
}

/// Graph writes `file_size` as a number; some copies of the docs show a string.
fn lenient_size<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
    Ok(match Option::<serde_json::Value>::deserialize(deserializer)? {
        Some(serde_json::Value::Number(n)) => n.as_u64(),
        Some(serde_json::Value::String(s)) => s.parse().ok(),
        _ => None,
    })
}

#[async_trait]
impl MessagingNetwork for CloudApiClient {
    async fn send(
        &self,
        sender: &SenderNumber,
        message: &Message,
        media: &NetworkMediaIds,
    ) -> Result<NetworkReceipt, NetworkError> {
        let body = send_body(message, media)?;
        let token = self.token(sender)?;
        self.send_routed(sender, message, body, &token).await
    }

    async fn block_users(
        &self,
        sender: &SenderNumber,
        users: &[herald_domain::contact::Recipient],
        block: bool,
    ) -> Result<Vec<herald_domain::ports::BlockFailure>, NetworkError> {
        self.block_users_batches(sender, users, block).await
    }

    async fn mark_read(
        &self,
        sender: &SenderNumber,
        network_message_id: &str,
        typing: bool,
    ) -> Result<(), NetworkError> {
        let token = self.token(sender)?;
        let url = format!("{}/{}/messages", self.versioned_base, sender.phone_number_id);
        let body = read_body(network_message_id, typing);
        // Marking read twice is harmless, so a lost answer is simply worth another try.
        let (status, headers, bytes) = self
            .call(self.http.post(&url).json(&body), &token)
            .await
            .map_err(idempotent)?;
        if !status.is_success() {
            return Err(idempotent(error_response(status, &headers, &bytes)));
        }
        Ok(())
    }

    async fn upload_media(&self, sender: &SenderNumber, upload: MediaUpload) -> Result<String, NetworkError> {
        let token = self.token(sender)?;
        let url = format!("{}/{}/media", self.versioned_base, sender.phone_number_id);
        let MediaUpload {
            file,
            size,
            mime_type,
            filename,
        } = upload;
        // Streamed from the file with a known length, so the request has a Content-Length and a 100 MB
        // document never sits in memory.
        let file = reqwest::Body::from(tokio::fs::File::from_std(file));
        let part = reqwest::multipart::Part::stream_with_length(file, size)
            .file_name(filename)
            .mime_str(&mime_type)
            .map_err(|error| {
                NetworkError::Permanent(MessageError {
                    code: "media_unavailable".into(),
                    title: "The media file is not available".into(),
                    detail: format!("the file's type `{mime_type}` is not a MIME type: {error}"),
                    network_code: None,
                })
            })?;
        let form = reqwest::multipart::Form::new()
            .text("messaging_product", "whatsapp")
            .text("type", mime_type.clone())
            .part("file", part);
        let request = self.http.post(&url).multipart(form).timeout(self.media_timeout);
        let (status, headers, bytes) = self.call(request, &token).await?;
        if !status.is_success() {
            return Err(error_response(status, &headers, &bytes));
        }
        match serde_json::from_slice::<UploadResponse>(&bytes) {
            Ok(UploadResponse { id }) if !id.is_empty() => Ok(id),
            Ok(_) => Err(unreadable_success("it names no media id")),
            Err(error) => Err(unreadable_success(&error.to_string())),
        }
    }

    async fn download_media(
        &self,
        sender: &SenderNumber,
        network_media_id: &str,
    ) -> Result<MediaDownload, NetworkError> {
        // The id becomes a path segment: anything but a Graph-shaped id could walk to another path.
        if network_media_id.is_empty()
            || !network_media_id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
            || network_media_id.starts_with('.')
        {
            return Err(media_not_found(network_media_id, "it is not a media id"));
        }
        let token = self.token(sender)?;
        let lookup = self
            .http
            .get(format!("{}/{network_media_id}", self.versioned_base))
            .query(&[("phone_number_id", sender.phone_number_id.as_str())]);
        let (status, headers, bytes) = self.call(lookup, &token).await.map_err(idempotent)?;
        if !status.is_success() {
            return Err(lookup_error(network_media_id, status, &headers, &bytes));
        }
        let info: MediaInfo = serde_json::from_slice(&bytes).map_err(|error| NetworkError::Retryable {
            code: None,
            detail: format!("the media lookup answer could not be read: {error}"),
            retry_after: None,
        })?;
        let url = reqwest::Url::parse(&info.url).map_err(|error| NetworkError::Retryable {
            code: None,
            detail: format!("the media lookup answered an unusable download URL: {error}"),
            retry_after: None,
        })?;
        if !self.media_hosts.allows(&url) {
            return Err(download_refused(network_media_id, &url));
        }
        let response = self
            .http
            .get(url.clone())
            .bearer_auth(token.expose_secret())
            .timeout(self.media_timeout)
            .send()
            .await
            .map_err(|error| idempotent(transport_error(error)))?;
        let status = response.status();
        if status.is_redirection() {
            // The redirect policy stopped at a hop that is not allowed.
            let target = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|value| value.to_str().ok())
                .and_then(|value| url.join(value).ok())
                .unwrap_or(url);
            return Err(download_refused(network_media_id, &target));
        }
        if !status.is_success() {
            let headers = response.headers().clone();
            let body = response
                .bytes()
                .await
                .map_err(|error| idempotent(transport_error(error)))?;
            return Err(lookup_error(network_media_id, status, &headers, &body));
        }
        let mime_type = info.mime_type.or_else(|| {
            response
                .headers()
                .get(reqwest::header::CONTENT_TYPE)
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned)
        });
        // The length of the body actually streamed wins over what the lookup said (reqwest does not decompress
        // here, so Content-Length is the stream's length).
        let size = response.content_length().or(info.file_size);
        let body = response
            .bytes_stream()
            .map_ok(|chunk| chunk.to_vec())
            .map_err(std::io::Error::other);
        Ok(MediaDownload {
            mime_type,
            size,
            body: Box::pin(body),
        })
    }

    async fn templates(&self, sender: &SenderNumber) -> Result<Vec<NetworkTemplate>, NetworkError> {
        let token = self.token(sender)?;
        let first_url = format!("{}/{}/message_templates", self.versioned_base, sender.waba_id);
        let mut templates = Vec::new();
        let mut after: Option<String> = None;
        let mut next_url: Option<String> = None;
        for _ in 0..MAX_TEMPLATE_PAGES {
            let request = match (&after, &next_url) {
                // A cursor keeps every request on the configured base (the simulator's, in tests).
                (Some(cursor), _) => self.http.get(&first_url).query(&[
                    ("limit", "100"),
                    ("fields", FIELDS),
                    ("after", cursor.as_str()),
                ]),
                (None, Some(url)) => self.http.get(url),
                (None, None) => self
                    .http
                    .get(&first_url)
                    .query(&[("limit", "100"), ("fields", FIELDS)]),
            };
            let (status, headers, bytes) = self.call(request, &token).await?;
            if !status.is_success() {
                return Err(error_response(status, &headers, &bytes));
            }
            let page: TemplatePage = serde_json::from_slice(&bytes).map_err(|e| NetworkError::Retryable {
                code: None,
                detail: format!("the template list could not be read: {e}"),
                retry_after: None,
            })?;
            let page_was_empty = page.data.is_empty();
            for definition in page.data {
                let label = definition
                    .get("name")
                    .and_then(serde_json::Value::as_str)
                    .unwrap_or("?")
                    .to_owned();
                match parse_template(definition) {
                    Ok(template) => templates.push(template),
                    Err(reason) => tracing::warn!(
                        waba_id = %sender.waba_id,
                        template = %label,
                        %reason,
                        "skipping a template Herald cannot parse"
                    ),
                }
            }
            let paging = page.paging;
            let next = paging.as_ref().and_then(|p| p.next.clone());
            let cursor = paging
                .and_then(|p| p.cursors)
                .and_then(|c| c.after)
                .filter(|c| !c.is_empty());
            // Graph omits `next` on the last page; some servers only give the cursor, so an empty page (or a
            // cursor that does not move) is the other way to know the list is done.
            let more = !page_was_empty && (next.is_some() || cursor.is_some());
            if !more || (cursor.is_some() && cursor == after) {
                return Ok(templates);
            }
            // Graph's `next` links can carry the token in their query and may name another host: follow only
            // links to the configured server, and prefer the cursor whenever there is one.
            let followed = next_url.take();
            next_url = match next.map(|url| reqwest::Url::parse(&url)) {
                Some(Ok(url)) if url.origin() == self.origin.origin() => {
                    let url = url.to_string();
                    if cursor.is_none() && followed.as_ref() == Some(&url) {
                        return Ok(templates);
                    }
                    Some(url)
                }
                Some(_) if cursor.is_none() => {
                    tracing::warn!(waba_id = %sender.waba_id, "template paging link points elsewhere; stopping");
                    return Ok(templates);
                }
                _ => None,
            };
            after = cursor;
        }
        tracing::warn!(waba_id = %sender.waba_id, pages = MAX_TEMPLATE_PAGES, "template list paging stopped at the page limit");
        Ok(templates)
    }

    async fn app_subscription(&self, sender: &SenderNumber) -> Result<AppSubscription, NetworkError> {
        self.read_app_subscription(sender).await
    }
}

mod block;
mod failures;
mod marketing;
mod review;
mod subscription;
use failures::{
    download_refused, error_response, idempotent, lookup_error, media_not_found, transport_error,
    unreadable_success,
};

#[cfg(test)]
mod tests;

//! The client's side of template review (docs/cloud-api.md §3): samples through the app's resumable upload,
//! then submit, edit and delete on the sender's business account.

use super::CloudApiClient;
use super::failures::{error_response, unreadable_success};
use crate::template_wire::{edit_body, submit_body};
use async_trait::async_trait;
use herald_domain::organization::SenderNumber;
use herald_domain::ports::{MediaUpload, NetworkError, SampleHandles, SubmittedTemplate, TemplateReview};
use herald_domain::template::definition::TemplateDefinition;
use herald_domain::template::{TemplateName, TemplateStatus};
use secrecy::ExposeSecret as _;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
struct UploadSession {
    id: String,
}

#[derive(Debug, Deserialize)]
struct UploadHandle {
    h: String,
}

#[derive(Debug, Deserialize)]
struct Submitted {
    id: String,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    category: Option<String>,
}

impl CloudApiClient {
    /// POSTs `body` to `url` and reads the JSON answer as `T`.
    async fn post_json<T: serde::de::DeserializeOwned>(
        &self,
        sender: &SenderNumber,
        url: &str,
        body: &serde_json::Value,
    ) -> Result<T, NetworkError> {
        let token = self.token(sender)?;
        let (status, headers, bytes) = self.call(self.http.post(url).json(body), &token).await?;
        if !status.is_success() {
            return Err(error_response(status, &headers, &bytes));
        }
        serde_json::from_slice(&bytes).map_err(|error| unreadable_success(&error.to_string()))
    }
}

fn submitted(answer: Submitted, definition: &TemplateDefinition) -> Result<SubmittedTemplate, NetworkError> {
    if answer.id.is_empty() {
        return Err(unreadable_success("it names no template id"));
    }
    let status = answer.status.as_deref().unwrap_or("PENDING");
    Ok(SubmittedTemplate {
        network_id: answer.id,
        status: TemplateStatus::parse(status).map_err(|e| unreadable_success(&e.to_string()))?,
        category: answer
            .category
            .unwrap_or_else(|| definition.category.as_str().to_owned()),
    })
}

#[async_trait]
impl TemplateReview for CloudApiClient {
    async fn upload_sample(
        &self,
        sender: &SenderNumber,
        upload: MediaUpload,
    ) -> Result<String, NetworkError> {
        let app_id = self.app_id.as_deref().ok_or_else(|| NetworkError::Credentials {
            code: None,
            detail: "template samples are uploaded through the Meta app, and no app id is configured \
                     (HERALD_CLOUD_API_APP_ID); name the sample by `header_handle` instead"
                .to_owned(),
        })?;
        let token = self.token(sender)?;
        let MediaUpload {
            file,
            size,
            mime_type,
            filename,
        } = upload;
        let size_text = size.to_string();
        let start = self
            .http
            .post(format!("{}/{app_id}/uploads", self.versioned_base))
            .query(&[
                ("file_name", filename.as_str()),
                ("file_length", size_text.as_str()),
                ("file_type", mime_type.as_str()),
            ]);
        let (status, headers, bytes) = self.call(start, &token).await?;
        if !status.is_success() {
            return Err(error_response(status, &headers, &bytes));
        }
        let session: UploadSession =
            serde_json::from_slice(&bytes).map_err(|error| unreadable_success(&error.to_string()))?;
        // The session id is a path segment of its own (`upload:…`): anything else could point elsewhere.
        if session.id.is_empty() || session.id.contains(['/', '?', '#']) {
            return Err(unreadable_success("the upload session id is not a path segment"));
        }
        // The bytes go in one request from offset 0, streamed from the file; the upload step authenticates
        // with `OAuth`, not `Bearer` (Meta's resumable upload API).
        let body = reqwest::Body::from(tokio::fs::File::from_std(file));
        let response = self
            .http
            .post(format!("{}/{}", self.versioned_base, session.id))
            .header(
                reqwest::header::AUTHORIZATION,
                format!("OAuth {}", token.expose_secret()),
            )
            .header("file_offset", "0")
            .header(reqwest::header::CONTENT_LENGTH, size)
            .body(body)
            .timeout(self.media_timeout)
            .send()
            .await
            .map_err(super::failures::transport_error)?;
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response.bytes().await.map_err(super::failures::transport_error)?;
        if !status.is_success() {
            return Err(error_response(status, &headers, &bytes));
        }
        match serde_json::from_slice::<UploadHandle>(&bytes) {
            Ok(UploadHandle { h }) if !h.is_empty() => Ok(h),
            Ok(_) => Err(unreadable_success("it names no upload handle")),
            Err(error) => Err(unreadable_success(&error.to_string())),
        }
    }

    async fn submit_template(
        &self,
        sender: &SenderNumber,
        definition: &TemplateDefinition,
        samples: &SampleHandles,
    ) -> Result<SubmittedTemplate, NetworkError> {
        let body = submit_body(definition, samples)?;
        let url = format!("{}/{}/message_templates", self.versioned_base, sender.waba_id);
        let answer: Submitted = self.post_json(sender, &url, &body).await?;
        submitted(answer, definition)
    }

    async fn edit_template(
        &self,
        sender: &SenderNumber,
        network_id: &str,
        definition: &TemplateDefinition,
        samples: &SampleHandles,
    ) -> Result<SubmittedTemplate, NetworkError> {
        if network_id.is_empty() || !network_id.bytes().all(|b| b.is_ascii_digit()) {
            return Err(unreadable_success("the template's network id is not numeric"));
        }
        let body = edit_body(definition, samples)?;
        let url = format!("{}/{network_id}", self.versioned_base);
        let _: serde_json::Value = self.post_json(sender, &url, &body).await?;
        // An edit answers `{"success": true}`; the template goes back to review.
        Ok(SubmittedTemplate {
            network_id: network_id.to_owned(),
            status: TemplateStatus::parse("PENDING").map_err(|e| unreadable_success(&e.to_string()))?,
            category: definition.category.as_str().to_owned(),
        })
    }

    async fn delete_template(
        &self,
        sender: &SenderNumber,
        name: &TemplateName,
        network_id: Option<String>,
    ) -> Result<(), NetworkError> {
        let token = self.token(sender)?;
        let mut query = vec![("name", name.as_str())];
        if let Some(id) = network_id.as_deref() {
            query.push(("hsm_id", id));
        }
        let request = self
            .http
            .delete(format!(
                "{}/{}/message_templates",
                self.versioned_base, sender.waba_id
            ))
            .query(&query);
        let (status, headers, bytes) = self.call(request, &token).await?;
        if status.is_success() {
            Ok(())
        } else {
            Err(error_response(status, &headers, &bytes))
        }
    }
}

//! The network's review of templates: submitting a definition, editing it, deleting it.

use super::network::{MediaUpload, NetworkError};
use crate::ids::MediaId;
use crate::organization::SenderNumber;
use crate::template::definition::TemplateDefinition;
use crate::template::{TemplateName, TemplateStatus};
use async_trait::async_trait;

/// The network's upload handles of the Herald-stored sample files a definition names
/// ([`crate::template::definition::MediaSample::Upload`]), uploaded just before the submission.
pub type SampleHandles = std::collections::BTreeMap<MediaId, String>;

/// What the network answered a submission or an edit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubmittedTemplate {
    /// The network's id of the template.
    pub network_id: String,
    /// Usually `PENDING`; the review's outcome arrives later as a template status callback.
    pub status: TemplateStatus,
    /// The category the network gave it (it may differ from the one asked when category changes are allowed).
    pub category: String,
}

/// The network's template management (docs/cloud-api.md §3), for the sender's business account.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait TemplateReview: Send + Sync + 'static {
    /// Uploads a sample file for a media header and returns its handle (the network's resumable upload).
    ///
    /// # Errors
    /// A [`NetworkError`], classified as for a send.
    async fn upload_sample(&self, sender: &SenderNumber, upload: MediaUpload)
    -> Result<String, NetworkError>;

    /// Submits `definition` for review.
    ///
    /// # Errors
    /// A [`NetworkError`]; a definition the network refuses is [`NetworkError::Permanent`] with its reason.
    async fn submit_template(
        &self,
        sender: &SenderNumber,
        definition: &TemplateDefinition,
        samples: &SampleHandles,
    ) -> Result<SubmittedTemplate, NetworkError>;

    /// Replaces the components (and category) of the template with `network_id`; it goes back to review.
    ///
    /// # Errors
    /// As for [`TemplateReview::submit_template`].
    async fn edit_template(
        &self,
        sender: &SenderNumber,
        network_id: &str,
        definition: &TemplateDefinition,
        samples: &SampleHandles,
    ) -> Result<SubmittedTemplate, NetworkError>;

    /// Deletes every language of `name`, or only the one with `network_id`.
    ///
    /// # Errors
    /// A [`NetworkError`].
    async fn delete_template(
        &self,
        sender: &SenderNumber,
        name: &TemplateName,
        network_id: Option<String>,
    ) -> Result<(), NetworkError>;
}

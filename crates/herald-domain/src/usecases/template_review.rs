//! Templates created, edited and deleted through Herald (docs/api.md §6.1): the definition goes to the
//! network's review for the sender's business account, and Herald's copy is then synced from the network's
//! own listing, so the copy always says what the network says.

use super::templates::{SyncError, SyncTemplates};
use crate::ids::{MediaId, OrganizationId};
use crate::media::MediaRecord;
use crate::organization::SenderNumber;
use crate::ports::{
    AccountStore, MediaCatalog, MediaStore, MediaUpload, NetworkError, SampleHandles, StoreError,
    TemplateQuery, TemplateReview, TemplateStore,
};
use crate::template::definition::{Component, HeaderDefinition, MediaSample, TemplateDefinition};
use crate::template::{LanguageCode, Template, TemplateName};
use crate::values::PhoneNumber;
use std::sync::Arc;

/// Why a template operation was refused.
#[derive(Debug, thiserror::Error)]
pub enum TemplateReviewError {
    /// `from` names no sender of the organization (or it has no sender at all).
    #[error("no sender of the organization has this number")]
    UnknownSender,
    /// A template of this name and language already exists in the sender's business account.
    #[error("template {0} ({1}) already exists")]
    Exists(TemplateName, LanguageCode),
    /// No template of this name (and language) in the sender's business account.
    #[error("no such template")]
    NotFound,
    /// A sample `media_id` names no upload of the organization.
    #[error("sample {0} is not an upload of this organization")]
    SampleNotFound(MediaId),
    /// A sample's kind differs from its header's format.
    #[error("sample {id} is {actual}, the header is {expected}")]
    SampleMismatch {
        id: MediaId,
        expected: &'static str,
        actual: &'static str,
    },
    #[error("the network refused: {0}")]
    Network(#[from] NetworkError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<SyncError> for TemplateReviewError {
    fn from(error: SyncError) -> Self {
        match error {
            SyncError::Network(error) => Self::Network(error),
            SyncError::Store(error) => Self::Store(error),
        }
    }
}

/// The ports [`ManageTemplates`] uses.
pub struct TemplateReviewPorts {
    pub accounts: Arc<dyn AccountStore>,
    pub templates: Arc<dyn TemplateStore>,
    pub catalog: Arc<dyn MediaCatalog>,
    pub files: Arc<dyn MediaStore>,
    pub review: Arc<dyn TemplateReview>,
}

/// Creating, editing and deleting templates.
pub struct ManageTemplates {
    ports: TemplateReviewPorts,
    sync: Arc<SyncTemplates>,
}

impl ManageTemplates {
    pub fn new(ports: TemplateReviewPorts, sync: Arc<SyncTemplates>) -> Self {
        Self { ports, sync }
    }

    /// Submits `definition` for review from the sender `from` (default: the organization's default sender)
    /// and answers Herald's copy, synced from the network (usually `PENDING`).
    ///
    /// # Errors
    /// [`TemplateReviewError`]; nothing reaches the network when the sender, an existing copy or a sample
    /// refuses it.
    pub async fn create(
        &self,
        organization: &OrganizationId,
        from: Option<&PhoneNumber>,
        definition: &TemplateDefinition,
    ) -> Result<Template, TemplateReviewError> {
        let sender = self.sender(organization, from).await?;
        if self
            .copy(organization, &sender, &definition.name, &definition.language)
            .await?
            .is_some()
        {
            return Err(TemplateReviewError::Exists(
                definition.name.clone(),
                definition.language.clone(),
            ));
        }
        // On a shared business account a name is one organization's: another's (or, made elsewhere, the
        // owner's) template of that name is theirs to add languages to, and taken before any network call.
        let taken = || TemplateReviewError::Exists(definition.name.clone(), definition.language.clone());
        if !self.may_create(organization, &sender, &definition.name).await? {
            return Err(taken());
        }
        let author = self
            .ports
            .templates
            .claim_template(organization, &sender.waba_id, &definition.name, self.sync.now())
            .await?;
        if author != *organization {
            return Err(taken());
        }
        let samples = self.upload_samples(organization, &sender, definition).await?;
        self.ports
            .review
            .submit_template(&sender, definition, &samples)
            .await?;
        self.synced(organization, &sender, &definition.name, &definition.language)
            .await
    }

    /// Replaces the components (and category) of an existing template; it goes back to review.
    ///
    /// # Errors
    /// [`TemplateReviewError::NotFound`] without a copy of that name and language (or without its network id).
    pub async fn edit(
        &self,
        organization: &OrganizationId,
        from: Option<&PhoneNumber>,
        definition: &TemplateDefinition,
    ) -> Result<Template, TemplateReviewError> {
        let sender = self.sender(organization, from).await?;
        self.require_own(organization, &sender, &definition.name).await?;
        let copy = self
            .copy(organization, &sender, &definition.name, &definition.language)
            .await?
            .ok_or(TemplateReviewError::NotFound)?;
        let network_id = copy.network_id.ok_or(TemplateReviewError::NotFound)?;
        let samples = self.upload_samples(organization, &sender, definition).await?;
        self.ports
            .review
            .edit_template(&sender, &network_id, definition, &samples)
            .await?;
        self.synced(organization, &sender, &definition.name, &definition.language)
            .await
    }

    /// Deletes every language of `name`, or only `language`.
    ///
    /// # Errors
    /// [`TemplateReviewError::NotFound`] when the sender's business account has no such template.
    pub async fn delete(
        &self,
        organization: &OrganizationId,
        from: Option<&PhoneNumber>,
        name: &TemplateName,
        language: Option<&LanguageCode>,
    ) -> Result<(), TemplateReviewError> {
        let sender = self.sender(organization, from).await?;
        self.require_own(organization, &sender, name).await?;
        let copies: Vec<Template> = self
            .copies(organization, &sender, name)
            .await?
            .into_iter()
            .filter(|t| language.is_none_or(|l| &t.language == l))
            .collect();
        let network_id = match (language, copies.as_slice()) {
            (_, []) => return Err(TemplateReviewError::NotFound),
            // One language goes by its own id; without one the network would delete every language.
            (Some(_), [one]) => Some(one.network_id.clone().ok_or(TemplateReviewError::NotFound)?),
            (Some(_), _) => return Err(TemplateReviewError::NotFound),
            (None, _) => None,
        };
        self.ports
            .review
            .delete_template(&sender, name, network_id)
            .await?;
        if language.is_none() {
            // Every language is gone: the name is free for any organization of the account again.
            self.ports
                .templates
                .release_template(organization, &sender.waba_id, name)
                .await?;
        }
        self.sync.sync_organization(organization).await?;
        Ok(())
    }

    /// The organization template `name` of the sender's business account belongs to: the one that created
    /// it through Herald, else (made elsewhere) the account's owner. Keyed per organization, so that on a
    /// business account shared between organizations one cannot edit or delete another's template.
    async fn belongs_to(
        &self,
        sender: &SenderNumber,
        name: &TemplateName,
    ) -> Result<Option<OrganizationId>, StoreError> {
        if let Some(author) = self
            .ports
            .templates
            .template_author(&sender.waba_id, name)
            .await?
        {
            return Ok(Some(author));
        }
        Ok(self
            .ports
            .accounts
            .business_account_organizations(&sender.waba_id)
            .await?
            .first()
            .copied())
    }

    /// Another organization's template answers as none at all (`NotFound`): its copy is not this
    /// organization's to change.
    async fn require_own(
        &self,
        organization: &OrganizationId,
        sender: &SenderNumber,
        name: &TemplateName,
    ) -> Result<(), TemplateReviewError> {
        match self.belongs_to(sender, name).await? {
            Some(owner) if owner == *organization => Ok(()),
            _ => Err(TemplateReviewError::NotFound),
        }
    }

    /// Whether `organization` may create (a language of) template `name`: a name no one has, or its own.
    async fn may_create(
        &self,
        organization: &OrganizationId,
        sender: &SenderNumber,
        name: &TemplateName,
    ) -> Result<bool, StoreError> {
        if let Some(author) = self
            .ports
            .templates
            .template_author(&sender.waba_id, name)
            .await?
        {
            return Ok(author == *organization);
        }
        if self.copies(organization, sender, name).await?.is_empty() {
            return Ok(true);
        }
        // Made elsewhere: the account owner's.
        Ok(self.belongs_to(sender, name).await? == Some(*organization))
    }

    async fn sender(
        &self,
        organization: &OrganizationId,
        from: Option<&PhoneNumber>,
    ) -> Result<SenderNumber, TemplateReviewError> {
        let senders = self.ports.accounts.senders(organization).await?;
        let found = match from {
            Some(number) => senders.iter().find(|s| &s.number == number),
            None => {
                let default = senders.iter().position(|s| s.is_default).unwrap_or(0);
                senders.get(default)
            }
        };
        found.cloned().ok_or(TemplateReviewError::UnknownSender)
    }

    async fn copies(
        &self,
        organization: &OrganizationId,
        sender: &SenderNumber,
        name: &TemplateName,
    ) -> Result<Vec<Template>, StoreError> {
        let query = TemplateQuery {
            status: None,
            name: Some(name.clone()),
        };
        Ok(self
            .ports
            .templates
            .templates(organization, &query)
            .await?
            .into_iter()
            .filter(|t| t.waba_id == sender.waba_id)
            .collect())
    }

    async fn copy(
        &self,
        organization: &OrganizationId,
        sender: &SenderNumber,
        name: &TemplateName,
        language: &LanguageCode,
    ) -> Result<Option<Template>, StoreError> {
        Ok(self
            .copies(organization, sender, name)
            .await?
            .into_iter()
            .find(|t| &t.language == language))
    }

    /// Syncs the organization from the network, then reads the template back.
    async fn synced(
        &self,
        organization: &OrganizationId,
        sender: &SenderNumber,
        name: &TemplateName,
        language: &LanguageCode,
    ) -> Result<Template, TemplateReviewError> {
        self.sync.sync_organization(organization).await?;
        self.copy(organization, sender, name, language)
            .await?
            .ok_or_else(|| {
                TemplateReviewError::Network(NetworkError::Retryable {
                    code: None,
                    detail: format!(
                        "the network accepted template {name} ({language}) but does not list it yet"
                    ),
                    retry_after: None,
                })
            })
    }

    /// Uploads every sample stored in Herald to the network's review and answers their handles.
    async fn upload_samples(
        &self,
        organization: &OrganizationId,
        sender: &SenderNumber,
        definition: &TemplateDefinition,
    ) -> Result<SampleHandles, TemplateReviewError> {
        let mut handles = SampleHandles::new();
        for (kind, sample) in samples(definition) {
            let MediaSample::Upload(id) = sample else { continue };
            if handles.contains_key(id) {
                continue;
            }
            let Some(MediaRecord::Uploaded(file)) = self.ports.catalog.media(organization, id).await? else {
                return Err(TemplateReviewError::SampleNotFound(*id));
            };
            if file.kind != kind {
                return Err(TemplateReviewError::SampleMismatch {
                    id: *id,
                    expected: kind.as_str(),
                    actual: file.kind.as_str(),
                });
            }
            let handle = self
                .ports
                .files
                .open(&file.sha256)
                .await
                .map_err(|error| StoreError::Unavailable(error.to_string()))?
                .ok_or(TemplateReviewError::SampleNotFound(*id))?;
            let upload = MediaUpload {
                file: handle,
                size: file.size,
                mime_type: file.mime_type.clone(),
                filename: file
                    .filename
                    .as_ref()
                    .map_or_else(|| id.to_string(), |name| name.as_str().to_owned()),
            };
            let network_handle = self.ports.review.upload_sample(sender, upload).await?;
            handles.insert(*id, network_handle);
        }
        Ok(handles)
    }
}

/// Every media sample of a definition (its header's and its cards'), with the kind its header wants.
fn samples(definition: &TemplateDefinition) -> Vec<(crate::attachment::MediaKind, &MediaSample)> {
    let mut found = Vec::new();
    for component in &definition.components {
        match component {
            Component::Header(HeaderDefinition::Media { kind, sample }) => found.push((*kind, sample)),
            Component::Carousel(cards) => {
                found.extend(cards.iter().map(|card| (card.header.0, &card.header.1)));
            }
            _ => {}
        }
    }
    found
}

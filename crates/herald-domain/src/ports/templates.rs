//! Herald's copies of the organizations' templates.

use super::error::StoreError;
use crate::ids::OrganizationId;
use crate::organization::NetworkRef;
use crate::template::{LanguageCode, Template, TemplateName};
use async_trait::async_trait;
use std::sync::Arc;

/// Filters of a template listing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TemplateQuery {
    pub status: Option<String>,
    pub name: Option<TemplateName>,
}

/// Herald's copies of the organizations' templates.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait TemplateStore: Send + Sync + 'static {
    /// Replaces the organization's templates of business account `waba_id` with `templates` (a sync).
    async fn replace_templates(
        &self,
        organization: &OrganizationId,
        waba_id: &NetworkRef,
        templates: &[Template],
    ) -> Result<(), StoreError>;

    /// One template, shared: a send reads it on every request, and the read cache hands out the copy it
    /// keeps rather than a clone of the template's whole structure.
    async fn template(
        &self,
        organization: &OrganizationId,
        waba_id: &NetworkRef,
        name: &TemplateName,
        language: &LanguageCode,
    ) -> Result<Option<Arc<Template>>, StoreError>;

    /// The organization's templates, by name then language.
    async fn templates(
        &self,
        organization: &OrganizationId,
        query: &TemplateQuery,
    ) -> Result<Vec<Template>, StoreError>;

    /// The organization that created template `name` of business account `waba_id` through Herald, if one
    /// did (and has not deleted every language of it since).
    async fn template_author(
        &self,
        waba_id: &NetworkRef,
        name: &TemplateName,
    ) -> Result<Option<OrganizationId>, StoreError>;

    /// Records `organization` as the author of template `name` of business account `waba_id` unless
    /// another is recorded already; answers the author now recorded (`organization`, or the earlier one).
    async fn claim_template(
        &self,
        organization: &OrganizationId,
        waba_id: &NetworkRef,
        name: &TemplateName,
        at: crate::time::Timestamp,
    ) -> Result<OrganizationId, StoreError>;

    /// Forgets the author of template `name` of `waba_id` when it is `organization` (every language of
    /// the template was deleted): the name is free again.
    async fn release_template(
        &self,
        organization: &OrganizationId,
        waba_id: &NetworkRef,
        name: &TemplateName,
    ) -> Result<(), StoreError>;
}

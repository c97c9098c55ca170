//! Rows of `templates`.

use super::shared::*;
use crate::dto::StructureDto;
use herald_domain::ids::{OrganizationId, TemplateId};
use herald_domain::network::QualityScore;
use herald_domain::organization::NetworkRef;
use herald_domain::ports::StoreError;
use herald_domain::template::{
    LanguageCode, Template, TemplateHealth, TemplateName, TemplateStatus, TemplateStructure,
};

row! {
    #[derive(Debug)]
    pub(crate) struct TemplateRow in templates {
        pub id: String,
        pub organization_id: String,
        pub waba_id: String,
        pub name: String,
        pub language: String,
        pub status: String,
        pub category: String,
        pub structure: String,
        pub network_id: Option<String>,
        pub synced_at: Time,
        pub quality: Option<String>,
        pub rejected_reason: Option<String>,
        pub updated_at: Option<Time>,
    }
}

impl TemplateRow {
    pub(crate) fn new(template: &Template) -> Result<Self, StoreError> {
        Ok(Self {
            id: template.id.to_string(),
            organization_id: template.organization_id.to_string(),
            waba_id: template.waba_id.as_str().to_owned(),
            name: template.name.as_str().to_owned(),
            language: template.language.as_str().to_owned(),
            status: template.status.as_str().to_owned(),
            category: template.category.clone(),
            structure: to_json("template structure", &StructureDto::from(&template.structure))?,
            network_id: template.network_id.clone(),
            synced_at: template.synced_at,
            quality: template.health.quality.as_ref().map(|q| q.as_str().to_owned()),
            rejected_reason: template.health.rejected_reason.clone(),
            updated_at: template.health.updated_at,
        })
    }

    /// Quality, rejection reason and last change of the stored copy.
    pub(crate) fn health(&self) -> Result<TemplateHealth, StoreError> {
        Ok(TemplateHealth {
            quality: self
                .quality
                .as_deref()
                .map(|q| parse("template quality", QualityScore::parse(q)))
                .transpose()?,
            rejected_reason: self.rejected_reason.clone(),
            updated_at: self.updated_at,
        })
    }

    /// Whether the two rows say the same of a template (what a sync compares before it stamps a change).
    pub(crate) fn same_content(&self, other: &Self) -> bool {
        (
            &self.status,
            &self.category,
            &self.structure,
            &self.network_id,
            &self.quality,
            &self.rejected_reason,
        ) == (
            &other.status,
            &other.category,
            &other.structure,
            &other.network_id,
            &other.quality,
            &other.rejected_reason,
        )
    }
}

impl TryFrom<TemplateRow> for Template {
    type Error = StoreError;

    fn try_from(row: TemplateRow) -> Result<Self, Self::Error> {
        let structure: StructureDto = from_json("template structure", &row.structure)?;
        let health = row.health()?;
        Ok(Self {
            id: parse("template id", TemplateId::parse(&row.id))?,
            organization_id: parse("organization id", OrganizationId::parse(&row.organization_id))?,
            waba_id: parse("business account id", NetworkRef::parse(&row.waba_id))?,
            name: parse("template name", TemplateName::parse(&row.name))?,
            language: parse("template language", LanguageCode::parse(&row.language))?,
            status: parse("template status", TemplateStatus::parse(&row.status))?,
            category: row.category,
            structure: parse("template structure", TemplateStructure::try_from(&structure))?,
            network_id: row.network_id,
            synced_at: row.synced_at,
            health,
        })
    }
}

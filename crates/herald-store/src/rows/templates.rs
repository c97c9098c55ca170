//! Rows of `templates`.

use super::shared::*;
use crate::dto::StructureDto;
use herald_domain::ids::{OrganizationId, TemplateId};
use herald_domain::organization::NetworkRef;
use herald_domain::ports::StoreError;
use herald_domain::template::{LanguageCode, Template, TemplateName, TemplateStatus, TemplateStructure};

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
        })
    }
}

impl TryFrom<TemplateRow> for Template {
    type Error = StoreError;

    fn try_from(row: TemplateRow) -> Result<Self, Self::Error> {
        let structure: StructureDto = from_json("template structure", &row.structure)?;
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
        })
    }
}

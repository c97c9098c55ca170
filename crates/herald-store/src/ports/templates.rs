//! The `TemplateStore` port: the organizations' template copies.

macro_rules! templates_port {
    () => {
        mod templates {
            use super::super::schema::{template_authors, templates};
            use super::super::{Conn, Db};
            use super::shared::convert;
            use async_trait::async_trait;
            use diesel::prelude::*;
            use diesel::upsert::excluded;
            use diesel_async::RunQueryDsl;
            use herald_domain::ids::OrganizationId;
            use herald_domain::organization::NetworkRef;
            use herald_domain::ports::{StoreError, TemplateQuery, TemplateStore};
            use herald_domain::template::{LanguageCode, Template, TemplateName};
            use std::sync::Arc;
            use $crate::error::{TxError, from_diesel};
            use $crate::rows::TemplateRow;

            #[async_trait]
            impl TemplateStore for Db {
                async fn replace_templates(
                    &self,
                    organization: &OrganizationId,
                    waba_id: &NetworkRef,
                    templates: &[Template],
                ) -> Result<(), StoreError> {
                    if let Some(stray) = templates
                        .iter()
                        .find(|t| &t.organization_id != organization || &t.waba_id != waba_id)
                    {
                        return Err(StoreError::Unknown(anyhow::anyhow!(
                            "template {} belongs to another organization or business account",
                            stray.id
                        )));
                    }
                    let mut rows = templates
                        .iter()
                        .map(TemplateRow::new)
                        .collect::<Result<Vec<_>, _>>()?;
                    let org = organization.to_string();
                    write_tx!(self, |conn| {
                        // Two syncs of one account (the API's and a worker's, say) take turns: the second
                        // then reads and replaces what the first wrote.
                        super::super::lock_template_sync(conn, &org, waba_id.as_str()).await?;
                        // A copy the sync finds unchanged keeps the time of its last change.
                        let before = templates::table
                            .filter(templates::organization_id.eq(&org))
                            .filter(templates::waba_id.eq(waba_id.as_str()))
                            .select(TemplateRow::as_select())
                            .load::<TemplateRow>(conn)
                            .await?;
                        for row in &mut rows {
                            if let Some(old) = before.iter().find(|old| {
                                old.name == row.name && old.language == row.language && old.same_content(row)
                            }) {
                                row.updated_at = old.updated_at.or(Some(old.synced_at));
                            }
                        }
                        diesel::delete(
                            templates::table
                                .filter(templates::organization_id.eq(&org))
                                .filter(templates::waba_id.eq(waba_id.as_str())),
                        )
                        .execute(conn)
                        .await?;
                        // On the table's unique key, a copy already there (a listing that names a template
                        // twice) is replaced rather than refused: a sync never fails on its own rows.
                        for row in &rows {
                            diesel::insert_into(templates::table)
                                .values((
                                    templates::id.eq(&row.id),
                                    templates::organization_id.eq(&row.organization_id),
                                    templates::waba_id.eq(&row.waba_id),
                                    templates::name.eq(&row.name),
                                    templates::language.eq(&row.language),
                                    templates::status.eq(&row.status),
                                    templates::category.eq(&row.category),
                                    templates::structure.eq(&row.structure),
                                    templates::network_id.eq(&row.network_id),
                                    templates::synced_at.eq(row.synced_at),
                                    templates::quality.eq(&row.quality),
                                    templates::rejected_reason.eq(&row.rejected_reason),
                                    templates::updated_at.eq(row.updated_at),
                                ))
                                .on_conflict((
                                    templates::organization_id,
                                    templates::waba_id,
                                    templates::name,
                                    templates::language,
                                ))
                                .do_update()
                                .set((
                                    templates::id.eq(excluded(templates::id)),
                                    templates::status.eq(excluded(templates::status)),
                                    templates::category.eq(excluded(templates::category)),
                                    templates::structure.eq(excluded(templates::structure)),
                                    templates::network_id.eq(excluded(templates::network_id)),
                                    templates::synced_at.eq(excluded(templates::synced_at)),
                                    templates::quality.eq(excluded(templates::quality)),
                                    templates::rejected_reason.eq(excluded(templates::rejected_reason)),
                                    templates::updated_at.eq(excluded(templates::updated_at)),
                                ))
                                .execute(conn)
                                .await?;
                        }
                        Ok(())
                    })
                    .map_err(TxError::into_store)
                }

                async fn template(
                    &self,
                    organization: &OrganizationId,
                    waba_id: &NetworkRef,
                    name: &TemplateName,
                    language: &LanguageCode,
                ) -> Result<Option<Arc<Template>>, StoreError> {
                    let mut conn = self.read().await?;
                    let row = templates::table
                        .filter(templates::organization_id.eq(organization.to_string()))
                        .filter(templates::waba_id.eq(waba_id.as_str()))
                        .filter(templates::name.eq(name.as_str()))
                        .filter(templates::language.eq(language.as_str()))
                        .select(TemplateRow::as_select())
                        .first::<TemplateRow>(&mut *conn)
                        .await
                        .optional()
                        .map_err(from_diesel)?;
                    row.map(|row| Template::try_from(row).map(Arc::new))
                        .transpose()
                }

                async fn templates(
                    &self,
                    organization: &OrganizationId,
                    query: &TemplateQuery,
                ) -> Result<Vec<Template>, StoreError> {
                    let mut select = templates::table
                        .filter(templates::organization_id.eq(organization.to_string()))
                        .into_boxed();
                    if let Some(status) = &query.status {
                        select = select.filter(templates::status.eq(status.clone()));
                    }
                    if let Some(name) = &query.name {
                        select = select.filter(templates::name.eq(name.as_str().to_owned()));
                    }
                    let mut conn = self.read().await?;
                    let rows = select
                        .order((
                            templates::name,
                            templates::language,
                            templates::waba_id,
                            templates::id,
                        ))
                        .select(TemplateRow::as_select())
                        .load::<TemplateRow>(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    convert(rows)
                }

                async fn template_author(
                    &self,
                    waba_id: &NetworkRef,
                    name: &TemplateName,
                ) -> Result<Option<OrganizationId>, StoreError> {
                    let mut conn = self.read().await?;
                    let author = template_authors::table
                        .filter(template_authors::waba_id.eq(waba_id.as_str()))
                        .filter(template_authors::name.eq(name.as_str()))
                        .select(template_authors::organization_id)
                        .first::<String>(&mut *conn)
                        .await
                        .optional()
                        .map_err(from_diesel)?;
                    author
                        .map(|id| {
                            OrganizationId::parse(&id)
                                .map_err(|e| $crate::error::corrupt("template author", e))
                        })
                        .transpose()
                }

                async fn claim_template(
                    &self,
                    organization: &OrganizationId,
                    waba_id: &NetworkRef,
                    name: &TemplateName,
                    at: herald_domain::Timestamp,
                ) -> Result<OrganizationId, StoreError> {
                    let org = organization.to_string();
                    let author = write_tx!(self, |conn| {
                        diesel::insert_into(template_authors::table)
                            .values((
                                template_authors::waba_id.eq(waba_id.as_str()),
                                template_authors::name.eq(name.as_str()),
                                template_authors::organization_id.eq(&org),
                                template_authors::created_at.eq(at),
                            ))
                            .on_conflict_do_nothing()
                            .execute(conn)
                            .await?;
                        let author = template_authors::table
                            .filter(template_authors::waba_id.eq(waba_id.as_str()))
                            .filter(template_authors::name.eq(name.as_str()))
                            .select(template_authors::organization_id)
                            .first::<String>(conn)
                            .await?;
                        Ok::<_, TxError>(author)
                    })
                    .map_err(TxError::into_store)?;
                    OrganizationId::parse(&author).map_err(|e| $crate::error::corrupt("template author", e))
                }

                async fn release_template(
                    &self,
                    organization: &OrganizationId,
                    waba_id: &NetworkRef,
                    name: &TemplateName,
                ) -> Result<(), StoreError> {
                    let mut conn = self.write().await?;
                    diesel::delete(
                        template_authors::table
                            .filter(template_authors::waba_id.eq(waba_id.as_str()))
                            .filter(template_authors::name.eq(name.as_str()))
                            .filter(template_authors::organization_id.eq(organization.to_string())),
                    )
                    .execute(&mut *conn)
                    .await
                    .map_err(from_diesel)?;
                    Ok(())
                }
            }
        }
    };
}

pub(crate) use templates_port;

//! The `AccountStore` port: plans, organizations, senders and API keys.

macro_rules! accounts_port {
    () => {
        mod accounts {
            use super::super::schema::{api_keys, organizations, plans, senders};
            use super::super::{Conn, Db};
            use super::shared::{convert, organization_exists, plan_exists};
            use async_trait::async_trait;
            use diesel::prelude::*;
            use diesel_async::RunQueryDsl;
            use herald_domain::api_key::{ApiKeyDigest, ApiKeyRecord, ApiKeyStatus};
            use herald_domain::ids::{ApiKeyId, OrganizationId, SenderId};
            use herald_domain::organization::{
                AccountStatus, NetworkRef, Organization, Plan, PlanName, SealedSecret, SenderNumber,
            };
            use herald_domain::ports::{AccountStore, Credential, StoreError};
            use herald_domain::time::Timestamp;
            use $crate::error::{TxError, from_diesel};
            use $crate::rows::{ApiKeyRow, OrganizationRow, PlanRow, SenderRow, sealed_text};

            #[async_trait]
            impl AccountStore for Db {
                async fn plans(&self) -> Result<Vec<Plan>, StoreError> {
                    let mut conn = self.read().await?;
                    let rows = plans::table
                        .order(plans::name)
                        .select(PlanRow::as_select())
                        .load::<PlanRow>(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    convert(rows)
                }

                async fn plan(&self, name: &PlanName) -> Result<Option<Plan>, StoreError> {
                    let mut conn = self.read().await?;
                    let row = plans::table
                        .find(name.as_str())
                        .select(PlanRow::as_select())
                        .first::<PlanRow>(&mut *conn)
                        .await
                        .optional()
                        .map_err(from_diesel)?;
                    row.map(Plan::try_from).transpose()
                }

                async fn put_plan(&self, plan: &Plan) -> Result<(), StoreError> {
                    let row = PlanRow::new(plan)?;
                    let values = (
                        plans::rate_per_second.eq(row.rate_per_second),
                        plans::burst.eq(row.burst),
                        plans::monthly_quota.eq(row.monthly_quota),
                        plans::text_allowed.eq(row.text_allowed),
                        plans::template_allowed.eq(row.template_allowed),
                        plans::media_allowed.eq(row.media_allowed),
                        plans::max_file_bytes.eq(row.max_file_bytes),
                        plans::webhook_endpoints.eq(row.webhook_endpoints),
                        plans::media_storage_bytes.eq(row.media_storage_bytes),
                    );
                    write_tx!(self, |conn| {
                        let updated = diesel::update(plans::table.find(&row.name))
                            .set(values)
                            .execute(conn)
                            .await?;
                        if updated == 0 {
                            diesel::insert_into(plans::table)
                                .values((plans::name.eq(&row.name), values))
                                .execute(conn)
                                .await?;
                        }
                        Ok(())
                    })
                    .map_err(TxError::into_store)
                }

                async fn create_organization(&self, organization: &Organization) -> Result<(), StoreError> {
                    let row = OrganizationRow::from(organization);
                    write_tx!(self, |conn| {
                        if !plan_exists(conn, &row.plan).await? {
                            return Err(StoreError::NotFound.into());
                        }
                        diesel::insert_into(organizations::table)
                            .values((
                                organizations::id.eq(&row.id),
                                organizations::name.eq(&row.name),
                                organizations::status.eq(&row.status),
                                organizations::plan.eq(&row.plan),
                                organizations::owner_email.eq(&row.owner_email),
                                organizations::created_at.eq(row.created_at),
                            ))
                            .execute(conn)
                            .await?;
                        Ok(())
                    })
                    .map_err(TxError::into_store)
                }

                async fn organization(
                    &self,
                    id: &OrganizationId,
                ) -> Result<Option<Organization>, StoreError> {
                    let mut conn = self.read().await?;
                    let row = organizations::table
                        .find(id.to_string())
                        .select(OrganizationRow::as_select())
                        .first::<OrganizationRow>(&mut *conn)
                        .await
                        .optional()
                        .map_err(from_diesel)?;
                    row.map(Organization::try_from).transpose()
                }

                async fn organizations(&self) -> Result<Vec<Organization>, StoreError> {
                    let mut conn = self.read().await?;
                    let rows = organizations::table
                        .order((organizations::created_at, organizations::id))
                        .select(OrganizationRow::as_select())
                        .load::<OrganizationRow>(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    convert(rows)
                }

                async fn set_account_status(
                    &self,
                    id: &OrganizationId,
                    status: AccountStatus,
                ) -> Result<(), StoreError> {
                    let mut conn = self.write().await?;
                    let changed = diesel::update(organizations::table.find(id.to_string()))
                        .set(organizations::status.eq(status.as_str()))
                        .execute(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    if changed == 0 {
                        Err(StoreError::NotFound)
                    } else {
                        Ok(())
                    }
                }

                async fn set_plan(&self, id: &OrganizationId, plan: &PlanName) -> Result<(), StoreError> {
                    let id = id.to_string();
                    write_tx!(self, |conn| {
                        if !plan_exists(conn, plan.as_str()).await? {
                            return Err(StoreError::NotFound.into());
                        }
                        let changed = diesel::update(organizations::table.find(&id))
                            .set(organizations::plan.eq(plan.as_str()))
                            .execute(conn)
                            .await?;
                        if changed == 0 {
                            return Err(StoreError::NotFound.into());
                        }
                        Ok(())
                    })
                    .map_err(TxError::into_store)
                }

                async fn add_sender(&self, sender: &SenderNumber) -> Result<(), StoreError> {
                    insert_sender(self, sender, false).await
                }

                async fn add_shared_sender(&self, sender: &SenderNumber) -> Result<(), StoreError> {
                    insert_sender(self, sender, true).await
                }

                async fn business_account_organizations(
                    &self,
                    waba_id: &NetworkRef,
                ) -> Result<Vec<OrganizationId>, StoreError> {
                    let mut conn = self.read().await?;
                    let rows = senders::table
                        .filter(senders::waba_id.eq(waba_id.as_str()))
                        .order((senders::created_at, senders::id))
                        .select((senders::organization_id, senders::shares_waba))
                        .load::<(String, bool)>(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    // The owner is the organization of the first sender; after it only those with a sender
                    // the operator registered as sharing.
                    let mut organizations: Vec<OrganizationId> = Vec::new();
                    for (index, (organization, shares)) in rows.into_iter().enumerate() {
                        let organization = OrganizationId::parse(&organization)
                            .map_err(|e| $crate::error::corrupt("organization id", e))?;
                        if (index == 0 || shares) && !organizations.contains(&organization) {
                            organizations.push(organization);
                        }
                    }
                    Ok(organizations)
                }

                async fn senders(
                    &self,
                    organization: &OrganizationId,
                ) -> Result<std::sync::Arc<[SenderNumber]>, StoreError> {
                    let mut conn = self.read().await?;
                    let rows = senders::table
                        .filter(senders::organization_id.eq(organization.to_string()))
                        .order((senders::created_at, senders::id))
                        .select(SenderRow::as_select())
                        .load::<SenderRow>(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    convert::<_, SenderNumber>(rows).map(Into::into)
                }

                async fn sender_by_phone_number_id(
                    &self,
                    phone_number_id: &NetworkRef,
                ) -> Result<Option<SenderNumber>, StoreError> {
                    let mut conn = self.read().await?;
                    let row = senders::table
                        .filter(senders::phone_number_id.eq(phone_number_id.as_str()))
                        .select(SenderRow::as_select())
                        .first::<SenderRow>(&mut *conn)
                        .await
                        .optional()
                        .map_err(from_diesel)?;
                    row.map(SenderNumber::try_from).transpose()
                }

                async fn senders_of_business_account(
                    &self,
                    waba_id: &NetworkRef,
                ) -> Result<Vec<SenderNumber>, StoreError> {
                    let mut conn = self.read().await?;
                    let rows = senders::table
                        .filter(senders::waba_id.eq(waba_id.as_str()))
                        .order((senders::created_at, senders::id))
                        .select(SenderRow::as_select())
                        .load::<SenderRow>(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    rows.into_iter().map(SenderNumber::try_from).collect()
                }

                async fn sender_qualities(
                    &self,
                    organization: &OrganizationId,
                ) -> Result<Vec<(SenderId, herald_domain::notice::SenderQuality)>, StoreError> {
                    let mut conn = self.read().await?;
                    let rows = senders::table
                        .filter(senders::organization_id.eq(organization.to_string()))
                        .filter(senders::quality_updated_at.is_not_null())
                        .order(senders::id)
                        .select((
                            senders::id,
                            senders::quality_rating,
                            senders::messaging_limit,
                            senders::quality_updated_at,
                        ))
                        .load::<(
                            String,
                            Option<String>,
                            Option<String>,
                            Option<chrono::DateTime<chrono::Utc>>,
                        )>(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    rows.into_iter()
                        .map(
                            |(id, quality_rating, messaging_limit, quality_updated_at)| {
                                let id = SenderId::parse(&id)
                                    .map_err(|e| $crate::error::corrupt("sender id", e))?;
                                Ok((
                                    id,
                                    herald_domain::notice::SenderQuality {
                                        quality_rating,
                                        messaging_limit,
                                        quality_updated_at,
                                    },
                                ))
                            },
                        )
                        .collect()
                }

                async fn record_webhook_fields_missing(
                    &self,
                    organization: &OrganizationId,
                    waba_id: &NetworkRef,
                    missing: &[String],
                ) -> Result<(), StoreError> {
                    let missing = serde_json::to_string(missing)
                        .map_err(|e| StoreError::Unknown(anyhow::anyhow!("webhook fields missing: {e}")))?;
                    let mut conn = self.write().await?;
                    diesel::update(
                        senders::table
                            .filter(senders::organization_id.eq(organization.to_string()))
                            .filter(senders::waba_id.eq(waba_id.as_str())),
                    )
                    .set(senders::webhook_fields_missing.eq(Some(missing)))
                    .execute(&mut *conn)
                    .await
                    .map_err(from_diesel)?;
                    Ok(())
                }

                async fn webhook_fields_missing(
                    &self,
                    organization: &OrganizationId,
                ) -> Result<Vec<(SenderId, Vec<String>)>, StoreError> {
                    let mut conn = self.read().await?;
                    let rows = senders::table
                        .filter(senders::organization_id.eq(organization.to_string()))
                        .filter(senders::webhook_fields_missing.is_not_null())
                        .order(senders::id)
                        .select((senders::id, senders::webhook_fields_missing))
                        .load::<(String, Option<String>)>(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    rows.into_iter()
                        .map(|(id, missing)| {
                            let id =
                                SenderId::parse(&id).map_err(|e| $crate::error::corrupt("sender id", e))?;
                            let missing: Vec<String> =
                                serde_json::from_str(missing.as_deref().unwrap_or("[]"))
                                    .map_err(|e| $crate::error::corrupt("webhook fields missing", e))?;
                            Ok((id, missing))
                        })
                        .collect()
                }

                async fn replace_sealed_access_token(
                    &self,
                    organization: &OrganizationId,
                    id: &SenderId,
                    expected: &SealedSecret,
                    new: &SealedSecret,
                ) -> Result<bool, StoreError> {
                    let mut conn = self.write().await?;
                    // The column keeps base64 text (see `SenderRow`); the standard encoding is canonical, so
                    // comparing the texts compares the bytes.
                    let changed = diesel::update(
                        senders::table
                            .find(id.to_string())
                            .filter(senders::organization_id.eq(organization.to_string()))
                            .filter(senders::access_token_ciphertext.eq(sealed_text(expected))),
                    )
                    .set(senders::access_token_ciphertext.eq(Some(sealed_text(new))))
                    .execute(&mut *conn)
                    .await
                    .map_err(from_diesel)?;
                    Ok(changed == 1)
                }

                async fn create_api_key(&self, key: &ApiKeyRecord) -> Result<(), StoreError> {
                    let row = ApiKeyRow::from(key);
                    write_tx!(self, |conn| {
                        if !organization_exists(conn, &row.organization_id).await? {
                            return Err(StoreError::NotFound.into());
                        }
                        diesel::insert_into(api_keys::table)
                            .values((
                                api_keys::id.eq(&row.id),
                                api_keys::organization_id.eq(&row.organization_id),
                                api_keys::name.eq(&row.name),
                                api_keys::prefix.eq(&row.prefix),
                                api_keys::digest.eq(&row.digest),
                                api_keys::status.eq(&row.status),
                                api_keys::created_at.eq(row.created_at),
                                api_keys::last_used_at.eq(row.last_used_at),
                                api_keys::disabled_at.eq(row.disabled_at),
                            ))
                            .execute(conn)
                            .await?;
                        Ok(())
                    })
                    .map_err(TxError::into_store)
                }

                async fn api_keys(
                    &self,
                    organization: &OrganizationId,
                ) -> Result<Vec<ApiKeyRecord>, StoreError> {
                    let mut conn = self.read().await?;
                    let rows = api_keys::table
                        .filter(api_keys::organization_id.eq(organization.to_string()))
                        .order((api_keys::created_at, api_keys::id))
                        .select(ApiKeyRow::as_select())
                        .load::<ApiKeyRow>(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    convert(rows)
                }

                async fn api_key(&self, id: &ApiKeyId) -> Result<Option<ApiKeyRecord>, StoreError> {
                    let mut conn = self.read().await?;
                    let row = api_keys::table
                        .find(id.to_string())
                        .select(ApiKeyRow::as_select())
                        .first::<ApiKeyRow>(&mut *conn)
                        .await
                        .optional()
                        .map_err(from_diesel)?;
                    row.map(ApiKeyRecord::try_from).transpose()
                }

                async fn disable_api_key(
                    &self,
                    id: &ApiKeyId,
                    at: Timestamp,
                ) -> Result<ApiKeyRecord, StoreError> {
                    let id = id.to_string();
                    let row = write_tx!(self, |conn| {
                        // Only an active key changes, so disabling twice keeps the first `disabled_at`.
                        diesel::update(
                            api_keys::table
                                .find(&id)
                                .filter(api_keys::status.eq(ApiKeyStatus::Active.as_str())),
                        )
                        .set((
                            api_keys::status.eq(ApiKeyStatus::Disabled.as_str()),
                            api_keys::disabled_at.eq(Some(at)),
                        ))
                        .execute(conn)
                        .await?;
                        Ok(api_keys::table
                            .find(&id)
                            .select(ApiKeyRow::as_select())
                            .first::<ApiKeyRow>(conn)
                            .await?)
                    })
                    .map_err(TxError::into_store)?;
                    ApiKeyRecord::try_from(row)
                }

                async fn find_credential(
                    &self,
                    digest: &ApiKeyDigest,
                ) -> Result<Option<Credential>, StoreError> {
                    let mut conn = self.read().await?;
                    let found = api_keys::table
                        .inner_join(organizations::table.inner_join(plans::table))
                        .filter(api_keys::digest.eq(digest.to_hex()))
                        .select((
                            ApiKeyRow::as_select(),
                            OrganizationRow::as_select(),
                            PlanRow::as_select(),
                        ))
                        .first::<(ApiKeyRow, OrganizationRow, PlanRow)>(&mut *conn)
                        .await
                        .optional()
                        .map_err(from_diesel)?;
                    found
                        .map(|(key, organization, plan)| {
                            Ok(Credential {
                                key: key.try_into()?,
                                organization: organization.try_into()?,
                                plan: plan.try_into()?,
                            })
                        })
                        .transpose()
                }

                async fn touch_api_key(&self, id: &ApiKeyId, at: Timestamp) -> Result<(), StoreError> {
                    let mut conn = self.write().await?;
                    diesel::update(api_keys::table.find(id.to_string()))
                        .set(api_keys::last_used_at.eq(Some(at)))
                        .execute(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    Ok(())
                }
            }

            /// Registers a sender (`shares`: as its organization's explicit share of a business account
            /// another organization owns), making it the default in the same transaction when it is one.
            async fn insert_sender(db: &Db, sender: &SenderNumber, shares: bool) -> Result<(), StoreError> {
                let row = SenderRow::new(sender)?;
                write_tx!(db, |conn| {
                    if !organization_exists(conn, &row.organization_id).await? {
                        return Err(StoreError::NotFound.into());
                    }
                    if row.is_default {
                        diesel::update(
                            senders::table
                                .filter(senders::organization_id.eq(&row.organization_id))
                                .filter(senders::is_default.eq(true)),
                        )
                        .set(senders::is_default.eq(false))
                        .execute(conn)
                        .await?;
                    }
                    diesel::insert_into(senders::table)
                        .values((
                            senders::id.eq(&row.id),
                            senders::organization_id.eq(&row.organization_id),
                            senders::number.eq(&row.number),
                            senders::phone_number_id.eq(&row.phone_number_id),
                            senders::waba_id.eq(&row.waba_id),
                            senders::access_token_env.eq(&row.access_token_env),
                            senders::access_token_ciphertext.eq(&row.access_token_ciphertext),
                            senders::is_default.eq(row.is_default),
                            senders::throughput_per_second.eq(row.throughput_per_second),
                            senders::created_at.eq(row.created_at),
                            senders::shares_waba.eq(shares),
                        ))
                        .execute(conn)
                        .await?;
                    Ok(())
                })
                .map_err(TxError::into_store)
            }
        }
    };
}

pub(crate) use accounts_port;

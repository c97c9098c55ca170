//! The `MediaCatalog` port: uploaded media, the uploads made to the network and inbound files.

macro_rules! media_port {
    () => {
        mod media {
            use super::super::schema::{inbound_messages, media_files, network_media_uploads};
            use super::super::{Conn, Db};
            use super::shared::lock_organization;
            use async_trait::async_trait;
            use diesel::prelude::*;
            use diesel_async::RunQueryDsl;
            use herald_domain::ids::{MediaId, OrganizationId, SenderId};
            use herald_domain::media::{InboundMedia, MediaFile, MediaRecord, NetworkUpload, Sha256Digest};
            use herald_domain::ports::{MediaCatalog, MediaInsert, StoreError};
            use herald_domain::time::Timestamp;
            use $crate::error::{TxError, from_diesel};
            use $crate::rows::{InboundMediaRow, MediaFileRow, parse_digest};

            // ---- Media: uploads, network uploads and inbound files. ----

            /// The bytes of the organization's uploads unexpired at `at`.
            async fn storage_used_in(
                conn: &mut Conn,
                organization: &str,
                at: Timestamp,
            ) -> Result<u64, diesel::result::Error> {
                // PostgreSQL sums BIGINT as NUMERIC: cast back, as both backends agree on.
                let used: i64 = media_files::table
                    .filter(media_files::organization_id.eq(organization))
                    .filter(media_files::expires_at.gt(at))
                    .select(diesel::dsl::sql::<diesel::sql_types::BigInt>(
                        "CAST(COALESCE(SUM(size), 0) AS BIGINT)",
                    ))
                    .first::<i64>(conn)
                    .await?;
                Ok(u64::try_from(used).unwrap_or(0))
            }

            #[async_trait]
            impl MediaCatalog for Db {
                async fn insert_media(
                    &self,
                    file: &MediaFile,
                    storage_limit: Option<u64>,
                ) -> Result<MediaInsert, StoreError> {
                    let row = MediaFileRow::new(file)?;
                    write_tx!(self, |conn| {
                        if let Some(limit) = storage_limit {
                            lock_organization(conn, &row.organization_id).await?;
                            let used = storage_used_in(conn, &row.organization_id, row.created_at).await?;
                            if used.saturating_add(file.size) > limit {
                                return Ok(MediaInsert::StorageFull { used });
                            }
                        }
                        diesel::insert_into(media_files::table)
                            .values((
                                media_files::id.eq(&row.id),
                                media_files::organization_id.eq(&row.organization_id),
                                media_files::kind.eq(&row.kind),
                                media_files::mime_type.eq(&row.mime_type),
                                media_files::size.eq(row.size),
                                media_files::sha256.eq(&row.sha256),
                                media_files::filename.eq(&row.filename),
                                media_files::created_at.eq(row.created_at),
                                media_files::expires_at.eq(row.expires_at),
                            ))
                            .execute(conn)
                            .await?;
                        Ok(MediaInsert::Stored)
                    })
                    .map_err(TxError::into_store)
                }

                async fn storage_used(
                    &self,
                    organization: &OrganizationId,
                    at: Timestamp,
                ) -> Result<u64, StoreError> {
                    let mut conn = self.read().await?;
                    storage_used_in(&mut *conn, &organization.to_string(), at)
                        .await
                        .map_err(from_diesel)
                }

                async fn media(
                    &self,
                    organization: &OrganizationId,
                    id: &MediaId,
                ) -> Result<Option<MediaRecord>, StoreError> {
                    let (org, id) = (organization.to_string(), id.to_string());
                    let mut conn = self.read().await?;
                    let upload = media_files::table
                        .find(&id)
                        .filter(media_files::organization_id.eq(&org))
                        .select(MediaFileRow::as_select())
                        .first::<MediaFileRow>(&mut *conn)
                        .await
                        .optional()
                        .map_err(from_diesel)?;
                    if let Some(row) = upload {
                        return Ok(Some(MediaRecord::Uploaded(MediaFile::try_from(row)?)));
                    }
                    let inbound = inbound_messages::table
                        .filter(inbound_messages::organization_id.eq(&org))
                        .filter(inbound_messages::media_id.eq(&id))
                        .select(InboundMediaRow::as_select())
                        .first::<InboundMediaRow>(&mut *conn)
                        .await
                        .optional()
                        .map_err(from_diesel)?;
                    inbound
                        .map(|row| InboundMedia::try_from(row).map(MediaRecord::Inbound))
                        .transpose()
                }

                async fn uploads(
                    &self,
                    organization: &OrganizationId,
                    ids: &[MediaId],
                ) -> Result<std::collections::HashMap<MediaId, MediaFile>, StoreError> {
                    let org = organization.to_string();
                    let mut found = std::collections::HashMap::with_capacity(ids.len());
                    if ids.is_empty() {
                        return Ok(found);
                    }
                    let mut conn = self.read().await?;
                    // Bounded statements: a broadcast's rows may name up to 10,000 files (and cards more).
                    for chunk in ids.chunks(500) {
                        let chunk: Vec<String> = chunk.iter().map(ToString::to_string).collect();
                        let rows = media_files::table
                            .filter(media_files::id.eq_any(&chunk))
                            .filter(media_files::organization_id.eq(&org))
                            .select(MediaFileRow::as_select())
                            .load::<MediaFileRow>(&mut *conn)
                            .await
                            .map_err(from_diesel)?;
                        for row in rows {
                            let file = MediaFile::try_from(row)?;
                            found.insert(file.id, file);
                        }
                    }
                    Ok(found)
                }

                async fn delete_media(
                    &self,
                    organization: &OrganizationId,
                    id: &MediaId,
                ) -> Result<bool, StoreError> {
                    let mut conn = self.write().await?;
                    let deleted = diesel::delete(
                        media_files::table
                            .find(id.to_string())
                            .filter(media_files::organization_id.eq(organization.to_string())),
                    )
                    .execute(&mut *conn)
                    .await
                    .map_err(from_diesel)?;
                    Ok(deleted > 0)
                }

                async fn digest_in_use(&self, sha256: &Sha256Digest) -> Result<bool, StoreError> {
                    // Across organizations by design: the bytes are shared by every upload of them.
                    let mut conn = self.read().await?;
                    let found = media_files::table
                        .filter(media_files::sha256.eq(sha256.to_hex()))
                        .select(media_files::id)
                        .first::<String>(&mut *conn)
                        .await
                        .optional()
                        .map_err(from_diesel)?;
                    Ok(found.is_some())
                }

                async fn expire_media(
                    &self,
                    now: Timestamp,
                    limit: u32,
                ) -> Result<Vec<Sha256Digest>, StoreError> {
                    // Across organizations by design: the cleanup job serves every organization.
                    let limit = i64::from(limit);
                    let expired = write_tx!(self, |conn| {
                        let expired = media_files::table
                            .filter(media_files::expires_at.le(now))
                            .order((media_files::expires_at, media_files::id))
                            .limit(limit)
                            .select((media_files::id, media_files::sha256))
                            .load::<(String, String)>(conn)
                            .await?;
                        let ids: Vec<&String> = expired.iter().map(|(id, _)| id).collect();
                        if !ids.is_empty() {
                            diesel::delete(media_files::table.filter(media_files::id.eq_any(&ids)))
                                .execute(conn)
                                .await?;
                        }
                        diesel::delete(
                            network_media_uploads::table.filter(network_media_uploads::reuse_until.le(now)),
                        )
                        .execute(conn)
                        .await?;
                        Ok(expired)
                    })
                    .map_err(TxError::into_store)?;
                    let mut digests = expired
                        .iter()
                        .map(|(_, hex)| parse_digest(hex))
                        .collect::<Result<Vec<_>, _>>()?;
                    digests.sort_unstable();
                    digests.dedup();
                    Ok(digests)
                }

                async fn network_upload(
                    &self,
                    organization: &OrganizationId,
                    sender: &SenderId,
                    sha256: &Sha256Digest,
                    now: Timestamp,
                ) -> Result<Option<String>, StoreError> {
                    let mut conn = self.read().await?;
                    network_media_uploads::table
                        .find((sender.to_string(), sha256.to_hex()))
                        .filter(network_media_uploads::organization_id.eq(organization.to_string()))
                        .filter(network_media_uploads::reuse_until.gt(now))
                        .select(network_media_uploads::network_media_id)
                        .first::<String>(&mut *conn)
                        .await
                        .optional()
                        .map_err(from_diesel)
                }

                async fn record_network_upload(&self, upload: &NetworkUpload) -> Result<(), StoreError> {
                    let org = upload.organization_id.to_string();
                    let sender = upload.sender_id.to_string();
                    let sha256 = upload.sha256.to_hex();
                    // Insert, else replace: written this way (not ON CONFLICT DO UPDATE) like the other
                    // upserts here, inside one write transaction.
                    write_tx!(self, |conn| {
                        let inserted = diesel::insert_into(network_media_uploads::table)
                            .values((
                                network_media_uploads::organization_id.eq(&org),
                                network_media_uploads::sender_id.eq(&sender),
                                network_media_uploads::sha256.eq(&sha256),
                                network_media_uploads::network_media_id.eq(&upload.network_media_id),
                                network_media_uploads::uploaded_at.eq(upload.uploaded_at),
                                network_media_uploads::reuse_until.eq(upload.reuse_until),
                            ))
                            .on_conflict_do_nothing()
                            .execute(conn)
                            .await?;
                        if inserted == 0 {
                            diesel::update(network_media_uploads::table.find((&sender, &sha256)))
                                .set((
                                    network_media_uploads::organization_id.eq(&org),
                                    network_media_uploads::network_media_id.eq(&upload.network_media_id),
                                    network_media_uploads::uploaded_at.eq(upload.uploaded_at),
                                    network_media_uploads::reuse_until.eq(upload.reuse_until),
                                ))
                                .execute(conn)
                                .await?;
                        }
                        Ok(())
                    })
                    .map_err(TxError::into_store)
                }
            }
        }
    };
}

pub(crate) use media_port;

//! The `OwnerStore` port: owner accounts and dashboard sessions, for the owner's dashboard.

macro_rules! owners_port {
    () => {
        mod owners {
            use super::super::schema::{dashboard_sessions, events, owners, webhook_deliveries};
            use super::super::{Conn, Db};
            use super::shared::organization_exists;
            use async_trait::async_trait;
            use chrono::{DateTime, Utc};
            use diesel::prelude::*;
            use diesel_async::RunQueryDsl;
            use herald_domain::Timestamp;
            use herald_domain::ids::{DeliveryId, EventId, MessageId, OrganizationId, WebhookId};
            use herald_domain::owner::{
                DashboardSession, OwnerAccount, OwnerEmail, SentDelivery, SentEvent, SessionDigest,
            };
            use herald_domain::ports::{OwnerStore, StoreError};
            use herald_domain::webhook::DeliveryStatus;
            use $crate::error::{TxError, corrupt, from_diesel};
            use $crate::rows::{OwnerRow, SessionRow};

            #[async_trait]
            impl OwnerStore for Db {
                async fn set_owner(&self, owner: &OwnerAccount) -> Result<(), StoreError> {
                    let organization = owner.organization_id.to_string();
                    let email = owner.email.as_str().to_owned();
                    let hash = owner.password_hash.as_str().to_owned();
                    let at = owner.password_set_at;
                    write_tx!(self, |conn| {
                        if !organization_exists(conn, &organization).await? {
                            return Err(StoreError::NotFound.into());
                        }
                        let taken = owners::table
                            .filter(owners::email.eq(&email))
                            .filter(owners::organization_id.ne(&organization))
                            .select(owners::organization_id)
                            .first::<String>(conn)
                            .await
                            .optional()?;
                        if taken.is_some() {
                            return Err(StoreError::Conflict(
                                "this email is already the owner login of another organization".to_owned(),
                            )
                            .into());
                        }
                        diesel::delete(owners::table.find(&organization))
                            .execute(conn)
                            .await?;
                        diesel::insert_into(owners::table)
                            .values((
                                owners::organization_id.eq(&organization),
                                owners::email.eq(&email),
                                owners::password_hash.eq(&hash),
                                owners::password_set_at.eq(at),
                            ))
                            .execute(conn)
                            .await?;
                        diesel::delete(
                            dashboard_sessions::table
                                .filter(dashboard_sessions::organization_id.eq(&organization)),
                        )
                        .execute(conn)
                        .await?;
                        Ok(())
                    })
                    .map_err(TxError::into_store)
                }

                async fn owner_by_email(
                    &self,
                    email: &OwnerEmail,
                ) -> Result<Option<OwnerAccount>, StoreError> {
                    let mut conn = self.read().await?;
                    let row = owners::table
                        .filter(owners::email.eq(email.as_str()))
                        .select(OwnerRow::as_select())
                        .first::<OwnerRow>(&mut *conn)
                        .await
                        .optional()
                        .map_err(from_diesel)?;
                    row.map(OwnerAccount::try_from).transpose()
                }

                async fn create_session(&self, session: &DashboardSession) -> Result<(), StoreError> {
                    let organization = session.organization_id.to_string();
                    let digest = session.digest.to_hex();
                    write_tx!(self, |conn| {
                        if !organization_exists(conn, &organization).await? {
                            return Err(StoreError::NotFound.into());
                        }
                        diesel::insert_into(dashboard_sessions::table)
                            .values((
                                dashboard_sessions::digest.eq(&digest),
                                dashboard_sessions::organization_id.eq(&organization),
                                dashboard_sessions::email.eq(session.email.as_str()),
                                dashboard_sessions::csrf_token.eq(&session.csrf_token),
                                dashboard_sessions::created_at.eq(session.created_at),
                                dashboard_sessions::last_seen_at.eq(session.last_seen_at),
                                dashboard_sessions::expires_at.eq(session.expires_at),
                            ))
                            .execute(conn)
                            .await?;
                        Ok(())
                    })
                    .map_err(TxError::into_store)
                }

                async fn session(
                    &self,
                    digest: &SessionDigest,
                ) -> Result<Option<DashboardSession>, StoreError> {
                    let mut conn = self.read().await?;
                    let row = dashboard_sessions::table
                        .find(digest.to_hex())
                        .select(SessionRow::as_select())
                        .first::<SessionRow>(&mut *conn)
                        .await
                        .optional()
                        .map_err(from_diesel)?;
                    row.map(DashboardSession::try_from).transpose()
                }

                async fn touch_session(
                    &self,
                    digest: &SessionDigest,
                    at: Timestamp,
                ) -> Result<(), StoreError> {
                    let digest = digest.to_hex();
                    write_tx!(self, |conn| {
                        diesel::update(dashboard_sessions::table.find(&digest))
                            .set(dashboard_sessions::last_seen_at.eq(at))
                            .execute(conn)
                            .await?;
                        Ok(())
                    })
                    .map_err(TxError::into_store)
                }

                async fn delete_session(&self, digest: &SessionDigest) -> Result<(), StoreError> {
                    let digest = digest.to_hex();
                    write_tx!(self, |conn| {
                        diesel::delete(dashboard_sessions::table.find(&digest))
                            .execute(conn)
                            .await?;
                        Ok(())
                    })
                    .map_err(TxError::into_store)
                }

                async fn delete_expired_sessions(
                    &self,
                    idle_before: Timestamp,
                    now: Timestamp,
                ) -> Result<u64, StoreError> {
                    let deleted = write_tx!(self, |conn| {
                        let n = diesel::delete(
                            dashboard_sessions::table.filter(
                                dashboard_sessions::last_seen_at
                                    .lt(idle_before)
                                    .or(dashboard_sessions::expires_at.le(now)),
                            ),
                        )
                        .execute(conn)
                        .await?;
                        Ok(n)
                    })
                    .map_err(TxError::into_store)?;
                    Ok(u64::try_from(deleted).unwrap_or(0))
                }

                async fn sent_events(
                    &self,
                    organization: &OrganizationId,
                    message: &MessageId,
                ) -> Result<Vec<SentEvent>, StoreError> {
                    let mut conn = self.read().await?;
                    let organization = organization.to_string();
                    let rows = events::table
                        .filter(events::organization_id.eq(&organization))
                        .filter(events::message_id.eq(message.to_string()))
                        .order(events::sequence)
                        .select((
                            events::id,
                            events::event_type,
                            events::sequence,
                            events::occurred_at,
                        ))
                        .load::<(String, String, i32, DateTime<Utc>)>(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    let ids: Vec<&String> = rows.iter().map(|r| &r.0).collect();
                    let deliveries = webhook_deliveries::table
                        .filter(webhook_deliveries::organization_id.eq(&organization))
                        .filter(webhook_deliveries::event_id.eq_any(ids))
                        .order(webhook_deliveries::id)
                        .select((
                            webhook_deliveries::id,
                            webhook_deliveries::event_id,
                            webhook_deliveries::endpoint_id,
                            webhook_deliveries::status,
                            webhook_deliveries::attempts,
                        ))
                        .load::<(String, String, String, String, i32)>(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    let mut out = Vec::with_capacity(rows.len());
                    for (id, event_type, sequence, occurred_at) in rows {
                        let mut sent = Vec::new();
                        for (delivery_id, event_id, endpoint_id, status, attempts) in &deliveries {
                            if event_id != &id {
                                continue;
                            }
                            sent.push(SentDelivery {
                                delivery_id: delivery_id
                                    .parse::<DeliveryId>()
                                    .map_err(|e| corrupt("delivery id", e))?,
                                endpoint_id: endpoint_id
                                    .parse::<WebhookId>()
                                    .map_err(|e| corrupt("endpoint id", e))?,
                                status: DeliveryStatus::parse(status)
                                    .map_err(|e| corrupt("delivery status", e))?,
                                attempts: u32::try_from(*attempts).unwrap_or(0),
                            });
                        }
                        out.push(SentEvent {
                            event_id: id.parse::<EventId>().map_err(|e| corrupt("event id", e))?,
                            event_type: $crate::rows::parse_event_type(&event_type)?,
                            sequence: u32::try_from(sequence).map_err(|e| corrupt("event sequence", e))?,
                            occurred_at,
                            deliveries: sent,
                        });
                    }
                    Ok(out)
                }
            }
        }
    };
}

pub(crate) use owners_port;

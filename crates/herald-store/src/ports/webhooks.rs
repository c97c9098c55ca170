//! The `WebhookStore` port: customer webhook endpoints and the deliveries of their events.

macro_rules! webhooks_port {
    () => {
        mod webhooks {
            use super::super::schema::{events, webhook_deliveries, webhook_endpoints};
            use super::super::{Conn, Db};
            use super::deliveries::{
                claimed_delivery, record_attempt_in_tx, record_batch_health_in_tx,
                record_endpoint_health_in_tx, with_attempts,
            };
            use super::shared::{NewDelivery, convert, insert_delivery, insert_event_row, lock_organization};
            use async_trait::async_trait;
            use diesel::prelude::*;
            use diesel_async::RunQueryDsl;
            use herald_domain::customer_event::CustomerEventType;
            use herald_domain::dispatch::ClaimToken;
            use herald_domain::ids::{DeliveryId, OrganizationId, WebhookId};
            use herald_domain::organization::SealedSecret;
            use herald_domain::ports::StoreError;
            use herald_domain::ports::WebhookStore;
            use herald_domain::time::Timestamp;
            use herald_domain::webhook::{
                ClaimedDelivery, Delivery, DeliveryCompletion, DeliveryStatus, EndpointPatch, SecretSlot,
                TestEvent, WebhookEndpoint,
            };
            use $crate::error::{TxError, corrupt, from_diesel};
            use $crate::rows::{
                CustomerEventRow, DELIVERY_FAILED, DELIVERY_PENDING, DELIVERY_SKIPPED, DeliveryRow,
                WebhookEndpointRow,
            };

            /// The endpoint's id if it belongs to the organization, read inside a write transaction.
            async fn endpoint_exists(conn: &mut Conn, org: &str, id: &str) -> Result<bool, TxError> {
                let found = webhook_endpoints::table
                    .find(id)
                    .filter(webhook_endpoints::organization_id.eq(org))
                    .select(webhook_endpoints::id)
                    .first::<String>(conn)
                    .await
                    .optional()?;
                Ok(found.is_some())
            }

            #[async_trait]
            impl WebhookStore for Db {
                async fn create_endpoint(
                    &self,
                    endpoint: &WebhookEndpoint,
                    limit: u32,
                ) -> Result<bool, StoreError> {
                    let row = WebhookEndpointRow::from(endpoint);
                    let created = write_tx!(self, |conn| {
                        lock_organization(conn, &row.organization_id).await?;
                        let count: i64 = webhook_endpoints::table
                            .filter(webhook_endpoints::organization_id.eq(&row.organization_id))
                            .count()
                            .get_result(conn)
                            .await?;
                        if count >= i64::from(limit) {
                            return Ok(false);
                        }
                        diesel::insert_into(webhook_endpoints::table)
                            .values((
                                webhook_endpoints::id.eq(&row.id),
                                webhook_endpoints::organization_id.eq(&row.organization_id),
                                webhook_endpoints::url.eq(&row.url),
                                webhook_endpoints::sub_status.eq(row.sub_status),
                                webhook_endpoints::sub_failed.eq(row.sub_failed),
                                webhook_endpoints::sub_inbound.eq(row.sub_inbound),
                                webhook_endpoints::sub_template_status.eq(row.sub_template_status),
                                webhook_endpoints::sub_template_quality.eq(row.sub_template_quality),
                                webhook_endpoints::sub_template_category.eq(row.sub_template_category),
                                webhook_endpoints::sub_sender_quality.eq(row.sub_sender_quality),
                                webhook_endpoints::sub_account_update.eq(row.sub_account_update),
                                webhook_endpoints::sub_contact_preferences.eq(row.sub_contact_preferences),
                                webhook_endpoints::sub_broadcast_progress.eq(row.sub_broadcast_progress),
                                webhook_endpoints::sub_broadcast_completed.eq(row.sub_broadcast_completed),
                                webhook_endpoints::sub_contact_erased.eq(row.sub_contact_erased),
                                webhook_endpoints::description.eq(&row.description),
                                webhook_endpoints::enabled.eq(row.enabled),
                                webhook_endpoints::disabled_reason.eq(&row.disabled_reason),
                                webhook_endpoints::secret.eq(&row.secret),
                                webhook_endpoints::previous_secret.eq(&row.previous_secret),
                                webhook_endpoints::previous_secret_expires_at
                                    .eq(row.previous_secret_expires_at),
                                webhook_endpoints::failing_since.eq(row.failing_since),
                                webhook_endpoints::created_at.eq(row.created_at),
                                webhook_endpoints::updated_at.eq(row.updated_at),
                            ))
                            .execute(conn)
                            .await?;
                        Ok(true)
                    })
                    .map_err(TxError::into_store)?;
                    Ok(created)
                }

                async fn endpoints(
                    &self,
                    organization: &OrganizationId,
                ) -> Result<Vec<WebhookEndpoint>, StoreError> {
                    let mut conn = self.read().await?;
                    let rows = webhook_endpoints::table
                        .filter(webhook_endpoints::organization_id.eq(organization.to_string()))
                        .order((webhook_endpoints::created_at, webhook_endpoints::id))
                        .select(WebhookEndpointRow::as_select())
                        .load::<WebhookEndpointRow>(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    convert(rows)
                }

                async fn endpoint(
                    &self,
                    organization: &OrganizationId,
                    id: &WebhookId,
                ) -> Result<Option<WebhookEndpoint>, StoreError> {
                    let mut conn = self.read().await?;
                    let row = webhook_endpoints::table
                        .find(id.to_string())
                        .filter(webhook_endpoints::organization_id.eq(organization.to_string()))
                        .select(WebhookEndpointRow::as_select())
                        .first::<WebhookEndpointRow>(&mut *conn)
                        .await
                        .optional()
                        .map_err(from_diesel)?;
                    row.map(WebhookEndpoint::try_from).transpose()
                }

                async fn patch_endpoint(
                    &self,
                    organization: &OrganizationId,
                    id: &WebhookId,
                    patch: &EndpointPatch,
                    at: Timestamp,
                ) -> Result<(), StoreError> {
                    let (org, id) = (organization.to_string(), id.to_string());
                    write_tx!(self, |conn| {
                        let target = || {
                            webhook_endpoints::table
                                .find(&id)
                                .filter(webhook_endpoints::organization_id.eq(&org))
                        };
                        let changed = diesel::update(target())
                            .set(webhook_endpoints::updated_at.eq(at))
                            .execute(conn)
                            .await?;
                        if changed == 0 {
                            return Err(StoreError::NotFound.into());
                        }
                        if let Some(url) = &patch.url {
                            diesel::update(target())
                                .set(webhook_endpoints::url.eq(url.as_str()))
                                .execute(conn)
                                .await?;
                        }
                        if let Some(events) = patch.events {
                            diesel::update(target())
                                .set((
                                    webhook_endpoints::sub_status.eq(events.message_status),
                                    webhook_endpoints::sub_failed.eq(events.message_failed),
                                    webhook_endpoints::sub_inbound.eq(events.message_inbound),
                                    webhook_endpoints::sub_template_status.eq(events.template_status),
                                    webhook_endpoints::sub_template_quality.eq(events.template_quality),
                                    webhook_endpoints::sub_template_category.eq(events.template_category),
                                    webhook_endpoints::sub_sender_quality.eq(events.sender_quality),
                                    webhook_endpoints::sub_account_update.eq(events.account_update),
                                    webhook_endpoints::sub_contact_preferences.eq(events.contact_preferences),
                                    webhook_endpoints::sub_broadcast_progress.eq(events.broadcast_progress),
                                    webhook_endpoints::sub_broadcast_completed.eq(events.broadcast_completed),
                                    webhook_endpoints::sub_contact_erased.eq(events.contact_erased),
                                ))
                                .execute(conn)
                                .await?;
                        }
                        if let Some(description) = &patch.description {
                            diesel::update(target())
                                .set(webhook_endpoints::description.eq(description.as_deref()))
                                .execute(conn)
                                .await?;
                        }
                        if let Some(enabled) = patch.enabled {
                            if enabled {
                                // Re-enabling a disabled endpoint starts it afresh; an enabled one keeps its
                                // failing streak.
                                diesel::update(target().filter(webhook_endpoints::enabled.eq(false)))
                                    .set((
                                        webhook_endpoints::disabled_reason.eq(None::<String>),
                                        webhook_endpoints::failing_since.eq(None::<Timestamp>),
                                    ))
                                    .execute(conn)
                                    .await?;
                            }
                            diesel::update(target())
                                .set(webhook_endpoints::enabled.eq(enabled))
                                .execute(conn)
                                .await?;
                            if enabled {
                                // Its pending deliveries may be claimed again.
                                super::super::announce_webhooks(conn).await?;
                            }
                        }
                        Ok(())
                    })
                    .map_err(TxError::into_store)?;
                    Ok(())
                }

                async fn rotate_endpoint_secret(
                    &self,
                    organization: &OrganizationId,
                    id: &WebhookId,
                    secret: &SealedSecret,
                    previous_until: Timestamp,
                    at: Timestamp,
                ) -> Result<(), StoreError> {
                    let mut conn = self.write().await?;
                    let changed = diesel::update(
                        webhook_endpoints::table
                            .find(id.to_string())
                            .filter(webhook_endpoints::organization_id.eq(organization.to_string())),
                    )
                    .set((
                        webhook_endpoints::previous_secret.eq(webhook_endpoints::secret.nullable()),
                        webhook_endpoints::previous_secret_expires_at.eq(Some(previous_until)),
                        webhook_endpoints::secret.eq(secret.as_bytes()),
                        webhook_endpoints::updated_at.eq(at),
                    ))
                    .execute(&mut *conn)
                    .await
                    .map_err(from_diesel)?;
                    if changed == 0 {
                        return Err(StoreError::NotFound);
                    }
                    Ok(())
                }

                async fn replace_endpoint_secret(
                    &self,
                    organization: &OrganizationId,
                    id: &WebhookId,
                    which: SecretSlot,
                    expected: &SealedSecret,
                    new: &SealedSecret,
                ) -> Result<bool, StoreError> {
                    let mut conn = self.write().await?;
                    let endpoint = webhook_endpoints::table
                        .find(id.to_string())
                        .filter(webhook_endpoints::organization_id.eq(organization.to_string()));
                    let changed = match which {
                        SecretSlot::Current => {
                            diesel::update(endpoint.filter(webhook_endpoints::secret.eq(expected.as_bytes())))
                                .set(webhook_endpoints::secret.eq(new.as_bytes()))
                                .execute(&mut *conn)
                                .await
                        }
                        SecretSlot::Previous => {
                            diesel::update(
                                endpoint.filter(webhook_endpoints::previous_secret.eq(expected.as_bytes())),
                            )
                            .set(webhook_endpoints::previous_secret.eq(Some(new.as_bytes())))
                            .execute(&mut *conn)
                            .await
                        }
                    }
                    .map_err(from_diesel)?;
                    Ok(changed == 1)
                }

                async fn delete_endpoint(
                    &self,
                    organization: &OrganizationId,
                    id: &WebhookId,
                ) -> Result<(), StoreError> {
                    let mut conn = self.write().await?;
                    // Its deliveries and their attempts go with it (ON DELETE CASCADE).
                    let deleted = diesel::delete(
                        webhook_endpoints::table
                            .find(id.to_string())
                            .filter(webhook_endpoints::organization_id.eq(organization.to_string())),
                    )
                    .execute(&mut *conn)
                    .await
                    .map_err(from_diesel)?;
                    if deleted == 0 {
                        return Err(StoreError::NotFound);
                    }
                    Ok(())
                }

                async fn record_test_event(
                    &self,
                    organization: &OrganizationId,
                    endpoint: &WebhookId,
                    test: &TestEvent,
                    max_pending: u32,
                ) -> Result<bool, StoreError> {
                    let org = organization.to_string();
                    let endpoint = endpoint.to_string();
                    let at = test.at;
                    let event = CustomerEventRow {
                        id: test.event_id.to_string(),
                        organization_id: org.clone(),
                        event_type: CustomerEventType::WebhookTest.as_str().to_owned(),
                        message_id: None,
                        sequence: 1,
                        payload: test.payload.clone(),
                        occurred_at: at,
                        created_at: at,
                        trace_context: None,
                        dedupe_key: None,
                    };
                    let recorded = write_tx!(self, |conn| {
                        // The endpoint's row is the lock concurrent tests take in turn (PostgreSQL; SQLite's
                        // single writer serializes them anyway), so the cap holds under a burst.
                        let found = for_update!(
                            webhook_endpoints::table
                                .find(&endpoint)
                                .filter(webhook_endpoints::organization_id.eq(&org))
                                .select(webhook_endpoints::id)
                        )
                        .first::<String>(conn)
                        .await
                        .optional()?;
                        if found.is_none() {
                            return Err(StoreError::NotFound.into());
                        }
                        let pending: i64 = webhook_deliveries::table
                            .filter(webhook_deliveries::endpoint_id.eq(&endpoint))
                            .filter(webhook_deliveries::event_type.eq(&event.event_type))
                            .filter(webhook_deliveries::status.eq(DELIVERY_PENDING))
                            .count()
                            .get_result(conn)
                            .await?;
                        if pending >= i64::from(max_pending) {
                            return Ok(false);
                        }
                        insert_event_row(conn, &event).await?;
                        insert_delivery(
                            conn,
                            &NewDelivery {
                                id: test.delivery_id.to_string(),
                                organization_id: &org,
                                endpoint_id: &endpoint,
                                event_id: &event.id,
                                event_type: &event.event_type,
                                status: DELIVERY_PENDING,
                                next_attempt_at: Some(at),
                                at,
                            },
                        )
                        .await?;
                        super::super::announce_webhooks(conn).await?;
                        Ok(true)
                    })
                    .map_err(TxError::into_store)?;
                    Ok(recorded)
                }

                async fn deliveries(
                    &self,
                    organization: &OrganizationId,
                    endpoint: &WebhookId,
                    status: Option<DeliveryStatus>,
                    before: Option<DeliveryId>,
                    limit: u32,
                ) -> Result<Vec<Delivery>, StoreError> {
                    let mut select = webhook_deliveries::table
                        .filter(webhook_deliveries::organization_id.eq(organization.to_string()))
                        .filter(webhook_deliveries::endpoint_id.eq(endpoint.to_string()))
                        .into_boxed();
                    if let Some(status) = status {
                        select = select.filter(webhook_deliveries::status.eq(status.as_str()));
                    }
                    if let Some(cursor) = before {
                        select = select.filter(webhook_deliveries::id.lt(cursor.to_string()));
                    }
                    let mut conn = self.read().await?;
                    let rows = select
                        .order(webhook_deliveries::id.desc())
                        .limit(i64::from(limit))
                        .select(DeliveryRow::as_select())
                        .load::<DeliveryRow>(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    with_attempts(&mut *conn, rows)
                        .await
                        .map_err(TxError::into_store)
                }

                async fn redeliver(
                    &self,
                    organization: &OrganizationId,
                    endpoint: &WebhookId,
                    delivery: &DeliveryId,
                    at: Timestamp,
                ) -> Result<(), StoreError> {
                    let (delivery, organization, endpoint) = (
                        delivery.to_string(),
                        organization.to_string(),
                        endpoint.to_string(),
                    );
                    // A claim in flight is dropped with the rest: its completion then finds its token gone
                    // and writes nothing, and the next claim attempts the delivery again.
                    write_tx!(self, |conn| {
                        let changed = diesel::update(
                            webhook_deliveries::table
                                .find(&delivery)
                                .filter(webhook_deliveries::organization_id.eq(&organization))
                                .filter(webhook_deliveries::endpoint_id.eq(&endpoint)),
                        )
                        .set((
                            webhook_deliveries::status.eq(DELIVERY_PENDING),
                            webhook_deliveries::next_attempt_at.eq(Some(at)),
                            webhook_deliveries::claim_token.eq(None::<String>),
                            webhook_deliveries::lease_until.eq(None::<Timestamp>),
                            webhook_deliveries::updated_at.eq(at),
                        ))
                        .execute(conn)
                        .await?;
                        if changed == 0 {
                            return Err(StoreError::NotFound.into());
                        }
                        super::super::announce_webhooks(conn).await
                    })
                    .map_err(TxError::into_store)
                }

                async fn recover(
                    &self,
                    organization: &OrganizationId,
                    endpoint: &WebhookId,
                    since: Timestamp,
                    at: Timestamp,
                ) -> Result<u64, StoreError> {
                    let org = organization.to_string();
                    let endpoint = endpoint.to_string();
                    let requeued = write_tx!(self, |conn| {
                        if !endpoint_exists(conn, &org, &endpoint).await? {
                            return Err(StoreError::NotFound.into());
                        }
                        let changed = diesel::update(
                            webhook_deliveries::table
                                .filter(webhook_deliveries::organization_id.eq(&org))
                                .filter(webhook_deliveries::endpoint_id.eq(&endpoint))
                                .filter(
                                    webhook_deliveries::status.eq_any([DELIVERY_FAILED, DELIVERY_SKIPPED]),
                                )
                                .filter(webhook_deliveries::created_at.ge(since)),
                        )
                        .set((
                            webhook_deliveries::status.eq(DELIVERY_PENDING),
                            webhook_deliveries::next_attempt_at.eq(Some(at)),
                            webhook_deliveries::updated_at.eq(at),
                        ))
                        .execute(conn)
                        .await?;
                        if changed > 0 {
                            super::super::announce_webhooks(conn).await?;
                        }
                        Ok(changed)
                    })
                    .map_err(TxError::into_store)?;
                    u64::try_from(requeued).map_err(|e| corrupt("requeued count", e))
                }

                async fn claim_deliveries(
                    &self,
                    token: &ClaimToken,
                    now: Timestamp,
                    lease_until: Timestamp,
                    limit: u32,
                    per_endpoint_cap: u32,
                ) -> Result<Vec<ClaimedDelivery>, StoreError> {
                    if limit == 0 || per_endpoint_cap == 0 {
                        return Ok(Vec::new());
                    }
                    let token = token.as_string();
                    let rows = write_tx!(self, |conn| {
                        let ids = super::super::claim_due_deliveries(
                            conn,
                            &token,
                            now,
                            lease_until,
                            i64::from(limit),
                            i64::from(per_endpoint_cap),
                        )
                        .await?;
                        if ids.is_empty() {
                            return Ok(Vec::new());
                        }
                        // One read for the batch: each delivery with its endpoint and its event's body.
                        let rows = webhook_deliveries::table
                            .inner_join(webhook_endpoints::table)
                            .inner_join(events::table)
                            .filter(webhook_deliveries::id.eq_any(&ids))
                            .order((webhook_deliveries::next_attempt_at, webhook_deliveries::id))
                            .select((
                                DeliveryRow::as_select(),
                                WebhookEndpointRow::as_select(),
                                events::payload,
                                events::trace_context,
                            ))
                            .load::<(DeliveryRow, WebhookEndpointRow, String, Option<String>)>(conn)
                            .await?;
                        Ok(rows)
                    })
                    .map_err(TxError::into_store)?;
                    rows.into_iter()
                        .map(|(delivery, endpoint, payload, trace)| {
                            claimed_delivery(delivery, endpoint, payload, trace.as_deref())
                        })
                        .collect()
                }

                async fn complete_delivery(
                    &self,
                    completion: &DeliveryCompletion,
                ) -> Result<bool, StoreError> {
                    write_tx!(self, |conn| {
                        let Some(endpoint) = record_attempt_in_tx(conn, completion).await? else {
                            return Ok(false);
                        };
                        record_endpoint_health_in_tx(conn, &endpoint, completion).await?;
                        Ok(true)
                    })
                    .map_err(TxError::into_store)
                }

                async fn complete_deliveries(
                    &self,
                    completions: &[DeliveryCompletion],
                ) -> Result<Vec<bool>, StoreError> {
                    if completions.is_empty() {
                        return Ok(Vec::new());
                    }
                    if let Some(held) = super::super::record_successes_at_once(self, completions).await? {
                        return Ok(held);
                    }
                    // One transaction for the whole round: one commit instead of one per attempt.
                    write_tx!(self, |conn| {
                        let recorded = match super::super::record_attempts_together(conn, completions).await?
                        {
                            Some(recorded) => recorded,
                            None => {
                                let mut recorded = Vec::with_capacity(completions.len());
                                for completion in completions {
                                    recorded.push(record_attempt_in_tx(conn, completion).await?);
                                }
                                recorded
                            }
                        };
                        let mut held = Vec::with_capacity(completions.len());
                        let mut endpoints = Vec::with_capacity(completions.len());
                        for (endpoint, completion) in recorded.into_iter().zip(completions) {
                            held.push(endpoint.is_some());
                            endpoints.extend(endpoint.map(|endpoint| (endpoint, completion)));
                        }
                        // Endpoints last (their rows are the ones two recordings share).
                        record_batch_health_in_tx(conn, endpoints).await?;
                        Ok(held)
                    })
                    .map_err(TxError::into_store)
                }

                async fn count_pending_deliveries(&self) -> Result<u64, StoreError> {
                    let mut conn = self.read().await?;
                    let count: i64 = webhook_deliveries::table
                        .filter(webhook_deliveries::status.eq(DELIVERY_PENDING))
                        .count()
                        .get_result(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    Ok(u64::try_from(count).unwrap_or_default())
                }
            }
        }
    };
}

pub(crate) use webhooks_port;

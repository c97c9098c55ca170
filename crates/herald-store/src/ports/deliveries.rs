//! Webhook deliveries as the `WebhookStore` port writes and reads them: attempts, claims, endpoint
//! health.

macro_rules! deliveries_port {
    () => {
        mod deliveries {
            use super::super::Conn;
            use super::super::schema::{webhook_attempts, webhook_deliveries, webhook_endpoints};
            use diesel::prelude::*;
            use diesel_async::RunQueryDsl;
            use herald_domain::ports::StoreError;
            use herald_domain::time::Timestamp;
            use herald_domain::trace::TraceContext;
            use herald_domain::webhook::{ClaimedDelivery, Delivery, DeliveryAttempt, DeliveryCompletion};
            use $crate::error::{TxError, corrupt};
            use $crate::rows::{AttemptRow, DELIVERY_PENDING, DeliveryRow, WebhookEndpointRow, to_i32};

            /// The deliveries of `rows` with their attempts, in the rows' order.
            pub(super) async fn with_attempts(
                conn: &mut Conn,
                rows: Vec<DeliveryRow>,
            ) -> Result<Vec<Delivery>, TxError> {
                let ids: Vec<&str> = rows.iter().map(|row| row.id.as_str()).collect();
                let attempts = webhook_attempts::table
                    .filter(webhook_attempts::delivery_id.eq_any(&ids))
                    .order((webhook_attempts::delivery_id, webhook_attempts::number))
                    .select(AttemptRow::as_select())
                    .load::<AttemptRow>(conn)
                    .await?;
                let mut by_delivery: std::collections::HashMap<String, Vec<DeliveryAttempt>> =
                    std::collections::HashMap::new();
                for attempt in attempts {
                    let key = attempt.delivery_id.clone();
                    by_delivery
                        .entry(key)
                        .or_default()
                        .push(DeliveryAttempt::try_from(attempt)?);
                }
                Ok(rows
                    .into_iter()
                    .map(|row| {
                        let attempts = by_delivery.remove(&row.id).unwrap_or_default();
                        row.into_delivery(attempts)
                    })
                    .collect::<Result<Vec<_>, _>>()?)
            }

            /// A claimed delivery as the dispatcher needs it.
            pub(super) fn claimed_delivery(
                delivery: DeliveryRow,
                endpoint: WebhookEndpointRow,
                payload: String,
                trace: Option<&str>,
            ) -> Result<ClaimedDelivery, StoreError> {
                let attempt_number = delivery.next_attempt_number()?;
                let delivery = delivery.into_delivery(Vec::new())?;
                Ok(ClaimedDelivery {
                    delivery_id: delivery.id,
                    organization_id: delivery.organization_id,
                    endpoint: endpoint.try_into()?,
                    event_id: delivery.event_id,
                    event_type: delivery.event_type,
                    payload,
                    attempt_number,
                    created_at: delivery.created_at,
                    trace: trace.and_then(TraceContext::parse),
                })
            }

            /// Records one delivery attempt and the delivery's new state inside the caller's transaction,
            /// answering its endpoint's id; `None`, with nothing written, when the delivery is no longer held
            /// by the completion's token.
            pub(super) async fn record_attempt_in_tx(
                conn: &mut Conn,
                completion: &DeliveryCompletion,
            ) -> Result<Option<String>, TxError> {
                let id = completion.delivery_id.to_string();
                let token = completion.token.as_string();
                let attempt = &completion.attempt;
                let number = to_i32("attempt number", attempt.number)?;
                let duration =
                    i64::try_from(attempt.duration_ms).map_err(|e| corrupt("attempt duration", e))?;
                // Only the claim that holds the delivery may record its attempt: one statement checks the
                // claim and writes the new state.
                let endpoint = $crate::cached::Cached(
                    diesel::update(
                        webhook_deliveries::table
                            .find(&id)
                            .filter(webhook_deliveries::claim_token.eq(&token))
                            .filter(webhook_deliveries::status.eq(DELIVERY_PENDING)),
                    )
                    .set((
                        webhook_deliveries::status.eq(completion.status.as_str()),
                        webhook_deliveries::attempts.eq(number),
                        webhook_deliveries::next_attempt_at.eq(completion.next_attempt_at),
                        webhook_deliveries::claim_token.eq(None::<String>),
                        webhook_deliveries::lease_until.eq(None::<Timestamp>),
                        webhook_deliveries::updated_at.eq(attempt.at),
                    ))
                    .returning(webhook_deliveries::endpoint_id),
                )
                .get_result::<String>(conn)
                .await
                .optional()?;
                let Some(endpoint) = endpoint else {
                    return Ok(None);
                };
                diesel::insert_into(webhook_attempts::table)
                    .values((
                        webhook_attempts::delivery_id.eq(&id),
                        webhook_attempts::number.eq(number),
                        webhook_attempts::at.eq(attempt.at),
                        webhook_attempts::status_code.eq(attempt.status_code.map(i32::from)),
                        webhook_attempts::response_prefix.eq(&attempt.response_prefix),
                        webhook_attempts::error_kind.eq(&attempt.error_kind),
                        webhook_attempts::duration_ms.eq(duration),
                    ))
                    .execute(conn)
                    .await?;
                Ok(Some(endpoint))
            }

            /// Writes the endpoint health an attempt implies (when its failures began; disabled when asked).
            pub(super) async fn record_endpoint_health_in_tx(
                conn: &mut Conn,
                endpoint: &str,
                completion: &DeliveryCompletion,
            ) -> Result<(), TxError> {
                let endpoint = webhook_endpoints::table.find(endpoint);
                match &completion.disable_reason {
                    Some(reason) => {
                        $crate::cached::Cached(diesel::update(endpoint).set((
                            webhook_endpoints::failing_since.eq(completion.failing_since),
                            webhook_endpoints::enabled.eq(false),
                            webhook_endpoints::disabled_reason.eq(Some(reason)),
                            webhook_endpoints::updated_at.eq(completion.attempt.at),
                        )))
                        .execute(conn)
                        .await?
                    }
                    // Written only when it changes: every success of a healthy endpoint would otherwise
                    // rewrite its row, and concurrent recordings for one endpoint would queue on that row's
                    // lock until each one's commit.
                    None => match completion.failing_since {
                        None => {
                            $crate::cached::Cached(
                                diesel::update(
                                    endpoint.filter(webhook_endpoints::failing_since.is_not_null()),
                                )
                                .set(webhook_endpoints::failing_since.eq(None::<Timestamp>)),
                            )
                            .execute(conn)
                            .await?
                        }
                        Some(since) => {
                            $crate::cached::Cached(
                                diesel::update(
                                    endpoint.filter(
                                        webhook_endpoints::failing_since
                                            .is_null()
                                            .or(webhook_endpoints::failing_since.ne(since)),
                                    ),
                                )
                                .set(webhook_endpoints::failing_since.eq(Some(since))),
                            )
                            .execute(conn)
                            .await?
                        }
                    },
                };
                Ok(())
            }

            /// Writes the endpoint health a batch of recorded attempts implies, `recorded` being each
            /// recorded attempt's endpoint in the batch's order. Applying an attempt's health only sets when
            /// its endpoint's failures began (or clears it), so for an endpoint no attempt of the batch
            /// disables, the last one decides and the others are skipped. When every endpoint's last attempt
            /// succeeded (a healthy round), the ones that were failing are locked in id order and cleared by
            /// one statement. Otherwise each endpoint is written in id order (a stable sort keeps
            /// one endpoint's attempts in theirs), so two recordings sharing endpoints lock them in one order
            /// and cannot deadlock.
            pub(super) async fn record_batch_health_in_tx(
                conn: &mut Conn,
                mut recorded: Vec<(String, &DeliveryCompletion)>,
            ) -> Result<(), TxError> {
                recorded.sort_by(|a, b| a.0.cmp(&b.0));
                let mut groups: Vec<&[(String, &DeliveryCompletion)]> =
                    recorded.chunk_by(|a, b| a.0 == b.0).collect();
                let healthy = |group: &&[(String, &DeliveryCompletion)]| {
                    group.iter().all(|(_, c)| c.disable_reason.is_none())
                        && group.last().is_some_and(|(_, c)| c.failing_since.is_none())
                };
                if !groups.is_empty() && groups.iter().all(healthy) {
                    let ids: Vec<&str> = groups
                        .iter()
                        .filter_map(|group| <[_]>::first(group).map(|(id, _)| id.as_str()))
                        .collect();
                    // Locked in id order first, as the per-endpoint path writes them: one `UPDATE … = ANY`
                    // locks its rows in whatever order it finds them.
                    let failing: Vec<String> = for_update!(
                        webhook_endpoints::table
                            .filter(webhook_endpoints::id.eq_any(ids))
                            .filter(webhook_endpoints::failing_since.is_not_null())
                            .order(webhook_endpoints::id)
                            .select(webhook_endpoints::id)
                    )
                    .load(conn)
                    .await?;
                    if !failing.is_empty() {
                        diesel::update(
                            webhook_endpoints::table.filter(webhook_endpoints::id.eq_any(&failing)),
                        )
                        .set(webhook_endpoints::failing_since.eq(None::<Timestamp>))
                        .execute(conn)
                        .await?;
                    }
                    return Ok(());
                }
                for group in &mut groups {
                    let disables = group.iter().any(|(_, c)| c.disable_reason.is_some());
                    if !disables && let Some((last, _)) = group.split_last() {
                        *group = std::slice::from_ref(last);
                    }
                    for (endpoint, completion) in group.iter() {
                        record_endpoint_health_in_tx(conn, endpoint, completion).await?;
                    }
                }
                Ok(())
            }
        }
    };
}

pub(crate) use deliveries_port;

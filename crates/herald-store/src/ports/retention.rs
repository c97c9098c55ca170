//! The `RetentionStore` port: removing rows older than their organization's plan's retention.
//!
//! Rows are found from the oldest by their ULID ids (`(organization_id, id)` indexes, a range scan
//! however large the table) and checked against their time column too, so a row whose id does not carry
//! its time is never removed early. Everything happens in one bounded transaction per call, so the
//! retention worker never holds locks (or SQLite's single writer) for long.

macro_rules! retention_port {
    () => {
        pub(super) mod retention {
            use super::super::schema::{
                broadcasts, events, inbound_messages, message_events, messages, network_callbacks,
                organizations, outbox, plans, webhook_attempts, webhook_deliveries,
            };
            use super::super::{Conn, Db};
            use async_trait::async_trait;
            use chrono::TimeDelta;
            use diesel::prelude::*;
            use diesel_async::RunQueryDsl;
            use herald_domain::ids::{EventId, InboundId, MessageId};
            use herald_domain::ports::{RetentionReport, RetentionStore, StoreError};
            use herald_domain::time::Timestamp;
            use $crate::error::TxError;
            use $crate::rows::{DELIVERY_PENDING, JOB_IN_FLIGHT, JOB_PENDING};

            /// The smallest ULID made at `t`: every id made before `t` sorts below it.
            fn first_ulid_at(t: Timestamp) -> ulid::Ulid {
                ulid::Ulid::from_parts(u64::try_from(t.timestamp_millis()).unwrap_or(0), 0)
            }

            fn count(n: usize) -> u64 {
                u64::try_from(n).unwrap_or(u64::MAX)
            }

            /// Removes the customer events of `ids` (messages or inbound messages) and their webhook
            /// deliveries with their attempts; answers (events, deliveries) removed.
            async fn remove_events(conn: &mut Conn, ids: &[String]) -> Result<(u64, u64), TxError> {
                let event_ids: Vec<String> = events::table
                    .filter(events::message_id.eq_any(ids))
                    .select(events::id)
                    .load(conn)
                    .await?;
                remove_event_ids(conn, &event_ids).await
            }

            /// Removes the customer events `event_ids` and their webhook deliveries with their attempts;
            /// answers (events, deliveries) removed.
            async fn remove_event_ids(conn: &mut Conn, event_ids: &[String]) -> Result<(u64, u64), TxError> {
                if event_ids.is_empty() {
                    return Ok((0, 0));
                }
                let delivery_ids: Vec<String> = webhook_deliveries::table
                    .filter(webhook_deliveries::event_id.eq_any(event_ids))
                    .select(webhook_deliveries::id)
                    .load(conn)
                    .await?;
                let mut deliveries = 0;
                if !delivery_ids.is_empty() {
                    diesel::delete(
                        webhook_attempts::table.filter(webhook_attempts::delivery_id.eq_any(&delivery_ids)),
                    )
                    .execute(conn)
                    .await?;
                    deliveries = diesel::delete(
                        webhook_deliveries::table.filter(webhook_deliveries::id.eq_any(&delivery_ids)),
                    )
                    .execute(conn)
                    .await?;
                }
                let removed = diesel::delete(events::table.filter(events::id.eq_any(event_ids)))
                    .execute(conn)
                    .await?;
                Ok((count(removed), count(deliveries)))
            }

            /// Up to `limit` of `organization`'s outbound messages created before `cutoff`, none in flight.
            async fn purge_messages(
                conn: &mut Conn,
                organization: &str,
                cutoff: Timestamp,
                limit: i64,
                report: &mut RetentionReport,
            ) -> Result<(), TxError> {
                let before = MessageId::from_ulid(first_ulid_at(cutoff)).to_string();
                // Never a message still being sent, nor one whose events are still being delivered; left
                // out of the batch itself, so that busy messages at the head (the oldest) cannot hold back
                // the ones behind them.
                let sending = outbox::table
                    .filter(outbox::message_id.eq(messages::id))
                    .filter(outbox::state.eq_any([JOB_PENDING, JOB_IN_FLIGHT]));
                let delivering = events::table
                    .inner_join(webhook_deliveries::table)
                    .filter(events::message_id.eq(messages::id.nullable()))
                    .filter(webhook_deliveries::status.eq(DELIVERY_PENDING));
                let ids: Vec<String> = messages::table
                    .filter(messages::organization_id.eq(organization))
                    .filter(messages::id.lt(&before))
                    .filter(messages::created_at.lt(cutoff))
                    .filter(diesel::dsl::not(diesel::dsl::exists(sending)))
                    .filter(diesel::dsl::not(diesel::dsl::exists(delivering)))
                    .order(messages::id)
                    .limit(limit)
                    .select(messages::id)
                    .load(conn)
                    .await?;
                if ids.is_empty() {
                    return Ok(());
                }
                let (customer_events, deliveries) = remove_events(conn, &ids).await?;
                report.customer_events += customer_events;
                report.deliveries += deliveries;
                report.status_events += count(
                    diesel::delete(message_events::table.filter(message_events::message_id.eq_any(&ids)))
                        .execute(conn)
                        .await?,
                );
                report.jobs += count(
                    diesel::delete(outbox::table.filter(outbox::message_id.eq_any(&ids)))
                        .execute(conn)
                        .await?,
                );
                report.messages += count(
                    diesel::delete(messages::table.filter(messages::id.eq_any(&ids)))
                        .execute(conn)
                        .await?,
                );
                Ok(())
            }

            /// Up to `limit` of `organization`'s inbound messages received before `cutoff`.
            async fn purge_inbound(
                conn: &mut Conn,
                organization: &str,
                cutoff: Timestamp,
                limit: i64,
                report: &mut RetentionReport,
            ) -> Result<(), TxError> {
                let before = InboundId::from_ulid(first_ulid_at(cutoff)).to_string();
                // Never one whose events are still being delivered, left out of the batch itself (see
                // `purge_messages`).
                let delivering = events::table
                    .inner_join(webhook_deliveries::table)
                    .filter(events::message_id.eq(inbound_messages::id.nullable()))
                    .filter(webhook_deliveries::status.eq(DELIVERY_PENDING));
                let ids: Vec<String> = inbound_messages::table
                    .filter(inbound_messages::organization_id.eq(organization))
                    .filter(inbound_messages::id.lt(&before))
                    .filter(inbound_messages::received_at.lt(cutoff))
                    .filter(diesel::dsl::not(diesel::dsl::exists(delivering)))
                    .order(inbound_messages::id)
                    .limit(limit)
                    .select(inbound_messages::id)
                    .load(conn)
                    .await?;
                if ids.is_empty() {
                    return Ok(());
                }
                let (customer_events, deliveries) = remove_events(conn, &ids).await?;
                report.customer_events += customer_events;
                report.deliveries += deliveries;
                report.inbound += count(
                    diesel::delete(inbound_messages::table.filter(inbound_messages::id.eq_any(&ids)))
                        .execute(conn)
                        .await?,
                );
                Ok(())
            }

            /// Up to `limit` of `organization`'s events that belong to no message (template, number and
            /// account news, webhook tests) made before `cutoff`, none still waiting for a delivery.
            async fn purge_account_events(
                conn: &mut Conn,
                organization: &str,
                cutoff: Timestamp,
                limit: i64,
                report: &mut RetentionReport,
            ) -> Result<(), TxError> {
                let before = EventId::from_ulid(first_ulid_at(cutoff)).to_string();
                let mut ids: Vec<String> = events::table
                    .filter(events::organization_id.eq(organization))
                    .filter(events::id.lt(&before))
                    .filter(events::created_at.lt(cutoff))
                    .filter(events::message_id.is_null())
                    .order(events::id)
                    .limit(limit)
                    .select(events::id)
                    .load(conn)
                    .await?;
                if ids.is_empty() {
                    return Ok(());
                }
                let waiting: Vec<String> = webhook_deliveries::table
                    .filter(webhook_deliveries::event_id.eq_any(&ids))
                    .filter(webhook_deliveries::status.eq(DELIVERY_PENDING))
                    .select(webhook_deliveries::event_id)
                    .load(conn)
                    .await?;
                ids.retain(|id| !waiting.contains(id));
                let (customer_events, deliveries) = remove_event_ids(conn, &ids).await?;
                report.account_events += customer_events;
                report.customer_events += customer_events;
                report.deliveries += deliveries;
                Ok(())
            }

            /// Up to `limit` broadcasts of the organization that ended before `cutoff` and whose messages are
            /// all gone (removed by this sweep or an earlier one): a broadcast outlives its last message.
            async fn purge_broadcasts(
                conn: &mut Conn,
                organization: &str,
                cutoff: Timestamp,
                limit: i64,
                report: &mut RetentionReport,
            ) -> Result<(), TxError> {
                let ended: Vec<String> = broadcasts::table
                    .filter(broadcasts::organization_id.eq(organization))
                    .filter(broadcasts::state.eq_any(["completed", "cancelled"]))
                    .filter(broadcasts::updated_at.lt(cutoff))
                    .order(broadcasts::id)
                    .limit(limit)
                    .select(broadcasts::id)
                    .load(conn)
                    .await?;
                if ended.is_empty() {
                    return Ok(());
                }
                let kept: Vec<Option<String>> = messages::table
                    .filter(messages::broadcast_id.eq_any(ended.iter().map(|id| Some(id.clone()))))
                    .select(messages::broadcast_id)
                    .distinct()
                    .load(conn)
                    .await?;
                let gone: Vec<&String> = ended
                    .iter()
                    .filter(|id| !kept.iter().any(|k| k.as_deref() == Some(id.as_str())))
                    .collect();
                if gone.is_empty() {
                    return Ok(());
                }
                let removed = diesel::delete(broadcasts::table.filter(broadcasts::id.eq_any(gone)))
                    .execute(conn)
                    .await?;
                report.broadcasts += count(removed);
                Ok(())
            }

            /// Up to `limit` stored callbacks received before `cutoff` and done with (processed or parked).
            async fn purge_callbacks(
                conn: &mut Conn,
                cutoff: Timestamp,
                limit: i64,
                report: &mut RetentionReport,
            ) -> Result<(), TxError> {
                let mut ids: Vec<String> = network_callbacks::table
                    .filter(network_callbacks::received_at.lt(cutoff))
                    .filter(network_callbacks::processed_at.is_not_null())
                    .order(network_callbacks::received_at)
                    .limit(limit)
                    .select(network_callbacks::id)
                    .load(conn)
                    .await?;
                let room = limit - i64::try_from(ids.len()).unwrap_or(limit);
                if room > 0 {
                    let parked: Vec<String> = network_callbacks::table
                        .filter(network_callbacks::parked_at.lt(cutoff))
                        .filter(network_callbacks::received_at.lt(cutoff))
                        .filter(network_callbacks::processed_at.is_null())
                        .order(network_callbacks::parked_at)
                        .limit(room)
                        .select(network_callbacks::id)
                        .load(conn)
                        .await?;
                    ids.extend(parked);
                }
                if ids.is_empty() {
                    return Ok(());
                }
                report.callbacks += count(
                    diesel::delete(network_callbacks::table.filter(network_callbacks::id.eq_any(&ids)))
                        .execute(conn)
                        .await?,
                );
                Ok(())
            }

            #[async_trait]
            impl RetentionStore for Db {
                async fn purge_expired(
                    &self,
                    now: Timestamp,
                    limit: u32,
                ) -> Result<RetentionReport, StoreError> {
                    let limit = i64::from(limit.max(1));
                    let cutoff = |days: i32| now - TimeDelta::days(i64::from(days.max(1)));
                    write_tx!(self, |conn| {
                        let organizations: Vec<(String, i32)> = organizations::table
                            .inner_join(plans::table)
                            .order(organizations::id)
                            .select((organizations::id, plans::retention_days))
                            .load(conn)
                            .await?;
                        let mut report = RetentionReport::default();
                        for (organization, days) in &organizations {
                            let room = limit - i64::try_from(report.messages).unwrap_or(limit);
                            if room <= 0 {
                                break;
                            }
                            purge_messages(conn, organization, cutoff(*days), room, &mut report).await?;
                        }
                        for (organization, days) in &organizations {
                            let room = limit - i64::try_from(report.inbound).unwrap_or(limit);
                            if room <= 0 {
                                break;
                            }
                            purge_inbound(conn, organization, cutoff(*days), room, &mut report).await?;
                        }
                        for (organization, days) in &organizations {
                            let room = limit - i64::try_from(report.account_events).unwrap_or(limit);
                            if room <= 0 {
                                break;
                            }
                            purge_account_events(conn, organization, cutoff(*days), room, &mut report)
                                .await?;
                        }
                        for (organization, days) in &organizations {
                            let room = limit - i64::try_from(report.broadcasts).unwrap_or(limit);
                            if room <= 0 {
                                break;
                            }
                            purge_broadcasts(conn, organization, cutoff(*days), room, &mut report).await?;
                        }
                        // Callbacks belong to no organization: the shortest retention of any plan.
                        let shortest: Option<i32> = plans::table
                            .select(diesel::dsl::min(plans::retention_days))
                            .first(conn)
                            .await?;
                        if let Some(days) = shortest {
                            purge_callbacks(conn, cutoff(days), limit, &mut report).await?;
                        }
                        Ok::<_, TxError>(report)
                    })
                    .map_err(TxError::into_store)
                }
            }
        }
    };
}

pub(crate) use retention_port;

//! The `BroadcastStore` port: a broadcast accepted with all its messages in one transaction, read with its
//! counts, and released to dispatch by the pacer a few jobs at a time.

macro_rules! broadcasts_port {
    () => {
        mod broadcasts {
            use super::super::schema::{broadcast_counts, broadcasts, messages, outbox, senders, usage_counters};
            use super::super::{Conn, Db};
            use super::shared::insert_customer_event;
            use async_trait::async_trait;
            use diesel::prelude::*;
            use diesel_async::RunQueryDsl;
            use herald_domain::broadcast::{
                Broadcast, BroadcastCounts, BroadcastEvent, BroadcastState, BroadcastView, ReleaseOutcome,
                ReleasePolicy, held_until,
            };
            use herald_domain::ids::{BroadcastId, MessageId, OrganizationId};
            use herald_domain::message::MessageStatus;
            use herald_domain::ports::{
                AcceptRequest, BroadcastAccept, BroadcastAcceptOutcome, BroadcastFailure, BroadcastQuery,
                BroadcastStore, BroadcastTransition, DueBroadcast, KeyedBroadcast, StoreError,
            };
            use herald_domain::time::Timestamp;
            use herald_domain::values::IdempotencyKey;
            use $crate::error::{TxError, corrupt, from_diesel};
            use $crate::group_commit::PreparedAccept;
            use $crate::rows::{
                BroadcastRow, CustomerEventRow, JOB_IN_FLIGHT, JOB_PENDING, pause_json, quota_ceiling,
                to_i32,
            };

            /// Rows per statement when a broadcast's messages are written.
            const CHUNK: usize = 500;

            const ACTIVE: [&str; 2] = ["scheduled", "running"];

            /// Charges `count` messages at once, if they all fit under `limit`; answers the room left when
            /// they do not (then nothing was counted).
            async fn charge(
                conn: &mut Conn,
                org: &str,
                period: &str,
                count: i64,
                ceiling: i64,
            ) -> Result<Option<u64>, TxError> {
                diesel::insert_into(usage_counters::table)
                    .values((
                        usage_counters::organization_id.eq(org),
                        usage_counters::period.eq(period),
                        usage_counters::count.eq(0_i64),
                    ))
                    .on_conflict_do_nothing()
                    .execute(conn)
                    .await?;
                // The row lock of the UPDATE serializes concurrent accepts of the organization, and the
                // condition is checked on the latest count, so the limit holds.
                let counted = diesel::update(
                    usage_counters::table
                        .find((org, period))
                        .filter(usage_counters::count.le(ceiling.saturating_sub(count))),
                )
                .set(usage_counters::count.eq(usage_counters::count + count))
                .execute(conn)
                .await?;
                if counted == 1 {
                    return Ok(None);
                }
                let used: i64 = usage_counters::table
                    .find((org, period))
                    .select(usage_counters::count)
                    .first(conn)
                    .await?;
                Ok(Some(u64::try_from(ceiling.saturating_sub(used)).unwrap_or(0)))
            }

            async fn accept_in_tx(
                conn: &mut Conn,
                request: &BroadcastAccept,
            ) -> Result<BroadcastAcceptOutcome, TxError> {
                let b = &request.broadcast;
                let org = b.organization_id.to_string();
                let key = request
                    .idempotency
                    .as_ref()
                    .map(|(key, fingerprint)| (key.as_str(), fingerprint));
                if let Some((key, _)) = key {
                    let taken = broadcasts::table
                        .filter(broadcasts::organization_id.eq(&org))
                        .filter(broadcasts::idempotency_key.eq(key))
                        .select(broadcasts::id)
                        .first::<String>(conn)
                        .await
                        .optional()?;
                    if taken.is_some() {
                        return Ok(BroadcastAcceptOutcome::KeyTaken);
                    }
                }
                let count = i64::try_from(request.messages.len()).unwrap_or(i64::MAX);
                let ceiling = quota_ceiling(request.quota.limit);
                if let Some(remaining) =
                    charge(conn, &org, request.quota.period.as_str(), count, ceiling).await?
                {
                    return Ok(BroadcastAcceptOutcome::QuotaExceeded { remaining });
                }
                let row = BroadcastRow::new(b, key)?;
                diesel::insert_into(broadcasts::table)
                    .values((
                        (
                            broadcasts::id.eq(&row.id),
                            broadcasts::organization_id.eq(&row.organization_id),
                            broadcasts::sender_id.eq(&row.sender_id),
                            broadcasts::from_number.eq(&row.from_number),
                            broadcasts::template_name.eq(&row.template_name),
                            broadcasts::template_language.eq(&row.template_language),
                            broadcasts::state.eq(&row.state),
                            broadcasts::total.eq(row.total),
                            broadcasts::released.eq(row.released),
                        ),
                        (
                            broadcasts::send_at.eq(row.send_at),
                            broadcasts::pause.eq(&row.pause),
                            broadcasts::idempotency_key.eq(&row.idempotency_key),
                            broadcasts::request_fingerprint.eq(&row.request_fingerprint),
                            broadcasts::created_at.eq(row.created_at),
                            broadcasts::updated_at.eq(row.updated_at),
                        ),
                    ))
                    .execute(conn)
                    .await?;
                for chunk in request.messages.chunks(CHUNK) {
                    let prepared = chunk
                        .iter()
                        .map(|m| {
                            PreparedAccept::new(&AcceptRequest {
                                message: m.message.clone(),
                                event: m.event.clone(),
                                job: m.job.clone(),
                                quota: request.quota.clone(),
                                idempotency: None,
                                // Its rows were checked before the accept, with one read per 500 numbers.
                                recipient_check: None,
                                // A broadcast is announced by its own events, not one per message.
                                customer_event: None,
                            })
                        })
                        .collect::<Result<Vec<_>, StoreError>>()?;
                    let refs: Vec<&PreparedAccept> = prepared.iter().collect();
                    super::super::insert_accepted(conn, &refs).await?;
                }
                Ok(BroadcastAcceptOutcome::Accepted)
            }

            async fn load_row(conn: &mut Conn, org: &str, id: &str) -> Result<Option<BroadcastRow>, TxError> {
                Ok(broadcasts::table
                    .find(id)
                    .filter(broadcasts::organization_id.eq(org))
                    .select(BroadcastRow::as_select())
                    .first::<BroadcastRow>(conn)
                    .await
                    .optional()?)
            }

            /// The counts of a broadcast whose row was read as the organization's.
            async fn counts(conn: &mut Conn, id: &str) -> Result<BroadcastCounts, TxError> {
                let mut counts = counts_of(conn, &[id.to_owned()]).await?;
                Ok(counts.remove(id).unwrap_or_default())
            }

            /// The messages of each broadcast counted by status, read from the counts the database keeps
            /// as messages are written (`broadcast_counts`, maintained by triggers in the same transaction):
            /// a page of the list reads at most one row per broadcast and status, however many messages its
            /// broadcasts hold. A broadcast without messages is absent.
            ///
            /// `ids` must have been read from the organization's own broadcasts: the counts are keyed by
            /// broadcast alone.
            async fn counts_of(
                conn: &mut Conn,
                ids: &[String],
            ) -> Result<std::collections::HashMap<String, BroadcastCounts>, TxError> {
                if ids.is_empty() {
                    // An empty page (a new organization's list): no round trip for nothing.
                    return Ok(std::collections::HashMap::new());
                }
                let rows: Vec<(String, String, i64)> = broadcast_counts::table
                    .filter(broadcast_counts::broadcast_id.eq_any(ids))
                    .filter(broadcast_counts::count.gt(0_i64))
                    .select((
                        broadcast_counts::broadcast_id,
                        broadcast_counts::status,
                        broadcast_counts::count,
                    ))
                    .load(conn)
                    .await?;
                let mut counts = std::collections::HashMap::<String, BroadcastCounts>::new();
                for (broadcast, status, n) in rows {
                    let status = MessageStatus::parse(&status).map_err(|e| corrupt("message status", e))?;
                    counts
                        .entry(broadcast)
                        .or_default()
                        .0
                        .insert(status, u32::try_from(n).map_err(|e| corrupt("broadcast count", e))?);
                }
                Ok(counts)
            }

            /// Jobs of the broadcast in the outbox, released and not done yet.
            async fn open_jobs(conn: &mut Conn, id: &str) -> Result<i64, TxError> {
                Ok(outbox::table
                    .filter(outbox::broadcast_id.eq(id))
                    .filter(outbox::available_at.lt(held_until()))
                    .filter(outbox::state.eq_any([JOB_PENDING, JOB_IN_FLIGHT]))
                    .count()
                    .get_result(conn)
                    .await?)
            }

            /// Jobs of every broadcast of the sender, released and not done yet: their people count against
            /// the sender's tier before they are sent, whichever broadcast they belong to.
            async fn sender_open_jobs(conn: &mut Conn, sender: &str) -> Result<i64, TxError> {
                Ok(outbox::table
                    .filter(outbox::sender_id.eq(sender))
                    .filter(outbox::broadcast_id.is_not_null())
                    .filter(outbox::available_at.lt(held_until()))
                    .filter(outbox::state.eq_any([JOB_PENDING, JOB_IN_FLIGHT]))
                    .count()
                    .get_result(conn)
                    .await?)
            }

            async fn held_jobs(conn: &mut Conn, id: &str) -> Result<i64, TxError> {
                Ok(outbox::table
                    .filter(outbox::broadcast_id.eq(id))
                    .filter(outbox::available_at.eq(held_until()))
                    .count()
                    .get_result(conn)
                    .await?)
            }

            /// The unique recipients of the sender's templates dispatched since `since`.
            async fn tier_used(conn: &mut Conn, sender: &str, since: Timestamp) -> Result<i64, TxError> {
                Ok(messages::table
                    .filter(messages::sender_id.eq(sender))
                    .filter(messages::message_type.eq("template"))
                    .filter(messages::submitted_at.ge(since))
                    .select(diesel::AggregateExpressionMethods::aggregate_distinct(diesel::dsl::count(
                        messages::to_number,
                    )))
                    .first(conn)
                    .await?)
            }

            fn count_u32(what: &str, n: i64) -> Result<u32, TxError> {
                u32::try_from(n).map_err(|e| TxError::from(corrupt(what, e)))
            }

            async fn release_in_tx(
                conn: &mut Conn,
                org: &str,
                id: &str,
                policy: &ReleasePolicy,
            ) -> Result<ReleaseOutcome, TxError> {
                let row = for_update!(
                    broadcasts::table
                        .find(id)
                        .filter(broadcasts::organization_id.eq(org))
                        .select(BroadcastRow::as_select())
                )
                .first::<BroadcastRow>(conn)
                .await
                .optional()?;
                let Some(row) = row else {
                    return Ok(ReleaseOutcome::Inactive);
                };
                if !ACTIVE.contains(&row.state.as_str()) {
                    return Ok(ReleaseOutcome::Inactive);
                }
                let held = count_u32("held jobs", held_jobs(conn, id).await?)?;
                let open = count_u32("open jobs", open_jobs(conn, id).await?)?;
                let tier_used = if policy.tier_limit.is_some() && held > 0 {
                    // Released broadcast jobs (this broadcast's and the sender's other ones) are not
                    // dispatched yet but will reach their people.
                    // Two workers releasing two of the sender's broadcasts at once would each miss the
                    // other's release: the sender's row serializes them.
                    for_update!(senders::table.find(&row.sender_id).select(senders::id))
                        .first::<String>(conn)
                        .await?;
                    let queued = sender_open_jobs(conn, &row.sender_id).await?;
                    count_u32("tier use", tier_used(conn, &row.sender_id, policy.tier_since).await?)?
                        .saturating_add(count_u32("the sender's released jobs", queued)?)
                } else {
                    0
                };
                let count = policy.allowance(held, open, tier_used);
                let unbounded = held.min(policy.max_open.saturating_sub(open));
                if count > 0 {
                    let ids: Vec<String> = outbox::table
                        .filter(outbox::broadcast_id.eq(id))
                        .filter(outbox::available_at.eq(held_until()))
                        .order(outbox::message_id)
                        .limit(i64::from(count))
                        .select(outbox::id)
                        .load(conn)
                        .await?;
                    diesel::update(outbox::table.filter(outbox::id.eq_any(&ids)))
                        .set((
                            outbox::available_at.eq(policy.now),
                            outbox::deadline.eq(policy.deadline),
                            outbox::updated_at.eq(policy.now),
                        ))
                        .execute(conn)
                        .await?;
                    super::super::announce_work(conn).await?;
                }
                diesel::update(broadcasts::table.find(id))
                    .set((
                        broadcasts::released.eq(broadcasts::released + to_i32("released", count)?),
                        broadcasts::state.eq(BroadcastState::Running.as_str()),
                        broadcasts::updated_at.eq(policy.now),
                    ))
                    .execute(conn)
                    .await?;
                Ok(ReleaseOutcome::Released {
                    count,
                    held: held - count,
                    waiting_for_tier: count < unbounded,
                })
            }

            async fn transition_in_tx(
                conn: &mut Conn,
                org: &str,
                id: &str,
                change: &BroadcastTransition,
            ) -> Result<Option<Broadcast>, TxError> {
                let from: Vec<&str> = change.from.iter().map(|s| s.as_str()).collect();
                let target = broadcasts::table
                    .filter(broadcasts::id.eq(id))
                    .filter(broadcasts::organization_id.eq(org))
                    .filter(broadcasts::state.eq_any(from));
                let at = change.at;
                let changed = diesel::update(target)
                    .set((
                        broadcasts::state.eq(change.to.as_str()),
                        broadcasts::pause.eq(pause_json(change.pause.as_ref())?),
                        broadcasts::updated_at.eq(at),
                        broadcasts::completed_at
                            .eq((change.to == BroadcastState::Completed).then_some(at)),
                        broadcasts::cancelled_at
                            .eq((change.to == BroadcastState::Cancelled).then_some(at)),
                    ))
                    .execute(conn)
                    .await?;
                if changed == 0 {
                    return Ok(None);
                }
                if let Some(event) = &change.event {
                    record_in_tx(conn, event).await?;
                }
                let row = load_row(conn, org, id)
                    .await?
                    .ok_or_else(|| corrupt("broadcast", "changed and gone"))?;
                Ok(Some(Broadcast::try_from(row)?))
            }

            async fn record_in_tx(conn: &mut Conn, event: &BroadcastEvent) -> Result<(), TxError> {
                insert_customer_event(conn, &CustomerEventRow::broadcast(event)?).await?;
                diesel::update(broadcasts::table.find(event.view.broadcast.id.to_string()))
                    .set(broadcasts::progress_at.eq(Some(event.recorded_at)))
                    .execute(conn)
                    .await?;
                Ok(())
            }

            #[async_trait]
            impl BroadcastStore for Db {
                async fn accept(&self, request: &BroadcastAccept) -> Result<BroadcastAcceptOutcome, StoreError> {
                    match write_tx!(self, |conn| accept_in_tx(conn, request).await)
                        .map_err(TxError::into_store)
                    {
                        // Two requests with one key at once: the key's unique index stops the second.
                        Err(StoreError::Conflict(detail)) if detail.contains("broadcasts_by_key")
                            || detail.contains("idempotency_key") =>
                        {
                            Ok(BroadcastAcceptOutcome::KeyTaken)
                        }
                        other => other,
                    }
                }

                async fn keyed(
                    &self,
                    organization: &OrganizationId,
                    key: &IdempotencyKey,
                ) -> Result<Option<KeyedBroadcast>, StoreError> {
                    let mut conn = self.read().await?;
                    let row = broadcasts::table
                        .filter(broadcasts::organization_id.eq(organization.to_string()))
                        .filter(broadcasts::idempotency_key.eq(key.as_str()))
                        .select(BroadcastRow::as_select())
                        .first::<BroadcastRow>(&mut *conn)
                        .await
                        .optional()
                        .map_err(from_diesel)?;
                    row.map(|row| row.keyed()).transpose().map(Option::flatten)
                }

                async fn broadcast(
                    &self,
                    organization: &OrganizationId,
                    id: &BroadcastId,
                ) -> Result<Option<BroadcastView>, StoreError> {
                    let (org, id) = (organization.to_string(), id.to_string());
                    let mut conn = self.read().await?;
                    let conn: &mut Conn = &mut conn;
                    let Some(row) = load_row(conn, &org, &id).await.map_err(TxError::into_store)? else {
                        return Ok(None);
                    };
                    let counts = counts(conn, &id).await.map_err(TxError::into_store)?;
                    Ok(Some(BroadcastView {
                        broadcast: Broadcast::try_from(row)?,
                        counts,
                    }))
                }

                async fn broadcasts(
                    &self,
                    organization: &OrganizationId,
                    query: &BroadcastQuery,
                ) -> Result<Vec<BroadcastView>, StoreError> {
                    let mut select = broadcasts::table
                        .filter(broadcasts::organization_id.eq(organization.to_string()))
                        .into_boxed();
                    if let Some(state) = query.state {
                        select = select.filter(broadcasts::state.eq(state.as_str()));
                    }
                    if let Some(before) = &query.before {
                        select = select.filter(broadcasts::id.lt(before.to_string()));
                    }
                    let mut conn = self.read().await?;
                    let conn: &mut Conn = &mut conn;
                    let rows = select
                        .order(broadcasts::id.desc())
                        .limit(i64::from(query.limit))
                        .select(BroadcastRow::as_select())
                        .load::<BroadcastRow>(conn)
                        .await
                        .map_err(from_diesel)?;
                    let ids: Vec<String> = rows.iter().map(|row| row.id.clone()).collect();
                    let mut counts = counts_of(conn, &ids)
                        .await
                        .map_err(TxError::into_store)?;
                    rows.into_iter()
                        .map(|row| {
                            let counts = counts.remove(&row.id).unwrap_or_default();
                            Ok(BroadcastView {
                                broadcast: Broadcast::try_from(row)?,
                                counts,
                            })
                        })
                        .collect()
                }

                async fn due(&self, now: Timestamp, limit: u32) -> Result<Vec<DueBroadcast>, StoreError> {
                    let mut conn = self.read().await?;
                    let rows: Vec<(BroadcastRow, (i32, Option<String>))> = broadcasts::table
                        .inner_join(senders::table.on(senders::id.eq(broadcasts::sender_id)))
                        .filter(broadcasts::state.eq_any(ACTIVE))
                        .filter(broadcasts::send_at.is_null().or(broadcasts::send_at.le(now)))
                        .order(broadcasts::id)
                        .limit(i64::from(limit))
                        .select((
                            BroadcastRow::as_select(),
                            (senders::throughput_per_second, senders::messaging_limit),
                        ))
                        .load(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    rows.into_iter()
                        .map(|(row, (throughput, limit))| row.due(throughput, limit))
                        .collect()
                }

                async fn release(
                    &self,
                    organization: &OrganizationId,
                    id: &BroadcastId,
                    policy: &ReleasePolicy,
                ) -> Result<ReleaseOutcome, StoreError> {
                    let (org, id) = (organization.to_string(), id.to_string());
                    let outcome = write_tx!(self, |conn| release_in_tx(conn, &org, &id, policy).await)
                        .map_err(TxError::into_store)?;
                    if matches!(outcome, ReleaseOutcome::Released { count, .. } if count > 0) {
                        self.work_committed();
                    }
                    Ok(outcome)
                }

                async fn failures(
                    &self,
                    organization: &OrganizationId,
                    id: &BroadcastId,
                    since: Option<Timestamp>,
                    limit: u32,
                ) -> Result<Vec<BroadcastFailure>, StoreError> {
                    let mut select = messages::table
                        .filter(messages::broadcast_id.eq(id.to_string()))
                        .filter(messages::organization_id.eq(organization.to_string()))
                        .filter(messages::status.eq(MessageStatus::Failed.as_str()))
                        .into_boxed();
                    if let Some(since) = since {
                        select = select.filter(messages::failed_at.gt(since));
                    }
                    let mut conn = self.read().await?;
                    let rows: Vec<(String, Option<String>, Option<Timestamp>)> = select
                        .order((messages::failed_at, messages::id))
                        .limit(i64::from(limit))
                        .select((messages::id, messages::error, messages::failed_at))
                        .load(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    let mut failures = Vec::with_capacity(rows.len());
                    for (id, error, failed_at) in rows {
                        let (Some(error), Some(failed_at)) =
                            ($crate::rows::parse_error_text(error.as_deref())?, failed_at)
                        else {
                            continue;
                        };
                        failures.push(BroadcastFailure {
                            message_id: MessageId::parse(&id).map_err(|e| corrupt("message id", e))?,
                            error,
                            failed_at,
                        });
                    }
                    Ok(failures)
                }

                async fn see_failures(
                    &self,
                    organization: &OrganizationId,
                    id: &BroadcastId,
                    last: Timestamp,
                ) -> Result<(), StoreError> {
                    let (org, id) = (organization.to_string(), id.to_string());
                    write_tx!(self, |conn| {
                        diesel::update(
                            broadcasts::table
                                .find(&id)
                                .filter(broadcasts::organization_id.eq(&org)),
                        )
                        .set(broadcasts::failures_seen.eq(Some(last)))
                        .execute(conn)
                        .await?;
                        Ok(())
                    })
                    .map_err(TxError::into_store)
                }

                async fn transition(
                    &self,
                    organization: &OrganizationId,
                    id: &BroadcastId,
                    change: &BroadcastTransition,
                ) -> Result<Option<Broadcast>, StoreError> {
                    let (org, id) = (organization.to_string(), id.to_string());
                    let changed = write_tx!(self, |conn| transition_in_tx(conn, &org, &id, change).await)
                        .map_err(TxError::into_store)?;
                    Ok(changed)
                }

                async fn record_progress(&self, event: &BroadcastEvent) -> Result<(), StoreError> {
                    write_tx!(self, |conn| record_in_tx(conn, event).await).map_err(TxError::into_store)
                }

                async fn cancelling(&self, before: Timestamp, limit: u32) -> Result<Vec<Broadcast>, StoreError> {
                    let mut conn = self.read().await?;
                    let rows = broadcasts::table
                        .filter(broadcasts::state.eq(BroadcastState::Cancelling.as_str()))
                        .filter(broadcasts::updated_at.lt(before))
                        .order((broadcasts::updated_at, broadcasts::id))
                        .limit(i64::from(limit))
                        .select(BroadcastRow::as_select())
                        .load::<BroadcastRow>(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    rows.into_iter().map(Broadcast::try_from).collect()
                }

                async fn untaken(
                    &self,
                    organization: &OrganizationId,
                    id: &BroadcastId,
                    limit: u32,
                ) -> Result<Vec<MessageId>, StoreError> {
                    let mut conn = self.read().await?;
                    let ids: Vec<String> = outbox::table
                        .filter(outbox::broadcast_id.eq(id.to_string()))
                        .filter(outbox::organization_id.eq(organization.to_string()))
                        .filter(outbox::state.eq(JOB_PENDING))
                        .filter(outbox::attempts.eq(0))
                        .filter(outbox::awaiting_callback.eq(false))
                        .order(outbox::message_id)
                        .limit(i64::from(limit))
                        .select(outbox::message_id)
                        .load(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    ids.iter()
                        .map(|id| MessageId::parse(id).map_err(|e| corrupt("message id", e)))
                        .collect()
                }
            }
        }
    };
}

pub(crate) use broadcasts_port;

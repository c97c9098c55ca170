//! The `OutboxStore` port: claiming, renewing and completing dispatch jobs, and the backlog.

macro_rules! outbox_port {
    () => {
        mod outbox {
            use super::super::schema::{messages, organizations, outbox, senders};
            use super::super::{Conn, Db};
            use super::tracking::apply_in_tx;
            use async_trait::async_trait;
            use diesel::prelude::*;
            use diesel_async::RunQueryDsl;
            use herald_domain::dispatch::{ClaimToken, ClaimedJob, JobCompletion, JobOutcome};
            use herald_domain::ids::{OrganizationId, SenderId};
            use herald_domain::message::{EventSource, MessageStatus};
            use herald_domain::ports::{OutboxStore, StoreError};
            use herald_domain::status::StatusReport;
            use herald_domain::status::StatusUpdate;
            use herald_domain::time::Timestamp;
            use $crate::error::{TxError, corrupt, from_diesel};
            use $crate::rows::{
                JOB_DONE, JOB_FAILED, JOB_IN_FLIGHT, JOB_PENDING, MessageRow, SenderRow, job_error,
            };

            /// Records dispatch outcomes inside the caller's transaction: answers, per completion in order,
            /// whether its token still held the job (nothing is written for one that did not). The jobs are
            /// written one by one, then the statuses their outcomes report, all at once ([`apply_in_tx`]).
            async fn complete_in_tx(
                conn: &mut Conn,
                completions: &[&JobCompletion],
            ) -> Result<Vec<bool>, TxError> {
                let mut held = Vec::with_capacity(completions.len());
                let mut updates = Vec::with_capacity(completions.len());
                for completion in completions {
                    let released = release_job(conn, completion).await?;
                    held.push(released.is_some());
                    updates.extend(released.flatten());
                }
                let updates: Vec<&StatusUpdate> = updates.iter().collect();
                if apply_in_tx(conn, &updates)
                    .await?
                    .iter()
                    .any(Option::is_none)
                {
                    return Err(corrupt("outbox job", "its message is missing").into());
                }
                Ok(held)
            }

            /// Writes one outcome to its job: `None`, with nothing written, when the job is no longer held by
            /// the completion's token; else the status report the outcome makes, if any.
            async fn release_job(
                conn: &mut Conn,
                completion: &JobCompletion,
            ) -> Result<Option<Option<StatusUpdate>>, TxError> {
                let job = completion.job_id.to_string();
                let org = completion.organization_id.to_string();
                let token = completion.token.as_string();
                let at = completion.at;
                // Only the claim that holds the job may record its outcome.
                macro_rules! held {
                    () => {
                        outbox::table
                            .find(&job)
                            .filter(outbox::organization_id.eq(&org))
                            .filter(outbox::claim_token.eq(&token))
                            .filter(outbox::state.eq(JOB_IN_FLIGHT))
                    };
                }
                let released = (
                    outbox::claim_token.eq(None::<String>),
                    outbox::lease_until.eq(None::<Timestamp>),
                    outbox::updated_at.eq(at),
                );
                let changed = match &completion.outcome {
                    JobOutcome::Submitted { .. } | JobOutcome::AlreadyDone => {
                        $crate::cached::Cached(
                            diesel::update(held!()).set((outbox::state.eq(JOB_DONE), released)),
                        )
                        .execute(conn)
                        .await?
                    }
                    JobOutcome::Failed { error } => {
                        $crate::cached::Cached(diesel::update(held!()).set((
                            outbox::state.eq(JOB_FAILED),
                            outbox::last_error.eq(Some(job_error(error))),
                            released,
                        )))
                        .execute(conn)
                        .await?
                    }
                    JobOutcome::Retry {
                        at: retry_at,
                        error,
                    } => {
                        $crate::cached::Cached(diesel::update(held!()).set((
                            outbox::state.eq(JOB_PENDING),
                            outbox::available_at.eq(*retry_at),
                            outbox::last_error.eq(Some(error)),
                            released,
                        )))
                        .execute(conn)
                        .await?
                    }
                    JobOutcome::AwaitCallback { until, detail } => {
                        $crate::cached::Cached(diesel::update(held!()).set((
                            outbox::state.eq(JOB_PENDING),
                            outbox::available_at.eq(*until),
                            outbox::awaiting_callback.eq(true),
                            outbox::last_error.eq(Some(detail)),
                            released,
                        )))
                        .execute(conn)
                        .await?
                    }
                    JobOutcome::Hold { until } => {
                        // A hold is not an attempt: the claim's count is given back.
                        $crate::cached::Cached(diesel::update(held!()).set((
                            outbox::state.eq(JOB_PENDING),
                            outbox::available_at.eq(*until),
                            outbox::attempts.eq(outbox::attempts - 1),
                            released,
                        )))
                        .execute(conn)
                        .await?
                    }
                };
                if changed == 0 {
                    return Ok(None);
                }
                if let JobOutcome::Submitted { route, .. } = &completion.outcome {
                    // The path it went on, whatever the status machine makes of the report below: a
                    // callback that came first does not change where the message was sent.
                    diesel::update(
                        messages::table
                            .find(completion.message_id.to_string())
                            .filter(messages::organization_id.eq(&org)),
                    )
                    .set(messages::route.eq(Some(route.as_str())))
                    .execute(conn)
                    .await?;
                }
                let change = match &completion.outcome {
                    JobOutcome::Submitted {
                        network_message_id, ..
                    } => Some((
                        StatusReport {
                            status: MessageStatus::Submitted,
                            occurred_at: at,
                            error: None,
                        },
                        Some(network_message_id.clone()),
                    )),
                    JobOutcome::Failed { error } => Some((
                        StatusReport {
                            status: MessageStatus::Failed,
                            occurred_at: at,
                            error: Some(error.clone()),
                        },
                        None,
                    )),
                    _ => None,
                };
                Ok(Some(change.map(|(report, network_message_id)| {
                    StatusUpdate {
                        organization_id: completion.organization_id,
                        message_id: completion.message_id,
                        report,
                        network_message_id,
                        source: EventSource::Herald,
                        event_id: completion.event_id,
                        customer_event_id: completion.customer_event_id,
                        recorded_at: at,
                        pricing: None,
                    }
                })))
            }

            #[async_trait]
            impl OutboxStore for Db {
                async fn claim_jobs(
                    &self,
                    token: &ClaimToken,
                    now: Timestamp,
                    lease_until: Timestamp,
                    limit: u32,
                ) -> Result<Vec<ClaimedJob>, StoreError> {
                    if limit == 0 {
                        return Ok(Vec::new());
                    }
                    let token = token.as_string();
                    let (claimed, rows) = write_tx!(self, |conn| {
                        let claimed =
                            super::super::claim_due(conn, &token, now, lease_until, i64::from(limit)).await?;
                        if claimed.is_empty() {
                            return Ok((claimed, Vec::new()));
                        }
                        // One read for the whole batch: each job's message, sender and account status.
                        let ids: Vec<&str> = claimed.iter().map(|c| c.message_id.as_str()).collect();
                        let rows = messages::table
                            .inner_join(senders::table.on(senders::id.eq(messages::sender_id)))
                            .inner_join(
                                organizations::table.on(organizations::id.eq(messages::organization_id)),
                            )
                            .filter(messages::id.eq_any(&ids))
                            .select((
                                MessageRow::as_select(),
                                SenderRow::as_select(),
                                organizations::status,
                            ))
                            .load::<(MessageRow, SenderRow, String)>(conn)
                            .await?;
                        Ok((claimed, rows))
                    })
                    .map_err(TxError::into_store)?;
                    let mut by_message: std::collections::HashMap<String, (MessageRow, SenderRow, String)> =
                        rows.into_iter()
                            .map(|row| (row.0.id.clone(), row))
                            .collect();
                    claimed
                        .into_iter()
                        .map(|job| {
                            let (message, sender, account) = by_message
                                .remove(&job.message_id)
                                .ok_or_else(|| corrupt("outbox job", "its message or sender is missing"))?;
                            job.into_job(message, sender, &account)
                        })
                        .collect()
                }

                async fn renew_jobs(
                    &self,
                    token: &ClaimToken,
                    jobs: &[herald_domain::ids::JobId],
                    lease_until: Timestamp,
                ) -> Result<usize, StoreError> {
                    if jobs.is_empty() {
                        return Ok(0);
                    }
                    let ids: Vec<String> = jobs.iter().map(ToString::to_string).collect();
                    let mut conn = self.write().await?;
                    diesel::update(
                        outbox::table
                            .filter(outbox::id.eq_any(&ids))
                            .filter(outbox::claim_token.eq(token.as_string()))
                            .filter(outbox::state.eq(JOB_IN_FLIGHT)),
                    )
                    .set(outbox::lease_until.eq(Some(lease_until)))
                    .execute(&mut *conn)
                    .await
                    .map_err(from_diesel)
                }

                async fn complete_job(&self, completion: &JobCompletion) -> Result<bool, StoreError> {
                    Ok(
                        write_tx!(self, |conn| complete_in_tx(conn, &[completion]).await)
                            .map_err(TxError::into_store)?
                            .contains(&true),
                    )
                }

                async fn complete_jobs(
                    &self,
                    completions: &[JobCompletion],
                ) -> Result<Vec<bool>, StoreError> {
                    if completions.is_empty() {
                        return Ok(Vec::new());
                    }
                    // One transaction for the whole round: one commit instead of one per job. Each job is
                    // still written only under its own claim token, and a lost claim only answers `false`.
                    // Written in message order, the order the callbacks' batches lock message rows in, so
                    // a round never deadlocks with a batch of status callbacks; answered in the caller's.
                    let mut order: Vec<(usize, &JobCompletion)> = completions.iter().enumerate().collect();
                    order.sort_by_key(|(_, completion)| completion.message_id);
                    let in_order: Vec<&JobCompletion> =
                        order.iter().map(|(_, completion)| *completion).collect();
                    let held_in_order = write_tx!(self, |conn| complete_in_tx(conn, &in_order).await)
                        .map_err(TxError::into_store)?;
                    let mut held = vec![false; completions.len()];
                    for ((i, _), was_held) in order.iter().zip(held_in_order) {
                        if let Some(answer) = held.get_mut(*i) {
                            *answer = was_held;
                        }
                    }
                    Ok(held)
                }

                async fn backlog(
                    &self,
                    now: Timestamp,
                ) -> Result<Vec<herald_domain::dispatch::SenderBacklog>, StoreError> {
                    let mut conn = self.read().await?;
                    // Two grouped reads on one connection: a depth per sender, then the oldest due time of
                    // those with due jobs. `MIN` is spelled out because SQLite's time type has no ordering
                    // in diesel (the text sorts as the time does: every value is written in UTC the same way).
                    // A broadcast's held jobs are not work yet (the pacer has not released them): they show
                    // on the broadcast, not as dispatch backlog.
                    let depths: Vec<(String, String, i64)> = outbox::table
                        .filter(outbox::state.eq_any([JOB_PENDING, JOB_IN_FLIGHT]))
                        .filter(outbox::available_at.lt(herald_domain::broadcast::held_until()))
                        .group_by((outbox::organization_id, outbox::sender_id))
                        .select((
                            outbox::organization_id,
                            outbox::sender_id,
                            diesel::dsl::count_star(),
                        ))
                        .load(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    let oldest: Vec<(String, String, Timestamp)> = outbox::table
                        .filter(outbox::state.eq(JOB_PENDING))
                        .filter(outbox::available_at.le(now))
                        .group_by((outbox::organization_id, outbox::sender_id))
                        .select((
                            outbox::organization_id,
                            outbox::sender_id,
                            diesel::dsl::sql::<super::super::schema::Moment>("MIN(outbox.available_at)"),
                        ))
                        .load(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    let oldest: std::collections::HashMap<(String, String), Timestamp> = oldest
                        .into_iter()
                        .map(|(organization, sender, at)| ((organization, sender), at))
                        .collect();
                    depths
                        .into_iter()
                        .map(|(organization, sender, depth)| {
                            let oldest_due = oldest.get(&(organization.clone(), sender.clone())).copied();
                            Ok(herald_domain::dispatch::SenderBacklog {
                                organization_id: OrganizationId::parse(&organization)
                                    .map_err(|e| corrupt("outbox organization id", e))?,
                                sender_id: SenderId::parse(&sender)
                                    .map_err(|e| corrupt("outbox sender id", e))?,
                                depth: u64::try_from(depth).unwrap_or_default(),
                                oldest_due,
                            })
                        })
                        .collect()
                }
            }
        }
    };
}

pub(crate) use outbox_port;

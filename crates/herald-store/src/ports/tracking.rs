//! The `TrackingStore` port: status reports, inbound messages and stored network callbacks.

macro_rules! tracking_port {
    () => {
        pub(super) mod tracking {
            use super::super::schema::{inbound_messages, messages, network_callbacks, senders};
            use super::super::{Conn, Db};
            use super::inbound::resolve_wamid;
            use super::shared::{convert, insert_customer_event, insert_customer_events};
            use super::windows::refresh_window;
            use async_trait::async_trait;
            use diesel::prelude::*;
            use diesel_async::RunQueryDsl;
            use herald_domain::values::UserId;
            use herald_domain::customer_event::InboundRecord;
            use herald_domain::customer_event::{self, InboundLinks};
            use herald_domain::dispatch::{CallbackPage, ParkedCallback, StoredCallback};
            use herald_domain::ids::{EventId, OrganizationId};
            use herald_domain::message::Message;
            use herald_domain::ports::{StoreError, TrackingStore};
            use herald_domain::status;
            use herald_domain::status::{StatusApplied, StatusUpdate};
            use herald_domain::time::Timestamp;
            use herald_domain::values::PhoneNumber;
            use $crate::dto::InboundContentDto;
            use $crate::error::{TxError, corrupt, from_diesel};
            use $crate::group_commit::{CallbackWrite, Pending, PreparedCallback};
            use $crate::rows::{
                CallbackRow, CustomerEventRow, EventRow, MessageRow, ParkedCallbackRow, StatusColumns,
                to_json,
            };

            /// Applies `updates`, in order, inside the caller's transaction; answers each one's outcome,
            /// `None` when its message is not the organization's. The domain decides ([`status::decide`]) on
            /// the locked rows, and the store writes the decisions: each message's final columns, a history
            /// entry for every report, and a customer event for each status that changed.
            ///
            /// Set-wise, whatever the number of reports: one statement locks and reads all their messages with
            /// each one's last customer-event sequence, the decisions are taken here one after the other (two
            /// reports of one message each on the other's result, their events numbered in turn), and each
            /// table is written once (one statement each on PostgreSQL). Applied one by one, a report cost
            /// five to seven statements.
            pub(super) async fn apply_in_tx(
                conn: &mut Conn,
                updates: &[&StatusUpdate],
            ) -> Result<Vec<Option<StatusApplied>>, TxError> {
                if updates.is_empty() {
                    return Ok(Vec::new());
                }
                let mut ids: Vec<String> = updates.iter().map(|u| u.message_id.to_string()).collect();
                ids.sort_unstable();
                ids.dedup();
                // Locked, so reports about one message in other transactions are applied one after the
                // other, each on the other's result, and their customer events get distinct sequence
                // numbers. Locked in id order, as every batch of reports and every dispatch round does, so
                // two of them never deadlock.
                let rows = for_update!(
                    messages::table
                        .filter(messages::id.eq_any(&ids))
                        .order(messages::id)
                        .select(MessageRow::as_select())
                )
                .load::<MessageRow>(conn)
                .await?;
                // The last sequences are read by a statement AFTER the lock: on PostgreSQL (read committed)
                // a statement sees what committed before it began, and one that waited for the lock began
                // before the transaction that held it committed its events (read in the locking statement,
                // two batches of one message took one sequence: a unique violation).
                let last_sequences = super::super::last_event_sequences(conn, &ids).await?;
                // Each message as the reports so far leave it, its trace, its next customer-event sequence,
                // and whether a report changed a column.
                let mut current = std::collections::HashMap::with_capacity(rows.len());
                for row in rows {
                    let last = last_sequences.get(&row.id).copied();
                    let trace = row.trace();
                    let next_sequence = u32::try_from(last.unwrap_or(0).saturating_add(1))
                        .map_err(|e| corrupt("event sequence", e))?;
                    let message = Message::try_from(row)?;
                    current.insert(message.id, (message, trace, next_sequence, false));
                }
                let mut applied = Vec::with_capacity(updates.len());
                let mut history = Vec::with_capacity(updates.len());
                let mut customer_events = Vec::with_capacity(updates.len());
                for update in updates {
                    let Some((message, trace, next_sequence, changed)) = current
                        .get_mut(&update.message_id)
                        .filter(|(message, ..)| message.organization_id == update.organization_id)
                    else {
                        applied.push(None);
                        continue;
                    };
                    let decision = status::decide(message.clone(), update, *next_sequence);
                    *changed |= decision.change.is_some() || decision.pricing.is_some();
                    history.push(EventRow::new(&decision.history)?);
                    if let Some(event) = &decision.customer_event {
                        customer_events.push(CustomerEventRow::new(event, trace.as_ref())?);
                        *next_sequence = next_sequence.saturating_add(1);
                    }
                    *message = decision.message.clone();
                    applied.push(Some(StatusApplied {
                        transition: decision.transition,
                        message: decision.message,
                        trace: trace.clone(),
                    }));
                }
                let mut changed: Vec<StatusColumns> = current
                    .values()
                    .filter(|(.., changed)| *changed)
                    .map(|(message, ..)| StatusColumns::new(message))
                    .collect::<Result<_, _>>()?;
                changed.sort_unstable_by(|a, b| a.id.cmp(&b.id));
                super::super::update_statuses(conn, &changed).await?;
                super::super::insert_status_events(conn, &history.iter().collect::<Vec<_>>()).await?;
                insert_customer_events(conn, &customer_events.iter().collect::<Vec<_>>()).await?;
                Ok(applied)
            }

            /// Applies one report ([`apply_in_tx`]).
            pub(super) async fn apply_one_in_tx(
                conn: &mut Conn,
                update: &StatusUpdate,
            ) -> Result<Option<StatusApplied>, TxError> {
                Ok(apply_in_tx(conn, &[update])
                    .await?
                    .into_iter()
                    .next()
                    .flatten())
            }

            /// Writes a message's status columns, as a batch of reports left them.
            #[allow(
                dead_code,
                reason = "PostgreSQL writes a batch's messages with one statement"
            )]
            pub(in super::super) async fn update_status_row(
                conn: &mut Conn,
                columns: &StatusColumns,
            ) -> Result<(), TxError> {
                $crate::cached::Cached(diesel::update(messages::table.find(&columns.id)).set((
                    messages::status.eq(&columns.status),
                    messages::network_message_id.eq(&columns.network_message_id),
                    messages::error.eq(&columns.error),
                    messages::updated_at.eq(columns.updated_at),
                    messages::accepted_at.eq(columns.accepted_at),
                    messages::submitted_at.eq(columns.submitted_at),
                    messages::sent_at.eq(columns.sent_at),
                    messages::delivered_at.eq(columns.delivered_at),
                    messages::read_at.eq(columns.read_at),
                    messages::failed_at.eq(columns.failed_at),
                    messages::cancelled_at.eq(columns.cancelled_at),
                    messages::pricing_model.eq(&columns.pricing_model),
                    messages::pricing_category.eq(&columns.pricing_category),
                    messages::pricing_type.eq(&columns.pricing_type),
                    messages::pricing_billable.eq(columns.pricing_billable),
                )))
                .execute(conn)
                .await?;
                Ok(())
            }

            /// Writes a callback as it arrived, processed at `processed_at` when that is known already.
            #[allow(
                dead_code,
                reason = "PostgreSQL writes a batch's callbacks with one statement"
            )]
            pub(in super::super) async fn insert_callback(
                conn: &mut Conn,
                callback: &StoredCallback,
                processed_at: Option<Timestamp>,
            ) -> QueryResult<usize> {
                diesel::insert_into(network_callbacks::table)
                    .values((
                        network_callbacks::id.eq(callback.id.to_string()),
                        network_callbacks::received_at.eq(callback.received_at),
                        network_callbacks::body.eq(&callback.body),
                        network_callbacks::processed_at.eq(processed_at),
                    ))
                    .execute(conn)
                    .await
            }

            impl Db {
                /// Parks a stored callback the store cannot read back, by the id it holds, with why.
                async fn park_unreadable_callback(
                    &self,
                    id: &str,
                    at: Timestamp,
                    error: &StoreError,
                ) -> Result<(), StoreError> {
                    let reason = format!("unreadable stored callback, not processed: {error}");
                    tracing::error!(
                        callback = %id,
                        %error,
                        "a stored callback cannot be read back and is parked (`herald admin callbacks`)"
                    );
                    let mut conn = self.write().await?;
                    diesel::update(network_callbacks::table.find(id))
                        .set((
                            network_callbacks::parked_at.eq(Some(at)),
                            network_callbacks::last_error.eq(Some(reason)),
                        ))
                        .execute(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    Ok(())
                }
            }

            /// Marks a stored callback processed; [`StoreError::NotFound`] when there is no such callback.
            async fn mark_processed(
                conn: &mut Conn,
                id: &EventId,
                at: Timestamp,
                note: Option<String>,
            ) -> Result<(), TxError> {
                let changed = $crate::cached::Cached(
                    diesel::update(network_callbacks::table.find(id.to_string())).set((
                        network_callbacks::processed_at.eq(Some(at)),
                        network_callbacks::note.eq(note),
                    )),
                )
                .execute(conn)
                .await?;
                if changed == 0 {
                    return Err(StoreError::NotFound.into());
                }
                Ok(())
            }

            /// Writes callbacks ([`CallbackWrite`]): applies their statuses together, stores the new ones
            /// (each processed when its status applied), and marks the stored ones whose status applied.
            /// Answers each one's status outcome (`None` for a callback only stored).
            async fn store_applying_in_tx(
                conn: &mut Conn,
                items: &[&PreparedCallback],
            ) -> Result<Vec<Option<StatusApplied>>, TxError> {
                let updates: Vec<&StatusUpdate> = items.iter().filter_map(|item| item.update()).collect();
                let mut applied_in_order = apply_in_tx(conn, &updates).await?.into_iter();
                let mut answers = Vec::with_capacity(items.len());
                let mut callbacks: Vec<(&StoredCallback, Option<Timestamp>)> =
                    Vec::with_capacity(items.len());
                for item in items {
                    let applied = match item.update() {
                        Some(_) => applied_in_order.next().flatten(),
                        None => None,
                    };
                    match &item.write {
                        CallbackWrite::StoreApplying { callback, .. } => {
                            callbacks.push((callback, applied.is_some().then_some(item.at)));
                        }
                        CallbackWrite::Store(callback) => callbacks.push((callback, None)),
                        CallbackWrite::Marking { callback, .. } => {
                            if applied.is_some() {
                                mark_processed(conn, callback, item.at, None).await?;
                            }
                        }
                    }
                    answers.push(applied);
                }
                super::super::insert_callbacks(conn, &callbacks).await?;
                Ok(answers)
            }

            impl Db {
                /// Applies `update` in a transaction of its own.
                async fn apply_alone(
                    &self,
                    update: &StatusUpdate,
                ) -> Result<Option<StatusApplied>, StoreError> {
                    write_tx!(self, |conn| apply_one_in_tx(conn, update).await).map_err(TxError::into_store)
                }

                /// Writes a callback with the others queued at the time, in one transaction
                /// ([`Self::commit_callbacks`]), or alone without group commit (or a runtime to write on).
                async fn write_callback(
                    &self,
                    prepared: PreparedCallback,
                ) -> Result<Option<StatusApplied>, StoreError> {
                    // Group commit needs a runtime to write batches on, and the store's own handle.
                    let this = self.this.get().and_then(std::sync::Weak::upgrade);
                    let Some(this) = this.filter(|_| tokio::runtime::Handle::try_current().is_ok()) else {
                        return self.store_applying_alone(&prepared).await;
                    };
                    $crate::group_commit::submit(
                        &this,
                        |db| &db.callbacks,
                        prepared,
                        |db, batch| Box::pin(db.commit_callbacks(batch)),
                    )
                    .await
                }

                /// Writes one callback in a transaction of its own.
                async fn store_applying_alone(
                    &self,
                    item: &PreparedCallback,
                ) -> Result<Option<StatusApplied>, StoreError> {
                    write_tx!(self, |conn| {
                        Ok(store_applying_in_tx(conn, &[item])
                            .await?
                            .into_iter()
                            .next()
                            .flatten())
                    })
                    .map_err(TxError::into_store)
                }

                /// Stores and applies a batch of callbacks in one transaction and answers each waiter after
                /// the commit. When the transaction fails, each is written alone, so one callback that cannot
                /// be applied fails only itself (its caller then stores it for the backlog); when the
                /// database is unreachable, the batch and everything queued answer `Unavailable` at once and
                /// the network retries them.
                async fn commit_callbacks(
                    &self,
                    mut batch: Vec<Pending<PreparedCallback, Option<StatusApplied>>>,
                ) {
                    // Message rows are locked in one order by every batch (stable, so two reports of one
                    // message keep their arrival order), so two batches in flight never deadlock.
                    batch.sort_by_key(|pending| pending.item.update().map(|update| update.message_id));
                    let written = write_tx!(self, |conn| {
                        let items: Vec<&PreparedCallback> =
                            batch.iter().map(|pending| &pending.item).collect();
                        store_applying_in_tx(conn, &items).await
                    });
                    match written {
                        Ok(applied) => {
                            for (pending, applied) in batch.into_iter().zip(applied) {
                                // A waiter that is gone (the network hung up) needs no answer: the
                                // callback is stored and applied.
                                let _ = pending.reply.send(Ok(applied));
                            }
                        }
                        Err(error) => {
                            self.callbacks
                                .answer_failed(batch, error.into_store(), |item| async move {
                                    self.store_applying_alone(&item).await
                                })
                                .await;
                        }
                    }
                }

                /// Applies `updates` in one transaction, set-wise, as a batch of callbacks does.
                #[cfg(feature = "test-support")]
                pub(crate) async fn apply_statuses_together_query(
                    &self,
                    updates: &[StatusUpdate],
                ) -> Result<Vec<Option<StatusApplied>>, StoreError> {
                    let updates: Vec<&StatusUpdate> = updates.iter().collect();
                    write_tx!(self, |conn| apply_in_tx(conn, &updates).await).map_err(TxError::into_store)
                }
            }

            #[async_trait]
            impl TrackingStore for Db {
                async fn apply_callback_status(
                    &self,
                    update: &StatusUpdate,
                    callback: &EventId,
                    at: Timestamp,
                ) -> Result<Option<StatusApplied>, StoreError> {
                    self.write_callback(PreparedCallback {
                        write: CallbackWrite::Marking {
                            callback: *callback,
                            update: update.clone(),
                        },
                        at,
                    })
                    .await
                }

                async fn apply_status(
                    &self,
                    update: &StatusUpdate,
                ) -> Result<Option<StatusApplied>, StoreError> {
                    self.apply_alone(update).await
                }

                async fn store_callback_applying_status(
                    &self,
                    callback: &StoredCallback,
                    update: &StatusUpdate,
                    at: Timestamp,
                ) -> Result<Option<StatusApplied>, StoreError> {
                    self.write_callback(PreparedCallback {
                        write: CallbackWrite::StoreApplying {
                            callback: callback.clone(),
                            update: update.clone(),
                        },
                        at,
                    })
                    .await
                }

                async fn record_notice(
                    &self,
                    record: &herald_domain::notice::NoticeRecord,
                ) -> Result<bool, StoreError> {
                    self.record_notice_query(record).await
                }

                async fn message_by_network_id(
                    &self,
                    organization: &OrganizationId,
                    network_message_id: &str,
                ) -> Result<Option<Message>, StoreError> {
                    let mut conn = self.read().await?;
                    let row = messages::table
                        .filter(messages::organization_id.eq(organization.to_string()))
                        .filter(messages::network_message_id.eq(network_message_id))
                        .order(messages::id)
                        .select(MessageRow::as_select())
                        .first::<MessageRow>(&mut *conn)
                        .await
                        .optional()
                        .map_err(from_diesel)?;
                    row.map(Message::try_from).transpose()
                }

                async fn record_inbound_message(&self, record: &InboundRecord) -> Result<bool, StoreError> {
                    let inbound = &record.message;
                    let org = record.organization_id.to_string();
                    let sender = record.sender_id.to_string();
                    let content = to_json(
                        "inbound content",
                        &InboundContentDto::from(&inbound.content),
                    )?;
                    let recorded = write_tx!(self, |conn| {
                        let number = senders::table
                            .find(&sender)
                            .filter(senders::organization_id.eq(&org))
                            .select(senders::number)
                            .first::<String>(conn)
                            .await
                            .optional()?
                            .ok_or(StoreError::NotFound)?;
                        let number = PhoneNumber::parse(&number).map_err(|e| corrupt("sender number", e))?;
                        let context = match &inbound.context_message_id {
                            Some(wamid) => resolve_wamid(conn, &org, wamid).await?,
                            None => None,
                        };
                        let reaction = match inbound.content.reacted_to() {
                            Some(wamid) => resolve_wamid(conn, &org, wamid).await?,
                            None => None,
                        };
                        let links = InboundLinks { context, reaction };
                        let inserted = diesel::insert_into(inbound_messages::table)
                            .values((
                                inbound_messages::id.eq(record.id.to_string()),
                                inbound_messages::organization_id.eq(&org),
                                inbound_messages::sender_id.eq(&sender),
                                inbound_messages::from_number.eq(inbound.from.as_str()),
                                inbound_messages::network_message_id.eq(&inbound.network_message_id),
                                inbound_messages::message_type.eq(&inbound.message_type),
                                inbound_messages::content.eq(&content),
                                inbound_messages::from_name.eq(&inbound.from_name),
                                inbound_messages::context_message_id.eq(&inbound.context_message_id),
                                inbound_messages::raw.eq(&inbound.raw),
                                inbound_messages::received_at.eq(inbound.received_at),
                                inbound_messages::recorded_at.eq(record.recorded_at),
                                inbound_messages::media_id.eq(record.media_id.map(|id| id.to_string())),
                                inbound_messages::context_ref.eq(context.map(|id| id.to_string())),
                                inbound_messages::reaction_ref.eq(reaction.map(|id| id.to_string())),
                                inbound_messages::referral.eq(&inbound.referral),
                                inbound_messages::from_user_id
                                    .eq(inbound.from_user_id.as_ref().map(UserId::as_str)),
                                inbound_messages::source_field.eq(inbound.source_field.as_str()),
                                inbound_messages::echo.eq(inbound.echo),
                            ))
                            .on_conflict_do_nothing()
                            .execute(conn)
                            .await?;
                        if inserted == 0 {
                            // The network delivered this message before: everything was written then.
                            return Ok(false);
                        }
                        // Only the user's own message opens the service window; the business's echo does not.
                        if !inbound.echo {
                            refresh_window(
                                conn,
                                &org,
                                &sender,
                                inbound.from.as_str(),
                                inbound.received_at,
                            )
                            .await?;
                        }
                        let event = customer_event::inbound(record, &number, links);
                        insert_customer_event(conn, &CustomerEventRow::new(&event, None)?).await?;
                        Ok(true)
                    })
                    .map_err(TxError::into_store)?;
                    Ok(recorded)
                }

                async fn store_callback(&self, callback: &StoredCallback) -> Result<(), StoreError> {
                    self.write_callback(PreparedCallback {
                        write: CallbackWrite::Store(callback.clone()),
                        at: callback.received_at,
                    })
                    .await?;
                    Ok(())
                }

                async fn unprocessed_callbacks(
                    &self,
                    received_before: Timestamp,
                    limit: u32,
                    now: Timestamp,
                ) -> Result<CallbackPage, StoreError> {
                    let rows = {
                        let mut conn = self.read().await?;
                        network_callbacks::table
                            .filter(network_callbacks::processed_at.is_null())
                            .filter(network_callbacks::parked_at.is_null())
                            .filter(network_callbacks::received_at.lt(received_before))
                            .order((network_callbacks::received_at, network_callbacks::id))
                            .limit(i64::from(limit))
                            .select(CallbackRow::as_select())
                            .load::<CallbackRow>(&mut *conn)
                            .await
                            .map_err(from_diesel)?
                    };
                    let mut page = CallbackPage {
                        callbacks: Vec::with_capacity(rows.len()),
                        unreadable: 0,
                    };
                    for row in rows {
                        let id = row.id.clone();
                        match StoredCallback::try_from(row) {
                            Ok(callback) => page.callbacks.push(callback),
                            // Failing the page instead would fail every later sweep on the same row.
                            Err(error) => {
                                self.park_unreadable_callback(&id, now, &error).await?;
                                page.unreadable += 1;
                            }
                        }
                    }
                    Ok(page)
                }

                async fn mark_callback_processed(
                    &self,
                    id: &EventId,
                    at: Timestamp,
                    note: Option<String>,
                ) -> Result<(), StoreError> {
                    let mut conn = self.write().await?;
                    mark_processed(&mut conn, id, at, note)
                        .await
                        .map_err(TxError::into_store)
                }

                async fn record_callback_failure(
                    &self,
                    id: &EventId,
                    at: Timestamp,
                    error: &str,
                    park_after: u32,
                ) -> Result<bool, StoreError> {
                    let id = id.to_string();
                    let park_after = i32::try_from(park_after).unwrap_or(i32::MAX);
                    write_tx!(self, |conn| {
                        let counted = diesel::update(network_callbacks::table.find(&id))
                            .set((
                                network_callbacks::attempts.eq(network_callbacks::attempts + 1),
                                network_callbacks::last_error.eq(Some(error)),
                            ))
                            .execute(conn)
                            .await?;
                        if counted == 0 {
                            return Err(StoreError::NotFound.into());
                        }
                        diesel::update(
                            network_callbacks::table
                                .find(&id)
                                .filter(network_callbacks::parked_at.is_null())
                                .filter(network_callbacks::attempts.ge(park_after)),
                        )
                        .set(network_callbacks::parked_at.eq(Some(at)))
                        .execute(conn)
                        .await?;
                        let parked = network_callbacks::table
                            .find(&id)
                            .select(network_callbacks::parked_at)
                            .first::<Option<Timestamp>>(conn)
                            .await?;
                        Ok(parked.is_some())
                    })
                    .map_err(TxError::into_store)
                }

                async fn parked_callbacks(&self, limit: u32) -> Result<Vec<ParkedCallback>, StoreError> {
                    let mut conn = self.read().await?;
                    let rows = network_callbacks::table
                        .filter(network_callbacks::processed_at.is_null())
                        .filter(network_callbacks::parked_at.is_not_null())
                        .order((network_callbacks::received_at, network_callbacks::id))
                        .limit(i64::from(limit))
                        .select(ParkedCallbackRow::as_select())
                        .load::<ParkedCallbackRow>(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    convert(rows)
                }

                async fn count_parked_callbacks(&self) -> Result<u64, StoreError> {
                    let mut conn = self.read().await?;
                    let count: i64 = network_callbacks::table
                        .filter(network_callbacks::processed_at.is_null())
                        .filter(network_callbacks::parked_at.is_not_null())
                        .count()
                        .get_result(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    Ok(u64::try_from(count).unwrap_or_default())
                }

                async fn requeue_parked_callbacks(&self) -> Result<u64, StoreError> {
                    let mut conn = self.write().await?;
                    let requeued = diesel::update(
                        network_callbacks::table
                            .filter(network_callbacks::processed_at.is_null())
                            .filter(network_callbacks::parked_at.is_not_null()),
                    )
                    .set((
                        network_callbacks::parked_at.eq(None::<Timestamp>),
                        network_callbacks::attempts.eq(0),
                    ))
                    .execute(&mut *conn)
                    .await
                    .map_err(from_diesel)?;
                    Ok(requeued as u64)
                }
            }
        }
    };
}

pub(crate) use tracking_port;

//! The `MessageStore` port: accepts (group commit, see `crate::group_commit`), reads and usage.

macro_rules! messages_port {
    () => {
        pub(super) mod messages {
            use super::super::schema::{
                contacts, idempotency_keys, inbound_messages, message_events, messages, outbox,
                usage_counters,
            };
            use super::super::{Conn, Db};
            use super::shared::{convert, insert_customer_event, insert_status_event};
            use async_trait::async_trait;
            use diesel::prelude::*;
            use diesel_async::RunQueryDsl;
            use herald_domain::contact::{Contact, RecipientRefusal};
            use herald_domain::content::MessageRef;
            use herald_domain::ids::{MessageId, OrganizationId, SenderId};
            use herald_domain::message::{Message, StatusEvent};
            use herald_domain::ports::{
                AcceptOutcome, AcceptRequest, IdempotencyBegin, IdempotencyClaim, IdempotencyHold,
                MessageQuery, MessageStore, ReferencedMessage, StoreError,
            };
            use herald_domain::time::BillingPeriod;
            use $crate::error::{TxError, corrupt, from_diesel};
            use $crate::group_commit::{
                Pending, PreparedAccept, RecipientKeys, recipient_refusals_among, refusing_contacts,
            };
            use $crate::rows::{ContactRow, EventRow, IDEMPOTENCY_COMPLETED, JOB_PENDING, MessageRow};

            // ---- Group commit of accepts (see `crate::group_commit`) ----

            /// When a batch charges its quota.
            #[derive(Clone, Copy, PartialEq, Eq)]
            enum Charge {
                /// Quota first, item by item when a run does not fit whole: always right, but the counter
                /// row stays locked while the rows are written, so batches of one organization in flight
                /// at once wait for each other's whole transaction.
                First,
                /// Rows first, then one conditional increment per organization and period just before the
                /// commit, so the counter row is locked for the commit alone; a run that does not fit whole
                /// fails the transaction with `TxError::QuotaTight`, to be written again with `First`.
                Last,
            }

            /// Charges a whole run (one organization and period) with one statement; `false` when it does
            /// not fit under the lowest ceiling of its items. The row is locked until the commit and the
            /// condition is checked on the latest count, so the limit holds.
            async fn charge_run(conn: &mut Conn, items: &[&PreparedAccept]) -> Result<bool, TxError> {
                let Some(first) = items.first() else {
                    return Ok(true);
                };
                let run = i64::try_from(items.len()).unwrap_or(i64::MAX);
                let ceiling = items.iter().map(|i| i.ceiling).min().unwrap_or(i64::MAX);
                if run > ceiling {
                    return Ok(false);
                }
                let upsert = diesel::insert_into(usage_counters::table)
                    .values((
                        usage_counters::organization_id.eq(&first.message.organization_id),
                        usage_counters::period.eq(&first.period),
                        usage_counters::count.eq(run),
                    ))
                    .on_conflict((usage_counters::organization_id, usage_counters::period))
                    .do_update()
                    .set(
                        usage_counters::count
                            .eq(usage_counters::count + diesel::upsert::excluded(usage_counters::count)),
                    );
                // `ON CONFLICT … DO UPDATE … WHERE`: the upsert's own filter, not `QueryDsl::filter`.
                let counted = diesel::query_dsl::methods::FilterDsl::filter(
                    upsert,
                    usage_counters::count.le(ceiling - run),
                )
                .execute(conn)
                .await?;
                Ok(counted == 1)
            }

            /// Charges the quota of a run of accepts of one organization and period, in order, and answers
            /// each: when the whole run fits, one conditional increment; near the limit, one per item. A
            /// refusal is an item's answer and does not end the transaction.
            async fn charge_quota(
                conn: &mut Conn,
                items: &[&PreparedAccept],
            ) -> Result<Vec<AcceptOutcome>, TxError> {
                let Some(first) = items.first() else {
                    return Ok(Vec::new());
                };
                let (org, period) = (&first.message.organization_id, &first.period);
                diesel::insert_into(usage_counters::table)
                    .values((
                        usage_counters::organization_id.eq(org),
                        usage_counters::period.eq(period),
                        usage_counters::count.eq(0_i64),
                    ))
                    .on_conflict_do_nothing()
                    .execute(conn)
                    .await?;
                // The row lock of these UPDATEs serializes concurrent accepts of one organization, and the
                // condition is re-checked on the latest count, so the limit holds.
                let run = i64::try_from(items.len()).unwrap_or(i64::MAX);
                if run > 1 {
                    let ceiling = items.iter().map(|i| i.ceiling).min().unwrap_or(i64::MAX);
                    let counted = diesel::update(
                        usage_counters::table
                            .find((org, period))
                            .filter(usage_counters::count.le(ceiling.saturating_sub(run))),
                    )
                    .set(usage_counters::count.eq(usage_counters::count + run))
                    .execute(conn)
                    .await?;
                    if counted == 1 {
                        return Ok(vec![AcceptOutcome::Accepted; items.len()]);
                    }
                }
                let mut outcomes = Vec::with_capacity(items.len());
                for item in items {
                    let counted = diesel::update(
                        usage_counters::table
                            .find((org, period))
                            .filter(usage_counters::count.lt(item.ceiling)),
                    )
                    .set(usage_counters::count.eq(usage_counters::count + 1_i64))
                    .execute(conn)
                    .await?;
                    outcomes.push(if counted == 1 {
                        AcceptOutcome::Accepted
                    } else {
                        AcceptOutcome::QuotaExceeded
                    });
                }
                Ok(outcomes)
            }

            /// The rows of accepted items (`insert_accepted`), then the customer events their acceptance
            /// emits (a scheduled message's `scheduled`), after the messages they name and fanned out to the
            /// endpoints as every event is; the dispatchers are told there is work at commit.
            async fn insert_rows(conn: &mut Conn, items: &[&PreparedAccept]) -> Result<(), TxError> {
                super::super::insert_accepted(conn, items).await?;
                for event in items.iter().filter_map(|item| item.customer_event.as_ref()) {
                    insert_customer_event(conn, event).await?;
                }
                super::super::announce_work(conn).await
            }

            /// The first refusal each item's recipient gives its send (blocked; a marketing template to
            /// someone who stopped them), for the items that ask for the check: the contacts of the whole
            /// batch are read with one statement.
            async fn recipient_refusals(
                conn: &mut Conn,
                items: &[&PreparedAccept],
            ) -> Result<Vec<Option<RecipientRefusal>>, TxError> {
                let Some(keys) = RecipientKeys::of(items) else {
                    return Ok(vec![None; items.len()]);
                };
                let rows: Vec<ContactRow> = refusing_contacts!(keys).load::<ContactRow>(conn).await?;
                let found = rows
                    .into_iter()
                    .map(Contact::try_from)
                    .collect::<Result<Vec<Contact>, StoreError>>()?;
                Ok(recipient_refusals_among(items, &found))
            }

            /// Writes a batch of accepts (sorted by organization and period) inside the caller's
            /// transaction: each run's quota and the accepted items' message, event, outbox job and
            /// idempotency record (`insert_accepted`: one statement per table on PostgreSQL), the quota
            /// before or after the rows as `charge` says.
            async fn write_batch(
                conn: &mut Conn,
                all: &[&PreparedAccept],
                charge: Charge,
            ) -> Result<Vec<AcceptOutcome>, TxError> {
                // Each item's answer when it writes nothing: its idempotency claim was taken over by another
                // request, or its recipient refuses it (checked before the quota, so it is not counted). The
                // others go on.
                let mut settled: Vec<Option<AcceptOutcome>> = Vec::with_capacity(all.len());
                for item in all {
                    let held = super::idempotency::claim_held(conn, item).await?;
                    settled.push((!held).then_some(AcceptOutcome::IdempotencyClaimLost));
                }
                let refusals = recipient_refusals(conn, all).await?;
                for (answer, refusal) in settled.iter_mut().zip(refusals) {
                    if answer.is_none() {
                        *answer = refusal.map(AcceptOutcome::RecipientRefused);
                    }
                }
                let items: Vec<&PreparedAccept> = all
                    .iter()
                    .zip(&settled)
                    .filter(|(_, settled)| settled.is_none())
                    .map(|(item, _)| *item)
                    .collect();
                let runs = || {
                    items.chunk_by(|a, b| {
                        a.message.organization_id == b.message.organization_id && a.period == b.period
                    })
                };
                if charge == Charge::Last {
                    let ceilings = |run: &[&PreparedAccept]| run.iter().map(|i| i.ceiling).min();
                    if runs().any(|run| ceilings(run) < Some(i64::try_from(run.len()).unwrap_or(i64::MAX))) {
                        return Err(TxError::QuotaTight);
                    }
                    if !items.is_empty() {
                        insert_rows(conn, &items).await?;
                    }
                    // In the batch's (sorted) order, so two batches never wait for each other in a circle.
                    for run in runs() {
                        if !charge_run(conn, run).await? {
                            return Err(TxError::QuotaTight);
                        }
                    }
                    return Ok(settled
                        .into_iter()
                        .map(|settled| settled.unwrap_or(AcceptOutcome::Accepted))
                        .collect());
                }
                let mut outcomes = Vec::with_capacity(items.len());
                for run in runs() {
                    outcomes.extend(charge_quota(conn, run).await?);
                }
                let accepted: Vec<&PreparedAccept> = items
                    .iter()
                    .zip(&outcomes)
                    .filter(|(_, outcome)| **outcome == AcceptOutcome::Accepted)
                    .map(|(item, _)| *item)
                    .collect();
                if !accepted.is_empty() {
                    insert_rows(conn, &accepted).await?;
                }
                let mut outcomes = outcomes.into_iter();
                Ok(settled
                    .into_iter()
                    .map(|settled| {
                        settled.unwrap_or_else(|| outcomes.next().unwrap_or(AcceptOutcome::QuotaExceeded))
                    })
                    .collect())
            }

            /// One accepted item's rows, statement by statement.
            #[allow(
                dead_code,
                reason = "PostgreSQL writes a batch's rows with one statement per table"
            )]
            pub(in super::super) async fn insert_accepted_row(
                conn: &mut Conn,
                item: &PreparedAccept,
            ) -> Result<(), TxError> {
                let message = &item.message;
                let job = &item.job;
                let now = item.now;
                diesel::insert_into(messages::table)
                    .values((
                        (
                            messages::id.eq(&message.id),
                            messages::organization_id.eq(&message.organization_id),
                            messages::sender_id.eq(&message.sender_id),
                            messages::from_number.eq(&message.from_number),
                            messages::to_number.eq(&message.to_number),
                            messages::message_type.eq(&message.message_type),
                            messages::content.eq(&message.content),
                            messages::client_reference.eq(&message.client_reference),
                            messages::status.eq(&message.status),
                            messages::network_message_id.eq(&message.network_message_id),
                        ),
                        (
                            messages::error.eq(&message.error),
                            messages::created_at.eq(message.created_at),
                            messages::updated_at.eq(message.updated_at),
                            messages::accepted_at.eq(message.accepted_at),
                            messages::submitted_at.eq(message.submitted_at),
                            messages::sent_at.eq(message.sent_at),
                            messages::delivered_at.eq(message.delivered_at),
                            messages::read_at.eq(message.read_at),
                            messages::failed_at.eq(message.failed_at),
                            messages::trace_context.eq(&message.trace_context),
                            messages::scheduled_for.eq(message.scheduled_for),
                            messages::broadcast_id.eq(&message.broadcast_id),
                        ),
                    ))
                    .execute(conn)
                    .await?;
                insert_status_event(conn, &item.event).await?;
                diesel::insert_into(outbox::table)
                    .values((
                        outbox::id.eq(job.id.to_string()),
                        outbox::organization_id.eq(job.organization_id.to_string()),
                        outbox::message_id.eq(job.message_id.to_string()),
                        outbox::sender_id.eq(job.sender_id.to_string()),
                        outbox::state.eq(JOB_PENDING),
                        outbox::available_at.eq(job.available_at),
                        outbox::deadline.eq(job.deadline),
                        outbox::attempts.eq(0),
                        outbox::created_at.eq(now),
                        outbox::updated_at.eq(now),
                        outbox::broadcast_id.eq(&message.broadcast_id),
                    ))
                    .execute(conn)
                    .await?;
                if let (Some(key), Some(token)) = (&item.idempotency_key, &item.idempotency_token) {
                    diesel::update(
                        idempotency_keys::table
                            .find((&message.organization_id, key))
                            .filter(idempotency_keys::claim_token.eq(token)),
                    )
                    .set((
                        idempotency_keys::state.eq(IDEMPOTENCY_COMPLETED),
                        idempotency_keys::message_id.eq(Some(&message.id)),
                        idempotency_keys::completed_at.eq(Some(now)),
                    ))
                    .execute(conn)
                    .await?;
                }
                Ok(())
            }

            impl Db {
                /// One accept in its own transaction.
                async fn accept_alone(&self, item: &PreparedAccept) -> Result<AcceptOutcome, StoreError> {
                    let outcomes = write_tx!(self, |conn| write_batch(conn, &[item], Charge::First).await)
                        .map_err(TxError::into_store)?;
                    // One item in, one outcome out; anything else is a bug, not the client's quota.
                    let outcome = outcomes
                        .into_iter()
                        .next()
                        .ok_or_else(|| corrupt("accept", "the batch answered no outcome"))?;
                    if outcome == AcceptOutcome::Accepted {
                        self.work_committed();
                    }
                    Ok(outcome)
                }

                /// Writes a batch in one transaction and answers each waiter after the commit. When the
                /// transaction fails, each item is retried alone, so one bad item fails only itself; when
                /// the database is unreachable, the batch and everything queued answer `Unavailable` at once.
                async fn commit_accepts(&self, mut batch: Vec<Pending<PreparedAccept>>) {
                    // Counter rows are locked in one order by every process, so two batches never deadlock.
                    batch.sort_by(|a, b| {
                        (&a.item.message.organization_id, &a.item.period)
                            .cmp(&(&b.item.message.organization_id, &b.item.period))
                    });
                    let items: Vec<&PreparedAccept> = batch.iter().map(|pending| &pending.item).collect();
                    let (path, mut written) = match super::super::accept_batch_pipelined(self, &items).await {
                        Some(written) => ("pipelined", written),
                        None => (
                            "step_by_step",
                            write_tx!(@on self, self.batch_write(), |conn| write_batch(conn, &items, Charge::Last).await),
                        ),
                    };
                    if matches!(written, Err(TxError::QuotaTight)) {
                        // Near an organization's limit: charge item by item, before writing.
                        metrics::counter!("herald_group_commit_quota_retries_total").increment(1);
                        written =
                            write_tx!(@on self, self.batch_write(), |conn| write_batch(conn, &items, Charge::First).await);
                    }
                    match written {
                        Ok(outcomes) => {
                            metrics::counter!("herald_accept_batches_total", "path" => path).increment(1);
                            if outcomes.contains(&AcceptOutcome::Accepted) {
                                self.work_committed();
                            }
                            for (pending, outcome) in batch.into_iter().zip(outcomes) {
                                // A waiter that is gone (its client left) needs no answer.
                                let _ = pending.reply.send(Ok(outcome));
                            }
                        }
                        Err(error) => {
                            self.accepts
                                .answer_failed(batch, error.into_store(), |item| async move {
                                    self.accept_alone(&item).await
                                })
                                .await;
                        }
                    }
                }
            }

            #[async_trait]
            impl MessageStore for Db {
                async fn begin_idempotent(
                    &self,
                    claim: &IdempotencyClaim,
                ) -> Result<IdempotencyBegin, StoreError> {
                    super::idempotency::begin(self, claim).await
                }

                async fn release_idempotent(
                    &self,
                    organization: &OrganizationId,
                    hold: &IdempotencyHold,
                ) -> Result<(), StoreError> {
                    super::idempotency::release(self, organization, hold).await
                }

                async fn accept(&self, request: &AcceptRequest) -> Result<AcceptOutcome, StoreError> {
                    let prepared = PreparedAccept::new(request)?;
                    // Group commit needs a runtime to write batches on, and the store's own handle.
                    let this = self.this.get().and_then(std::sync::Weak::upgrade);
                    let Some(this) = this.filter(|_| tokio::runtime::Handle::try_current().is_ok()) else {
                        return self.accept_alone(&prepared).await;
                    };
                    $crate::group_commit::submit(
                        &this,
                        |db| &db.accepts,
                        prepared,
                        |db, batch| Box::pin(db.commit_accepts(batch)),
                    )
                    .await
                }

                async fn message(
                    &self,
                    organization: &OrganizationId,
                    id: &MessageId,
                ) -> Result<Option<Message>, StoreError> {
                    let mut conn = self.read().await?;
                    let row = messages::table
                        .find(id.to_string())
                        .filter(messages::organization_id.eq(organization.to_string()))
                        .select(MessageRow::as_select())
                        .first::<MessageRow>(&mut *conn)
                        .await
                        .optional()
                        .map_err(from_diesel)?;
                    row.map(Message::try_from).transpose()
                }

                async fn referenced(
                    &self,
                    organization: &OrganizationId,
                    reference: &MessageRef,
                ) -> Result<Option<ReferencedMessage>, StoreError> {
                    let mut conn = self.read().await?;
                    let org = organization.to_string();
                    // (business sender, customer, network id): an outbound message's `to`, an inbound one's `from`.
                    let inbound = |id: String| {
                        inbound_messages::table
                            .find(id)
                            .filter(inbound_messages::organization_id.eq(&org))
                            .select((
                                inbound_messages::sender_id,
                                inbound_messages::from_number,
                                inbound_messages::network_message_id.nullable(),
                            ))
                    };
                    let row: Option<(String, String, Option<String>)> = match reference {
                        MessageRef::Outbound(id) => {
                            let sent = messages::table
                                .find(id.to_string())
                                .filter(messages::organization_id.eq(&org))
                                .select((
                                    messages::sender_id,
                                    messages::to_number,
                                    messages::network_message_id,
                                ))
                                .first(&mut *conn)
                                .await
                                .optional()
                                .map_err(from_diesel)?;
                            match sent {
                                Some(row) => Some(row),
                                // Inbound messages recorded before they had `inb_` ids carried `msg_` ids, and
                                // events already delivered still name them so; the migration kept their ULIDs.
                                None => {
                                    inbound(herald_domain::ids::InboundId::from_ulid(id.ulid()).to_string())
                                        .first(&mut *conn)
                                        .await
                                        .optional()
                                        .map_err(from_diesel)?
                                }
                            }
                        }
                        MessageRef::Inbound(id) => inbound(id.to_string())
                            .first(&mut *conn)
                            .await
                            .optional()
                            .map_err(from_diesel)?,
                    };
                    row.map(|(sender, counterpart, network_message_id)| {
                        Ok(ReferencedMessage {
                            sender_id: SenderId::parse(&sender).map_err(|e| corrupt("sender id", e))?,
                            counterpart: herald_domain::contact::Recipient::parse_stored(&counterpart)
                                .map_err(|e| corrupt("message counterpart", e))?,
                            network_message_id,
                        })
                    })
                    .transpose()
                }

                async fn messages(
                    &self,
                    organization: &OrganizationId,
                    query: &MessageQuery,
                ) -> Result<Vec<Message>, StoreError> {
                    let mut select = messages::table
                        .filter(messages::organization_id.eq(organization.to_string()))
                        .into_boxed();
                    if let Some(status) = query.status {
                        select = select.filter(messages::status.eq(status.as_str()));
                    }
                    if let Some(to) = &query.to {
                        select = select.filter(messages::to_number.eq(to.as_str().to_owned()));
                    }
                    if let Some(message_type) = query.message_type {
                        select = select.filter(messages::message_type.eq(message_type.as_str()));
                    }
                    if let Some(reference) = &query.client_reference {
                        select = select.filter(messages::client_reference.eq(reference.as_str().to_owned()));
                    }
                    if let Some(broadcast) = &query.broadcast {
                        select = select.filter(messages::broadcast_id.eq(broadcast.to_string()));
                    }
                    if let Some(after) = query.created_after {
                        select = select.filter(messages::created_at.ge(after));
                    }
                    if let Some(before) = query.created_before {
                        select = select.filter(messages::created_at.lt(before));
                    }
                    if let Some(cursor) = &query.before {
                        select = select.filter(messages::id.lt(cursor.to_string()));
                    }
                    let mut conn = self.read().await?;
                    let rows = select
                        .order(messages::id.desc())
                        .limit(i64::from(query.limit))
                        .select(MessageRow::as_select())
                        .load::<MessageRow>(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    convert(rows)
                }

                async fn status_history(
                    &self,
                    organization: &OrganizationId,
                    id: &MessageId,
                ) -> Result<Option<Vec<StatusEvent>>, StoreError> {
                    let org = organization.to_string();
                    let id = id.to_string();
                    let mut conn = self.read().await?;
                    let exists = messages::table
                        .find(&id)
                        .filter(messages::organization_id.eq(&org))
                        .select(messages::id)
                        .first::<String>(&mut *conn)
                        .await
                        .optional()
                        .map_err(from_diesel)?;
                    if exists.is_none() {
                        return Ok(None);
                    }
                    let rows = message_events::table
                        .filter(message_events::organization_id.eq(&org))
                        .filter(message_events::message_id.eq(&id))
                        .order(message_events::id)
                        .select(EventRow::as_select())
                        .load::<EventRow>(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    convert(rows).map(Some)
                }

                async fn usage(
                    &self,
                    organization: &OrganizationId,
                    period: &BillingPeriod,
                ) -> Result<u64, StoreError> {
                    let mut conn = self.read().await?;
                    let count = usage_counters::table
                        .find((organization.to_string(), period.as_str()))
                        .select(usage_counters::count)
                        .first::<i64>(&mut *conn)
                        .await
                        .optional()
                        .map_err(from_diesel)?;
                    u64::try_from(count.unwrap_or(0)).map_err(|e| $crate::error::corrupt("usage count", e))
                }
            }
        }
    };
}

pub(crate) use messages_port;

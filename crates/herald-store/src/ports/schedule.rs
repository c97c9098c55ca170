//! The `ScheduleStore` port: cancelling a message its dispatch has not claimed.

macro_rules! schedule_port {
    () => {
        mod schedule {
            use super::super::schema::{messages, outbox, usage_counters};
            use super::super::{Conn, Db};
            use super::tracking::apply_one_in_tx;
            use async_trait::async_trait;
            use diesel::prelude::*;
            use diesel_async::RunQueryDsl;
            use herald_domain::message::Message;
            use herald_domain::ports::{CancelOutcome, ScheduleStore, StoreError};
            use herald_domain::status::{StatusUpdate, Transition};
            use herald_domain::time::BillingPeriod;
            use $crate::error::{TxError, corrupt};
            use $crate::rows::{JOB_PENDING, MessageRow};

            /// [`ScheduleStore::cancel`] inside the caller's transaction.
            async fn cancel_in_tx(conn: &mut Conn, update: &StatusUpdate) -> Result<CancelOutcome, TxError> {
                let org = update.organization_id.to_string();
                let id = update.message_id.to_string();
                // The job goes first, and only while no claim ever took it: a claim locks the row
                // (`FOR UPDATE SKIP LOCKED`) and marks it in flight, so this DELETE either waits for
                // that claim and then finds nothing to delete, or deletes the job before any claim
                // can see it. Locking the job before the message keeps the order every completion
                // takes (job, then message), so a cancel and a completion never wait in a circle.
                let deleted = diesel::delete(
                    outbox::table
                        .filter(outbox::message_id.eq(&id))
                        .filter(outbox::organization_id.eq(&org))
                        .filter(outbox::state.eq(JOB_PENDING))
                        .filter(outbox::attempts.eq(0))
                        .filter(outbox::awaiting_callback.eq(false)),
                )
                .execute(conn)
                .await?;
                if deleted == 0 {
                    let row = messages::table
                        .find(&id)
                        .filter(messages::organization_id.eq(&org))
                        .select(MessageRow::as_select())
                        .first::<MessageRow>(conn)
                        .await
                        .optional()?;
                    return Ok(match row {
                        Some(row) => CancelOutcome::NotCancellable(Message::try_from(row)?),
                        None => CancelOutcome::NotFound,
                    });
                }
                let Some(applied) = apply_one_in_tx(conn, update).await? else {
                    return Err(TxError::from(corrupt(
                        "outbox job",
                        "its message is missing",
                    )));
                };
                if !matches!(applied.transition, Transition::Applied { .. }) {
                    // An unclaimed, never attempted job belongs to a message not dispatched yet; a
                    // message past that with such a job is a broken row: roll the delete back.
                    return Err(TxError::from(corrupt(
                        "outbox job",
                        "an unclaimed job's message was already dispatched",
                    )));
                }
                // The quota was charged when the message was accepted, in the period of its
                // `created_at`: that period's count gets it back.
                let period = BillingPeriod::containing(applied.message.created_at);
                diesel::update(
                    usage_counters::table
                        .find((&org, period.as_str()))
                        .filter(usage_counters::count.gt(0_i64)),
                )
                .set(usage_counters::count.eq(usage_counters::count - 1_i64))
                .execute(conn)
                .await?;
                Ok(CancelOutcome::Cancelled(applied.message))
            }

            #[async_trait]
            impl ScheduleStore for Db {
                async fn cancel(&self, update: &StatusUpdate) -> Result<CancelOutcome, StoreError> {
                    let outcome = write_tx!(self, |conn| cancel_in_tx(conn, update).await)
                        .map_err(TxError::into_store)?;
                    Ok(outcome)
                }

                async fn cancel_many(&self, updates: &[StatusUpdate]) -> Result<u32, StoreError> {
                    let cancelled = write_tx!(self, |conn| {
                        let mut cancelled = 0_u32;
                        for update in updates {
                            if matches!(
                                cancel_in_tx(conn, update).await?,
                                CancelOutcome::Cancelled(_)
                            ) {
                                cancelled += 1;
                            }
                        }
                        Ok(cancelled)
                    })
                    .map_err(TxError::into_store)?;
                    Ok(cancelled)
                }
            }
        }
    };
}

pub(crate) use schedule_port;

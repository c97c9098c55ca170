//! Idempotency records: the claims `MessageStore::begin_idempotent`/`release_idempotent` take and
//! give back, and the check a group commit makes before completing one.

macro_rules! idempotency_port {
    () => {
        mod idempotency {
            use super::super::schema::idempotency_keys;
            use super::super::{Conn, Db};
            use diesel::prelude::*;
            use diesel_async::RunQueryDsl;
            use herald_domain::ids::OrganizationId;
            use herald_domain::ports::{IdempotencyBegin, IdempotencyClaim, IdempotencyHold, StoreError};
            use herald_domain::time::Timestamp;
            use $crate::error::{TxError, from_diesel};
            use $crate::group_commit::PreparedAccept;
            use $crate::rows::{IDEMPOTENCY_COMPLETED, IDEMPOTENCY_PENDING, IdempotencyRow};

            pub(super) async fn begin(
                db: &Db,
                claim: &IdempotencyClaim,
            ) -> Result<IdempotencyBegin, StoreError> {
                let org = claim.organization_id.to_string();
                let key = claim.key.as_str();
                let fingerprint = claim.fingerprint.to_hex();
                let token = claim.token.as_string();
                write_tx!(db, |conn| {
                    // A record can be released or taken over between our statements; a few rounds
                    // settle it, and endless contention on one key is overload, not a bug.
                    for _ in 0..3 {
                        let inserted = diesel::insert_into(idempotency_keys::table)
                            .values((
                                idempotency_keys::organization_id.eq(&org),
                                idempotency_keys::key.eq(key),
                                idempotency_keys::fingerprint.eq(&fingerprint),
                                idempotency_keys::state.eq(IDEMPOTENCY_PENDING),
                                idempotency_keys::locked_at.eq(claim.now),
                                idempotency_keys::claim_token.eq(&token),
                            ))
                            .on_conflict_do_nothing()
                            .execute(conn)
                            .await?;
                        if inserted == 1 {
                            return Ok(IdempotencyBegin::Started);
                        }
                        // The take-over is one conditional UPDATE, so of two racers only one wins.
                        let stale = idempotency_keys::state
                            .eq(IDEMPOTENCY_PENDING)
                            .and(idempotency_keys::locked_at.lt(claim.lock_until))
                            .or(idempotency_keys::state.eq(IDEMPOTENCY_COMPLETED).and(
                                idempotency_keys::completed_at
                                    .assume_not_null()
                                    .lt(claim.completed_after),
                            ));
                        let taken = diesel::update(idempotency_keys::table.find((&org, key)).filter(stale))
                            .set((
                                idempotency_keys::fingerprint.eq(&fingerprint),
                                idempotency_keys::state.eq(IDEMPOTENCY_PENDING),
                                idempotency_keys::message_id.eq(None::<String>),
                                idempotency_keys::locked_at.eq(claim.now),
                                idempotency_keys::completed_at.eq(None::<Timestamp>),
                                idempotency_keys::claim_token.eq(&token),
                            ))
                            .execute(conn)
                            .await?;
                        if taken == 1 {
                            return Ok(IdempotencyBegin::Started);
                        }
                        let existing = idempotency_keys::table
                            .find((&org, key))
                            .select(IdempotencyRow::as_select())
                            .first::<IdempotencyRow>(conn)
                            .await
                            .optional()?;
                        // Gone (released) or stale again (another racer's claim already lapsed):
                        // go round once more.
                        if let Some(existing) = existing
                            && let Some(answer) = existing.answer(claim.lock_until, claim.completed_after)?
                        {
                            return Ok(answer);
                        }
                    }
                    Err(StoreError::Unavailable("idempotency key is contended".to_owned()).into())
                })
                .map_err(TxError::into_store)
            }

            pub(super) async fn release(
                db: &Db,
                organization: &OrganizationId,
                hold: &IdempotencyHold,
            ) -> Result<(), StoreError> {
                let mut conn = db.write().await?;
                diesel::delete(
                    idempotency_keys::table
                        .find((organization.to_string(), hold.key.as_str()))
                        .filter(idempotency_keys::state.eq(IDEMPOTENCY_PENDING))
                        .filter(idempotency_keys::claim_token.eq(hold.token.as_string())),
                )
                .execute(&mut *conn)
                .await
                .map_err(from_diesel)?;
                Ok(())
            }

            /// Whether the item's idempotency claim (if it has one) still holds its key: the record is
            /// pending under the claim's token. On PostgreSQL the no-op update also locks the record until
            /// the commit, so no take-over can slip in between this check and the completion.
            pub(super) async fn claim_held(conn: &mut Conn, item: &PreparedAccept) -> Result<bool, TxError> {
                let (Some(key), Some(token)) = (&item.idempotency_key, &item.idempotency_token) else {
                    return Ok(true);
                };
                let held = diesel::update(
                    idempotency_keys::table
                        .find((&item.message.organization_id, key))
                        .filter(idempotency_keys::state.eq(IDEMPOTENCY_PENDING))
                        .filter(idempotency_keys::claim_token.eq(token)),
                )
                .set(idempotency_keys::locked_at.eq(idempotency_keys::locked_at))
                .execute(conn)
                .await?;
                Ok(held == 1)
            }
        }
    };
}

pub(crate) use idempotency_port;

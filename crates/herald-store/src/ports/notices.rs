//! Notices (`TrackingStore::record_notice`): the network's news about templates, numbers and accounts,
//! written with their customer event in one transaction, once per organization and notice key.

macro_rules! notices_port {
    () => {
        mod notices {
            use super::super::schema::{events, senders, templates};
            use super::super::{Conn, Db};
            use super::shared::insert_customer_event;
            use diesel::prelude::*;
            use diesel_async::RunQueryDsl;
            use herald_domain::notice::{self, NoticeRecord, SenderQuality, TemplateState};
            use herald_domain::ports::StoreError;
            use herald_domain::template::{TemplateHealth, TemplateStatus};
            use $crate::error::{TxError, corrupt};
            use $crate::rows::{CustomerEventRow, TemplateRow};

            /// The parts of a stored copy a notice may change.
            fn state_of(row: &TemplateRow) -> Result<TemplateState, TxError> {
                Ok(TemplateState {
                    status: TemplateStatus::parse(&row.status).map_err(|e| corrupt("template status", e))?,
                    category: row.category.clone(),
                    health: row.health().map_err(TxError::from)?,
                })
            }

            async fn record_in_tx(conn: &mut Conn, record: &NoticeRecord) -> Result<bool, TxError> {
                let org = record.organization_id.to_string();
                let key = &record.notice.dedupe_key;
                let seen = events::table
                    .filter(events::organization_id.eq(&org))
                    .filter(events::dedupe_key.eq(key))
                    .select(events::id)
                    .first::<String>(conn)
                    .await
                    .optional()?;
                if seen.is_some() {
                    return Ok(false);
                }
                let row = match notice::template_of(&record.notice) {
                    Some(named) => for_update!(
                        templates::table
                            .filter(templates::organization_id.eq(&org))
                            .filter(templates::waba_id.eq(record.notice.waba_id.as_str()))
                            .filter(templates::name.eq(named.name.as_str()))
                            .filter(templates::language.eq(named.language.as_str()))
                            .select(TemplateRow::as_select())
                    )
                    .first::<TemplateRow>(conn)
                    .await
                    .optional()?,
                    None => None,
                };
                let state = row.as_ref().map(state_of).transpose()?;
                let quality = match &record.sender {
                    Some(sender) => for_update!(
                        senders::table
                            .find(sender.id.to_string())
                            .filter(senders::organization_id.eq(&org))
                            .select((
                                senders::quality_rating,
                                senders::messaging_limit,
                                senders::quality_updated_at,
                            ))
                    )
                    .first::<(
                        Option<String>,
                        Option<String>,
                        Option<chrono::DateTime<chrono::Utc>>,
                    )>(conn)
                    .await
                    .optional()?
                    .map(
                        |(quality_rating, messaging_limit, quality_updated_at)| SenderQuality {
                            quality_rating,
                            messaging_limit,
                            quality_updated_at,
                        },
                    ),
                    None => None,
                };
                let decision = notice::decide(record, state.as_ref(), quality.as_ref());
                if let (Some(row), Some(next)) = (&row, &decision.template) {
                    let TemplateHealth {
                        quality,
                        rejected_reason,
                        updated_at,
                    } = &next.health;
                    diesel::update(templates::table.find(&row.id))
                        .set((
                            templates::status.eq(next.status.as_str()),
                            templates::category.eq(&next.category),
                            templates::quality.eq(quality.as_ref().map(|q| q.as_str())),
                            templates::rejected_reason.eq(rejected_reason.as_deref()),
                            templates::updated_at.eq(updated_at),
                        ))
                        .execute(conn)
                        .await?;
                }
                if let (Some(sender), Some(next)) = (&record.sender, &decision.sender) {
                    diesel::update(
                        senders::table
                            .find(sender.id.to_string())
                            .filter(senders::organization_id.eq(&org)),
                    )
                    .set((
                        senders::quality_rating.eq(next.quality_rating.as_deref()),
                        senders::messaging_limit.eq(next.messaging_limit.as_deref()),
                        senders::quality_updated_at.eq(next.quality_updated_at),
                    ))
                    .execute(conn)
                    .await?;
                }
                insert_customer_event(conn, &CustomerEventRow::notice(&decision.event)?).await?;
                Ok(true)
            }

            impl Db {
                /// `TrackingStore::record_notice`.
                pub(super) async fn record_notice_query(
                    &self,
                    record: &NoticeRecord,
                ) -> Result<bool, StoreError> {
                    let recorded = match write_tx!(self, |conn| record_in_tx(conn, record).await)
                        .map_err(TxError::into_store)
                    {
                        // Two processings of one callback at once (the receiving task and the backlog
                        // sweep): the key's unique index stops the second, which wrote nothing.
                        Err(StoreError::Conflict(detail)) if detail.contains("dedupe_key") => false,
                        other => other?,
                    };
                    Ok(recorded)
                }
            }
        }
    };
}

pub(crate) use notices_port;

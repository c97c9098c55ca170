//! Helpers several ports share inside a write transaction: existence checks, the organization lock, the
//! history and customer-event rows with their fan-out, and the admin queries.

macro_rules! shared_port {
    () => {
        pub(super) mod shared {
            use super::super::schema::{
                events, message_events, organizations, plans, webhook_deliveries, webhook_endpoints,
            };
            use super::super::{Conn, Db};
            use diesel::prelude::*;
            use diesel_async::RunQueryDsl;
            use herald_domain::customer_event::CustomerEventType;
            use herald_domain::ids::{EventId, OrganizationId, WebhookId};
            use herald_domain::ports::StoreError;
            use herald_domain::time::Timestamp;
            use $crate::backend::CustomerEventRecord;
            use $crate::error::{TxError, corrupt, from_diesel};
            use $crate::rows::{
                CustomerEventRow, DELIVERY_PENDING, DELIVERY_SKIPPED, EventRow, WebhookEndpointRow,
                fan_out_delivery_id, parse_event_type,
            };

            /// A delivery row as written: no attempts yet, no claim.
            pub(in super::super) struct NewDelivery<'a> {
                pub(in super::super) id: String,
                pub(in super::super) organization_id: &'a str,
                pub(in super::super) endpoint_id: &'a str,
                pub(in super::super) event_id: &'a str,
                pub(in super::super) event_type: &'a str,
                pub(in super::super) status: &'static str,
                pub(in super::super) next_attempt_at: Option<Timestamp>,
                pub(in super::super) at: Timestamp,
            }

            pub(in super::super) async fn insert_delivery(
                conn: &mut Conn,
                delivery: &NewDelivery<'_>,
            ) -> Result<(), TxError> {
                diesel::insert_into(webhook_deliveries::table)
                    .values((
                        webhook_deliveries::id.eq(&delivery.id),
                        webhook_deliveries::organization_id.eq(delivery.organization_id),
                        webhook_deliveries::endpoint_id.eq(delivery.endpoint_id),
                        webhook_deliveries::event_id.eq(delivery.event_id),
                        webhook_deliveries::event_type.eq(delivery.event_type),
                        webhook_deliveries::status.eq(delivery.status),
                        webhook_deliveries::attempts.eq(0),
                        webhook_deliveries::next_attempt_at.eq(delivery.next_attempt_at),
                        webhook_deliveries::created_at.eq(delivery.at),
                        webhook_deliveries::updated_at.eq(delivery.at),
                    ))
                    .execute(conn)
                    .await?;
                Ok(())
            }

            /// Converts loaded rows, failing on the first corrupt one.
            pub(super) fn convert<R, T>(rows: Vec<R>) -> Result<Vec<T>, StoreError>
            where
                T: TryFrom<R, Error = StoreError>,
            {
                rows.into_iter().map(T::try_from).collect()
            }

            /// Whether the organization exists, read inside a write transaction.
            pub(super) async fn organization_exists(conn: &mut Conn, id: &str) -> Result<bool, TxError> {
                let found = organizations::table
                    .find(id)
                    .select(organizations::id)
                    .first::<String>(conn)
                    .await
                    .optional()?;
                Ok(found.is_some())
            }

            /// Locks the organization's row for the rest of the transaction: the lock concurrent writers that
            /// check a per-organization limit take in turn (PostgreSQL; SQLite's single writer serializes
            /// them anyway).
            ///
            /// # Errors
            /// [`StoreError::NotFound`] when there is no such organization.
            pub(super) async fn lock_organization(conn: &mut Conn, id: &str) -> Result<(), TxError> {
                let found = for_update!(organizations::table.find(id).select(organizations::id))
                    .first::<String>(conn)
                    .await
                    .optional()?;
                match found {
                    Some(_) => Ok(()),
                    None => Err(StoreError::NotFound.into()),
                }
            }

            pub(super) async fn plan_exists(conn: &mut Conn, name: &str) -> Result<bool, TxError> {
                let found = plans::table
                    .find(name)
                    .select(plans::name)
                    .first::<String>(conn)
                    .await
                    .optional()?;
                Ok(found.is_some())
            }

            pub(in super::super) async fn insert_status_event(
                conn: &mut Conn,
                event: &EventRow,
            ) -> Result<(), TxError> {
                diesel::insert_into(message_events::table)
                    .values((
                        message_events::id.eq(&event.id),
                        message_events::organization_id.eq(&event.organization_id),
                        message_events::message_id.eq(&event.message_id),
                        message_events::status.eq(&event.status),
                        message_events::previous_status.eq(&event.previous_status),
                        message_events::applied.eq(event.applied),
                        message_events::source.eq(&event.source),
                        message_events::error.eq(&event.error),
                        message_events::occurred_at.eq(event.occurred_at),
                        message_events::recorded_at.eq(event.recorded_at),
                    ))
                    .execute(conn)
                    .await?;
                Ok(())
            }

            /// Writes one row of `events`, and nothing else.
            pub(in super::super) async fn insert_event_row(
                conn: &mut Conn,
                event: &CustomerEventRow,
            ) -> Result<(), TxError> {
                diesel::insert_into(events::table)
                    .values((
                        events::id.eq(&event.id),
                        events::organization_id.eq(&event.organization_id),
                        events::event_type.eq(&event.event_type),
                        events::message_id.eq(&event.message_id),
                        events::sequence.eq(event.sequence),
                        events::payload.eq(&event.payload),
                        events::occurred_at.eq(event.occurred_at),
                        events::created_at.eq(event.created_at),
                        events::trace_context.eq(&event.trace_context),
                        events::dedupe_key.eq(&event.dedupe_key),
                    ))
                    .execute(conn)
                    .await?;
                Ok(())
            }

            /// THE place customer events are written: the event rows and, in the same transaction, their
            /// fan-out (`WebhookStore`'s rule): one delivery per endpoint of the event's organization whose
            /// selection includes the event's type, `pending` and due at the event's recording time when
            /// the endpoint is enabled, `skipped` when it is not. Recording time rather than the network's
            /// `occurred_at`, which may lie in Herald's future by clock skew and would hold the delivery.
            /// A set of events costs the same statements as one: the rows, one read of the endpoints of
            /// their organizations, the deliveries (each one statement on PostgreSQL) and one notice.
            pub(super) async fn insert_customer_events(
                conn: &mut Conn,
                events: &[&CustomerEventRow],
            ) -> Result<(), TxError> {
                if events.is_empty() {
                    return Ok(());
                }
                super::super::insert_event_rows(conn, events).await?;
                let mut fanned = Vec::with_capacity(events.len());
                for event in events {
                    let event_type = parse_event_type(&event.event_type)?;
                    // A test event goes to the one endpoint it was sent to (`record_test_event`).
                    if event_type != CustomerEventType::WebhookTest {
                        let id = EventId::parse(&event.id).map_err(|e| corrupt("event id", e))?;
                        fanned.push((*event, event_type, id));
                    }
                }
                if fanned.is_empty() {
                    return Ok(());
                }
                let mut organizations: Vec<&str> = fanned
                    .iter()
                    .map(|(e, _, _)| e.organization_id.as_str())
                    .collect();
                organizations.sort_unstable();
                organizations.dedup();
                let endpoints = webhook_endpoints::table
                    .filter(webhook_endpoints::organization_id.eq_any(&organizations))
                    .order(webhook_endpoints::id)
                    .select(WebhookEndpointRow::as_select())
                    .load::<WebhookEndpointRow>(conn)
                    .await?;
                let endpoints = endpoints
                    .iter()
                    .map(|endpoint| {
                        let id = WebhookId::parse(&endpoint.id).map_err(|e| corrupt("webhook id", e))?;
                        Ok((endpoint, id))
                    })
                    .collect::<Result<Vec<_>, TxError>>()?;
                let mut deliveries = Vec::new();
                for (event, event_type, event_id) in &fanned {
                    for (endpoint, endpoint_id) in endpoints.iter().filter(|(endpoint, _)| {
                        endpoint.organization_id == event.organization_id
                            && endpoint.events().includes(*event_type)
                    }) {
                        let (status, next_attempt_at) = if endpoint.enabled {
                            (DELIVERY_PENDING, Some(event.created_at))
                        } else {
                            (DELIVERY_SKIPPED, None)
                        };
                        deliveries.push(NewDelivery {
                            id: fan_out_delivery_id(event_id, endpoint_id).to_string(),
                            organization_id: &event.organization_id,
                            endpoint_id: &endpoint.id,
                            event_id: &event.id,
                            event_type: &event.event_type,
                            status,
                            next_attempt_at,
                            at: event.created_at,
                        });
                    }
                }
                if deliveries.is_empty() {
                    return Ok(());
                }
                super::super::insert_deliveries(conn, &deliveries).await?;
                if deliveries.iter().any(|d| d.status == DELIVERY_PENDING) {
                    super::super::announce_webhooks(conn).await?;
                }
                Ok(())
            }

            /// One customer event ([`insert_customer_events`]).
            pub(super) async fn insert_customer_event(
                conn: &mut Conn,
                event: &CustomerEventRow,
            ) -> Result<(), TxError> {
                insert_customer_events(conn, &[event]).await
            }

            impl Db {
                /// A trivial query on a reading connection: the store is reachable.
                pub(crate) async fn ping_query(&self) -> Result<(), StoreError> {
                    let mut conn = self.read().await?;
                    diesel::sql_query("SELECT 1")
                        .execute(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    Ok(())
                }

                /// The organization's customer events, oldest first.
                pub(crate) async fn customer_events_query(
                    &self,
                    organization: &OrganizationId,
                ) -> Result<Vec<CustomerEventRecord>, StoreError> {
                    let mut conn = self.read().await?;
                    let rows = events::table
                        .filter(events::organization_id.eq(organization.to_string()))
                        .order(events::id)
                        .select(CustomerEventRow::as_select())
                        .load::<CustomerEventRow>(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    convert(rows)
                }
            }
        }
    };
}

pub(crate) use shared_port;

//! The `InboundStore` port: inbound messages as resources (list, one, read), and the lookup that turns
//! the wamid an inbound message replies or reacts to into Herald's id when it is recorded.

macro_rules! inbound_port {
    () => {
        mod inbound {
            use super::super::schema::{inbound_messages, messages, senders};
            use super::super::{Conn, Db};
            use async_trait::async_trait;
            use diesel::prelude::*;
            use diesel_async::RunQueryDsl;
            use herald_domain::content::MessageRef;
            use herald_domain::ids::{InboundId, MessageId, OrganizationId};
            use herald_domain::ports::{InboundQuery, InboundStore, InboundView, StoreError};
            use herald_domain::time::Timestamp;
            use herald_domain::values::PhoneNumber;
            use std::collections::HashMap;
            use $crate::error::{TxError, corrupt, from_diesel};
            use $crate::rows::InboundRow;

            /// Herald's id of the organization's message with this wamid: one it sent (`msg_`), else one
            /// it received (`inb_`); `None` when Herald knows no such message.
            pub(super) async fn resolve_wamid(
                conn: &mut Conn,
                org: &str,
                wamid: &str,
            ) -> Result<Option<MessageRef>, TxError> {
                let sent = messages::table
                    .filter(messages::organization_id.eq(org))
                    .filter(messages::network_message_id.eq(wamid))
                    .order(messages::id)
                    .select(messages::id)
                    .first::<String>(conn)
                    .await
                    .optional()?;
                if let Some(id) = sent {
                    let id = MessageId::parse(&id).map_err(|e| corrupt("message id", e))?;
                    return Ok(Some(MessageRef::Outbound(id)));
                }
                let received = inbound_messages::table
                    .filter(inbound_messages::organization_id.eq(org))
                    .filter(inbound_messages::network_message_id.eq(wamid))
                    .select(inbound_messages::id)
                    .first::<String>(conn)
                    .await
                    .optional()?;
                received
                    .map(|id| {
                        InboundId::parse(&id)
                            .map(MessageRef::Inbound)
                            .map_err(|e| corrupt("inbound id", e).into())
                    })
                    .transpose()
            }

            /// The organization's sender numbers by sender id: each resource's `to`.
            async fn numbers(conn: &mut Conn, org: &str) -> Result<HashMap<String, PhoneNumber>, StoreError> {
                let rows = senders::table
                    .filter(senders::organization_id.eq(org))
                    .select((senders::id, senders::number))
                    .load::<(String, String)>(conn)
                    .await
                    .map_err(from_diesel)?;
                rows.into_iter()
                    .map(|(id, number)| {
                        PhoneNumber::parse(&number)
                            .map(|number| (id, number))
                            .map_err(|e| corrupt("sender number", e))
                    })
                    .collect()
            }

            fn views(
                rows: Vec<InboundRow>,
                numbers: &HashMap<String, PhoneNumber>,
            ) -> Result<Vec<InboundView>, StoreError> {
                rows.into_iter()
                    .map(|row| {
                        let to = numbers
                            .get(&row.sender_id)
                            .cloned()
                            .ok_or_else(|| corrupt("inbound sender", "not a sender of the organization"))?;
                        row.into_view(to)
                    })
                    .collect()
            }

            async fn one(conn: &mut Conn, org: &str, id: &str) -> Result<Option<InboundView>, StoreError> {
                let row = inbound_messages::table
                    .find(id)
                    .filter(inbound_messages::organization_id.eq(org))
                    .select(InboundRow::as_select())
                    .first::<InboundRow>(conn)
                    .await
                    .optional()
                    .map_err(from_diesel)?;
                let Some(row) = row else {
                    return Ok(None);
                };
                let numbers = numbers(conn, org).await?;
                Ok(views(vec![row], &numbers)?.pop())
            }

            #[async_trait]
            impl InboundStore for Db {
                async fn inbound_messages(
                    &self,
                    organization: &OrganizationId,
                    query: &InboundQuery,
                ) -> Result<Vec<InboundView>, StoreError> {
                    let org = organization.to_string();
                    let mut conn = self.read().await?;
                    let numbers = numbers(&mut conn, &org).await?;
                    let mut select = inbound_messages::table
                        .filter(inbound_messages::organization_id.eq(org.clone()))
                        .into_boxed();
                    if let Some(number) = &query.number {
                        // A number the organization does not have receives nothing.
                        let senders: Vec<String> = numbers
                            .iter()
                            .filter(|(_, n)| *n == number)
                            .map(|(id, _)| id.clone())
                            .collect();
                        select = select.filter(inbound_messages::sender_id.eq_any(senders));
                    }
                    if let Some(sender) = &query.sender {
                        select = select.filter(inbound_messages::from_number.eq(sender.as_str().to_owned()));
                    }
                    if let Some(message_type) = &query.message_type {
                        select = select.filter(inbound_messages::message_type.eq(message_type.clone()));
                    }
                    if let Some(since) = query.since {
                        select = select.filter(inbound_messages::received_at.ge(since));
                    }
                    if let Some(until) = query.until {
                        select = select.filter(inbound_messages::received_at.lt(until));
                    }
                    if let Some(cursor) = &query.before {
                        select = select.filter(inbound_messages::id.lt(cursor.to_string()));
                    }
                    let rows = select
                        .order(inbound_messages::id.desc())
                        .limit(i64::from(query.limit))
                        .select(InboundRow::as_select())
                        .load::<InboundRow>(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    views(rows, &numbers)
                }

                async fn inbound_message(
                    &self,
                    organization: &OrganizationId,
                    id: &InboundId,
                ) -> Result<Option<InboundView>, StoreError> {
                    let mut conn = self.read().await?;
                    one(&mut conn, &organization.to_string(), &id.to_string()).await
                }

                async fn mark_inbound_read(
                    &self,
                    organization: &OrganizationId,
                    id: &InboundId,
                    at: Timestamp,
                ) -> Result<Option<InboundView>, StoreError> {
                    let org = organization.to_string();
                    let id = id.to_string();
                    let mut conn = self.write().await?;
                    // The first read stays: reading again must not move the time.
                    diesel::update(
                        inbound_messages::table
                            .find(&id)
                            .filter(inbound_messages::organization_id.eq(&org))
                            .filter(inbound_messages::read_at.is_null()),
                    )
                    .set(inbound_messages::read_at.eq(Some(at)))
                    .execute(&mut *conn)
                    .await
                    .map_err(from_diesel)?;
                    one(&mut conn, &org, &id).await
                }
            }
        }
    };
}

pub(crate) use inbound_port;

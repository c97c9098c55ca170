//! The `WindowStore` port: service windows, opened or moved forward by inbound messages.

macro_rules! windows_port {
    () => {
        mod windows {
            use super::super::schema::service_windows;
            use super::super::{Conn, Db};
            use async_trait::async_trait;
            use diesel::prelude::*;
            use diesel_async::RunQueryDsl;
            use herald_domain::contact::Recipient;
            use herald_domain::ids::{OrganizationId, SenderId};
            use herald_domain::ports::{StoreError, WindowStore};
            use herald_domain::time::Timestamp;
            use herald_domain::window::ServiceWindow;
            use $crate::error::{TxError, from_diesel};
            use $crate::rows::WindowRow;

            /// Opens or moves forward the service window of (sender, recipient) to `at`.
            pub(super) async fn refresh_window(
                conn: &mut Conn,
                org: &str,
                sender: &str,
                recipient: &str,
                at: Timestamp,
            ) -> Result<(), TxError> {
                let inserted = diesel::insert_into(service_windows::table)
                    .values((
                        service_windows::organization_id.eq(org),
                        service_windows::sender_id.eq(sender),
                        service_windows::recipient.eq(recipient),
                        service_windows::last_inbound_at.eq(at),
                    ))
                    .on_conflict_do_nothing()
                    .execute(conn)
                    .await?;
                if inserted == 0 {
                    // Only forward: a late, older inbound report must not shorten the window.
                    diesel::update(
                        service_windows::table
                            .find((org, sender, recipient))
                            .filter(service_windows::last_inbound_at.lt(at)),
                    )
                    .set(service_windows::last_inbound_at.eq(at))
                    .execute(conn)
                    .await?;
                }
                Ok(())
            }

            #[async_trait]
            impl WindowStore for Db {
                async fn window(
                    &self,
                    organization: &OrganizationId,
                    sender: &SenderId,
                    recipient: &Recipient,
                ) -> Result<Option<ServiceWindow>, StoreError> {
                    let mut conn = self.read().await?;
                    let row = service_windows::table
                        .find((
                            organization.to_string(),
                            sender.to_string(),
                            recipient.as_str(),
                        ))
                        .select(WindowRow::as_select())
                        .first::<WindowRow>(&mut *conn)
                        .await
                        .optional()
                        .map_err(from_diesel)?;
                    row.map(ServiceWindow::try_from).transpose()
                }

                async fn record_inbound(&self, window: &ServiceWindow) -> Result<(), StoreError> {
                    let org = window.organization_id.to_string();
                    let sender = window.sender_id.to_string();
                    let recipient = window.recipient.as_str();
                    let at = window.last_inbound_at;
                    write_tx!(self, |conn| {
                        refresh_window(conn, &org, &sender, recipient, at).await?;
                        Ok(())
                    })
                    .map_err(TxError::into_store)
                }
            }
        }
    };
}

pub(crate) use windows_port;

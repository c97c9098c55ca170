//! The `ContactStore` port: contacts found by number or user id, marketing preferences written with their
//! `contact.preferences` event, blocks, and the STOP keyword rule.

macro_rules! contacts_port {
    () => {
        mod contacts {
            use super::super::schema::{contact_keyword_rules, contacts, events};
            use super::super::{Conn, Db};
            use super::shared::insert_customer_event;
            use async_trait::async_trait;
            use diesel::prelude::*;
            use diesel_async::RunQueryDsl;
            use herald_domain::contact::{Contact, KeywordRule, PreferenceChange, Recipient, UserId};
            use herald_domain::ids::OrganizationId;
            use herald_domain::ports::{ContactStore, StoreError};
            use herald_domain::time::Timestamp;
            use herald_domain::values::PhoneNumber;
            use $crate::error::{TxError, from_diesel};
            use $crate::rows::{ContactRow, CustomerEventRow, keyword_rule, keywords_text};

            /// The contact with this number, or else the one with this user id, locked for the transaction.
            async fn find(
                conn: &mut Conn,
                org: &str,
                number: Option<&str>,
                user_id: Option<&str>,
            ) -> Result<Option<ContactRow>, TxError> {
                if let Some(number) = number {
                    let found = for_update!(
                        contacts::table
                            .filter(contacts::organization_id.eq(org))
                            .filter(contacts::number.eq(number))
                            .select(ContactRow::as_select())
                    )
                    .first::<ContactRow>(conn)
                    .await
                    .optional()?;
                    if found.is_some() {
                        return Ok(found);
                    }
                }
                match user_id {
                    Some(user_id) => Ok(for_update!(
                        contacts::table
                            .filter(contacts::organization_id.eq(org))
                            .filter(contacts::user_id.eq(user_id))
                            .select(ContactRow::as_select())
                    )
                    .first::<ContactRow>(conn)
                    .await
                    .optional()?),
                    None => Ok(None),
                }
            }

            /// The contact of `number`/`user_id` (at least one given), created if missing, each identifier
            /// the row lacks filled in when no other row holds it.
            async fn find_or_create(
                conn: &mut Conn,
                org: &str,
                number: Option<&str>,
                user_id: Option<&str>,
                at: Timestamp,
            ) -> Result<ContactRow, TxError> {
                if let Some(row) = find(conn, org, number, user_id).await? {
                    return fill_in(conn, org, row, number, user_id, at).await;
                }
                let Some(key) = number.or(user_id) else {
                    return Err(TxError::from(StoreError::Unknown(anyhow::anyhow!(
                        "a contact needs a number or a user id"
                    ))));
                };
                // A concurrent writer may create the same contact: the loser's insert does nothing and it
                // reads the winner's row.
                diesel::insert_into(contacts::table)
                    .values((
                        contacts::organization_id.eq(org),
                        contacts::contact_key.eq(key),
                        contacts::number.eq(number),
                        contacts::user_id.eq(user_id),
                        contacts::marketing.eq("allowed"),
                        contacts::blocked.eq(false),
                        contacts::updated_at.eq(at),
                    ))
                    .on_conflict_do_nothing()
                    .execute(conn)
                    .await?;
                find(conn, org, number, user_id).await?.ok_or_else(|| {
                    TxError::from(StoreError::Unknown(anyhow::anyhow!(
                        "a contact just written cannot be read back"
                    )))
                })
            }

            /// Gives `row` the identifier it lacks (a number's user id, a user id's number), unless another
            /// contact of the organization holds it already: two records of one person are left as they
            /// are rather than merged.
            async fn fill_in(
                conn: &mut Conn,
                org: &str,
                row: ContactRow,
                number: Option<&str>,
                user_id: Option<&str>,
                at: Timestamp,
            ) -> Result<ContactRow, TxError> {
                let new_number = number.filter(|_| row.number.is_none());
                // A number's user id changes when its owner changes number (Meta makes a new one): the
                // latest one the network showed with the number wins.
                let new_user_id = user_id.filter(|id| row.user_id.as_deref() != Some(*id));
                if new_number.is_none() && new_user_id.is_none() {
                    return Ok(row);
                }
                let mut number = row.number.clone();
                if let Some(candidate) = new_number {
                    let others: i64 = contacts::table
                        .filter(contacts::organization_id.eq(org))
                        .filter(contacts::contact_key.ne(&row.contact_key))
                        .filter(contacts::number.eq(candidate))
                        .count()
                        .get_result(conn)
                        .await?;
                    if others == 0 {
                        number = Some(candidate.to_owned());
                    }
                }
                let mut user = row.user_id.clone();
                if let Some(candidate) = new_user_id {
                    let others: i64 = contacts::table
                        .filter(contacts::organization_id.eq(org))
                        .filter(contacts::contact_key.ne(&row.contact_key))
                        .filter(contacts::user_id.eq(candidate))
                        .count()
                        .get_result(conn)
                        .await?;
                    if others == 0 {
                        user = Some(candidate.to_owned());
                    }
                }
                if number == row.number && user == row.user_id {
                    return Ok(row);
                }
                diesel::update(contacts::table.find((org, &row.contact_key)))
                    .set((
                        contacts::number.eq(&number),
                        contacts::user_id.eq(&user),
                        contacts::updated_at.eq(at),
                    ))
                    .execute(conn)
                    .await?;
                Ok(ContactRow {
                    number,
                    user_id: user,
                    updated_at: at,
                    ..row
                })
            }

            fn identifiers(recipient: &Recipient) -> (Option<&str>, Option<&str>) {
                match recipient {
                    Recipient::Number(number) => (Some(number.as_str()), None),
                    Recipient::User(id) => (None, Some(id.as_str())),
                }
            }

            async fn record_in_tx(conn: &mut Conn, change: &PreferenceChange) -> Result<bool, TxError> {
                let org = change.organization_id.to_string();
                if let Some(key) = &change.dedupe_key {
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
                }
                let number = change.number.as_ref().map(PhoneNumber::as_str);
                let user_id = change.user_id.as_ref().map(UserId::as_str);
                let row = find_or_create(conn, &org, number, user_id, change.recorded_at).await?;
                // The state only moves forward: a late report of an older change is delivered as an
                // event (it happened) but does not undo a newer one.
                if row
                    .marketing_changed_at
                    .is_none_or(|last| last <= change.occurred_at)
                {
                    diesel::update(contacts::table.find((&org, &row.contact_key)))
                        .set((
                            contacts::marketing.eq(change.preference.as_str()),
                            contacts::marketing_changed_at.eq(change.occurred_at),
                            contacts::marketing_source.eq(change.source.as_str()),
                            contacts::updated_at.eq(change.recorded_at),
                        ))
                        .execute(conn)
                        .await?;
                }
                insert_customer_event(conn, &CustomerEventRow::preference(change)?).await?;
                Ok(true)
            }

            #[async_trait]
            impl ContactStore for Db {
                async fn contact(
                    &self,
                    organization: &OrganizationId,
                    recipient: &Recipient,
                ) -> Result<Option<Contact>, StoreError> {
                    let mut conn = self.read().await?;
                    let org = organization.to_string();
                    let query = contacts::table
                        .filter(contacts::organization_id.eq(&org))
                        .select(ContactRow::as_select());
                    let row = match recipient {
                        Recipient::Number(number) => {
                            query
                                .filter(contacts::number.eq(number.as_str()))
                                .first::<ContactRow>(&mut *conn)
                                .await
                        }
                        Recipient::User(id) => {
                            query
                                .filter(contacts::user_id.eq(id.as_str()))
                                .first::<ContactRow>(&mut *conn)
                                .await
                        }
                    }
                    .optional()
                    .map_err(from_diesel)?;
                    row.map(Contact::try_from).transpose()
                }

                async fn contacts_with_numbers(
                    &self,
                    organization: &OrganizationId,
                    numbers: &[PhoneNumber],
                ) -> Result<Vec<Contact>, StoreError> {
                    let org = organization.to_string();
                    let mut conn = self.read().await?;
                    let mut found = Vec::new();
                    // Bounded statements: SQLite caps bound parameters, and a plan over a short list stays
                    // an index lookup per number.
                    for chunk in numbers.chunks(500) {
                        let chunk: Vec<&str> = chunk.iter().map(PhoneNumber::as_str).collect();
                        let rows = contacts::table
                            .filter(contacts::organization_id.eq(&org))
                            .filter(contacts::number.eq_any(&chunk))
                            .select(ContactRow::as_select())
                            .load::<ContactRow>(&mut *conn)
                            .await
                            .map_err(from_diesel)?;
                        for row in rows {
                            found.push(Contact::try_from(row)?);
                        }
                    }
                    Ok(found)
                }

                async fn record_preference(&self, change: &PreferenceChange) -> Result<bool, StoreError> {
                    let recorded = match write_tx!(self, |conn| record_in_tx(conn, change).await)
                        .map_err(TxError::into_store)
                    {
                        // Two processings of one callback at once: the key's unique index stops the
                        // second, which wrote nothing.
                        Err(StoreError::Conflict(detail)) if detail.contains("dedupe_key") => false,
                        other => other?,
                    };
                    Ok(recorded)
                }

                async fn set_blocked(
                    &self,
                    organization: &OrganizationId,
                    recipient: &Recipient,
                    blocked: bool,
                    at: Timestamp,
                ) -> Result<Contact, StoreError> {
                    let org = organization.to_string();
                    let (number, user_id) = identifiers(recipient);
                    let row = write_tx!(self, |conn| {
                        let row = find_or_create(conn, &org, number, user_id, at).await?;
                        let blocked_at = if blocked {
                            row.blocked_at.filter(|_| row.blocked).or(Some(at))
                        } else {
                            None
                        };
                        diesel::update(contacts::table.find((&org, &row.contact_key)))
                            .set((
                                contacts::blocked.eq(blocked),
                                contacts::blocked_at.eq(blocked_at),
                                contacts::updated_at.eq(at),
                            ))
                            .execute(conn)
                            .await?;
                        Ok(ContactRow {
                            blocked,
                            blocked_at,
                            updated_at: at,
                            ..row
                        })
                    })
                    .map_err(TxError::into_store)?;
                    Contact::try_from(row)
                }

                async fn pair_user_id(
                    &self,
                    organization: &OrganizationId,
                    number: &PhoneNumber,
                    user_id: &UserId,
                    at: Timestamp,
                ) -> Result<(), StoreError> {
                    let org = organization.to_string();
                    write_tx!(self, |conn| {
                        find_or_create(
                            conn,
                            &org,
                            Some(number.as_str()),
                            Some(user_id.as_str()),
                            at,
                        )
                        .await?;
                        Ok(())
                    })
                    .map_err(TxError::into_store)
                }

                async fn keyword_rule(
                    &self,
                    organization: &OrganizationId,
                ) -> Result<KeywordRule, StoreError> {
                    let mut conn = self.read().await?;
                    let row = contact_keyword_rules::table
                        .find(organization.to_string())
                        .select((
                            contact_keyword_rules::stop_keywords,
                            contact_keyword_rules::resume_keywords,
                        ))
                        .first::<(String, String)>(&mut *conn)
                        .await
                        .optional()
                        .map_err(from_diesel)?;
                    match row {
                        Some((stop, resume)) => keyword_rule(&stop, &resume),
                        None => Ok(KeywordRule::default()),
                    }
                }

                async fn set_keyword_rule(
                    &self,
                    organization: &OrganizationId,
                    rule: &KeywordRule,
                    at: Timestamp,
                ) -> Result<(), StoreError> {
                    let org = organization.to_string();
                    let stop = keywords_text(&rule.stop);
                    let resume = keywords_text(&rule.resume);
                    write_tx!(self, |conn| {
                        diesel::delete(contact_keyword_rules::table.find(&org))
                            .execute(conn)
                            .await?;
                        if !rule.is_off() {
                            diesel::insert_into(contact_keyword_rules::table)
                                .values((
                                    contact_keyword_rules::organization_id.eq(&org),
                                    contact_keyword_rules::stop_keywords.eq(&stop),
                                    contact_keyword_rules::resume_keywords.eq(&resume),
                                    contact_keyword_rules::updated_at.eq(at),
                                ))
                                .execute(conn)
                                .await?;
                        }
                        Ok(())
                    })
                    .map_err(TxError::into_store)
                }
            }
        }
    };
}

pub(crate) use contacts_port;

//! The `ContactStore` port: contacts found by a number's person key or by user id, one per person (merged
//! as soon as something links the two), marketing preferences written with their `contact.preferences`
//! event, blocks, and the STOP keyword rule.

macro_rules! contacts_port {
    () => {
        mod contacts {
            use super::super::schema::{contact_keyword_rules, contacts, events};
            use super::super::{Conn, Db};
            use super::shared::insert_customer_event;
            use async_trait::async_trait;
            use diesel::prelude::*;
            use diesel_async::RunQueryDsl;
            use herald_domain::contact::{
                Contact, KeywordRule, MarketingPreference, PreferenceChange, PreferenceSource, Recipient,
            };
            use herald_domain::ids::OrganizationId;
            use herald_domain::ports::{ContactStore, StoreError};
            use herald_domain::time::Timestamp;
            use herald_domain::values::PhoneNumber;
            use herald_domain::values::UserId;
            use $crate::error::{TxError, from_diesel};
            use $crate::rows::{ContactRow, CustomerEventRow, keyword_rule, keywords_text};

            /// How a number is written when it is given: the network's own form (a `wa_id` from an inbound
            /// message or its report of a stop) replaces the one the contact holds; the organization's keeps it.
            #[derive(Clone, Copy, PartialEq, Eq)]
            enum NumberForm {
                Network,
                Given,
            }

            /// The key a number's contact is stored and found under (its national variants made one).
            fn key_of(number: &PhoneNumber) -> String {
                number.person_key().as_str().to_owned()
            }

            /// The contact of the person whose number has this key, locked for the transaction.
            async fn by_number_key(
                conn: &mut Conn,
                org: &str,
                key: &str,
            ) -> Result<Option<ContactRow>, TxError> {
                Ok(for_update!(
                    contacts::table
                        .filter(contacts::organization_id.eq(org))
                        .filter(contacts::number_key.eq(key))
                        .select(ContactRow::as_select())
                )
                .first::<ContactRow>(conn)
                .await
                .optional()?)
            }

            /// The contact holding this user id, locked for the transaction.
            async fn by_user_id(
                conn: &mut Conn,
                org: &str,
                user_id: &str,
            ) -> Result<Option<ContactRow>, TxError> {
                Ok(for_update!(
                    contacts::table
                        .filter(contacts::organization_id.eq(org))
                        .filter(contacts::user_id.eq(user_id))
                        .select(ContactRow::as_select())
                )
                .first::<ContactRow>(conn)
                .await
                .optional()?)
            }

            /// The one contact of the person `number`/`user_id` (at least one given) names, created if missing.
            /// When they name two contacts (the number's and the user id's), the two become one here, in the
            /// caller's transaction ([`Contact::merged_with`]): one person, one contact.
            async fn find_or_create(
                conn: &mut Conn,
                org: &str,
                number: Option<&PhoneNumber>,
                user_id: Option<&str>,
                form: NumberForm,
                at: Timestamp,
            ) -> Result<ContactRow, TxError> {
                let key = number.map(key_of);
                // Three rounds at most: a concurrent writer may create the same contact between the look-up and
                // the insert (the loser's insert does nothing and the next look-up finds the winner's row), and a
                // number new to a user id that holds another person's number gets its own contact first.
                for _ in 0..3 {
                    let by_number = match &key {
                        Some(key) => by_number_key(conn, org, key).await?,
                        None => None,
                    };
                    let by_user = match user_id {
                        Some(user_id) => by_user_id(conn, org, user_id).await?,
                        None => None,
                    };
                    let user_id_elsewhere = match (by_number, by_user) {
                        (Some(a), Some(b)) if a.contact_key != b.contact_key => {
                            return merge(conn, org, a, b, number, form, at).await;
                        }
                        // The user id's contact holds another person's number: the number gets a contact of
                        // its own, which the next round merges the user id into.
                        (None, Some(b)) if key.is_some() && b.number_key.is_some() && b.number_key != key => {
                            true
                        }
                        (Some(row), _) | (None, Some(row)) => {
                            return fill_in(conn, org, row, number, user_id, form, at).await;
                        }
                        (None, None) => false,
                    };
                    let new_user_id = if user_id_elsewhere { None } else { user_id };
                    let Some(first) = number.map(PhoneNumber::as_str).or(user_id) else {
                        return Err(TxError::from(StoreError::Unknown(anyhow::anyhow!(
                            "a contact needs a number or a user id"
                        ))));
                    };
                    diesel::insert_into(contacts::table)
                        .values((
                            contacts::organization_id.eq(org),
                            contacts::contact_key.eq(first),
                            contacts::number.eq(number.map(PhoneNumber::as_str)),
                            contacts::number_key.eq(key.as_deref()),
                            contacts::user_id.eq(new_user_id),
                            contacts::marketing.eq("allowed"),
                            contacts::blocked.eq(false),
                            contacts::updated_at.eq(at),
                        ))
                        .on_conflict_do_nothing()
                        .execute(conn)
                        .await?;
                }
                Err(TxError::from(StoreError::Unknown(anyhow::anyhow!(
                    "a contact just written cannot be read back"
                ))))
            }

            /// Gives `row` what the caller named and it lacks: the number (in the network's form when that is
            /// the caller's), and the user id. A number's user id changes when its owner changes number (Meta
            /// makes a new one): the latest one shown with the number wins.
            async fn fill_in(
                conn: &mut Conn,
                org: &str,
                row: ContactRow,
                number: Option<&PhoneNumber>,
                user_id: Option<&str>,
                form: NumberForm,
                at: Timestamp,
            ) -> Result<ContactRow, TxError> {
                let number = match number {
                    Some(given) if row.number.is_none() || form == NumberForm::Network => {
                        Some(given.as_str().to_owned())
                    }
                    _ => row.number.clone(),
                };
                let number_key = number
                    .as_deref()
                    .and_then(|n| PhoneNumber::parse(n).ok())
                    .map(|n| key_of(&n));
                let user = user_id.map(str::to_owned).or_else(|| row.user_id.clone());
                if number == row.number && number_key == row.number_key && user == row.user_id {
                    return Ok(row);
                }
                diesel::update(contacts::table.find((org, &row.contact_key)))
                    .set((
                        contacts::number.eq(&number),
                        contacts::number_key.eq(&number_key),
                        contacts::user_id.eq(&user),
                        contacts::updated_at.eq(at),
                    ))
                    .execute(conn)
                    .await?;
                Ok(ContactRow {
                    number,
                    number_key,
                    user_id: user,
                    updated_at: at,
                    ..row
                })
            }

            /// One person's two contacts made one: `by_number` (the number's) keeps its key and gains the user
            /// id and the merged state of `by_user` (the rule is [`Contact::merged_with`]). `by_user` is
            /// deleted, unless it holds a number of another person: then it keeps that number and its own
            /// state, and only gives up the user id, so nothing it refuses is lost.
            async fn merge(
                conn: &mut Conn,
                org: &str,
                by_number: ContactRow,
                by_user: ContactRow,
                number: Option<&PhoneNumber>,
                form: NumberForm,
                at: Timestamp,
            ) -> Result<ContactRow, TxError> {
                let user_id = by_user.user_id.clone();
                if by_user.number_key.is_some() && by_user.number_key != by_number.number_key {
                    diesel::update(contacts::table.find((org, &by_user.contact_key)))
                        .set((
                            contacts::user_id.eq(None::<String>),
                            contacts::updated_at.eq(at),
                        ))
                        .execute(conn)
                        .await?;
                } else {
                    diesel::delete(contacts::table.find((org, &by_user.contact_key)))
                        .execute(conn)
                        .await?;
                }
                let contact_key = by_number.contact_key.clone();
                let number_key = by_number.number_key.clone();
                let number = match number {
                    Some(given) if form == NumberForm::Network => Some(given.as_str().to_owned()),
                    _ => by_number.number.clone(),
                };
                let merged = Contact::try_from(by_number)?.merged_with(Contact::try_from(by_user)?);
                let row = ContactRow {
                    organization_id: org.to_owned(),
                    contact_key,
                    number,
                    number_key,
                    user_id,
                    marketing: merged.marketing.as_str().to_owned(),
                    marketing_changed_at: merged.marketing_changed_at,
                    marketing_source: merged.marketing_source.map(|s| s.as_str().to_owned()),
                    blocked: merged.blocked,
                    blocked_at: merged.blocked_at,
                    updated_at: at,
                };
                diesel::update(contacts::table.find((org, &row.contact_key)))
                    .set((
                        contacts::number.eq(&row.number),
                        contacts::user_id.eq(&row.user_id),
                        contacts::marketing.eq(&row.marketing),
                        contacts::marketing_changed_at.eq(row.marketing_changed_at),
                        contacts::marketing_source.eq(&row.marketing_source),
                        contacts::blocked.eq(row.blocked),
                        contacts::blocked_at.eq(row.blocked_at),
                        contacts::updated_at.eq(at),
                    ))
                    .execute(conn)
                    .await?;
                Ok(row)
            }

            fn identifiers(recipient: &Recipient) -> (Option<&PhoneNumber>, Option<&str>) {
                match recipient {
                    Recipient::Number(number) => (Some(number), None),
                    Recipient::User(id) => (None, Some(id.as_str())),
                    Recipient::Erased(_) => (None, None),
                }
            }

            /// The contact `number`/`user_id` names now, without creating or linking anything: the number's,
            /// else the user id's.
            async fn current(
                conn: &mut Conn,
                org: &str,
                number: Option<&PhoneNumber>,
                user_id: Option<&str>,
            ) -> Result<Option<ContactRow>, TxError> {
                if let Some(number) = number
                    && let Some(row) = by_number_key(conn, org, &key_of(number)).await?
                {
                    return Ok(Some(row));
                }
                match user_id {
                    Some(user_id) => by_user_id(conn, org, user_id).await,
                    None => Ok(None),
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
                let number = change.number.as_ref();
                let user_id = change.user_id.as_ref().map(UserId::as_str);
                let row = if change.source == PreferenceSource::Network {
                    find_or_create(
                        conn,
                        &org,
                        number,
                        user_id,
                        NumberForm::Network,
                        change.recorded_at,
                    )
                    .await?
                } else {
                    // The organization's own opt-out of someone stopped (or opt-in of someone allowed), by
                    // the API or its keyword rule, changes nothing and sends no event. (The network's report
                    // is the person's own act, recorded once per report by its dedupe key.)
                    let known = if number.is_some() && user_id.is_some() {
                        Some(
                            find_or_create(
                                conn,
                                &org,
                                number,
                                user_id,
                                NumberForm::Given,
                                change.recorded_at,
                            )
                            .await?,
                        )
                    } else {
                        current(conn, &org, number, user_id).await?
                    };
                    let state = known
                        .as_ref()
                        .map_or(MarketingPreference::Allowed.as_str(), |row| {
                            row.marketing.as_str()
                        });
                    if state == change.preference.as_str() {
                        return Ok(false);
                    }
                    match known {
                        Some(row) => row,
                        None => {
                            find_or_create(
                                conn,
                                &org,
                                number,
                                user_id,
                                NumberForm::Given,
                                change.recorded_at,
                            )
                            .await?
                        }
                    }
                };
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
                        // An erased person has no contact.
                        Recipient::Erased(_) => return Ok(None),
                        Recipient::Number(number) => {
                            query
                                .filter(contacts::number_key.eq(key_of(number)))
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
                        let chunk: Vec<String> = chunk.iter().map(key_of).collect();
                        let rows = contacts::table
                            .filter(contacts::organization_id.eq(&org))
                            .filter(contacts::number_key.eq_any(&chunk))
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

                async fn contacts_with_user_ids(
                    &self,
                    organization: &OrganizationId,
                    user_ids: &[UserId],
                ) -> Result<Vec<Contact>, StoreError> {
                    let org = organization.to_string();
                    let mut conn = self.read().await?;
                    let mut found = Vec::new();
                    // Bounded statements, as for numbers.
                    for chunk in user_ids.chunks(500) {
                        let chunk: Vec<&str> = chunk.iter().map(UserId::as_str).collect();
                        let rows = contacts::table
                            .filter(contacts::organization_id.eq(&org))
                            .filter(contacts::user_id.eq_any(&chunk))
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
                        let row = find_or_create(conn, &org, number, user_id, NumberForm::Given, at).await?;
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
                            Some(number),
                            Some(user_id.as_str()),
                            NumberForm::Network,
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

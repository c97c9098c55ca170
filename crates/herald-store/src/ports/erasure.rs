//! The `ErasureStore` port: a person's content erased in one transaction, what billing and statistics need
//! kept under a keyed marker (docs/api.md §7.2).

macro_rules! erasure_port {
    () => {
        mod erasure {
            use super::super::schema::{
                contacts, erased_media, erasures, events, inbound_messages, media_files, messages, outbox,
                service_windows, webhook_attempts, webhook_deliveries,
            };
            use super::super::{Conn, Db};
            use super::shared::insert_customer_event;
            use async_trait::async_trait;
            use diesel::prelude::*;
            use diesel_async::RunQueryDsl;
            use herald_domain::attachment::MediaSource;
            use herald_domain::contact::Recipient;
            use herald_domain::erasure::{ErasedPerson, Erasure, ErasureOutcome, PersonIdentities};
            use herald_domain::ids::{MessageId, OrganizationId};
            use herald_domain::media::Sha256Digest;
            use herald_domain::message::{Message, MessageStatus};
            use herald_domain::ports::{ErasureStore, StoreError};
            use herald_domain::values::PhoneNumber;
            use herald_domain::values::UserId;
            use $crate::dto::{ContentDto, MarketingDto, StoredContent};
            use $crate::error::{TxError, corrupt, from_diesel};
            use $crate::event_body::scrubbed_body;
            use $crate::rows::{CustomerEventRow, JOB_PENDING, MessageRow, to_json};

            /// Rows changed per statement: SQLite caps bound parameters.
            const CHUNK: usize = 500;

            /// The statuses of a message not dispatched yet: what an erasure cancels first.
            const QUEUED: [MessageStatus; 2] = [MessageStatus::Accepted, MessageStatus::Scheduled];

            fn queued() -> [&'static str; 2] {
                QUEUED.map(MessageStatus::as_str)
            }

            /// The messages of `org` whose job no dispatch has taken (pending, never attempted, not awaiting
            /// the network): what a cancel can still stop. A message being sent or retried is erased as it
            /// is; its next attempt finds nothing to send.
            fn cancellable_jobs(
                org: &str,
            ) -> diesel::dsl::Select<
                diesel::dsl::Filter<
                    diesel::dsl::Filter<
                        diesel::dsl::Filter<
                            diesel::dsl::Filter<
                                outbox::table,
                                diesel::dsl::Eq<outbox::organization_id, String>,
                            >,
                            diesel::dsl::Eq<outbox::state, &'static str>,
                        >,
                        diesel::dsl::Eq<outbox::attempts, i32>,
                    >,
                    diesel::dsl::Eq<outbox::awaiting_callback, bool>,
                >,
                outbox::message_id,
            > {
                outbox::table
                    .filter(outbox::organization_id.eq(org.to_owned()))
                    .filter(outbox::state.eq(JOB_PENDING))
                    .filter(outbox::attempts.eq(0))
                    .filter(outbox::awaiting_callback.eq(false))
                    .select(outbox::message_id)
            }

            /// Every identity as the rows hold it: each form of each number, then each user id.
            fn texts(identities: &PersonIdentities) -> Vec<String> {
                identities
                    .numbers
                    .iter()
                    .map(|n| n.as_str().to_owned())
                    .chain(identities.user_ids.iter().map(|u| u.as_str().to_owned()))
                    .collect()
            }

            /// The person keys of the numbers (how contacts are keyed).
            fn keys(identities: &PersonIdentities) -> Vec<String> {
                identities
                    .numbers
                    .iter()
                    .map(|n| n.person_key().as_str().to_owned())
                    .collect()
            }

            fn user_ids(identities: &PersonIdentities) -> Vec<String> {
                identities
                    .user_ids
                    .iter()
                    .map(|u| u.as_str().to_owned())
                    .collect()
            }

            /// What an erased inbound message's `raw` column holds instead of the network's object.
            const ERASED_RAW: &str = r#"{"erased":true}"#;
            /// An erased inbound message's content: a kind Herald does not model, shown by its `raw`.
            const ERASED_INBOUND: &str = r#"{"kind":"other"}"#;

            /// The person's messages (not erased before): their content erased, the marker in place of
            /// the recipient. Answers their ids and the uploads they used.
            async fn erase_messages(
                conn: &mut Conn,
                org: &str,
                names: &[String],
                marker: &str,
            ) -> Result<(Vec<String>, Vec<String>), TxError> {
                let rows = messages::table
                    .filter(messages::organization_id.eq(org))
                    .filter(messages::to_number.eq_any(names))
                    .select(MessageRow::as_select())
                    .load::<MessageRow>(conn)
                    .await?;
                let mut ids = Vec::with_capacity(rows.len());
                let mut uploads: Vec<String> = Vec::new();
                for row in rows {
                    let id = row.id.clone();
                    let message_type = row.message_type.clone();
                    let message = Message::try_from(row)?;
                    for (_, attachment) in message.content.attachments() {
                        if let MediaSource::Stored(media) = &attachment.source {
                            let media = media.to_string();
                            if !uploads.contains(&media) {
                                uploads.push(media);
                            }
                        }
                    }
                    let content = to_json(
                        "message content",
                        &StoredContent {
                            content: ContentDto::Erased { message_type },
                            reply_to: None,
                            // The route asked is no content of the person's: kept for statistics.
                            marketing: message.marketing.as_ref().map(MarketingDto::from),
                        },
                    )?;
                    diesel::update(messages::table.find(&id))
                        .set((
                            messages::to_number.eq(marker),
                            messages::content.eq(&content),
                            messages::client_reference.eq(None::<String>),
                        ))
                        .execute(conn)
                        .await?;
                    ids.push(id);
                }
                Ok((ids, uploads))
            }

            /// The person's inbound messages: the marker in place of the sender, their content, name,
            /// referral and network object erased, and their media id cleared (the file is the network's,
            /// streamed when read: with the content gone the id must resolve to nothing, not to a row whose
            /// content no longer names a file). Answers their ids and their media ids.
            async fn erase_inbound(
                conn: &mut Conn,
                org: &str,
                names: &[String],
                users: &[String],
                marker: &str,
            ) -> Result<(Vec<String>, Vec<String>), TxError> {
                let rows = inbound_messages::table
                    .filter(inbound_messages::organization_id.eq(org))
                    .filter(
                        inbound_messages::from_number
                            .eq_any(names)
                            .or(inbound_messages::from_user_id.eq_any(users)),
                    )
                    .select((inbound_messages::id, inbound_messages::media_id))
                    .load::<(String, Option<String>)>(conn)
                    .await?;
                let (ids, files): (Vec<String>, Vec<Option<String>>) = rows.into_iter().unzip();
                for chunk in ids.chunks(CHUNK) {
                    diesel::update(inbound_messages::table.filter(inbound_messages::id.eq_any(chunk)))
                        .set((
                            inbound_messages::from_number.eq(marker),
                            inbound_messages::from_user_id.eq(None::<String>),
                            inbound_messages::from_name.eq(None::<String>),
                            inbound_messages::content.eq(ERASED_INBOUND),
                            inbound_messages::media_id.eq(None::<String>),
                            inbound_messages::raw.eq(ERASED_RAW),
                            inbound_messages::referral.eq(None::<String>),
                        ))
                        .execute(conn)
                        .await?;
                }
                Ok((ids, files.into_iter().flatten().collect()))
            }

            /// The customer events about the person (those of their messages, and the preference events
            /// naming them): payload reduced to type, time and marker, and their deliveries' response logs
            /// emptied. Answers how many.
            async fn scrub_events(
                conn: &mut Conn,
                org: &str,
                about: &[String],
                names: &[String],
                erasure: &Erasure,
            ) -> Result<usize, TxError> {
                let mut found: Vec<(String, String)> = Vec::new();
                for chunk in about.chunks(CHUNK) {
                    found.extend(
                        events::table
                            .filter(events::organization_id.eq(org))
                            .filter(events::message_id.eq_any(chunk))
                            .select((events::id, events::event_type))
                            .load::<(String, String)>(conn)
                            .await?,
                    );
                }
                // A preference event names the person in its payload, as a JSON string.
                for name in names {
                    found.extend(
                        events::table
                            .filter(events::organization_id.eq(org))
                            .filter(events::message_id.is_null())
                            .filter(events::payload.like(format!("%\"{name}\"%")))
                            .select((events::id, events::event_type))
                            .load::<(String, String)>(conn)
                            .await?,
                    );
                }
                found.sort();
                found.dedup();
                for (id, event_type) in &found {
                    let payload = to_json("event payload", &scrubbed_body(event_type, erasure))?;
                    diesel::update(events::table.find(id))
                        .set(events::payload.eq(&payload))
                        .execute(conn)
                        .await?;
                }
                let ids: Vec<&str> = found.iter().map(|(id, _)| id.as_str()).collect();
                for chunk in ids.chunks(CHUNK) {
                    let deliveries = webhook_deliveries::table
                        .filter(webhook_deliveries::organization_id.eq(org))
                        .filter(webhook_deliveries::event_id.eq_any(chunk))
                        .select(webhook_deliveries::id)
                        .load::<String>(conn)
                        .await?;
                    for deliveries in deliveries.chunks(CHUNK) {
                        diesel::update(
                            webhook_attempts::table.filter(webhook_attempts::delivery_id.eq_any(deliveries)),
                        )
                        .set(webhook_attempts::response_prefix.eq(""))
                        .execute(conn)
                        .await?;
                    }
                }
                Ok(found.len())
            }

            /// The uploads of `uploads` that no other message of the organization uses any more: their rows
            /// deleted, their digests recorded as still to be removed. Answers the digests.
            async fn forget_uploads(
                conn: &mut Conn,
                org: &str,
                uploads: &[String],
                erasure: &Erasure,
            ) -> Result<Vec<Sha256Digest>, TxError> {
                let mut digests = Vec::new();
                for upload in uploads {
                    // The person's own messages no longer name it: any message that does is another's.
                    let used: i64 = messages::table
                        .filter(messages::organization_id.eq(org))
                        .filter(messages::content.like(format!("%\"{upload}\"%")))
                        .count()
                        .get_result(conn)
                        .await?;
                    if used > 0 {
                        continue;
                    }
                    let sha = media_files::table
                        .filter(media_files::organization_id.eq(org))
                        .filter(media_files::id.eq(upload))
                        .select(media_files::sha256)
                        .first::<String>(conn)
                        .await
                        .optional()?;
                    let Some(sha) = sha else { continue };
                    diesel::delete(
                        media_files::table
                            .filter(media_files::organization_id.eq(org))
                            .filter(media_files::id.eq(upload)),
                    )
                    .execute(conn)
                    .await?;
                    diesel::insert_into(erased_media::table)
                        .values((
                            erased_media::organization_id.eq(org),
                            erased_media::sha256.eq(&sha),
                            erased_media::erased_at.eq(erasure.at),
                        ))
                        .on_conflict_do_nothing()
                        .execute(conn)
                        .await?;
                    digests.push(Sha256Digest::from_hex(&sha).map_err(|e| corrupt("media digest", e))?);
                }
                Ok(digests)
            }

            async fn erase_in_tx(conn: &mut Conn, erasure: &Erasure) -> Result<ErasureOutcome, TxError> {
                let org = erasure.organization_id.to_string();
                let names = texts(&erasure.identities);
                let users = user_ids(&erasure.identities);
                let marker = erasure.marker.as_str();
                let still_queued: i64 = messages::table
                    .filter(messages::organization_id.eq(&org))
                    .filter(messages::to_number.eq_any(&names))
                    .filter(messages::status.eq_any(queued()))
                    .filter(messages::id.eq_any(cancellable_jobs(&org)))
                    .count()
                    .get_result(conn)
                    .await?;
                if still_queued > 0 {
                    return Err(TxError::from(StoreError::Conflict(
                        "a message to the person is still queued".to_owned(),
                    )));
                }
                let markers: Vec<&str> = erasure.markers.iter().map(ErasedPerson::as_str).collect();
                let erased_before: i64 = erasures::table
                    .filter(erasures::organization_id.eq(&org))
                    .filter(erasures::marker.eq_any(&markers))
                    .count()
                    .get_result(conn)
                    .await?;
                let (message_ids, mut uploads) = erase_messages(conn, &org, &names, marker).await?;
                let (inbound_ids, inbound_files) = erase_inbound(conn, &org, &names, &users, marker).await?;
                uploads.extend(inbound_files);
                let contacts = diesel::delete(
                    contacts::table
                        .filter(contacts::organization_id.eq(&org))
                        .filter(
                            contacts::number_key
                                .eq_any(keys(&erasure.identities))
                                .or(contacts::number.eq_any(&names))
                                .or(contacts::user_id.eq_any(&users)),
                        ),
                )
                .execute(conn)
                .await?;
                let windows = diesel::delete(
                    service_windows::table
                        .filter(service_windows::organization_id.eq(&org))
                        .filter(service_windows::recipient.eq_any(&names)),
                )
                .execute(conn)
                .await?;
                let about: Vec<String> = message_ids.iter().chain(&inbound_ids).cloned().collect();
                let events = scrub_events(conn, &org, &about, &names, erasure).await?;
                let files = forget_uploads(conn, &org, &uploads, erasure).await?;
                let found = !message_ids.is_empty()
                    || !inbound_ids.is_empty()
                    || contacts > 0
                    || windows > 0
                    || events > 0;
                let count = |n: usize| u64::try_from(n).unwrap_or(u64::MAX);
                if !found && erased_before == 0 {
                    // A person never known: nothing is written, not even the markers, so the request can
                    // be answered 404 again (and would find nothing to scrub: every statement above
                    // matched no row).
                    return Ok(ErasureOutcome {
                        known: false,
                        messages: 0,
                        inbound: 0,
                        files: Vec::new(),
                    });
                }
                for marker in &markers {
                    diesel::insert_into(erasures::table)
                        .values((
                            erasures::organization_id.eq(&org),
                            erasures::marker.eq(marker),
                            erasures::erased_at.eq(erasure.at),
                        ))
                        .on_conflict_do_nothing()
                        .execute(conn)
                        .await?;
                }
                // An erasure that found nothing new (a repeat) says so once only: the first one's event.
                if found {
                    insert_customer_event(conn, &CustomerEventRow::erased(erasure)?).await?;
                }
                Ok(ErasureOutcome {
                    known: true,
                    messages: count(message_ids.len()),
                    inbound: count(inbound_ids.len()),
                    files,
                })
            }

            #[async_trait]
            impl ErasureStore for Db {
                async fn person_identities(
                    &self,
                    organization: &OrganizationId,
                    recipient: &Recipient,
                ) -> Result<PersonIdentities, StoreError> {
                    let org = organization.to_string();
                    let mut conn = self.read().await?;
                    let mut identities = PersonIdentities::default();
                    let (number, user) = match recipient {
                        Recipient::Number(number) => (Some(number.clone()), None),
                        Recipient::User(user) => (None, Some(user.clone())),
                        Recipient::Erased(_) => (None, None),
                    };
                    identities.add(number.as_ref(), user.as_ref());
                    let query = contacts::table
                        .filter(contacts::organization_id.eq(&org))
                        .select((contacts::number, contacts::user_id));
                    let contact = match (&number, &user) {
                        (Some(number), _) => {
                            query
                                .filter(contacts::number_key.eq(number.person_key().as_str()))
                                .first::<(Option<String>, Option<String>)>(&mut *conn)
                                .await
                        }
                        (None, Some(user)) => {
                            query
                                .filter(contacts::user_id.eq(user.as_str()))
                                .first::<(Option<String>, Option<String>)>(&mut *conn)
                                .await
                        }
                        (None, None) => return Ok(identities),
                    }
                    .optional()
                    .map_err(from_diesel)?;
                    if let Some((number, user)) = contact {
                        let number = number.and_then(|n| PhoneNumber::parse(&n).ok());
                        let user = user.and_then(|u| UserId::parse(&u).ok());
                        identities.add(number.as_ref(), user.as_ref());
                    }
                    // The network pairs a number with user ids in inbound messages (and a new user id
                    // when the number changes owner): every pairing the organization holds.
                    let paired = inbound_messages::table
                        .filter(inbound_messages::organization_id.eq(&org))
                        .filter(
                            inbound_messages::from_number
                                .eq_any(texts(&identities))
                                .or(inbound_messages::from_user_id.eq_any(user_ids(&identities))),
                        )
                        .select((
                            inbound_messages::from_number,
                            inbound_messages::from_user_id,
                        ))
                        .distinct()
                        .limit(herald_domain::erasure::MAX_IDENTITIES as i64)
                        .load::<(String, Option<String>)>(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    for (number, user) in paired {
                        let number = PhoneNumber::parse(&number).ok();
                        let user = user.and_then(|u| UserId::parse(&u).ok());
                        identities.add(number.as_ref(), user.as_ref());
                    }
                    Ok(identities)
                }

                async fn queued_messages(
                    &self,
                    organization: &OrganizationId,
                    identities: &PersonIdentities,
                    limit: u32,
                ) -> Result<Vec<MessageId>, StoreError> {
                    let mut conn = self.read().await?;
                    let ids = messages::table
                        .filter(messages::organization_id.eq(organization.to_string()))
                        .filter(messages::to_number.eq_any(texts(identities)))
                        .filter(messages::status.eq_any(queued()))
                        .filter(messages::id.eq_any(cancellable_jobs(&organization.to_string())))
                        .order(messages::id)
                        .limit(i64::from(limit))
                        .select(messages::id)
                        .load::<String>(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    ids.iter()
                        .map(|id| MessageId::parse(id).map_err(|e| corrupt("message id", e)))
                        .collect()
                }

                async fn erase_person(&self, erasure: &Erasure) -> Result<ErasureOutcome, StoreError> {
                    write_tx!(self, |conn| erase_in_tx(conn, erasure).await).map_err(TxError::into_store)
                }

                async fn erased_files(&self, limit: u32) -> Result<Vec<Sha256Digest>, StoreError> {
                    let mut conn = self.read().await?;
                    let mut digests = erased_media::table
                        .order((erased_media::erased_at, erased_media::sha256))
                        .limit(i64::from(limit))
                        .select(erased_media::sha256)
                        .load::<String>(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    digests.dedup();
                    digests
                        .iter()
                        .map(|sha| Sha256Digest::from_hex(sha).map_err(|e| corrupt("media digest", e)))
                        .collect()
                }

                async fn files_removed(&self, digests: &[Sha256Digest]) -> Result<(), StoreError> {
                    let hex: Vec<String> = digests.iter().map(Sha256Digest::to_hex).collect();
                    let mut conn = self.write().await?;
                    for chunk in hex.chunks(CHUNK) {
                        diesel::delete(erased_media::table.filter(erased_media::sha256.eq_any(chunk)))
                            .execute(&mut *conn)
                            .await
                            .map_err(from_diesel)?;
                    }
                    Ok(())
                }

                async fn erased_before(
                    &self,
                    organization: &OrganizationId,
                    markers: &[ErasedPerson],
                ) -> Result<bool, StoreError> {
                    let markers: Vec<&str> = markers.iter().map(ErasedPerson::as_str).collect();
                    let mut conn = self.read().await?;
                    let found: i64 = erasures::table
                        .filter(erasures::organization_id.eq(organization.to_string()))
                        .filter(erasures::marker.eq_any(&markers))
                        .count()
                        .get_result(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    Ok(found > 0)
                }
            }
        }
    };
}

pub(crate) use erasure_port;

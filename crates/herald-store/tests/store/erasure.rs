//! Erasing a person (docs/api.md §7.2), on both stores: after `ErasureStore::erase_person`, no text column
//! of any table holds the person's number (any form), user id or a word of their messages for that
//! organization, while another organization's rows about the same number are intact and the usage counts
//! are as they were. The scan reads the schema catalog, so a table or column added later is scanned too.

use crate::helpers::{ports, test_name};
use diesel::QueryableByName;
use diesel::sql_types::{BigInt, Text};
use herald_domain::attachment::{MediaAttachment, MediaKind, MediaSource};
use herald_domain::contact::{MarketingPreference, PreferenceChange, PreferenceSource, Recipient};
use herald_domain::erasure::{ErasedPerson, Erasure, PersonIdentities};
use herald_domain::ids::{EventId, InboundId, MediaId, MessageId, OrganizationId};
use herald_domain::media::{MediaFile, Sha256Digest};
use herald_domain::message::MessageContent;
use herald_domain::network::InboundContent;
use herald_domain::organization::SenderNumber;
use herald_domain::ports::StoreError;
use herald_domain::values::UserId;
use herald_domain::values::{Caption, PhoneNumber};
use herald_domain::webhook::EventSelection;
use herald_store::Store;
use herald_store::testing::{self, Guard};
use herald_testkit::contract::{Ports, new_organization_with_sender};
use herald_testkit::fixtures::{self, at, next_ulid, phone};

/// The person: a Mexican mobile, written by the organization in its old form and by the network in the
/// current one (one person, docs/cloud-api.md §4.6), with a user id the network paired with it.
const SENT_TO: &str = "+525512345678";
const WA_ID: &str = "+5215512345678";
const USER_ID: &str = "MX.884422117733";
/// Words only the person's messages hold.
const TEXT_WORD: &str = "zebrapancake";
const VARIABLE_WORD: &str = "quokkaticket";
const CAPTION_WORD: &str = "narwhalreceipt";
const INBOUND_WORD: &str = "axolotlsecret";
const NAME_WORD: &str = "Wilhelmina";

/// What must not be found: every form of the number in digits (which the `+` form contains), the user id,
/// and the words.
fn needles() -> Vec<String> {
    vec![
        SENT_TO.trim_start_matches('+').to_owned(),
        WA_ID.trim_start_matches('+').to_owned(),
        USER_ID.to_owned(),
        TEXT_WORD.to_owned(),
        VARIABLE_WORD.to_owned(),
        CAPTION_WORD.to_owned(),
        INBOUND_WORD.to_owned(),
        NAME_WORD.to_owned(),
    ]
}

/// The person's rows in `org`: a text, a template with variables and a media message with a caption (of an
/// upload of its own), two inbound messages (number with user id, then user id alone), an opt-out, and a
/// webhook endpoint whose deliveries' responses echo the events.
async fn person_in(ports: &Ports, url: &str, sender: &SenderNumber) -> (MediaId, Vec<MessageId>) {
    let org = sender.organization_id;
    ports
        .webhooks
        .create_endpoint(&fixtures::webhook_endpoint(org, EventSelection::ALL, at(0)), 10)
        .await
        .unwrap();
    let upload = MediaId::from_ulid(next_ulid());
    let digest = Sha256Digest::from_bytes([u8::try_from(next_ulid().0 % 200).unwrap() + 1; 32]);
    ports
        .media
        .insert_media(
            &MediaFile {
                id: upload,
                organization_id: org,
                kind: MediaKind::Image,
                mime_type: "image/jpeg".to_owned(),
                size: 10,
                sha256: digest,
                filename: None,
                created_at: at(0),
                expires_at: at(86_400 * 30),
            },
            None,
        )
        .await
        .unwrap();
    let template = match fixtures::appointment_named_content() {
        MessageContent::Template { template, .. } => MessageContent::Template {
            template,
            variables: herald_domain::template::TemplateVariables::named(vec![
                (
                    fixtures::param_name("customer"),
                    fixtures::template_text(VARIABLE_WORD),
                ),
                (fixtures::param_name("date"), fixtures::template_text("3 March")),
            ]),
        },
        _ => unreachable!(),
    };
    let media = MessageContent::Media {
        media: MediaAttachment {
            kind: MediaKind::Image,
            source: MediaSource::Stored(upload),
            filename: None,
        },
        caption: Some(Caption::parse(&format!("Your {CAPTION_WORD}")).unwrap()),
    };
    let mut sent = Vec::new();
    for (n, content) in [
        fixtures::text_content(&format!("Hello {TEXT_WORD}")),
        template,
        media,
    ]
    .into_iter()
    .enumerate()
    {
        let mut message = fixtures::message(org, sender, SENT_TO, content, at(10 + n as i64));
        message.client_reference = Some(fixtures::client_reference(&format!("ref-{TEXT_WORD}")));
        ports
            .messages
            .accept(&fixtures::accept_request(&message, None, None))
            .await
            .unwrap();
        // Dispatched and delivered: no longer queued.
        testing::execute_sql(
            url,
            &format!(
                "UPDATE messages SET status = 'delivered' WHERE id = '{}'; ",
                message.id
            ),
        )
        .await
        .unwrap();
        sent.push(message.id);
    }
    for (from, user) in [(Some(WA_ID), Some(USER_ID)), (None, Some(USER_ID))] {
        let mut record =
            fixtures::inbound_record(org, sender, InboundId::from_ulid(next_ulid()), at(20), at(20));
        record.message.from = match from {
            Some(number) => phone(number).into(),
            None => Recipient::User(UserId::parse(USER_ID).unwrap()),
        };
        record.message.from_user_id = user.map(|u| UserId::parse(u).unwrap());
        record.message.from_name = Some(NAME_WORD.to_owned());
        record.message.content = InboundContent::Text {
            body: format!("hi {INBOUND_WORD}"),
        };
        record.message.raw = format!(r#"{{"from":"{}","text":{{"body":"hi {INBOUND_WORD}"}}}}"#, WA_ID);
        assert!(ports.tracking.record_inbound_message(&record).await.unwrap());
    }
    ports
        .contacts
        .pair_user_id(&org, &phone(WA_ID), &UserId::parse(USER_ID).unwrap(), at(21))
        .await
        .unwrap();
    assert!(
        ports
            .contacts
            .record_preference(&PreferenceChange {
                organization_id: org,
                number: Some(phone(SENT_TO)),
                user_id: None,
                preference: MarketingPreference::Stopped,
                source: PreferenceSource::Api,
                occurred_at: at(22),
                recorded_at: at(22),
                event_id: EventId::from_ulid(next_ulid()),
                dedupe_key: None,
            })
            .await
            .unwrap()
    );
    (upload, sent)
}

/// Every delivery's first attempt, its response echoing the event: the worst a receiver can log.
async fn echo_attempts(url: &str) {
    testing::execute_sql(
        url,
        "INSERT INTO webhook_attempts (delivery_id, number, at, status_code, response_prefix, error_kind, \
         duration_ms) SELECT d.id, 1, d.created_at, 200, e.payload, NULL, 5 FROM webhook_deliveries d \
         JOIN events e ON e.id = d.event_id",
    )
    .await
    .unwrap();
}

#[derive(QueryableByName)]
struct Name {
    #[diesel(sql_type = Text)]
    name: String,
}

#[derive(QueryableByName)]
struct Found {
    #[diesel(sql_type = BigInt)]
    found: i64,
}

/// Every (table, column, is binary, has `organization_id`) of the database, text and binary columns alike,
/// from the schema catalog.
async fn columns(url: &str) -> Vec<(String, String, bool, bool)> {
    let tables: Vec<String> = if url.starts_with("sqlite://") {
        sqlite_names(url, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__diesel%'").await
    } else {
        crate::helpers::pg_texts(
            url,
            "SELECT table_name::text AS value FROM information_schema.tables WHERE table_schema = 'public' \
             AND table_type = 'BASE TABLE' AND table_name NOT LIKE '__diesel%'",
        )
        .await
    };
    let mut all = Vec::new();
    for table in tables {
        let names: Vec<String> = if url.starts_with("sqlite://") {
            sqlite_names(
                url,
                &format!("SELECT name || ':' || type AS name FROM pragma_table_info('{table}')"),
            )
            .await
        } else {
            crate::helpers::pg_texts(
                url,
                &format!(
                    "SELECT column_name::text || ':' || data_type::text AS value FROM information_schema.columns \
                     WHERE table_schema = 'public' AND table_name = '{table}' AND data_type IN ('text', \
                     'character varying', 'json', 'jsonb', 'bytea')"
                ),
            )
            .await
        };
        let names: Vec<(String, bool)> = names
            .iter()
            .map(|n| {
                let (name, kind) = n.split_once(':').unwrap();
                (name.to_owned(), kind.eq_ignore_ascii_case("bytea"))
            })
            .collect();
        let scoped = names.iter().any(|(n, _)| n == "organization_id");
        all.extend(
            names
                .into_iter()
                .map(|(c, binary)| (table.clone(), c, binary, scoped)),
        );
    }
    all
}

async fn sqlite_names(url: &str, sql: &str) -> Vec<String> {
    use diesel::{Connection as _, RunQueryDsl as _};
    let path = url.strip_prefix("sqlite://").unwrap();
    let mut conn = diesel::SqliteConnection::establish(path).unwrap();
    let rows: Vec<Name> = diesel::sql_query(sql).load(&mut conn).unwrap();
    rows.into_iter().map(|r| r.name).collect()
}

/// One connection of the test's own, to either backend, for the scan's counts.
enum Scanner {
    Sqlite(Box<diesel::SqliteConnection>),
    Postgres(Box<diesel_async::AsyncPgConnection>),
}

impl Scanner {
    async fn open(url: &str) -> Self {
        use diesel::Connection as _;
        use diesel_async::AsyncConnection as _;
        match url.strip_prefix("sqlite://") {
            Some(path) => Self::Sqlite(Box::new(diesel::SqliteConnection::establish(path).unwrap())),
            None => Self::Postgres(Box::new(
                diesel_async::AsyncPgConnection::establish(url).await.unwrap(),
            )),
        }
    }

    async fn count(&mut self, sql: &str) -> i64 {
        let rows: Vec<Found> = match self {
            Self::Sqlite(conn) => diesel::RunQueryDsl::load(diesel::sql_query(sql), &mut **conn).expect(sql),
            Self::Postgres(conn) => diesel_async::RunQueryDsl::load(diesel::sql_query(sql), &mut **conn)
                .await
                .expect(sql),
        };
        rows.first().map_or(0, |r| r.found)
    }
}

/// Where each of `needles` is found among `org`'s rows (every row of a table without `organization_id`,
/// but for delivery attempts, which belong to their delivery's), as `table.column` names.
async fn traces(url: &str, org: &OrganizationId, needles: &[String]) -> Vec<(String, Vec<String>)> {
    let sqlite = url.starts_with("sqlite://");
    let columns = columns(url).await;
    let mut scanner = Scanner::open(url).await;
    let mut all = Vec::new();
    for needle in needles {
        let mut found = Vec::new();
        for (table, column, binary, scoped) in &columns {
            let matches = match (sqlite, binary) {
                // SQLite compares a blob's bytes as text.
                (true, _) => format!("CAST(\"{column}\" AS TEXT) LIKE '%{needle}%'"),
                // A bytea column's text form is hex: its bytes are searched instead.
                (false, true) => format!("position(convert_to('{needle}', 'UTF8') in \"{column}\") > 0"),
                (false, false) => format!("\"{column}\"::text LIKE '%{needle}%'"),
            };
            let scope = if *scoped {
                format!("organization_id = '{org}' AND ")
            } else if table == "webhook_attempts" {
                format!(
                    "delivery_id IN (SELECT id FROM webhook_deliveries WHERE organization_id = '{org}') AND "
                )
            } else {
                String::new()
            };
            let sql = format!("SELECT COUNT(*) AS found FROM \"{table}\" WHERE {scope}{matches}");
            if scanner.count(&sql).await > 0 {
                found.push(format!("{table}.{column}"));
            }
        }
        all.push((needle.clone(), found));
    }
    all
}

fn erasure_of(org: OrganizationId, identities: PersonIdentities, n: u8) -> Erasure {
    // The store test's stand-in for the keyed digest: one marker per identity, the same in every call.
    let marker = |text: &str| {
        let mut digest = [n; 32];
        for (slot, byte) in digest.iter_mut().zip(text.bytes().rev()) {
            *slot = byte;
        }
        ErasedPerson::from_digest(&digest)
    };
    let primary = identities.primary().unwrap();
    Erasure {
        organization_id: org,
        marker: marker(&primary),
        markers: identities.texts().iter().map(|t| marker(t)).collect(),
        identities,
        event_id: EventId::from_ulid(next_ulid()),
        at: at(100),
    }
}

async fn erasure_leaves_no_trace(store: Store, guard: Guard) {
    let url = guard.database_url().to_owned();
    let ports = ports(&store);
    let erasure_port = store.erasure();
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let (other, other_sender) = new_organization_with_sender(&ports, "starter").await;
    let (upload, sent) = person_in(&ports, &url, &sender).await;
    person_in(&ports, &url, &other_sender).await;
    echo_attempts(&url).await;
    for (needle, found) in traces(&url, &org.id, &needles()).await {
        assert!(!found.is_empty(), "the scan finds {needle} before");
    }
    let usage_before = ports
        .pricing
        .usage_counts(&org.id, at(-1000), at(1000))
        .await
        .unwrap();

    // Named by the user id alone: the number, its other form and the paired inbound are found from it.
    let recipient = Recipient::User(UserId::parse(USER_ID).unwrap());
    let identities = erasure_port.person_identities(&org.id, &recipient).await.unwrap();
    let mut numbers: Vec<&str> = identities.numbers.iter().map(PhoneNumber::as_str).collect();
    numbers.sort_unstable();
    assert_eq!(numbers, [WA_ID, SENT_TO], "both forms of the paired number");
    let erasure = erasure_of(org.id, identities.clone(), 1);
    let outcome = erasure_port.erase_person(&erasure).await.unwrap();
    assert!(outcome.known);
    assert_eq!((outcome.messages, outcome.inbound), (3, 2));
    assert_eq!(
        outcome.files.len(),
        1,
        "the upload only the person's message used"
    );

    for (needle, found) in traces(&url, &org.id, &needles()).await {
        assert!(found.is_empty(), "{needle} is still in {found:?}");
    }
    for (needle, found) in traces(&url, &other.id, &needles()).await {
        assert!(
            !found.is_empty(),
            "the other organization's rows about {needle} are untouched"
        );
    }
    assert_eq!(
        ports
            .pricing
            .usage_counts(&org.id, at(-1000), at(1000))
            .await
            .unwrap(),
        usage_before,
        "usage counts are as they were"
    );
    // The kept rows read back, with the marker and their type.
    for id in &sent {
        let kept = ports.messages.message(&org.id, id).await.unwrap().unwrap();
        assert_eq!(kept.to, Recipient::Erased(erasure.marker.clone()));
        assert!(
            matches!(kept.content, MessageContent::Erased(_)),
            "{:?}",
            kept.content
        );
        assert_eq!(kept.status, herald_domain::message::MessageStatus::Delivered);
    }
    assert!(
        ports.media.media(&org.id, &upload).await.unwrap().is_none(),
        "the upload's row is gone"
    );
    assert_eq!(erasure_port.erased_files(10).await.unwrap(), outcome.files);
    erasure_port.files_removed(&outcome.files).await.unwrap();
    assert!(erasure_port.erased_files(10).await.unwrap().is_empty());
    let events = ports.events.customer_events(&org.id).await.unwrap();
    let erased_events: Vec<_> = events
        .iter()
        .filter(|e| e.event_type == herald_domain::customer_event::CustomerEventType::ContactErased)
        .collect();
    let [erased_event] = erased_events.as_slice() else {
        panic!("one contact.erased event, got {}", erased_events.len())
    };
    assert!(erased_event.payload.contains(erasure.marker.as_str()));

    // Again, by the number's other form: known (the log), nothing new, no second event.
    let again = erasure_port
        .person_identities(&org.id, &Recipient::Number(phone(SENT_TO)))
        .await
        .unwrap();
    let repeat = erasure_port
        .erase_person(&erasure_of(org.id, again, 1))
        .await
        .unwrap();
    assert!(repeat.known);
    assert_eq!((repeat.messages, repeat.inbound), (0, 0));
    assert_eq!(
        ports.events.customer_events(&org.id).await.unwrap().len(),
        events.len()
    );
    // A person never known is not.
    let stranger = erasure_port
        .person_identities(&org.id, &Recipient::Number(phone("+447700900123")))
        .await
        .unwrap();
    assert!(
        !erasure_port
            .erase_person(&erasure_of(org.id, stranger, 1))
            .await
            .unwrap()
            .known
    );
}

async fn queued_messages_stop_an_erasure(store: Store, _guard: Guard) {
    let ports = ports(&store);
    let erasure_port = store.erasure();
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let message = fixtures::message(org.id, &sender, SENT_TO, fixtures::text_content("queued"), at(1));
    ports
        .messages
        .accept(&fixtures::accept_request(&message, None, None))
        .await
        .unwrap();
    let identities = erasure_port
        .person_identities(&org.id, &Recipient::Number(phone(WA_ID)))
        .await
        .unwrap();
    assert_eq!(
        erasure_port
            .queued_messages(&org.id, &identities, 10)
            .await
            .unwrap(),
        [message.id]
    );
    let refused = erasure_port
        .erase_person(&erasure_of(org.id, identities, 2))
        .await;
    assert!(matches!(refused, Err(StoreError::Conflict(_))), "{refused:?}");
    let kept = ports
        .messages
        .message(&org.id, &message.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(kept.to.as_str(), SENT_TO, "nothing written");
}

#[tokio::test]
async fn sqlite_an_erasure_leaves_no_trace_of_the_person_in_any_column() {
    let (store, guard) = testing::fresh_sqlite().await.unwrap();
    erasure_leaves_no_trace(store, guard).await;
}

#[tokio::test]
async fn postgres_an_erasure_leaves_no_trace_of_the_person_in_any_column() {
    let Some((store, guard)) = crate::helpers::fresh_postgres_or_skip(&test_name!()).await else {
        return;
    };
    erasure_leaves_no_trace(store, guard).await;
}

#[tokio::test]
async fn sqlite_a_queued_message_stops_an_erasure_until_cancelled() {
    let (store, guard) = testing::fresh_sqlite().await.unwrap();
    queued_messages_stop_an_erasure(store, guard).await;
}

#[tokio::test]
async fn postgres_a_queued_message_stops_an_erasure_until_cancelled() {
    let Some((store, guard)) = crate::helpers::fresh_postgres_or_skip(&test_name!()).await else {
        return;
    };
    queued_messages_stop_an_erasure(store, guard).await;
}

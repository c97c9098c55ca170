//! Migration 000023 on both backends: contacts get their number's person key, and contacts stored before it
//! under two national variants of one number (Mexico's `+52`/`+52 1`, Brazil's ninth digit) are merged into
//! one — the stopped one kept, the other's block and user id gained — while everyone else stays as they were.

use diesel::sql_types::Text;
use diesel::{Connection, QueryableByName, RunQueryDsl, SqliteConnection, sql_query};
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};

const MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/sqlite");
const PERSON_KEYS: &str = "000023_contact_person_keys";

/// The contacts before the migration: two people under two variants each, and two others.
const BEFORE: &str = "\
    INSERT INTO organizations (id, name, status, plan, owner_email, created_at) \
        VALUES ('org_1', 'Acme', 'active', 'starter', NULL, '2026-11-01T00:00:00Z'); \
    INSERT INTO contacts (organization_id, contact_key, number, user_id, marketing, marketing_changed_at, \
        marketing_source, blocked, blocked_at, updated_at) VALUES \
    ('org_1', '+525512345678', '+525512345678', NULL, 'allowed', '2026-11-01T00:00:00Z', 'api', FALSE, NULL, \
        '2026-11-01T00:00:00Z'), \
    ('org_1', '+5215512345678', '+5215512345678', 'MX.1', 'stopped', '2026-11-02T00:00:00Z', 'network', FALSE, \
        NULL, '2026-11-02T00:00:00Z'), \
    ('org_1', '+5521987654321', '+5521987654321', NULL, 'allowed', NULL, NULL, TRUE, '2026-11-03T00:00:00Z', \
        '2026-11-03T00:00:00Z'), \
    ('org_1', '+552187654321', '+552187654321', 'BR.2', 'allowed', NULL, NULL, FALSE, NULL, \
        '2026-11-04T00:00:00Z'), \
    ('org_1', '+15551234567', '+15551234567', NULL, 'stopped', '2026-11-05T00:00:00Z', 'api', FALSE, NULL, \
        '2026-11-05T00:00:00Z'), \
    ('org_1', 'US.1', NULL, 'US.1', 'stopped', '2026-11-06T00:00:00Z', 'network', FALSE, NULL, \
        '2026-11-06T00:00:00Z')";

const AFTER: &str = "SELECT contact_key || '|' || coalesce(number, '-') || '|' || coalesce(number_key, '-') || '|' \
    || coalesce(user_id, '-') || '|' || marketing || '|' || (CASE WHEN blocked THEN 'blocked' ELSE 'open' END) \
    AS value FROM contacts ORDER BY contact_key";

fn expected() -> Vec<String> {
    [
        "+15551234567|+15551234567|+15551234567|-|stopped|open",
        "+5215512345678|+5215512345678|+5215512345678|MX.1|stopped|open",
        "+552187654321|+552187654321|+552187654321|BR.2|allowed|blocked",
        "US.1|-|-|US.1|stopped|open",
    ]
    .map(str::to_owned)
    .to_vec()
}

#[derive(QueryableByName)]
struct Line {
    #[diesel(sql_type = Text)]
    value: String,
}

#[test]
fn sqlite_person_keys_merge_the_variants_of_one_number() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("person_keys.db");
    let mut conn = SqliteConnection::establish(&path.display().to_string()).unwrap();
    for migration in conn.pending_migrations(MIGRATIONS).unwrap() {
        if migration.name().to_string().ends_with(PERSON_KEYS) {
            break;
        }
        conn.run_migration(&migration).unwrap();
    }
    diesel::connection::SimpleConnection::batch_execute(&mut conn, BEFORE).unwrap();
    conn.run_pending_migrations(MIGRATIONS).unwrap();
    let rows: Vec<String> = sql_query(AFTER)
        .load::<Line>(&mut conn)
        .unwrap()
        .into_iter()
        .map(|l| l.value)
        .collect();
    assert_eq!(rows, expected());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_person_keys_merge_the_variants_of_one_number() {
    use diesel_async::{AsyncConnection, AsyncPgConnection, SimpleAsyncConnection};
    let empty = herald_store::testing::empty_postgres()
        .await
        .expect("an empty database");
    let Some((_store, guard)) = empty else {
        eprintln!("SKIPPED: no PostgreSQL");
        return;
    };
    let mut conn = AsyncPgConnection::establish(guard.database_url())
        .await
        .expect("a connection");
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../migrations/postgres");
    let mut migrations: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    migrations.sort();
    for migration in migrations {
        let up = std::fs::read_to_string(migration.join("up.sql")).unwrap();
        if migration.display().to_string().ends_with(PERSON_KEYS) {
            conn.batch_execute(BEFORE).await.expect("the contacts before");
        }
        conn.batch_execute(&up)
            .await
            .unwrap_or_else(|e| panic!("{}: {e}", migration.display()));
    }
    let rows: Vec<String> = diesel_async::RunQueryDsl::load::<Line>(sql_query(AFTER), &mut conn)
        .await
        .unwrap()
        .into_iter()
        .map(|l| l.value)
        .collect();
    assert_eq!(rows, expected());
}

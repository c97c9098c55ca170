//! Migration 000013 on SQLite: `events` is rebuilt to widen its `event_type` CHECK while webhook deliveries
//! reference it, so the rebuild runs with foreign keys off in its own transaction. Its rows (every column,
//! in rowid order), columns, indexes and the deliveries that name them must come through, foreign keys must
//! be on again afterwards, and only then may a `template.status` event be recorded.

use diesel::sql_types::Text;
use diesel::{Connection, QueryableByName, RunQueryDsl, SqliteConnection, sql_query};
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};

const MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/sqlite");
const REBUILD: &str = "000013_template_events";

#[derive(QueryableByName)]
struct Line {
    #[diesel(sql_type = Text)]
    line: String,
}

fn lines(conn: &mut SqliteConnection, query: &str) -> Vec<String> {
    sql_query(query)
        .load::<Line>(conn)
        .expect(query)
        .into_iter()
        .map(|l| l.line)
        .collect()
}

fn exec(conn: &mut SqliteConnection, query: &str) -> diesel::QueryResult<usize> {
    sql_query(query).execute(conn)
}

fn insert_event(
    conn: &mut SqliteConnection,
    id: &str,
    kind: &str,
    message: Option<&str>,
) -> diesel::QueryResult<usize> {
    let message = message.map_or_else(|| "NULL".to_owned(), |m| format!("'{m}'"));
    exec(
        conn,
        &format!(
            "INSERT INTO events (id, organization_id, event_type, message_id, sequence, payload, occurred_at, \
             created_at) VALUES ('{id}', 'org_1', '{kind}', {message}, 1, '{{}}', '2026-11-01T00:00:00Z', \
             '2026-11-01T00:00:01Z')"
        ),
    )
}

const ROWS: &str = "SELECT id || '|' || organization_id || '|' || event_type || '|' || coalesce(message_id, '-') \
    || '|' || sequence || '|' || payload || '|' || occurred_at || '|' || created_at || '|' \
    || coalesce(trace_context, '-') AS line FROM events ORDER BY rowid";
const INDEXES: &str = "SELECT name AS line FROM sqlite_master \
    WHERE type = 'index' AND tbl_name = 'events' AND name NOT LIKE 'sqlite_autoindex%' ORDER BY name";
const DELIVERIES: &str = "SELECT id || '|' || event_id AS line FROM webhook_deliveries ORDER BY id";

#[test]
fn sqlite_template_events_rebuild_keeps_rows_deliveries_indexes_and_foreign_keys() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rebuild.db");
    let mut conn = SqliteConnection::establish(&path.display().to_string()).unwrap();
    for migration in conn.pending_migrations(MIGRATIONS).unwrap() {
        if migration.name().to_string().ends_with(REBUILD) {
            break;
        }
        conn.run_migration(&migration).unwrap();
    }
    exec(
        &mut conn,
        "INSERT INTO organizations (id, name, status, plan, owner_email, created_at) \
         VALUES ('org_1', 'Acme', 'active', 'starter', NULL, '2026-11-01T00:00:00Z')",
    )
    .unwrap();
    // Ids out of order, so the rowid order is not the primary key's.
    insert_event(&mut conn, "evt_c", "message.status", Some("msg_1")).unwrap();
    insert_event(&mut conn, "evt_a", "message.inbound", Some("inb_1")).unwrap();
    insert_event(&mut conn, "evt_b", "webhook.test", None).unwrap();
    exec(
        &mut conn,
        "UPDATE events SET trace_context = '00-abc-01' WHERE id = 'evt_a'",
    )
    .unwrap();
    exec(
        &mut conn,
        "INSERT INTO webhook_endpoints (id, organization_id, url, sub_status, sub_failed, sub_inbound, \
         description, enabled, disabled_reason, secret, previous_secret, previous_secret_expires_at, \
         failing_since, created_at, updated_at) VALUES \
         ('whk_all', 'org_1', 'https://a.example', 1, 1, 1, NULL, 1, NULL, x'00', NULL, NULL, NULL, 't', 't'), \
         ('whk_some', 'org_1', 'https://b.example', 1, 0, 0, NULL, 1, NULL, x'00', NULL, NULL, NULL, 't', 't')",
    )
    .unwrap();
    exec(
        &mut conn,
        "INSERT INTO webhook_deliveries (id, organization_id, endpoint_id, event_id, event_type, status, \
         attempts, created_at, updated_at) VALUES ('dlv_1', 'org_1', 'whk_all', 'evt_c', 'message.status', \
         'pending', 0, 't', 't')",
    )
    .unwrap();
    assert!(
        insert_event(&mut conn, "evt_t", "template.status", None).is_err(),
        "before 000013 a template event breaks the CHECK"
    );
    let (rows, indexes, deliveries) = (
        lines(&mut conn, ROWS),
        lines(&mut conn, INDEXES),
        lines(&mut conn, DELIVERIES),
    );
    assert_eq!(indexes.len(), 2, "{indexes:?}");

    conn.run_pending_migrations(MIGRATIONS).unwrap();

    assert_eq!(
        lines(&mut conn, ROWS),
        rows,
        "every row, every column, in rowid order"
    );
    assert_eq!(lines(&mut conn, DELIVERIES), deliveries);
    let mut expected_indexes = indexes;
    expected_indexes.push("events_by_dedupe_key".to_owned());
    expected_indexes.sort();
    assert_eq!(lines(&mut conn, INDEXES), expected_indexes);
    assert_eq!(
        lines(
            &mut conn,
            "SELECT CAST(foreign_keys AS TEXT) AS line FROM pragma_foreign_keys"
        ),
        ["1"],
        "foreign keys are on again"
    );
    assert!(
        lines(
            &mut conn,
            "SELECT \"table\" AS line FROM pragma_foreign_key_check"
        )
        .is_empty(),
        "no reference was broken"
    );
    assert_eq!(
        lines(
            &mut conn,
            "SELECT id || ':' || sub_template_status || sub_sender_quality || sub_account_update AS line \
             FROM webhook_endpoints ORDER BY id"
        ),
        ["whk_all:111", "whk_some:000"],
        "an endpoint of every message event takes the new kinds; one that chose keeps its choice"
    );
    insert_event(&mut conn, "evt_t", "template.status", None).unwrap();
    insert_event(&mut conn, "evt_q", "sender.quality", None).unwrap();
    assert!(
        insert_event(&mut conn, "evt_x", "template.deleted", None).is_err(),
        "the CHECK still holds"
    );
    exec(&mut conn, "UPDATE events SET dedupe_key = 'k' WHERE id = 'evt_t'").unwrap();
    assert!(
        exec(&mut conn, "UPDATE events SET dedupe_key = 'k' WHERE id = 'evt_q'").is_err(),
        "one event per organization and key"
    );
    assert!(
        exec(
            &mut conn,
            "INSERT INTO webhook_deliveries (id, organization_id, endpoint_id, event_id, event_type, status, \
             attempts, created_at, updated_at) VALUES ('dlv_2', 'org_1', 'whk_all', 'evt_nope', 't', \
             'pending', 0, 't', 't')"
        )
        .is_err(),
        "deliveries still reference the rebuilt events"
    );
}

//! Migrations on both backends, the seeded plans, and connection handling.

use crate::helpers::{fresh_postgres_or_skip, pg_texts, postgres_or_skip, sqlite, test_name};
use herald_domain::organization::Plan;
use herald_store::{Backend, Store, StoreOptions, testing};
use std::time::Duration;

async fn assert_migrates_from_empty(store: &Store) {
    assert_eq!(
        store.pending_migrations().await.expect("pending migrations"),
        migration_count(),
        "an empty database has every migration pending"
    );
    assert!(
        store.accounts().plans().await.is_err(),
        "an unmigrated database has no plans table"
    );
    store.migrate().await.expect("migrate an empty database");
    assert_eq!(
        store.pending_migrations().await.expect("pending"),
        0,
        "nothing pending after migrate"
    );
    store.migrate().await.expect("migrating again is a no-op");
    assert_eq!(store.pending_migrations().await.expect("pending"), 0);
    assert_eq!(
        store.accounts().plans().await.expect("plans"),
        sorted_default_plans(),
        "the migration seeds exactly Plan::defaults()"
    );
}

/// How many migrations the repository holds (counted, so adding one needs no edit here).
fn migration_count() -> usize {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../migrations/sqlite");
    std::fs::read_dir(dir)
        .expect("the migrations directory")
        .filter(|entry| entry.as_ref().is_ok_and(|e| e.path().is_dir()))
        .count()
}

fn sorted_default_plans() -> Vec<Plan> {
    let mut plans = Plan::defaults();
    plans.sort_by(|a, b| a.name.cmp(&b.name));
    plans
}

#[tokio::test]
async fn sqlite_file_migrates_from_empty_and_creates_its_directory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/data/herald.db");
    let store = Store::connect(&format!("sqlite://{}", path.display()), &StoreOptions::default())
        .await
        .expect("connect creates the missing directory");
    assert!(path.exists(), "the database file exists after connect");
    assert_eq!(store.backend(), Backend::Sqlite);
    store.ping().await.expect("ping");
    assert_migrates_from_empty(&store).await;
    assert!(
        path.with_extension("db-wal").exists(),
        "connections switch the database to WAL (a -wal file next to it)"
    );
}

#[tokio::test]
async fn sqlite_in_memory_migrates_and_keeps_its_data() {
    let store = Store::connect("sqlite::memory:", &StoreOptions::default())
        .await
        .expect("connect in memory");
    assert_migrates_from_empty(&store).await;
    // Reads and writes share the one connection that holds the database.
    let organization = herald_testkit::fixtures::organization("trial");
    store
        .accounts()
        .create_organization(&organization)
        .await
        .expect("create");
    assert_eq!(
        store
            .accounts()
            .organization(&organization.id)
            .await
            .expect("read"),
        Some(organization)
    );
}

#[tokio::test]
async fn sqlite_fresh_store_is_migrated() {
    let store = sqlite().await;
    assert_eq!(store.pending_migrations().await.unwrap(), 0);
    assert_eq!(store.backend(), Backend::Sqlite);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_empty_database_migrates() {
    let empty = testing::empty_postgres().await.unwrap_or_else(|e| {
        panic!(
            "{} is set but no database could be made: {e:#}",
            testing::DATABASE_URL_ENV
        )
    });
    let Some((store, _guard)) = empty else {
        eprintln!("SKIPPED ({} unset): {}", testing::DATABASE_URL_ENV, test_name!());
        return;
    };
    assert_eq!(store.backend(), Backend::Postgres);
    store.ping().await.expect("ping");
    assert_migrates_from_empty(&store).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_fresh_store_is_migrated() {
    let Some(store) = postgres_or_skip(&test_name!()).await else {
        return;
    };
    assert_eq!(store.pending_migrations().await.unwrap(), 0);
    assert_eq!(store.accounts().plans().await.unwrap(), sorted_default_plans());
}

/// A fresh database's tables are left never analyzed: a table ANALYZEd while empty is planned as empty
/// (sequential scans, nested loops) until autovacuum analyzes it again, and a migration that did so held the
/// first minute of sends on a new installation to a fraction of their rate (docs/benchmarks-history.md, "A
/// migration that analyzed an empty table").
#[tokio::test]
async fn postgres_migrations_leave_no_table_analyzed_empty() {
    let Some((_store, guard)) = fresh_postgres_or_skip(&test_name!()).await else {
        return;
    };
    let analyzed_empty = pg_texts(
        guard.database_url(),
        "SELECT relname::text AS value FROM pg_class \
         WHERE relnamespace = 'public'::regnamespace AND relkind = 'r' AND reltuples = 0",
    )
    .await;
    assert!(
        analyzed_empty.is_empty(),
        "analyzed while empty: {analyzed_empty:?}"
    );
}

#[tokio::test]
async fn unreachable_postgres_fails_to_connect() {
    let options = StoreOptions {
        max_connections: 1,
        connect_timeout: Duration::from_secs(2),
        ..StoreOptions::default()
    };
    // Port 1 on loopback: nothing listens, the connection is refused at once.
    let error = Store::connect("postgres://postgres@127.0.0.1:1/none", &options)
        .await
        .expect_err("nothing listens on port 1");
    assert!(
        format!("{error:#}").contains("cannot connect to PostgreSQL"),
        "{error:#}"
    );
}

#[tokio::test]
async fn unknown_url_schemes_are_refused() {
    let error = Store::connect("mysql://localhost/x", &StoreOptions::default())
        .await
        .expect_err("mysql is not a backend");
    assert!(format!("{error}").contains("unsupported database URL"), "{error}");
}

/// SQLite cannot change the `kind` CHECK of `media_files` in place, so migration 000012 rebuilds the table:
/// its rows (every column, in rowid order), its columns and its indexes must come through unchanged, and
/// only then may an audio or sticker upload be recorded.
#[test]
fn sqlite_media_kinds_rebuild_keeps_rows_order_columns_and_indexes() {
    use diesel::sql_types::Text;
    use diesel::{Connection, QueryableByName, RunQueryDsl, SqliteConnection, sql_query};
    use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};

    const MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/sqlite");
    const REBUILD: &str = "000012_media_kinds";

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
    fn insert(conn: &mut SqliteConnection, id: &str, kind: &str) -> diesel::QueryResult<usize> {
        sql_query(format!(
            "INSERT INTO media_files (id, organization_id, kind, mime_type, size, sha256, filename, \
             created_at, expires_at) VALUES ('{id}', 'org_1', '{kind}', 'x/y', 7, 'ab', NULL, \
             '2026-11-01T00:00:00Z', '2026-12-01T00:00:00Z')"
        ))
        .execute(conn)
    }
    const ROWS: &str = "SELECT id || '|' || organization_id || '|' || kind || '|' || mime_type || '|' || size \
        || '|' || sha256 || '|' || coalesce(filename, '-') || '|' || created_at || '|' || expires_at AS line \
        FROM media_files ORDER BY rowid";
    const COLUMNS: &str = "SELECT name || ' ' || type || ' ' || \"notnull\" || ' ' || pk AS line \
        FROM pragma_table_info('media_files') ORDER BY cid";
    const INDEXES: &str = "SELECT name AS line FROM sqlite_master \
        WHERE type = 'index' AND tbl_name = 'media_files' AND name NOT LIKE 'sqlite_autoindex%' ORDER BY name";

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rebuild.db");
    let mut conn = SqliteConnection::establish(&path.display().to_string()).unwrap();
    for migration in conn.pending_migrations(MIGRATIONS).unwrap() {
        if migration.name().to_string().ends_with(REBUILD) {
            break;
        }
        conn.run_migration(&migration).unwrap();
    }
    // Connections enforce foreign keys, as the store's do: the uploads need their organization.
    sql_query(
        "INSERT INTO organizations (id, name, status, plan, owner_email, created_at) \
         VALUES ('org_1', 'Acme', 'active', 'starter', NULL, '2026-11-01T00:00:00Z')",
    )
    .execute(&mut conn)
    .unwrap();
    // Ids out of order, so the rowid order is not the primary key's.
    for (id, kind) in [("med_c", "video"), ("med_a", "document"), ("med_b", "image")] {
        insert(&mut conn, id, kind).unwrap();
    }
    sql_query("UPDATE media_files SET filename = 'a.pdf' WHERE id = 'med_a'")
        .execute(&mut conn)
        .unwrap();
    assert!(
        insert(&mut conn, "med_s", "sticker").is_err(),
        "before 000012 a sticker breaks the CHECK"
    );
    let (rows, columns, indexes) = (
        lines(&mut conn, ROWS),
        lines(&mut conn, COLUMNS),
        lines(&mut conn, INDEXES),
    );
    assert_eq!(indexes.len(), 4, "{indexes:?}");

    conn.run_pending_migrations(MIGRATIONS).unwrap();

    assert_eq!(
        lines(&mut conn, ROWS),
        rows,
        "every row, every column, in rowid order"
    );
    assert_eq!(lines(&mut conn, COLUMNS), columns);
    assert_eq!(lines(&mut conn, INDEXES), indexes);
    insert(&mut conn, "med_s", "sticker").unwrap();
    insert(&mut conn, "med_o", "audio").unwrap();
    assert!(
        insert(&mut conn, "med_x", "gif").is_err(),
        "the CHECK still holds"
    );
    assert!(
        insert(&mut conn, "med_a", "audio").is_err(),
        "the primary key still holds"
    );
}

/// The lookups by network id (a status callback, an inbound reply's context) and by client reference (the
/// message log's filter) match with `=`, which never matches NULL: each must still be answered by its index
/// now that the index leaves out the messages without one (migration 000021). Planned generically, as the
/// store's prepared statements are, and with sequential scans priced out, so only an index that the
/// planner cannot prove usable for `= $1` would leave the plan without it.
#[tokio::test]
async fn postgres_lookups_by_network_id_and_client_reference_use_their_partial_indexes() {
    use diesel::sql_types::Text;
    use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl, SimpleAsyncConnection};

    #[derive(diesel::QueryableByName)]
    struct Plan {
        #[diesel(sql_type = Text, column_name = "QUERY PLAN")]
        line: String,
    }
    let Some((_store, guard)) = fresh_postgres_or_skip(&test_name!()).await else {
        return;
    };
    let definitions = pg_texts(
        guard.database_url(),
        "SELECT indexdef AS value FROM pg_indexes \
         WHERE indexname IN ('messages_by_network_id', 'messages_by_client_reference') ORDER BY indexname",
    )
    .await;
    assert_eq!(definitions.len(), 2, "{definitions:?}");
    assert!(
        definitions[0].ends_with("WHERE (client_reference IS NOT NULL)")
            && definitions[1].ends_with("WHERE (network_message_id IS NOT NULL)"),
        "both indexes leave NULLs out: {definitions:?}"
    );

    let mut conn = AsyncPgConnection::establish(guard.database_url())
        .await
        .expect("a connection");
    conn.batch_execute(
        "SET enable_seqscan = off; SET plan_cache_mode = force_generic_plan; \
         PREPARE by_network_id(text) AS SELECT id FROM messages WHERE network_message_id = $1; \
         PREPARE by_reference(text, text) AS SELECT id FROM messages \
             WHERE organization_id = $1 AND client_reference = $2",
    )
    .await
    .expect("prepare the lookups");
    for (explain, index) in [
        (
            "EXPLAIN EXECUTE by_network_id('wamid.X')",
            "messages_by_network_id",
        ),
        (
            "EXPLAIN EXECUTE by_reference('org_1', 'order-7')",
            "messages_by_client_reference",
        ),
    ] {
        let plan: Vec<Plan> = diesel::sql_query(explain).load(&mut conn).await.expect(explain);
        let plan: Vec<String> = plan.into_iter().map(|p| p.line).collect();
        assert!(
            plan.iter().any(|line| line.contains(&format!("using {index}"))),
            "{explain}: {plan:?}"
        );
    }
}

/// SQLite's side of the test above: its planner uses a partial index only where it can prove the query
/// implies the index's WHERE, which `column = ?` does for `column IS NOT NULL`.
#[test]
fn sqlite_lookups_by_network_id_and_client_reference_use_their_partial_indexes() {
    use diesel::sql_types::Text;
    use diesel::{Connection, QueryableByName, RunQueryDsl, SqliteConnection, sql_query};
    use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};

    const MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/sqlite");
    #[derive(QueryableByName)]
    struct Line {
        #[diesel(sql_type = Text)]
        detail: String,
    }
    let dir = tempfile::tempdir().unwrap();
    let mut conn = SqliteConnection::establish(&dir.path().join("plans.db").display().to_string()).unwrap();
    conn.run_pending_migrations(MIGRATIONS).unwrap();

    let definitions: Vec<Line> = sql_query(
        "SELECT sql AS detail FROM sqlite_master WHERE type = 'index' \
         AND name IN ('messages_by_network_id', 'messages_by_client_reference') ORDER BY name",
    )
    .load(&mut conn)
    .unwrap();
    assert_eq!(definitions.len(), 2);
    assert!(
        definitions[0]
            .detail
            .ends_with("WHERE client_reference IS NOT NULL")
            && definitions[1]
                .detail
                .ends_with("WHERE network_message_id IS NOT NULL"),
        "both indexes leave NULLs out: {:?}",
        definitions.iter().map(|d| &d.detail).collect::<Vec<_>>()
    );
    for (query, index) in [
        (
            "EXPLAIN QUERY PLAN SELECT id FROM messages WHERE network_message_id = ?",
            "messages_by_network_id",
        ),
        (
            "EXPLAIN QUERY PLAN SELECT id FROM messages WHERE organization_id = ? AND client_reference = ?",
            "messages_by_client_reference",
        ),
    ] {
        let mut statement = sql_query(query).into_boxed();
        for _ in 0..query.matches('?').count() {
            statement = statement.bind::<Text, _>("x");
        }
        let plan: Vec<Line> = statement.load(&mut conn).unwrap();
        assert!(
            plan.iter()
                .any(|line| line.detail.contains(&format!("USING INDEX {index}"))),
            "{query}: {:?}",
            plan.iter().map(|l| &l.detail).collect::<Vec<_>>()
        );
    }
}

//! Fresh, migrated databases for tests (feature `test-support`).
//!
//! - SQLite: a new file in a temporary directory per call.
//! - PostgreSQL: a new database per call on the server named by [`DATABASE_URL_ENV`], copied from a
//!   migrated template database (`CREATE DATABASE … TEMPLATE … STRATEGY FILE_COPY`), so each test costs a
//!   file copy rather than a migration run. The template is named after a hash of the migration files and
//!   built once; building it is guarded by `pg_advisory_lock` because nextest runs every test in its own
//!   process.
//!
//! The database lives as long as the returned [`Store`] (and every port taken from it) or the [`Guard`],
//! whichever goes last: then the directory is deleted, or the database dropped with
//! `DROP DATABASE … WITH (FORCE)`. A PostgreSQL database whose process exited first (a server thread still
//! held the store) is dropped by a later test once it is an hour old (`drop_stale_databases`).

use crate::{Keepalive, Store, StoreOptions};
use anyhow::Context;
use diesel::sql_types::{BigInt, Bool, Text};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use std::any::Any;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// The environment variable naming the PostgreSQL server for tests, e.g.
/// `postgres://postgres@127.0.0.1:5432/test` (its database is used for administration only).
pub const DATABASE_URL_ENV: &str = "HERALD_TEST_DATABASE_URL";

/// Builders of the template database, whatever their process, take turns on this lock.
const TEMPLATE_LOCK: i64 = 0x4865_7261_6c64_5431;

/// Keeps a test database alive; see the module docs for when it goes away.
pub struct Guard {
    _database: Arc<dyn Any + Send + Sync>,
    url: String,
}

impl Guard {
    /// The test database's URL, for tests that need more connection pools (several worker processes) on it.
    pub fn database_url(&self) -> &str {
        &self.url
    }
}

impl std::fmt::Debug for Guard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Guard")
    }
}

/// Runs `sql` on the test database at `url` (SQLite or PostgreSQL) over a connection of its own, for a test
/// that must put a row in a state no port writes (a hand edit, a restore gone wrong); answers the rows
/// changed.
///
/// # Errors
/// The database cannot be reached or refuses the statement.
pub async fn execute_sql(url: &str, sql: &str) -> anyhow::Result<usize> {
    if let Some(path) = url.strip_prefix("sqlite://") {
        use diesel::Connection as _;
        let mut conn = diesel::SqliteConnection::establish(path)?;
        return Ok(diesel::RunQueryDsl::execute(diesel::sql_query(sql), &mut conn)?);
    }
    let mut conn = AsyncPgConnection::establish(url).await?;
    Ok(diesel::sql_query(sql).execute(&mut conn).await?)
}

/// Options for test stores: a small pool, and a short wait so a broken test fails fast.
fn test_options() -> StoreOptions {
    StoreOptions {
        max_connections: 8,
        connect_timeout: Duration::from_secs(10),
        // Two group-commit batches in flight on PostgreSQL, so the contract runs them overlapping.
        accept_writers: 2,
        ..StoreOptions::default()
    }
}

/// A migrated SQLite store in a new temporary directory.
///
/// # Errors
/// The directory or the database cannot be created.
pub async fn fresh_sqlite() -> anyhow::Result<(Store, Guard)> {
    let dir = tempfile::Builder::new()
        .prefix("herald-store-")
        .tempdir()
        .context("cannot create a temporary directory")?;
    let url = format!("sqlite://{}", dir.path().join("herald.db").display());
    let keep: Arc<dyn Any + Send + Sync> = Arc::new(dir);
    let store = Store::connect_keeping(&url, &test_options(), Some(keep.clone())).await?;
    store.migrate().await?;
    Ok((store, Guard { _database: keep, url }))
}

/// A migrated PostgreSQL store on a new database, or `None` when [`DATABASE_URL_ENV`] is unset.
///
/// # Errors
/// The variable is set but the server cannot be reached or the database cannot be created.
pub async fn fresh_postgres() -> anyhow::Result<Option<(Store, Guard)>> {
    let Some(server) = server_url() else {
        return Ok(None);
    };
    let template = ensure_template(&server).await?;
    new_postgres(&server, Some(&template)).await.map(Some)
}

/// A PostgreSQL store on a new EMPTY database (no migrations run), or `None` when [`DATABASE_URL_ENV`] is
/// unset. For testing the migrations themselves.
///
/// # Errors
/// As [`fresh_postgres`].
pub async fn empty_postgres() -> anyhow::Result<Option<(Store, Guard)>> {
    let Some(server) = server_url() else {
        return Ok(None);
    };
    new_postgres(&server, None).await.map(Some)
}

fn server_url() -> Option<String> {
    std::env::var(DATABASE_URL_ENV).ok().filter(|url| !url.is_empty())
}

/// `url` with its database name replaced by `database`.
fn with_database(url: &str, database: &str) -> anyhow::Result<String> {
    let scheme_end = url
        .find("://")
        .map(|i| i + 3)
        .context("the PostgreSQL URL has no scheme")?;
    let (scheme, rest) = url.split_at(scheme_end);
    let (location, query) = rest.split_at(rest.find('?').unwrap_or(rest.len()));
    let authority = location.split('/').next().unwrap_or_default();
    Ok(format!("{scheme}{authority}/{database}{query}"))
}

async fn admin_connection(server: &str) -> anyhow::Result<AsyncPgConnection> {
    AsyncPgConnection::establish(server)
        .await
        .with_context(|| format!("cannot reach the PostgreSQL server of {DATABASE_URL_ENV}"))
}

/// FNV-1a over the names and contents of the PostgreSQL migrations: a new template when they change.
fn migrations_hash() -> anyhow::Result<u64> {
    fn visit(dir: &Path, hash: &mut u64) -> anyhow::Result<()> {
        let mut entries = std::fs::read_dir(dir)
            .with_context(|| format!("cannot read {}", dir.display()))?
            .collect::<Result<Vec<_>, _>>()?;
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let path = entry.path();
            let mut bytes = entry.file_name().into_encoded_bytes();
            if path.is_dir() {
                fnv(hash, &bytes);
                visit(&path, hash)?;
            } else {
                bytes.extend(std::fs::read(&path)?);
                fnv(hash, &bytes);
            }
        }
        Ok(())
    }
    fn fnv(hash: &mut u64, bytes: &[u8]) {
        for byte in bytes {
            *hash ^= u64::from(*byte);
            *hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    let mut hash = 0xcbf2_9ce4_8422_2325;
    visit(
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../migrations/postgres")),
        &mut hash,
    )?;
    Ok(hash)
}

#[derive(diesel::QueryableByName)]
struct TemplateFlag {
    #[diesel(sql_type = Bool)]
    datistemplate: bool,
}

/// Makes sure the migrated template database exists and returns its name.
async fn ensure_template(server: &str) -> anyhow::Result<String> {
    let name = format!("herald_template_{:016x}", migrations_hash()?);
    let mut admin = admin_connection(server).await?;
    diesel::sql_query("SELECT pg_advisory_lock($1)")
        .bind::<BigInt, _>(TEMPLATE_LOCK)
        .execute(&mut admin)
        .await?;
    let built = build_template(server, &name, &mut admin).await;
    diesel::sql_query("SELECT pg_advisory_unlock($1)")
        .bind::<BigInt, _>(TEMPLATE_LOCK)
        .execute(&mut admin)
        .await?;
    built.map(|()| name)
}

/// Under the template lock: creates and migrates the template unless a complete one exists. A template
/// is complete once flagged `IS_TEMPLATE`, which happens only after its migrations succeeded, so one
/// left half-built by a crashed run is rebuilt.
async fn build_template(server: &str, name: &str, admin: &mut AsyncPgConnection) -> anyhow::Result<()> {
    let flags = diesel::sql_query("SELECT datistemplate FROM pg_database WHERE datname = $1")
        .bind::<Text, _>(name)
        .load::<TemplateFlag>(admin)
        .await?;
    match <[TemplateFlag]>::first(&flags) {
        Some(flag) if flag.datistemplate => return Ok(()),
        Some(_) => {
            diesel::sql_query(format!("DROP DATABASE \"{name}\" WITH (FORCE)"))
                .execute(admin)
                .await?;
        }
        None => {}
    }
    diesel::sql_query(format!("CREATE DATABASE \"{name}\""))
        .execute(admin)
        .await
        .with_context(|| format!("cannot create the template database {name}"))?;
    {
        let store = Store::connect(&with_database(server, name)?, &test_options()).await?;
        store
            .migrate()
            .await
            .context("cannot migrate the template database")?;
    }
    diesel::sql_query(format!("ALTER DATABASE \"{name}\" WITH IS_TEMPLATE true"))
        .execute(admin)
        .await?;
    Ok(())
}

/// One process at a time drops stale test databases: each drop checkpoints, and the test processes of a run
/// starting at once would otherwise drop the same ones together. The others wait, then find them gone
/// (`IF EXISTS`), so a process never goes on while a leftover it saw is still there.
const SWEEP_LOCK: i64 = 0x4865_7261_6c64_5432;

/// A test database older than this is no running test's: none runs for an hour.
const STALE_AFTER: Duration = Duration::from_secs(3600);

#[derive(diesel::QueryableByName)]
struct DatabaseName {
    #[diesel(sql_type = Text)]
    datname: String,
}

/// Drops the test databases a finished run left behind. A test whose server threads still held its store when
/// its process exited (an API test's server stops asynchronously) never dropped its database, and every run
/// added some. A test database's name carries its creation time (a ULID), so one older than [`STALE_AFTER`]
/// is nobody's. Best effort: a failure here must not fail the test that happened to look.
async fn drop_stale_databases(admin: &mut AsyncPgConnection) {
    let Ok(databases) = diesel::sql_query("SELECT datname FROM pg_database WHERE datname LIKE 't\\_%'")
        .load::<DatabaseName>(admin)
        .await
    else {
        return;
    };
    let now = std::time::SystemTime::now();
    let stale: Vec<_> = databases.iter().filter(|d| is_stale(&d.datname, now)).collect();
    if stale.is_empty() {
        return;
    }
    let locked = diesel::sql_query("SELECT pg_advisory_lock($1)")
        .bind::<BigInt, _>(SWEEP_LOCK)
        .execute(admin)
        .await;
    if locked.is_err() {
        return;
    }
    for database in stale {
        let drop = format!("DROP DATABASE IF EXISTS \"{}\" WITH (FORCE)", database.datname);
        if let Err(error) = diesel::sql_query(drop).execute(admin).await {
            eprintln!(
                "could not drop the stale test database {}: {error:#}",
                database.datname
            );
        }
    }
    let _ = diesel::sql_query("SELECT pg_advisory_unlock($1)")
        .bind::<BigInt, _>(SWEEP_LOCK)
        .execute(admin)
        .await;
}

/// Whether `name` is a test database (`t_<ulid>`) created over [`STALE_AFTER`] before `now`.
fn is_stale(name: &str, now: std::time::SystemTime) -> bool {
    name.strip_prefix("t_")
        .and_then(|ulid| ulid::Ulid::from_string(ulid).ok())
        .and_then(|ulid| now.duration_since(ulid.datetime()).ok())
        .is_some_and(|age| age > STALE_AFTER)
}

/// Creates a database (from `template` when given) and connects a store to it.
async fn new_postgres(server: &str, template: Option<&str>) -> anyhow::Result<(Store, Guard)> {
    let name = format!("t_{}", ulid::Ulid::new().to_string().to_lowercase());
    let create = match template {
        Some(template) => {
            format!("CREATE DATABASE \"{name}\" TEMPLATE \"{template}\" STRATEGY FILE_COPY")
        }
        None => format!("CREATE DATABASE \"{name}\""),
    };
    let mut admin = admin_connection(server).await?;
    drop_stale_databases(&mut admin).await;
    // A template's last builder connection may take a moment to go away after it closed; copying needs
    // the template to have no session.
    let mut attempt = 0;
    loop {
        match diesel::sql_query(&create).execute(&mut admin).await {
            Ok(_) => break,
            Err(error) if attempt < 50 && error.to_string().contains("is being accessed by other users") => {
                attempt += 1;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(error) => {
                return Err(error).with_context(|| format!("cannot create the test database {name}"));
            }
        }
    }
    drop(admin);
    let database: Arc<dyn Any + Send + Sync> = Arc::new(DropDatabase {
        server: server.to_owned(),
        name: name.clone(),
    });
    let keep: Keepalive = Some(database.clone());
    let url = with_database(server, &name)?;
    let store = Store::connect_keeping(&url, &test_options(), keep).await?;
    Ok((
        store,
        Guard {
            _database: database,
            url,
        },
    ))
}

/// Drops its test database when the last holder lets go.
struct DropDatabase {
    server: String,
    name: String,
}

impl Drop for DropDatabase {
    fn drop(&mut self) {
        let server = self.server.clone();
        let name = self.name.clone();
        // Drop may run inside an async runtime, which cannot be blocked on from within; a helper thread
        // with its own runtime can, and joining it makes sure the database is gone before the test ends.
        let outcome = std::thread::spawn(move || -> anyhow::Result<()> {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            runtime.block_on(async {
                let mut admin = admin_connection(&server).await?;
                diesel::sql_query(format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"))
                    .execute(&mut admin)
                    .await?;
                Ok(())
            })
        })
        .join();
        match outcome {
            Ok(Ok(())) => {}
            Ok(Err(error)) => eprintln!("could not drop the test database {}: {error:#}", self.name),
            Err(_) => eprintln!(
                "could not drop the test database {}: the helper thread panicked",
                self.name
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn database_is_replaced_in_urls() {
        assert_eq!(
            with_database("postgres://postgres@127.0.0.1:5432/test", "t_1").unwrap(),
            "postgres://postgres@127.0.0.1:5432/t_1"
        );
        assert_eq!(
            with_database("postgres://u:p@h/test?sslmode=disable", "t_1").unwrap(),
            "postgres://u:p@h/t_1?sslmode=disable"
        );
        assert_eq!(with_database("postgres://h", "t_1").unwrap(), "postgres://h/t_1");
    }

    #[test]
    fn only_test_databases_older_than_an_hour_are_stale() {
        let now = std::time::SystemTime::now();
        let made = |ago: Duration| {
            format!(
                "t_{}",
                ulid::Ulid::from_datetime(now - ago).to_string().to_lowercase()
            )
        };
        assert!(is_stale(&made(Duration::from_secs(3 * 3600)), now));
        assert!(is_stale(&made(STALE_AFTER + Duration::from_secs(1)), now));
        assert!(!is_stale(&made(Duration::from_secs(60)), now), "a running test's");
        assert!(!is_stale(&made(STALE_AFTER - Duration::from_secs(1)), now));
        for other in [
            "test",
            "herald_template_0123456789abcdef",
            "t_not_a_ulid",
            "t_",
            "bench_01m8s8q79cgd7datg294ysx2wd",
        ] {
            assert!(!is_stale(other, now), "{other} is not a test database");
        }
    }
}

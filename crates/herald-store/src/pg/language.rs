//! The language of the server's messages. Herald tells a server going away (a restart, a terminated session)
//! from a bug by the server's English text (`error::is_postgres_going_away`), because diesel-async does not
//! pass the SQLSTATE on. On a server whose `lc_messages` is another language, such an outage answered 500
//! instead of 503, so the store's sessions then ask for `lc_messages = 'C'` as they open.

use super::Conn;
use diesel::result::{ConnectionError, Error as DieselError};
use diesel_async::pooled_connection::{AsyncDieselConnectionManager, ManagerConfig};
use diesel_async::{AsyncConnection, RunQueryDsl};
use futures::FutureExt;

/// The statement every session runs first when the server's default language is not English.
const IN_ENGLISH: &str = "SET lc_messages TO 'C'";

/// How the store's sessions start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Sessions {
    /// As the server, database and role configure them: their messages are in English already, or the role
    /// may not change `lc_messages` (start-up warned).
    AsConfigured,
    /// Each session sets `lc_messages` to `C` first.
    InEnglish,
}

/// Decides, on a first session, how the store's sessions start: it asks the server for an error (division by
/// zero) and reads the language it answers in. The server logs that error once per start (docs/operations.md
/// says so); a notice would not be logged, but diesel-async does not pass notices on.
pub(super) async fn sessions(conn: &mut Conn) -> Sessions {
    if answers_in_english(conn).await {
        return Sessions::AsConfigured;
    }
    match diesel::sql_query(IN_ENGLISH).execute(conn).await {
        Ok(_) if answers_in_english(conn).await => Sessions::InEnglish,
        Ok(_) => {
            tracing::warn!(
                "PostgreSQL does not answer in English even with lc_messages = 'C': an outage (a restart, a \
                 terminated session) may answer 500 instead of 503"
            );
            Sessions::AsConfigured
        }
        Err(error) => {
            tracing::warn!(
                %error,
                "PostgreSQL answers in another language than English and this role may not change \
                 lc_messages: an outage (a restart, a terminated session) may answer 500 instead of 503. \
                 As a superuser, run ALTER ROLE <herald's role> SET lc_messages TO 'C' (docs/operations.md)"
            );
            Sessions::AsConfigured
        }
    }
}

async fn answers_in_english(conn: &mut Conn) -> bool {
    match diesel::sql_query("SELECT 1/0").execute(conn).await {
        Err(DieselError::DatabaseError(_, info)) => info.message() == "division by zero",
        _ => false,
    }
}

/// The pool's connection manager for sessions that start as `sessions` says.
pub(super) fn manager(url: &str, sessions: Sessions) -> AsyncDieselConnectionManager<Conn> {
    match sessions {
        Sessions::AsConfigured => AsyncDieselConnectionManager::new(url),
        Sessions::InEnglish => {
            let mut config = ManagerConfig::default();
            config.custom_setup = Box::new(|url| {
                let url = url.to_owned();
                async move {
                    let mut conn = Conn::establish(&url).await?;
                    diesel::sql_query(IN_ENGLISH)
                        .execute(&mut conn)
                        .await
                        .map_err(ConnectionError::CouldntSetupConfiguration)?;
                    Ok(conn)
                }
                .boxed()
            });
            AsyncDieselConnectionManager::new_with_config(url, config)
        }
    }
}

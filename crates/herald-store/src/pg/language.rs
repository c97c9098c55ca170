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

/// Decides, on a first session, how the store's sessions start. When the session's `lc_messages` names English
/// (`C`, `POSIX`, `en_…`), that is the answer. Otherwise it asks the server for an error (division by zero) and
/// reads the language it answers in: a named language may have no translations installed, and an empty
/// setting takes the server's environment. The server logs that error (docs/operations.md says so), so it is
/// asked only then; a notice would not be logged, but diesel-async does not pass notices on.
pub(super) async fn sessions(conn: &mut Conn) -> Sessions {
    if configured_in_english(conn).await || answers_in_english(conn).await {
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

async fn configured_in_english(conn: &mut Conn) -> bool {
    #[derive(diesel::QueryableByName)]
    struct Setting {
        #[diesel(sql_type = diesel::sql_types::Text)]
        lc_messages: String,
    }
    diesel::sql_query("SHOW lc_messages")
        .get_result::<Setting>(conn)
        .await
        .is_ok_and(|setting| names_english(&setting.lc_messages))
}

/// Whether a locale name is one whose messages are English: `C` and `POSIX` (untranslated), `en` and `en_…`,
/// and Windows' `English_…`.
fn names_english(locale: &str) -> bool {
    let language = locale.split(['.', '@']).next().unwrap_or_default();
    matches!(language, "C" | "POSIX" | "en") || language.starts_with("en_") || language.starts_with("English")
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]
    use super::{Sessions, names_english, sessions};
    use crate::cached::tests::fresh_connection;
    use diesel_async::{AsyncConnection, RunQueryDsl};

    #[test]
    fn english_and_untranslated_locales_are_told_from_the_others_and_the_empty_setting() {
        for locale in [
            "C",
            "C.UTF-8",
            "POSIX",
            "en",
            "en_US.UTF-8",
            "en_GB@euro",
            "English_United States.1252",
        ] {
            assert!(names_english(locale), "{locale}");
        }
        for locale in ["", "de_DE.UTF-8", "fr_FR", "eng", "Cz", "German_Germany.1252"] {
            assert!(!names_english(locale), "{locale}");
        }
    }

    /// On a server whose sessions are configured in English, the check raises no error, which the server
    /// would log at every start: inside a transaction, an error would abort it and the next statement fail.
    #[tokio::test]
    async fn a_session_configured_in_english_is_taken_at_its_word_without_an_error() {
        let Some((_guard, mut conn)) = fresh_connection().await else {
            return;
        };
        diesel::sql_query("SET lc_messages TO 'C'")
            .execute(&mut conn)
            .await
            .unwrap();
        conn.begin_test_transaction().await.unwrap();
        assert_eq!(sessions(&mut conn).await, Sessions::AsConfigured);
        let after = diesel::sql_query("SELECT 1").execute(&mut conn).await;
        assert!(
            after.is_ok(),
            "the transaction was not aborted by an error: {after:?}"
        );
    }
}

//! The key that seals secrets at rest: configured, or kept in a key file where one process may make it.

use crate::config::StoreSection;
use anyhow::Context;
use herald_system::{EncryptionKey, KEY_FILE_NAME, load_or_create_key_file};
use secrecy::ExposeSecret;

/// Where a PostgreSQL deployment keeps its local files when no setting names a place: uploaded files
/// (`media_dir` unset) and the key file of a single process (`encryption_key` unset). Relative to the working
/// directory, as `./data` is for SQLite.
pub(crate) const LOCAL_DATA_DIR: &str = "data";

/// The message for a process that must seal or open tokens but has no key.
pub(crate) const NO_KEY_WITH_POSTGRES: &str = "HERALD_ENCRYPTION_KEY is required with PostgreSQL: it \
     encrypts the senders' access tokens at rest. Set it to base64 of 32 random bytes (e.g. `openssl rand \
     -base64 32`), the same in every Herald process of this database, and keep it safe: tokens stored with \
     a lost key must be added again";

/// The key that seals the senders' tokens: `encryption_key` when set; otherwise, for a SQLite file, the
/// key in `encryption.key` next to the database (generated on first use); for in-memory SQLite, a key
/// for this process only (its data dies with it too); for PostgreSQL, the key in `data/encryption.key`
/// when that file exists, else none.
///
/// # Errors
/// When the configured key is invalid, or the key file cannot be read or created.
pub fn encryption_key(store: &StoreSection) -> anyhow::Result<Option<EncryptionKey>> {
    if let Some(configured) = &store.encryption_key {
        return EncryptionKey::from_base64(configured.expose_secret())
            .context("HERALD_ENCRYPTION_KEY (encryption_key)")
            .map(Some);
    }
    if !store.database_url.starts_with("sqlite:") {
        // A key file made by an earlier `serve` in this folder (see [`Services::key_file_for_one_process`]).
        let path = std::path::Path::new(LOCAL_DATA_DIR).join(KEY_FILE_NAME);
        if !path.exists() {
            return Ok(None);
        }
        let (key, _) = load_or_create_key_file(std::path::Path::new(LOCAL_DATA_DIR))?;
        tracing::info!(path = %path.display(), "using the encryption key file");
        return Ok(Some(key));
    }
    match herald_store::sqlite_data_dir(&store.database_url) {
        Some(dir) => {
            let (key, created) = load_or_create_key_file(&dir)?;
            let path = dir.join(KEY_FILE_NAME);
            if created {
                tracing::info!(
                    path = %path.display(),
                    "generated an encryption key for stored access tokens; back it up with the database"
                );
            } else {
                tracing::info!(path = %path.display(), "using the encryption key file");
            }
            Ok(Some(key))
        }
        None => EncryptionKey::generate().map(Some),
    }
}

#[cfg(test)]
mod tests {
    use super::encryption_key;
    use crate::config::StoreSection;
    use herald_domain::ids::SenderId;
    use herald_domain::ports::{SealContext, SecretSealer};
    use herald_system::XChaChaSealer;
    use secrecy::SecretString;

    fn with_database(url: String) -> StoreSection {
        StoreSection {
            database_url: url,
            ..StoreSection::default()
        }
    }

    #[test]
    fn the_key_is_configured_else_kept_next_to_a_sqlite_file_else_absent() {
        let dir = tempfile::tempdir().unwrap();
        let file_db = with_database(format!("sqlite://{}/data/herald.db", dir.path().display()));
        let first = encryption_key(&file_db).unwrap().unwrap();
        assert!(dir.path().join("data/encryption.key").exists());
        let again = encryption_key(&file_db).unwrap().unwrap();
        let context = SealContext::sender(&SenderId::from_ulid(ulid::Ulid(1)));
        let sealed = XChaChaSealer::new(&first).seal(&context, "token");
        assert_eq!(
            XChaChaSealer::new(&again).open(&context, &sealed).unwrap().text,
            "token",
            "the same key on a later start"
        );

        let configured = StoreSection {
            encryption_key: Some(SecretString::from("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=")),
            ..with_database(format!("sqlite://{}/other/herald.db", dir.path().display()))
        };
        let key = encryption_key(&configured).unwrap().unwrap();
        assert!(
            XChaChaSealer::new(&key).open(&context, &sealed).is_err(),
            "the configured key, not the file's"
        );
        assert!(
            !dir.path().join("other").exists(),
            "no key file when a key is configured"
        );

        assert!(
            encryption_key(&with_database("postgres://u@h/db".into()))
                .unwrap()
                .is_none()
        );
        assert!(
            encryption_key(&with_database("sqlite::memory:".into()))
                .unwrap()
                .is_some()
        );

        // A data directory that cannot be created (its parent is a file) is an error, not a missing key.
        std::fs::write(dir.path().join("plain-file"), "x").unwrap();
        let blocked = with_database(format!(
            "sqlite://{}/plain-file/sub/herald.db",
            dir.path().display()
        ));
        assert!(encryption_key(&blocked).is_err());
    }
}

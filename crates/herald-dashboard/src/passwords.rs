//! Argon2id password hashing behind the domain's `PasswordHasher` port.

use argon2::Argon2;
use argon2::password_hash::phc::PasswordHash as Phc;
use argon2::password_hash::{PasswordHasher as _, PasswordVerifier as _};
use async_trait::async_trait;
use herald_domain::owner::PasswordHash;
use herald_domain::ports::PasswordHasher;

/// Argon2id with the crate's defaults (OWASP's recommended 19 MiB, 2 passes, 1 lane), a random salt per
/// hash, PHC strings. Work runs on Tokio's blocking pool so a login never stalls a request thread.
#[derive(Debug, Clone, Copy, Default)]
pub struct Argon2Passwords;

/// Verified against when the email is unknown, so that answer costs the same time as a wrong password.
/// The hash of a random string nobody knows.
const DUMMY_HASH: &str =
    "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$Yh2mJ0aUr1m+0EeZxkWbGd3pCQnP0fR+0Qn1Yx8D3N4";

#[async_trait]
impl PasswordHasher for Argon2Passwords {
    async fn hash(&self, password: &str) -> Result<PasswordHash, String> {
        let password = password.to_owned();
        tokio::task::spawn_blocking(move || {
            Argon2::default()
                .hash_password(password.as_bytes())
                .map(|hash| PasswordHash::new(hash.to_string()))
                .map_err(|e| format!("argon2: {e}"))
        })
        .await
        .map_err(|e| format!("the hashing task failed: {e}"))?
    }

    async fn verify(&self, password: &str, hash: Option<PasswordHash>) -> bool {
        let password = password.to_owned();
        let known = hash.is_some();
        let phc = hash.map_or_else(|| DUMMY_HASH.to_owned(), |h| h.as_str().to_owned());
        tokio::task::spawn_blocking(move || {
            let Ok(parsed) = Phc::new(&phc) else {
                return false;
            };
            // The library compares the digests in constant time.
            Argon2::default()
                .verify_password(password.as_bytes(), &parsed)
                .is_ok()
        })
        .await
        .unwrap_or(false)
            && known
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::*;

    #[tokio::test]
    async fn hashes_are_argon2id_salted_and_verify() {
        let hasher = Argon2Passwords;
        let one = hasher.hash("correct horse battery").await.unwrap();
        let two = hasher.hash("correct horse battery").await.unwrap();
        assert!(one.as_str().starts_with("$argon2id$v=19$"), "{one:?}");
        assert_ne!(one, two, "a fresh salt each time");
        assert!(hasher.verify("correct horse battery", Some(one.clone())).await);
        assert!(!hasher.verify("correct horse batterY", Some(one)).await);
        assert!(!hasher.verify("anything", None).await);
        assert!(
            Phc::new(DUMMY_HASH).is_ok(),
            "the dummy hash parses, so it costs a real verification"
        );
    }
}

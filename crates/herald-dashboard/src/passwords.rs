//! Argon2id password hashing behind the domain's `PasswordHasher` port.

use argon2::Argon2;
use argon2::password_hash::phc::PasswordHash as Phc;
use argon2::password_hash::{PasswordHasher as _, PasswordVerifier as _};
use async_trait::async_trait;
use herald_domain::owner::PasswordHash;
use herald_domain::ports::PasswordHasher;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

/// Argon2id with the crate's defaults (OWASP's recommended 19 MiB, 2 passes, 1 lane), a random salt per
/// hash, PHC strings. Work runs on Tokio's blocking pool so a login never stalls a request thread.
///
/// At most `max_concurrent` computations run at once (by default one per CPU): each takes a core and
/// 19 MiB for its duration, so a flood of logins from many addresses (each within its own login limit)
/// would otherwise fill the blocking pool's 512 threads and ~10 GiB of memory, starving the API's own
/// blocking work. Beyond the bound a request waits for a slot for at most [`Self::MAX_WAIT`], then fails:
/// a login answers the usual failed-login page, a hash (setting a password) an error. A bounded wait was
/// chosen over an unbounded queue so that, under a flood, queued work is dropped rather than computed for
/// clients long given up, and an owner gets an answer (to retry) instead of an ever longer wait.
#[derive(Debug, Clone)]
pub struct Argon2Passwords {
    slots: Arc<Semaphore>,
    max_wait: Duration,
}

impl Argon2Passwords {
    /// The longest a computation waits for a free slot.
    pub const MAX_WAIT: Duration = Duration::from_secs(10);

    /// At most `max_concurrent` (at least 1) Argon2 computations at once.
    pub fn new(max_concurrent: usize) -> Self {
        Self::bounded(max_concurrent, Self::MAX_WAIT)
    }

    fn bounded(max_concurrent: usize, max_wait: Duration) -> Self {
        Self {
            slots: Arc::new(Semaphore::new(max_concurrent.clamp(1, Semaphore::MAX_PERMITS))),
            max_wait,
        }
    }

    /// Runs `work` on the blocking pool once a slot is free, or says why it did not run.
    async fn run<T: Send + 'static>(&self, work: impl FnOnce() -> T + Send + 'static) -> Result<T, String> {
        let permit = tokio::time::timeout(self.max_wait, self.slots.clone().acquire_owned())
            .await
            .map_err(|_| "every Argon2 slot stayed busy".to_owned())?
            .map_err(|e| format!("the Argon2 slots are closed: {e}"))?;
        // The permit moves into the task: a request whose client hangs up drops its future, but the
        // computation already started still holds its slot until it ends.
        tokio::task::spawn_blocking(move || {
            let _slot = permit;
            work()
        })
        .await
        .map_err(|e| format!("the Argon2 task failed: {e}"))
    }
}

impl Default for Argon2Passwords {
    /// One slot per CPU the process may use.
    fn default() -> Self {
        Self::new(std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get))
    }
}

/// Verified against when the email is unknown, so that answer costs the same time as a wrong password.
/// The hash of a random string nobody knows.
const DUMMY_HASH: &str =
    "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$Yh2mJ0aUr1m+0EeZxkWbGd3pCQnP0fR+0Qn1Yx8D3N4";

#[async_trait]
impl PasswordHasher for Argon2Passwords {
    async fn hash(&self, password: &str) -> Result<PasswordHash, String> {
        let password = password.to_owned();
        self.run(move || {
            Argon2::default()
                .hash_password(password.as_bytes())
                .map(|hash| PasswordHash::new(hash.to_string()))
                .map_err(|e| format!("argon2: {e}"))
        })
        .await?
    }

    async fn verify(&self, password: &str, hash: Option<PasswordHash>) -> bool {
        let password = password.to_owned();
        let known = hash.is_some();
        let phc = hash.map_or_else(|| DUMMY_HASH.to_owned(), |h| h.as_str().to_owned());
        let verified = self
            .run(move || {
                let Ok(parsed) = Phc::new(&phc) else {
                    return false;
                };
                // The library compares the digests in constant time.
                Argon2::default()
                    .verify_password(password.as_bytes(), &parsed)
                    .is_ok()
            })
            .await;
        match verified {
            Ok(verified) => verified && known,
            Err(reason) => {
                tracing::warn!(%reason, "password not checked; the login is refused");
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::*;

    #[tokio::test]
    async fn hashes_are_argon2id_salted_and_verify() {
        let hasher = Argon2Passwords::default();
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

    /// Runs `jobs` computations that each note how many run at that moment, through a bound of `slots`.
    async fn most_at_once(slots: usize, jobs: usize) -> usize {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let hasher = Argon2Passwords::new(slots);
        let running = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let tasks: Vec<_> = (0..jobs)
            .map(|_| {
                let (hasher, running, most) = (hasher.clone(), running.clone(), most.clone());
                tokio::spawn(async move {
                    hasher
                        .run(move || {
                            let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                            most.fetch_max(now, Ordering::SeqCst);
                            // Long enough that unbounded jobs would overlap.
                            std::thread::sleep(Duration::from_millis(20));
                            running.fetch_sub(1, Ordering::SeqCst);
                        })
                        .await
                })
            })
            .collect();
        for task in tasks {
            task.await.unwrap().unwrap();
        }
        most.load(Ordering::SeqCst)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn at_most_the_bound_run_at_once() {
        assert!(most_at_once(2, 12).await <= 2);
        assert_eq!(most_at_once(1, 6).await, 1);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_wait_past_the_bound_fails_and_a_refused_login_is_a_wrong_password() {
        let hasher = Argon2Passwords::bounded(1, Duration::from_millis(50));
        let (release, hold) = std::sync::mpsc::channel::<()>();
        let (started, running) = tokio::sync::oneshot::channel();
        let holder = hasher.clone();
        let busy = tokio::spawn(async move {
            holder
                .run(move || {
                    let _ = started.send(());
                    let _ = hold.recv();
                })
                .await
        });
        running.await.unwrap();
        assert!(hasher.run(|| ()).await.is_err(), "no slot within the wait");
        assert!(!hasher.verify("anything", None).await);
        assert!(hasher.hash("a password").await.is_err());
        release.send(()).unwrap();
        busy.await.unwrap().unwrap();
        assert!(hasher.run(|| ()).await.is_ok(), "the slot is free again");
    }
}

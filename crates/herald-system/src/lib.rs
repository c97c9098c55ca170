//! The production adapters of the domain's small ports that talk to the operating system: time
//! ([`SystemClock`]), ids ([`MonotonicUlids`]), randomness ([`OsSecrets`]), and the sealing of secrets kept
//! at rest ([`XChaChaSealer`], with its key from `HERALD_ENCRYPTION_KEY` or the key file).

mod sealer;
mod system;

pub use sealer::{
    EncryptionKey, KEY_FILE_NAME, SEAL_HEADER, XChaChaSealer, is_current_seal, load_or_create_key_file,
};
pub use system::{MonotonicUlids, OsSecrets, SystemClock};

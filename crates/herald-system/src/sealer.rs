//! The sealing of secrets kept at rest: XChaCha20-Poly1305, its key, and the key file.

use anyhow::Context;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use chacha20poly1305::aead::{Aead, Generate, Payload};
use chacha20poly1305::{Key, KeyInit, XChaCha20Poly1305, XNonce};
use herald_domain::ids::OrganizationId;
use herald_domain::ports::{Opened, SealContext, SealError, SecretSealer};
use std::path::Path;
use ulid::Ulid;

/// A 32-byte key for [`XChaChaSealer`]. Its `Debug` prints nothing of it.
#[derive(Clone)]
pub struct EncryptionKey([u8; KEY_BYTES]);

const KEY_BYTES: usize = 32;
const NONCE_BYTES: usize = 24;

impl EncryptionKey {
    /// Reads the base64 form (`HERALD_ENCRYPTION_KEY`, the key file).
    ///
    /// # Errors
    /// When the text is not base64 or does not decode to exactly 32 bytes; the message never quotes it.
    pub fn from_base64(text: &str) -> anyhow::Result<Self> {
        let bytes = BASE64
            .decode(text.trim())
            .map_err(|_| anyhow::anyhow!("the encryption key is not valid base64"))?;
        let length = bytes.len();
        let key: [u8; KEY_BYTES] = bytes.try_into().map_err(|_| {
            anyhow::anyhow!(
                "the encryption key must be base64 of exactly {KEY_BYTES} bytes, but it decodes to {length} \
                 bytes (make one with `openssl rand -base64 32`)"
            )
        })?;
        Ok(Self(key))
    }

    /// A fresh key from the operating system's random source.
    ///
    /// # Errors
    /// When the operating system has no randomness to give.
    pub fn generate() -> anyhow::Result<Self> {
        let key = Key::try_generate()
            .map_err(|e| anyhow::anyhow!("the operating system's random source failed: {e}"))?;
        Ok(Self(key.into()))
    }

    /// The base64 form, for the key file only.
    fn to_base64(&self) -> String {
        BASE64.encode(self.0)
    }
}

impl std::fmt::Debug for EncryptionKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EncryptionKey(..)")
    }
}

/// XChaCha20-Poly1305 with one key. A sealed secret (version 2) is the 4-byte [`SEAL_HEADER`], a random
/// 24-byte nonce, then the ciphertext and its 16-byte tag; the associated data is
/// [`SealContext::associated_data`], so a value copied into another row or used for another purpose does not
/// open. The nonce is large enough to be drawn at random for every seal without a counter.
///
/// Values sealed before version 2 (nonce and ciphertext, no associated data) still open, reported as legacy;
/// `herald admin reseal` rewrites them.
#[derive(Clone)]
pub struct XChaChaSealer {
    cipher: XChaCha20Poly1305,
    /// The key of [`SecretSealer::person_digest`], derived from the sealing key (see [`ERASURE_KEY_LABEL`])
    /// so no other use of the sealing key can yield it.
    erasure_key: [u8; 32],
}

/// What the erasure key is derived under: `HMAC-SHA256(sealing key, label)`.
const ERASURE_KEY_LABEL: &[u8] = b"herald-erasure/v1";

type HmacSha256 = hmac::Hmac<sha2::Sha256>;

/// HMAC-SHA256 of `parts` (each length-prefixed, so no two inputs run together) under `key`.
fn keyed_digest(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    use hmac::Mac as _;
    // HMAC takes a key of any length: this never fails.
    let Ok(mut mac) = HmacSha256::new_from_slice(key) else {
        return [0; 32];
    };
    for part in parts {
        mac.update(&(part.len() as u64).to_be_bytes());
        mac.update(part);
    }
    mac.finalize().into_bytes().into()
}

/// The first bytes of a version 2 sealed value: NUL, `HS`, version 2. A leading NUL keeps it apart from
/// anything meant as text.
pub const SEAL_HEADER: [u8; 4] = [0x00, 0x48, 0x53, 0x02];

const TAG_BYTES: usize = 16;

/// Whether `sealed` is in the version 2 form (starts with [`SEAL_HEADER`]).
pub fn is_current_seal(sealed: &[u8]) -> bool {
    sealed.starts_with(&SEAL_HEADER)
}

/// Set once a legacy value has been opened, so the operator is told once per process, not per message.
static LEGACY_WARNING: std::sync::Once = std::sync::Once::new();

impl XChaChaSealer {
    pub fn new(key: &EncryptionKey) -> Self {
        Self {
            cipher: XChaCha20Poly1305::new(&Key::from(key.0)),
            erasure_key: keyed_digest(&key.0, &[ERASURE_KEY_LABEL]),
        }
    }

    /// `nonce || ciphertext` decrypted with `aad`.
    fn decrypt(&self, body: &[u8], aad: &[u8]) -> Result<String, SealError> {
        if body.len() < NONCE_BYTES + TAG_BYTES {
            return Err(SealError::Malformed);
        }
        let (nonce, ciphertext) = body.split_at_checked(NONCE_BYTES).ok_or(SealError::Malformed)?;
        let nonce = XNonce::try_from(nonce).map_err(|_| SealError::Malformed)?;
        let plaintext = self
            .cipher
            .decrypt(&nonce, Payload { msg: ciphertext, aad })
            .map_err(|_| SealError::Rejected)?;
        String::from_utf8(plaintext).map_err(|_| SealError::Malformed)
    }

    fn legacy(&self, sealed: &[u8]) -> Result<Opened, SealError> {
        let text = self.decrypt(sealed, &[])?;
        LEGACY_WARNING.call_once(|| {
            tracing::warn!(
                "a secret sealed in the legacy form (not bound to its row) was opened; run `herald admin \
                 reseal` once to seal every stored secret to its row (docs/operations.md)"
            );
        });
        Ok(Opened { text, legacy: true })
    }
}

impl SecretSealer for XChaChaSealer {
    fn seal(&self, context: &SealContext, plaintext: &str) -> Vec<u8> {
        // `generate` reads the OS random source and stops the process if it has none: sealing without a
        // fresh nonce would be worse than not sealing.
        let nonce = XNonce::generate();
        let aad = context.associated_data();
        let mut sealed = Vec::with_capacity(SEAL_HEADER.len() + NONCE_BYTES + plaintext.len() + TAG_BYTES);
        sealed.extend_from_slice(&SEAL_HEADER);
        sealed.extend_from_slice(&nonce);
        // Encryption fails only for inputs beyond 256 GiB, which a token never is.
        if let Ok(ciphertext) = self.cipher.encrypt(
            &nonce,
            Payload {
                msg: plaintext.as_bytes(),
                aad: &aad,
            },
        ) {
            sealed.extend_from_slice(&ciphertext);
        }
        sealed
    }

    fn open(&self, context: &SealContext, sealed: &[u8]) -> Result<Opened, SealError> {
        let Some(body) = sealed.strip_prefix(&SEAL_HEADER) else {
            return self.legacy(sealed);
        };
        match self.decrypt(body, &context.associated_data()) {
            Ok(text) => Ok(Opened { text, legacy: false }),
            Err(SealError::Malformed) => Err(SealError::Malformed),
            // One legacy value in 2^32 starts with the header by chance (its nonce is random). Read as
            // legacy, a version 2 value has another nonce and still does not authenticate, so trying costs
            // no safety; what was refused stays refused.
            Err(SealError::Rejected) => self.legacy(sealed).map_err(|_| SealError::Rejected),
        }
    }

    fn person_digest(&self, organization: &OrganizationId, identity: &str) -> [u8; 32] {
        let organization = organization.to_string();
        keyed_digest(&self.erasure_key, &[organization.as_bytes(), identity.as_bytes()])
    }
}

/// The name of the key file in the data directory.
pub const KEY_FILE_NAME: &str = "encryption.key";

/// The key in `<dir>/encryption.key`, created (mode 0600) when missing. Answers whether it was created now.
///
/// Two processes starting at once both end up with the same key: the file is written whole under a
/// temporary name and then linked into place, which fails if another process got there first.
///
/// # Errors
/// When the directory cannot be created or written, or an existing file does not hold a valid key.
pub fn load_or_create_key_file(dir: &Path) -> anyhow::Result<(EncryptionKey, bool)> {
    let path = dir.join(KEY_FILE_NAME);
    if let Some(key) = read_key_file(&path)? {
        return Ok((key, false));
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create the directory {}", dir.display()))?;
    let key = EncryptionKey::generate()?;
    let temporary = dir.join(format!("{KEY_FILE_NAME}.{}.tmp", Ulid::new()));
    write_private(&temporary, &format!("{}\n", key.to_base64()))
        .with_context(|| format!("cannot write the key file {}", temporary.display()))?;
    let linked = std::fs::hard_link(&temporary, &path);
    let _ = std::fs::remove_file(&temporary);
    match linked {
        Ok(()) => Ok((key, true)),
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
            let key = read_key_file(&path)?
                .with_context(|| format!("the key file {} vanished while it was read", path.display()))?;
            Ok((key, false))
        }
        Err(error) => Err(error).with_context(|| format!("cannot create the key file {}", path.display())),
    }
}

fn read_key_file(path: &Path) -> anyhow::Result<Option<EncryptionKey>> {
    match std::fs::read_to_string(path) {
        Ok(text) => EncryptionKey::from_base64(&text)
            .map(Some)
            .with_context(|| format!("the key file {} is damaged", path.display())),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(error).with_context(|| format!("cannot read the key file {}", path.display())),
    }
}

/// Creates `path` readable and writable by its owner only, from the first byte on.
fn write_private(path: &Path, contents: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path)?;
    file.write_all(contents.as_bytes())?;
    file.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;
    use herald_domain::ids::{SenderId, WebhookId};

    fn sealer() -> XChaChaSealer {
        XChaChaSealer::new(&EncryptionKey::generate().unwrap())
    }

    const TOKEN: &str = "EAAGm0PX4ZCpsBA-an-access-token";

    fn sender(n: u128) -> SealContext {
        SealContext::sender(&SenderId::from_ulid(Ulid(n)))
    }

    fn webhook(n: u128) -> SealContext {
        SealContext::webhook(&WebhookId::from_ulid(Ulid(n)))
    }

    fn open_text(sealer: &XChaChaSealer, context: &SealContext, sealed: &[u8]) -> String {
        let opened = sealer.open(context, sealed).unwrap();
        assert!(!opened.legacy, "a version 2 value");
        opened.text
    }

    /// What sealing was before version 2: nonce and ciphertext, no associated data.
    fn seal_legacy(sealer: &XChaChaSealer, plaintext: &str) -> Vec<u8> {
        let nonce = XNonce::generate();
        let mut sealed = nonce.to_vec();
        sealed.extend_from_slice(&sealer.cipher.encrypt(&nonce, plaintext.as_bytes()).unwrap());
        sealed
    }

    #[test]
    fn a_sealed_token_opens_to_itself_and_does_not_contain_it() {
        let sealer = sealer();
        let sealed = sealer.seal(&sender(1), TOKEN);
        assert_eq!(
            sealed.len(),
            SEAL_HEADER.len() + NONCE_BYTES + TOKEN.len() + TAG_BYTES,
            "header, nonce, ciphertext, tag"
        );
        assert!(
            !sealed
                .windows(8)
                .any(|w| TOKEN.as_bytes().windows(8).any(|t| t == w)),
            "no 8-byte run of the token shows in the sealed bytes"
        );
        assert_eq!(open_text(&sealer, &sender(1), &sealed), TOKEN);
        assert_eq!(open_text(&sealer, &webhook(1), &sealer.seal(&webhook(1), "")), "");
    }

    #[test]
    fn a_sealed_value_starts_with_the_version_2_header() {
        let sealed = sealer().seal(&sender(1), TOKEN);
        assert_eq!(sealed[..4], [0x00, 0x48, 0x53, 0x02]);
        assert!(is_current_seal(&sealed));
        assert_eq!(
            sender(1).associated_data(),
            format!(
                "herald-seal/v2/sender-access-token/{}",
                SenderId::from_ulid(Ulid(1))
            )
            .into_bytes()
        );
        assert_eq!(
            webhook(1).associated_data(),
            format!("herald-seal/v2/webhook-secret/{}", WebhookId::from_ulid(Ulid(1))).into_bytes()
        );
    }

    #[test]
    fn a_value_sealed_for_one_row_opens_for_no_other_row_nor_purpose() {
        let sealer = sealer();
        let sealed = sealer.seal(&sender(1), TOKEN);
        assert_eq!(
            sealer.open(&sender(2), &sealed),
            Err(SealError::Rejected),
            "another sender"
        );
        assert_eq!(
            sealer.open(&webhook(1), &sealed),
            Err(SealError::Rejected),
            "the same row id as a webhook secret"
        );
        let secret = sealer.seal(&webhook(7), "whsec_x");
        assert_eq!(sealer.open(&webhook(8), &secret), Err(SealError::Rejected));
        assert_eq!(sealer.open(&sender(7), &secret), Err(SealError::Rejected));
        assert_eq!(open_text(&sealer, &webhook(7), &secret), "whsec_x");
    }

    #[test]
    fn a_legacy_value_still_opens_for_any_row_and_is_reported_legacy() {
        let sealer = sealer();
        let legacy = seal_legacy(&sealer, TOKEN);
        assert!(!is_current_seal(&legacy));
        for context in [sender(1), sender(2), webhook(1)] {
            let opened = sealer.open(&context, &legacy).unwrap();
            assert_eq!(opened.text, TOKEN);
            assert!(opened.legacy);
        }
        let printed = format!("{:?}", sealer.open(&sender(1), &legacy).unwrap());
        assert!(!printed.contains(TOKEN), "{printed}");
    }

    #[test]
    fn flipping_any_byte_is_detected() {
        let sealer = sealer();
        let sealed = sealer.seal(&sender(1), TOKEN);
        for i in 0..sealed.len() {
            let mut tampered = sealed.clone();
            tampered[i] ^= 0x01;
            assert_eq!(
                sealer.open(&sender(1), &tampered),
                Err(SealError::Rejected),
                "byte {i}"
            );
        }
        assert_eq!(
            sealer.open(&sender(1), &sealed[..sealed.len() - 1]),
            Err(SealError::Rejected)
        );
        let legacy = seal_legacy(&sealer, TOKEN);
        for i in 0..legacy.len() {
            let mut tampered = legacy.clone();
            tampered[i] ^= 0x01;
            assert_eq!(
                sealer.open(&sender(1), &tampered),
                Err(SealError::Rejected),
                "legacy byte {i}"
            );
        }
    }

    #[test]
    fn truncated_values_are_malformed() {
        let sealer = sealer();
        let sealed = sealer.seal(&sender(1), TOKEN);
        for length in [
            0,
            3,
            4,
            4 + NONCE_BYTES - 1,
            4 + NONCE_BYTES,
            4 + NONCE_BYTES + TAG_BYTES - 1,
        ] {
            assert_eq!(
                sealer.open(&sender(1), &sealed[..length]),
                Err(SealError::Malformed),
                "{length} bytes"
            );
        }
        let legacy = seal_legacy(&sealer, TOKEN);
        assert_eq!(
            sealer.open(&sender(1), &legacy[..NONCE_BYTES - 1]),
            Err(SealError::Malformed)
        );
        assert_eq!(sealer.open(&sender(1), &[]), Err(SealError::Malformed));
    }

    #[test]
    fn another_key_cannot_open() {
        let sealed = sealer().seal(&sender(1), TOKEN);
        assert_eq!(sealer().open(&sender(1), &sealed), Err(SealError::Rejected));
        let legacy = seal_legacy(&sealer(), TOKEN);
        assert_eq!(sealer().open(&sender(1), &legacy), Err(SealError::Rejected));
    }

    #[test]
    fn the_same_text_never_seals_the_same_way() {
        let sealer = sealer();
        let (a, b) = (sealer.seal(&sender(1), TOKEN), sealer.seal(&sender(1), TOKEN));
        assert_ne!(a, b);
        assert_ne!(
            a[4..4 + NONCE_BYTES],
            b[4..4 + NONCE_BYTES],
            "a fresh nonce per seal"
        );
        assert_eq!(
            open_text(&sealer, &sender(1), &a),
            open_text(&sealer, &sender(1), &b)
        );
    }

    #[test]
    fn a_base64_key_must_be_32_bytes() {
        let key = EncryptionKey::from_base64(&BASE64.encode([7_u8; 32])).unwrap();
        let same = EncryptionKey::from_base64(&format!("  {}\n", BASE64.encode([7_u8; 32]))).unwrap();
        assert_eq!(
            XChaChaSealer::new(&same)
                .open(&sender(1), &XChaChaSealer::new(&key).seal(&sender(1), TOKEN))
                .unwrap()
                .text,
            TOKEN
        );
        for length in [0, 16, 31, 33, 64] {
            let error = EncryptionKey::from_base64(&BASE64.encode(vec![7_u8; length])).unwrap_err();
            assert!(
                error.to_string().contains(&format!("decodes to {length} bytes")),
                "{error}"
            );
        }
        assert!(EncryptionKey::from_base64("***").is_err());
        assert_eq!(format!("{key:?}"), "EncryptionKey(..)");
    }

    #[test]
    fn the_key_file_is_made_once_private_and_reused() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let (first, created) = load_or_create_key_file(&data).unwrap();
        assert!(created);
        let path = data.join(KEY_FILE_NAME);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600, "mode {mode:o}");
        }
        let stored = std::fs::read_to_string(&path).unwrap();
        assert_eq!(stored.trim(), first.to_base64());

        let (second, created) = load_or_create_key_file(&data).unwrap();
        assert!(!created, "an existing key file is reused");
        let sealed = XChaChaSealer::new(&first).seal(&sender(1), TOKEN);
        assert_eq!(
            open_text(&XChaChaSealer::new(&second), &sender(1), &sealed),
            TOKEN
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), stored, "never rewritten");
        let leftovers: Vec<_> = std::fs::read_dir(&data)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(
            leftovers,
            [std::ffi::OsString::from(KEY_FILE_NAME)],
            "no temporary file left"
        );
    }

    #[test]
    fn a_damaged_key_file_is_an_error_not_a_new_key() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(KEY_FILE_NAME);
        std::fs::write(&path, "c2hvcnQ=\n").unwrap();
        let error = format!("{:#}", load_or_create_key_file(dir.path()).unwrap_err());
        assert!(error.contains("damaged") && error.contains("32 bytes"), "{error}");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "c2hvcnQ=\n",
            "left as it was"
        );
    }
}

#[cfg(test)]
mod person_digest_tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::*;

    #[test]
    fn a_person_digest_is_the_same_for_the_same_key_organization_and_identity_only() {
        let key = EncryptionKey::generate().unwrap();
        let one = XChaChaSealer::new(&key);
        let again = XChaChaSealer::new(&key);
        let other_key = XChaChaSealer::new(&EncryptionKey::generate().unwrap());
        let org = OrganizationId::from_ulid(Ulid(1));
        let other_org = OrganizationId::from_ulid(Ulid(2));
        let digest = one.person_digest(&org, "+15551234567");
        assert_eq!(digest, again.person_digest(&org, "+15551234567"));
        assert_ne!(digest, one.person_digest(&org, "+15551234568"));
        assert_ne!(digest, one.person_digest(&other_org, "+15551234567"));
        assert_ne!(digest, other_key.person_digest(&org, "+15551234567"));
        // Not the unkeyed hash of the identity, nor the sealing key's own HMAC of it.
        assert_ne!(
            digest,
            keyed_digest(&key.0, &[org.to_string().as_bytes(), b"+15551234567"])
        );
    }
}

//! What of the settings may be written to the log.

/// A URL as it may be logged: the password of its user-info, and the value of every query parameter whose
/// name speaks of a secret (`password`, `sslpassword`, `token`, `secret`, `key`…), replaced by `[redacted]`.
/// Text that is no URL (`sqlite::memory:`) holds no credentials and is returned as it is.
pub fn redact_url(url: &str) -> String {
    const REDACTED: &str = "[redacted]";
    let Ok(mut parsed) = url::Url::parse(url) else {
        return url.to_owned();
    };
    if parsed.password().is_some() {
        let _ = parsed.set_password(Some(REDACTED));
    }
    let secret = |name: &str| {
        let name = name.to_ascii_lowercase();
        [
            "password",
            "passwd",
            "pwd",
            "secret",
            "token",
            "key",
            "auth",
            "credential",
        ]
        .iter()
        .any(|word| name.contains(word))
    };
    if parsed.query_pairs().any(|(name, _)| secret(&name)) {
        let pairs: Vec<(String, String)> = parsed
            .query_pairs()
            .map(|(name, value)| {
                let value = if secret(&name) {
                    REDACTED.to_owned()
                } else {
                    value.into_owned()
                };
                (name.into_owned(), value)
            })
            .collect();
        parsed.query_pairs_mut().clear().extend_pairs(pairs);
    }
    // The URL encoder escapes the brackets; the marker reads better as written.
    parsed.to_string().replace("%5Bredacted%5D", REDACTED)
}

#[cfg(test)]
mod tests {
    use super::redact_url;

    #[test]
    fn database_passwords_are_redacted() {
        assert_eq!(redact_url("postgres://u:pw@h/db"), "postgres://u:[redacted]@h/db");
        assert_eq!(redact_url("postgres://u@h/db"), "postgres://u@h/db");
        assert_eq!(redact_url("sqlite://data/x.db"), "sqlite://data/x.db");
        assert_eq!(redact_url("sqlite::memory:"), "sqlite::memory:");
        assert_eq!(
            redact_url("postgres://h/db?user=u&password=pw&sslmode=require"),
            "postgres://h/db?user=u&password=[redacted]&sslmode=require"
        );
        assert_eq!(
            redact_url("postgresql://u:p%40ss@h:5432/db?sslpassword=x&application_name=herald"),
            "postgresql://u:[redacted]@h:5432/db?sslpassword=[redacted]&application_name=herald"
        );
        assert_eq!(
            redact_url("redis://:pw@127.0.0.1:6379/0"),
            "redis://:[redacted]@127.0.0.1:6379/0"
        );
        assert_eq!(
            redact_url("https://collector.example/v1/traces?api_key=abc"),
            "https://collector.example/v1/traces?api_key=[redacted]"
        );
    }
}

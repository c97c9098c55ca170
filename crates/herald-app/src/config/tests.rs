//! The loading and the bounds of the settings.
#![allow(
    clippy::result_large_err,
    reason = "figment's Jail API returns its own large error"
)]

use super::*;

#[test]
fn defaults_file_then_env() {
    figment::Jail::expect_with(|jail| {
        jail.create_file("herald.toml", "listen = \"0.0.0.0:9000\"\nmax_connections = 4\n")?;
        jail.set_env("HERALD_MAX_CONNECTIONS", "7");
        jail.set_env("HERALD_APP_SECRET", "s3cret");
        let settings = Settings::load(None).map_err(|e| e.to_string())?;
        assert_eq!(settings.server.listen, "0.0.0.0:9000");
        assert_eq!(settings.store.max_connections, 7);
        assert_eq!(settings.store.database_url, "sqlite://data/herald.db");
        assert!(settings.network.app_secret.is_some());
        assert!(!settings.redacted().contains("s3cret"));
        assert!(settings.redacted().contains("[redacted]"));
        Ok(())
    });
}

#[test]
fn the_encryption_key_must_be_32_bytes_of_base64_and_is_never_quoted() {
    figment::Jail::expect_with(|jail| {
        // 31 bytes.
        jail.set_env(
            "HERALD_ENCRYPTION_KEY",
            "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHg==",
        );
        let error = format!("{:#}", Settings::load(None).unwrap_err());
        assert!(
            error.contains("exactly 32 bytes") && error.contains("31"),
            "{error}"
        );
        assert!(!error.contains("AAECAwQF"), "{error}");
        jail.set_env("HERALD_ENCRYPTION_KEY", "not base64 at all!");
        let error = format!("{:#}", Settings::load(None).unwrap_err());
        assert!(error.contains("HERALD_ENCRYPTION_KEY"), "{error}");
        jail.set_env(
            "HERALD_ENCRYPTION_KEY",
            "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
        );
        let settings = Settings::load(None).map_err(|e| e.to_string())?;
        assert!(!settings.redacted().contains("AAECAwQF"));
        Ok(())
    });
}

#[test]
fn webhook_settings_default_and_are_bounded() {
    figment::Jail::expect_with(|jail| {
        let settings = Settings::load(None).map_err(|e| e.to_string())?;
        assert_eq!(settings.webhooks.loops, 2);
        assert_eq!(settings.webhooks.per_endpoint_inflight, 4);
        assert_eq!(settings.webhooks.timeout_seconds, 15);
        assert!((settings.webhooks.retry_scale - 1.0).abs() < f64::EPSILON);
        assert!(!settings.webhooks.allow_private_targets && !settings.webhooks.allow_insecure);
        jail.set_env("HERALD_WEBHOOK_TIMEOUT_SECONDS", "2");
        jail.set_env("HERALD_WEBHOOK_LOOPS", "3");
        let settings = Settings::load(None).map_err(|e| e.to_string())?;
        assert_eq!(
            (settings.webhooks.timeout_seconds, settings.webhooks.loops),
            (2, 3)
        );
        for (name, value) in [
            ("HERALD_WEBHOOK_TIMEOUT_SECONDS", "16"),
            ("HERALD_WEBHOOK_TIMEOUT_SECONDS", "0"),
            ("HERALD_WEBHOOK_LOOPS", "0"),
            ("HERALD_WEBHOOK_PER_ENDPOINT_INFLIGHT", "0"),
            ("HERALD_WEBHOOK_RETRY_SCALE", "0"),
            ("HERALD_WEBHOOK_RETRY_SCALE", "1.5"),
        ] {
            jail.set_env("HERALD_WEBHOOK_TIMEOUT_SECONDS", "2");
            jail.set_env("HERALD_WEBHOOK_LOOPS", "1");
            jail.set_env("HERALD_WEBHOOK_PER_ENDPOINT_INFLIGHT", "1");
            jail.set_env("HERALD_WEBHOOK_RETRY_SCALE", "0.5");
            jail.set_env(name, value);
            let error = format!("{:#}", Settings::load(None).unwrap_err());
            assert!(error.contains(&name["HERALD_".len()..].to_lowercase()), "{error}");
        }
        Ok(())
    });
}

#[test]
fn the_retention_busy_share_defaults_to_a_fifth_and_is_bounded() {
    figment::Jail::expect_with(|jail| {
        assert_eq!(
            Settings::load(None)
                .map_err(|e| e.to_string())?
                .retention
                .busy_percent,
            20
        );
        jail.set_env("HERALD_RETENTION_BUSY_PERCENT", "100");
        assert_eq!(
            Settings::load(None)
                .map_err(|e| e.to_string())?
                .retention
                .busy_percent,
            100
        );
        for value in ["0", "101"] {
            jail.set_env("HERALD_RETENTION_BUSY_PERCENT", value);
            let error = format!("{:#}", Settings::load(None).unwrap_err());
            assert!(error.contains("retention_busy_percent"), "{value}: {error}");
        }
        Ok(())
    });
}

#[test]
fn media_transfers_do_not_depend_on_the_dispatch_lease() {
    for lease in [20, 60, 3_600] {
        let mut settings = Settings::default();
        settings.dispatch.lease_seconds = lease;
        assert_eq!(settings.media.transfer_timeout().as_secs(), 300);
    }
}

#[test]
fn bad_values_are_refused() {
    figment::Jail::expect_with(|jail| {
        jail.set_env("HERALD_DATABASE_URL", "mysql://x");
        assert!(Settings::load(None).is_err());
        jail.set_env("HERALD_DATABASE_URL", "sqlite://x.db");
        jail.set_env("HERALD_NETWORK", "carrier-pigeon");
        assert!(Settings::load(None).is_err());
        jail.set_env("HERALD_NETWORK", "simulator");
        jail.set_env("HERALD_HTTP_KEEP_ALIVE_SECONDS", "0");
        assert!(Settings::load(None).is_err());
        jail.set_env("HERALD_HTTP_KEEP_ALIVE_SECONDS", "75");
        assert_eq!(
            Settings::load(None)
                .map_err(|e| e.to_string())?
                .server
                .http_keep_alive_seconds,
            75
        );
        Ok(())
    });
}

#[test]
fn trusted_proxies_default_to_none_and_invalid_ones_stop_the_start() {
    figment::Jail::expect_with(|jail| {
        let settings = Settings::load(None).map_err(|e| e.to_string())?;
        assert!(
            settings
                .limits
                .trusted_proxies()
                .map_err(|e| e.to_string())?
                .is_empty()
        );
        assert_eq!(settings.limits.api_auth_failures_per_minute, 30);
        jail.set_env("HERALD_TRUSTED_PROXIES", "10.0.0.7, 172.16.0.0/12,fd00::/8");
        let proxies = Settings::load(None)
            .map_err(|e| e.to_string())?
            .limits
            .trusted_proxies()
            .map_err(|e| e.to_string())?;
        assert!(proxies.trusts("172.20.1.1".parse().unwrap()));
        assert!(!proxies.trusts("10.0.0.8".parse().unwrap()));
        jail.set_env("HERALD_TRUSTED_PROXIES", "10.0.0.7, proxy.internal");
        let error = format!("{:#}", Settings::load(None).unwrap_err());
        assert!(
            error.contains("HERALD_TRUSTED_PROXIES") && error.contains("`proxy.internal`"),
            "{error}"
        );
        jail.set_env("HERALD_TRUSTED_PROXIES", "10.0.0.0/40");
        assert!(Settings::load(None).is_err());
        jail.set_env("HERALD_TRUSTED_PROXIES", "");
        jail.set_env("HERALD_API_AUTH_FAILURES_PER_MINUTE", "0");
        let error = format!("{:#}", Settings::load(None).unwrap_err());
        assert!(error.contains("api_auth_failures_per_minute"), "{error}");
        Ok(())
    });
}

/// An `otlp_endpoint` the exporter cannot post to stops the start, naming the setting; an http(s) one
/// with a path and a query starts.
#[test]
fn an_otlp_endpoint_of_another_scheme_stops_the_start() {
    figment::Jail::expect_with(|jail| {
        jail.set_env("HERALD_OTLP_ENDPOINT", "ftp://collector.example:4318");
        let error = format!("{:#}", Settings::load(None).unwrap_err());
        assert!(
            error.contains("otlp_endpoint") && error.contains("ftp://"),
            "{error}"
        );
        jail.set_env("HERALD_OTLP_ENDPOINT", "http://127.0.0.1:4318/collector?tenant=x");
        assert!(Settings::load(None).is_ok());
        Ok(())
    });
}

/// `serve` logs its settings at start: no password or token of any URL setting may show there.
#[test]
fn the_logged_settings_hold_no_credential_of_any_url() {
    let mut settings = Settings::default();
    settings.store.database_url = "postgres://herald:DbSecret1@db/herald?sslpassword=DbSecret2".into();
    settings.limits.redis_url = "redis://:RedisSecret@redis:6379".into();
    settings.network.cloud_api_base_url = "https://u:ApiSecret@graph.example".into();
    settings.simulator.url = Some("http://sim:SimSecret@sim/simulator".into());
    settings.telemetry.otlp_endpoint = Some("https://collector.example?token=OtlpSecret".into());
    let logged = settings.redacted();
    for secret in [
        "DbSecret1",
        "DbSecret2",
        "RedisSecret",
        "ApiSecret",
        "SimSecret",
        "OtlpSecret",
    ] {
        assert!(!logged.contains(secret), "{secret} in {logged}");
    }
    assert!(
        logged.contains("postgres://herald:[redacted]@db/herald"),
        "{logged}"
    );
}

/// A key of `herald.toml` that no setting has is refused with its name, outside a section or inside one, so
/// a misspelt setting never passes unnoticed; a `HERALD_*` variable that is no setting (`HERALD_CONFIG`, a
/// test's own) is left alone.
#[test]
fn unknown_keys_of_the_file_are_refused_and_other_variables_ignored() {
    figment::Jail::expect_with(|jail| {
        jail.clear_env();
        for (file, unknown) in [
            ("webhook_loopz = 3\n", "webhook_loopz"),
            ("[webhooks]\nloopz = 3\n", "loopz"),
            ("[webhookz]\nloops = 3\n", "webhookz"),
            ("Webhook_Loops = 3\n", "Webhook_Loops"),
        ] {
            jail.create_file("herald.toml", file)?;
            let error = format!("{:#}", Settings::load(None).unwrap_err());
            assert!(error.contains(unknown), "{file}: {error}");
        }
        jail.create_file("herald.toml", "")?;
        jail.set_env("HERALD_CONFIG", "elsewhere.toml");
        jail.set_env("HERALD_NO_SUCH_SETTING", "3");
        assert!(Settings::load(None).is_ok());
        Ok(())
    });
}

/// `herald.toml` takes a setting in its section or by its flat name, never both at once.
#[test]
fn the_file_takes_sections_and_flat_names_but_not_both_for_one_setting() {
    figment::Jail::expect_with(|jail| {
        jail.clear_env();
        jail.create_file(
            "herald.toml",
            "network = \"cloud\"\nwebhook_timeout_seconds = 7\n[webhooks]\nloops = 3\n[server]\nlisten = \"0.0.0.0:9000\"\n",
        )?;
        let settings = Settings::load(None).map_err(|e| e.to_string())?;
        assert_eq!(settings.network.mode, NetworkMode::Cloud);
        assert_eq!(
            (settings.webhooks.loops, settings.webhooks.timeout_seconds),
            (3, 7)
        );
        assert_eq!(settings.server.listen, "0.0.0.0:9000");
        jail.create_file("herald.toml", "webhook_loops = 4\n[webhooks]\nloops = 3\n")?;
        let error = format!("{:#}", Settings::load(None).unwrap_err());
        assert!(
            error.contains("webhook_loops") && error.contains("twice"),
            "{error}"
        );
        Ok(())
    });
}

/// A variable of the wrong type is named as the user set it, not by the section it lands in.
#[test]
fn a_variable_of_the_wrong_type_is_named_by_its_variable() {
    figment::Jail::expect_with(|jail| {
        jail.clear_env();
        jail.set_env("HERALD_WEBHOOK_LOOPS", "many");
        let error = format!("{:#}", Settings::load(None).unwrap_err());
        assert!(error.contains("HERALD_WEBHOOK_LOOPS"), "{error}");
        Ok(())
    });
}

/// Every field of every section has a flat name, and no two settings share one.
#[test]
fn every_field_has_one_flat_name() {
    let sections = serde_json::to_value(Settings::default()).unwrap();
    let mut fields = 0;
    for (section, values) in sections.as_object().unwrap() {
        for field in values.as_object().unwrap().keys() {
            fields += 1;
            let flat =
                flat_name(section, field).unwrap_or_else(|| panic!("{section}.{field} has no flat name"));
            assert_eq!(section_field(flat), Some((section.as_str(), field.as_str())));
        }
    }
    let mut names: Vec<_> = flat_names().collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), fields);
}

/// A variable is taken as its text: a Meta app id is all digits, a token or a secret may be, and a leading
/// zero, brackets or quotes are part of it, never read as a number, a list or a quoted string.
#[test]
fn text_settings_from_the_environment_keep_their_text() {
    use secrecy::ExposeSecret as _;
    figment::Jail::expect_with(|jail| {
        jail.clear_env();
        jail.set_env("HERALD_CLOUD_API_APP_ID", "1234567890");
        jail.set_env("HERALD_VERIFY_TOKEN", "0123");
        jail.set_env("HERALD_APP_SECRET", "007");
        jail.set_env("HERALD_CLOUD_ACCESS_TOKEN", "[1, 2]");
        jail.set_env("HERALD_SIMULATOR_TOKEN", "\"true\"");
        jail.set_env("HERALD_GRAPH_API_VERSION", "21.10");
        let network = Settings::load(None).map_err(|e| format!("{e:#}"))?.network;
        let secret = |value: &Option<SecretString>| value.as_ref().map(|s| s.expose_secret().to_owned());
        assert_eq!(network.cloud_api_app_id.as_deref(), Some("1234567890"));
        assert_eq!(secret(&network.verify_token).as_deref(), Some("0123"));
        assert_eq!(secret(&network.app_secret).as_deref(), Some("007"));
        assert_eq!(secret(&network.cloud_access_token).as_deref(), Some("[1, 2]"));
        assert_eq!(network.graph_api_version, "21.10");
        let simulator = Settings::load(None).map_err(|e| format!("{e:#}"))?.simulator;
        assert_eq!(secret(&simulator.token).as_deref(), Some("\"true\""));
        Ok(())
    });
}

/// Numbers, yes/no settings and choices are still read from a variable's text, as before it was kept as
/// text: around spaces, a leading zero and a decimal fraction, all exactly.
#[test]
fn numbers_and_switches_from_the_environment_still_parse() {
    figment::Jail::expect_with(|jail| {
        jail.clear_env();
        jail.set_env("HERALD_MAX_CONNECTIONS", " 07 ");
        jail.set_env("HERALD_WEBHOOK_RETRY_SCALE", "0.1");
        jail.set_env("HERALD_DASHBOARD_SESSION_IDLE_MINUTES", "45");
        jail.set_env("HERALD_MIGRATE_ON_START", "false");
        jail.set_env("HERALD_SIMULATOR_PUBLIC", "true");
        jail.set_env("HERALD_NETWORK", "cloud");
        let settings = Settings::load(None).map_err(|e| format!("{e:#}"))?;
        assert_eq!(settings.store.max_connections, 7);
        assert_eq!(settings.webhooks.retry_scale.to_bits(), 0.1_f64.to_bits());
        assert_eq!(settings.dashboard.session_idle_minutes, 45);
        assert!(!settings.store.migrate_on_start);
        assert!(settings.simulator.public);
        assert_eq!(settings.network.mode, NetworkMode::Cloud);
        Ok(())
    });
}

/// A value that is not of its setting's kind still stops the start, naming the variable.
#[test]
fn a_number_or_switch_that_is_not_one_is_refused_naming_its_variable() {
    figment::Jail::expect_with(|jail| {
        for (name, value) in [
            ("HERALD_MAX_CONNECTIONS", "seven"),
            ("HERALD_MAX_CONNECTIONS", "-1"),
            ("HERALD_MAX_CONNECTIONS", "7.5"),
            ("HERALD_RETENTION_BUSY_PERCENT", "300"),
            ("HERALD_WEBHOOK_RETRY_SCALE", "half"),
            ("HERALD_MIGRATE_ON_START", "maybe"),
            ("HERALD_NETWORK", "0123"),
        ] {
            jail.clear_env();
            jail.set_env(name, value);
            let error = format!("{:#}", Settings::load(None).unwrap_err());
            assert!(error.contains(name), "{name}={value}: {error}");
        }
        Ok(())
    });
}

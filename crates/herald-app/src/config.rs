//! Configuration: defaults compiled in, then `herald.toml`, then `HERALD_*` environment variables.
//!
//! [`Settings`] is made of sections by concern, one type per file under `config/`, each with its defaults
//! and its bounds. This file only loads and assembles them. Every setting also has a flat name, the one it
//! had before there were sections and the one `docs/operations.md` lists: `HERALD_<NAME>` in the
//! environment, and a key outside any section in `herald.toml`. Each section lists its flat names beside
//! its fields (`FLAT_NAMES`); [`section_field`] looks one up.

mod dashboard;
mod dispatch;
mod limits;
mod media;
mod network;
mod retention;
mod server;
mod simulator;
mod store;
mod telemetry;
mod webhooks;

pub use dashboard::DashboardSection;
pub(crate) use dashboard::dashboard_cookie_key;
pub use dispatch::DispatchSection;
pub use limits::{LimitsSection, RateLimiterKind};
pub use media::MediaSection;
pub use network::{NetworkMode, NetworkSection};
pub use retention::RetentionSection;
pub use server::ServerSection;
pub use simulator::SimulatorSection;
pub use store::StoreSection;
pub use telemetry::{LogFormat, TelemetrySection, traces_url};
pub use webhooks::WebhooksSection;

use figment::providers::{Env, Format, Serialized, Toml};
use figment::value::{Dict, Map, Value};
use figment::{Figment, Metadata, Profile, Provider};
use secrecy::SecretString;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Every setting, with its default, in sections by concern. In `herald.toml` a section is a table
/// (`[webhooks]` with `loops = 3`); the flat name (`webhook_loops = 3`, `HERALD_WEBHOOK_LOOPS=3`) is taken too.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// The HTTP server of an API process.
    pub server: ServerSection,
    /// The database and the key that seals secrets in it.
    pub store: StoreSection,
    /// The messaging network and Meta's Cloud API.
    pub network: NetworkSection,
    /// The Cloud API's stand-in served by Herald itself.
    pub simulator: SimulatorSection,
    /// Handing accepted messages to the network.
    pub dispatch: DispatchSection,
    /// Delivering events to the customers' endpoints.
    pub webhooks: WebhooksSection,
    /// Logs, metrics and traces.
    pub telemetry: TelemetrySection,
    /// Request limits and the client addresses they count by.
    pub limits: LimitsSection,
    /// Uploaded files.
    pub media: MediaSection,
    /// Removing data past its plan's retention.
    pub retention: RetentionSection,
    /// The owner's dashboard.
    pub dashboard: DashboardSection,
}

/// Each section's name with its settings' flat names (see [`section_field`]).
const SECTIONS: &[(&str, &[(&str, &str)])] = &[
    ("server", server::FLAT_NAMES),
    ("store", store::FLAT_NAMES),
    ("network", network::FLAT_NAMES),
    ("simulator", simulator::FLAT_NAMES),
    ("dispatch", dispatch::FLAT_NAMES),
    ("webhooks", webhooks::FLAT_NAMES),
    ("telemetry", telemetry::FLAT_NAMES),
    ("limits", limits::FLAT_NAMES),
    ("media", media::FLAT_NAMES),
    ("retention", retention::FLAT_NAMES),
    ("dashboard", dashboard::FLAT_NAMES),
];

/// The section and field of a setting's flat name (`webhook_loops` → `("webhooks", "loops")`); `None` for a
/// name no setting has. Names are lower-case, as in `herald.toml`; a variable's is lowered first.
pub fn section_field(flat_name: &str) -> Option<(&'static str, &'static str)> {
    SECTIONS.iter().find_map(|(section, names)| {
        names
            .iter()
            .find(|(flat, _)| *flat == flat_name)
            .map(|(_, field)| (*section, *field))
    })
}

/// The flat name of a section's field, the reverse of [`section_field`].
fn flat_name(section: &str, field: &str) -> Option<&'static str> {
    SECTIONS
        .iter()
        .filter(|(name, _)| *name == section)
        .flat_map(|(_, names)| names.iter())
        .find(|(_, name)| *name == field)
        .map(|(flat, _)| *flat)
}

/// Every flat name, section by section.
pub fn flat_names() -> impl Iterator<Item = &'static str> {
    SECTIONS
        .iter()
        .flat_map(|(_, names)| names.iter().map(|(flat, _)| *flat))
}

fn redact_credentials<S: serde::Serializer>(value: &str, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&crate::redact::redact_url(value))
}

fn redact_credentials_option<S: serde::Serializer>(
    value: &Option<String>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match value {
        Some(url) => redact_credentials(url, serializer),
        None => serializer.serialize_none(),
    }
}

fn redact<S: serde::Serializer>(value: &Option<SecretString>, serializer: S) -> Result<S::Ok, S::Error> {
    match value {
        Some(_) => serializer.serialize_some("[redacted]"),
        None => serializer.serialize_none(),
    }
}

/// A fraction read at full precision: the lenient extraction would read a variable's `0.1` as an `f32`
/// (0.100000001…), so the text is parsed here as an `f64`; a number of the file is taken as it is.
fn fraction<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    struct Fraction;
    impl serde::de::Visitor<'_> for Fraction {
        type Value = f64;
        fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            formatter.write_str("a number")
        }
        fn visit_f64<E: serde::de::Error>(self, value: f64) -> Result<f64, E> {
            Ok(value)
        }
        fn visit_i64<E: serde::de::Error>(self, value: i64) -> Result<f64, E> {
            Ok(value as f64)
        }
        fn visit_u64<E: serde::de::Error>(self, value: u64) -> Result<f64, E> {
            Ok(value as f64)
        }
        fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<f64, E> {
            text.trim()
                .parse()
                .map_err(|_| E::invalid_value(serde::de::Unexpected::Str(text), &self))
        }
    }
    deserializer.deserialize_any(Fraction)
}

impl Settings {
    /// Loads defaults, then the TOML file (when it exists), then `HERALD_*` variables.
    ///
    /// # Errors
    /// When a value has the wrong type, a key of the file is unknown or a setting is given in the file both
    /// by its flat name and in its section, or a setting is out of range.
    pub fn load(config_file: Option<&Path>) -> anyhow::Result<Self> {
        let mut figment = Figment::from(Serialized::defaults(Settings::default()));
        let file = config_file.unwrap_or(Path::new("herald.toml"));
        if file.exists() {
            figment = figment.merge(SectionedToml(Toml::file(file)));
        } else if config_file.is_some() {
            anyhow::bail!("configuration file {} does not exist", file.display());
        }
        let settings: Settings = figment.merge(FlatEnvironment).extract_lossy()?;
        settings.validate()?;
        Ok(settings)
    }

    /// # Errors
    /// When a setting is out of range or inconsistent.
    pub fn validate(&self) -> anyhow::Result<()> {
        self.server.validate()?;
        self.store.validate()?;
        self.simulator.validate()?;
        self.dispatch.validate()?;
        self.webhooks.validate()?;
        self.telemetry.validate()?;
        self.limits.validate()?;
        self.retention.validate()?;
        self.dashboard.validate()?;
        Ok(())
    }

    /// The configuration as JSON with every secret replaced by `[redacted]`, for the start-up log.
    pub fn redacted(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{}".into())
    }
}

/// `herald.toml`, with every flat key (outside any table) moved into its section, so files written before
/// there were sections keep working. A key that is neither a section nor a flat name stays where it is, and
/// [`Settings`] refuses it as unknown.
struct SectionedToml(figment::providers::Data<Toml>);

impl Provider for SectionedToml {
    fn metadata(&self) -> Metadata {
        self.0.metadata()
    }

    fn data(&self) -> Result<Map<Profile, Dict>, figment::Error> {
        let mut profiles = Map::new();
        for (profile, dict) in self.0.data()? {
            profiles.insert(profile, into_sections(dict).map_err(figment::Error::from)?);
        }
        Ok(profiles)
    }
}

/// The file's keys with each flat one moved into its section's table.
///
/// # Errors
/// When a setting is given both by its flat name and in its section.
fn into_sections(file: Dict) -> Result<Dict, String> {
    let mut sectioned = Dict::new();
    let mut flat = Vec::new();
    for (key, value) in file {
        // A table is a section; a flat name never holds one.
        match (&value, section_field(&key)) {
            (Value::Dict(..), _) | (_, None) => {
                sectioned.insert(key, value);
            }
            (_, Some((section, field))) => flat.push((key, section, field, value)),
        }
    }
    for (key, section, field, value) in flat {
        let table = sectioned
            .entry(section.to_owned())
            .or_insert_with(|| Value::from(Dict::new()));
        let Value::Dict(_, fields) = table else {
            return Err(format!("`{section}` must be a table of settings"));
        };
        if fields.contains_key(field) {
            return Err(format!(
                "`{key}` is set twice: as `{key}` and as `{field}` in `[{section}]`"
            ));
        }
        fields.insert(field.to_owned(), value);
    }
    Ok(sectioned)
}

/// The `HERALD_<FLAT_NAME>` variables, each put in its section; other `HERALD_*` variables (such as
/// `HERALD_CONFIG`, the command line's) are not settings and are left alone.
struct FlatEnvironment;

impl FlatEnvironment {
    fn variables() -> Env {
        Env::prefixed("HERALD_").filter_map(|name| {
            section_field(&name.as_str().to_ascii_lowercase())
                .map(|(section, field)| format!("{section}.{field}").into())
        })
    }
}

impl Provider for FlatEnvironment {
    fn metadata(&self) -> Metadata {
        // An error names the variable the user set, not the section path it was put in.
        Metadata::named("`HERALD_` environment variable(s)").interpolater(|_, path| match path {
            [section, field] => flat_name(section, field).map_or_else(
                || path.join("."),
                |flat| format!("HERALD_{}", flat.to_ascii_uppercase()),
            ),
            _ => path.join("."),
        })
    }

    /// Every variable's text as it is, never parsed: figment's `Env` would read `0123` as the number 123 and
    /// a digits-only app id or token as a number that no text setting takes. A number, a yes/no or a choice
    /// is read from the text when it is extracted ([`Settings::load`] extracts leniently).
    fn data(&self) -> Result<Map<Profile, Dict>, figment::Error> {
        let mut sections = Dict::new();
        for (path, text) in Self::variables().iter() {
            let Some((section, field)) = path.as_str().split_once('.') else {
                continue;
            };
            let table = sections
                .entry(section.to_owned())
                .or_insert_with(|| Value::from(Dict::new()));
            if let Value::Dict(_, fields) = table {
                fields.insert(field.to_owned(), Value::from(text));
            }
        }
        Ok(Profile::Default.collect(sections))
    }
}

#[cfg(test)]
mod documented_names;
#[cfg(test)]
mod tests;

//! `herald admin …`: the operator's commands, printing text or `--json`.

use crate::cli::{
    AdminArgs, AdminCommand, CallbacksCommand, KeyCommand, OrgCommand, OwnerCommand, RateCommand,
    RetentionCommand, SenderCommand,
};
use crate::services::Services;
use anyhow::Context;
use herald_domain::api_key::ApiKeyRecord;
use herald_domain::ids::{ApiKeyId, OrganizationId};
use herald_domain::organization::{AccountStatus, NetworkRef, Organization, PlanName, SenderNumber};
use herald_domain::owner::OwnerEmail;
use herald_domain::pricing::{Cost, Rate};
use herald_domain::usecases::{NewSender, RateError, Reseal};
use herald_domain::values::{DisplayName, PhoneNumber};
use serde_json::{Value, json};

/// Runs one admin command and returns what to print on stdout.
///
/// # Errors
/// Invalid arguments or a refused operation, with a message for stderr.
pub async fn run(services: &Services, args: AdminArgs) -> anyhow::Result<String> {
    run_with(services, &crate::config::Settings::default(), args).await
}

/// [`run`] with the configured settings (the dashboard's session lifetimes).
///
/// # Errors
/// Invalid arguments or a refused operation, with a message for stderr.
pub async fn run_with(
    services: &Services,
    settings: &crate::config::Settings,
    args: AdminArgs,
) -> anyhow::Result<String> {
    let admin = services.admin();
    let json = args.json;
    let (value, text) = match args.command {
        AdminCommand::Org(command) => match command {
            OrgCommand::Create {
                name,
                plan,
                owner_email,
            } => {
                let name = DisplayName::parse(&name).context("--name")?;
                let plan = PlanName::parse(&plan).context("--plan")?;
                // Stored normalized: it is the owner's dashboard login.
                let owner_email = owner_email
                    .as_deref()
                    .map(OwnerEmail::parse)
                    .transpose()
                    .context("--owner-email")?
                    .map(|e| e.as_str().to_owned());
                let org = admin.create_organization(name, plan, owner_email).await?;
                (organization_json(&org), org.id.to_string())
            }
            OrgCommand::Suspend { org_id } => set_status(services, &org_id, AccountStatus::Suspended).await?,
            OrgCommand::Activate { org_id } => set_status(services, &org_id, AccountStatus::Active).await?,
            OrgCommand::Close { org_id } => set_status(services, &org_id, AccountStatus::Closed).await?,
            OrgCommand::SetPlan { org_id, plan } => {
                let id = parse_org(&org_id)?;
                admin
                    .set_plan(&id, PlanName::parse(&plan).context("plan")?)
                    .await?;
                (
                    json!({ "id": id.to_string(), "plan": plan }),
                    format!("{id} is now on plan {plan}"),
                )
            }
            OrgCommand::List => {
                let orgs = services.store.accounts().organizations().await?;
                let text = orgs
                    .iter()
                    .map(|o| format!("{}  {:<10} {:<10} {}", o.id, o.status.as_str(), o.plan, o.name))
                    .collect::<Vec<_>>()
                    .join("\n");
                (Value::Array(orgs.iter().map(organization_json).collect()), text)
            }
        },
        AdminCommand::Sender(command) => match command {
            SenderCommand::Add {
                org,
                number,
                phone_number_id,
                waba_id,
                access_token_env,
                access_token_stdin,
                default,
                throughput,
                shared_waba,
            } => {
                let access_token = if access_token_stdin {
                    // Checked before reading, so the operator is not asked for a token that cannot be kept.
                    anyhow::ensure!(services.sealer.is_some(), crate::keys::NO_KEY_WITH_POSTGRES);
                    Some(read_token(std::io::stdin().lock())?)
                } else {
                    None
                };
                let sender = admin
                    .add_sender(NewSender {
                        organization_id: parse_org(&org)?,
                        number: PhoneNumber::parse(&number).context("--number")?,
                        phone_number_id: NetworkRef::parse(&phone_number_id).context("--phone-number-id")?,
                        waba_id: NetworkRef::parse(&waba_id).context("--waba-id")?,
                        access_token_env,
                        access_token,
                        is_default: default,
                        throughput_per_second: throughput.clamp(1, 1_000),
                        shared_waba,
                    })
                    .await?;
                let text = sender.id.to_string();
                (sender_json(&sender), text)
            }
            SenderCommand::List { org } => {
                let senders = services.store.accounts().senders(&parse_org(&org)?).await?;
                let text = senders
                    .iter()
                    .map(|s| {
                        format!(
                            "{}  {}  pnid={} waba={}{}",
                            s.id,
                            s.number,
                            s.phone_number_id,
                            s.waba_id,
                            if s.is_default { "  (default)" } else { "" }
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n");
                (Value::Array(senders.iter().map(sender_json).collect()), text)
            }
        },
        AdminCommand::Rate(command) => rate(services, command).await?,
        AdminCommand::Key(command) => match command {
            KeyCommand::Create { org, name } => {
                let name = name
                    .as_deref()
                    .map(DisplayName::parse)
                    .transpose()
                    .context("--name")?;
                let (record, key) = admin.create_key(&parse_org(&org)?, name).await?;
                let mut value = key_json(&record);
                if let Value::Object(map) = &mut value {
                    map.insert("key".into(), Value::String(key.expose().to_owned()));
                }
                let text = format!(
                    "{}\n{}\n(the key is shown only this once; Herald keeps only its SHA-256 digest)",
                    record.id,
                    key.expose()
                );
                (value, text)
            }
            KeyCommand::List { org } => {
                let keys = admin.list_keys(&parse_org(&org)?).await?;
                let text = keys
                    .iter()
                    .map(|k| {
                        format!(
                            "{}  {}…  {:<8}  created {}  last used {}",
                            k.id,
                            k.prefix,
                            k.status.as_str(),
                            k.created_at.to_rfc3339(),
                            k.last_used_at
                                .map_or_else(|| "never".to_owned(), |t| t.to_rfc3339())
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n");
                (Value::Array(keys.iter().map(key_json).collect()), text)
            }
            KeyCommand::Disable { key_id } => {
                let id = ApiKeyId::parse(&key_id).context("KEY_ID")?;
                let record = admin.disable_key(&id).await?;
                (key_json(&record), format!("{id} disabled"))
            }
        },
        AdminCommand::Owner(OwnerCommand::SetPassword { org, email }) => {
            let id = parse_org(&org)?;
            let email = OwnerEmail::parse(&email).context("--email")?;
            let password = read_password(std::io::stdin().lock())?;
            let owner = services
                .owner_access(settings)
                .set_password(&id, &email, &password)
                .await?;
            (
                json!({
                    "organization_id": owner.organization_id.to_string(),
                    "email": owner.email.as_str(),
                    "password_set_at": owner.password_set_at.to_rfc3339(),
                }),
                format!(
                    "the dashboard password of {} for {} is set; its open sessions are ended",
                    owner.email, owner.organization_id
                ),
            )
        }
        AdminCommand::Callbacks(CallbacksCommand::List { limit }) => {
            let parked = services.process_callbacks().parked(limit).await?;
            let text = parked
                .iter()
                .map(|c| {
                    format!(
                        "{}  received {}  parked {}  {} attempts  {}",
                        c.id,
                        c.received_at.to_rfc3339(),
                        c.parked_at.to_rfc3339(),
                        c.attempts,
                        c.last_error.as_deref().unwrap_or("")
                    )
                })
                .collect::<Vec<_>>()
                .join("\n");
            let value = parked
                .iter()
                .map(|c| {
                    json!({
                        "id": c.id.to_string(),
                        "received_at": c.received_at.to_rfc3339(),
                        "parked_at": c.parked_at.to_rfc3339(),
                        "attempts": c.attempts,
                        "last_error": c.last_error,
                    })
                })
                .collect();
            (Value::Array(value), text)
        }
        AdminCommand::Reseal => complete(json, reseal(services).await?)?,
        AdminCommand::Retention(RetentionCommand::Sweep { seconds }) => {
            complete(json, retention_sweep(services, settings, seconds).await)?
        }
        AdminCommand::Callbacks(CallbacksCommand::Requeue) => {
            let requeued = services.process_callbacks().requeue_parked().await?;
            (
                json!({ "requeued": requeued }),
                format!("{requeued} parked callbacks requeued"),
            )
        }
    };
    render(json, &value, text)
}

/// `admin retention sweep`: one sweep now, bounded by `seconds`; what it removed, and its error if a batch
/// failed (what earlier batches removed stays removed, and is reported).
async fn retention_sweep(
    services: &Services,
    settings: &crate::config::Settings,
    seconds: Option<u64>,
) -> (Value, String, Option<String>) {
    use crate::retention::{RetentionSettings, SweepEnd, sweep_retention};
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let timer = seconds.map(|seconds| {
        tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_secs(seconds)).await;
            let _ = stop.send(true);
        })
    });
    let started = std::time::Instant::now();
    let sweep_settings = RetentionSettings::new(&settings.retention);
    let swept = sweep_retention(
        &*services.store.retention(),
        &*services.clock,
        sweep_settings,
        &stopped,
    )
    .await;
    if let Some(timer) = timer {
        timer.abort();
    }
    let elapsed = started.elapsed().as_secs_f64();
    let removed = swept.removed;
    let mut tables = serde_json::Map::new();
    for (table, rows) in removed.by_table() {
        tables.insert(table.to_owned(), json!(rows));
    }
    let (ended, why, failure) = match swept.ended {
        SweepEnd::NothingDue => ("nothing_due", "nothing more is due", None),
        SweepEnd::Stopped => ("stopped", "stopped at --seconds, more may be due", None),
        SweepEnd::Failed(error) => (
            "failed",
            "a batch failed",
            Some(format!("a retention batch failed: {error}")),
        ),
    };
    let value = json!({
        "removed": tables,
        "rows": removed.total(),
        "seconds": (elapsed * 1000.0).round() / 1000.0,
        "ended": ended,
    });
    let text = format!(
        "removed {} messages, {} inbound messages and {} callbacks ({} rows) in {elapsed:.1} s; {why}",
        removed.messages,
        removed.inbound,
        removed.callbacks,
        removed.total(),
    );
    (value, text, failure)
}

/// `admin rate …`: the organization's rate card.
async fn rate(services: &Services, command: RateCommand) -> anyhow::Result<(Value, String)> {
    let cards = services.rate_cards();
    Ok(match command {
        RateCommand::Set {
            org,
            category,
            amount,
            currency,
        } => {
            let org = parse_org(&org)?;
            let rate = cards
                .set(&org, &category, &amount, &currency)
                .await
                .map_err(rate_error)?;
            let text = format!(
                "{org}: {} costs {} {}",
                rate.category,
                cost(&rate).amount(),
                rate.currency.as_str()
            );
            (rate_json(&rate), text)
        }
        RateCommand::Remove { org, category } => {
            let org = parse_org(&org)?;
            let removed = cards.remove(&org, &category).await.map_err(rate_error)?;
            anyhow::ensure!(removed, "{org} has no rate for {category}");
            (
                json!({ "organization_id": org.to_string(), "category": category, "removed": true }),
                format!("{org}: the rate of {category} is removed"),
            )
        }
        RateCommand::Import { file, effective } => {
            let text = read_rate_file(&file)?;
            let card = cards
                .import(&text, &effective)
                .await
                .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
            let markets = card
                .rates
                .iter()
                .map(|r| r.market)
                .collect::<std::collections::BTreeSet<_>>()
                .len();
            (
                json!({
                    "effective_from": card.effective_from.to_string(),
                    "currency": card.currency.as_str(),
                    "markets": markets,
                    "rates": card.rates.len(),
                }),
                format!(
                    "{} rates of {markets} markets in {} from {}",
                    card.rates.len(),
                    card.currency.as_str(),
                    card.effective_from
                ),
            )
        }
        RateCommand::Markets { on } => match cards.market_card(&on).await? {
            None => (Value::Null, format!("no market rate card in force on {on}")),
            Some(card) => {
                let amount = |micros: u64| {
                    Cost {
                        micros,
                        currency: card.currency.clone(),
                    }
                    .amount()
                };
                let text = card
                    .rates
                    .iter()
                    .map(|r| {
                        format!(
                            "{:<34} {:<30} {} {}",
                            r.market.meta_name(),
                            r.category,
                            amount(r.micros),
                            card.currency.as_str()
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n");
                let rates: Vec<Value> = card
                    .rates
                    .iter()
                    .map(|r| {
                        json!({
                            "market": r.market.as_str(),
                            "category": r.category.as_str(),
                            "amount": amount(r.micros),
                        })
                    })
                    .collect();
                let json = json!({
                    "effective_from": card.effective_from.to_string(),
                    "currency": card.currency.as_str(),
                    "rates": rates,
                });
                (json, text)
            }
        },
        RateCommand::List { org } => {
            let card = cards.card(&parse_org(&org)?).await?;
            let text = card
                .rates
                .iter()
                .map(|r| format!("{:<30} {} {}", r.category, cost(r).amount(), r.currency.as_str()))
                .collect::<Vec<_>>()
                .join("\n");
            (Value::Array(card.rates.iter().map(rate_json).collect()), text)
        }
    })
}

/// The rate file's text, refused before it is read whole when it is larger than a rate file can be.
fn read_rate_file(path: &std::path::Path) -> anyhow::Result<String> {
    use anyhow::Context as _;
    use std::io::Read as _;
    let limit = herald_domain::pricing::rate_file::MAX_BYTES;
    let mut text = String::new();
    std::fs::File::open(path)
        .with_context(|| format!("{}: cannot open", path.display()))?
        .take(u64::try_from(limit).unwrap_or(u64::MAX) + 1)
        .read_to_string(&mut text)
        .with_context(|| format!("{}: not UTF-8 text", path.display()))?;
    anyhow::ensure!(
        text.len() <= limit,
        "{}: larger than {limit} bytes, not a rate file",
        path.display()
    );
    Ok(text)
}

fn cost(rate: &Rate) -> Cost {
    Cost {
        micros: rate.micros,
        currency: rate.currency.clone(),
    }
}

fn rate_json(rate: &Rate) -> Value {
    json!({
        "category": rate.category.as_str(),
        "amount": cost(rate).amount(),
        "currency": rate.currency.as_str(),
    })
}

/// A refused rate as the operator reads it: each invalid argument by its flag.
fn rate_error(error: RateError) -> anyhow::Error {
    match error {
        RateError::Invalid(errors) => anyhow::anyhow!(
            "{}",
            errors
                .errors()
                .iter()
                .map(|e| format!("--{}: {}", e.field, e.message))
                .collect::<Vec<_>>()
                .join("; ")
        ),
        other => anyhow::Error::new(other),
    }
}

fn render(json: bool, value: &Value, text: String) -> anyhow::Result<String> {
    Ok(if json {
        serde_json::to_string_pretty(value)?
    } else {
        text
    })
}

/// An admin command that did its work but not all of it: `output` is still printed on stdout, then the
/// command exits non-zero with `reason`.
#[derive(Debug)]
pub struct Incomplete {
    pub output: String,
    pub reason: String,
}

impl std::fmt::Display for Incomplete {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason)
    }
}

impl std::error::Error for Incomplete {}

/// What a command that may stop part way printed: its output, or [`Incomplete`] with its failure.
fn complete(
    json: bool,
    (value, text, failure): (Value, String, Option<String>),
) -> anyhow::Result<(Value, String)> {
    match failure {
        None => Ok((value, text)),
        Some(reason) => Err(Incomplete {
            output: render(json, &value, text)?,
            reason,
        }
        .into()),
    }
}

/// The report, and why the command must fail when some values could not be opened.
async fn reseal(services: &Services) -> anyhow::Result<(Value, String, Option<String>)> {
    let sealer = services
        .sealer
        .clone()
        .context("no encryption key is configured, so there is nothing this process can open or seal")?;
    let report = Reseal::new(services.store.accounts(), services.store.webhooks(), sealer)
        .run()
        .await?;
    let failed = report.cannot_open.len();
    let mut text = format!(
        "resealed {} sender tokens, {} webhook secrets; {} already current; {failed} cannot be opened",
        report.sender_tokens, report.webhook_secrets, report.already_current
    );
    if report.changed_meanwhile > 0 {
        text.push_str(&format!(
            "; {} changed meanwhile (left as the change made them; run again to check)",
            report.changed_meanwhile
        ));
    }
    for line in &report.cannot_open {
        text.push_str(&format!("\ncannot open {line}"));
    }
    let value = json!({
        "resealed_sender_tokens": report.sender_tokens,
        "resealed_webhook_secrets": report.webhook_secrets,
        "already_current": report.already_current,
        "changed_meanwhile": report.changed_meanwhile,
        "cannot_be_opened": report.cannot_open,
    });
    let failure = (failed > 0).then(|| {
        format!(
            "{failed} stored secrets cannot be opened with this encryption key for their row and were left as \
             they are (listed above): add the sender's token again or rotate the endpoint's secret"
        )
    });
    Ok((value, text, failure))
}

async fn set_status(
    services: &Services,
    org_id: &str,
    status: AccountStatus,
) -> anyhow::Result<(Value, String)> {
    let id = parse_org(org_id)?;
    services.admin().set_account_status(&id, status).await?;
    Ok((
        json!({ "id": id.to_string(), "status": status.as_str() }),
        format!("{id} is now {}", status.as_str()),
    ))
}

/// The most a token read from standard input may be: Graph tokens are a few hundred characters.
const MAX_TOKEN_BYTES: u64 = 16 * 1024;

/// Reads an access token (surrounding whitespace and the final newline trimmed).
///
/// # Errors
/// When the input cannot be read, is empty, too long, or has whitespace inside the token.
fn read_token(input: impl std::io::Read) -> anyhow::Result<String> {
    use std::io::Read as _;
    let mut text = String::new();
    input
        .take(MAX_TOKEN_BYTES + 1)
        .read_to_string(&mut text)
        .context("reading the access token from standard input")?;
    anyhow::ensure!(
        u64::try_from(text.len()).unwrap_or(u64::MAX) <= MAX_TOKEN_BYTES,
        "the access token on standard input is longer than {MAX_TOKEN_BYTES} bytes"
    );
    let token = text.trim();
    anyhow::ensure!(
        !token.is_empty(),
        "--access-token-stdin: standard input held no access token (pipe it in, e.g. `herald admin sender add … --access-token-stdin < token.txt`)"
    );
    // A token never contains whitespace; some inside means two lines or a paste gone wrong.
    anyhow::ensure!(
        !token.chars().any(char::is_whitespace),
        "--access-token-stdin: the access token must be one word on one line"
    );
    Ok(token.to_owned())
}

/// Reads the owner's password: the first line of standard input, without its line ending (spaces inside
/// and around are kept: they are part of a passphrase).
///
/// # Errors
/// When the input cannot be read or holds no password.
fn read_password(input: impl std::io::Read) -> anyhow::Result<String> {
    use std::io::Read as _;
    let mut text = String::new();
    input
        .take(4 * 1024)
        .read_to_string(&mut text)
        .context("reading the password from standard input")?;
    let line = text.lines().next().unwrap_or_default();
    anyhow::ensure!(
        !line.is_empty(),
        "standard input held no password (e.g. `herald admin owner set-password --org … --email … < password.txt`)"
    );
    Ok(line.to_owned())
}

fn parse_org(value: &str) -> anyhow::Result<OrganizationId> {
    OrganizationId::parse(value).with_context(|| format!("`{value}` is not an organization id"))
}

fn organization_json(org: &Organization) -> Value {
    json!({
        "id": org.id.to_string(),
        "name": org.name.as_str(),
        "status": org.status.as_str(),
        "plan": org.plan.as_str(),
        "owner_email": org.owner_email,
        "created_at": org.created_at.to_rfc3339(),
    })
}

fn sender_json(sender: &SenderNumber) -> Value {
    json!({
        "id": sender.id.to_string(),
        "organization_id": sender.organization_id.to_string(),
        "number": sender.number.as_str(),
        "phone_number_id": sender.phone_number_id.as_str(),
        "waba_id": sender.waba_id.as_str(),
        "access_token_env": sender.access_token_env,
        // Whether a token is stored, never the token nor its ciphertext.
        "access_token_stored": sender.sealed_access_token.is_some(),
        "default": sender.is_default,
        "throughput_per_second": sender.throughput_per_second,
        "created_at": sender.created_at.to_rfc3339(),
    })
}

fn key_json(key: &ApiKeyRecord) -> Value {
    json!({
        "id": key.id.to_string(),
        "organization_id": key.organization_id.to_string(),
        "name": key.name.as_ref().map(DisplayName::as_str),
        "prefix": key.prefix,
        "status": key.status.as_str(),
        "created_at": key.created_at.to_rfc3339(),
        "last_used_at": key.last_used_at.map(|t| t.to_rfc3339()),
        "disabled_at": key.disabled_at.map(|t| t.to_rfc3339()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_is_the_first_line_of_stdin() {
        assert_eq!(
            read_password(&b"correct horse battery\n"[..]).unwrap(),
            "correct horse battery"
        );
        assert_eq!(read_password(&b" spaced pass \r\n"[..]).unwrap(), " spaced pass ");
        assert!(read_password(&b"\n"[..]).is_err());
        assert!(read_password(&b""[..]).is_err());
    }

    #[test]
    fn a_token_is_read_trimmed_and_bad_input_is_refused() {
        assert_eq!(read_token(&b"  EAAG-token-1\n"[..]).unwrap(), "EAAG-token-1");
        assert_eq!(read_token(&b"EAAG-token-2"[..]).unwrap(), "EAAG-token-2");
        assert!(read_token(&b" \n\n"[..]).is_err());
        assert!(read_token(&b"two\nlines"[..]).is_err());
        let long = vec![b'a'; 16 * 1024 + 1];
        assert!(read_token(long.as_slice()).is_err());
        let limit = vec![b'a'; 16 * 1024];
        assert_eq!(read_token(limit.as_slice()).unwrap().len(), 16 * 1024);
    }
}

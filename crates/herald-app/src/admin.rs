//! `herald admin …`: the operator's commands, printing text or `--json`.

use crate::cli::{AdminArgs, AdminCommand, KeyCommand, OrgCommand, SenderCommand};
use crate::server::Services;
use anyhow::Context;
use herald_domain::api_key::ApiKeyRecord;
use herald_domain::ids::{ApiKeyId, OrganizationId};
use herald_domain::organization::{AccountStatus, NetworkRef, Organization, PlanName, SenderNumber};
use herald_domain::usecases::NewSender;
use herald_domain::values::{DisplayName, PhoneNumber};
use serde_json::{Value, json};

/// Runs one admin command and returns what to print on stdout.
///
/// # Errors
/// Invalid arguments or a refused operation, with a message for stderr.
pub async fn run(services: &Services, args: AdminArgs) -> anyhow::Result<String> {
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
                default,
                throughput,
            } => {
                let sender = admin
                    .add_sender(NewSender {
                        organization_id: parse_org(&org)?,
                        number: PhoneNumber::parse(&number).context("--number")?,
                        phone_number_id: NetworkRef::parse(&phone_number_id).context("--phone-number-id")?,
                        waba_id: NetworkRef::parse(&waba_id).context("--waba-id")?,
                        access_token_env,
                        is_default: default,
                        throughput_per_second: throughput.clamp(1, 1_000),
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
    };
    Ok(if json {
        serde_json::to_string_pretty(&value)?
    } else {
        text
    })
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

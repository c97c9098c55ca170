//! `herald serve --demo`: a ready-to-use organization on an empty store, so a newcomer can send a message
//! within a minute of `make run`.

use crate::services::Services;
use herald_domain::api_key::ApiKey;
use herald_domain::ids::{OrganizationId, TemplateId};
use herald_domain::organization::{NetworkRef, PlanName};
use herald_domain::template::Template;
use herald_domain::usecases::NewSender;
use herald_domain::values::{DisplayName, PhoneNumber};

/// The simulator's business account and its two senders (docs/api.md §13).
pub const SIMULATOR_WABA_ID: &str = "2000000001";
pub const SIMULATOR_SENDERS: [(&str, &str); 2] =
    [("+15550001111", "1000000001"), ("+15550002222", "1000000002")];

/// The demo owner's dashboard login.
pub const DEMO_OWNER_EMAIL: &str = "owner@demo.example";

/// What the demo seeding made.
pub struct Demo {
    pub organization_id: OrganizationId,
    pub key: ApiKey,
    /// The demo owner's dashboard password, random, shown once like the key.
    pub owner_password: String,
}

/// Seeds the demo organization when the store has no organization yet; `None` otherwise.
///
/// # Errors
/// When the store refuses a write.
pub async fn seed_if_empty(
    services: &Services,
    settings: &crate::config::Settings,
) -> anyhow::Result<Option<Demo>> {
    let accounts = services.store.accounts();
    if !accounts.organizations().await?.is_empty() {
        return Ok(None);
    }
    let admin = services.admin();
    let org = admin
        .create_organization(
            DisplayName::parse("Demo")?,
            PlanName::parse("business")?,
            Some(DEMO_OWNER_EMAIL.to_owned()),
        )
        .await?;
    for (i, (number, phone_number_id)) in SIMULATOR_SENDERS.iter().enumerate() {
        admin
            .add_sender(NewSender {
                organization_id: org.id,
                number: PhoneNumber::parse(number)?,
                phone_number_id: NetworkRef::parse(phone_number_id)?,
                waba_id: NetworkRef::parse(SIMULATOR_WABA_ID)?,
                access_token_env: None,
                access_token: None,
                is_default: i == 0,
                throughput_per_second: 80,
                // One demo organization: its numbers share the business account with no one.
                shared_waba: false,
            })
            .await?;
    }
    let (_, key) = admin
        .create_key(&org.id, Some(DisplayName::parse("demo")?))
        .await?;
    let owner_password = {
        use base64::Engine as _;
        let mut bytes = [0_u8; 15];
        services.secrets.fill(&mut bytes);
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    };
    services
        .owner_access(settings)
        .set_password(
            &org.id,
            &herald_domain::owner::OwnerEmail::parse(DEMO_OWNER_EMAIL)?,
            &owner_password,
        )
        .await?;
    Ok(Some(Demo {
        organization_id: org.id,
        key,
        owner_password,
    }))
}

/// Stores the simulator's templates for `org` directly, without asking the network: for tests that run
/// without a network.
///
/// # Errors
/// When the store refuses the write.
pub async fn seed_templates(services: &Services, org: &OrganizationId) -> anyhow::Result<()> {
    let templates = simulator_templates(services, org)?;
    let waba = NetworkRef::parse(SIMULATOR_WABA_ID)?;
    services
        .store
        .templates()
        .replace_templates(org, &waba, &templates)
        .await?;
    Ok(())
}

/// The templates the simulator knows (docs/api.md §13), as Herald's store copies: the simulator's listing
/// read by the Cloud API client's own parser, exactly as a sync would store them.
fn simulator_templates(services: &Services, org: &OrganizationId) -> anyhow::Result<Vec<Template>> {
    let now = services.clock.now();
    let waba = NetworkRef::parse(SIMULATOR_WABA_ID)?;
    herald_simulator::seeded_template_definitions()
        .into_iter()
        .map(|definition| {
            let parsed = herald_cloudapi::parse_template_definition(definition)
                .map_err(|reason| anyhow::anyhow!("a seeded template does not parse: {reason}"))?;
            Ok(Template {
                id: TemplateId::from_ulid(services.ids.next_ulid()),
                organization_id: *org,
                waba_id: waba.clone(),
                name: parsed.name,
                language: parsed.language,
                status: parsed.status,
                category: parsed.category,
                structure: parsed.structure,
                network_id: parsed.network_id,
                synced_at: now,
                health: parsed.health,
            })
        })
        .collect()
}

/// The banner printed after seeding: the key (this once) and a `curl` that answers 202.
pub fn banner(demo: &Demo, base_url: &str) -> String {
    format!(
        r#"
============================================================================
 Herald demo organization {org}
 API key (shown only now; keep it): {key}

 Send a template message:

 curl -i -X POST {base_url}/api/v1/messages/send-template \
   -H 'Authorization: Bearer {key}' \
   -H 'Content-Type: application/json' \
   -d '{{"to": "+15551234567", "template": {{"name": "hello_world", "language": "en_US"}}}}'

 Then look it up:  curl -H 'Authorization: Bearer {key}' {base_url}/api/v1/messages
 API reference:    {base_url}/docs

 Dashboard:        {base_url}/dashboard
   email {email}   password {password}   (shown only now)
============================================================================
"#,
        org = demo.organization_id,
        key = demo.key.expose(),
        email = DEMO_OWNER_EMAIL,
        password = demo.owner_password,
    )
}

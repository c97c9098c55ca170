//! `Reseal`: legacy values are sealed again for their own row with a compare and set; current ones and
//! ones that do not open are left alone.

use super::*;
use crate::ids::WebhookId;
use crate::organization::SealedSecret;
use crate::ports::{MockAccountStore, MockSecretSealer, MockWebhookStore, Opened, SealContext, SealError};
use crate::usecases::{Reseal, ResealReport};
use crate::webhook::{EventSelection, SecretSlot, WebhookEndpoint, WebhookUrl};
use std::sync::Arc;

const LEGACY: u8 = 1;
const CURRENT: u8 = 2;
const BROKEN: u8 = 3;

fn endpoint(n: u128, secret: Vec<u8>, previous: Option<Vec<u8>>) -> WebhookEndpoint {
    WebhookEndpoint {
        id: WebhookId::from_ulid(ulid(700 + n)),
        organization_id: org_id(),
        url: WebhookUrl::parse("https://a.example/hook").unwrap(),
        events: EventSelection::ALL,
        description: None,
        enabled: true,
        disabled_reason: None,
        secret: SealedSecret::new(secret),
        previous_secret: previous.map(SealedSecret::new),
        previous_secret_expires_at: None,
        failing_since: None,
        created_at: now(),
        updated_at: now(),
    }
}

#[test]
fn legacy_values_are_resealed_for_their_own_row_and_the_rest_is_counted() {
    let legacy_sender = SenderNumber {
        sealed_access_token: Some(SealedSecret::new(vec![LEGACY, 11])),
        ..sender(1, "+15550001111", true)
    };
    let current_sender = SenderNumber {
        sealed_access_token: Some(SealedSecret::new(vec![CURRENT, 12])),
        ..sender(2, "+15550002222", false)
    };
    let broken_sender = SenderNumber {
        sealed_access_token: Some(SealedSecret::new(vec![BROKEN])),
        ..sender(3, "+15550003333", false)
    };
    let without_token = sender(4, "+15550004444", false);
    let senders = vec![
        legacy_sender.clone(),
        current_sender,
        broken_sender.clone(),
        without_token,
    ];
    let mut accounts = MockAccountStore::new();
    accounts
        .expect_organizations()
        .times(1)
        .returning(|| Ok(vec![organization(AccountStatus::Active)]));
    accounts
        .expect_senders()
        .withf(|org| *org == org_id())
        .times(1)
        .returning(move |_| Ok(senders.clone().into()));
    let id = legacy_sender.id;
    accounts
        .expect_replace_sealed_access_token()
        .withf(move |org, sender, expected, new| {
            *org == org_id()
                && *sender == id
                && expected.as_bytes() == [LEGACY, 11]
                && new.as_bytes() == [CURRENT, 11]
        })
        .times(1)
        .returning(|_, _, _, _| Ok(true));

    // Current secret legacy, previous legacy but rotated meanwhile (the compare and set loses).
    let hook = endpoint(1, vec![LEGACY, 21], Some(vec![LEGACY, 22]));
    let mut webhooks = MockWebhookStore::new();
    let listed = vec![hook.clone()];
    webhooks
        .expect_endpoints()
        .times(1)
        .returning(move |_| Ok(listed.clone()));
    let hook_id = hook.id;
    webhooks
        .expect_replace_endpoint_secret()
        .withf(move |org, id, slot, expected, new| {
            *org == org_id()
                && *id == hook_id
                && *slot == SecretSlot::Current
                && expected.as_bytes() == [LEGACY, 21]
                && new.as_bytes() == [CURRENT, 21]
        })
        .times(1)
        .returning(|_, _, _, _, _| Ok(true));
    webhooks
        .expect_replace_endpoint_secret()
        .withf(move |_, id, slot, expected, new| {
            *id == hook_id
                && *slot == SecretSlot::Previous
                && expected.as_bytes() == [LEGACY, 22]
                && new.as_bytes() == [CURRENT, 22]
        })
        .times(1)
        .returning(|_, _, _, _, _| Ok(false));

    // Opens `[LEGACY, n]` as legacy, `[CURRENT, n]` as current, refuses the rest; seals as `[CURRENT, n]`;
    // every open and seal is for the row the value sits in.
    let mut sealer = MockSecretSealer::new();
    let own_rows = [
        SealContext::sender(&legacy_sender.id),
        SealContext::sender(&sender(2, "+15550002222", false).id),
        SealContext::sender(&broken_sender.id),
        SealContext::webhook(&hook.id),
    ];
    let rows = own_rows.clone();
    sealer
        .expect_open()
        .withf(move |context, _| rows.contains(context))
        .returning(|_, sealed| match sealed {
            [LEGACY, n] => Ok(Opened {
                text: n.to_string(),
                legacy: true,
            }),
            [CURRENT, n] => Ok(Opened {
                text: n.to_string(),
                legacy: false,
            }),
            _ => Err(SealError::Rejected),
        });
    let rows = own_rows;
    sealer
        .expect_seal()
        .withf(move |context, _| rows.contains(context))
        .returning(|_, text| vec![CURRENT, text.parse().unwrap()]);

    let report = run(Reseal::new(Arc::new(accounts), Arc::new(webhooks), Arc::new(sealer)).run()).unwrap();

    assert_eq!(report.sender_tokens, 1);
    assert_eq!(report.webhook_secrets, 1);
    assert_eq!(report.already_current, 1);
    assert_eq!(report.changed_meanwhile, 1);
    assert_eq!(report.cannot_open.len(), 1, "{report:?}");
    assert!(
        report.cannot_open[0].contains(&broken_sender.id.to_string()),
        "{report:?}"
    );
    assert_eq!(
        ResealReport {
            cannot_open: Vec::new(),
            ..report
        },
        ResealReport {
            sender_tokens: 1,
            webhook_secrets: 1,
            already_current: 1,
            changed_meanwhile: 1,
            cannot_open: Vec::new(),
        }
    );
}

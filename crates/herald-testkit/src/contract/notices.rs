//! `TrackingStore::record_notice` and the sender qualities of `AccountStore`: a notice changes the copy or
//! the sender it names in its organization only, writes one customer event, and a second delivery of the
//! same notice writes nothing.

use super::outbox::{events_of, payload};
use super::{Ports, new_organization_with_sender};
use crate::fixtures::{SIMULATOR_WABA, at, network_ref, next_ulid, template_hello_world};
use herald_domain::customer_event::CustomerEventType;
use herald_domain::ids::EventId;
use herald_domain::network::{AccountNotice, NoticeChange, NoticeTemplate, QualityScore};
use herald_domain::notice::{NoticeRecord, NoticeSender};
use herald_domain::organization::{Organization, SenderNumber};
use herald_domain::ports::TemplateQuery;
use herald_domain::template::TemplateStatus;

fn record(
    org: &Organization,
    key: &str,
    change: NoticeChange,
    sender: Option<&SenderNumber>,
) -> NoticeRecord {
    NoticeRecord {
        organization_id: org.id,
        event_id: EventId::from_ulid(next_ulid()),
        recorded_at: at(500),
        notice: AccountNotice {
            waba_id: network_ref(SIMULATOR_WABA),
            occurred_at: at(400),
            dedupe_key: key.to_owned(),
            change,
        },
        sender: sender.map(|s| NoticeSender {
            id: s.id,
            number: s.number.clone(),
        }),
    }
}

fn hello_world_paused() -> NoticeChange {
    NoticeChange::TemplateStatus {
        template: NoticeTemplate {
            network_id: Some("3000000001".into()),
            name: crate::fixtures::template_name("hello_world"),
            language: crate::fixtures::language("en_US"),
        },
        status: TemplateStatus::parse("PAUSED").expect("valid"),
        reason: None,
        info: None,
    }
}

pub async fn notices_change_the_named_copy_once_and_record_one_event(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let (other, other_sender) = new_organization_with_sender(&ports, "starter").await;
    for (o, s) in [(&org, &sender), (&other, &other_sender)] {
        ports
            .templates
            .replace_templates(&o.id, &s.waba_id, &[template_hello_world(o.id, &s.waba_id)])
            .await
            .expect("replace_templates");
    }
    let first = record(&org, "key-1", hello_world_paused(), None);
    assert!(ports.tracking.record_notice(&first).await.expect("record_notice"));
    let again = record(&org, "key-1", hello_world_paused(), None);
    assert!(
        !ports.tracking.record_notice(&again).await.expect("record_notice"),
        "the same notice again is a duplicate"
    );

    let copy = &ports
        .templates
        .templates(&org.id, &TemplateQuery::default())
        .await
        .expect("templates")[0];
    assert_eq!(copy.status.as_str(), "PAUSED");
    assert_eq!(copy.health.updated_at, Some(at(500)));
    let untouched = &ports
        .templates
        .templates(&other.id, &TemplateQuery::default())
        .await
        .expect("templates")[0];
    assert_eq!(
        untouched.status.as_str(),
        "APPROVED",
        "another organization's copy is untouched"
    );

    let events = events_of(&ports, &org).await;
    assert_eq!(events.len(), 1, "one event, whatever the deliveries");
    let event = &events[0];
    assert_eq!(event.id, first.event_id);
    assert_eq!(event.event_type, CustomerEventType::TemplateStatus);
    assert_eq!(event.message_id, None);
    assert_eq!(event.occurred_at, at(400));
    let body = payload(event);
    assert_eq!(body["type"], "template.status");
    assert_eq!(body["data"]["status"], "PAUSED");
    assert_eq!(body["data"]["previous_status"], "APPROVED");
    assert_eq!(body["data"]["template"]["name"], "hello_world");
    assert!(events_of(&ports, &other).await.is_empty());

    // The same key in another organization is that organization's own notice.
    let theirs = record(&other, "key-1", hello_world_paused(), None);
    assert!(
        ports
            .tracking
            .record_notice(&theirs)
            .await
            .expect("record_notice")
    );

    // A template the organization has no copy of is still an event, and creates no copy.
    let unknown = NoticeChange::TemplateQuality {
        template: NoticeTemplate {
            network_id: None,
            name: crate::fixtures::template_name("made_in_the_manager"),
            language: crate::fixtures::language("en_US"),
        },
        previous: None,
        quality: QualityScore::parse("RED").expect("valid"),
    };
    assert!(
        ports
            .tracking
            .record_notice(&record(&org, "key-2", unknown, None))
            .await
            .expect("record")
    );
    assert_eq!(events_of(&ports, &org).await.len(), 2);
    assert_eq!(
        ports
            .templates
            .templates(&org.id, &TemplateQuery::default())
            .await
            .expect("templates")
            .len(),
        1
    );
}

pub async fn notices_set_the_sender_quality_in_its_organization(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let (other, _) = new_organization_with_sender(&ports, "starter").await;
    let of_account = ports
        .accounts
        .senders_of_business_account(&network_ref(SIMULATOR_WABA))
        .await
        .expect("senders_of_business_account");
    assert_eq!(of_account.len(), 2, "every organization's senders of the account");
    assert!(
        ports
            .accounts
            .sender_qualities(&org.id)
            .await
            .expect("qualities")
            .is_empty()
    );

    let flagged = NoticeChange::SenderQuality {
        display_phone_number: sender.number.as_str().trim_start_matches('+').to_owned(),
        event: "FLAGGED".into(),
        current_limit: Some("TIER_10K".into()),
        old_limit: None,
    };
    assert!(
        ports
            .tracking
            .record_notice(&record(&org, "key-3", flagged, Some(&sender)))
            .await
            .expect("record_notice")
    );
    let qualities = ports.accounts.sender_qualities(&org.id).await.expect("qualities");
    assert_eq!(qualities.len(), 1);
    assert_eq!(qualities[0].0, sender.id);
    assert_eq!(qualities[0].1.quality_rating.as_deref(), Some("RED"));
    assert_eq!(qualities[0].1.messaging_limit.as_deref(), Some("TIER_10K"));
    assert_eq!(qualities[0].1.quality_updated_at, Some(at(400)));
    assert!(
        ports
            .accounts
            .sender_qualities(&other.id)
            .await
            .expect("qualities")
            .is_empty()
    );
    let body = payload(&events_of(&ports, &org).await[0]);
    assert_eq!(body["type"], "sender.quality");
    assert_eq!(body["data"]["sender"]["number"], sender.number.as_str());
    assert_eq!(body["data"]["messaging_limit"], "TIER_10K");
}

pub async fn notices_recorded_concurrently_count_once(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    ports
        .templates
        .replace_templates(
            &org.id,
            &sender.waba_id,
            &[template_hello_world(org.id, &sender.waba_id)],
        )
        .await
        .expect("replace_templates");
    // The receiving task and the backlog sweep may process one callback at the same moment.
    let tasks = (0..8).map(|_| {
        let tracking = std::sync::Arc::clone(&ports.tracking);
        let record = record(&org, "key-race", hello_world_paused(), None);
        tokio::spawn(async move { tracking.record_notice(&record).await })
    });
    let outcomes = futures::future::join_all(tasks).await;
    let recorded = outcomes
        .into_iter()
        .map(|outcome| {
            outcome
                .expect("the task ran")
                .expect("a concurrent duplicate is an answer, not an error")
        })
        .filter(|recorded| *recorded)
        .count();
    assert_eq!(recorded, 1);
    assert_eq!(events_of(&ports, &org).await.len(), 1);
}

pub async fn notices_a_sync_keeps_the_last_change_time_of_an_unchanged_copy(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    // One listing's template, seen by three syncs (the network's id stays the same).
    let listed = template_hello_world(org.id, &sender.waba_id);
    let stamped = |at_ms: i64, status: &str| {
        let mut copy = listed.clone();
        copy.status = TemplateStatus::parse(status).expect("valid");
        copy.synced_at = at(at_ms);
        copy.health.updated_at = Some(at(at_ms));
        copy.health.quality = Some(QualityScore::parse("GREEN").expect("valid"));
        copy
    };
    let stored = |ports: &Ports| {
        let ports = ports.clone();
        let org = org.id;
        async move {
            ports
                .templates
                .templates(&org, &TemplateQuery::default())
                .await
                .expect("templates")
                .remove(0)
        }
    };
    let replace = |copy| {
        let ports = ports.clone();
        let (org, waba) = (org.id, sender.waba_id.clone());
        async move {
            ports
                .templates
                .replace_templates(&org, &waba, &[copy])
                .await
                .expect("replace_templates");
        }
    };
    replace(stamped(100, "APPROVED")).await;
    replace(stamped(200, "APPROVED")).await;
    let copy = stored(&ports).await;
    assert_eq!(copy.synced_at, at(200));
    assert_eq!(copy.health.updated_at, Some(at(100)), "nothing changed since 100");
    assert_eq!(copy.health.quality.expect("kept").as_str(), "GREEN");
    replace(stamped(300, "PAUSED")).await;
    assert_eq!(
        stored(&ports).await.health.updated_at,
        Some(at(300)),
        "the status changed at 300"
    );
}

/// The webhook fields a business account misses are recorded on the organization's senders of that
/// account only; a sender never checked has none recorded; a later check replaces the list.
pub async fn notices_webhook_fields_missing_are_per_account_and_organization(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let (other, _) = new_organization_with_sender(&ports, "starter").await;
    let missing = |org: Organization| {
        let accounts = std::sync::Arc::clone(&ports.accounts);
        async move {
            accounts
                .webhook_fields_missing(&org.id)
                .await
                .expect("webhook_fields_missing")
        }
    };
    assert!(missing(org.clone()).await.is_empty(), "never checked");
    let fields = vec!["messages".to_owned(), "standby".to_owned()];
    ports
        .accounts
        .record_webhook_fields_missing(&org.id, &sender.waba_id, &fields)
        .await
        .expect("record");
    assert_eq!(missing(org.clone()).await, vec![(sender.id, fields)]);
    assert!(
        missing(other.clone()).await.is_empty(),
        "another organization's senders are untouched"
    );
    ports
        .accounts
        .record_webhook_fields_missing(&org.id, &network_ref("2999999999"), &["messages".to_owned()])
        .await
        .expect("record another account");
    assert_eq!(
        missing(org.clone()).await.len(),
        1,
        "another account's senders only"
    );
    ports
        .accounts
        .record_webhook_fields_missing(&org.id, &sender.waba_id, &[])
        .await
        .expect("record fine");
    assert_eq!(
        missing(org).await,
        vec![(sender.id, Vec::new())],
        "checked and fine"
    );
}

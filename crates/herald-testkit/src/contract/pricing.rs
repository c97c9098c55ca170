//! `PricingStore` and the pricing `TrackingStore` keeps: the network's pricing of each message, rate
//! cards, and usage counts by day and category.

use super::outbox::{events_of, payload};
use super::{Ports, accept_ok, new_organization_with_sender};
use crate::fixtures::{accept_request, at, next_ulid, text_message};
use herald_domain::Timestamp;
use herald_domain::ids::EventId;
use herald_domain::message::{EventSource, Message, MessageStatus};
use herald_domain::pricing::{Currency, Pricing, PricingWord, Rate};
use herald_domain::status::{StatusReport, StatusUpdate};

fn pricing(category: &str, kind: &str, billable: bool) -> Pricing {
    Pricing {
        model: Some(PricingWord::parse("pmp").unwrap()),
        category: Some(PricingWord::parse(category).unwrap()),
        kind: Some(PricingWord::parse(kind).unwrap()),
        billable: Some(billable),
    }
}

fn report(
    message: &Message,
    status: MessageStatus,
    occurred_at: Timestamp,
    pricing: Option<Pricing>,
) -> StatusUpdate {
    StatusUpdate {
        organization_id: message.organization_id,
        message_id: message.id,
        report: StatusReport {
            status,
            occurred_at,
            error: None,
        },
        network_message_id: Some(format!("wamid.{}", message.id)),
        source: EventSource::Network,
        event_id: EventId::from_ulid(next_ulid()),
        customer_event_id: EventId::from_ulid(next_ulid()),
        recorded_at: occurred_at,
        pricing,
    }
}

async fn apply(ports: &Ports, update: &StatusUpdate) -> Message {
    ports
        .tracking
        .apply_status(update)
        .await
        .expect("apply_status")
        .expect("the message exists");
    ports
        .messages
        .message(&update.organization_id, &update.message_id)
        .await
        .expect("message")
        .expect("exists")
}

/// The pricing of the furthest status is kept: a `delivered` report's replaces a `sent` one's, a late
/// `sent` report cannot undo it, a report without pricing keeps it; `message.status` events carry it.
pub async fn pricing_of_the_furthest_report_is_kept_and_sent_in_events(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let message = text_message(org.id, &sender, "+15551234567", at(0));
    accept_ok(&ports, &accept_request(&message, None, None)).await;
    let stored = apply(&ports, &report(&message, MessageStatus::Read, at(3), None)).await;
    assert_eq!(stored.pricing, None, "a report without pricing sets none");

    let other = text_message(org.id, &sender, "+15551234568", at(0));
    accept_ok(&ports, &accept_request(&other, None, None)).await;
    let sent = pricing("marketing", "regular", true);
    let delivered = pricing("marketing", "free_entry_point", false);
    let after_sent = apply(
        &ports,
        &report(&other, MessageStatus::Sent, at(1), Some(sent.clone())),
    )
    .await;
    assert_eq!(after_sent.pricing, Some(sent.clone()));
    let after_delivered = apply(
        &ports,
        &report(&other, MessageStatus::Delivered, at(2), Some(delivered.clone())),
    )
    .await;
    assert_eq!(
        after_delivered.pricing,
        Some(delivered.clone()),
        "the furthest report wins"
    );
    let after_late = apply(&ports, &report(&other, MessageStatus::Sent, at(1), Some(sent))).await;
    assert_eq!(
        after_late.pricing,
        Some(delivered.clone()),
        "a late report cannot undo it"
    );
    let after_none = apply(&ports, &report(&other, MessageStatus::Read, at(4), None)).await;
    assert_eq!(
        after_none.pricing,
        Some(delivered),
        "a report without pricing keeps it"
    );

    let events = events_of(&ports, &org).await;
    let of_other: Vec<_> = events
        .iter()
        .filter(|e| {
            e.message_id
                .as_ref()
                .is_some_and(|m| m.to_string() == other.id.to_string())
        })
        .map(payload)
        .collect();
    let statuses: Vec<_> = of_other
        .iter()
        .filter(|p| p["type"] == "message.status")
        .collect();
    assert!(statuses.len() >= 3, "{of_other:?}");
    let delivered_event = statuses
        .iter()
        .find(|p| p["data"]["status"] == "delivered")
        .expect("a delivered event");
    assert_eq!(
        delivered_event["data"]["pricing"],
        serde_json::json!({"model": "pmp", "category": "marketing", "type": "free_entry_point", "billable": false})
    );
    let first_message_events: Vec<_> = events
        .iter()
        .filter(|e| {
            e.message_id
                .as_ref()
                .is_some_and(|m| m.to_string() == message.id.to_string())
        })
        .map(payload)
        .collect();
    assert!(
        first_message_events
            .iter()
            .all(|p| p["data"].get("pricing").is_none()),
        "no pricing, no field: {first_message_events:?}"
    );
}

/// Rates are set, replaced and removed per organization, and read back exactly.
pub async fn pricing_rate_cards_round_trip_per_organization(ports: Ports) {
    let (org, _) = new_organization_with_sender(&ports, "starter").await;
    let (other, _) = new_organization_with_sender(&ports, "starter").await;
    let rate = |category: &str, micros: u64| Rate {
        category: PricingWord::parse(category).unwrap(),
        micros,
        currency: Currency::parse("EUR").unwrap(),
    };
    assert!(ports.pricing.rate_card(&org.id).await.unwrap().rates.is_empty());
    ports
        .pricing
        .set_rate(&org.id, &rate("utility", 14_700), at(1))
        .await
        .unwrap();
    ports
        .pricing
        .set_rate(&org.id, &rate("marketing", 50_000), at(1))
        .await
        .unwrap();
    ports
        .pricing
        .set_rate(&org.id, &rate("utility", 20_000), at(2))
        .await
        .unwrap();
    let card = ports.pricing.rate_card(&org.id).await.unwrap();
    assert_eq!(
        card.rates,
        vec![rate("marketing", 50_000), rate("utility", 20_000)]
    );
    assert!(
        ports.pricing.rate_card(&other.id).await.unwrap().rates.is_empty(),
        "another organization's card is its own"
    );
    let utility = PricingWord::parse("utility").unwrap();
    assert!(!ports.pricing.remove_rate(&other.id, &utility).await.unwrap());
    assert!(ports.pricing.remove_rate(&org.id, &utility).await.unwrap());
    assert!(!ports.pricing.remove_rate(&org.id, &utility).await.unwrap());
    assert_eq!(
        ports.pricing.rate_card(&org.id).await.unwrap().rates,
        vec![rate("marketing", 50_000)]
    );
}

/// Messages are counted by UTC day of creation, network category and billing, within `[from, until)` and
/// the organization only; a message not priced yet counts with no category.
pub async fn pricing_usage_counts_by_day_and_category(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let (other, other_sender) = new_organization_with_sender(&ports, "starter").await;
    let day = chrono::TimeDelta::days(1);
    // at(0) is 2026-03-10 12:00 UTC; the range is that day and the next.
    let start = at(0).date_naive().and_hms_opt(0, 0, 0).unwrap().and_utc();
    let mut priced = Vec::new();
    for (n, created, pricing) in [
        (1, at(0), Some(pricing("utility", "regular", true))),
        (2, at(60), Some(pricing("utility", "regular", true))),
        (
            3,
            at(120),
            Some(pricing("utility", "free_customer_service", false)),
        ),
        (4, at(180), None),
        (5, at(0) + day, Some(pricing("marketing", "regular", true))),
        (
            6,
            start - chrono::TimeDelta::seconds(1),
            Some(pricing("utility", "regular", true)),
        ),
        (7, start + day + day, Some(pricing("utility", "regular", true))),
    ] {
        let message = text_message(org.id, &sender, &format!("+1555123450{n}"), created);
        accept_ok(&ports, &accept_request(&message, None, None)).await;
        if let Some(pricing) = pricing {
            apply(
                &ports,
                &report(&message, MessageStatus::Delivered, created, Some(pricing)),
            )
            .await;
        }
        priced.push(message);
    }
    let intruder = text_message(other.id, &other_sender, "+15551234599", at(0));
    accept_ok(&ports, &accept_request(&intruder, None, None)).await;

    let counts = ports
        .pricing
        .usage_counts(&org.id, start, start + day + day)
        .await
        .unwrap();
    let seen: Vec<_> = counts
        .iter()
        .map(|c| {
            (
                (c.day - start.date_naive()).num_days(),
                c.category.as_ref().map(|w| w.as_str().to_owned()),
                c.billable,
                c.messages,
            )
        })
        .collect();
    assert_eq!(
        seen,
        vec![
            (0, None, true, 1),
            (0, Some("utility".to_owned()), false, 1),
            (0, Some("utility".to_owned()), true, 2),
            (1, Some("marketing".to_owned()), true, 1),
        ]
    );
}

/// The ends of the days usage may name (2000-01-01 to 9999-12-31, the end given as that day's last
/// microsecond): a message on each is counted on its own day, in one answer for the whole range.
pub async fn pricing_usage_counts_the_first_and_last_days_of_the_range(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let moment = |text: &str| {
        chrono::DateTime::parse_from_rfc3339(text)
            .unwrap()
            .with_timezone(&chrono::Utc)
    };
    for (n, created) in [
        (1, moment("2000-01-01T00:00:00Z")),
        (2, moment("9999-12-31T23:00:00Z")),
        (3, moment("2026-03-10T12:00:00Z")),
    ] {
        let message = text_message(org.id, &sender, &format!("+1555123460{n}"), created);
        accept_ok(&ports, &accept_request(&message, None, None)).await;
    }
    let counts = ports
        .pricing
        .usage_counts(
            &org.id,
            moment("2000-01-01T00:00:00Z"),
            moment("9999-12-31T23:59:59.999999Z"),
        )
        .await
        .unwrap();
    let days: Vec<(String, u64)> = counts.iter().map(|c| (c.day.to_string(), c.messages)).collect();
    assert_eq!(
        days,
        [("2000-01-01", 1), ("2026-03-10", 1), ("9999-12-31", 1)]
            .map(|(day, n)| (day.to_owned(), n))
            .to_vec()
    );
}

//! The dashboard's account page: this month's estimated cost by pricing category (docs/api.md §5.2's sums
//! for the month so far), on both stores.

use crate::dashboard::{Browser, dashboard_settings, spawn_dashboard};
use crate::helpers::Db;
use herald_domain::ids::{EventId, OrganizationId};
use herald_domain::message::{EventSource, MessageStatus};
use herald_domain::pricing::{Pricing, PricingWord};
use herald_domain::status::{StatusReport, StatusUpdate};
use herald_testkit::fixtures;

on_both_stores!(the_account_page_shows_this_months_cost_by_category);

/// Stores a text message sent now to `to` and the network's `sent` report pricing it in `category`.
async fn priced_message(store: &herald_store::Store, org: OrganizationId, to: &str, category: &str) {
    let sender = store.accounts().senders(&org).await.unwrap()[0].clone();
    let message = fixtures::message(
        org,
        &sender,
        to,
        fixtures::text_content("hello"),
        chrono::Utc::now(),
    );
    store
        .messages()
        .accept(&fixtures::accept_request(&message, None, None))
        .await
        .unwrap();
    let word = |w: &str| Some(PricingWord::parse(w).unwrap());
    let now = chrono::Utc::now();
    store
        .tracking()
        .apply_status(&StatusUpdate {
            organization_id: org,
            message_id: message.id,
            report: StatusReport {
                status: MessageStatus::Sent,
                occurred_at: now,
                error: None,
            },
            network_message_id: Some(format!("wamid.{category}.{to}")),
            pricing: Some(Pricing {
                model: word("pmp"),
                category: word(category),
                kind: word("regular"),
                billable: Some(true),
            }),
            source: EventSource::Network,
            event_id: EventId::from_ulid(fixtures::next_ulid()),
            customer_event_id: EventId::from_ulid(fixtures::next_ulid()),
            recorded_at: now,
        })
        .await
        .unwrap()
        .expect("the message exists");
}

async fn the_account_page_shows_this_months_cost_by_category(db: Db) {
    let Some(d) = spawn_dashboard(db, dashboard_settings(), None).await else {
        return;
    };
    let mut browser = Browser::new(&d.app.base);
    browser.login_ok(&d.email, &d.password).await;
    let page = browser.get("/dashboard/account").await;
    assert_eq!(
        page.text_of("month-cost-none").as_deref(),
        Some("No messages this month.")
    );

    let store = &d.app.services.store;
    priced_message(store, d.owner_org, "+15551234567", "utility").await;
    priced_message(store, d.owner_org, "+15551234568", "utility").await;
    priced_message(store, d.owner_org, "+15551234569", "marketing").await;
    d.app
        .services
        .rate_cards()
        .set(&d.owner_org, "utility", "0.0147", "EUR")
        .await
        .unwrap();
    let page = browser.get("/dashboard/account").await;
    let table = page
        .table_of("month-cost")
        .unwrap_or_else(|| panic!("{}", page.body));
    assert!(
        table.contains("<td><code>utility</code></td><td>2</td><td>2</td><td>0.0294 EUR</td>"),
        "{table}"
    );
    assert!(
        table.contains(
            "<td><code>marketing</code></td><td>1</td><td>1</td><td><span class=\"muted\">no rate</span></td>"
        ),
        "{table}"
    );
    assert_eq!(page.text_of("month-cost-total").as_deref(), Some("0.0294 EUR"));
}

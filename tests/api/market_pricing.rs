//! Estimates by the recipient's market end to end (docs/api.md §4, §4.10, §5.2), on both stores: usage by
//! day, category and market, each market at the market card in force with its volume tiers and the
//! operator's markup, the organization's own rate winning; dry runs of a send and of a broadcast priced
//! at their recipients' markets.

use crate::helpers::Db;
use crate::network::{NetApp, spawn, template};
use herald_domain::ports::MarkupTarget;
use serde_json::{Value, json};

on_both_stores!(
    usage_prices_each_market_at_its_card_with_tiers_and_markup_and_the_own_rate_wins,
    dry_runs_are_priced_at_their_recipients_markets,
);

/// Meta's card for every day since 2000 in USD: North America's utility rate lowered from the third
/// message of a month, Brazil's and Other's flat.
const CARD: &str = "Market,Currency,Marketing,Utility,Authentication,Authentication-International,Service\n\
                    North America,USD,0.025,0.01,0.01,n/a,n/a\n\
                    Brazil,USD,0.0625,0.02,0.02,n/a,n/a\n\
                    Other,USD,0.06,0.03,0.03,n/a,n/a\n\
                    Market,Category,From,Rate\n\
                    North America,utility,3,0.005\n";

const NORTH_AMERICA: [&str; 3] = ["+15551230061", "+15551230062", "+15551230063"];
const BRAZIL: &str = "+5511912340001";
/// +882: international networks, which no market lists.
const OTHER: &str = "+8821234500";

async fn priced_app(db: Db) -> NetApp {
    let app = spawn(db, |_| {}, 80).await;
    let cards = app.services.rate_cards();
    cards.import(CARD, "2000-01-01").await.unwrap();
    cards
        .set_markup(&MarkupTarget::Organization(app.org), Some("10"))
        .await
        .unwrap();
    app
}

fn market<'a>(markets: &'a Value, name: &str) -> &'a Value {
    markets
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["market"] == name)
        .unwrap_or_else(|| panic!("no {name} in {markets}"))
}

async fn usage_prices_each_market_at_its_card_with_tiers_and_markup_and_the_own_rate_wins(db: Db) {
    let app = priced_app(db).await;
    let mut ids = Vec::new();
    for to in NORTH_AMERICA.iter().chain([&BRAZIL, &OTHER]) {
        let sent = app.send("/api/v1/messages/send-template", template(to)).await;
        ids.push(sent["id"].as_str().unwrap().to_owned());
    }
    for id in &ids {
        app.wait_status(id, "delivered").await;
    }
    let today = chrono::Utc::now().date_naive().to_string();
    let usage = app
        .get(&format!("/api/v1/usage?from={today}&until={today}"))
        .await;
    assert_eq!(usage["messages"], 5, "{usage}");
    // North America: two at 0.01 and the month's third at its tier, 0.005, all + 10 %.
    let america = market(&usage["markets"], "north_america");
    assert_eq!(
        (america["messages"].as_u64(), america["billable"].as_u64()),
        (Some(3), Some(3))
    );
    assert_eq!(
        america["estimated_cost"],
        json!({ "amount": "0.0275", "currency": "USD" })
    );
    assert_eq!(
        market(&usage["markets"], "brazil")["estimated_cost"],
        json!({ "amount": "0.022", "currency": "USD" })
    );
    assert_eq!(
        market(&usage["markets"], "other")["estimated_cost"],
        json!({ "amount": "0.033", "currency": "USD" }),
        "a number no market lists is Other"
    );
    let names: Vec<&str> = usage["markets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["market"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["brazil", "north_america", "other"], "markets in order");
    assert_eq!(usage["estimated_cost"]["amount"], "0.0825", "{usage}");
    assert_eq!(usage["categories"][0]["estimated_cost"]["amount"], "0.0825");
    let day = &usage["days"][0];
    assert_eq!(
        day["markets"], usage["markets"],
        "one day: the day's markets are the range's"
    );
    assert_eq!(day["estimated_cost"]["amount"], "0.0825");

    // The organization's own rate wins, as it is: no market rate, no tier, no markup.
    app.services
        .rate_cards()
        .set(&app.org, "utility", "0.05", "EUR")
        .await
        .unwrap();
    let usage = app
        .get(&format!("/api/v1/usage?from={today}&until={today}"))
        .await;
    assert_eq!(
        usage["estimated_cost"],
        json!({ "amount": "0.25", "currency": "EUR" }),
        "{usage}"
    );
    assert_eq!(
        market(&usage["markets"], "north_america")["estimated_cost"]["amount"],
        "0.15"
    );
}

async fn dry_runs_are_priced_at_their_recipients_markets(db: Db) {
    let app = priced_app(db).await;
    let dry_run = |path: &'static str, body: Value| {
        let app = &app;
        async move {
            let response = app.post_response(&format!("{path}?dry_run=true"), &body).await;
            assert_eq!(response.status(), 200);
            response.json::<Value>().await.unwrap()
        }
    };
    let send = dry_run("/api/v1/messages/send-template", template(BRAZIL)).await;
    assert_eq!(send["market"], "brazil", "{send}");
    assert_eq!(
        send["estimated_cost"],
        json!({ "amount": "0.022", "currency": "USD" }),
        "Brazil's utility rate + 10 %: {send}"
    );
    let other = dry_run("/api/v1/messages/send-template", template(OTHER)).await;
    assert_eq!(other["market"], "other");
    assert_eq!(other["estimated_cost"]["amount"], "0.033");

    let row = |to: &str| json!({ "to": to, "variables": { "customer": "Ana", "date": "Friday" } });
    let broadcast = dry_run(
        "/api/v1/broadcasts",
        json!({
            "template": { "name": "appointment_named", "language": "en_US" },
            "recipients": [row(NORTH_AMERICA[0]), row(BRAZIL), row(NORTH_AMERICA[1])],
        }),
    )
    .await;
    assert_eq!(broadcast["accepted"], 3, "{broadcast}");
    assert_eq!(
        broadcast["markets"],
        json!([ { "market": "brazil", "messages": 1 }, { "market": "north_america", "messages": 2 } ])
    );
    // Two at North America's list rate (a dry run takes no tier) and one at Brazil's, + 10 %.
    assert_eq!(
        broadcast["estimated_cost"],
        json!({ "amount": "0.044", "currency": "USD" }),
        "{broadcast}"
    );
    assert!(app.simulator_sent().await.is_empty(), "nothing sent");
}

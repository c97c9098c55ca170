//! `PricingStore`'s market rate cards: Meta's rates by market and category, each card from the day it takes
//! effect, imported whole.

use super::{Ports, accept_ok, new_organization_with_sender};
use crate::fixtures::{accept_request, at, text_message};
use chrono::NaiveDate;
use herald_domain::contact::Recipient;
use herald_domain::organization::PlanName;
use herald_domain::ports::MarkupTarget;
use herald_domain::pricing::estimate::Markup;
use herald_domain::pricing::markets::Market;
use herald_domain::pricing::rate_file::{MarketRate, MarketTier};
use herald_domain::pricing::{Currency, MarketRateCard, PricingWord};

fn day(text: &str) -> NaiveDate {
    NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
}

fn card(effective: &str, currency: &str, rates: &[(&str, &str, u64)]) -> MarketRateCard {
    MarketRateCard {
        effective_from: day(effective),
        currency: Currency::parse(currency).unwrap(),
        rates: rates
            .iter()
            .map(|(market, category, micros)| MarketRate {
                market: Market::parse(market).unwrap(),
                category: PricingWord::parse(category).unwrap(),
                micros: *micros,
            })
            .collect(),
        tiers: Vec::new(),
    }
}

fn tier(market: &str, category: &str, from: u64, micros: u64) -> MarketTier {
    MarketTier {
        market: Market::parse(market).unwrap(),
        category: PricingWord::parse(category).unwrap(),
        from,
        micros,
    }
}

/// The card in force on a day is the one of the latest day not after it; a card imported again for its
/// day replaces that day's rates whole (a market it no longer lists is gone), and leaves other days' cards.
pub async fn pricing_market_rate_cards_by_effective_day(ports: Ports) {
    assert_eq!(
        ports.pricing.market_rates_on(day("2026-10-01")).await.unwrap(),
        None
    );
    let july = card(
        "2026-07-01",
        "USD",
        &[("brazil", "marketing", 62_500), ("brazil", "utility", 6_800)],
    );
    let october = card(
        "2026-10-01",
        "USD",
        &[
            ("brazil", "marketing", 62_500),
            ("brazil", "service", 6_800),
            ("rest_of_africa", "utility", 4_000),
        ],
    );
    ports.pricing.import_market_rates(&october, at(1)).await.unwrap();
    ports.pricing.import_market_rates(&july, at(2)).await.unwrap();
    assert_eq!(
        ports.pricing.market_rates_on(day("2026-06-30")).await.unwrap(),
        None
    );
    assert_eq!(
        ports.pricing.market_rates_on(day("2026-09-30")).await.unwrap(),
        Some(july.clone())
    );
    assert_eq!(
        ports.pricing.market_rates_on(day("2026-10-01")).await.unwrap(),
        Some(october)
    );
    let october_again = card("2026-10-01", "EUR", &[("mexico", "marketing", 40_000)]);
    ports
        .pricing
        .import_market_rates(&october_again, at(3))
        .await
        .unwrap();
    assert_eq!(
        ports.pricing.market_rates_on(day("2027-01-01")).await.unwrap(),
        Some(october_again)
    );
    assert_eq!(
        ports.pricing.market_rates_on(day("2026-07-15")).await.unwrap(),
        Some(july)
    );
}

/// A card's volume tiers are kept and replaced with it; the cards of a range are the one in force on its
/// first day and every one taking effect within it, oldest first.
pub async fn pricing_market_cards_keep_their_tiers_and_a_range_reads_each_card_in_force(ports: Ports) {
    let mut july = card("2026-07-01", "USD", &[("india", "utility", 1_400)]);
    july.tiers = vec![
        tier("india", "utility", 100_001, 1_200),
        tier("india", "utility", 1_000_001, 1_000),
    ];
    let october = card("2026-10-01", "USD", &[("india", "utility", 1_300)]);
    let december = card("2026-12-01", "USD", &[("india", "utility", 1_100)]);
    for card in [&july, &october, &december] {
        ports.pricing.import_market_rates(card, at(1)).await.unwrap();
    }
    assert_eq!(
        ports.pricing.market_rates_on(day("2026-08-01")).await.unwrap(),
        Some(july.clone()),
        "tiers read back in order"
    );
    let effective = |cards: Vec<MarketRateCard>| {
        cards
            .iter()
            .map(|c| c.effective_from.to_string())
            .collect::<Vec<_>>()
    };
    let range = ports
        .pricing
        .market_cards_between(day("2026-09-15"), day("2026-12-01"))
        .await
        .unwrap();
    assert_eq!(
        effective(range.clone()),
        ["2026-07-01", "2026-10-01", "2026-12-01"]
    );
    assert_eq!(range[0], july);
    let inside = ports
        .pricing
        .market_cards_between(day("2026-10-01"), day("2026-11-30"))
        .await
        .unwrap();
    assert_eq!(effective(inside), ["2026-10-01"]);
    let before = ports
        .pricing
        .market_cards_between(day("2026-01-01"), day("2026-06-30"))
        .await
        .unwrap();
    assert!(before.is_empty());
    // Imported again without tiers: the day's tiers are gone with its rates.
    let july_again = card("2026-07-01", "USD", &[("india", "utility", 1_500)]);
    ports
        .pricing
        .import_market_rates(&july_again, at(2))
        .await
        .unwrap();
    assert_eq!(
        ports.pricing.market_rates_on(day("2026-08-01")).await.unwrap(),
        Some(july_again)
    );
}

/// An organization's markup wins over its plan's; clearing it falls back to the plan's; an unknown
/// organization or plan is answered `false` and nothing is written.
pub async fn pricing_markups_of_an_organization_win_over_its_plans(ports: Ports) {
    let (org, _) = new_organization_with_sender(&ports, "starter").await;
    let (other, _) = new_organization_with_sender(&ports, "starter").await;
    let percent = |p: &str| Markup::parse_percent(p).unwrap();
    let starter = MarkupTarget::Plan(PlanName::parse("starter").unwrap());
    assert_eq!(ports.pricing.markup(&org.id).await.unwrap(), None);
    assert!(
        ports
            .pricing
            .set_markup(&starter, Some(percent("5")))
            .await
            .unwrap()
    );
    assert!(
        ports
            .pricing
            .set_markup(&MarkupTarget::Organization(org.id), Some(percent("12.5")))
            .await
            .unwrap()
    );
    assert_eq!(
        ports.pricing.markup(&org.id).await.unwrap(),
        Some(percent("12.5"))
    );
    assert_eq!(ports.pricing.markup(&other.id).await.unwrap(), Some(percent("5")));
    assert!(
        ports
            .pricing
            .set_markup(&MarkupTarget::Organization(org.id), None)
            .await
            .unwrap()
    );
    assert_eq!(ports.pricing.markup(&org.id).await.unwrap(), Some(percent("5")));
    let nowhere = MarkupTarget::Plan(PlanName::parse("no-such-plan").unwrap());
    assert!(
        !ports
            .pricing
            .set_markup(&nowhere, Some(percent("1")))
            .await
            .unwrap()
    );
    let stranger = crate::fixtures::organization("starter").id;
    assert!(
        !ports
            .pricing
            .set_markup(&MarkupTarget::Organization(stranger), Some(percent("1")))
            .await
            .unwrap()
    );
    assert_eq!(ports.pricing.markup(&stranger).await.unwrap(), None);
}

/// Usage counts each message in its recipient's market on the day it was created, as the domain's
/// `Market::of_number` tells it (a user id is `other`), in the store's one grouped query.
pub async fn pricing_usage_counts_by_market_as_the_domain_tells_it(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let moment = |text: &str| {
        chrono::DateTime::parse_from_rfc3339(text)
            .unwrap()
            .with_timezone(&chrono::Utc)
    };
    let before = "2025-09-30T12:00:00Z";
    let after = "2026-10-01T12:00:00Z";
    let sends = [
        ("+5511912345678", after),
        ("+5511912345679", after),
        ("+919812345678", after),
        ("+18095550100", after),
        ("+15551234567", after),
        ("+263771234567", before),
        ("+263771234567", after),
        ("+77012345678", before),
        ("+77012345678", after),
        ("+8821234567", after),
    ];
    for (to, created) in sends {
        let message = text_message(org.id, &sender, to, moment(created));
        accept_ok(&ports, &accept_request(&message, None, None)).await;
    }
    let mut user = text_message(org.id, &sender, "+15551230000", moment(after));
    user.to = Recipient::parse("US.13491208655302741918").unwrap();
    accept_ok(&ports, &accept_request(&user, None, None)).await;

    let counts = ports
        .pricing
        .usage_counts(
            &org.id,
            moment("2025-09-01T00:00:00Z"),
            moment("2026-10-02T00:00:00Z"),
        )
        .await
        .unwrap();
    let mut seen: Vec<(String, &str, u64)> = counts
        .iter()
        .map(|c| (c.day.to_string(), c.market.as_str(), c.messages))
        .collect();
    seen.sort();
    let mut expected: Vec<(String, &str, u64)> = Vec::new();
    for (to, created) in sends {
        let day = moment(created).date_naive();
        let market = Market::of_number(to.trim_start_matches('+'), day).as_str();
        match expected
            .iter_mut()
            .find(|(d, m, _)| *d == day.to_string() && *m == market)
        {
            Some(entry) => entry.2 += 1,
            None => expected.push((day.to_string(), market, 1)),
        }
    }
    match expected
        .iter_mut()
        .find(|(d, m, _)| d == "2026-10-01" && *m == "other")
    {
        Some(entry) => entry.2 += 1,
        None => expected.push(("2026-10-01".to_owned(), "other", 1)),
    }
    expected.sort();
    assert_eq!(seen, expected);
    // The table's answers for these numbers, spelled out once.
    for market in [
        "brazil",
        "india",
        "rest_of_latin_america",
        "north_america",
        "rest_of_africa",
        "kazakhstan",
        "russia",
    ] {
        assert!(seen.iter().any(|(_, m, _)| *m == market), "{market}: {seen:?}");
    }
}

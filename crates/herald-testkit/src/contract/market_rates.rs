//! `PricingStore`'s market rate cards: Meta's rates by market and category, each card from the day it takes
//! effect, imported whole.

use super::Ports;
use crate::fixtures::at;
use chrono::NaiveDate;
use herald_domain::pricing::markets::Market;
use herald_domain::pricing::rate_file::MarketRate;
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

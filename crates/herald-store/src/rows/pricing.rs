//! Rows of `rates`.

use super::shared::*;
use herald_domain::ports::StoreError;
use herald_domain::pricing::{Currency, PricingWord, Rate};

row! {
    #[derive(Debug)]
    pub(crate) struct RateRow in rates {
        pub category: String,
        pub amount_micros: i64,
        pub currency: String,
    }
}

impl TryFrom<RateRow> for Rate {
    type Error = StoreError;

    fn try_from(row: RateRow) -> Result<Self, Self::Error> {
        Ok(Self {
            category: parse("rate category", PricingWord::parse(&row.category))?,
            micros: to_u64("rate amount", row.amount_micros)?,
            currency: parse("rate currency", Currency::parse(&row.currency))?,
        })
    }
}

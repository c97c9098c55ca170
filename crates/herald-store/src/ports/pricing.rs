//! The `PricingStore` port: rate cards, and messages counted by day and network pricing.

macro_rules! pricing_port {
    () => {
        mod pricing {
            use super::super::schema::{market_rates, messages, rates};
            use super::super::{Conn, Db};
            use async_trait::async_trait;
            use chrono::NaiveDate;
            use diesel::prelude::*;
            use diesel_async::RunQueryDsl;
            use herald_domain::ids::OrganizationId;
            use herald_domain::message::MessageStatus;
            use herald_domain::ports::{PricingStore, StoreError};
            use herald_domain::pricing::markets::Market;
            use herald_domain::pricing::rate_file::MarketRate;
            use herald_domain::pricing::{
                self, Currency, MarketRateCard, PricingWord, Rate, RateCard, UsageCount,
            };
            use herald_domain::time::Timestamp;
            use $crate::error::TxError;
            use $crate::error::{corrupt, from_diesel};
            use $crate::rows::{RateRow, stored_pricing, to_i64};

            #[async_trait]
            impl PricingStore for Db {
                async fn rate_card(&self, organization: &OrganizationId) -> Result<RateCard, StoreError> {
                    let mut conn = self.read().await?;
                    let rows = rates::table
                        .filter(rates::organization_id.eq(organization.to_string()))
                        .order(rates::category)
                        .select(RateRow::as_select())
                        .load::<RateRow>(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    Ok(RateCard {
                        rates: rows
                            .into_iter()
                            .map(Rate::try_from)
                            .collect::<Result<_, _>>()?,
                    })
                }

                async fn set_rate(
                    &self,
                    organization: &OrganizationId,
                    rate: &Rate,
                    now: Timestamp,
                ) -> Result<(), StoreError> {
                    let mut conn = self.write().await?;
                    let micros = to_i64("rate amount", rate.micros)?;
                    diesel::insert_into(rates::table)
                        .values((
                            rates::organization_id.eq(organization.to_string()),
                            rates::category.eq(rate.category.as_str()),
                            rates::amount_micros.eq(micros),
                            rates::currency.eq(rate.currency.as_str()),
                            rates::updated_at.eq(now),
                        ))
                        .on_conflict((rates::organization_id, rates::category))
                        .do_update()
                        .set((
                            rates::amount_micros.eq(micros),
                            rates::currency.eq(rate.currency.as_str()),
                            rates::updated_at.eq(now),
                        ))
                        .execute(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    Ok(())
                }

                async fn remove_rate(
                    &self,
                    organization: &OrganizationId,
                    category: &PricingWord,
                ) -> Result<bool, StoreError> {
                    let mut conn = self.write().await?;
                    let removed = diesel::delete(
                        rates::table
                            .filter(rates::organization_id.eq(organization.to_string()))
                            .filter(rates::category.eq(category.as_str())),
                    )
                    .execute(&mut *conn)
                    .await
                    .map_err(from_diesel)?;
                    Ok(removed > 0)
                }

                async fn import_market_rates(
                    &self,
                    card: &MarketRateCard,
                    now: Timestamp,
                ) -> Result<(), StoreError> {
                    let day = card.effective_from.format("%Y-%m-%d").to_string();
                    let mut rows = Vec::with_capacity(card.rates.len());
                    for rate in &card.rates {
                        rows.push((
                            market_rates::effective_from.eq(day.clone()),
                            market_rates::market.eq(rate.market.as_str()),
                            market_rates::category.eq(rate.category.as_str().to_owned()),
                            market_rates::amount_micros.eq(to_i64("rate amount", rate.micros)?),
                            market_rates::currency.eq(card.currency.as_str().to_owned()),
                            market_rates::imported_at.eq(now),
                        ));
                    }
                    write_tx!(self, |conn| {
                        diesel::delete(market_rates::table.filter(market_rates::effective_from.eq(&day)))
                            .execute(conn)
                            .await?;
                        // One statement per rate: a card holds a few hundred, and SQLite has no
                        // multi-row insert of these columns in diesel.
                        for row in &rows {
                            diesel::insert_into(market_rates::table)
                                .values(row.clone())
                                .execute(conn)
                                .await?;
                        }
                        Ok(())
                    })
                    .map_err(TxError::into_store)
                }

                async fn market_rates_on(
                    &self,
                    day: NaiveDate,
                ) -> Result<Option<MarketRateCard>, StoreError> {
                    let mut conn = self.read().await?;
                    let wanted = day.format("%Y-%m-%d").to_string();
                    let effective: Option<String> = market_rates::table
                        .filter(market_rates::effective_from.le(&wanted))
                        .select(diesel::dsl::max(market_rates::effective_from))
                        .first::<Option<String>>(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    let Some(effective) = effective else {
                        return Ok(None);
                    };
                    let rows = market_rates::table
                        .filter(market_rates::effective_from.eq(&effective))
                        .order((market_rates::market, market_rates::category))
                        .select((
                            market_rates::market,
                            market_rates::category,
                            market_rates::amount_micros,
                            market_rates::currency,
                        ))
                        .load::<(String, String, i64, String)>(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    let effective_from = NaiveDate::parse_from_str(&effective, "%Y-%m-%d")
                        .map_err(|e| corrupt("rate card day", e))?;
                    let mut currency = None;
                    let mut rates = Vec::with_capacity(rows.len());
                    for (market, category, micros, code) in rows {
                        currency = Some(Currency::parse(&code).map_err(|e| corrupt("rate currency", e))?);
                        rates.push(MarketRate {
                            market: Market::parse(&market).map_err(|e| corrupt("rate market", e))?,
                            category: PricingWord::parse(&category)
                                .map_err(|e| corrupt("rate category", e))?,
                            micros: u64::try_from(micros).map_err(|e| corrupt("rate amount", e))?,
                        });
                    }
                    Ok(currency.map(|currency| MarketRateCard {
                        effective_from,
                        currency,
                        rates,
                    }))
                }

                async fn usage_counts(
                    &self,
                    organization: &OrganizationId,
                    from: Timestamp,
                    until: Timestamp,
                ) -> Result<Vec<UsageCount>, StoreError> {
                    use super::super::schema::MESSAGE_DAY;
                    use diesel::dsl::sql;
                    use diesel::sql_types::{BigInt, Bool, Nullable, Text};
                    let mut conn = self.read().await?;
                    // One grouped query over the whole range: the day of a timestamp is the one expression
                    // written per backend (`MESSAGE_DAY`).
                    let rows = messages::table
                        .filter(messages::organization_id.eq(organization.to_string()))
                        // Cancelled before dispatch: never on the network, never billed.
                        .filter(messages::status.ne(MessageStatus::Cancelled.as_str()))
                        .filter(messages::created_at.ge(from))
                        .filter(messages::created_at.lt(until))
                        .group_by(sql::<Text>(&format!(
                            "{MESSAGE_DAY}, messages.pricing_category, messages.pricing_billable, \
                             messages.pricing_type"
                        )))
                        .select(sql::<(
                            Text,
                            Nullable<Text>,
                            Nullable<Bool>,
                            Nullable<Text>,
                            BigInt,
                        )>(&format!(
                            "{MESSAGE_DAY}, messages.pricing_category, messages.pricing_billable, \
                                 messages.pricing_type, COUNT(*)"
                        )))
                        .load::<(String, Option<String>, Option<bool>, Option<String>, i64)>(&mut *conn)
                        .await
                        .map_err(from_diesel)?;
                    let mut counts: Vec<UsageCount> = Vec::new();
                    for (day, category, billable, kind, count) in rows {
                        let day = NaiveDate::parse_from_str(&day, "%Y-%m-%d")
                            .map_err(|e| corrupt("message day", e))?;
                        let priced = stored_pricing(None, category.as_deref(), kind.as_deref(), billable)?;
                        let category = priced.as_ref().and_then(|p| p.category.clone());
                        let billable = priced.as_ref().is_none_or(pricing::billable);
                        let messages = u64::try_from(count).map_err(|e| corrupt("message count", e))?;
                        // Two stored pricings can read as one category (a type with no category, say).
                        match counts
                            .iter_mut()
                            .find(|c| c.day == day && c.category == category && c.billable == billable)
                        {
                            Some(existing) => existing.messages += messages,
                            None => counts.push(UsageCount {
                                day,
                                category,
                                billable,
                                messages,
                            }),
                        }
                    }
                    counts.sort_by(|a, b| {
                        (a.day, &a.category, a.billable).cmp(&(b.day, &b.category, b.billable))
                    });
                    Ok(counts)
                }
            }
        }
    };
}

pub(crate) use pricing_port;

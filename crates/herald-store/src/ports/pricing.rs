//! The `PricingStore` port: rate cards, and messages counted by day and network pricing.

macro_rules! pricing_port {
    () => {
        mod pricing {
            use super::super::Db;
            use super::super::schema::{messages, rates};
            use async_trait::async_trait;
            use chrono::NaiveDate;
            use diesel::prelude::*;
            use diesel_async::RunQueryDsl;
            use herald_domain::ids::OrganizationId;
            use herald_domain::message::MessageStatus;
            use herald_domain::ports::{PricingStore, StoreError};
            use herald_domain::pricing::{self, PricingWord, Rate, RateCard, UsageCount};
            use herald_domain::time::Timestamp;
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

//! The `PricingStore` port: rate cards, and messages counted by day and network pricing (issue 20).

macro_rules! pricing_port {
    () => {
        mod pricing {
            use super::super::Db;
            use super::super::schema::{messages, rates};
            use async_trait::async_trait;
            use chrono::{Duration, NaiveDate};
            use diesel::prelude::*;
            use diesel_async::RunQueryDsl;
            use herald_domain::ids::OrganizationId;
            use herald_domain::message::MessageStatus;
            use herald_domain::ports::{PricingStore, StoreError};
            use herald_domain::pricing::{self, PricingWord, Rate, RateCard, UsageCount};
            use herald_domain::time::Timestamp;
            use $crate::error::{corrupt, from_diesel};
            use $crate::rows::{RateRow, stored_pricing, to_i64};

            fn start_of(day: NaiveDate) -> Timestamp {
                day.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc()
            }

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
                    let org = organization.to_string();
                    let mut conn = self.read().await?;
                    let mut counts = Vec::new();
                    // One grouped count per UTC day: the same query on both backends (a day of a
                    // timestamp is written differently in each), over a range the use case bounds.
                    let mut day = from.date_naive();
                    while start_of(day) < until {
                        let next = day + Duration::days(1);
                        let rows = messages::table
                            .filter(messages::organization_id.eq(&org))
                            // Cancelled before dispatch: never on the network, never billed.
                            .filter(messages::status.ne(MessageStatus::Cancelled.as_str()))
                            .filter(messages::created_at.ge(start_of(day).max(from)))
                            .filter(messages::created_at.lt(start_of(next).min(until)))
                            .group_by((
                                messages::pricing_category,
                                messages::pricing_billable,
                                messages::pricing_type,
                            ))
                            .select((
                                messages::pricing_category,
                                messages::pricing_billable,
                                messages::pricing_type,
                                diesel::dsl::count_star(),
                            ))
                            .load::<(Option<String>, Option<bool>, Option<String>, i64)>(&mut *conn)
                            .await
                            .map_err(from_diesel)?;
                        let mut of_day: Vec<UsageCount> = Vec::new();
                        for (category, billable, kind, count) in rows {
                            let priced =
                                stored_pricing(None, category.as_deref(), kind.as_deref(), billable)?;
                            let category = priced.as_ref().and_then(|p| p.category.clone());
                            let billable = priced.as_ref().is_none_or(pricing::billable);
                            let messages = u64::try_from(count).map_err(|e| corrupt("message count", e))?;
                            match of_day
                                .iter_mut()
                                .find(|c| c.category == category && c.billable == billable)
                            {
                                Some(existing) => existing.messages += messages,
                                None => of_day.push(UsageCount {
                                    day,
                                    category,
                                    billable,
                                    messages,
                                }),
                            }
                        }
                        of_day.sort_by(|a, b| (&a.category, a.billable).cmp(&(&b.category, b.billable)));
                        counts.extend(of_day);
                        day = next;
                    }
                    Ok(counts)
                }
            }
        }
    };
}

pub(crate) use pricing_port;

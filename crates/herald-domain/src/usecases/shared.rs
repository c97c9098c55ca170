//! Helpers several use cases share: new ids, and recording outcomes as they come in.

use crate::ports::{IdGenerator, StoreError};
use std::future::Future;

/// Typed id constructors over the [`IdGenerator`] port.
pub(crate) fn new_id<T>(ids: &dyn IdGenerator, make: fn(ulid::Ulid) -> T) -> T {
    make(ids.next_ulid())
}

/// Herald's own cancel of a message at `now`, as every cancel (one message, a broadcast's, an erasure's)
/// hands it to the store: no network id, and no pricing (the network never saw the message).
pub(crate) fn cancel_update(
    ids: &dyn IdGenerator,
    organization: &crate::ids::OrganizationId,
    message: &crate::ids::MessageId,
    now: crate::time::Timestamp,
) -> crate::status::StatusUpdate {
    crate::status::StatusUpdate {
        organization_id: *organization,
        message_id: *message,
        report: crate::status::StatusReport {
            status: crate::message::MessageStatus::Cancelled,
            occurred_at: now,
            error: None,
        },
        network_message_id: None,
        source: crate::message::EventSource::Herald,
        event_id: new_id(ids, crate::ids::EventId::from_ulid),
        customer_event_id: new_id(ids, crate::ids::EventId::from_ulid),
        recorded_at: now,
        pricing: None,
    }
}

/// Runs a worker round's `work` (one future per claimed item, each answering its completion) concurrently,
/// and records each completion as soon as it is in, together with every other one that came in meanwhile
/// (`record`: one call, so one store transaction, per such batch, answering each completion of it with how
/// its recording went): attempts that finish together share a
/// commit, and a slow one never holds back a quick one's outcome. Answers each completion with how its
/// recording went, in the order they were recorded.
pub(crate) async fn record_as_they_come<C, W, R>(
    work: impl IntoIterator<Item = W>,
    record: impl Fn(Vec<C>) -> R,
) -> Vec<(C, Result<bool, StoreError>)>
where
    W: Future<Output = C>,
    R: Future<Output = Vec<(C, Result<bool, StoreError>)>>,
{
    use futures::StreamExt as _;
    let (done, mut arrivals) = futures::channel::mpsc::unbounded();
    let work = futures::future::join_all(work.into_iter().map(|item| {
        let done = done.clone();
        async move {
            // The receiver outlives every sender: it is only dropped when this round ends.
            let _ = done.unbounded_send(item.await);
        }
    }));
    // Once every item has answered, the channel closes and the recorder ends.
    drop(done);
    let recorder = async {
        let mut recorded = Vec::new();
        while let Some(first) = arrivals.next().await {
            let mut batch = vec![first];
            while let Ok(more) = arrivals.try_recv() {
                batch.push(more);
            }
            recorded.extend(record(batch).await);
        }
        recorded
    };
    let (_, recorded) = futures::future::join(work, recorder).await;
    recorded
}

/// Records a worker round's completions with `together` (one transaction for them all, one flag per
/// completion); when that fails, or answers the wrong number of flags, with `alone` for each, so that one
/// completion the store cannot write costs only its own job. That is safe because each completion writes
/// only under its own claim token: one already written answers `false`. Answers per completion, in order.
pub(crate) async fn record_completions<'a, C, Together, Alone>(
    completions: &'a [C],
    together: impl FnOnce(&'a [C]) -> Together,
    alone: impl Fn(&'a C) -> Alone,
) -> Vec<Result<bool, StoreError>>
where
    Together: Future<Output = Result<Vec<bool>, StoreError>>,
    Alone: Future<Output = Result<bool, StoreError>>,
{
    if completions.is_empty() {
        return Vec::new();
    }
    match together(completions).await {
        Ok(held) if held.len() == completions.len() => return held.into_iter().map(Ok).collect(),
        Ok(held) => tracing::warn!(
            completions = completions.len(),
            answers = held.len(),
            "the store answered a round's completions with the wrong number of flags; recording them \
             one by one"
        ),
        Err(error) => tracing::warn!(
            %error,
            "could not record a round's completions together; recording them one by one"
        ),
    }
    futures::future::join_all(completions.iter().map(alone)).await
}

/// Checks a page size against `1..=max` ([`crate::error::ValidationErrors`] on `limit`).
pub(crate) fn check_limit(limit: u32, max: u32) -> Result<(), crate::error::ValidationErrors> {
    if (1..=max).contains(&limit) {
        Ok(())
    } else {
        Err(crate::error::ValidationErrors::single(
            "limit",
            format!("must be between 1 and {max}"),
        ))
    }
}

/// One page out of `rows`, read with one row more than `limit`: that extra row tells whether a next page
/// exists without a count query. Answers the page and, when there is more, the last row's id as the cursor.
pub(crate) fn page_of<T, Id>(mut rows: Vec<T>, limit: u32, id: impl Fn(&T) -> Id) -> (Vec<T>, Option<Id>) {
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let has_more = rows.len() > limit;
    rows.truncate(limit);
    let next = if has_more { rows.last().map(id) } else { None };
    (rows, next)
}

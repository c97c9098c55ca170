//! Group commit: concurrent `accept` calls of one process share a few transactions, and so do the network's
//! status callbacks (`TrackingStore::store_callback_applying_status`).
//!
//! One commit per request caps durable accepts at the database's single-transaction rate (one WAL flush
//! each). Here each caller queues its prepared accept and waits for its own answer; whoever finds a writer
//! slot free becomes a leader, takes what is queued (up to [`MAX_BATCH`]) and writes it in ONE transaction
//! on a spawned task, answering every waiter only after the commit. While batches are being written the
//! next ones gather in the queue, so the batch size follows the load: one item when idle (no added wait),
//! many under load. This is leader/follower rather than a timer, so there is no fixed delay.
//!
//! Up to `writers` batches are in flight at once (several on PostgreSQL, one on SQLite, which has one
//! writer anyway): with one, every client waited on one transaction's round trips and WAL flush in turn,
//! and the machine sat idle; with a few, one batch's commit overlaps the next one's inserts.
//!
//! The batch runs on a spawned task so that a caller dropped mid-commit (a client gone) cannot abandon the
//! other callers' transaction halfway. Per-item refusals (the quota) are answered per item inside the
//! transaction; a database error fails the transaction, and then every item is retried alone so that one
//! bad item fails only itself.

use crate::rows::{CustomerEventRow, EventRow, MessageRow, quota_ceiling};
use herald_domain::Timestamp;
use herald_domain::contact::{Contact, Recipient, RecipientRefusal, SendPurpose};
use herald_domain::dispatch::StoredCallback;
use herald_domain::ports::{AcceptOutcome, AcceptRequest, OutboxJob, StoreError};
use herald_domain::status::StatusUpdate;
use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, oneshot};

/// Most accepts written in one transaction; bounds the transaction's length and lock time.
pub(crate) const MAX_BATCH: usize = 256;

/// Accepts that must be waiting before a second (third, …) batch starts beside one in flight. Fewer wait for
/// the batch in flight to commit, whose writer then takes them: on a machine with no idle CPU, many small
/// overlapping transactions cost more per accept (each commit's fixed work) than they save in waiting
/// (measured: 4 writers with no threshold cost PostgreSQL 1.4× the CPU per accept of 1 writer).
pub(crate) const OVERLAP_AT: usize = 8;

/// What a waiter receives.
pub(crate) type Answer<A> = Result<A, StoreError>;

/// A queued item and where its answer goes.
pub(crate) struct Pending<T, A = AcceptOutcome> {
    pub(crate) item: T,
    pub(crate) reply: oneshot::Sender<Answer<A>>,
}

/// The queue and the leadership of one store, for items `T` answered with `A`.
pub(crate) struct GroupCommit<T, A = AcceptOutcome> {
    queue: Mutex<Vec<Pending<T, A>>>,
    /// One permit per batch in flight, held by the task writing it until every waiter of that batch has
    /// its answer.
    writing: Arc<Semaphore>,
    writers: usize,
    /// What its batches hold, the `kind` label of `herald_group_commit_batch_size`.
    kind: &'static str,
    /// Where the batches are written: a runtime of their own, or (`None`) the caller's.
    runtime: Option<tokio::runtime::Handle>,
}

/// What a caller should do next.
pub(crate) enum Turn<T, A = AcceptOutcome> {
    /// Its answer came.
    Answered(Answer<A>),
    /// It leads: write this batch (non-empty), holding the permit until all its answers are sent.
    Lead(Vec<Pending<T, A>>, OwnedSemaphorePermit),
}

impl<T, A> Default for GroupCommit<T, A> {
    fn default() -> Self {
        Self::new(1)
    }
}

impl<T, A> GroupCommit<T, A> {
    /// A queue written by up to `writers` batches at once (at least one).
    pub(crate) fn new(writers: usize) -> Self {
        Self {
            queue: Mutex::new(Vec::new()),
            writing: Arc::new(Semaphore::new(writers.max(1))),
            writers: writers.max(1),
            kind: "accept",
            runtime: None,
        }
    }

    /// The same queue, its batches counted under `kind` in the batch-size histogram.
    pub(crate) fn of_kind(mut self, kind: &'static str) -> Self {
        self.kind = kind;
        self
    }

    /// The same queue, its batches written on `runtime` instead of the caller's.
    pub(crate) fn on_runtime(mut self, runtime: Option<tokio::runtime::Handle>) -> Self {
        self.runtime = runtime;
        self
    }

    /// Queues `item`; the receiver gets its answer.
    pub(crate) fn enqueue(&self, item: T) -> oneshot::Receiver<Answer<A>> {
        let (reply, answer) = oneshot::channel();
        self.queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Pending { item, reply });
        answer
    }

    /// Waits until either this caller's answer arrives or a writer slot is free, in which case the caller
    /// leads the next batch.
    pub(crate) async fn next_turn(&self, answer: &mut oneshot::Receiver<Answer<A>>) -> Turn<T, A> {
        let guard = tokio::select! {
            biased;
            answered = &mut *answer => return Turn::Answered(answered.unwrap_or_else(|_| Err(lost()))),
            permit = Arc::clone(&self.writing).acquire_owned() => match permit {
                Ok(permit) => permit,
                // Never closed; waiting for the answer is the safe reading.
                Err(_) => return Turn::Answered(answer.await.unwrap_or_else(|_| Err(lost()))),
            },
        };
        // A leader answers before it lets go, so the answer may already be here.
        match answer.try_recv() {
            Ok(answered) => return Turn::Answered(answered),
            Err(oneshot::error::TryRecvError::Closed) => return Turn::Answered(Err(lost())),
            Err(oneshot::error::TryRecvError::Empty) => {}
        }
        let in_flight = self.writers - self.writing.available_permits() - 1;
        if in_flight > 0 && self.queued() < OVERLAP_AT {
            // Too few wait to pay for a transaction of their own: the writer in flight takes this caller's
            // item when it commits (it looks at the queue before it lets go, and this item was queued
            // before its permit was seen held).
            drop(guard);
            return Turn::Answered(answer.await.unwrap_or_else(|_| Err(lost())));
        }
        let batch = self.take();
        if batch.is_empty() {
            // Another leader took this caller's item: it answers once that batch commits.
            drop(guard);
            return Turn::Answered(answer.await.unwrap_or_else(|_| Err(lost())));
        }
        Turn::Lead(batch, guard)
    }

    /// Answers every queued accept with `error()` (the database is unreachable: they would only wait out
    /// the same timeout again). Their callers return at once, having stored nothing.
    pub(crate) fn fail_queued(&self, error: impl Fn() -> StoreError) {
        let queued: Vec<Pending<T, A>> = self
            .queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .drain(..)
            .collect();
        for pending in queued {
            // A waiter that is gone needs no answer.
            let _ = pending.reply.send(Err(error()));
        }
    }

    /// Writes `batch` with `commit`, then whatever was queued meanwhile, until the queue is empty; only
    /// then lets go of the lead. A caller whose future was dropped after it queued (a client gone) never
    /// takes the lead itself, so without this its accept would wait for the next caller to come along.
    pub(crate) async fn write_all<F, Fut>(
        &self,
        mut batch: Vec<Pending<T, A>>,
        mut guard: OwnedSemaphorePermit,
        commit: F,
    ) where
        F: Fn(Vec<Pending<T, A>>) -> Fut,
        Fut: std::future::Future<Output = ()>,
    {
        loop {
            #[allow(clippy::cast_precision_loss, reason = "a batch is far below 2^52 accepts")]
            metrics::histogram!("herald_group_commit_batch_size", "kind" => self.kind)
                .record(batch.len() as f64);
            // Every item of the batch, and every one queued behind it, waits this long: a stalled commit (a slow
            // disk flush, a lock) shows here before it shows as a slow request.
            let started = std::time::Instant::now();
            commit(batch).await;
            metrics::histogram!("herald_group_commit_write_seconds", "kind" => self.kind)
                .record(started.elapsed().as_secs_f64());
            batch = self.take();
            if batch.is_empty() {
                drop(guard);
                // Queued after the last look, by a caller gone before it could lead: lead again.
                if self
                    .queue
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .is_empty()
                {
                    return;
                }
                guard = match Arc::clone(&self.writing).acquire_owned().await {
                    Ok(permit) => permit,
                    Err(_) => return,
                };
                batch = self.take();
                if batch.is_empty() {
                    return;
                }
            }
        }
    }

    /// Answers a batch whose transaction failed with `error`. When the database cannot be reached, retrying
    /// item by item, or letting the queued items lead a batch of their own, would make each waiter sit out
    /// the pool's connect timeout again: every one of them, queued ones too, answers `Unavailable` now,
    /// having stored nothing, and its client retries. A batch of one answers its error. Otherwise each item
    /// is written again alone by `alone`, so one bad item fails only itself.
    pub(crate) async fn answer_failed<F, Fut>(
        &self,
        mut batch: Vec<Pending<T, A>>,
        error: StoreError,
        alone: F,
    ) where
        F: Fn(T) -> Fut,
        Fut: std::future::Future<Output = Answer<A>>,
    {
        match error {
            StoreError::Unavailable(reason) => {
                for pending in batch {
                    // A waiter that is gone (its client left) needs no answer.
                    let _ = pending.reply.send(Err(StoreError::Unavailable(reason.clone())));
                }
                self.fail_queued(|| StoreError::Unavailable(reason.clone()));
            }
            error if batch.len() == 1 => {
                if let Some(pending) = batch.pop() {
                    let _ = pending.reply.send(Err(error));
                }
            }
            _ => {
                for pending in batch {
                    let answer = alone(pending.item).await;
                    let _ = pending.reply.send(answer);
                }
            }
        }
    }

    fn queued(&self) -> usize {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner).len()
    }

    fn take(&self) -> Vec<Pending<T, A>> {
        let mut queue = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
        let n = queue.len().min(MAX_BATCH);
        queue.drain(..n).collect()
    }
}

/// Writes a batch of `S`'s queue in one transaction and answers each of its waiters.
pub(crate) type Commit<S, T, A> = fn(&S, Vec<Pending<T, A>>) -> futures::future::BoxFuture<'_, ()>;

/// Queues `item` on `store`'s queue (`queue`) and waits for its answer. Whenever a writer slot is free
/// this caller leads: the batch is written by `commit` on a spawned task (then whatever queued meanwhile),
/// so a caller dropped mid-commit cannot abandon the others' transaction.
pub(crate) async fn submit<S, T, A>(
    store: &Arc<S>,
    queue: fn(&S) -> &GroupCommit<T, A>,
    item: T,
    commit: Commit<S, T, A>,
) -> Answer<A>
where
    S: Send + Sync + 'static,
    T: Send + 'static,
    A: Send + 'static,
{
    let mut answer = queue(store).enqueue(item);
    loop {
        match queue(store).next_turn(&mut answer).await {
            Turn::Answered(answered) => return answered,
            Turn::Lead(batch, guard) => {
                let runtime = queue(store).runtime.clone();
                let store = Arc::clone(store);
                let write = async move {
                    queue(&store)
                        .write_all(batch, guard, |batch| commit(&store, batch))
                        .await;
                };
                match runtime {
                    Some(runtime) => drop(runtime.spawn(write)),
                    None => drop(tokio::spawn(write)),
                }
            }
        }
    }
}

/// The batch task ended without answering (the runtime shut down mid-commit): the outcome is unknown.
fn lost() -> StoreError {
    StoreError::Unavailable("the commit was interrupted; its outcome is unknown".to_owned())
}

/// A network callback's write, in whichever transaction its batch leader writes: the network's usual
/// callback, one status report, arrives several at once under load, and one commit for a few of them costs
/// the database far less than a commit each (docs/benchmarks-history.md, "Callbacks group-committed, with a
/// bound of their own"). A burst's excess, stored first and processed after its answer, takes the same
/// batches for both steps, so it costs little more than the rest.
pub(crate) struct PreparedCallback {
    pub(crate) write: CallbackWrite,
    /// When it is processed (its status applied).
    pub(crate) at: Timestamp,
}

/// What a queued callback writes.
pub(crate) enum CallbackWrite {
    /// Store the callback and apply its status; it is processed when the status applied.
    StoreApplying {
        callback: StoredCallback,
        update: StatusUpdate,
    },
    /// Apply the status of a callback stored before, and mark it processed when the status applied.
    Marking {
        callback: herald_domain::ids::EventId,
        update: StatusUpdate,
    },
    /// Store the callback, unprocessed.
    Store(StoredCallback),
}

impl PreparedCallback {
    /// The status report it applies, if any.
    pub(crate) fn update(&self) -> Option<&StatusUpdate> {
        match &self.write {
            CallbackWrite::StoreApplying { update, .. } | CallbackWrite::Marking { update, .. } => {
                Some(update)
            }
            CallbackWrite::Store(_) => None,
        }
    }
}

/// An accept with its rows built, ready to be written by whichever caller leads.
pub(crate) struct PreparedAccept {
    pub(crate) message: MessageRow,
    pub(crate) event: EventRow,
    /// The customer event the acceptance emits (a scheduled message's `scheduled`), if any.
    pub(crate) customer_event: Option<CustomerEventRow>,
    pub(crate) job: OutboxJob,
    pub(crate) period: String,
    pub(crate) ceiling: i64,
    pub(crate) now: Timestamp,
    pub(crate) idempotency_key: Option<String>,
    /// The token of the request's idempotency claim (with `idempotency_key`).
    pub(crate) idempotency_token: Option<String>,
    /// The recipient and the send's purpose, when its contact may refuse it
    /// (`AcceptRequest::recipient_check`).
    pub(crate) recipient_check: Option<(Recipient, SendPurpose)>,
}

impl PreparedAccept {
    pub(crate) fn new(request: &AcceptRequest) -> Result<Self, StoreError> {
        Ok(Self {
            message: MessageRow {
                trace_context: request.job.trace.as_ref().map(|t| t.as_str().to_owned()),
                ..MessageRow::new(&request.message)?
            },
            event: EventRow::new(&request.event)?,
            customer_event: request
                .customer_event
                .as_ref()
                .map(|event| CustomerEventRow::new(event, request.job.trace.as_ref()))
                .transpose()?,
            job: request.job.clone(),
            period: request.quota.period.as_str().to_owned(),
            ceiling: quota_ceiling(request.quota.limit),
            now: request.message.created_at,
            idempotency_key: request.idempotency.as_ref().map(|h| h.key.as_str().to_owned()),
            idempotency_token: request.idempotency.as_ref().map(|h| h.token.as_string()),
            recipient_check: request
                .recipient_check
                .map(|purpose| (request.message.to.clone(), purpose)),
        })
    }
}

/// Whom a batch's recipient checks read: the organizations, numbers and user ids of the items that ask for
/// the check (`PreparedAccept::recipient_check`); `None` when none asks, so nothing is read.
pub(crate) struct RecipientKeys<'a> {
    pub(crate) organizations: Vec<&'a str>,
    /// The person keys of the numbers (`PhoneNumber::person_key`), as contacts are found by.
    pub(crate) numbers: Vec<String>,
    pub(crate) users: Vec<&'a str>,
}

impl<'a> RecipientKeys<'a> {
    pub(crate) fn of(items: &[&'a PreparedAccept]) -> Option<Self> {
        let checked = || {
            items
                .iter()
                .filter_map(|item| item.recipient_check.as_ref().map(|check| (*item, check)))
        };
        checked().next()?;
        let mut organizations: Vec<&str> = checked()
            .map(|(item, _)| item.message.organization_id.as_str())
            .collect();
        organizations.sort_unstable();
        organizations.dedup();
        let numbers = checked()
            .filter_map(|(_, (to, _))| match to {
                Recipient::Number(number) => Some(number.person_key().as_str().to_owned()),
                Recipient::User(_) | Recipient::Erased(_) => None,
            })
            .collect();
        let users = checked()
            .filter_map(|(_, (to, _))| match to {
                Recipient::User(user) => Some(user.as_str()),
                Recipient::Number(_) | Recipient::Erased(_) => None,
            })
            .collect();
        Some(Self {
            organizations,
            numbers,
            users,
        })
    }
}

/// The query of the contacts among a batch's [`RecipientKeys`] that refuse something: only those, since
/// most recipients have none, so most batches read no row. Expanded where the store's `contacts` schema and
/// `ContactRow` are in scope (one text for both stores).
macro_rules! refusing_contacts {
    ($keys:expr) => {{
        let keys: $crate::group_commit::RecipientKeys<'_> = $keys;
        contacts::table
            .filter(contacts::organization_id.eq_any(keys.organizations))
            .filter(
                contacts::number_key
                    .eq_any(keys.numbers)
                    .or(contacts::user_id.eq_any(keys.users)),
            )
            .filter(contacts::blocked.eq(true).or(contacts::marketing.eq("stopped")))
            .select(ContactRow::as_select())
    }};
}
pub(crate) use refusing_contacts;

/// The first refusal each item's recipient gives its send, among `found`: the contacts read for the batch's
/// [`RecipientKeys`] that refuse something (blocked; marketing stopped).
pub(crate) fn recipient_refusals_among(
    items: &[&PreparedAccept],
    found: &[Contact],
) -> Vec<Option<RecipientRefusal>> {
    items
        .iter()
        .map(|item| {
            let (to, purpose) = item.recipient_check.as_ref()?;
            let contact = found.iter().find(|contact| {
                contact.organization_id.to_string() == item.message.organization_id
                    && match to {
                        Recipient::Number(number) => contact
                            .number
                            .as_ref()
                            .is_some_and(|known| known.same_person(number)),
                        Recipient::User(user) => contact.user_id.as_ref() == Some(user),
                        Recipient::Erased(_) => false,
                    }
            })?;
            RecipientRefusal::all_for(contact, *purpose).into_iter().next()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::*;

    #[tokio::test]
    async fn an_item_whose_caller_is_gone_is_written_by_the_leader() {
        let group = Arc::new(GroupCommit::<u32>::default());
        let mut first = group.enqueue(1);
        let Turn::Lead(batch, guard) = group.next_turn(&mut first).await else {
            panic!("the only caller leads");
        };
        let (started, wait_started) = oneshot::channel::<()>();
        let (release, released) = oneshot::channel::<()>();
        let started = Mutex::new(Some(started));
        let released = tokio::sync::Mutex::new(Some(released));
        let written = Arc::new(Mutex::new(Vec::new()));
        let leader = {
            let group = Arc::clone(&group);
            let written = Arc::clone(&written);
            tokio::spawn(async move {
                let group_ref = &group;
                group_ref
                    .write_all(batch, guard, |batch: Vec<Pending<u32>>| {
                        let written = Arc::clone(&written);
                        let started = started.lock().unwrap().take();
                        let released = &released;
                        async move {
                            if let Some(started) = started {
                                started.send(()).unwrap();
                                released.lock().await.take().unwrap().await.unwrap();
                            }
                            for pending in batch {
                                written.lock().unwrap().push(pending.item);
                                let _ = pending.reply.send(Ok(AcceptOutcome::Accepted));
                            }
                        }
                    })
                    .await;
            })
        };
        wait_started.await.unwrap();
        // A second caller queues while the first batch is being written, then goes away.
        drop(group.enqueue(2));
        release.send(()).unwrap();
        leader.await.unwrap();
        assert_eq!(*written.lock().unwrap(), [1, 2]);
        assert!(first.try_recv().unwrap().is_ok());
        assert!(group.take().is_empty());
    }

    /// While one batch is in flight, `queued` more accepts arrive: the first of them leads them all (its
    /// batch), or `None` when it is still waiting after a while.
    async fn second_turn(writers: usize, queued: u32) -> (Vec<u32>, Option<Vec<u32>>) {
        let group = GroupCommit::<u32>::new(writers);
        let mut first = group.enqueue(0);
        let Turn::Lead(batch, _writing) = group.next_turn(&mut first).await else {
            panic!("the only caller leads");
        };
        let mut answers: Vec<_> = (1..=queued).map(|i| group.enqueue(i)).collect();
        let turn = tokio::time::timeout(
            std::time::Duration::from_millis(200),
            group.next_turn(&mut answers[0]),
        )
        .await;
        let led = match turn {
            Ok(Turn::Lead(batch, _)) => Some(batch.into_iter().map(|p| p.item).collect()),
            Ok(Turn::Answered(_)) => panic!("nobody answered the second caller"),
            Err(_) => None,
        };
        (batch.into_iter().map(|p| p.item).collect(), led)
    }

    #[tokio::test]
    async fn with_two_writers_a_second_batch_is_written_while_the_first_is_in_flight() {
        let queued = u32::try_from(OVERLAP_AT).unwrap();
        assert_eq!(
            second_turn(2, queued).await,
            (vec![0], Some((1..=queued).collect()))
        );
    }

    #[tokio::test]
    async fn a_second_batch_waits_for_the_first_while_few_accepts_wait() {
        let queued = u32::try_from(OVERLAP_AT).unwrap() - 1;
        assert_eq!(second_turn(2, queued).await, (vec![0], None));
    }

    #[tokio::test]
    async fn with_one_writer_the_second_batch_waits_for_the_first() {
        let queued = u32::try_from(OVERLAP_AT).unwrap();
        assert_eq!(second_turn(1, queued).await, (vec![0], None));
    }

    #[test]
    fn failing_the_queue_answers_every_waiter_and_empties_it() {
        let group = GroupCommit::<u32>::default();
        let mut first = group.enqueue(1);
        let mut second = group.enqueue(2);

        group.fail_queued(|| StoreError::Unavailable("down".into()));

        for answer in [&mut first, &mut second] {
            assert!(matches!(
                answer.try_recv().unwrap(),
                Err(StoreError::Unavailable(_))
            ));
        }
        assert!(group.take().is_empty());
    }
}

//! Webhook callbacks: envelope builders and the background dispatcher that signs and posts them.

use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use rand::Rng as _;
use rand::seq::SliceRandom as _;
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

use crate::wire;

/// Delivery attempts per callback before it is given up (Meta retries for days; tests need seconds).
const ATTEMPTS: u32 = 5;
/// First retry delay; doubled after every failed attempt.
const FIRST_BACKOFF: Duration = Duration::from_millis(200);
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// A status the simulated network reports for a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    Sent,
    Delivered,
    Read,
    /// `failed` with 131026 (message undeliverable).
    Undeliverable,
}

impl Step {
    fn name(self) -> &'static str {
        match self {
            Step::Sent => "sent",
            Step::Delivered => "delivered",
            Step::Read => "read",
            Step::Undeliverable => "failed",
        }
    }
}

/// Per-message pricing as PMP status webhooks carry it.
#[derive(Debug, Clone)]
pub(crate) struct Pricing {
    pub(crate) billable: bool,
    pub(crate) kind: &'static str,
    pub(crate) category: String,
}

/// The first day Meta charges service messages and utility templates inside an open customer service
/// window (docs/cloud-api.md §6.1); before it, from 2025-07-01, both were free there.
const IN_WINDOW_CHARGED_FROM: (i32, u32, u32) = (2026, 10, 1);

impl Pricing {
    /// How Meta prices a message sent on `day`: a template (`template_category`) in its category, a
    /// free-form message as `service`; free inside the open service window (`free_customer_service`)
    /// until [`IN_WINDOW_CHARGED_FROM`] for service messages and utility templates, charged (`regular`)
    /// otherwise.
    pub(crate) fn of_send(
        template_category: Option<&str>,
        window_open: bool,
        day: chrono::NaiveDate,
    ) -> Self {
        let category = template_category.map_or_else(|| "service".to_owned(), str::to_ascii_lowercase);
        let (year, month, date) = IN_WINDOW_CHARGED_FROM;
        let in_window_charged =
            chrono::NaiveDate::from_ymd_opt(year, month, date).is_some_and(|from| day >= from);
        let free = (category == "service" || (category == "utility" && window_open)) && !in_window_charged;
        Self {
            billable: !free,
            kind: if free { "free_customer_service" } else { "regular" },
            category,
        }
    }
}

/// Everything needed to report the statuses of one accepted message.
#[derive(Debug, Clone)]
pub(crate) struct StatusPlan {
    pub(crate) waba_id: String,
    pub(crate) display_phone_number: String,
    pub(crate) phone_number_id: String,
    pub(crate) wamid: String,
    pub(crate) recipient_id: String,
    /// The business-scoped user id a message was sent to (`recipient_user_id`), when it was sent to one.
    pub(crate) recipient_user_id: Option<String>,
    pub(crate) biz_opaque_callback_data: Option<String>,
    pub(crate) pricing: Pricing,
    pub(crate) steps: Vec<Step>,
}

impl StatusPlan {
    /// The envelope for one step, stamped with the current time.
    fn envelope(&self, step: Step) -> Value {
        let mut status = json!({
            "id": self.wamid,
            "status": step.name(),
            "timestamp": wire::timestamp_now(),
            "recipient_id": self.recipient_id,
        });
        if let Some(map) = status.as_object_mut() {
            if let Some(user) = &self.recipient_user_id {
                map.insert("recipient_user_id".to_owned(), json!(user));
            }
            if let Some(data) = &self.biz_opaque_callback_data {
                map.insert("biz_opaque_callback_data".to_owned(), json!(data));
            }
            if step == Step::Undeliverable {
                map.insert(
                    "errors".to_owned(),
                    json!([{
                        "code": 131026,
                        "title": "Message undeliverable",
                        "message": "Message undeliverable",
                        "error_data": { "details": "Message Undeliverable." },
                        "href": "https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/",
                    }]),
                );
            } else {
                map.insert(
                    "pricing".to_owned(),
                    json!({
                        "billable": self.pricing.billable,
                        "pricing_model": "PMP",
                        "type": self.pricing.kind,
                        "category": self.pricing.category,
                    }),
                );
            }
        }
        envelope(
            &self.waba_id,
            &self.display_phone_number,
            &self.phone_number_id,
            "statuses",
            json!([status]),
            None,
        )
    }
}

/// An inbound message envelope of docs/cloud-api.md §4.3: `kind` is the message `type` and `fields` the
/// message's other fields (its object under the `kind` key, plus `context`, `referral` or `errors`).
#[allow(
    clippy::too_many_arguments,
    reason = "one flat envelope; a struct would only rename the fields"
)]
pub(crate) fn inbound_envelope(
    waba_id: &str,
    display_phone_number: &str,
    phone_number_id: &str,
    from: &str,
    profile_name: &str,
    wamid: &str,
    kind: &str,
    fields: serde_json::Map<String, Value>,
) -> Value {
    let contacts = json!([{ "profile": { "name": profile_name }, "wa_id": from }]);
    let mut message = json!({
        "from": from,
        "id": wamid,
        "timestamp": wire::timestamp_now(),
        "type": kind,
    });
    if let Some(map) = message.as_object_mut() {
        map.extend(fields);
    }
    envelope(
        waba_id,
        display_phone_number,
        phone_number_id,
        "messages",
        json!([message]),
        Some(contacts),
    )
}

fn envelope(
    waba_id: &str,
    display_phone_number: &str,
    phone_number_id: &str,
    key: &str,
    items: Value,
    contacts: Option<Value>,
) -> Value {
    let mut value = json!({
        "messaging_product": "whatsapp",
        "metadata": {
            "display_phone_number": display_phone_number,
            "phone_number_id": phone_number_id,
        },
    });
    if let Some(map) = value.as_object_mut() {
        if let Some(contacts) = contacts {
            map.insert("contacts".to_owned(), contacts);
        }
        map.insert(key.to_owned(), items);
    }
    json!({
        "object": "whatsapp_business_account",
        "entry": [{
            "id": waba_id,
            "changes": [{ "value": value, "field": "messages" }],
        }],
    })
}

/// Work for the dispatcher thread.
enum Job {
    Statuses {
        /// Boxed: a plan is several times the size of the other jobs.
        plan: Box<StatusPlan>,
        delay_ms: (u64, u64),
        duplicate: bool,
        reorder: bool,
    },
    Inbound {
        envelope: Value,
        done: oneshot::Sender<bool>,
    },
    Later {
        envelope: Value,
        delay_ms: u64,
    },
}

struct Context {
    client: reqwest::Client,
    app_secret: String,
    callback_url: Arc<RwLock<Option<String>>>,
}

/// Posts callbacks from a thread of its own, so deliveries neither depend on nor outlive the runtime
/// of whichever server received the request; it stops when the simulator is dropped.
pub(crate) struct Dispatcher {
    jobs: Option<mpsc::UnboundedSender<Job>>,
}

impl Dispatcher {
    pub(crate) fn start(app_secret: String, callback_url: Arc<RwLock<Option<String>>>) -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        let spawned = std::thread::Builder::new()
            .name("simulator-callbacks".to_owned())
            .spawn(move || run(app_secret, callback_url, rx));
        match spawned {
            Ok(_) => Self { jobs: Some(tx) },
            Err(error) => {
                tracing::error!(%error, "simulator: cannot start the callback thread; callbacks are off");
                Self { jobs: None }
            }
        }
    }

    /// Schedules the status reports of an accepted message.
    pub(crate) fn statuses(&self, plan: StatusPlan, delay_ms: (u64, u64), duplicate: bool, reorder: bool) {
        self.send(Job::Statuses {
            plan: Box::new(plan),
            delay_ms,
            duplicate,
            reorder,
        });
    }

    /// Delivers an inbound envelope now; resolves to whether the callback URL accepted it.
    pub(crate) async fn inbound(&self, envelope: Value) -> bool {
        let (done, result) = oneshot::channel();
        self.send(Job::Inbound { envelope, done });
        result.await.unwrap_or(false)
    }

    /// Delivers an envelope once `delay_ms` have passed (a template review's outcome).
    pub(crate) fn later(&self, envelope: Value, delay_ms: u64) {
        self.send(Job::Later { envelope, delay_ms });
    }

    fn send(&self, job: Job) {
        if let Some(jobs) = &self.jobs
            && jobs.send(job).is_err()
        {
            tracing::warn!("simulator: the callback thread has stopped; callback dropped");
        }
    }
}

fn run(
    app_secret: String,
    callback_url: Arc<RwLock<Option<String>>>,
    mut jobs: mpsc::UnboundedReceiver<Job>,
) {
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            tracing::error!(%error, "simulator: cannot build the callback runtime");
            return;
        }
    };
    let client = match reqwest::Client::builder().timeout(REQUEST_TIMEOUT).build() {
        Ok(client) => client,
        Err(error) => {
            tracing::error!(%error, "simulator: cannot build the callback HTTP client");
            return;
        }
    };
    let context = Arc::new(Context {
        client,
        app_secret,
        callback_url,
    });
    runtime.block_on(async move {
        while let Some(job) = jobs.recv().await {
            tokio::spawn(handle(Arc::clone(&context), job));
        }
    });
}

async fn handle(context: Arc<Context>, job: Job) {
    match job {
        Job::Inbound { envelope, done } => {
            let delivered = deliver(&context, &envelope).await;
            let _ = done.send(delivered);
        }
        Job::Later { envelope, delay_ms } => {
            tokio::time::sleep(Duration::from_millis(delay_ms)).await;
            deliver(&context, &envelope).await;
        }
        Job::Statuses {
            plan,
            delay_ms,
            duplicate,
            reorder,
        } => {
            let (steps, delays) = schedule(&plan.steps, delay_ms, duplicate, reorder);
            for (step, delay) in steps.into_iter().zip(delays) {
                tokio::time::sleep(Duration::from_millis(delay)).await;
                deliver(&context, &plan.envelope(step)).await;
            }
        }
    }
}

/// The order and spacing of a message's reports; done up front because the RNG is not `Send`.
fn schedule(
    steps: &[Step],
    (low, high): (u64, u64),
    duplicate: bool,
    reorder: bool,
) -> (Vec<Step>, Vec<u64>) {
    let mut rng = rand::rng();
    let mut order: Vec<Step> = if duplicate {
        steps.iter().flat_map(|s| [*s, *s]).collect()
    } else {
        steps.to_vec()
    };
    if reorder {
        order.shuffle(&mut rng);
    }
    let (low, high) = (low.min(high), low.max(high));
    let delays = order.iter().map(|_| rng.random_range(low..=high)).collect();
    (order, delays)
}

/// Posts one signed, ASCII-escaped envelope, retrying with backoff on errors and non-2xx answers.
async fn deliver(context: &Context, envelope: &Value) -> bool {
    let url = context
        .callback_url
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    let Some(url) = url else {
        tracing::debug!("simulator: no callback URL; callback dropped");
        return false;
    };
    let body = wire::ascii_json(envelope);
    let signature = wire::signature(&context.app_secret, &body);
    let mut backoff = FIRST_BACKOFF;
    for attempt in 1..=ATTEMPTS {
        let result = context
            .client
            .post(&url)
            .header("Content-Type", "application/json")
            .header("X-Hub-Signature-256", &signature)
            .body(body.clone())
            .send()
            .await;
        match result {
            Ok(response) if response.status().is_success() => return true,
            Ok(response) => {
                tracing::warn!(status = %response.status(), attempt, "simulator: callback refused");
            }
            Err(error) => tracing::warn!(%error, attempt, "simulator: callback failed"),
        }
        if attempt < ATTEMPTS {
            tokio::time::sleep(backoff).await;
            backoff = backoff.saturating_mul(2);
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_duplicates_and_keeps_delays_in_bounds() {
        let (order, delays) = schedule(&[Step::Sent, Step::Delivered], (5, 9), true, false);
        assert_eq!(order, [Step::Sent, Step::Sent, Step::Delivered, Step::Delivered]);
        assert!(delays.iter().all(|d| (5..=9).contains(d)));
        let (reordered, _) = schedule(&[Step::Sent, Step::Delivered, Step::Read], (0, 0), false, true);
        assert_eq!(reordered.len(), 3);
        for step in [Step::Sent, Step::Delivered, Step::Read] {
            assert!(reordered.contains(&step));
        }
    }

    fn priced(category: Option<&str>, window_open: bool, day: &str) -> (bool, &'static str, String) {
        let day = chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d").unwrap();
        let pricing = Pricing::of_send(category, window_open, day);
        (pricing.billable, pricing.kind, pricing.category)
    }

    #[test]
    fn service_and_in_window_utility_are_free_until_2026_09_30_and_charged_from_2026_10_01() {
        let free = |category: &str| (false, "free_customer_service", category.to_owned());
        let charged = |category: &str| (true, "regular", category.to_owned());
        assert_eq!(priced(None, true, "2026-09-30"), free("service"));
        assert_eq!(priced(None, true, "2026-10-01"), charged("service"));
        assert_eq!(priced(Some("UTILITY"), true, "2026-09-30"), free("utility"));
        assert_eq!(priced(Some("UTILITY"), true, "2026-10-01"), charged("utility"));
        assert_eq!(priced(Some("UTILITY"), false, "2026-09-30"), charged("utility"));
        assert_eq!(
            priced(Some("MARKETING"), true, "2026-09-30"),
            charged("marketing")
        );
    }
}

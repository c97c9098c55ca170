//! Dispatch throughput: accepted → submitted through the real Cloud API client and the simulator (limit
//! 1,000 messages/s per sender), over 1, 2 and 8 senders (the simulator's two seeded ones plus six extra
//! ones, `simulator_extra_senders`), on each store.
//! Then the callback backlog sweep: stored status callbacks worked off by the sweep, against the same
//! callbacks processed one at a time as the sweep did before.
//! Run with `make bench`; appends its sections to `docs/benchmarks.md` when `HERALD_BENCH_REPORT` names a
//! file. `HERALD_BENCH_ONLY=backlog` runs the backlog section alone.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a benchmark fails loudly"
)]

#[path = "support/cpu.rs"]
mod cpu;
#[path = "../support/network.rs"]
mod network;

use cpu::CpuTimes;
use herald_app::config::Settings;
use herald_app::{Application, Services};
use herald_domain::ids::{EventId, JobId, MessageId, OrganizationId};
use herald_domain::message::{EventSource, Message, MessageContent, MessageStatus, StatusEvent};
use herald_domain::organization::{PlanName, SenderNumber};
use herald_domain::ports::{AcceptRequest, MessageQuery, OutboxJob, QuotaCharge};
use herald_domain::template::{LanguageCode, TemplateName, TemplateRef, TemplateVariables};
use herald_domain::time::BillingPeriod;
use herald_domain::values::{DisplayName, PhoneNumber};
use network::{add_sender, status_callback};
use std::time::{Duration, Instant};

const PER_SENDER: u64 = 3_000;
const RUNS: usize = 3;
/// Sender counts measured: one, the simulator's two seeded ones, and eight (P3's aggregate target is over eight).
const SENDERS: [usize; 3] = [1, 2, 8];

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut lines = vec![
        "## P3 dispatch (accepted → submitted)".to_owned(),
        String::new(),
        format!(
            "Command: `make bench` (`cargo bench -p herald-tests --bench dispatch`). {PER_SENDER} queued messages per sender, simulator limit 1,000/s per sender, one worker process (2 dispatch loops), median of {RUNS} runs (min–max)."
        ),
        String::new(),
        "| store | senders | messages/s (median) | min | max | per sender |".to_owned(),
        "|---|---|---|---|---|---|".to_owned(),
    ];
    let backlog_only = std::env::var("HERALD_BENCH_ONLY").is_ok_and(|only| only == "backlog");
    for store in stores() {
        for senders in SENDERS.into_iter().filter(|_| !backlog_only) {
            let mut rates: Vec<f64> = (0..RUNS).map(|_| runtime.block_on(run(store, senders))).collect();
            rates.sort_by(f64::total_cmp);
            let median = rates[RUNS / 2];
            let line = format!(
                "| {store} | {senders} | {median:.0} | {:.0} | {:.0} | {:.0} |",
                rates[0],
                rates[RUNS - 1],
                median / senders as f64
            );
            println!("{line}");
            lines.push(line);
        }
    }
    if backlog_only {
        lines.clear();
    }
    lines.extend(backlog_section(&runtime));
    if let Ok(path) = std::env::var("HERALD_BENCH_REPORT") {
        use std::io::Write;
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .unwrap();
        writeln!(file, "{}\n", lines.join("\n")).unwrap();
    }
}

/// The stores measured: SQLite, and PostgreSQL when a test database is configured.
fn stores() -> Vec<&'static str> {
    let mut stores = vec!["sqlite"];
    if std::env::var(herald_store::testing::DATABASE_URL_ENV).is_ok() {
        stores.push("postgres");
    }
    stores
}

async fn fresh_store(store: &str) -> (herald_store::Store, herald_store::testing::Guard) {
    match store {
        "sqlite" => herald_store::testing::fresh_sqlite().await.unwrap(),
        _ => herald_store::testing::fresh_postgres().await.unwrap().unwrap(),
    }
}

/// One run: a fresh store, `senders` senders with `PER_SENDER` queued messages each; returns messages/s.
async fn run(store: &str, senders: usize) -> f64 {
    let (store, guard) = fresh_store(store).await;
    let services = Services::with_store(store);
    let mut settings = Settings::default();
    settings.server.listen = "127.0.0.1:0".into();
    settings.server.http_workers = 1;
    settings.simulator.callback_delay_min_ms = 20;
    settings.simulator.callback_delay_max_ms = 200;
    settings.simulator.extra_senders = extra_senders();
    let api = Application::build(&settings, &services, herald_app::cli::Role::Api).unwrap();
    let base = format!("http://127.0.0.1:{}", api.port().unwrap());

    let org = new_org(&services).await;
    let extra = herald_simulator::extra_senders(extra_senders());
    let numbers: Vec<(&str, &str)> = herald_simulator::seeded_senders()
        .iter()
        .map(|s| (s.display_phone_number, s.phone_number_id))
        .chain(
            extra
                .iter()
                .map(|s| (s.display_phone_number.as_str(), s.phone_number_id.as_str())),
        )
        .collect();
    assert!(numbers.len() >= senders, "the simulator serves too few senders");
    for (number, pnid) in numbers.iter().take(senders) {
        let sender = add_sender(&services, &org, number, pnid, false, 1_000).await;
        queue(&services, &sender, PER_SENDER).await;
    }
    let total = PER_SENDER * senders as u64;

    let mut worker_settings = settings.clone();
    worker_settings.store.database_url = guard.database_url().to_owned();
    worker_settings.simulator.url = Some(format!("{base}/simulator"));
    // Worker processes on PostgreSQL need the key that seals access tokens (none are stored here).
    worker_settings.store.encryption_key =
        Some("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=".to_owned().into());
    let worker_services = Services::connect(&worker_settings).await.unwrap();
    let started = Instant::now();
    let worker =
        Application::build(&worker_settings, &worker_services, herald_app::cli::Role::Worker).unwrap();
    let waiting = MessageQuery {
        status: Some(MessageStatus::Accepted),
        limit: 1,
        ..MessageQuery::default()
    };
    // The bench's own look at the queue shares the API's pool: on a saturated machine it may wait past the
    // pool's timeout (seen with 8 senders on PostgreSQL on a slow machine), which says nothing about the
    // dispatch, so it looks again.
    let mut unanswered = 0;
    loop {
        match services.store.messages().messages(&org, &waiting).await {
            Ok(left) if left.is_empty() => break,
            Ok(_) => {}
            Err(error) => {
                unanswered += 1;
                eprintln!("the bench's look at the queue was not answered ({error}); looking again");
            }
        }
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "dispatch did not drain"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    if unanswered > 0 {
        eprintln!("{unanswered} looks at the queue went unanswered in this run ({senders} senders)");
    }
    let rate = total as f64 / started.elapsed().as_secs_f64();
    // Stop this run's processes before the next run starts, so runs do not load each other.
    worker.stop().await;
    api.stop().await;
    drop(guard);
    rate
}

/// A new organization on the enterprise plan.
async fn new_org(services: &Services) -> OrganizationId {
    services
        .admin()
        .create_organization(
            DisplayName::parse("Bench").unwrap(),
            PlanName::parse("enterprise").unwrap(),
            None,
        )
        .await
        .unwrap()
        .id
}

/// The senders the simulator must serve beside its two seeded ones for the largest run.
fn extra_senders() -> u32 {
    let most = SENDERS.iter().copied().max().unwrap_or(1);
    u32::try_from(most.saturating_sub(herald_simulator::seeded_senders().len())).unwrap()
}

async fn queue(services: &Services, sender: &SenderNumber, count: u64) {
    let messages = services.store.messages();
    let now = chrono::Utc::now();
    let requests: Vec<AcceptRequest> = (0..count)
        .map(|i| {
            let message = Message::accepted(
                MessageId::from_ulid(services.ids.next_ulid()),
                sender.organization_id,
                (sender.id, sender.number.clone()),
                PhoneNumber::parse(&format!("+1555{:07}", i)).unwrap(),
                MessageContent::Template {
                    template: TemplateRef {
                        name: TemplateName::parse("hello_world").unwrap(),
                        language: LanguageCode::parse("en_US").unwrap(),
                    },
                    variables: TemplateVariables::default(),
                },
                None,
                now,
            );
            AcceptRequest {
                recipient_check: None,
                customer_event: None,
                event: StatusEvent {
                    id: EventId::from_ulid(services.ids.next_ulid()),
                    organization_id: sender.organization_id,
                    message_id: message.id,
                    status: MessageStatus::Accepted,
                    previous_status: None,
                    applied: true,
                    source: EventSource::Herald,
                    error: None,
                    occurred_at: now,
                    recorded_at: now,
                },
                job: OutboxJob {
                    id: JobId::from_ulid(services.ids.next_ulid()),
                    organization_id: sender.organization_id,
                    message_id: message.id,
                    sender_id: sender.id,
                    available_at: now,
                    deadline: now + chrono::TimeDelta::hours(24),
                    trace: None,
                },
                quota: QuotaCharge {
                    period: BillingPeriod::containing(now),
                    limit: None,
                },
                idempotency: None,
                message,
            }
        })
        .collect();
    for chunk in requests.chunks(4) {
        for outcome in futures::future::join_all(chunk.iter().map(|r| messages.accept(r))).await {
            outcome.unwrap();
        }
    }
}

/// Messages whose status callbacks make the backlog; each has three (`sent`, `delivered`, `read`).
const BACKLOG_MESSAGES: u64 = 1_000;
const BACKLOG_PHONE_NUMBER_ID: &str = "7000001";

/// The backlog section: callbacks per second worked off by the sweep and, in the same runs, by the sweep's
/// former way (one callback after the other), with this process's and PostgreSQL's CPU per callback.
fn backlog_section(runtime: &tokio::runtime::Runtime) -> Vec<String> {
    let mut lines = vec![
        "## Callback backlog sweep".to_owned(),
        String::new(),
        format!(
            "Command: `make bench` (`cargo bench -p herald-tests --bench dispatch`). {} stored status callbacks \
             ({BACKLOG_MESSAGES} messages, each `sent`, then `delivered`, then `read`, in that order of arrival) \
             worked off until none is left: by the worker's sweep (`herald_app::workers::sweep_callbacks`: pages \
             of 100, each in waves of distinct messages applied together) and, alternated with it in each run, one \
             callback after the other as the sweep did before (`ProcessCallbacks::process` on each). Each run on \
             a fresh database; median of {RUNS} runs (min–max). CPU per callback from /proc: this process (Herald's \
             store and use cases) and every PostgreSQL process; idle: the machine's idle share meanwhile; steal: the \
             share the host gave to others meanwhile (a run with steal was slowed by the host, not by Herald).",
            BACKLOG_MESSAGES * 3
        ),
        String::new(),
        "| store | way | callbacks/s (median) | min | max | CPU per callback, µs (this process / PostgreSQL) | machine idle | steal |"
            .to_owned(),
        "|---|---|---|---|---|---|---|---|".to_owned(),
    ];
    for store in stores() {
        let mut figures: [Vec<BacklogRun>; 2] = [Vec::new(), Vec::new()];
        for _ in 0..RUNS {
            for (way, runs) in figures.iter_mut().enumerate() {
                runs.push(runtime.block_on(backlog_run(store, way == 1)));
            }
        }
        for (way, mut runs) in figures.into_iter().enumerate() {
            runs.sort_by(|a, b| a.0.total_cmp(&b.0));
            let (rate, own, pg, idle, steal) = runs[RUNS / 2];
            let line = format!(
                "| {store} | {} | {rate:.0} | {:.0} | {:.0} | {own:.0} / {pg:.0} | {:.0} % | {:.1} % |",
                if way == 1 {
                    "the sweep"
                } else {
                    "one at a time (before)"
                },
                runs[0].0,
                runs[RUNS - 1].0,
                idle * 100.0,
                steal * 100.0,
            );
            println!("{line}");
            lines.push(line);
        }
    }
    lines
}

/// What [`backlog_run`] answers: callbacks per second, the CPU per callback (µs) of this process and of
/// PostgreSQL, and the machine's idle and steal shares.
type BacklogRun = (f64, f64, f64, f64, f64);

/// One run on a fresh store: the backlog planted, then worked off; answers callbacks per second, the CPU per
/// callback (µs) of this process and of PostgreSQL, and the machine's idle and steal shares meanwhile.
async fn backlog_run(store: &str, sweep: bool) -> BacklogRun {
    use herald_domain::dispatch::StoredCallback;

    let (store, guard) = fresh_store(store).await;
    let services = Services::with_store(store);
    let org = new_org(&services).await;
    let sender = add_sender(
        &services,
        &org,
        "+15557000001",
        BACKLOG_PHONE_NUMBER_ID,
        true,
        1_000,
    )
    .await;
    queue(&services, &sender, BACKLOG_MESSAGES).await;
    let query = MessageQuery {
        limit: u32::try_from(BACKLOG_MESSAGES).unwrap(),
        ..MessageQuery::default()
    };
    let ids: Vec<String> = services
        .store
        .messages()
        .messages(&org, &query)
        .await
        .unwrap()
        .iter()
        .map(|m| m.id.to_string())
        .collect();
    let tracking = services.store.tracking();
    let received = chrono::Utc::now() - chrono::TimeDelta::hours(1);
    let mut planted = 0_i64;
    for (step, status) in [(0, "sent"), (1, "delivered"), (2, "read")] {
        for id in &ids {
            let body = status_callback(BACKLOG_PHONE_NUMBER_ID, id, status, 1_700_000_000 + step);
            let callback = StoredCallback {
                id: EventId::from_ulid(services.ids.next_ulid()),
                received_at: received + chrono::TimeDelta::milliseconds(planted),
                body,
            };
            tracking.store_callback(&callback).await.unwrap();
            planted += 1;
        }
    }
    let callbacks = services.process_callbacks();
    let later = chrono::Utc::now() + chrono::TimeDelta::hours(1);
    let cpu_before = CpuTimes::now();
    let started = Instant::now();
    if sweep {
        let parked = std::sync::atomic::AtomicU64::new(0);
        while !tracking
            .unprocessed_callbacks(later, 1, later)
            .await
            .unwrap()
            .callbacks
            .is_empty()
        {
            herald_app::workers::sweep_callbacks(&callbacks, &parked).await;
        }
    } else {
        loop {
            let page = tracking
                .unprocessed_callbacks(later, 100, later)
                .await
                .unwrap()
                .callbacks;
            if page.is_empty() {
                break;
            }
            for callback in &page {
                callbacks.process(callback).await.unwrap();
            }
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    let cpu = CpuTimes::now().since(&cpu_before);
    let read = MessageQuery {
        status: Some(MessageStatus::Read),
        limit: u32::try_from(BACKLOG_MESSAGES).unwrap(),
        ..MessageQuery::default()
    };
    let done = services
        .store
        .messages()
        .messages(&org, &read)
        .await
        .unwrap()
        .len();
    assert_eq!(done as u64, BACKLOG_MESSAGES, "every message read at the end");
    drop(guard);
    let per = |seconds: f64| seconds * 1e6 / planted as f64;
    (
        planted as f64 / elapsed,
        per(cpu.bench),
        per(cpu.postgres),
        cpu.idle,
        cpu.steal,
    )
}

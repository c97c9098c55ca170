//! Dispatch throughput: accepted → submitted through the real Cloud API client and the simulator (limit
//! 1,000 messages/s per sender), over 1, 2 and 8 senders (the simulator's two seeded ones plus six extra
//! ones, `simulator_extra_senders`), on each store.
//! Run with `make bench`; appends a section to `docs/benchmarks.md` when `HERALD_BENCH_REPORT` names a file.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a benchmark fails loudly"
)]

use herald_app::config::Settings;
use herald_app::{Application, Services};
use herald_domain::ids::{EventId, JobId, MessageId};
use herald_domain::message::{EventSource, Message, MessageContent, MessageStatus, StatusEvent};
use herald_domain::organization::{NetworkRef, PlanName, SenderNumber};
use herald_domain::ports::{AcceptRequest, MessageQuery, OutboxJob, QuotaCharge};
use herald_domain::template::{LanguageCode, TemplateName, TemplateRef, TemplateVariables};
use herald_domain::time::BillingPeriod;
use herald_domain::usecases::NewSender;
use herald_domain::values::{DisplayName, PhoneNumber};
use std::time::{Duration, Instant};

const PER_SENDER: u64 = 3_000;
const RUNS: usize = 3;
/// Sender counts measured: one, the simulator's two seeded ones, and eight (issue 8's aggregate target).
const SENDERS: [usize; 3] = [1, 2, 8];

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut lines = vec![
        "## P3 dispatch (accepted → submitted), issues 3 and 8".to_owned(),
        String::new(),
        format!(
            "Command: `make bench` (`cargo bench -p herald-tests --bench dispatch`). {PER_SENDER} queued messages per sender, simulator limit 1,000/s per sender, one worker process (2 dispatch loops), median of {RUNS} runs (min–max)."
        ),
        String::new(),
        "| store | senders | messages/s (median) | min | max | per sender |".to_owned(),
        "|---|---|---|---|---|---|".to_owned(),
    ];
    let mut stores = vec!["sqlite"];
    if std::env::var(herald_store::testing::DATABASE_URL_ENV).is_ok() {
        stores.push("postgres");
    }
    for store in stores {
        for senders in SENDERS {
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

/// One run: a fresh store, `senders` senders with `PER_SENDER` queued messages each; returns messages/s.
async fn run(store: &str, senders: usize) -> f64 {
    let (store, guard) = match store {
        "sqlite" => herald_store::testing::fresh_sqlite().await.unwrap(),
        _ => herald_store::testing::fresh_postgres().await.unwrap().unwrap(),
    };
    let services = Services::with_store(store);
    let settings = Settings {
        listen: "127.0.0.1:0".into(),
        http_workers: 1,
        simulator_callback_delay_min_ms: 20,
        simulator_callback_delay_max_ms: 200,
        simulator_extra_senders: extra_senders(),
        ..Settings::default()
    };
    let api = Application::build(&settings, &services, herald_app::cli::Role::Api).unwrap();
    let base = format!("http://127.0.0.1:{}", api.port().unwrap());

    let admin = services.admin();
    let org = admin
        .create_organization(
            DisplayName::parse("Bench").unwrap(),
            PlanName::parse("enterprise").unwrap(),
            None,
        )
        .await
        .unwrap();
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
        let sender = admin
            .add_sender(NewSender {
                organization_id: org.id,
                number: PhoneNumber::parse(number).unwrap(),
                phone_number_id: NetworkRef::parse(pnid).unwrap(),
                waba_id: NetworkRef::parse(herald_simulator::SIMULATOR_WABA_ID).unwrap(),
                access_token_env: None,
                access_token: None,
                is_default: false,
                throughput_per_second: 1_000,
            })
            .await
            .unwrap();
        queue(&services, &sender, PER_SENDER).await;
    }
    let total = PER_SENDER * senders as u64;

    let worker_settings = Settings {
        database_url: guard.database_url().to_owned(),
        simulator_url: Some(format!("{base}/simulator")),
        // Worker processes on PostgreSQL need the key that seals access tokens (none are stored here).
        encryption_key: Some("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=".to_owned().into()),
        ..settings.clone()
    };
    let worker_services = Services::connect(&worker_settings).await.unwrap();
    let started = Instant::now();
    let worker =
        Application::build(&worker_settings, &worker_services, herald_app::cli::Role::Worker).unwrap();
    let waiting = MessageQuery {
        status: Some(MessageStatus::Accepted),
        limit: 1,
        ..MessageQuery::default()
    };
    while !services
        .store
        .messages()
        .messages(&org.id, &waiting)
        .await
        .unwrap()
        .is_empty()
    {
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "dispatch did not drain"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let rate = total as f64 / started.elapsed().as_secs_f64();
    // Stop this run's processes before the next run starts, so runs do not load each other.
    worker.stop().await;
    api.stop().await;
    drop(guard);
    rate
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

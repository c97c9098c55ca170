//! `DeliverWebhooks::run_once`: how a round records its attempts — together when they are in together, one
//! by one when the batch fails, and never held back by a slower attempt of the same round. `ManageWebhooks`:
//! what an endpoint shows of a secret rotation.

use super::*;
use crate::customer_event::CustomerEventType;
use crate::dispatch::ClaimToken;
use crate::ids::{DeliveryId, EventId, WebhookId};
use crate::organization::SealedSecret;
use crate::ports::{
    MockDestinationChecker, MockSecretSealer, MockSecretSource, MockWebhookStore, MockWebhookTransport,
    Opened, SealContext, StoreError, WebhookTransport,
};
use crate::usecases::{DeliverWebhooks, DeliveryReport, DeliverySettings, ManageWebhooks};
use crate::webhook::{
    AttemptReport, ClaimedDelivery, DeliveryAttempt, DeliveryCompletion, DeliveryStatus, EventSelection,
    WebhookEndpoint, WebhookUrl,
};
use async_trait::async_trait;
use futures::channel::oneshot;
use std::sync::{Arc, Mutex};

/// The token the round claims with: the first id the generator makes.
fn token() -> ClaimToken {
    ClaimToken(generated(1))
}

fn endpoint(n: u128, url: &str) -> WebhookEndpoint {
    WebhookEndpoint {
        id: WebhookId::from_ulid(ulid(800 + n)),
        organization_id: org_id(),
        url: WebhookUrl::parse(url).unwrap(),
        events: EventSelection::ALL,
        description: None,
        enabled: true,
        disabled_reason: None,
        secret: SealedSecret::new(vec![1, 2, 3]),
        previous_secret: None,
        previous_secret_expires_at: None,
        failing_since: None,
        created_at: now() - seconds(3_600),
        updated_at: now() - seconds(3_600),
    }
}

fn delivery_id(n: u128) -> DeliveryId {
    DeliveryId::from_ulid(ulid(900 + n))
}

/// Delivery `n` of a test event to `url`, on its first attempt.
fn claimed(n: u128, url: &str) -> ClaimedDelivery {
    ClaimedDelivery {
        delivery_id: delivery_id(n),
        organization_id: org_id(),
        endpoint: endpoint(n, url),
        event_id: EventId::from_ulid(ulid(1_000 + n)),
        event_type: CustomerEventType::WebhookTest,
        payload: format!(r#"{{"type":"webhook.test","n":{n}}}"#),
        attempt_number: 1,
        created_at: now() - seconds(30),
        trace: None,
    }
}

/// Answers 200 at once, except that a URL containing `slow` waits for the gate to open.
struct Transport {
    gate: Mutex<Option<oneshot::Receiver<()>>>,
}

#[async_trait]
impl WebhookTransport for Transport {
    async fn attempt(
        &self,
        url: &WebhookUrl,
        _event_id: &EventId,
        _payload: &str,
        secrets: &[String],
        attempt_number: u32,
    ) -> AttemptReport {
        assert_eq!(secrets, ["whsec_opened"], "the endpoint's secret, opened");
        if url.as_str().contains("slow") {
            let gate = self.gate.lock().unwrap().take().expect("one slow attempt");
            gate.await.expect("the gate opens");
        }
        AttemptReport {
            attempt: DeliveryAttempt {
                number: attempt_number,
                at: now(),
                status_code: Some(200),
                response_prefix: "ok".to_owned(),
                error_kind: None,
                duration_ms: 3,
            },
            succeeded: true,
            retry_in: None,
        }
    }
}

/// A deliverer over `webhooks`, whose transport answers 200 (a `slow` URL once `gate` opens).
fn deliverer(webhooks: MockWebhookStore, gate: Option<oneshot::Receiver<()>>) -> DeliverWebhooks {
    let mut sealer = MockSecretSealer::new();
    sealer.expect_open().returning(|_, _| {
        Ok(Opened {
            text: "whsec_opened".to_owned(),
            legacy: false,
        })
    });
    DeliverWebhooks::new(
        Arc::new(webhooks),
        Arc::new(Transport {
            gate: Mutex::new(gate),
        }),
        Arc::new(sealer),
        Arc::new(clock_at(now())),
        Arc::new(sequential_ids()),
        DeliverySettings::default(),
    )
}

/// `claim_deliveries` hands out `claimed` once, for the round's token.
fn claims(webhooks: &mut MockWebhookStore, claimed: Vec<ClaimedDelivery>) {
    webhooks
        .expect_claim_deliveries()
        .withf(|t, at, _, limit, cap| *t == token() && *at == now() && *limit == 100 && *cap == 4)
        .times(1)
        .returning(move |_, _, _, _, _| Ok(claimed.clone()));
}

/// A store whose round claims deliveries 1 and 2, to two endpoints that answer at once.
fn claims_two_quick_ones() -> MockWebhookStore {
    let mut webhooks = MockWebhookStore::new();
    claims(
        &mut webhooks,
        vec![
            claimed(1, "https://a.example/hook"),
            claimed(2, "https://b.example/hook"),
        ],
    );
    webhooks
}

fn ids(completions: &[DeliveryCompletion]) -> Vec<DeliveryId> {
    completions.iter().map(|c| c.delivery_id).collect()
}

#[test]
fn attempts_that_are_in_together_are_recorded_in_one_call() {
    let mut webhooks = claims_two_quick_ones();
    let batches = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&batches);
    webhooks
        .expect_complete_deliveries()
        .times(1)
        .returning(move |completions| {
            seen.lock().unwrap().push(completions.to_vec());
            Ok(vec![true; completions.len()])
        });
    webhooks.expect_complete_delivery().times(0);

    let report = run(deliverer(webhooks, None).run_once()).unwrap();

    assert_eq!(
        report,
        DeliveryReport {
            claimed: 2,
            succeeded: 2,
            ..DeliveryReport::default()
        }
    );
    let batches = batches.lock().unwrap();
    assert_eq!(ids(&batches[0]), [delivery_id(1), delivery_id(2)]);
    for completion in &batches[0] {
        assert_eq!(completion.token, token(), "recorded under the round's claim");
        assert_eq!(completion.status, DeliveryStatus::Succeeded);
        assert_eq!(completion.failing_since, None);
    }
}

#[test]
fn a_delivery_of_a_traced_event_is_attempted_in_that_trace() {
    let mut webhooks = MockWebhookStore::new();
    let mut traced = claimed(1, "https://a.example/hook");
    traced.trace = Some(trace_context());
    claims(&mut webhooks, vec![traced, claimed(2, "https://b.example/hook")]);
    webhooks
        .expect_complete_deliveries()
        .returning(|completions| Ok(vec![true; completions.len()]));
    let traces = follows_the_trace_once();

    let report = run(deliverer(webhooks, None)
        .with_trace_links(Arc::new(traces))
        .run_once())
    .unwrap();

    assert_eq!(report.succeeded, 2, "{report:?}");
}

#[test]
fn a_batch_the_store_refuses_is_recorded_one_by_one() {
    let mut webhooks = claims_two_quick_ones();
    webhooks
        .expect_complete_deliveries()
        .times(1)
        .returning(|_| Err(StoreError::Unavailable("connection reset".to_owned())));
    // The first is written alone; the second's claim was lost meanwhile.
    webhooks
        .expect_complete_delivery()
        .withf(|c| c.delivery_id == delivery_id(1))
        .times(1)
        .returning(|_| Ok(true));
    webhooks
        .expect_complete_delivery()
        .withf(|c| c.delivery_id == delivery_id(2))
        .times(1)
        .returning(|_| Ok(false));

    let report = run(deliverer(webhooks, None).run_once()).unwrap();

    assert_eq!(
        report,
        DeliveryReport {
            claimed: 2,
            succeeded: 1,
            claims_lost: 1,
            ..DeliveryReport::default()
        }
    );
}

/// The pieces a worker pipelines: a claim under a new token with its lags, each attempt completed under
/// that token, and the completions of any claims recorded together and counted (not as claims).
#[test]
fn claim_attempt_and_record_are_the_round_taken_apart() {
    let mut webhooks = claims_two_quick_ones();
    webhooks
        .expect_complete_deliveries()
        .withf(|completions| ids(completions) == [delivery_id(2), delivery_id(1)])
        .times(1)
        .returning(|_| Ok(vec![true, false]));
    webhooks.expect_complete_delivery().times(0);
    let deliverer = deliverer(webhooks, None);

    let claim = run(deliverer.claim(100)).unwrap();
    assert_eq!(claim.token, token());
    assert_eq!(claim.first_attempt_lags, [seconds(30), seconds(30)]);
    let mut completions: Vec<DeliveryCompletion> = claim
        .deliveries
        .into_iter()
        .map(|delivery| run(deliverer.attempt_traced(claim.token, delivery)))
        .collect();
    assert!(
        completions
            .iter()
            .all(|c| c.token == token() && c.status == DeliveryStatus::Succeeded)
    );
    // A recorder takes them in the order they came in.
    completions.reverse();
    let report = run(deliverer.record_outcomes(completions));

    assert_eq!(
        report,
        DeliveryReport {
            succeeded: 1,
            claims_lost: 1,
            ..DeliveryReport::default()
        }
    );
}

#[test]
fn a_slow_attempt_does_not_hold_back_recording_a_quick_one() {
    let mut webhooks = MockWebhookStore::new();
    claims(
        &mut webhooks,
        vec![
            claimed(1, "https://slow.example/hook"),
            claimed(2, "https://quick.example/hook"),
        ],
    );
    let (open, gate) = oneshot::channel();
    let open = Mutex::new(Some(open));
    let batches = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&batches);
    webhooks
        .expect_complete_deliveries()
        .times(2)
        .returning(move |completions| {
            seen.lock().unwrap().push(ids(completions));
            // The slow endpoint answers only once the quick one is recorded.
            if let Some(open) = open.lock().unwrap().take() {
                open.send(()).unwrap();
            }
            Ok(vec![true; completions.len()])
        });
    webhooks.expect_complete_delivery().times(0);

    // Recording only at the round's end would never open the gate: the round would hang, so it runs on a
    // thread of its own and a round that has not ended after 10 s fails the test.
    let deliverer = deliverer(webhooks, Some(gate));
    let (ended, round) = std::sync::mpsc::channel();
    std::thread::spawn(move || ended.send(run(deliverer.run_once())));
    let report = round
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("the round never ended: the quick attempt was not recorded while the slow one waited")
        .unwrap();

    assert_eq!(report.succeeded, 2);
    assert_eq!(
        *batches.lock().unwrap(),
        [vec![delivery_id(2)], vec![delivery_id(1)]],
        "the quick attempt is recorded while the slow one is still waiting"
    );
}

#[test]
fn a_rotation_is_shown_only_while_the_old_secret_still_signs() {
    let rotated = |n: u128, until: Timestamp| WebhookEndpoint {
        previous_secret: Some(SealedSecret::new(vec![9])),
        previous_secret_expires_at: Some(until),
        ..endpoint(n, "https://a.example/hook")
    };
    let live = rotated(1, now() + seconds(1));
    let ended = rotated(2, now());
    let mut webhooks = MockWebhookStore::new();
    let stored = vec![live.clone(), ended.clone()];
    webhooks
        .expect_endpoints()
        .withf(|org| *org == org_id())
        .times(1)
        .returning(move |_| Ok(stored.clone()));
    let found = ended.clone();
    webhooks
        .expect_endpoint()
        .times(1)
        .returning(move |_, _| Ok(Some(found.clone())));
    let manage = ManageWebhooks::new(
        Arc::new(webhooks),
        Arc::new(MockDestinationChecker::new()),
        Arc::new(MockSecretSealer::new()),
        Arc::new(MockSecretSource::new()),
        Arc::new(clock_at(now())),
        Arc::new(sequential_ids()),
    );

    let listed = run(manage.list(&org_id())).unwrap();
    assert_eq!(listed[0], live, "a rotation in progress is kept");
    let expected = WebhookEndpoint {
        previous_secret: None,
        previous_secret_expires_at: None,
        ..ended.clone()
    };
    assert_eq!(listed[1], expected, "an ended rotation is gone");
    assert_eq!(run(manage.get(&org_id(), &ended.id)).unwrap(), expected);
}

#[test]
fn a_test_event_past_the_pending_cap_is_refused_and_nothing_is_queued() {
    let target = endpoint(1, "https://a.example/hook");
    let mut webhooks = MockWebhookStore::new();
    let found = target.clone();
    webhooks
        .expect_endpoint()
        .returning(move |_, _| Ok(Some(found.clone())));
    webhooks
        .expect_record_test_event()
        .withf(|org, _, test, max_pending| {
            *org == org_id()
                && test.payload.contains(r#""type":"webhook.test""#)
                && *max_pending == crate::usecases::webhooks::DEFAULT_MAX_PENDING_TESTS
        })
        .times(1)
        .returning(|_, _, _, _| Ok(false));
    let manage = ManageWebhooks::new(
        Arc::new(webhooks),
        Arc::new(MockDestinationChecker::new()),
        Arc::new(MockSecretSealer::new()),
        Arc::new(MockSecretSource::new()),
        Arc::new(clock_at(now())),
        Arc::new(sequential_ids()),
    );

    let result = run(manage.send_test(&org_id(), &target.id));

    assert!(
        matches!(
            result,
            Err(crate::usecases::WebhookError::TestsPending { limit })
                if limit == crate::usecases::webhooks::DEFAULT_MAX_PENDING_TESTS
        ),
        "{result:?}"
    );
}

#[test]
fn a_round_opens_both_secrets_of_an_endpoint_with_that_endpoints_own_context() {
    let delivery = ClaimedDelivery {
        endpoint: WebhookEndpoint {
            previous_secret: Some(SealedSecret::new(vec![4, 5, 6])),
            previous_secret_expires_at: Some(now() + seconds(60)),
            ..endpoint(1, "https://a.example/hook")
        },
        ..claimed(1, "https://a.example/hook")
    };
    let own = SealContext::webhook(&delivery.endpoint.id);
    let mut webhooks = MockWebhookStore::new();
    claims(&mut webhooks, vec![delivery]);
    webhooks
        .expect_complete_deliveries()
        .times(1)
        .returning(|completions| Ok(vec![true; completions.len()]));
    let mut sealer = MockSecretSealer::new();
    sealer
        .expect_open()
        .withf(move |context, sealed| *context == own && (sealed == [1, 2, 3] || sealed == [4, 5, 6]))
        .times(2)
        .returning(|_, sealed| {
            Ok(Opened {
                text: format!("whsec_{}", sealed[0]),
                legacy: false,
            })
        });
    let mut transport = MockWebhookTransport::new();
    transport
        .expect_attempt()
        .withf(|_, _, _, secrets, _| secrets == ["whsec_1", "whsec_4"])
        .times(1)
        .returning(|_, _, _, _, number| AttemptReport {
            attempt: DeliveryAttempt {
                number,
                at: now(),
                status_code: Some(200),
                response_prefix: "ok".to_owned(),
                error_kind: None,
                duration_ms: 3,
            },
            succeeded: true,
            retry_in: None,
        });
    let deliverer = DeliverWebhooks::new(
        Arc::new(webhooks),
        Arc::new(transport),
        Arc::new(sealer),
        Arc::new(clock_at(now())),
        Arc::new(sequential_ids()),
        DeliverySettings::default(),
    );

    let report = run(deliverer.run_once()).unwrap();

    assert_eq!(report.succeeded, 1, "{report:?}");
}

/// Fills every secret with zeros.
fn zero_secrets() -> MockSecretSource {
    let mut secrets = MockSecretSource::new();
    secrets.expect_fill().returning(|buf: &mut [u8]| buf.fill(0));
    secrets
}

#[test]
fn a_new_endpoints_secret_is_sealed_for_that_endpoints_own_id() {
    let created = Arc::new(Mutex::new(None));
    let keep = Arc::clone(&created);
    let mut webhooks = MockWebhookStore::new();
    webhooks.expect_endpoints().times(1).returning(|_| Ok(Vec::new()));
    webhooks
        .expect_create_endpoint()
        .times(1)
        .returning(move |endpoint, _| {
            *keep.lock().unwrap() = Some(endpoint.clone());
            Ok(true)
        });
    let mut destinations = MockDestinationChecker::new();
    destinations.expect_check().returning(|_| Ok(()));
    let sealed_for = Arc::new(Mutex::new(None));
    let keep = Arc::clone(&sealed_for);
    let mut sealer = MockSecretSealer::new();
    sealer
        .expect_seal()
        .withf(|context, secret| {
            *context == SealContext::webhook(&WebhookId::from_ulid(generated(1)))
                && secret.starts_with("whsec_")
        })
        .times(1)
        .returning(move |context, _| {
            *keep.lock().unwrap() = Some(context.clone());
            vec![7]
        });
    let manage = ManageWebhooks::new(
        Arc::new(webhooks),
        Arc::new(destinations),
        Arc::new(sealer),
        Arc::new(zero_secrets()),
        Arc::new(clock_at(now())),
        Arc::new(sequential_ids()),
    );

    let (endpoint, _) = run(manage.create(
        &org_id(),
        &plan(),
        WebhookUrl::parse("https://a.example/hook").unwrap(),
        None,
        None,
    ))
    .unwrap();

    let stored = created.lock().unwrap().clone().unwrap();
    assert_eq!(stored.id, endpoint.id);
    assert_eq!(stored.secret, SealedSecret::new(vec![7]));
    assert_eq!(
        sealed_for.lock().unwrap().clone(),
        Some(SealContext::webhook(&stored.id))
    );
}

#[test]
fn a_rotated_secret_is_sealed_for_the_endpoint_it_belongs_to() {
    let target = endpoint(3, "https://a.example/hook");
    let own = SealContext::webhook(&target.id);
    let mut webhooks = MockWebhookStore::new();
    let id = target.id;
    webhooks
        .expect_rotate_endpoint_secret()
        .withf(move |org, rotated, secret, _, _| {
            *org == org_id() && *rotated == id && *secret == SealedSecret::new(vec![8])
        })
        .times(1)
        .returning(|_, _, _, _, _| Ok(()));
    let found = target.clone();
    webhooks
        .expect_endpoint()
        .returning(move |_, _| Ok(Some(found.clone())));
    let mut sealer = MockSecretSealer::new();
    sealer
        .expect_seal()
        .withf(move |context, _| *context == own)
        .times(1)
        .returning(|_, _| vec![8]);
    let manage = ManageWebhooks::new(
        Arc::new(webhooks),
        Arc::new(MockDestinationChecker::new()),
        Arc::new(sealer),
        Arc::new(zero_secrets()),
        Arc::new(clock_at(now())),
        Arc::new(sequential_ids()),
    );

    run(manage.rotate_secret(&org_id(), &target.id)).unwrap();
}

/// A round answers how long each delivery attempted for the first time waited since its event; a retry's
/// wait is not a first attempt's lag.
#[test]
fn a_round_reports_the_lag_of_first_attempts_only() {
    let mut webhooks = MockWebhookStore::new();
    let mut retried = claimed(2, "https://b.example/hook");
    retried.attempt_number = 2;
    retried.created_at = now() - seconds(600);
    claims(&mut webhooks, vec![claimed(1, "https://a.example/hook"), retried]);
    webhooks
        .expect_complete_deliveries()
        .returning(|completions| Ok(vec![true; completions.len()]));

    let round = run(deliverer(webhooks, None).run_round()).unwrap();

    assert_eq!(round.report.succeeded, 2);
    assert_eq!(round.first_attempt_lags, [seconds(30)]);
}

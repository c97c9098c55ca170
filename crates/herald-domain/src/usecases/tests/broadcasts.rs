//! `Broadcasts`: each row checked and rejected alone, the accept written whole, the quota all or nothing,
//! replays by key, and the pacer's pause, release and completion.

use super::*;
use crate::broadcast::{
    Broadcast, BroadcastCounts, BroadcastEventKind, BroadcastState, BroadcastView, ReleaseOutcome, held_until,
};
use crate::error::ValidationErrors;
use crate::ids::BroadcastId;
use crate::message::{MessageError, MessageStatus};
use crate::ports::{
    BroadcastAccept, BroadcastAcceptOutcome, BroadcastFailure, DueBroadcast, KeyedBroadcast,
    MockAccountStore, MockBroadcastStore, MockMediaCatalog, MockMessageStore, MockRateLimiter,
    MockScheduleStore, MockTemplateStore, RateDecision,
};
use crate::template::{BodyValues, HeaderSpec, TemplateVariables};
use crate::usecases::{
    BroadcastChangeError, BroadcastCommand, BroadcastCreated, BroadcastDraft, BroadcastError, BroadcastPorts,
    BroadcastRecipient, Broadcasts, PaceSettings, SendSettings,
};
use crate::values::{IdempotencyKey, RequestFingerprint};
use std::sync::{Arc, Mutex};

struct Mocks {
    accounts: MockAccountStore,
    broadcasts: MockBroadcastStore,
    schedule: MockScheduleStore,
    templates: MockTemplateStore,
    limiter: MockRateLimiter,
}

impl Mocks {
    fn new() -> Self {
        let mut broadcasts = MockBroadcastStore::new();
        // No cancel stopped half-way, unless a test says otherwise.
        broadcasts.expect_cancelling().returning(|_, _| Ok(Vec::new()));
        Self {
            accounts: MockAccountStore::new(),
            broadcasts,
            schedule: MockScheduleStore::new(),
            templates: MockTemplateStore::new(),
            limiter: MockRateLimiter::new(),
        }
    }

    /// A request that passes the account, rate, sender and template checks.
    fn ready(&mut self) -> &mut Self {
        self.limiter.expect_check().times(1).returning(|_, _, _| {
            Ok(RateDecision::Allowed {
                limit: 40,
                remaining: 39,
                reset_seconds: 1,
            })
        });
        self.accounts
            .expect_senders()
            .returning(|_| Ok(vec![sender(1, DEFAULT_NUMBER, true)].into()));
        self.templates
            .expect_template()
            .returning(|_, waba, _, _| Ok(Some(template(waba, "APPROVED", HeaderSpec::None, 1).into())));
        self
    }

    fn build(self) -> Broadcasts {
        Broadcasts::new(
            BroadcastPorts {
                accounts: Arc::new(self.accounts),
                broadcasts: Arc::new(self.broadcasts),
                messages: Arc::new(MockMessageStore::new()),
                schedule: Arc::new(self.schedule),
                templates: Arc::new(self.templates),
                catalog: Arc::new(MockMediaCatalog::new()),
                limiter: Arc::new(self.limiter),
                clock: Arc::new(clock_at(now())),
                ids: Arc::new(sequential_ids()),
            },
            SendSettings::default(),
            PaceSettings::default(),
        )
    }
}

fn row(to: &str, body: &[&str]) -> Result<BroadcastRecipient, ValidationErrors> {
    Ok(BroadcastRecipient {
        to: phone(to).into(),
        variables: TemplateVariables {
            body: BodyValues::Positional(body.iter().map(|v| template_text(v)).collect()),
            ..TemplateVariables::default()
        },
        client_reference: None,
    })
}

fn command(rows: Vec<Result<BroadcastRecipient, ValidationErrors>>) -> BroadcastCommand {
    BroadcastCommand {
        organization: organization(crate::organization::AccountStatus::Active),
        plan: plan(),
        draft: Ok(BroadcastDraft {
            template: template_ref(),
            from: None,
            send_at: None,
            header: None,
            recipients: rows,
        }),
        idempotency: None,
    }
}

#[test]
fn each_bad_row_is_rejected_with_its_index_and_the_rest_are_accepted_whole_with_held_jobs() {
    let mut mocks = Mocks::new();
    mocks.ready();
    let written: Arc<Mutex<Option<BroadcastAccept>>> = Arc::default();
    let keep = written.clone();
    mocks
        .broadcasts
        .expect_accept()
        .times(1)
        .returning(move |request| {
            *keep.lock().unwrap() = Some(request.clone());
            Ok(BroadcastAcceptOutcome::Accepted)
        });
    let rows = vec![
        row("+15551000001", &["Ana"]),
        Err(ValidationErrors::single("to", "not a number")),
        row("+15551000002", &["Bo", "extra"]),
        row("+15551000001", &["Ana again"]),
        row("+15551000003", &["Cy"]),
    ];

    let result = run(mocks.build().create(command(rows))).unwrap();

    let BroadcastCreated::Accepted { view, rejected } = result else {
        panic!("{result:?}");
    };
    let indexes: Vec<usize> = rejected.iter().map(|r| r.index).collect();
    assert_eq!(
        indexes,
        vec![1, 2, 3],
        "the field error, the mismatch and the repeat"
    );
    assert_eq!(rejected[1].errors.errors()[0].field, "variables");
    assert!(rejected[2].errors.errors()[0].message.contains("row 0"));
    assert_eq!(view.broadcast.total, 2);
    assert_eq!(view.counts.get(MessageStatus::Accepted), 2);
    let request = written.lock().unwrap().clone().unwrap();
    assert_eq!(request.quota.limit, Some(1_000));
    assert_eq!(request.messages.len(), 2);
    for message in &request.messages {
        assert_eq!(message.message.broadcast_id, Some(view.broadcast.id));
        assert_eq!(message.job.available_at, held_until(), "held until released");
        assert_eq!(message.event.status, MessageStatus::Accepted);
    }
    let to: Vec<&str> = request.messages.iter().map(|m| m.message.to.as_str()).collect();
    assert_eq!(to, vec!["+15551000001", "+15551000003"], "in the request's order");
}

#[test]
fn blocked_recipients_are_rejected_by_index_after_one_read_of_every_row_contact() {
    let mut mocks = Mocks::new();
    mocks.ready();
    let written: Arc<Mutex<Option<BroadcastAccept>>> = Arc::default();
    let keep = written.clone();
    mocks
        .broadcasts
        .expect_accept()
        .times(1)
        .returning(move |request| {
            *keep.lock().unwrap() = Some(request.clone());
            Ok(BroadcastAcceptOutcome::Accepted)
        });
    let mut contacts = crate::ports::MockContactStore::new();
    contacts.expect_contact().times(0);
    contacts
        .expect_contacts_with_numbers()
        .withf(|org, numbers| {
            let asked: Vec<&str> = numbers.iter().map(|n| n.as_str()).collect();
            // The row with a variables error is not asked about; the repeat is (it is refused later).
            *org == org_id() && asked == ["+15551000001", "+15551000002", "+15551000001", "+15551000004"]
        })
        .times(1)
        .returning(|org, _| {
            let mut blocked = crate::contact::Contact::unknown(*org, &phone("+15551000002").into(), now());
            blocked.blocked = true;
            Ok(vec![blocked])
        });
    let rows = vec![
        row("+15551000001", &["Ana"]),
        row("+15551000002", &["Bo"]),
        row("+15551000003", &["Cy", "extra"]),
        row("+15551000001", &["Ana again"]),
        row("+15551000004", &["Di"]),
    ];
    let broadcasts = mocks
        .build()
        .with_recipient_checks(crate::usecases::RecipientChecks::new(Arc::new(contacts)));

    let result = run(broadcasts.create(command(rows))).unwrap();

    let BroadcastCreated::Accepted { rejected, .. } = result else {
        panic!("{result:?}");
    };
    let indexes: Vec<usize> = rejected.iter().map(|r| r.index).collect();
    assert_eq!(indexes, vec![1, 2, 3], "in row order");
    assert!(
        rejected[0].errors.errors()[0]
            .message
            .starts_with("recipient_blocked"),
        "{:?}",
        rejected[0]
    );
    assert_eq!(rejected[1].errors.errors()[0].field, "variables");
    assert!(rejected[2].errors.errors()[0].message.contains("row 0"));
    let request = written.lock().unwrap().clone().unwrap();
    let to: Vec<&str> = request.messages.iter().map(|m| m.message.to.as_str()).collect();
    assert_eq!(to, vec!["+15551000001", "+15551000004"]);
}

#[test]
fn no_valid_row_refuses_the_broadcast_and_writes_nothing() {
    let mut mocks = Mocks::new();
    mocks.ready();
    mocks.broadcasts.expect_accept().times(0);
    let rows = vec![
        row("+15551000001", &[]),
        Err(ValidationErrors::single("to", "bad")),
    ];

    let result = run(mocks.build().create(command(rows)));

    let Err(BroadcastError::Invalid { rejected, .. }) = result else {
        panic!("{result:?}");
    };
    assert_eq!(rejected.len(), 2);
}

#[test]
fn a_quota_without_room_for_the_whole_broadcast_refuses_it() {
    let mut mocks = Mocks::new();
    mocks.ready();
    mocks
        .broadcasts
        .expect_accept()
        .times(1)
        .returning(|_| Ok(BroadcastAcceptOutcome::QuotaExceeded { remaining: 1 }));
    let rows = vec![row("+15551000001", &["a"]), row("+15551000002", &["b"])];

    let result = run(mocks.build().create(command(rows)));

    let Err(BroadcastError::QuotaExceeded {
        needed,
        remaining,
        limit,
        retry_after_seconds,
    }) = result
    else {
        panic!("{result:?}");
    };
    assert_eq!((needed, remaining, limit), (2, 1, 1_000));
    assert!(retry_after_seconds > 0);
}

fn view(state: BroadcastState) -> BroadcastView {
    BroadcastView {
        broadcast: Broadcast {
            id: BroadcastId::from_ulid(ulid(900)),
            organization_id: org_id(),
            sender_id: sender(1, DEFAULT_NUMBER, true).id,
            from: phone(DEFAULT_NUMBER),
            template: template_ref(),
            state,
            total: 3,
            released: 3,
            send_at: None,
            pause: None,
            created_at: now() - seconds(60),
            updated_at: now() - seconds(1),
            completed_at: None,
            cancelled_at: None,
        },
        counts: BroadcastCounts([(MessageStatus::Delivered, 3)].into_iter().collect()),
    }
}

#[test]
fn a_key_seen_before_replays_its_broadcast_or_is_refused_for_another_body() {
    let key = IdempotencyKey::parse("campaign-7").unwrap();
    let fingerprint = RequestFingerprint::of(b"first");
    for (asked, replays) in [(fingerprint, true), (RequestFingerprint::of(b"second"), false)] {
        let mut mocks = Mocks::new();
        let id = view(BroadcastState::Running).broadcast.id;
        mocks
            .broadcasts
            .expect_keyed()
            .returning(move |_, _| Ok(Some(KeyedBroadcast { id, fingerprint })));
        mocks
            .broadcasts
            .expect_broadcast()
            .returning(|_, _| Ok(Some(view(BroadcastState::Running))));
        mocks.broadcasts.expect_accept().times(0);
        mocks.limiter.expect_check().times(0);
        let mut command = command(vec![row("+15551000001", &["a"])]);
        command.idempotency = Some((key.clone(), asked));

        let result = run(mocks.build().create(command));

        if replays {
            assert!(
                matches!(result, Ok(BroadcastCreated::Replayed { .. })),
                "{result:?}"
            );
        } else {
            assert!(
                matches!(result, Err(BroadcastError::IdempotencyKeyReused)),
                "{result:?}"
            );
        }
    }
}

fn due(failures_seen: Option<crate::time::Timestamp>) -> DueBroadcast {
    DueBroadcast {
        broadcast: view(BroadcastState::Running).broadcast,
        throughput_per_second: 80,
        messaging_limit: None,
        progress_at: Some(now() - seconds(5)),
        failures_seen,
    }
}

fn failure(code: &str, at: i64) -> BroadcastFailure {
    BroadcastFailure {
        message_id: stored_message(1).id,
        error: MessageError {
            code: code.to_owned(),
            title: "t".to_owned(),
            detail: "d".to_owned(),
            network_code: Some(131_048),
        },
        failed_at: now() - seconds(at),
    }
}

#[test]
fn a_spam_rate_failure_pauses_the_broadcast_with_its_reason_and_releases_nothing() {
    let mut mocks = Mocks::new();
    mocks.broadcasts.expect_due().returning(|_, _| {
        let mut due = due(None);
        due.broadcast.released = 1;
        Ok(vec![due])
    });
    mocks.broadcasts.expect_failures().returning(|_, _, _, _| {
        Ok(vec![
            failure("recipient_unreachable", 3),
            failure("spam_rate_limited", 2),
        ])
    });
    mocks
        .broadcasts
        .expect_broadcast()
        .returning(|_, _| Ok(Some(view(BroadcastState::Running))));
    mocks
        .broadcasts
        .expect_transition()
        .withf(|_, _, change| {
            change.to == BroadcastState::Paused
                && change.pause.as_ref().map(|p| p.code.as_str()) == Some("spam_rate_limited")
                && change.event.as_ref().is_some_and(|e| {
                    e.kind == BroadcastEventKind::Progress && e.view.broadcast.state == BroadcastState::Paused
                })
        })
        .times(1)
        .returning(|_, _, _| Ok(Some(view(BroadcastState::Paused).broadcast)));
    mocks
        .broadcasts
        .expect_see_failures()
        .withf(|_, _, last| *last == now() - seconds(2))
        .times(1)
        .returning(|_, _, _| Ok(()));
    mocks.broadcasts.expect_release().times(0);

    let report = run(mocks.build().pace()).unwrap();

    assert_eq!((report.paused, report.released), (1, 0));
}

#[test]
fn a_spam_rate_failure_after_the_last_release_does_not_pause_and_the_broadcast_completes() {
    let mut mocks = Mocks::new();
    // Every recipient released (3 of 3): nothing is left to hold back.
    mocks
        .broadcasts
        .expect_due()
        .returning(|_, _| Ok(vec![due(None)]));
    mocks
        .broadcasts
        .expect_failures()
        .returning(|_, _, _, _| Ok(vec![failure("spam_rate_limited", 2)]));
    mocks
        .broadcasts
        .expect_see_failures()
        .times(1)
        .returning(|_, _, _| Ok(()));
    mocks.broadcasts.expect_release().times(1).returning(|_, _, _| {
        Ok(ReleaseOutcome::Released {
            count: 0,
            held: 0,
            waiting_for_tier: false,
        })
    });
    mocks
        .broadcasts
        .expect_broadcast()
        .returning(|_, _| Ok(Some(view(BroadcastState::Running))));
    mocks
        .broadcasts
        .expect_transition()
        .withf(|_, _, change| change.to == BroadcastState::Completed && change.pause.is_none())
        .times(1)
        .returning(|_, _, _| Ok(Some(view(BroadcastState::Completed).broadcast)));

    let report = run(mocks.build().pace()).unwrap();

    assert_eq!((report.paused, report.completed), (0, 1));
}

#[test]
fn recipient_failures_move_the_cursor_and_a_done_broadcast_completes_with_its_event() {
    let mut mocks = Mocks::new();
    mocks
        .broadcasts
        .expect_due()
        .returning(|_, _| Ok(vec![due(None)]));
    mocks
        .broadcasts
        .expect_failures()
        .returning(|_, _, _, _| Ok(vec![failure("recipient_unreachable", 3)]));
    mocks
        .broadcasts
        .expect_see_failures()
        .times(1)
        .returning(|_, _, _| Ok(()));
    mocks.broadcasts.expect_release().times(1).returning(|_, _, _| {
        Ok(ReleaseOutcome::Released {
            count: 0,
            held: 0,
            waiting_for_tier: false,
        })
    });
    mocks
        .broadcasts
        .expect_broadcast()
        .returning(|_, _| Ok(Some(view(BroadcastState::Running))));
    mocks
        .broadcasts
        .expect_transition()
        .withf(|_, _, change| {
            change.to == BroadcastState::Completed
                && change.event.as_ref().is_some_and(|e| {
                    e.kind == BroadcastEventKind::Completed && e.view.broadcast.completed_at == Some(now())
                })
        })
        .times(1)
        .returning(|_, _, _| Ok(Some(view(BroadcastState::Completed).broadcast)));

    let report = run(mocks.build().pace()).unwrap();

    assert_eq!(report.completed, 1);
}

#[test]
fn cancel_cancels_untaken_messages_in_chunks_until_none_are_left() {
    let mut mocks = Mocks::new();
    let mut order = mockall::Sequence::new();
    mocks
        .broadcasts
        .expect_transition()
        .withf(|_, _, change| {
            change.to == BroadcastState::Cancelling
                && change.from.contains(&BroadcastState::Cancelling)
                && change.event.is_none()
        })
        .times(1)
        .in_sequence(&mut order)
        .returning(|_, _, _| Ok(Some(view(BroadcastState::Cancelling).broadcast)));
    let rounds = Arc::new(Mutex::new(vec![
        vec![stored_message(1).id, stored_message(2).id],
        vec![stored_message(3).id],
        vec![],
    ]));
    mocks
        .broadcasts
        .expect_untaken()
        .times(3)
        .returning(move |_, _, _| Ok(rounds.lock().unwrap().remove(0)));
    mocks
        .schedule
        .expect_cancel_many()
        .times(2)
        .returning(|updates| Ok(u32::try_from(updates.len()).unwrap()));
    mocks
        .broadcasts
        .expect_broadcast()
        .returning(|_, _| Ok(Some(view(BroadcastState::Cancelled))));
    // `cancelled` only once none is left, with its completion event in the same transaction.
    mocks
        .broadcasts
        .expect_transition()
        .withf(|_, _, change| {
            change.from == [BroadcastState::Cancelling]
                && change.to == BroadcastState::Cancelled
                && change.event.as_ref().is_some_and(|event| {
                    event.kind == BroadcastEventKind::Completed
                        && event.view.broadcast.state == BroadcastState::Cancelled
                })
        })
        .times(1)
        .in_sequence(&mut order)
        .returning(|_, _, _| Ok(Some(view(BroadcastState::Cancelled).broadcast)));
    mocks.broadcasts.expect_record_progress().times(0);

    let result = run(mocks
        .build()
        .cancel(&org_id(), &view(BroadcastState::Running).broadcast.id));

    assert_eq!(result.unwrap().broadcast.state, BroadcastState::Cancelled);
}

#[test]
fn cancel_of_a_completed_broadcast_names_its_state() {
    let mut mocks = Mocks::new();
    mocks.broadcasts.expect_transition().returning(|_, _, _| Ok(None));
    mocks
        .broadcasts
        .expect_broadcast()
        .returning(|_, _| Ok(Some(view(BroadcastState::Completed))));
    mocks.broadcasts.expect_untaken().times(0);

    let result = run(mocks
        .build()
        .cancel(&org_id(), &view(BroadcastState::Running).broadcast.id));

    let Err(BroadcastChangeError::WrongState { state, .. }) = result else {
        panic!("{result:?}");
    };
    assert_eq!(state, BroadcastState::Completed);
}

//! `SendMessage`: every refusal, the order of the checks (docs/api.md §8), the exact accept, idempotency.

use super::*;
use crate::contact::{Contact, Recipient, RecipientRefusal, SendPurpose};
use crate::error::ValidationErrors;
use crate::ids::{EventId, JobId};
use crate::message::{EventSource, MessageStatus, StatusEvent};
use crate::organization::MessageKind;
use crate::ports::{
    AcceptOutcome, AcceptRequest, IdempotencyBegin, IdempotencyClaim, MediaInsert, MockAccountStore,
    MockContactStore, MockMediaCatalog, MockMediaStore, MockMessageStore, MockRateLimiter, MockTemplateStore,
    MockWindowStore, OutboxJob, QuotaCharge, RateDecision, StoreError,
};
use crate::template::{HeaderValue, TemplateVariables};
use crate::time::BillingPeriod;
use crate::usecases::{
    RecipientChecks, SendCommand, SendDraft, SendError, SendMessage, SendOutcome, SendPorts, SendSettings,
};
use crate::values::{ClientReference, IdempotencyKey, RequestFingerprint};
use crate::window::ServiceWindow;
use std::sync::{Arc, Mutex};

/// Every port of `SendMessage` as a mock; each test sets the expectations it needs.
struct Ports {
    accounts: MockAccountStore,
    messages: MockMessageStore,
    templates: MockTemplateStore,
    windows: MockWindowStore,
    limiter: MockRateLimiter,
    catalog: MockMediaCatalog,
    files: MockMediaStore,
}

impl Ports {
    fn new() -> Self {
        Self {
            accounts: MockAccountStore::new(),
            messages: MockMessageStore::new(),
            templates: MockTemplateStore::new(),
            windows: MockWindowStore::new(),
            limiter: MockRateLimiter::new(),
            catalog: MockMediaCatalog::new(),
            files: MockMediaStore::new(),
        }
    }

    /// The limiter lets the send through, once, and checks it is asked for this organization, plan and
    /// a cost of 1.
    fn allow_rate(&mut self) -> &mut Self {
        self.limiter
            .expect_check()
            .withf(|org, plan_given, cost| *org == org_id() && *plan_given == plan() && *cost == 1)
            .times(1)
            .returning(|_, _, _| {
                Ok(RateDecision::Allowed {
                    limit: 40,
                    remaining: 39,
                    reset_seconds: 1,
                })
            });
        self
    }

    fn senders(&mut self, senders: Vec<SenderNumber>) -> &mut Self {
        self.accounts
            .expect_senders()
            .withf(|org| *org == org_id())
            .times(1)
            .returning(move |_| Ok(senders.clone().into()));
        self
    }

    /// The window store answers `window` for (org, `sender`, recipient).
    fn window(&mut self, sender: SenderId, window: Option<ServiceWindow>) -> &mut Self {
        self.windows
            .expect_window()
            .withf(move |org, s, to| {
                *org == org_id() && *s == sender && *to == Recipient::Number(phone(RECIPIENT))
            })
            .times(1)
            .returning(move |_, _, _| Ok(window.clone()));
        self
    }

    /// The template store answers `template` for the sender's WABA and `order_shipped`/`en_US`.
    fn template(&mut self, waba: NetworkRef, found: Option<Template>) -> &mut Self {
        self.templates
            .expect_template()
            .withf(move |org, w, name, language| {
                *org == org_id()
                    && *w == waba
                    && *name == template_ref().name
                    && *language == template_ref().language
            })
            .times(1)
            .returning(move |_, _, _, _| Ok(found.clone().map(Arc::new)));
        self
    }

    /// `accept` answers `outcome` once and keeps the request it was given.
    fn accept(&mut self, outcome: AcceptOutcome) -> Arc<Mutex<Option<AcceptRequest>>> {
        let seen = Arc::new(Mutex::new(None));
        let keep = Arc::clone(&seen);
        self.messages.expect_accept().times(1).returning(move |request| {
            *keep.lock().unwrap() = Some(request.clone());
            Ok(outcome)
        });
        seen
    }

    fn never_accept(&mut self) -> &mut Self {
        self.messages.expect_accept().times(0);
        self
    }

    fn never_release(&mut self) -> &mut Self {
        self.messages.expect_release_idempotent().times(0);
        self
    }

    fn never_rate(&mut self) -> &mut Self {
        self.limiter.expect_check().times(0);
        self
    }

    fn never_senders(&mut self) -> &mut Self {
        self.accounts.expect_senders().times(0);
        self
    }

    fn never_template(&mut self) -> &mut Self {
        self.templates.expect_template().times(0);
        self
    }

    fn never_window(&mut self) -> &mut Self {
        self.windows.expect_window().times(0);
        self
    }

    /// `begin_idempotent` answers `begin` once, for exactly the claim of `key()`/`fingerprint()` at `now()`.
    fn begin(&mut self, begin: IdempotencyBegin) -> &mut Self {
        let expected = IdempotencyClaim {
            organization_id: org_id(),
            key: key(),
            token: crate::dispatch::ClaimToken(ulid::Ulid::nil()),
            fingerprint: fingerprint(),
            now: now(),
            lock_until: now() - seconds(60),
            completed_after: now() - chrono::TimeDelta::hours(24),
        };
        self.messages
            .expect_begin_idempotent()
            // The token is fresh per claim; everything else is fixed.
            .withf(move |claim| {
                *claim
                    == IdempotencyClaim {
                        token: claim.token,
                        ..expected.clone()
                    }
            })
            .times(1)
            .returning(move |_| Ok(begin.clone()));
        self
    }

    /// `release_idempotent` is called exactly once, for this organization and `key()`.
    fn release_once(&mut self, result: fn() -> Result<(), StoreError>) -> &mut Self {
        self.messages
            .expect_release_idempotent()
            .withf(|org, hold| *org == org_id() && hold.key == key())
            .times(1)
            .returning(move |_, _| result());
        self
    }

    /// A keyed text send to the default sender's open window: the key is claimed and every check before the
    /// accept passes.
    fn keyed_text_send_passes_every_check(&mut self) -> &mut Self {
        self.begin(IdempotencyBegin::Started)
            .allow_rate()
            .senders(two_senders())
            .window(
                default_sender().id,
                Some(window_since(default_sender().id, chrono::TimeDelta::hours(1))),
            )
    }

    fn build(self) -> SendMessage {
        self.build_at(now())
    }

    /// Builds the use case with its clock at `at` instead of `now()`.
    fn build_at(self, at: Timestamp) -> SendMessage {
        SendMessage::new(
            SendPorts {
                accounts: Arc::new(self.accounts),
                messages: Arc::new(self.messages),
                templates: Arc::new(self.templates),
                windows: Arc::new(self.windows),
                limiter: Arc::new(self.limiter),
                catalog: Arc::new(self.catalog),
                files: Arc::new(self.files),
                clock: Arc::new(clock_at(at)),
                ids: Arc::new(sequential_ids()),
            },
            SendSettings::default(),
        )
    }
}

fn key() -> IdempotencyKey {
    IdempotencyKey::parse("order-1234").unwrap()
}

fn fingerprint() -> RequestFingerprint {
    RequestFingerprint::of(b"send-text {\"to\":\"+15551234567\"}")
}

fn other_fingerprint() -> RequestFingerprint {
    RequestFingerprint::of(b"send-text {\"to\":\"+15559999999\"}")
}

fn draft(content: MessageContent) -> SendDraft {
    SendDraft {
        to: phone(RECIPIENT).into(),
        from: None,
        content,
        reply_to: None,
        client_reference: None,
        send_at: None,
        marketing_route: None,
        activity_sharing: None,
    }
}

fn command(kind: MessageKind, draft: Result<SendDraft, ValidationErrors>) -> SendCommand {
    SendCommand {
        organization: organization(AccountStatus::Active),
        plan: plan(),
        kind,
        draft,
        idempotency: None,
    }
}

fn text_command() -> SendCommand {
    command(MessageKind::Text, Ok(draft(text_content("hello"))))
}

fn with_key(mut command: SendCommand, fp: RequestFingerprint) -> SendCommand {
    command.idempotency = Some((key(), fp));
    command
}

/// The variables that fit `template(.., HeaderSpec::None, 1)`.
fn one_variable() -> TemplateVariables {
    TemplateVariables::positional(vec![template_text("Ana")])
}

fn template_command(variables: TemplateVariables) -> SendCommand {
    command(MessageKind::Template, Ok(draft(template_content(variables))))
}

fn invalid() -> ValidationErrors {
    ValidationErrors::single("to", "must be an E.164 number")
}

/// A window opened by an inbound message `ago` before now.
fn window_since(sender: SenderId, ago: chrono::TimeDelta) -> ServiceWindow {
    ServiceWindow {
        organization_id: org_id(),
        sender_id: sender,
        recipient: Recipient::Number(phone(RECIPIENT)),
        last_inbound_at: now() - ago,
    }
}

fn default_sender() -> SenderNumber {
    sender(1, DEFAULT_NUMBER, true)
}

fn second_sender() -> SenderNumber {
    sender(2, SECOND_NUMBER, false)
}

// ---- account and plan ----

#[test]
fn an_inactive_organization_is_refused_before_any_port_is_called() {
    for status in [AccountStatus::Suspended, AccountStatus::Closed] {
        let mut ports = Ports::new();
        ports
            .never_rate()
            .never_senders()
            .never_template()
            .never_window()
            .never_accept()
            .never_release();
        ports.messages.expect_begin_idempotent().times(0);
        let mut cmd = with_key(text_command(), fingerprint());
        cmd.organization.status = status;

        let result = run(ports.build().execute(cmd));

        assert!(
            matches!(result, Err(SendError::AccountInactive)),
            "{status:?}: {result:?}"
        );
    }
}

#[test]
fn a_kind_the_plan_forbids_is_refused_without_rate_check_or_store_call() {
    let mut ports = Ports::new();
    ports
        .never_rate()
        .never_senders()
        .never_template()
        .never_window()
        .never_accept()
        .never_release();
    ports.messages.expect_begin_idempotent().times(0);
    let mut cmd = command(
        MessageKind::Media,
        Ok(draft(MessageContent::Media {
            media: media(MediaKind::Image),
            caption: None,
        })),
    );
    cmd.plan.media_allowed = false;

    let result = run(ports.build().execute(cmd));

    assert!(
        matches!(result, Err(SendError::PlanForbids(MessageKind::Media))),
        "{result:?}"
    );
}

#[test]
fn the_plan_check_uses_the_commands_kind_for_text_and_template_too() {
    for kind in [MessageKind::Text, MessageKind::Template] {
        let mut ports = Ports::new();
        ports.never_rate().never_senders().never_accept();
        let mut cmd = command(kind, Ok(draft(text_content("hello"))));
        cmd.plan.text_allowed = kind != MessageKind::Text;
        cmd.plan.template_allowed = kind != MessageKind::Template;

        let result = run(ports.build().execute(cmd));

        assert!(
            matches!(result, Err(SendError::PlanForbids(k)) if k == kind),
            "{kind:?}: {result:?}"
        );
    }
}

// ---- rate ----

#[test]
fn a_rate_limited_send_is_refused_with_the_limiters_wait() {
    let mut ports = Ports::new();
    ports.never_senders().never_accept();
    ports.limiter.expect_check().times(1).returning(|_, _, _| {
        Ok(RateDecision::Limited {
            limit: 40,
            retry_after_seconds: 7,
        })
    });

    let result = run(ports.build().execute(text_command()));

    assert!(
        matches!(
            result,
            Err(SendError::RateLimited {
                limit: 40,
                retry_after_seconds: 7
            })
        ),
        "{result:?}"
    );
}

#[test]
fn a_rate_limited_send_waits_at_least_one_second() {
    let mut ports = Ports::new();
    ports.never_senders().never_accept();
    ports.limiter.expect_check().times(1).returning(|_, _, _| {
        Ok(RateDecision::Limited {
            limit: 5,
            retry_after_seconds: 0,
        })
    });

    let result = run(ports.build().execute(text_command()));

    assert!(
        matches!(
            result,
            Err(SendError::RateLimited {
                limit: 5,
                retry_after_seconds: 1
            })
        ),
        "{result:?}"
    );
}

#[test]
fn a_limiter_failure_is_a_store_error_and_nothing_else_runs() {
    let mut ports = Ports::new();
    ports.never_senders().never_accept();
    ports
        .limiter
        .expect_check()
        .times(1)
        .returning(|_, _, _| Err(StoreError::Unavailable("redis down".into())));

    let result = run(ports.build().execute(text_command()));

    assert!(
        matches!(result, Err(SendError::Store(StoreError::Unavailable(_)))),
        "{result:?}"
    );
}

// ---- validation and sender ----

#[test]
fn an_invalid_draft_is_refused_with_its_field_errors_before_the_senders_are_read() {
    let mut ports = Ports::new();
    ports
        .allow_rate()
        .never_senders()
        .never_template()
        .never_window()
        .never_accept();

    let result = run(ports.build().execute(command(MessageKind::Text, Err(invalid()))));

    let Err(SendError::Invalid(errors)) = result else {
        panic!("expected Invalid, got {result:?}");
    };
    assert_eq!(errors, invalid());
}

#[test]
fn an_unknown_from_is_a_validation_error_on_from() {
    let mut ports = Ports::new();
    ports
        .allow_rate()
        .senders(two_senders())
        .never_template()
        .never_window()
        .never_accept();
    let mut d = draft(text_content("hello"));
    d.from = Some(phone("+15550003333"));

    let result = run(ports.build().execute(command(MessageKind::Text, Ok(d))));

    let Err(SendError::Invalid(errors)) = result else {
        panic!("expected Invalid, got {result:?}");
    };
    let [error] = errors.errors() else {
        panic!("one error expected: {errors:?}");
    };
    assert_eq!(error.field, "from");
    assert!(error.message.contains("+15550003333"), "{}", error.message);
}

#[test]
fn without_from_and_without_a_default_sender_the_send_is_refused() {
    let mut ports = Ports::new();
    let no_default = vec![sender(1, DEFAULT_NUMBER, false), sender(2, SECOND_NUMBER, false)];
    ports
        .allow_rate()
        .senders(no_default)
        .never_window()
        .never_accept();

    let result = run(ports.build().execute(text_command()));

    let Err(SendError::Invalid(errors)) = result else {
        panic!("expected Invalid, got {result:?}");
    };
    let [error] = errors.errors() else {
        panic!("one error expected: {errors:?}");
    };
    assert_eq!(error.field, "from");
    assert!(error.message.contains("default"), "{}", error.message);
}

#[test]
fn an_organization_without_senders_cannot_send() {
    let mut ports = Ports::new();
    ports
        .allow_rate()
        .senders(Vec::new())
        .never_window()
        .never_accept();

    let result = run(ports.build().execute(text_command()));

    assert!(matches!(result, Err(SendError::Invalid(_))), "{result:?}");
}

#[test]
fn a_senders_read_failure_is_a_store_error() {
    let mut ports = Ports::new();
    ports.allow_rate().never_window().never_accept();
    ports
        .accounts
        .expect_senders()
        .times(1)
        .returning(|_| Err(StoreError::Unavailable("db down".into())));

    let result = run(ports.build().execute(text_command()));

    assert!(
        matches!(result, Err(SendError::Store(StoreError::Unavailable(_)))),
        "{result:?}"
    );
}

// ---- templates ----

#[test]
fn a_missing_template_is_template_not_found_looked_up_in_the_senders_waba() {
    let mut ports = Ports::new();
    ports
        .allow_rate()
        .senders(two_senders())
        .template(second_sender().waba_id, None)
        .never_window()
        .never_accept();
    let mut cmd = template_command(one_variable());
    if let Ok(d) = &mut cmd.draft {
        d.from = Some(phone(SECOND_NUMBER));
    }

    let result = run(ports.build().execute(cmd));

    let Err(SendError::TemplateNotFound(reference)) = result else {
        panic!("expected TemplateNotFound, got {result:?}");
    };
    assert_eq!(reference, template_ref());
}

#[test]
fn a_template_not_approved_is_refused_with_its_status() {
    let waba = default_sender().waba_id;
    let mut ports = Ports::new();
    ports
        .allow_rate()
        .senders(two_senders())
        .template(waba.clone(), Some(template(&waba, "PAUSED", HeaderSpec::None, 1)))
        .never_window()
        .never_accept();

    let result = run(ports.build().execute(template_command(one_variable())));

    assert!(
        matches!(&result, Err(SendError::TemplateNotApproved(status)) if status == "PAUSED"),
        "{result:?}"
    );
}

#[test]
fn variables_that_do_not_fit_are_a_template_mismatch() {
    let waba = default_sender().waba_id;
    let mut ports = Ports::new();
    ports
        .allow_rate()
        .senders(two_senders())
        .template(
            waba.clone(),
            Some(template(&waba, "APPROVED", HeaderSpec::None, 2)),
        )
        .never_window()
        .never_accept();

    let result = run(ports.build().execute(template_command(one_variable())));

    assert!(
        matches!(&result, Err(SendError::TemplateMismatch(detail)) if detail == "body expects 2 parameters, got 1"),
        "{result:?}"
    );
}

#[test]
fn a_header_file_of_the_wrong_kind_is_a_header_media_mismatch() {
    let waba = default_sender().waba_id;
    let mut ports = Ports::new();
    ports
        .allow_rate()
        .senders(two_senders())
        .template(
            waba.clone(),
            Some(template(
                &waba,
                "APPROVED",
                HeaderSpec::Media(MediaKind::Document),
                1,
            )),
        )
        .never_window()
        .never_accept();
    let mut variables = one_variable();
    variables.header = Some(HeaderValue::Media(media(MediaKind::Image)));

    let result = run(ports.build().execute(template_command(variables)));

    assert!(
        matches!(&result, Err(SendError::HeaderMediaMismatch(detail))
            if detail.contains("a document") && detail.contains("an image")),
        "{result:?}"
    );
}

#[test]
fn a_template_store_failure_is_a_store_error() {
    let mut ports = Ports::new();
    ports.allow_rate().senders(two_senders()).never_accept();
    ports
        .templates
        .expect_template()
        .times(1)
        .returning(|_, _, _, _| Err(StoreError::Unavailable("db down".into())));

    let result = run(ports.build().execute(template_command(one_variable())));

    assert!(
        matches!(result, Err(SendError::Store(StoreError::Unavailable(_)))),
        "{result:?}"
    );
}

// ---- service window ----

#[test]
fn free_form_to_a_number_that_never_wrote_is_window_closed() {
    let mut ports = Ports::new();
    ports
        .allow_rate()
        .senders(two_senders())
        .window(default_sender().id, None)
        .never_template()
        .never_accept();

    let result = run(ports.build().execute(text_command()));

    assert!(
        matches!(&result, Err(SendError::WindowClosed { to }) if *to == Recipient::Number(phone(RECIPIENT))),
        "{result:?}"
    );
}

#[test]
fn free_form_after_the_window_expired_is_window_closed() {
    for ago in [chrono::TimeDelta::hours(24), chrono::TimeDelta::hours(25)] {
        let mut ports = Ports::new();
        ports
            .allow_rate()
            .senders(two_senders())
            .window(default_sender().id, Some(window_since(default_sender().id, ago)))
            .never_accept();

        let result = run(ports.build().execute(text_command()));

        assert!(
            matches!(result, Err(SendError::WindowClosed { .. })),
            "{ago}: {result:?}"
        );
    }
}

#[test]
fn the_window_is_the_chosen_senders_not_the_defaults() {
    // The second sender's window is open; the default sender's is not asked.
    let mut ports = Ports::new();
    ports.allow_rate().senders(two_senders()).window(
        second_sender().id,
        Some(window_since(second_sender().id, chrono::TimeDelta::hours(1))),
    );
    let accepted = ports.accept(AcceptOutcome::Accepted);
    let mut d = draft(text_content("hello"));
    d.from = Some(phone(SECOND_NUMBER));

    let result = run(ports.build().execute(command(MessageKind::Text, Ok(d))));

    assert!(matches!(result, Ok(SendOutcome::Accepted(_))), "{result:?}");
    let request = accepted.lock().unwrap().clone().unwrap();
    assert_eq!(request.job.sender_id, second_sender().id);
    assert_eq!(request.message.from, phone(SECOND_NUMBER));
}

#[test]
fn media_follows_the_window_like_text() {
    let mut ports = Ports::new();
    ports
        .allow_rate()
        .senders(two_senders())
        .window(default_sender().id, None)
        .never_template()
        .never_accept();
    let cmd = command(
        MessageKind::Media,
        Ok(draft(MessageContent::Media {
            media: media(MediaKind::Document),
            caption: None,
        })),
    );

    let result = run(ports.build().execute(cmd));

    assert!(
        matches!(result, Err(SendError::WindowClosed { .. })),
        "{result:?}"
    );
}

#[test]
fn a_window_store_failure_is_a_store_error() {
    let mut ports = Ports::new();
    ports.allow_rate().senders(two_senders()).never_accept();
    ports
        .windows
        .expect_window()
        .times(1)
        .returning(|_, _, _| Err(StoreError::Unavailable("db down".into())));

    let result = run(ports.build().execute(text_command()));

    assert!(
        matches!(result, Err(SendError::Store(StoreError::Unavailable(_)))),
        "{result:?}"
    );
}

#[test]
fn a_template_goes_outside_the_window_without_the_window_being_read() {
    let waba = default_sender().waba_id;
    let mut ports = Ports::new();
    ports
        .allow_rate()
        .senders(two_senders())
        .template(
            waba.clone(),
            Some(template(&waba, "APPROVED", HeaderSpec::None, 1)),
        )
        .never_window()
        .never_release();
    let accepted = ports.accept(AcceptOutcome::Accepted);

    let result = run(ports.build().execute(template_command(one_variable())));

    let Ok(SendOutcome::Accepted(message)) = result else {
        panic!("expected Accepted, got {result:?}");
    };
    assert_eq!(message.content, template_content(one_variable()));
    assert_eq!(accepted.lock().unwrap().clone().unwrap().message, message);
}

// ---- accept ----

#[test]
fn an_open_window_accepts_exactly_the_expected_request() {
    let mut ports = Ports::new();
    ports
        .begin(IdempotencyBegin::Started)
        .allow_rate()
        .senders(two_senders())
        .window(
            second_sender().id,
            Some(window_since(second_sender().id, chrono::TimeDelta::hours(23))),
        )
        .never_template()
        .never_release();
    let accepted = ports.accept(AcceptOutcome::Accepted);
    let reference = ClientReference::parse("order-1234").unwrap();
    let cmd = with_key(
        command(
            MessageKind::Text,
            Ok(SendDraft {
                to: phone(RECIPIENT).into(),
                from: Some(phone(SECOND_NUMBER)),
                content: text_content("hello"),
                reply_to: None,
                client_reference: Some(reference.clone()),
                send_at: None,
                marketing_route: None,
                activity_sharing: None,
            }),
        ),
        fingerprint(),
    );

    let result = run(ports.build().execute(cmd));

    let Ok(SendOutcome::Accepted(returned)) = result else {
        panic!("expected Accepted, got {result:?}");
    };
    let request = accepted.lock().unwrap().clone().unwrap();
    // Ids come from the generator, one each, whatever order they are drawn in.
    let mut drawn = vec![
        request.message.id.ulid(),
        request.event.id.ulid(),
        request.job.id.ulid(),
        request.idempotency.clone().unwrap().token.0,
    ];
    drawn.sort();
    assert_eq!(
        drawn,
        vec![generated(1), generated(2), generated(3), generated(4)]
    );

    let message_id = request.message.id;
    let sender = second_sender();
    let expected = AcceptRequest {
        recipient_check: None,
        customer_event: None,
        message: Message {
            id: message_id,
            organization_id: org_id(),
            sender_id: sender.id,
            from: sender.number.clone(),
            to: phone(RECIPIENT).into(),
            content: text_content("hello"),
            reply_to: None,
            client_reference: Some(reference),
            status: MessageStatus::Accepted,
            network_message_id: None,
            error: None,
            send_at: None,
            broadcast_id: None,
            created_at: now(),
            updated_at: now(),
            timestamps: crate::message::StatusTimestamps {
                accepted: Some(now()),
                ..Default::default()
            },
            pricing: None,
            marketing: None,
            route: None,
        },
        event: StatusEvent {
            id: EventId::from_ulid(request.event.id.ulid()),
            organization_id: org_id(),
            message_id,
            status: MessageStatus::Accepted,
            previous_status: None,
            applied: true,
            source: EventSource::Herald,
            error: None,
            occurred_at: now(),
            recorded_at: now(),
        },
        job: OutboxJob {
            id: JobId::from_ulid(request.job.id.ulid()),
            organization_id: org_id(),
            message_id,
            sender_id: sender.id,
            available_at: now(),
            deadline: now() + chrono::TimeDelta::hours(24),
            trace: None,
        },
        quota: QuotaCharge {
            period: BillingPeriod::from_stored("2026-11"),
            limit: Some(1_000),
        },
        idempotency: request.idempotency.clone().filter(|hold| hold.key == key()),
    };
    assert!(expected.idempotency.is_some(), "the request holds its key");
    assert_eq!(request, expected);
    assert_eq!(returned, expected.message);
}

#[test]
fn without_an_idempotency_key_the_accept_carries_none_and_an_unlimited_plan_no_limit() {
    let mut ports = Ports::new();
    ports.senders(two_senders()).window(
        default_sender().id,
        Some(window_since(default_sender().id, chrono::TimeDelta::minutes(5))),
    );
    ports.limiter.expect_check().times(1).returning(|_, _, _| {
        Ok(RateDecision::Allowed {
            limit: 1,
            remaining: 0,
            reset_seconds: 1,
        })
    });
    ports.messages.expect_begin_idempotent().times(0);
    let accepted = ports.accept(AcceptOutcome::Accepted);
    let mut cmd = text_command();
    cmd.plan.monthly_quota = None;

    let result = run(ports.build().execute(cmd));

    assert!(matches!(result, Ok(SendOutcome::Accepted(_))), "{result:?}");
    let request = accepted.lock().unwrap().clone().unwrap();
    assert_eq!(request.idempotency, None);
    assert_eq!(request.quota.limit, None);
    assert_eq!(request.job.sender_id, default_sender().id);
}

#[test]
fn a_lone_sender_that_is_not_marked_default_is_used() {
    let lone = sender(1, DEFAULT_NUMBER, false);
    let mut ports = Ports::new();
    ports
        .allow_rate()
        .senders(vec![lone.clone()])
        .window(lone.id, Some(window_since(lone.id, chrono::TimeDelta::hours(1))));
    let accepted = ports.accept(AcceptOutcome::Accepted);

    let result = run(ports.build().execute(text_command()));

    assert!(matches!(result, Ok(SendOutcome::Accepted(_))), "{result:?}");
    assert_eq!(accepted.lock().unwrap().clone().unwrap().job.sender_id, lone.id);
}

#[test]
fn an_exhausted_quota_waits_until_the_month_ends_and_releases_the_claim() {
    let mut ports = Ports::new();
    ports.keyed_text_send_passes_every_check().release_once(|| Ok(()));
    let _ = ports.accept(AcceptOutcome::QuotaExceeded);

    let result = run(ports.build().execute(with_key(text_command(), fingerprint())));

    // 2026-11-21T10:15:30Z → 2026-12-01T00:00:00Z: 9 d 13 h 44 min 30 s.
    let to_month_end = 9 * 86_400 + 13 * 3_600 + 44 * 60 + 30;
    assert!(
        matches!(
            result,
            Err(SendError::QuotaExceeded { limit: 1_000, retry_after_seconds }) if retry_after_seconds == to_month_end
        ),
        "{result:?}"
    );
}

#[test]
fn the_quota_wait_never_ends_before_the_month_does() {
    // 1.5 s before the month ends: waiting 1 s lands in the same month, still over quota.
    let at = chrono::Utc.with_ymd_and_hms(2026, 11, 30, 23, 59, 58).unwrap()
        + chrono::TimeDelta::milliseconds(500);
    let month_end = chrono::Utc.with_ymd_and_hms(2026, 12, 1, 0, 0, 0).unwrap();
    let mut ports = Ports::new();
    ports.allow_rate().senders(two_senders());
    ports
        .windows
        .expect_window()
        .times(1)
        .returning(move |_, sender, to| {
            Ok(Some(ServiceWindow {
                organization_id: org_id(),
                sender_id: *sender,
                recipient: to.clone(),
                last_inbound_at: at - chrono::TimeDelta::hours(1),
            }))
        });
    let _ = ports.accept(AcceptOutcome::QuotaExceeded);

    let result = run(ports.build_at(at).execute(text_command()));

    let Err(SendError::QuotaExceeded {
        retry_after_seconds, ..
    }) = result
    else {
        panic!("expected QuotaExceeded, got {result:?}");
    };
    let retry_at = at + seconds(i64::try_from(retry_after_seconds).unwrap());
    assert!(
        retry_at >= month_end,
        "retrying at {retry_at} is still before {month_end}"
    );
    assert_eq!(retry_after_seconds, 2);
}

#[test]
fn an_accept_failure_is_a_store_error_and_releases_the_claim() {
    let mut ports = Ports::new();
    ports.keyed_text_send_passes_every_check().release_once(|| Ok(()));
    ports
        .messages
        .expect_accept()
        .times(1)
        .returning(|_| Err(StoreError::Conflict("message id".into())));

    let result = run(ports.build().execute(with_key(text_command(), fingerprint())));

    assert!(
        matches!(result, Err(SendError::Store(StoreError::Conflict(_)))),
        "{result:?}"
    );
}

// ---- idempotency ----

#[test]
fn a_claimed_key_of_a_refused_send_is_released_once() {
    let mut ports = Ports::new();
    ports
        .begin(IdempotencyBegin::Started)
        .allow_rate()
        .senders(two_senders())
        .window(default_sender().id, None)
        .never_accept()
        .release_once(|| Ok(()));

    let result = run(ports.build().execute(with_key(text_command(), fingerprint())));

    assert!(
        matches!(result, Err(SendError::WindowClosed { .. })),
        "{result:?}"
    );
}

#[test]
fn a_claimed_key_is_released_whatever_check_refuses() {
    // Plan, rate and validation refusals all come after the claim, so each must release it.
    let mut forbidden = Ports::new();
    forbidden
        .begin(IdempotencyBegin::Started)
        .never_rate()
        .release_once(|| Ok(()));
    let mut cmd = with_key(text_command(), fingerprint());
    cmd.plan.text_allowed = false;
    let result = run(forbidden.build().execute(cmd));
    assert!(matches!(result, Err(SendError::PlanForbids(_))), "{result:?}");

    let mut limited = Ports::new();
    limited.begin(IdempotencyBegin::Started).release_once(|| Ok(()));
    limited.limiter.expect_check().times(1).returning(|_, _, _| {
        Ok(RateDecision::Limited {
            limit: 1,
            retry_after_seconds: 3,
        })
    });
    let result = run(limited.build().execute(with_key(text_command(), fingerprint())));
    assert!(matches!(result, Err(SendError::RateLimited { .. })), "{result:?}");

    let mut bad = Ports::new();
    bad.begin(IdempotencyBegin::Started)
        .allow_rate()
        .never_senders()
        .release_once(|| Ok(()));
    let cmd = with_key(command(MessageKind::Text, Err(invalid())), fingerprint());
    let result = run(bad.build().execute(cmd));
    assert!(matches!(result, Err(SendError::Invalid(_))), "{result:?}");
}

#[test]
fn a_failed_release_does_not_mask_the_refusal() {
    let mut ports = Ports::new();
    ports
        .begin(IdempotencyBegin::Started)
        .allow_rate()
        .senders(two_senders())
        .window(default_sender().id, None)
        .never_accept()
        .release_once(|| Err(StoreError::Unavailable("db down".into())));

    let result = run(ports.build().execute(with_key(text_command(), fingerprint())));

    assert!(
        matches!(result, Err(SendError::WindowClosed { .. })),
        "{result:?}"
    );
}

#[test]
fn an_accepted_send_with_a_key_does_not_release_it() {
    let mut ports = Ports::new();
    ports.keyed_text_send_passes_every_check().never_release();
    let accepted = ports.accept(AcceptOutcome::Accepted);

    let result = run(ports.build().execute(with_key(text_command(), fingerprint())));

    assert!(matches!(result, Ok(SendOutcome::Accepted(_))), "{result:?}");
    assert_eq!(
        accepted
            .lock()
            .unwrap()
            .clone()
            .unwrap()
            .idempotency
            .map(|hold| hold.key),
        Some(key())
    );
}

/// A request that outlived its claim (a retry took the key over) is refused like any request that finds the
/// key in flight: the retry's claim decides, and only one message is accepted for the key.
#[test]
fn an_accept_whose_idempotency_claim_was_taken_over_answers_in_flight() {
    let mut ports = Ports::new();
    ports.keyed_text_send_passes_every_check().release_once(|| Ok(()));
    let _ = ports.accept(AcceptOutcome::IdempotencyClaimLost);

    let result = run(ports.build().execute(with_key(text_command(), fingerprint())));

    assert!(
        matches!(result, Err(SendError::IdempotencyConflict)),
        "{result:?}"
    );
}

#[test]
fn a_completed_key_with_the_same_request_replays_the_first_response() {
    let first = stored_message(1);
    let mut later = first.clone();
    later.status = MessageStatus::Delivered;
    later.network_message_id = Some("wamid.HBgL".into());
    later.timestamps.submitted = Some(first.created_at + seconds(1));
    later.timestamps.sent = Some(first.created_at + seconds(2));
    later.timestamps.delivered = Some(first.created_at + seconds(3));
    later.updated_at = first.created_at + seconds(3);
    let id = first.id;

    let mut ports = Ports::new();
    ports
        .begin(IdempotencyBegin::Completed {
            fingerprint: fingerprint(),
            message_id: id,
        })
        .never_rate()
        .never_senders()
        .never_window()
        .never_accept()
        .never_release();
    ports
        .messages
        .expect_message()
        .withf(move |org, m| *org == org_id() && *m == id)
        .times(1)
        .returning(move |_, _| Ok(Some(later.clone())));

    let result = run(ports.build().execute(with_key(text_command(), fingerprint())));

    let Ok(SendOutcome::Replayed(message)) = result else {
        panic!("expected Replayed, got {result:?}");
    };
    assert_eq!(message, first);
    assert_eq!(message.status, MessageStatus::Accepted);
}

#[test]
fn a_completed_key_pointing_at_a_missing_message_is_an_unknown_store_error() {
    let mut ports = Ports::new();
    ports
        .begin(IdempotencyBegin::Completed {
            fingerprint: fingerprint(),
            message_id: stored_message(1).id,
        })
        .never_accept()
        .never_release();
    ports
        .messages
        .expect_message()
        .times(1)
        .returning(|_, _| Ok(None));

    let result = run(ports.build().execute(with_key(text_command(), fingerprint())));

    assert!(
        matches!(result, Err(SendError::Store(StoreError::Unknown(_)))),
        "{result:?}"
    );
}

#[test]
fn a_completed_key_with_a_different_request_is_key_reused() {
    let mut ports = Ports::new();
    ports
        .begin(IdempotencyBegin::Completed {
            fingerprint: other_fingerprint(),
            message_id: stored_message(1).id,
        })
        .never_rate()
        .never_accept()
        .never_release();
    ports.messages.expect_message().times(0);

    let result = run(ports.build().execute(with_key(text_command(), fingerprint())));

    assert!(
        matches!(result, Err(SendError::IdempotencyKeyReused)),
        "{result:?}"
    );
}

#[test]
fn a_key_in_flight_is_a_conflict_for_the_same_request_and_reused_for_another() {
    for (stored, same) in [(fingerprint(), true), (other_fingerprint(), false)] {
        let mut ports = Ports::new();
        ports
            .begin(IdempotencyBegin::InFlight { fingerprint: stored })
            .never_rate()
            .never_senders()
            .never_accept()
            .never_release();

        let result = run(ports.build().execute(with_key(text_command(), fingerprint())));

        if same {
            assert!(
                matches!(result, Err(SendError::IdempotencyConflict)),
                "{result:?}"
            );
        } else {
            assert!(
                matches!(result, Err(SendError::IdempotencyKeyReused)),
                "{result:?}"
            );
        }
    }
}

#[test]
fn a_failed_claim_is_a_store_error_with_nothing_to_release() {
    let mut ports = Ports::new();
    ports.never_rate().never_accept().never_release();
    ports
        .messages
        .expect_begin_idempotent()
        .times(1)
        .returning(|_| Err(StoreError::Unavailable("db down".into())));

    let result = run(ports.build().execute(with_key(text_command(), fingerprint())));

    assert!(
        matches!(result, Err(SendError::Store(StoreError::Unavailable(_)))),
        "{result:?}"
    );
}

#[test]
fn the_claim_windows_follow_the_settings() {
    let mut messages = MockMessageStore::new();
    messages
        .expect_begin_idempotent()
        .withf(|claim| {
            claim.now == now()
                && claim.lock_until == now() - seconds(30)
                && claim.completed_after == now() - chrono::TimeDelta::hours(2)
        })
        .times(1)
        .returning(|_| {
            Ok(IdempotencyBegin::InFlight {
                fingerprint: fingerprint(),
            })
        });
    let send = SendMessage::new(
        SendPorts {
            accounts: Arc::new(MockAccountStore::new()),
            messages: Arc::new(messages),
            templates: Arc::new(MockTemplateStore::new()),
            windows: Arc::new(MockWindowStore::new()),
            limiter: Arc::new(MockRateLimiter::new()),
            catalog: Arc::new(MockMediaCatalog::new()),
            files: Arc::new(MockMediaStore::new()),
            clock: Arc::new(clock_at(now())),
            ids: Arc::new(sequential_ids()),
        },
        SendSettings {
            idempotency_lock: seconds(30),
            idempotency_retention: chrono::TimeDelta::hours(2),
            dispatch_deadline: chrono::TimeDelta::hours(1),
            ..SendSettings::default()
        },
    );

    let result = run(send.execute(with_key(text_command(), fingerprint())));

    assert!(
        matches!(result, Err(SendError::IdempotencyConflict)),
        "{result:?}"
    );
}

#[test]
fn the_dispatch_deadline_follows_the_settings() {
    let mut ports = Ports::new();
    ports.allow_rate().senders(two_senders()).window(
        default_sender().id,
        Some(window_since(default_sender().id, chrono::TimeDelta::hours(1))),
    );
    let accepted = ports.accept(AcceptOutcome::Accepted);
    let send = SendMessage::new(
        SendPorts {
            accounts: Arc::new(ports.accounts),
            messages: Arc::new(ports.messages),
            templates: Arc::new(ports.templates),
            windows: Arc::new(ports.windows),
            limiter: Arc::new(ports.limiter),
            catalog: Arc::new(ports.catalog),
            files: Arc::new(ports.files),
            clock: Arc::new(clock_at(now())),
            ids: Arc::new(sequential_ids()),
        },
        SendSettings {
            dispatch_deadline: chrono::TimeDelta::hours(3),
            ..SendSettings::default()
        },
    );

    let result = run(send.execute(text_command()));

    assert!(matches!(result, Ok(SendOutcome::Accepted(_))), "{result:?}");
    let job = accepted.lock().unwrap().clone().unwrap().job;
    assert_eq!(job.deadline, now() + chrono::TimeDelta::hours(3));
    assert_eq!(job.available_at, now());
}

#[test]
fn the_accepting_requests_trace_is_kept_with_the_job() {
    let mut ports = Ports::new();
    ports.allow_rate().senders(two_senders()).window(
        default_sender().id,
        Some(window_since(default_sender().id, chrono::TimeDelta::hours(1))),
    );
    let accepted = ports.accept(AcceptOutcome::Accepted);
    let context =
        crate::trace::TraceContext::parse("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01 req_1")
            .unwrap();
    let mut traces = crate::trace::MockTraceLinks::new();
    traces.expect_exporting().return_const(true);
    let current = context.clone();
    traces
        .expect_current()
        .times(1)
        .returning(move || Some(current.clone()));
    let send = ports.build().with_trace_links(Arc::new(traces));

    let result = run(send.execute(text_command()));

    assert!(matches!(result, Ok(SendOutcome::Accepted(_))), "{result:?}");
    assert_eq!(
        accepted.lock().unwrap().clone().unwrap().job.trace,
        Some(trace_context())
    );
}

#[test]
fn without_tracing_the_job_keeps_no_trace() {
    let mut ports = Ports::new();
    ports.allow_rate().senders(two_senders()).window(
        default_sender().id,
        Some(window_since(default_sender().id, chrono::TimeDelta::hours(1))),
    );
    let accepted = ports.accept(AcceptOutcome::Accepted);

    let result = run(ports.build().execute(text_command()));

    assert!(matches!(result, Ok(SendOutcome::Accepted(_))), "{result:?}");
    assert_eq!(accepted.lock().unwrap().clone().unwrap().job.trace, None);
}

// ---- the order of checks (docs/api.md §8) ----

#[test]
fn order_plan_before_validation() {
    let mut ports = Ports::new();
    ports.never_rate().never_senders();
    let mut cmd = command(MessageKind::Media, Err(invalid()));
    cmd.plan.media_allowed = false;

    let result = run(ports.build().execute(cmd));

    assert!(
        matches!(result, Err(SendError::PlanForbids(MessageKind::Media))),
        "{result:?}"
    );
}

#[test]
fn order_rate_before_validation() {
    let mut ports = Ports::new();
    ports.never_senders();
    ports.limiter.expect_check().times(1).returning(|_, _, _| {
        Ok(RateDecision::Limited {
            limit: 40,
            retry_after_seconds: 2,
        })
    });

    let result = run(ports.build().execute(command(MessageKind::Text, Err(invalid()))));

    assert!(matches!(result, Err(SendError::RateLimited { .. })), "{result:?}");
}

#[test]
fn order_plan_before_rate() {
    let mut ports = Ports::new();
    ports.never_rate();
    let mut cmd = text_command();
    cmd.plan.text_allowed = false;

    let result = run(ports.build().execute(cmd));

    assert!(
        matches!(result, Err(SendError::PlanForbids(MessageKind::Text))),
        "{result:?}"
    );
}

#[test]
fn order_validation_before_template_lookup() {
    // A request that is both invalid and names a template that does not exist is `Invalid`: the template
    // store is never asked.
    let mut ports = Ports::new();
    ports.allow_rate().never_senders().never_template();

    let result = run(ports
        .build()
        .execute(command(MessageKind::Template, Err(invalid()))));

    assert!(matches!(result, Err(SendError::Invalid(_))), "{result:?}");
}

#[test]
fn order_template_before_quota() {
    // Refused by the template check, the send never reaches `accept`, where the quota is counted.
    let mut ports = Ports::new();
    ports
        .allow_rate()
        .senders(two_senders())
        .template(default_sender().waba_id, None)
        .never_accept();

    let result = run(ports.build().execute(template_command(one_variable())));

    assert!(
        matches!(result, Err(SendError::TemplateNotFound(_))),
        "{result:?}"
    );
}

// ---- media: `media_id` references and files uploaded with the request ----

mod dry_run;
mod targets;

mod media_sends {
    use super::*;
    use crate::attachment::{MediaAttachment, MediaKind, MediaSource};
    use crate::ids::MediaId;
    use crate::media::{ContentRef, MediaFile, MediaRecord, Sha256Digest, StagedFile};
    use crate::ports::MediaStoreError;
    use crate::values::FileName;

    fn media_id(n: u128) -> MediaId {
        MediaId::from_ulid(ulid(n))
    }

    fn content_ref(kind: MediaKind, size: u64) -> ContentRef {
        ContentRef {
            sha256: Sha256Digest::from_bytes([7; 32]),
            kind,
            mime_type: match kind {
                MediaKind::Document => "application/pdf",
                MediaKind::Image => "image/png",
                MediaKind::Video => "video/mp4",
                MediaKind::Audio => "audio/ogg",
                MediaKind::Sticker => "image/webp",
            }
            .into(),
            size,
        }
    }

    fn uploaded(n: u128, kind: MediaKind, created: Timestamp) -> MediaFile {
        MediaFile::new(
            media_id(n),
            org_id(),
            content_ref(kind, 10),
            Some(FileName::parse("invoice.pdf").unwrap()),
            created,
        )
    }

    /// A real staging file, so a test can see whether the use case removed it.
    fn staged(kind: MediaKind, size: u64) -> (StagedFile, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("herald-send-{}", ulid::Ulid::new()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("upload");
        std::fs::write(&path, b"bytes").unwrap();
        (StagedFile::new(path.clone(), content_ref(kind, size)), path)
    }

    fn media_draft(kind: MediaKind, source: MediaSource, filename: Option<&str>) -> SendDraft {
        draft(MessageContent::Media {
            media: MediaAttachment {
                kind,
                source,
                filename: filename.map(|f| FileName::parse(f).unwrap()),
            },
            caption: None,
        })
    }

    fn open_window(ports: &mut Ports) {
        ports.allow_rate().senders(two_senders()).window(
            default_sender().id,
            Some(window_since(default_sender().id, chrono::TimeDelta::hours(1))),
        );
    }

    fn knows(ports: &mut Ports, record: Option<MediaRecord>) {
        ports
            .catalog
            .expect_media()
            .withf(|org, id| *org == org_id() && *id == media_id(9))
            .times(1)
            .returning(move |_, _| Ok(record.clone()));
    }

    fn accepted_content(seen: &Arc<Mutex<Option<AcceptRequest>>>) -> MessageContent {
        seen.lock().unwrap().clone().unwrap().message.content
    }

    #[test]
    fn a_media_id_send_takes_the_kind_and_file_name_of_the_upload() {
        let mut ports = Ports::new();
        open_window(&mut ports);
        knows(
            &mut ports,
            Some(MediaRecord::Uploaded(uploaded(9, MediaKind::Document, now()))),
        );
        let seen = ports.accept(AcceptOutcome::Accepted);
        // The adapter does not know the kind of a `media_id`; the stored file decides.
        let draft = media_draft(MediaKind::Image, MediaSource::Stored(media_id(9)), None);

        let result = run(ports.build().execute(command(MessageKind::Media, Ok(draft))));

        assert!(matches!(result, Ok(SendOutcome::Accepted(_))), "{result:?}");
        let MessageContent::Media { media, .. } = accepted_content(&seen) else {
            panic!("not a media message");
        };
        assert_eq!(media.kind, MediaKind::Document);
        assert_eq!(media.source, MediaSource::Stored(media_id(9)));
        assert_eq!(media.filename.unwrap().as_str(), "invoice.pdf");
    }

    #[test]
    fn an_unknown_or_expired_media_id_is_a_validation_error_and_nothing_is_accepted() {
        for record in [
            None,
            Some(MediaRecord::Uploaded(uploaded(
                9,
                MediaKind::Image,
                now() - chrono::TimeDelta::days(31),
            ))),
        ] {
            let mut ports = Ports::new();
            ports
                .allow_rate()
                .senders(two_senders())
                .never_window()
                .never_accept();
            knows(&mut ports, record);
            let draft = media_draft(MediaKind::Image, MediaSource::Stored(media_id(9)), None);

            let result = run(ports.build().execute(command(MessageKind::Media, Ok(draft))));

            let Err(SendError::Invalid(errors)) = result else {
                panic!("expected a validation error, got {result:?}");
            };
            assert_eq!(errors.errors()[0].field, "media_id");
        }
    }

    #[test]
    fn a_header_media_id_of_another_kind_is_a_header_media_mismatch() {
        let mut ports = Ports::new();
        ports
            .allow_rate()
            .senders(two_senders())
            .never_template()
            .never_accept();
        knows(
            &mut ports,
            Some(MediaRecord::Uploaded(uploaded(9, MediaKind::Image, now()))),
        );
        let mut variables = one_variable();
        variables.header = Some(HeaderValue::Media(MediaAttachment {
            kind: MediaKind::Document,
            source: MediaSource::Stored(media_id(9)),
            filename: None,
        }));

        let result = run(ports.build().execute(template_command(variables)));

        assert!(
            matches!(&result, Err(SendError::HeaderMediaMismatch(detail)) if detail.contains("image")),
            "{result:?}"
        );
    }

    #[test]
    fn a_file_sent_with_the_request_is_committed_recorded_and_named_in_the_message() {
        let mut ports = Ports::new();
        open_window(&mut ports);
        let (upload, _) = staged(MediaKind::Video, 10);
        ports
            .files
            .expect_commit()
            .times(1)
            .returning(|staged| Ok(staged.content().clone()));
        let inserted = Arc::new(Mutex::new(None));
        let keep = Arc::clone(&inserted);
        ports
            .catalog
            .expect_insert_media()
            .times(1)
            .returning(move |file, _| {
                *keep.lock().unwrap() = Some(file.clone());
                Ok(MediaInsert::Stored)
            });
        let seen = ports.accept(AcceptOutcome::Accepted);
        let draft = media_draft(MediaKind::Video, MediaSource::Upload, None);

        let result = run(ports
            .build()
            .execute_with_upload(command(MessageKind::Media, Ok(draft)), Some(upload)));

        assert!(matches!(result, Ok(SendOutcome::Accepted(_))), "{result:?}");
        let file = inserted.lock().unwrap().clone().unwrap();
        assert_eq!(file.organization_id, org_id());
        assert_eq!(file.kind, MediaKind::Video);
        assert_eq!(file.expires_at, now() + chrono::TimeDelta::days(30));
        let MessageContent::Media { media, .. } = accepted_content(&seen) else {
            panic!("not a media message");
        };
        assert_eq!(media.source, MediaSource::Stored(file.id));
    }

    #[test]
    fn a_request_refused_before_accept_leaves_its_file_nowhere() {
        let mut ports = Ports::new();
        // The window is closed: refused after the file was staged, before anything was stored.
        ports
            .allow_rate()
            .senders(two_senders())
            .window(default_sender().id, None)
            .never_accept();
        ports.files.expect_commit().times(0);
        ports.catalog.expect_insert_media().times(0);
        let (upload, path) = staged(MediaKind::Image, 10);
        let draft = media_draft(MediaKind::Image, MediaSource::Upload, None);

        let result = run(ports
            .build()
            .execute_with_upload(command(MessageKind::Media, Ok(draft)), Some(upload)));

        assert!(
            matches!(result, Err(SendError::WindowClosed { .. })),
            "{result:?}"
        );
        assert!(!path.exists(), "the staged upload was left behind");
    }

    #[test]
    fn a_quota_refusal_after_the_file_was_stored_deletes_its_row_and_unshared_bytes() {
        let mut ports = Ports::new();
        open_window(&mut ports);
        let (upload, _) = staged(MediaKind::Image, 10);
        ports
            .files
            .expect_commit()
            .times(1)
            .returning(|staged| Ok(staged.content().clone()));
        ports
            .catalog
            .expect_insert_media()
            .times(1)
            .returning(|_, _| Ok(MediaInsert::Stored));
        ports.accept(AcceptOutcome::QuotaExceeded);
        ports
            .catalog
            .expect_delete_media()
            .withf(|org, _| *org == org_id())
            .times(1)
            .returning(|_, _| Ok(true));
        ports
            .catalog
            .expect_digest_in_use()
            .times(1)
            .returning(|_| Ok(false));
        ports
            .files
            .expect_remove()
            .withf(|digest| *digest == Sha256Digest::from_bytes([7; 32]))
            .times(1)
            .returning(|_| Ok(true));
        let draft = media_draft(MediaKind::Image, MediaSource::Upload, None);

        let result = run(ports
            .build()
            .execute_with_upload(command(MessageKind::Media, Ok(draft)), Some(upload)));

        assert!(
            matches!(result, Err(SendError::QuotaExceeded { .. })),
            "{result:?}"
        );
    }

    #[test]
    fn a_file_past_the_plans_media_storage_is_refused_before_anything_is_accepted() {
        let mut ports = Ports::new();
        open_window(&mut ports);
        let (upload, _) = staged(MediaKind::Image, 10);
        ports
            .files
            .expect_commit()
            .times(1)
            .returning(|staged| Ok(staged.content().clone()));
        ports
            .catalog
            .expect_insert_media()
            .withf(|_, limit| *limit == Some(STORAGE))
            .times(1)
            .returning(|_, _| Ok(MediaInsert::StorageFull { used: STORAGE }));
        // No accept is expected: a call to it would fail this test.
        ports.catalog.expect_delete_media().returning(|_, _| Ok(false));
        ports.catalog.expect_digest_in_use().returning(|_| Ok(false));
        ports.files.expect_remove().times(1).returning(|_| Ok(true));
        let draft = media_draft(MediaKind::Image, MediaSource::Upload, None);

        let result = run(ports
            .build()
            .execute_with_upload(command(MessageKind::Media, Ok(draft)), Some(upload)));

        assert!(
            matches!(result, Err(SendError::StorageFull(full)) if full.used == STORAGE && full.size == 10),
            "{result:?}"
        );
    }

    #[test]
    fn bytes_shared_with_another_upload_stay_when_a_refused_upload_is_forgotten() {
        let mut ports = Ports::new();
        open_window(&mut ports);
        let (upload, _) = staged(MediaKind::Image, 10);
        ports
            .files
            .expect_commit()
            .returning(|staged| Ok(staged.content().clone()));
        ports
            .catalog
            .expect_insert_media()
            .returning(|_, _| Ok(MediaInsert::Stored));
        ports.accept(AcceptOutcome::QuotaExceeded);
        ports.catalog.expect_delete_media().returning(|_, _| Ok(true));
        ports.catalog.expect_digest_in_use().returning(|_| Ok(true));
        ports.files.expect_remove().times(0);
        let draft = media_draft(MediaKind::Image, MediaSource::Upload, None);

        let result = run(ports
            .build()
            .execute_with_upload(command(MessageKind::Media, Ok(draft)), Some(upload)));

        assert!(
            matches!(result, Err(SendError::QuotaExceeded { .. })),
            "{result:?}"
        );
    }

    #[test]
    fn a_file_over_the_plan_limit_is_refused_and_removed() {
        let mut ports = Ports::new();
        ports
            .allow_rate()
            .senders(two_senders())
            .never_window()
            .never_accept();
        ports.files.expect_commit().times(0);
        let (upload, path) = staged(MediaKind::Document, plan().max_file_bytes + 1);
        let draft = media_draft(MediaKind::Document, MediaSource::Upload, Some("a.pdf"));

        let result = run(ports
            .build()
            .execute_with_upload(command(MessageKind::Media, Ok(draft)), Some(upload)));

        assert!(
            matches!(result, Err(SendError::FileTooLarge { .. })),
            "{result:?}"
        );
        assert!(!path.exists());
    }

    #[test]
    fn an_upload_source_without_a_file_is_a_validation_error() {
        let mut ports = Ports::new();
        ports
            .allow_rate()
            .senders(two_senders())
            .never_window()
            .never_accept();
        let draft = media_draft(MediaKind::Image, MediaSource::Upload, None);

        let result = run(ports.build().execute(command(MessageKind::Media, Ok(draft))));

        let Err(SendError::Invalid(errors)) = result else {
            panic!("expected a validation error, got {result:?}");
        };
        assert_eq!(errors.errors()[0].field, "file");
    }

    #[test]
    fn a_media_store_failure_is_a_store_unavailable_error_and_nothing_is_accepted() {
        let mut ports = Ports::new();
        open_window(&mut ports);
        ports.never_accept();
        ports
            .files
            .expect_commit()
            .returning(|_| Err(MediaStoreError::Io(std::io::Error::other("disk full"))));
        let (upload, _) = staged(MediaKind::Image, 10);
        let draft = media_draft(MediaKind::Image, MediaSource::Upload, None);

        let result = run(ports
            .build()
            .execute_with_upload(command(MessageKind::Media, Ok(draft)), Some(upload)));

        assert!(
            matches!(result, Err(SendError::Store(StoreError::Unavailable(_)))),
            "{result:?}"
        );
    }

    #[test]
    fn a_caption_or_filename_on_a_stored_audio_file_is_refused_once_its_kind_is_known() {
        let mut ports = Ports::new();
        ports
            .allow_rate()
            .senders(two_senders())
            .never_window()
            .never_accept();
        knows(
            &mut ports,
            Some(MediaRecord::Uploaded(uploaded(9, MediaKind::Audio, now()))),
        );
        // The adapter could not tell a `media_id` is audio; the stored file does.
        let mut draft = media_draft(
            MediaKind::Document,
            MediaSource::Stored(media_id(9)),
            Some("a.ogg"),
        );
        if let MessageContent::Media { caption, .. } = &mut draft.content {
            *caption = Some(crate::values::Caption::parse("hello").unwrap());
        }

        let result = run(ports.build().execute(command(MessageKind::Media, Ok(draft))));

        let Err(SendError::Invalid(errors)) = result else {
            panic!("expected a validation error, got {result:?}");
        };
        let fields: Vec<&str> = errors.errors().iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["caption", "filename"]);
        assert!(errors.errors()[0].message.contains("audio"), "{errors}");
    }

    #[test]
    fn a_sticker_sent_with_a_caption_is_refused_and_its_file_is_not_kept() {
        let mut ports = Ports::new();
        ports
            .allow_rate()
            .senders(two_senders())
            .never_window()
            .never_accept();
        ports.files.expect_commit().times(0);
        ports.catalog.expect_insert_media().times(0);
        let (upload, path) = staged(MediaKind::Sticker, 10);
        let mut draft = media_draft(MediaKind::Sticker, MediaSource::Upload, None);
        if let MessageContent::Media { caption, .. } = &mut draft.content {
            *caption = Some(crate::values::Caption::parse("hello").unwrap());
        }

        let result = run(ports
            .build()
            .execute_with_upload(command(MessageKind::Media, Ok(draft)), Some(upload)));

        let Err(SendError::Invalid(errors)) = result else {
            panic!("expected a validation error, got {result:?}");
        };
        assert_eq!(errors.errors()[0].field, "caption");
        assert!(!path.exists(), "the staged upload was left behind");
    }

    #[test]
    fn an_audio_or_sticker_upload_in_a_template_header_is_a_header_media_mismatch() {
        for kind in [MediaKind::Audio, MediaKind::Sticker] {
            let mut ports = Ports::new();
            ports
                .allow_rate()
                .senders(two_senders())
                .never_template()
                .never_accept();
            knows(&mut ports, Some(MediaRecord::Uploaded(uploaded(9, kind, now()))));
            let mut variables = one_variable();
            variables.header = Some(HeaderValue::Media(MediaAttachment {
                kind: MediaKind::Image,
                source: MediaSource::Stored(media_id(9)),
                filename: None,
            }));

            let result = run(ports.build().execute(template_command(variables)));

            assert!(
                matches!(&result, Err(SendError::HeaderMediaMismatch(detail)) if detail.contains(kind.as_str())),
                "{result:?}"
            );
        }
    }
}

// ---- recipient checks (docs/api.md §7.1) ----

/// The use case with recipient checks on: a real send leaves them to its accept's transaction
/// (`AcceptRequest::recipient_check`) and reads no contact itself (the mock allows no read).
fn build_with_checks(ports: Ports) -> SendMessage {
    ports
        .build()
        .with_recipient_checks(RecipientChecks::new(Arc::new(MockContactStore::new())))
}

fn marketing_template(waba: &NetworkRef) -> Template {
    Template {
        category: "MARKETING".into(),
        ..template(waba, "APPROVED", HeaderSpec::None, 1)
    }
}

#[test]
fn a_marketing_template_asks_the_accept_for_the_marketing_check_and_its_refusal_is_the_answer() {
    let waba = default_sender().waba_id;
    let mut ports = Ports::new();
    ports
        .allow_rate()
        .senders(two_senders())
        .template(waba.clone(), Some(marketing_template(&waba)))
        .never_release();
    let asked = ports.accept(AcceptOutcome::RecipientRefused(RecipientRefusal::OptedOut));
    let send = build_with_checks(ports);

    let result = run(send.execute(template_command(one_variable())));

    assert!(
        matches!(
            result,
            Err(SendError::Recipient { refusal: RecipientRefusal::OptedOut, ref to }) if *to == Recipient::Number(phone(RECIPIENT))
        ),
        "{result:?}"
    );
    let request = asked.lock().unwrap().clone().unwrap();
    assert_eq!(request.recipient_check, Some(SendPurpose::Marketing));
}

#[test]
fn a_utility_template_asks_the_accept_for_the_check_of_other_sends() {
    let waba = default_sender().waba_id;
    let mut ports = Ports::new();
    ports
        .allow_rate()
        .senders(two_senders())
        .template(
            waba.clone(),
            Some(template(&waba, "APPROVED", HeaderSpec::None, 1)),
        )
        .never_release();
    let accepted = ports.accept(AcceptOutcome::Accepted);
    let send = build_with_checks(ports);

    let result = run(send.execute(template_command(one_variable())));

    assert!(matches!(result, Ok(SendOutcome::Accepted(_))), "{result:?}");
    let request = accepted.lock().unwrap().clone().unwrap();
    assert_eq!(request.recipient_check, Some(SendPurpose::Other));
}

#[test]
fn a_free_form_send_the_accept_finds_blocked_answers_blocked() {
    let mut ports = Ports::new();
    ports.allow_rate().senders(two_senders()).window(
        default_sender().id,
        Some(window_since(default_sender().id, chrono::TimeDelta::hours(1))),
    );
    let asked = ports.accept(AcceptOutcome::RecipientRefused(RecipientRefusal::Blocked));
    let send = build_with_checks(ports);
    let result = run(send.execute(text_command()));
    assert!(
        matches!(
            result,
            Err(SendError::Recipient {
                refusal: RecipientRefusal::Blocked,
                ..
            })
        ),
        "{result:?}"
    );
    let request = asked.lock().unwrap().clone().unwrap();
    assert_eq!(request.recipient_check, Some(SendPurpose::Other));
}

#[test]
fn without_recipient_checks_the_accept_is_asked_for_none() {
    let waba = default_sender().waba_id;
    let mut ports = Ports::new();
    ports
        .allow_rate()
        .senders(two_senders())
        .template(waba.clone(), Some(marketing_template(&waba)));
    let accepted = ports.accept(AcceptOutcome::Accepted);
    let result = run(ports.build().execute(template_command(one_variable())));
    assert!(matches!(result, Ok(SendOutcome::Accepted(_))), "{result:?}");
    assert_eq!(accepted.lock().unwrap().clone().unwrap().recipient_check, None);
}

// ---- scheduled sends (`send_at`) ----

#[test]
fn a_send_at_in_range_is_stored_scheduled_with_its_job_due_then_and_its_deadline_from_then() {
    let send_at = now() + chrono::TimeDelta::days(2);
    let mut ports = Ports::new();
    ports.allow_rate().senders(two_senders()).window(
        default_sender().id,
        Some(window_since(default_sender().id, chrono::TimeDelta::hours(1))),
    );
    let accepted = ports.accept(AcceptOutcome::Accepted);
    let mut scheduled = draft(text_content("hello"));
    scheduled.send_at = Some(send_at);

    let result = run(ports.build().execute(command(MessageKind::Text, Ok(scheduled))));

    let Ok(SendOutcome::Accepted(returned)) = result else {
        panic!("expected Accepted, got {result:?}");
    };
    assert_eq!(returned.status, MessageStatus::Scheduled);
    assert_eq!(returned.send_at, Some(send_at));
    assert_eq!(returned.timestamps.scheduled, Some(now()));
    assert_eq!(returned.timestamps.accepted, None);
    let request = accepted.lock().unwrap().clone().unwrap();
    assert_eq!(request.event.status, MessageStatus::Scheduled);
    assert_eq!(request.job.available_at, send_at);
    assert_eq!(request.job.deadline, send_at + chrono::TimeDelta::hours(24));
    // Its acceptance is the message's first customer event: `scheduled`, from no status, at acceptance.
    let event = request
        .customer_event
        .clone()
        .expect("a scheduled acceptance emits an event");
    assert_eq!(
        event.event_type(),
        crate::customer_event::CustomerEventType::MessageStatus
    );
    assert_eq!(
        event.message_id,
        crate::content::MessageRef::Outbound(returned.id)
    );
    assert_eq!(
        (event.sequence, event.occurred_at, event.recorded_at),
        (1, now(), now())
    );
    let crate::customer_event::EventBody::Status(body) = &event.body else {
        panic!("a status event, got {event:?}");
    };
    assert_eq!(
        (body.status, body.previous_status),
        (MessageStatus::Scheduled, None)
    );
    assert_eq!((&body.to, &body.from), (&returned.to, &returned.from));
    assert_ne!(
        event.id, request.event.id,
        "the history entry and the event have ids of their own"
    );
    // The quota is charged at acceptance, in the period of acceptance.
    assert_eq!(
        request.quota.period,
        crate::time::BillingPeriod::containing(now())
    );
    assert_eq!(
        returned.as_accepted(),
        returned,
        "a replay answers `scheduled` too"
    );
}

#[test]
fn a_send_at_too_soon_or_too_far_is_refused_on_send_at_having_stored_nothing() {
    for ahead in [
        chrono::TimeDelta::seconds(59),
        chrono::TimeDelta::seconds(-5),
        chrono::TimeDelta::days(35) + chrono::TimeDelta::seconds(1),
    ] {
        let mut ports = Ports::new();
        ports.allow_rate().never_senders().never_window().never_accept();
        let mut scheduled = draft(text_content("hello"));
        scheduled.send_at = Some(now() + ahead);

        let result = run(ports.build().execute(command(MessageKind::Text, Ok(scheduled))));

        let Err(SendError::Invalid(errors)) = result else {
            panic!("{ahead:?}: expected a validation failure, got {result:?}");
        };
        assert_eq!(errors.errors()[0].field, "send_at", "{ahead:?}");
    }
}

#[test]
fn the_minimum_lead_is_a_setting() {
    let mut ports = Ports::new();
    ports.allow_rate().senders(two_senders()).window(
        default_sender().id,
        Some(window_since(default_sender().id, chrono::TimeDelta::hours(1))),
    );
    let accepted = ports.accept(AcceptOutcome::Accepted);
    let mut scheduled = draft(text_content("hello"));
    scheduled.send_at = Some(now() + chrono::TimeDelta::seconds(2));
    let Ports {
        accounts,
        messages,
        templates,
        windows,
        limiter,
        catalog,
        files,
    } = ports;
    let send = SendMessage::new(
        SendPorts {
            accounts: Arc::new(accounts),
            messages: Arc::new(messages),
            templates: Arc::new(templates),
            windows: Arc::new(windows),
            limiter: Arc::new(limiter),
            catalog: Arc::new(catalog),
            files: Arc::new(files),
            clock: Arc::new(clock_at(now())),
            ids: Arc::new(sequential_ids()),
        },
        SendSettings {
            schedule_min_lead: chrono::TimeDelta::seconds(1),
            ..SendSettings::default()
        },
    );

    let result = run(send.execute(command(MessageKind::Text, Ok(scheduled))));

    assert!(matches!(result, Ok(SendOutcome::Accepted(_))), "{result:?}");
    assert!(accepted.lock().unwrap().is_some());
}

// ---- business-scoped user ids as `to` (docs/api.md §4) ----

const USER_ID: &str = "US.13491208655302741918";

fn user() -> Recipient {
    Recipient::User(crate::values::UserId::parse(USER_ID).unwrap())
}

fn to_user(mut command: SendCommand) -> SendCommand {
    if let Ok(draft) = &mut command.draft {
        draft.to = user();
    }
    command
}

/// Recipient checks whose store knows the user id as `found` (asked `times` times, only by the user id).
fn build_with_user(ports: Ports, found: Option<Contact>, times: usize) -> SendMessage {
    let mut contacts = MockContactStore::new();
    contacts
        .expect_contact()
        .withf(|org, recipient| *org == org_id() && *recipient == user())
        .times(times)
        .returning(move |_, _| Ok(found.clone()));
    ports
        .build()
        .with_recipient_checks(RecipientChecks::new(Arc::new(contacts)))
}

#[test]
fn free_form_to_a_user_id_uses_the_window_of_its_paired_number_and_keeps_the_user_id() {
    let mut ports = Ports::new();
    ports
        .allow_rate()
        .senders(two_senders())
        .window(
            default_sender().id,
            Some(window_since(default_sender().id, chrono::TimeDelta::hours(1))),
        )
        .never_template();
    let accepted = ports.accept(AcceptOutcome::Accepted);
    let mut paired = Contact::unknown(org_id(), &user(), now());
    paired.number = Some(phone(RECIPIENT));
    // Asked for the window's number; the recipient checks are the accept's.
    let send = build_with_user(ports, Some(paired), 1);

    let result = run(send.execute(to_user(text_command())));

    let Ok(SendOutcome::Accepted(message)) = result else {
        panic!("expected Accepted, got {result:?}");
    };
    assert_eq!(
        message.to,
        user(),
        "the message goes to the user id the client named"
    );
    let request = accepted.lock().unwrap().clone().unwrap();
    assert_eq!(request.message.to, user());
}

#[test]
fn free_form_to_a_user_id_paired_with_no_number_is_window_closed_until_that_user_id_writes() {
    let mut ports = Ports::new();
    ports
        .allow_rate()
        .senders(two_senders())
        .never_template()
        .never_accept();
    // No number: the window asked for is the user id's own, and it never wrote.
    ports
        .windows
        .expect_window()
        .withf(|org, s, to| *org == org_id() && *s == default_sender().id && *to == user())
        .times(1)
        .returning(|_, _, _| Ok(None));
    let send = build_with_user(ports, Some(Contact::unknown(org_id(), &user(), now())), 1);

    let result = run(send.execute(to_user(text_command())));

    assert!(
        matches!(&result, Err(SendError::WindowClosed { to }) if *to == user()),
        "{result:?}"
    );
}

#[test]
fn free_form_to_a_user_id_that_wrote_without_a_number_uses_the_window_its_messages_opened() {
    let mut ports = Ports::new();
    ports.allow_rate().senders(two_senders()).never_template();
    ports
        .windows
        .expect_window()
        .withf(|org, s, to| *org == org_id() && *s == default_sender().id && *to == user())
        .times(1)
        .returning(|_, _, _| {
            Ok(Some(ServiceWindow {
                recipient: user(),
                ..window_since(default_sender().id, chrono::TimeDelta::hours(2))
            }))
        });
    let accepted = ports.accept(AcceptOutcome::Accepted);
    let send = build_with_user(ports, Some(Contact::unknown(org_id(), &user(), now())), 1);

    let result = run(send.execute(to_user(text_command())));

    assert!(matches!(result, Ok(SendOutcome::Accepted(_))), "{result:?}");
    assert_eq!(accepted.lock().unwrap().clone().unwrap().message.to, user());
}

#[test]
fn a_template_to_an_unknown_user_id_is_accepted_to_that_user_id() {
    let waba = default_sender().waba_id;
    let mut ports = Ports::new();
    ports.allow_rate().senders(two_senders()).template(
        waba.clone(),
        Some(template(&waba, "APPROVED", HeaderSpec::None, 1)),
    );
    let accepted = ports.accept(AcceptOutcome::Accepted);
    // A template needs no window, and the recipient checks are the accept's: no contact is read.
    let send = build_with_user(ports, None, 0);

    let result = run(send.execute(to_user(template_command(one_variable()))));

    assert!(matches!(result, Ok(SendOutcome::Accepted(_))), "{result:?}");
    let request = accepted.lock().unwrap().clone().unwrap();
    assert_eq!(request.message.to, user());
}

//! `SendMessage::dry_run`: the same checks as a send, in its order, collected; the limiter peeked, the
//! quota read, nothing accepted, no key claimed.

use super::*;

impl Ports {
    /// The limiter is peeked once (cost 1) and never charged.
    fn peek(&mut self, decision: RateDecision) -> &mut Self {
        self.limiter
            .expect_peek()
            .withf(|org, plan_given, cost| *org == org_id() && *plan_given == plan() && *cost == 1)
            .times(1)
            .returning(move |_, _, _| Ok(decision));
        self.limiter.expect_check().times(0);
        self
    }

    fn quota_used(&mut self, used: u64) -> &mut Self {
        self.messages
            .expect_usage()
            .withf(|org, period| *org == org_id() && *period == BillingPeriod::containing(now()))
            .times(1)
            .returning(move |_, _| Ok(used));
        self
    }

    /// The window is read for the report, and again by the content check of a free-form message.
    fn window_read(&mut self, sender: SenderId, window: Option<ServiceWindow>, times: usize) -> &mut Self {
        self.windows
            .expect_window()
            .withf(move |org, s, to| *org == org_id() && *s == sender && *to == phone(RECIPIENT).into())
            .times(times)
            .returning(move |_, _, _| Ok(window.clone()));
        self
    }

    fn never_claim(&mut self) -> &mut Self {
        self.messages.expect_begin_idempotent().times(0);
        self
    }
}

fn allowed() -> RateDecision {
    RateDecision::Allowed {
        limit: 40,
        remaining: 39,
        reset_seconds: 1,
    }
}

fn codes(run: &crate::usecases::DryRun) -> Vec<&'static str> {
    run.refusals
        .iter()
        .map(|refusal| match refusal {
            SendError::AccountInactive => "account_inactive",
            SendError::PlanForbids(_) => "plan_forbids",
            SendError::RateLimited { .. } => "rate_limited",
            SendError::Invalid(_) => "validation_failed",
            SendError::TemplateNotFound(_) => "template_not_found",
            SendError::TemplateNotApproved(_) => "template_not_approved",
            SendError::TemplateMismatch(_) => "template_variables_mismatch",
            SendError::WindowClosed { .. } => "service_window_closed",
            SendError::QuotaExceeded { .. } => "quota_exceeded",
            other => panic!("unexpected refusal {other:?}"),
        })
        .collect()
}

#[test]
fn a_send_that_would_pass_is_reported_with_its_window_and_pricing_and_nothing_is_taken() {
    let mut ports = Ports::new();
    ports
        .peek(allowed())
        .senders(two_senders())
        .window_read(
            default_sender().id,
            Some(window_since(default_sender().id, chrono::TimeDelta::hours(1))),
            2,
        )
        .quota_used(999)
        .never_claim()
        .never_accept();

    let run = run(ports
        .build()
        .dry_run(with_key(text_command(), fingerprint()), None))
    .unwrap();

    assert!(run.would_accept(), "{:?}", run.refusals);
    let window = run.window.unwrap();
    assert!(window.open);
    assert_eq!(window.expires_at, Some(now() + chrono::TimeDelta::hours(23)));
    // The clock is after 2026-10-01, when Meta began charging service replies.
    let pricing = run.pricing.unwrap();
    assert_eq!((pricing.category.as_str(), pricing.billable), ("service", true));
}

/// A free-form reply inside the window, dry-run on each side of 2026-10-01: Meta's rules in force on
/// the day say whether it is billed.
#[test]
fn a_service_reply_is_expected_free_on_2026_09_30_and_billed_on_2026_10_01() {
    for (day, billed) in [("2026-09-30", false), ("2026-10-01", true)] {
        let at = chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d")
            .unwrap()
            .and_hms_opt(12, 0, 0)
            .unwrap()
            .and_utc();
        let mut ports = Ports::new();
        let window = ServiceWindow {
            last_inbound_at: at - chrono::TimeDelta::hours(1),
            ..window_since(default_sender().id, chrono::TimeDelta::zero())
        };
        ports
            .peek(allowed())
            .senders(two_senders())
            .window_read(default_sender().id, Some(window), 2)
            .never_claim()
            .never_accept();
        ports.messages.expect_usage().times(1).returning(|_, _| Ok(0));

        let run = run(ports.build_at(at).dry_run(text_command(), None)).unwrap();

        assert!(run.would_accept(), "{:?}", run.refusals);
        let pricing = run.pricing.unwrap();
        assert_eq!(
            (pricing.category.as_str(), pricing.billable),
            ("service", billed),
            "{day}"
        );
    }
}

#[test]
fn every_refusal_is_collected_in_the_order_a_send_meets_them() {
    let waba = default_sender().waba_id;
    let mut ports = Ports::new();
    ports
        .peek(RateDecision::Limited {
            limit: 40,
            retry_after_seconds: 0,
        })
        .senders(two_senders())
        .window(default_sender().id, None)
        .quota_used(1_000)
        .never_accept();
    // The template is read twice: once for its expected category, once by the content check.
    ports
        .templates
        .expect_template()
        .times(2)
        .returning(move |_, _, _, _| Ok(Some(template(&waba, "PAUSED", HeaderSpec::None, 1).into())));
    let mut cmd = template_command(one_variable());
    cmd.organization = organization(AccountStatus::Suspended);

    let run = run(ports.build().dry_run(cmd, None)).unwrap();

    assert_eq!(
        codes(&run),
        [
            "account_inactive",
            "rate_limited",
            "template_not_approved",
            "quota_exceeded"
        ]
    );
    assert!(
        matches!(
            run.refusals[1],
            SendError::RateLimited {
                retry_after_seconds: 1,
                ..
            }
        ),
        "the wait is at least a second, as for a send"
    );
    let pricing = run.pricing.unwrap();
    assert_eq!((pricing.category.as_str(), pricing.billable), ("utility", true));
    assert_eq!(run.window.map(|w| w.open), Some(false));
}

#[test]
fn invalid_fields_end_the_run_before_the_senders_are_read() {
    let mut ports = Ports::new();
    ports
        .peek(allowed())
        .never_senders()
        .never_window()
        .never_template()
        .never_accept();

    let run = run(ports
        .build()
        .dry_run(command(MessageKind::Text, Err(invalid())), None))
    .unwrap();

    assert_eq!(codes(&run), ["validation_failed"]);
    assert_eq!(run.window, None);
    assert_eq!(run.pricing, None);
}

#[test]
fn a_closed_window_is_a_refusal_and_an_unknown_template_has_no_pricing() {
    let mut ports = Ports::new();
    ports
        .peek(allowed())
        .senders(two_senders())
        .window_read(default_sender().id, None, 2)
        .quota_used(0)
        .never_accept();
    let run_text = run(ports.build().dry_run(text_command(), None)).unwrap();
    assert_eq!(codes(&run_text), ["service_window_closed"]);

    let mut ports = Ports::new();
    ports
        .peek(allowed())
        .senders(two_senders())
        .window(default_sender().id, None)
        .quota_used(0)
        .never_accept();
    ports
        .templates
        .expect_template()
        .times(2)
        .returning(|_, _, _, _| Ok(None));
    let run_template = run(ports.build().dry_run(template_command(one_variable()), None)).unwrap();
    assert_eq!(codes(&run_template), ["template_not_found"]);
    assert_eq!(run_template.pricing, None);
}

#[test]
fn a_store_failure_fails_the_dry_run_instead_of_becoming_a_refusal() {
    let mut ports = Ports::new();
    ports.peek(allowed()).never_accept();
    ports
        .accounts
        .expect_senders()
        .times(1)
        .returning(|_| Err(StoreError::Unavailable("down".into())));

    let result = run(ports.build().dry_run(text_command(), None));

    assert!(matches!(result, Err(SendError::Store(_))), "{result:?}");
}

//! Erasing a person from the dashboard over real HTTP (docs/api.md §7.2, §11): no session is sent to the login
//! page, a form without the session's CSRF token is refused, the confirmation must name the same person and
//! have its box ticked, nobody by that id is `404`, and an erasure (by a suspended organization's owner too)
//! leaves the message body unreadable through the API — on both stores. The browser test is in
//! `browser_erase.rs`.

use crate::dashboard::{Browser, DashboardApp, dashboard_settings, spawn_dashboard};
use crate::helpers::Db;
use herald_domain::organization::AccountStatus;
use herald_testkit::fixtures;
use reqwest::StatusCode;
use serde_json::Value;

on_both_stores!(
    the_erase_page_needs_a_session_and_the_sessions_csrf_token,
    the_dashboard_erases_a_person_only_after_a_matching_confirmation,
);

const PERSON: &str = "+15551239876";
const BODY: &str = "the secret body 4711";

/// A queued text message from the owner's organization to [`PERSON`], and a key of that organization to read
/// it through the API with: `(message id, key)`.
async fn message_to_person(d: &DashboardApp) -> (String, String) {
    let store = &d.app.services.store;
    let sender = store.accounts().senders(&d.owner_org).await.unwrap()[0].clone();
    let message = fixtures::message(
        d.owner_org,
        &sender,
        PERSON,
        fixtures::text_content(BODY),
        chrono::Utc::now(),
    );
    store
        .messages()
        .accept(&fixtures::accept_request(&message, None, None))
        .await
        .unwrap();
    let (_, key) = d
        .app
        .services
        .admin()
        .create_key(&d.owner_org, None)
        .await
        .unwrap();
    (message.id.to_string(), key.expose().to_owned())
}

/// The message as the API gives it to the owner's organization.
async fn read_message(d: &DashboardApp, key: &str, id: &str) -> Value {
    let response = d.app.get_as(key, &format!("/api/v1/messages/{id}")).await;
    assert_eq!(response.status(), 200);
    response.json().await.unwrap()
}

async fn assert_intact(d: &DashboardApp, key: &str, id: &str, what: &str) {
    let message = read_message(d, key, id).await;
    assert_eq!(message["to"], PERSON, "{what}: {message}");
    assert!(message.to_string().contains(BODY), "{what}: {message}");
}

async fn the_erase_page_needs_a_session_and_the_sessions_csrf_token(db: Db) {
    let Some(d) = spawn_dashboard(db, dashboard_settings(), None).await else {
        return;
    };
    let (id, key) = message_to_person(&d).await;

    // No session: every step is sent to the login page, and nothing is erased.
    let mut anonymous = Browser::new(&d.app.base);
    for page in [
        anonymous.get("/dashboard/erase").await,
        anonymous
            .post("/dashboard/erase/review", &[("recipient", PERSON), ("csrf", "x")])
            .await,
        anonymous
            .post(
                "/dashboard/erase",
                &[
                    ("recipient", PERSON),
                    ("confirmation", PERSON),
                    ("understood", "yes"),
                    ("csrf", "x"),
                ],
            )
            .await,
    ] {
        assert_eq!(page.status, StatusCode::SEE_OTHER, "{}", page.body);
        assert_eq!(page.location.as_deref(), Some("/dashboard/login"));
    }

    // A session, but a token that is missing, forged or another session's: refused, nothing erased.
    let mut browser = Browser::new(&d.app.base);
    browser.login_ok(&d.email, &d.password).await;
    let mut other_session = Browser::new(&d.app.base);
    other_session.login_ok(&d.email, &d.password).await;
    let foreign = other_session.session_csrf().await;
    for token in ["", "forged", foreign.as_str()] {
        let refused = browser
            .post(
                "/dashboard/erase/review",
                &[("recipient", PERSON), ("csrf", token)],
            )
            .await;
        assert_eq!(
            refused.status,
            StatusCode::FORBIDDEN,
            "review with csrf {token:?}"
        );
        let refused = browser
            .post(
                "/dashboard/erase",
                &[
                    ("recipient", PERSON),
                    ("confirmation", PERSON),
                    ("understood", "yes"),
                    ("csrf", token),
                ],
            )
            .await;
        assert_eq!(refused.status, StatusCode::FORBIDDEN, "erase with csrf {token:?}");
    }
    // A field the form does not have is refused too.
    let csrf = browser.session_csrf().await;
    let refused = browser
        .post(
            "/dashboard/erase",
            &[
                ("recipient", PERSON),
                ("confirmation", PERSON),
                ("understood", "yes"),
                ("force", "yes"),
                ("csrf", &csrf),
            ],
        )
        .await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "an unknown field");
    assert_intact(&d, &key, &id, "after the refused forms").await;
}

async fn the_dashboard_erases_a_person_only_after_a_matching_confirmation(db: Db) {
    let Some(d) = spawn_dashboard(db, dashboard_settings(), None).await else {
        return;
    };
    let (id, key) = message_to_person(&d).await;
    assert_intact(&d, &key, &id, "before").await;
    let mut browser = Browser::new(&d.app.base);
    browser.login_ok(&d.email, &d.password).await;

    let page = browser.get("/dashboard/erase").await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.body.contains("id=\"erase-recipient\""), "{}", page.body);
    let csrf = page.csrf();

    // An invalid id is refused at the review, with the reason.
    let invalid = browser
        .post(
            "/dashboard/erase/review",
            &[("recipient", "5551239876"), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(invalid.status, StatusCode::BAD_REQUEST);
    let reason = invalid.text_of("erase-error").unwrap();
    assert!(reason.contains("E.164"), "{reason}");

    // The review shows the person and the confirmation form, and erases nothing.
    let review = browser
        .post(
            "/dashboard/erase/review",
            &[("recipient", PERSON), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(review.status, StatusCode::OK);
    assert_eq!(review.text_of("erase-person").as_deref(), Some(PERSON));
    assert!(review.body.contains("id=\"erase-confirm\""), "{}", review.body);
    assert_intact(&d, &key, &id, "after the review").await;

    // A confirmation naming someone else, an invalid one, or an unticked box: refused, nothing erased.
    for (confirmation, understood, expected) in [
        ("+15551239875", "yes", "not the same"),
        ("", "yes", "not the same"),
        (PERSON, "", "Tick the box"),
    ] {
        let refused = browser
            .post(
                "/dashboard/erase",
                &[
                    ("recipient", PERSON),
                    ("confirmation", confirmation),
                    ("understood", understood),
                    ("csrf", &csrf),
                ],
            )
            .await;
        assert_eq!(
            refused.status,
            StatusCode::BAD_REQUEST,
            "{confirmation:?}/{understood:?}"
        );
        let reason = refused.text_of("confirm-error").unwrap();
        assert!(reason.contains(expected), "{reason}");
        assert_intact(&d, &key, &id, reason.as_str()).await;
    }

    // Nobody by that id: 404, and said so.
    let nobody = browser
        .post(
            "/dashboard/erase",
            &[
                ("recipient", "+447700900123"),
                ("confirmation", "+447700900123"),
                ("understood", "yes"),
                ("csrf", &csrf),
            ],
        )
        .await;
    assert_eq!(nobody.status, StatusCode::NOT_FOUND);
    assert!(
        nobody
            .text_of("erase-error")
            .unwrap()
            .contains("Nobody by that number"),
        "{}",
        nobody.body
    );

    // A suspended organization's owner may still erase: the duty does not stop with the account.
    d.app
        .services
        .admin()
        .set_account_status(&d.owner_org, AccountStatus::Suspended)
        .await
        .unwrap();
    let erase = [
        ("recipient", PERSON),
        ("confirmation", PERSON),
        ("understood", "yes"),
        ("csrf", csrf.as_str()),
    ];
    let erased = browser.post("/dashboard/erase", &erase).await;
    assert_eq!(erased.status, StatusCode::OK, "{}", erased.body);
    let marker = erased.text_of("erased-marker").unwrap();
    assert!(marker.starts_with("erased:") && marker.len() == 71, "{marker}");
    assert_eq!(erased.text_of("erased-messages").as_deref(), Some("1"));
    assert_eq!(
        erased.text_of("erased-cancelled").as_deref(),
        Some("1"),
        "the queued message was cancelled first"
    );

    // Read through the API (active again): the body is gone, the message kept under the marker.
    d.app
        .services
        .admin()
        .set_account_status(&d.owner_org, AccountStatus::Active)
        .await
        .unwrap();
    let kept = read_message(&d, &key, &id).await;
    assert_eq!(kept["to"], marker.as_str(), "{kept}");
    assert!(!kept.to_string().contains(BODY), "{kept}");
    assert!(!kept.to_string().contains(PERSON), "{kept}");

    // Again: the same marker, nothing new.
    let again = browser.post("/dashboard/erase", &erase).await;
    assert_eq!(again.status, StatusCode::OK);
    assert_eq!(again.text_of("erased-marker"), Some(marker));
    assert_eq!(again.text_of("erased-messages").as_deref(), Some("0"));
}

//! The store ports' contract: one scripted scenario per `pub async fn`, run by every adapter against its
//! real backend through [`crate::contract_suite!`], and by this crate against [`crate::memory::InMemoryStore`].
//!
//! Each scenario takes the ports of a FRESH store (seeded plans only) and fails with a message saying
//! which documented rule of `herald_domain::ports` broke. Scenarios create everything they use with the
//! [`crate::fixtures`] builders, whose ids are unique per process run.
//!
//! Every time written is at microsecond precision, so "reads back equal" holds on every backend.

// A scenario is a test: a failing expectation must stop it with a message, which is what
// `expect`/indexing do here.
#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "contract scenarios are test code run by adapters' test binaries"
)]

mod accounts;
mod idempotency;
mod isolation;
mod messages;
mod templates;
mod windows;

pub use accounts::*;
pub use idempotency::*;
pub use isolation::*;
pub use messages::*;
pub use templates::*;
pub use windows::*;

use crate::fixtures::{self, SIMULATOR_SENDER_1};
use herald_domain::message::Message;
use herald_domain::organization::{Organization, SenderNumber};
use herald_domain::ports::{
    AcceptOutcome, AcceptRequest, AccountStore, MessageStore, TemplateStore, WindowStore,
};
use std::sync::Arc;

/// Every store port of one backend, as the use cases hold them.
#[derive(Clone)]
pub struct Ports {
    /// Plans, organizations, senders, API keys.
    pub accounts: Arc<dyn AccountStore>,
    /// Messages, history, quota counts, idempotency records.
    pub messages: Arc<dyn MessageStore>,
    /// Template copies.
    pub templates: Arc<dyn TemplateStore>,
    /// Service windows.
    pub windows: Arc<dyn WindowStore>,
}

/// The names of every scenario, in the order [`crate::contract_suite!`] declares them.
pub const SCENARIOS: &[&str] = &[
    "accounts_plans_are_seeded",
    "accounts_organizations_create_get_list",
    "accounts_create_organization_refusals",
    "accounts_set_status_and_plan",
    "accounts_senders_default_handling",
    "accounts_senders_conflicts",
    "accounts_sender_by_phone_number_id",
    "accounts_api_keys_create_and_list",
    "accounts_find_credential",
    "accounts_disable_api_key",
    "accounts_touch_api_key",
    "isolation_messages",
    "isolation_templates",
    "isolation_windows",
    "isolation_accounts",
    "isolation_idempotency",
    "messages_accept_round_trips",
    "messages_accept_round_trips_every_content_kind",
    "messages_accept_duplicate_id_conflicts",
    "messages_quota_is_enforced",
    "messages_concurrent_accepts_respect_quota",
    "messages_cursor_pagination_covers_all_once",
    "messages_cursor_is_stable_under_inserts",
    "messages_filters",
    "messages_status_history",
    "idempotency_claim_release_complete",
    "idempotency_completed_record_expires",
    "idempotency_abandoned_claim_is_taken_over",
    "templates_replace_get_and_list",
    "templates_replace_is_scoped_by_waba",
    "windows_only_move_forward",
];

/// Runs every contract scenario as its own `#[tokio::test]`, each on the ports `$make_ports` yields.
///
/// `$make_ports` is an expression evaluating to a future of [`Ports`]; it is evaluated once per test, so
/// it must build a FRESH store each time. The calling crate needs `tokio` (features `macros`,
/// `rt-multi-thread`).
///
/// ```ignore
/// herald_testkit::contract_suite!(async { herald_testkit::memory::InMemoryStore::new().ports() });
/// ```
#[macro_export]
macro_rules! contract_suite {
    ($make_ports:expr) => {
        $crate::contract_suite!(@scenarios $make_ports;
            accounts_plans_are_seeded,
            accounts_organizations_create_get_list,
            accounts_create_organization_refusals,
            accounts_set_status_and_plan,
            accounts_senders_default_handling,
            accounts_senders_conflicts,
            accounts_sender_by_phone_number_id,
            accounts_api_keys_create_and_list,
            accounts_find_credential,
            accounts_disable_api_key,
            accounts_touch_api_key,
            isolation_messages,
            isolation_templates,
            isolation_windows,
            isolation_accounts,
            isolation_idempotency,
            messages_accept_round_trips,
            messages_accept_round_trips_every_content_kind,
            messages_accept_duplicate_id_conflicts,
            messages_quota_is_enforced,
            messages_concurrent_accepts_respect_quota,
            messages_cursor_pagination_covers_all_once,
            messages_cursor_is_stable_under_inserts,
            messages_filters,
            messages_status_history,
            idempotency_claim_release_complete,
            idempotency_completed_record_expires,
            idempotency_abandoned_claim_is_taken_over,
            templates_replace_get_and_list,
            templates_replace_is_scoped_by_waba,
            windows_only_move_forward,
        );
    };
    (@scenarios $make_ports:expr; $($scenario:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $scenario() {
                $crate::contract::$scenario($make_ports.await).await
            }
        )*
    };
}

/// Creates an organization on `plan`.
async fn new_organization(ports: &Ports, plan: &str) -> Organization {
    let organization = fixtures::organization(plan);
    ports
        .accounts
        .create_organization(&organization)
        .await
        .expect("create_organization of a new organization on a seeded plan must succeed");
    organization
}

/// Creates an organization on `plan` with one default sender.
async fn new_organization_with_sender(ports: &Ports, plan: &str) -> (Organization, SenderNumber) {
    let organization = new_organization(ports, plan).await;
    let sender = fixtures::sender(organization.id, SIMULATOR_SENDER_1, true);
    ports
        .accounts
        .add_sender(&sender)
        .await
        .expect("add_sender of a new number must succeed");
    (organization, sender)
}

/// Accepts `request`, which must be accepted.
async fn accept_ok(ports: &Ports, request: &AcceptRequest) {
    let outcome = ports.messages.accept(request).await;
    assert!(
        matches!(outcome, Ok(AcceptOutcome::Accepted)),
        "accept of a new message within its quota must answer Accepted, got {outcome:?}"
    );
}

/// Accepts each message with an unlimited quota, in order.
async fn accept_all(ports: &Ports, messages: &[Message]) {
    for message in messages {
        accept_ok(ports, &fixtures::accept_request(message, None, None)).await;
    }
}

fn ids(messages: &[Message]) -> Vec<herald_domain::ids::MessageId> {
    messages.iter().map(|m| m.id).collect()
}

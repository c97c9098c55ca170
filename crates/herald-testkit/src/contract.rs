//! The store ports' contract: one scripted scenario per `pub async fn`, run by every adapter against its
//! real backend through [`crate::contract_suite!`].
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
mod broadcast_cancel;
mod broadcast_counts;
mod broadcasts;
mod business_accounts;
mod contact_merges;
mod contacts;
mod idempotency;
mod inbound;
mod isolation;
mod kinds;
mod market_rates;
mod media;
mod media_store;
mod messages;
mod notices;
mod outbox;
mod owners;
mod pricing;
mod schedule;
mod templates;
mod tracking;
mod webhooks;
mod windows;

pub use accounts::*;
pub use broadcast_cancel::*;
pub use broadcast_counts::*;
pub use broadcasts::*;
pub use business_accounts::*;
pub use contact_merges::*;
pub use contacts::*;
pub use idempotency::*;
pub use inbound::*;
pub use isolation::*;
pub use kinds::*;
pub use market_rates::*;
pub use media::*;
pub use media_store::*;
pub use messages::*;
pub use notices::*;
pub use outbox::*;
pub use owners::*;
pub use pricing::*;
pub use schedule::*;
pub use templates::*;
pub use tracking::*;
pub use webhooks::*;
pub use windows::*;

use crate::fixtures::{self, SIMULATOR_SENDER_1};
use async_trait::async_trait;
use herald_domain::Timestamp;
use herald_domain::customer_event::CustomerEventType;
use herald_domain::ids::{EventId, OrganizationId};
use herald_domain::message::Message;
use herald_domain::organization::{Organization, SenderNumber};
use herald_domain::ports::MediaCatalog;
use herald_domain::ports::WebhookStore;
use herald_domain::ports::{
    AcceptOutcome, AcceptRequest, AccountStore, MessageStore, OutboxStore, StoreError, TemplateStore,
    TrackingStore, WindowStore,
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
    /// Contacts: preferences, blocks, user ids, the keyword rule.
    pub contacts: Arc<dyn herald_domain::ports::ContactStore>,
    /// The dispatch outbox.
    pub outbox: Arc<dyn OutboxStore>,
    /// Status reports, inbound messages, stored network callbacks.
    pub tracking: Arc<dyn TrackingStore>,
    /// Webhook endpoints and deliveries (fanned out from the customer events).
    pub webhooks: Arc<dyn WebhookStore>,
    /// Uploaded media, network uploads, inbound messages' files.
    pub media: Arc<dyn MediaCatalog>,
    /// Inbound messages as resources.
    pub inbound: Arc<dyn herald_domain::ports::InboundStore>,
    /// The customer events written, for the contract to check (no domain port reads them yet).
    pub events: Arc<dyn EventLog>,
    /// Owner accounts and dashboard sessions.
    pub owners: Arc<dyn herald_domain::ports::OwnerStore>,
    /// Rate cards and usage counts.
    pub pricing: Arc<dyn herald_domain::ports::PricingStore>,
    pub schedule: Arc<dyn herald_domain::ports::ScheduleStore>,
    pub broadcasts: Arc<dyn herald_domain::ports::BroadcastStore>,
}

/// A customer event (docs/api.md §9) as a store wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedEvent {
    pub id: EventId,
    pub organization_id: OrganizationId,
    pub event_type: CustomerEventType,
    /// The message it is about (an inbound message's own id for `message.inbound`).
    pub message_id: Option<herald_domain::content::MessageRef>,
    /// 1, 2, 3… per message.
    pub sequence: u32,
    /// The JSON body to deliver.
    pub payload: String,
    pub occurred_at: Timestamp,
    pub created_at: Timestamp,
}

/// Reads back the customer events a store wrote. Not a domain port: the webhook dispatcher will read them
/// through its own; this lets the contract check what `TrackingStore` and `OutboxStore` wrote.
#[async_trait]
pub trait EventLog: Send + Sync + 'static {
    /// The organization's customer events, oldest first (by id).
    async fn customer_events(&self, organization: &OrganizationId) -> Result<Vec<RecordedEvent>, StoreError>;

    /// Applies status reports in order in ONE transaction, as a batch of network callbacks is applied; each
    /// answer as `TrackingStore::apply_status` would give it. Not a port: the group commit decides which
    /// callbacks share a transaction, and falls back to one transaction each when a batch fails, so the
    /// contract reaches the set-wise path directly here.
    async fn apply_statuses_together(
        &self,
        updates: &[herald_domain::status::StatusUpdate],
    ) -> Result<Vec<Option<herald_domain::status::StatusApplied>>, StoreError>;
}

/// The names of every scenario, in the order [`crate::contract_suite!`] declares them.
pub const SCENARIOS: &[&str] = &[
    "accounts_plans_are_seeded",
    "broadcasts_hold_their_jobs_until_released",
    "broadcasts_concurrent_releases_respect_the_queue",
    "broadcasts_release_waits_for_the_tier",
    "broadcasts_quota_is_all_or_nothing",
    "broadcasts_idempotency_key_is_taken_once",
    "broadcasts_transitions_due_and_untaken",
    "broadcasts_list_carries_each_ones_counts",
    "broadcasts_counts_follow_every_status_writer",
    "broadcasts_stay_in_their_organization",
    "broadcasts_cancel_stopped_half_way_is_finished_by_a_retry",
    "broadcasts_cancel_stopped_half_way_is_finished_by_the_pacer",
    "accounts_put_plan_creates_and_replaces",
    "accounts_organizations_create_get_list",
    "accounts_create_organization_refusals",
    "accounts_set_status_and_plan",
    "accounts_senders_default_handling",
    "accounts_senders_conflicts",
    "accounts_sender_by_phone_number_id",
    "accounts_sender_sealed_token_round_trips",
    "accounts_replace_sealed_access_token_compares_and_sets",
    "accounts_api_keys_create_and_list",
    "accounts_find_credential",
    "accounts_disable_api_key",
    "accounts_touch_api_key",
    "accounts_a_business_account_belongs_to_its_first_organization_and_its_sharers",
    "templates_an_author_is_claimed_once_and_released_by_its_author_only",
    "isolation_messages",
    "isolation_templates",
    "isolation_windows",
    "isolation_accounts",
    "isolation_idempotency",
    "messages_accept_round_trips",
    "messages_accept_round_trips_every_content_kind",
    "messages_new_kinds_round_trip_with_reply_to",
    "messages_referenced_stays_in_the_organization",
    "messages_accept_duplicate_id_conflicts",
    "messages_quota_is_enforced",
    "messages_concurrent_accepts_respect_quota",
    "messages_batched_accepts_answer_each_item_alone",
    "messages_accept_refuses_what_the_recipient_refuses",
    "messages_cursor_pagination_covers_all_once",
    "messages_cursor_is_stable_under_inserts",
    "messages_filters",
    "messages_status_history",
    "idempotency_claim_release_complete",
    "idempotency_completed_record_expires",
    "idempotency_abandoned_claim_is_taken_over",
    "idempotency_stale_claim_cannot_complete_or_release_the_new_claim",
    "templates_replace_get_and_list",
    "templates_replace_is_scoped_by_waba",
    "templates_concurrent_syncs_all_succeed",
    "windows_only_move_forward",
    "outbox_claim_returns_due_jobs_with_context",
    "outbox_lease_blocks_claims_until_it_expires",
    "outbox_renewed_lease_keeps_the_claim",
    "outbox_submitted_sets_status_and_emits_one_event",
    "outbox_failed_fails_the_message",
    "outbox_retry_is_claimed_again_as_retried",
    "outbox_await_callback_is_claimed_again_as_awaited",
    "outbox_hold_does_not_count_an_attempt",
    "outbox_already_done_closes_the_job",
    "outbox_batch_completion_records_each_under_its_own_token",
    "outbox_concurrent_claims_complete_every_job_once",
    "outbox_claim_takes_a_fair_share_per_sender",
    "outbox_claim_takes_no_more_of_a_sender_than_it_sends_within_the_lease",
    "outbox_backlog_counts_open_jobs_per_sender",
    "schedule_cancel_removes_the_job_and_gives_the_quota_back",
    "schedule_cancel_after_a_claim_is_refused",
    "schedule_cancel_is_scoped_by_organization",
    "schedule_cancel_and_claim_never_both_win",
    "tracking_reports_follow_the_status_machine",
    "tracking_failure_event_carries_the_error",
    "tracking_network_id_is_kept_once_set",
    "tracking_is_scoped_by_organization",
    "tracking_inbound_is_deduplicated_and_refreshes_the_window",
    "tracking_inbound_events_describe_the_content",
    "tracking_callbacks_round_trip",
    "tracking_a_lone_status_and_its_callback_commit_together",
    "tracking_a_callback_and_its_status_are_stored_together",
    "tracking_callbacks_arriving_together_each_answer_alone",
    "tracking_reports_applied_together_each_on_the_last_result",
    "tracking_failing_callback_is_parked_and_requeued",
    "notices_change_the_named_copy_once_and_record_one_event",
    "notices_set_the_sender_quality_in_its_organization",
    "notices_recorded_concurrently_count_once",
    "notices_a_sync_keeps_the_last_change_time_of_an_unchanged_copy",
    "notices_webhook_fields_missing_are_per_account_and_organization",
    "webhooks_endpoints_crud_and_isolation",
    "webhooks_creates_stop_at_the_limit_even_when_concurrent",
    "webhooks_patch_and_rotation_keep_each_others_changes",
    "webhooks_replace_endpoint_secret_compares_and_sets",
    "webhooks_fan_out_follows_subscriptions",
    "webhooks_event_without_subscribers_creates_no_delivery",
    "webhooks_claim_respects_due_time_leases_and_cap",
    "webhooks_stale_claim_writes_nothing",
    "webhooks_complete_records_attempts_and_endpoint_health",
    "webhooks_batch_completion_records_each_under_its_own_token",
    "webhooks_batch_completion_health_follows_each_endpoints_last_attempt",
    "webhooks_a_batch_of_successes_records_each_held_delivery_once",
    "webhooks_redeliver_requeues_one_delivery",
    "webhooks_recover_requeues_failed_and_skipped_since",
    "webhooks_test_event_goes_to_its_endpoint_only",
    "webhooks_deliveries_cursor_covers_all_once",
    "webhooks_delete_cascades",
    "webhooks_pending_deliveries_are_counted",
    "webhooks_trace_context_follows_the_message_to_its_deliveries",
    "media_insert_and_read_round_trip",
    "media_every_kind_round_trips",
    "media_storage_limit_counts_unexpired_uploads_of_the_organization",
    "media_is_scoped_by_organization",
    "media_delete",
    "media_digest_in_use_across_organizations",
    "media_expire_deletes_expired_uploads_and_network_uploads",
    "media_network_upload_is_per_sender_and_until_reuse_end",
    "media_record_network_upload_replaces",
    "media_inbound_file_is_readable_in_its_organization",
    "owners_set_owner_replaces_and_ends_sessions",
    "owners_email_is_one_organization_login",
    "owners_sessions_round_trip_touch_and_delete",
    "owners_expired_sessions_are_swept",
    "owners_sent_events_of_a_message",
    "inbound_replies_and_reactions_resolve_to_herald_ids",
    "inbound_list_filters_and_pages",
    "inbound_get_and_read_are_scoped",
    "inbound_keeps_its_source_and_an_echo_opens_no_window",
    "contacts_preferences_record_one_event_and_only_move_forward",
    "contacts_are_found_by_number_or_user_id_and_paired",
    "contacts_block_and_keyword_rule_round_trip",
    "contacts_of_one_person_are_merged_when_linked",
    "contacts_of_national_variants_are_one",
    "contacts_an_organizations_change_that_changes_nothing_records_nothing",
    "pricing_of_the_furthest_report_is_kept_and_sent_in_events",
    "pricing_rate_cards_round_trip_per_organization",
    "pricing_usage_counts_by_day_and_category",
    "pricing_usage_counts_the_first_and_last_days_of_the_range",
    "pricing_market_rate_cards_by_effective_day",
];

/// Runs every contract scenario as its own `#[tokio::test]`, each on the ports `$make_ports` yields.
///
/// `$make_ports` is an expression evaluating to a future of [`Ports`]; it is evaluated once per test, so
/// it must build a FRESH store each time. The calling crate needs `tokio` (features `macros`,
/// `rt-multi-thread`).
///
/// ```ignore
/// herald_testkit::contract_suite!(async { my_store::fresh_ports().await });
/// ```
#[macro_export]
macro_rules! contract_suite {
    ($make_ports:expr) => {
        $crate::contract_suite!(@scenarios $make_ports;
            accounts_plans_are_seeded,
            broadcasts_hold_their_jobs_until_released,
            broadcasts_concurrent_releases_respect_the_queue,
            broadcasts_release_waits_for_the_tier,
            broadcasts_quota_is_all_or_nothing,
            broadcasts_idempotency_key_is_taken_once,
            broadcasts_transitions_due_and_untaken,
            broadcasts_list_carries_each_ones_counts,
            broadcasts_counts_follow_every_status_writer,
            broadcasts_stay_in_their_organization,
            broadcasts_cancel_stopped_half_way_is_finished_by_a_retry,
            broadcasts_cancel_stopped_half_way_is_finished_by_the_pacer,
            accounts_put_plan_creates_and_replaces,
            accounts_organizations_create_get_list,
            accounts_create_organization_refusals,
            accounts_set_status_and_plan,
            accounts_senders_default_handling,
            accounts_senders_conflicts,
            accounts_sender_by_phone_number_id,
            accounts_sender_sealed_token_round_trips,
            accounts_replace_sealed_access_token_compares_and_sets,
            accounts_api_keys_create_and_list,
            accounts_find_credential,
            accounts_disable_api_key,
            accounts_touch_api_key,
            accounts_a_business_account_belongs_to_its_first_organization_and_its_sharers,
            templates_an_author_is_claimed_once_and_released_by_its_author_only,
            isolation_messages,
            isolation_templates,
            isolation_windows,
            isolation_accounts,
            isolation_idempotency,
            messages_accept_round_trips,
            messages_accept_round_trips_every_content_kind,
            messages_new_kinds_round_trip_with_reply_to,
            messages_referenced_stays_in_the_organization,
            messages_accept_duplicate_id_conflicts,
            messages_quota_is_enforced,
            messages_concurrent_accepts_respect_quota,
            messages_batched_accepts_answer_each_item_alone,
            messages_accept_refuses_what_the_recipient_refuses,
            messages_cursor_pagination_covers_all_once,
            messages_cursor_is_stable_under_inserts,
            messages_filters,
            messages_status_history,
            idempotency_claim_release_complete,
            idempotency_completed_record_expires,
            idempotency_abandoned_claim_is_taken_over,
            idempotency_stale_claim_cannot_complete_or_release_the_new_claim,
            templates_replace_get_and_list,
            templates_replace_is_scoped_by_waba,
            templates_concurrent_syncs_all_succeed,
            windows_only_move_forward,
            outbox_claim_returns_due_jobs_with_context,
            outbox_lease_blocks_claims_until_it_expires,
            outbox_renewed_lease_keeps_the_claim,
            outbox_submitted_sets_status_and_emits_one_event,
            outbox_failed_fails_the_message,
            outbox_retry_is_claimed_again_as_retried,
            outbox_await_callback_is_claimed_again_as_awaited,
            outbox_hold_does_not_count_an_attempt,
            outbox_already_done_closes_the_job,
            outbox_batch_completion_records_each_under_its_own_token,
            outbox_concurrent_claims_complete_every_job_once,
            outbox_claim_takes_a_fair_share_per_sender,
            outbox_claim_takes_no_more_of_a_sender_than_it_sends_within_the_lease,
            outbox_backlog_counts_open_jobs_per_sender,
            schedule_cancel_removes_the_job_and_gives_the_quota_back,
            schedule_cancel_after_a_claim_is_refused,
            schedule_cancel_is_scoped_by_organization,
            schedule_cancel_and_claim_never_both_win,
            tracking_reports_follow_the_status_machine,
            tracking_failure_event_carries_the_error,
            tracking_network_id_is_kept_once_set,
            tracking_is_scoped_by_organization,
            tracking_inbound_is_deduplicated_and_refreshes_the_window,
            tracking_inbound_events_describe_the_content,
            tracking_callbacks_round_trip,
            tracking_a_lone_status_and_its_callback_commit_together,
            tracking_a_callback_and_its_status_are_stored_together,
            tracking_callbacks_arriving_together_each_answer_alone,
            tracking_reports_applied_together_each_on_the_last_result,
            tracking_failing_callback_is_parked_and_requeued,
            notices_change_the_named_copy_once_and_record_one_event,
            notices_set_the_sender_quality_in_its_organization,
            notices_recorded_concurrently_count_once,
            notices_a_sync_keeps_the_last_change_time_of_an_unchanged_copy,
            notices_webhook_fields_missing_are_per_account_and_organization,
            webhooks_endpoints_crud_and_isolation,
            webhooks_creates_stop_at_the_limit_even_when_concurrent,
            webhooks_patch_and_rotation_keep_each_others_changes,
            webhooks_replace_endpoint_secret_compares_and_sets,
            webhooks_fan_out_follows_subscriptions,
            webhooks_event_without_subscribers_creates_no_delivery,
            webhooks_claim_respects_due_time_leases_and_cap,
            webhooks_stale_claim_writes_nothing,
            webhooks_complete_records_attempts_and_endpoint_health,
            webhooks_batch_completion_records_each_under_its_own_token,
            webhooks_batch_completion_health_follows_each_endpoints_last_attempt,
            webhooks_a_batch_of_successes_records_each_held_delivery_once,
            webhooks_redeliver_requeues_one_delivery,
            webhooks_recover_requeues_failed_and_skipped_since,
            webhooks_test_event_goes_to_its_endpoint_only,
            webhooks_deliveries_cursor_covers_all_once,
            webhooks_delete_cascades,
            webhooks_pending_deliveries_are_counted,
            webhooks_trace_context_follows_the_message_to_its_deliveries,
            media_insert_and_read_round_trip,
            media_every_kind_round_trips,
            media_storage_limit_counts_unexpired_uploads_of_the_organization,
            media_is_scoped_by_organization,
            media_delete,
            media_digest_in_use_across_organizations,
            media_expire_deletes_expired_uploads_and_network_uploads,
            media_network_upload_is_per_sender_and_until_reuse_end,
            media_record_network_upload_replaces,
            media_inbound_file_is_readable_in_its_organization,
            owners_set_owner_replaces_and_ends_sessions,
            owners_email_is_one_organization_login,
            owners_sessions_round_trip_touch_and_delete,
            owners_expired_sessions_are_swept,
            owners_sent_events_of_a_message,
            inbound_replies_and_reactions_resolve_to_herald_ids,
            inbound_list_filters_and_pages,
            inbound_get_and_read_are_scoped,
            inbound_keeps_its_source_and_an_echo_opens_no_window,
            contacts_preferences_record_one_event_and_only_move_forward,
            contacts_are_found_by_number_or_user_id_and_paired,
            contacts_block_and_keyword_rule_round_trip,
            contacts_of_one_person_are_merged_when_linked,
            contacts_of_national_variants_are_one,
            contacts_an_organizations_change_that_changes_nothing_records_nothing,
            pricing_of_the_furthest_report_is_kept_and_sent_in_events,
            pricing_rate_cards_round_trip_per_organization,
            pricing_usage_counts_by_day_and_category,
            pricing_usage_counts_the_first_and_last_days_of_the_range,
            pricing_market_rate_cards_by_effective_day,
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
pub async fn new_organization_with_sender(ports: &Ports, plan: &str) -> (Organization, SenderNumber) {
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

#[cfg(test)]
mod tests {
    /// Every scenario the suite declares is a test of each adapter; this catches a scenario added to
    /// [`super::SCENARIOS`] but not to the macro (or the reverse), which would silently go untested.
    #[test]
    fn the_macro_declares_every_scenario() {
        assert_eq!(
            declared_scenarios(include_str!("contract.rs"), "contract_suite"),
            super::SCENARIOS
        );
        assert_eq!(
            declared_scenarios(include_str!("contract/media_store.rs"), "media_store_suite"),
            super::MEDIA_STORE_SCENARIOS
        );
    }

    #[allow(
        clippy::expect_used,
        reason = "test helper: a missing macro must fail the test"
    )]
    fn declared_scenarios<'a>(source: &'a str, name: &str) -> Vec<&'a str> {
        let (_, macro_body) = source
            .split_once(&format!("macro_rules! {name}"))
            .expect("the macro is defined in its file");
        macro_body
            .lines()
            .map(str::trim)
            .take_while(|line| !line.starts_with(");"))
            .filter_map(|line| line.strip_suffix(','))
            .filter(|name| name.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
            .collect()
    }
}

//! The diesel table definitions, written once.
//!
//! Both backends have the same tables and columns; only the SQL type of a point in time differs
//! (`TIMESTAMPTZ` on PostgreSQL, diesel's `TimestamptzSqlite` text on SQLite). Each backend's `schema.rs`
//! names its time type `Moment` (not `Time`: `table!` would take it for SQL `TIME` and derive arithmetic) and expands [`define_tables!`].
//!
//! Row structs in [`crate::rows`] select their columns by name, so the column order here is free.

macro_rules! define_tables {
    () => {
        diesel::table! {
            use diesel::sql_types::*;
            use super::Moment;

            plans (name) {
                name -> Text,
                rate_per_second -> Integer,
                burst -> Integer,
                monthly_quota -> Nullable<BigInt>,
                text_allowed -> Bool,
                template_allowed -> Bool,
                media_allowed -> Bool,
                max_file_bytes -> BigInt,
                webhook_endpoints -> Integer,
                media_storage_bytes -> Nullable<BigInt>,
                /// Days a final message and its rows are kept; read by the retention worker only.
                retention_days -> Integer,
            }
        }

        diesel::table! {
            use diesel::sql_types::*;
            use super::Moment;

            organizations (id) {
                id -> Text,
                name -> Text,
                status -> Text,
                plan -> Text,
                owner_email -> Nullable<Text>,
                created_at -> Moment,
            }
        }

        diesel::table! {
            use diesel::sql_types::*;
            use super::Moment;

            senders (id) {
                id -> Text,
                organization_id -> Text,
                number -> Text,
                phone_number_id -> Text,
                waba_id -> Text,
                access_token_env -> Nullable<Text>,
                access_token_ciphertext -> Nullable<Text>,
                is_default -> Bool,
                throughput_per_second -> Integer,
                created_at -> Moment,
                quality_rating -> Nullable<Text>,
                messaging_limit -> Nullable<Text>,
                quality_updated_at -> Nullable<Moment>,
                shares_waba -> Bool,
                webhook_fields_missing -> Nullable<Text>,
            }
        }

        diesel::table! {
            use diesel::sql_types::*;
            use super::Moment;

            api_keys (id) {
                id -> Text,
                organization_id -> Text,
                name -> Nullable<Text>,
                prefix -> Text,
                digest -> Text,
                status -> Text,
                created_at -> Moment,
                last_used_at -> Nullable<Moment>,
                disabled_at -> Nullable<Moment>,
            }
        }

        diesel::table! {
            use diesel::sql_types::*;
            use super::Moment;

            messages (id) {
                id -> Text,
                organization_id -> Text,
                sender_id -> Text,
                from_number -> Text,
                to_number -> Text,
                message_type -> Text,
                content -> Text,
                client_reference -> Nullable<Text>,
                status -> Text,
                network_message_id -> Nullable<Text>,
                error -> Nullable<Text>,
                created_at -> Moment,
                updated_at -> Moment,
                accepted_at -> Nullable<Moment>,
                submitted_at -> Nullable<Moment>,
                sent_at -> Nullable<Moment>,
                delivered_at -> Nullable<Moment>,
                read_at -> Nullable<Moment>,
                failed_at -> Nullable<Moment>,
                trace_context -> Nullable<Text>,
                scheduled_for -> Nullable<Moment>,
                cancelled_at -> Nullable<Moment>,
                pricing_model -> Nullable<Text>,
                pricing_category -> Nullable<Text>,
                pricing_type -> Nullable<Text>,
                pricing_billable -> Nullable<Bool>,
                broadcast_id -> Nullable<Text>,
                route -> Nullable<Text>,
            }
        }

        diesel::table! {
            use diesel::sql_types::*;
            use super::Moment;

            template_authors (waba_id, name) {
                waba_id -> Text,
                name -> Text,
                organization_id -> Text,
                created_at -> Moment,
            }
        }

        diesel::table! {
            use diesel::sql_types::*;
            use super::Moment;

            rates (organization_id, category) {
                organization_id -> Text,
                category -> Text,
                amount_micros -> BigInt,
                currency -> Text,
                updated_at -> Moment,
            }
        }

        diesel::table! {
            use diesel::sql_types::*;
            use super::Moment;

            /// Meta's rates by market and category, one card per day it takes effect (`YYYY-MM-DD`).
            market_rates (effective_from, market, category) {
                effective_from -> Text,
                market -> Text,
                category -> Text,
                amount_micros -> BigInt,
                currency -> Text,
                imported_at -> Moment,
            }
        }

        diesel::table! {
            use diesel::sql_types::*;
            use super::Moment;

            message_events (id) {
                id -> Text,
                organization_id -> Text,
                message_id -> Text,
                status -> Text,
                previous_status -> Nullable<Text>,
                applied -> Bool,
                source -> Text,
                error -> Nullable<Text>,
                occurred_at -> Moment,
                recorded_at -> Moment,
            }
        }

        diesel::table! {
            use diesel::sql_types::*;
            use super::Moment;

            outbox (id) {
                id -> Text,
                organization_id -> Text,
                message_id -> Text,
                sender_id -> Text,
                state -> Text,
                available_at -> Moment,
                deadline -> Moment,
                attempts -> Integer,
                claim_token -> Nullable<Text>,
                lease_until -> Nullable<Moment>,
                last_error -> Nullable<Text>,
                created_at -> Moment,
                updated_at -> Moment,
                awaiting_callback -> Bool,
                broadcast_id -> Nullable<Text>,
            }
        }

        diesel::table! {
            use diesel::sql_types::*;

            usage_counters (organization_id, period) {
                organization_id -> Text,
                period -> Text,
                count -> BigInt,
            }
        }

        diesel::table! {
            use diesel::sql_types::*;
            use super::Moment;

            idempotency_keys (organization_id, key) {
                organization_id -> Text,
                key -> Text,
                fingerprint -> Text,
                state -> Text,
                message_id -> Nullable<Text>,
                locked_at -> Moment,
                completed_at -> Nullable<Moment>,
                claim_token -> Nullable<Text>,
            }
        }

        diesel::table! {
            use diesel::sql_types::*;
            use super::Moment;

            templates (id) {
                id -> Text,
                organization_id -> Text,
                waba_id -> Text,
                name -> Text,
                language -> Text,
                status -> Text,
                category -> Text,
                structure -> Text,
                network_id -> Nullable<Text>,
                synced_at -> Moment,
                quality -> Nullable<Text>,
                rejected_reason -> Nullable<Text>,
                updated_at -> Nullable<Moment>,
            }
        }

        diesel::table! {
            use diesel::sql_types::*;
            use super::Moment;

            service_windows (organization_id, sender_id, recipient) {
                organization_id -> Text,
                sender_id -> Text,
                recipient -> Text,
                last_inbound_at -> Moment,
            }
        }

        diesel::table! {
            use diesel::sql_types::*;
            use super::Moment;

            network_callbacks (id) {
                id -> Text,
                received_at -> Moment,
                body -> Binary,
                processed_at -> Nullable<Moment>,
                note -> Nullable<Text>,
                attempts -> Integer,
                last_error -> Nullable<Text>,
                parked_at -> Nullable<Moment>,
            }
        }

        diesel::table! {
            use diesel::sql_types::*;
            use super::Moment;

            inbound_messages (id) {
                id -> Text,
                organization_id -> Text,
                sender_id -> Text,
                from_number -> Text,
                network_message_id -> Text,
                message_type -> Text,
                content -> Text,
                from_name -> Nullable<Text>,
                context_message_id -> Nullable<Text>,
                raw -> Text,
                received_at -> Moment,
                recorded_at -> Moment,
                media_id -> Nullable<Text>,
                context_ref -> Nullable<Text>,
                reaction_ref -> Nullable<Text>,
                referral -> Nullable<Text>,
                read_at -> Nullable<Moment>,
                from_user_id -> Nullable<Text>,
                source_field -> Text,
                echo -> Bool,
            }
        }

        diesel::table! {
            use diesel::sql_types::*;
            use super::Moment;

            events (id) {
                id -> Text,
                organization_id -> Text,
                event_type -> Text,
                message_id -> Nullable<Text>,
                sequence -> Integer,
                payload -> Text,
                occurred_at -> Moment,
                created_at -> Moment,
                trace_context -> Nullable<Text>,
                dedupe_key -> Nullable<Text>,
            }
        }

        diesel::table! {
            use diesel::sql_types::*;
            use super::Moment;

            webhook_endpoints (id) {
                id -> Text,
                organization_id -> Text,
                url -> Text,
                sub_status -> Bool,
                sub_failed -> Bool,
                sub_inbound -> Bool,
                sub_template_status -> Bool,
                sub_template_quality -> Bool,
                sub_template_category -> Bool,
                sub_sender_quality -> Bool,
                sub_account_update -> Bool,
                sub_contact_preferences -> Bool,
                sub_broadcast_progress -> Bool,
                sub_broadcast_completed -> Bool,
                sub_contact_erased -> Bool,
                description -> Nullable<Text>,
                enabled -> Bool,
                disabled_reason -> Nullable<Text>,
                secret -> Binary,
                previous_secret -> Nullable<Binary>,
                previous_secret_expires_at -> Nullable<Moment>,
                failing_since -> Nullable<Moment>,
                created_at -> Moment,
                updated_at -> Moment,
            }
        }

        diesel::table! {
            use diesel::sql_types::*;
            use super::Moment;

            webhook_deliveries (id) {
                id -> Text,
                organization_id -> Text,
                endpoint_id -> Text,
                event_id -> Text,
                event_type -> Text,
                status -> Text,
                attempts -> Integer,
                next_attempt_at -> Nullable<Moment>,
                claim_token -> Nullable<Text>,
                lease_until -> Nullable<Moment>,
                created_at -> Moment,
                updated_at -> Moment,
            }
        }

        diesel::table! {
            use diesel::sql_types::*;
            use super::Moment;

            webhook_attempts (delivery_id, number) {
                delivery_id -> Text,
                number -> Integer,
                at -> Moment,
                status_code -> Nullable<Integer>,
                response_prefix -> Text,
                error_kind -> Nullable<Text>,
                duration_ms -> BigInt,
            }
        }

        diesel::table! {
            use diesel::sql_types::*;
            use super::Moment;

            media_files (id) {
                id -> Text,
                organization_id -> Text,
                kind -> Text,
                mime_type -> Text,
                size -> BigInt,
                sha256 -> Text,
                filename -> Nullable<Text>,
                created_at -> Moment,
                expires_at -> Moment,
            }
        }

        diesel::table! {
            use diesel::sql_types::*;
            use super::Moment;

            network_media_uploads (sender_id, sha256) {
                organization_id -> Text,
                sender_id -> Text,
                sha256 -> Text,
                network_media_id -> Text,
                uploaded_at -> Moment,
                reuse_until -> Moment,
            }
        }

        diesel::table! {
            use diesel::sql_types::*;
            use super::Moment;

            contacts (organization_id, contact_key) {
                organization_id -> Text,
                contact_key -> Text,
                number -> Nullable<Text>,
                number_key -> Nullable<Text>,
                user_id -> Nullable<Text>,
                marketing -> Text,
                marketing_changed_at -> Nullable<Moment>,
                marketing_source -> Nullable<Text>,
                blocked -> Bool,
                blocked_at -> Nullable<Moment>,
                updated_at -> Moment,
            }
        }

        diesel::table! {
            use diesel::sql_types::*;
            use super::Moment;

            contact_keyword_rules (organization_id) {
                organization_id -> Text,
                stop_keywords -> Text,
                resume_keywords -> Text,
                updated_at -> Moment,
            }
        }

        diesel::table! {
            use diesel::sql_types::*;
            use super::Moment;

            /// Broadcasts (one template to many recipients, paced).
            broadcasts (id) {
                id -> Text,
                organization_id -> Text,
                sender_id -> Text,
                from_number -> Text,
                template_name -> Text,
                template_language -> Text,
                state -> Text,
                total -> Integer,
                released -> Integer,
                send_at -> Nullable<Moment>,
                pause -> Nullable<Text>,
                idempotency_key -> Nullable<Text>,
                request_fingerprint -> Nullable<Text>,
                progress_at -> Nullable<Moment>,
                failures_seen -> Nullable<Moment>,
                created_at -> Moment,
                updated_at -> Moment,
                completed_at -> Nullable<Moment>,
                cancelled_at -> Nullable<Moment>,
            }
        }

        diesel::table! {
            /// A broadcast's messages counted by status, kept by the database's triggers on `messages`.
            broadcast_counts (broadcast_id, status) {
                broadcast_id -> Text,
                status -> Text,
                count -> BigInt,
            }
        }

        diesel::table! {
            use diesel::sql_types::*;
            use super::Moment;

            /// The keyed markers of every identity of each person erased (docs/api.md §7.2).
            erasures (organization_id, marker) {
                organization_id -> Text,
                marker -> Text,
                erased_at -> Moment,
            }
        }

        diesel::table! {
            use diesel::sql_types::*;
            use super::Moment;

            /// Bytes of an erased person's files still to be removed.
            erased_media (organization_id, sha256) {
                organization_id -> Text,
                sha256 -> Text,
                erased_at -> Moment,
            }
        }

        diesel::joinable!(api_keys -> organizations (organization_id));
        diesel::joinable!(organizations -> plans (plan));
        diesel::joinable!(webhook_deliveries -> webhook_endpoints (endpoint_id));
        diesel::joinable!(webhook_deliveries -> events (event_id));

        diesel::allow_tables_to_appear_in_same_query!(
            plans,
            rates,
            market_rates,
            organizations,
            senders,
            api_keys,
            messages,
            message_events,
            outbox,
            usage_counters,
            idempotency_keys,
            templates,
            service_windows,
            network_callbacks,
            inbound_messages,
            events,
            webhook_endpoints,
            webhook_deliveries,
            webhook_attempts,
            media_files,
            network_media_uploads,
            contacts,
            contact_keyword_rules,
            broadcasts,
            broadcast_counts,
            erasures,
            erased_media,
        );
    };
}

/// The owner's dashboard tables: `owners` and `dashboard_sessions`.
macro_rules! define_owner_tables {
    () => {
        diesel::table! {
            use diesel::sql_types::*;
            use super::Moment;

            owners (organization_id) {
                organization_id -> Text,
                email -> Text,
                password_hash -> Text,
                password_set_at -> Moment,
            }
        }

        diesel::table! {
            use diesel::sql_types::*;
            use super::Moment;

            dashboard_sessions (digest) {
                digest -> Text,
                organization_id -> Text,
                email -> Text,
                csrf_token -> Text,
                created_at -> Moment,
                last_seen_at -> Moment,
                expires_at -> Moment,
            }
        }
    };
}

pub(crate) use {define_owner_tables, define_tables};

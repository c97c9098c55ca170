//! The simulator's numbers and the network's callbacks as the API tests and the benchmarks set them up (each
//! includes this file with `#[path]`).

use herald_app::Services;
use herald_domain::ids::OrganizationId;
use herald_domain::organization::{NetworkRef, SenderNumber};
use herald_domain::usecases::NewSender;
use herald_domain::values::PhoneNumber;

/// Adds `number` (network id `phone_number_id`, in the simulator's business account, with no token of its
/// own) to `org`.
#[allow(clippy::unwrap_used, reason = "test set-up fails loudly")]
pub async fn add_sender(
    services: &Services,
    org: &OrganizationId,
    number: &str,
    phone_number_id: &str,
    is_default: bool,
    throughput_per_second: u32,
) -> SenderNumber {
    services
        .admin()
        .add_sender(NewSender {
            organization_id: *org,
            number: PhoneNumber::parse(number).unwrap(),
            phone_number_id: NetworkRef::parse(phone_number_id).unwrap(),
            waba_id: NetworkRef::parse(herald_app::demo::SIMULATOR_WABA_ID).unwrap(),
            access_token_env: None,
            access_token: None,
            is_default,
            throughput_per_second,
            // The tests' organizations all have numbers of the simulator's one business account, on purpose
            // (the operator's `--shared-waba`): each gets its notices, as the tests expect.
            shared_waba: true,
        })
        .await
        .unwrap()
}

/// A status callback as the network sends it: one report of `status` about Herald's message `id` (its
/// `biz_opaque_callback_data`, and `wamid.<id>` as its network id) from the number `phone_number_id`, at
/// `timestamp` (unix seconds).
#[allow(clippy::unwrap_used, reason = "test set-up fails loudly")]
pub fn status_callback(phone_number_id: &str, id: &str, status: &str, timestamp: i64) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "object": "whatsapp_business_account",
        "entry": [{"id": "1", "changes": [{"field": "messages", "value": {
            "messaging_product": "whatsapp",
            "metadata": {"display_phone_number": "15557000001", "phone_number_id": phone_number_id},
            "statuses": [{
                "id": format!("wamid.{id}"), "status": status, "timestamp": timestamp.to_string(),
                "recipient_id": "15554000000", "biz_opaque_callback_data": id,
            }],
        }}]}],
    }))
    .unwrap()
}

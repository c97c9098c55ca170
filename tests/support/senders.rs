//! Shared by the API tests and the benchmarks (each includes it with `#[path]`).

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
        })
        .await
        .unwrap()
}

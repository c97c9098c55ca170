//! The client address of an API request, and the per-address limit on failed authentications
//! (docs/api.md §1): unknown keys cost a store query each, so an address that keeps failing is answered
//! `429` before its key is looked up.

use actix_web::HttpRequest;
use herald_domain::client_address::{AddressBucket, TrustedProxies};
use herald_domain::ports::RateDecision;
use std::net::{IpAddr, Ipv4Addr};

pub use herald_domain::ports::AuthFailureLimit;

/// No limit on failed authentications (tests that do not exercise it).
#[derive(Debug, Default, Clone, Copy)]
pub struct NoAuthFailureLimit;

impl AuthFailureLimit for NoAuthFailureLimit {
    fn check(&self, _: &AddressBucket) -> RateDecision {
        unlimited()
    }

    fn record_failure(&self, _: &AddressBucket) -> RateDecision {
        unlimited()
    }
}

fn unlimited() -> RateDecision {
    RateDecision::Allowed {
        limit: u32::MAX,
        remaining: u32::MAX,
        reset_seconds: 0,
    }
}

/// The client's address: the TCP peer, or what trusted proxies say in `X-Forwarded-For`
/// (`herald_domain::client_address`). Not actix's `realip_remote_addr`, which believes any sender's header.
pub(crate) fn client_address(req: &HttpRequest, proxies: &TrustedProxies) -> IpAddr {
    // Only in-process test requests have no socket peer; they share one bucket.
    let peer = req
        .peer_addr()
        .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |a| a.ip());
    let forwarded = req.headers().get_all("x-forwarded-for").map(|v| v.as_bytes());
    proxies.client_address(peer, forwarded)
}

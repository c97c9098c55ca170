//! How many login attempts an account and a client address may make.

use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use herald_domain::client_address::AddressBucket;
use std::num::NonZeroU32;

/// Login attempts allowed per account (email) and per client address (an IPv6 client by its /64), each a
/// token bucket refilled per minute. Kept in this process: with several API processes each holds its own
/// buckets.
pub struct LoginLimits {
    per_account: DefaultKeyedRateLimiter<String>,
    per_address: DefaultKeyedRateLimiter<AddressBucket>,
}

impl LoginLimits {
    /// Attempts per minute per account and per address; 0 is read as 1.
    pub fn new(per_account_per_minute: u32, per_address_per_minute: u32) -> Self {
        let quota = |n: u32| Quota::per_minute(NonZeroU32::new(n.max(1)).unwrap_or(NonZeroU32::MIN));
        Self {
            per_account: RateLimiter::keyed(quota(per_account_per_minute)),
            per_address: RateLimiter::keyed(quota(per_address_per_minute)),
        }
    }

    /// Takes one attempt from the address's bucket, then from the account's; `false` when either is empty
    /// (then the attempt is refused with the same answer as wrong credentials). An address already over
    /// its limit takes nothing from the account's bucket, so it cannot lock the account's owner out.
    pub fn allow(&self, email: &str, address: &AddressBucket) -> bool {
        // Bounded memory: forget keys whose buckets are full again.
        if self.per_account.len() > 10_000 {
            self.per_account.retain_recent();
        }
        if self.per_address.len() > 10_000 {
            self.per_address.retain_recent();
        }
        self.per_address.check_key(address).is_ok()
            && self.per_account.check_key(&email.trim().to_lowercase()).is_ok()
    }
}

#[cfg(test)]
mod limit_tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::LoginLimits;
    use herald_domain::client_address::AddressBucket;

    fn at(address: &str) -> AddressBucket {
        AddressBucket::of(address.parse().unwrap())
    }

    #[test]
    fn an_address_over_its_limit_takes_nothing_from_the_account() {
        let limits = LoginLimits::new(3, 2);
        // The attacker's address spends its two attempts on the victim's account, then is refused.
        assert!(limits.allow("owner@example.com", &at("203.0.113.9")));
        assert!(limits.allow("owner@example.com", &at("203.0.113.9")));
        for _ in 0..10 {
            assert!(!limits.allow("OWNER@example.com", &at("203.0.113.9")));
        }
        // The owner, from elsewhere, still has the account's third attempt.
        assert!(limits.allow("owner@example.com", &at("198.51.100.7")));
        assert!(
            !limits.allow("owner@example.com", &at("198.51.100.8")),
            "the account's bucket is spent now"
        );
    }

    #[test]
    fn an_ipv6_client_cannot_rotate_addresses_within_its_64() {
        let limits = LoginLimits::new(100, 2);
        assert!(limits.allow("a@example.com", &at("2001:db8:1:2::1")));
        assert!(limits.allow("b@example.com", &at("2001:db8:1:2::2")));
        assert!(!limits.allow("c@example.com", &at("2001:db8:1:2:ffff::3")));
        assert!(
            limits.allow("c@example.com", &at("2001:db8:1:3::1")),
            "the next /64 is another client"
        );
    }
}

//! Ports for child processes that a test must name before they start (a simulator given the API's callback
//! URL, a Prometheus told where to scrape, a ChromeDriver's `--port`).
//!
//! The usual trick, bind port 0, read the port, drop the listener and hand the number to the child, leaves a
//! window in which the kernel can give that same port to anyone else: another test's `bind(0)` or the local
//! end of any outgoing connection, both of which draw from the ephemeral range
//! (`/proc/sys/net/ipv4/ip_local_port_range`). [`free_port`] draws from *below* that range instead, where
//! the kernel never assigns a port by itself, so only a process naming the same port on purpose can take it.
//! A child that can bind port 0 itself and report its port is better still; this is for the others.

use std::collections::BTreeSet;
use std::hash::{BuildHasher, RandomState};
use std::net::TcpListener;
use std::sync::Mutex;

/// The lowest port drawn from: above the well-known services a CI machine runs (PostgreSQL's 5432,
/// RabbitMQ's 5672, NATS's 4222, Redis's 6379, MariaDB's 3306, …); any that is taken is skipped anyway.
const LOWEST: u16 = 10_000;

/// Ports this process has already handed out: free until their child binds them, so a second draw could
/// otherwise return one again.
static GIVEN: Mutex<BTreeSet<u16>> = Mutex::new(BTreeSet::new());

/// A loopback port that nothing listens on, outside the range the kernel assigns by itself.
///
/// # Errors
/// When no port below the ephemeral range could be bound in 1,000 tries.
pub fn free_port() -> std::io::Result<u16> {
    let highest = ephemeral_start().saturating_sub(1).max(LOWEST + 1);
    let span = u64::from(highest - LOWEST);
    // A different sequence in every process and every call: tests run as parallel processes.
    let random = RandomState::new();
    let candidates =
        (0_u64..1_000).map(|attempt| LOWEST + u16::try_from(random.hash_one(attempt) % span).unwrap_or(0));
    let mut given = GIVEN.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    first_free(candidates, &mut given).ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::AddrInUse,
            format!("no free loopback port between {LOWEST} and {highest}"),
        )
    })
}

/// The first of `candidates` not handed out before and bindable now; recorded in `given`.
fn first_free(candidates: impl IntoIterator<Item = u16>, given: &mut BTreeSet<u16>) -> Option<u16> {
    let port = candidates
        .into_iter()
        .find(|port| !given.contains(port) && TcpListener::bind(("127.0.0.1", *port)).is_ok())?;
    given.insert(port);
    Some(port)
}

/// The first port of the kernel's ephemeral range (Linux's default when it cannot be read).
fn ephemeral_start() -> u16 {
    std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|range| range.split_whitespace().next()?.parse().ok())
        .unwrap_or(32_768)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_are_below_the_ephemeral_range_distinct_and_bindable() {
        let start = ephemeral_start();
        let ports: Vec<u16> = (0..50).map(|_| free_port().unwrap()).collect();
        let distinct: BTreeSet<u16> = ports.iter().copied().collect();
        assert_eq!(distinct.len(), ports.len(), "{ports:?}");
        for port in ports {
            assert!((LOWEST..start).contains(&port), "{port} not below {start}");
            TcpListener::bind(("127.0.0.1", port)).unwrap();
        }
    }

    #[test]
    fn a_port_someone_listens_on_or_already_given_is_skipped() {
        let holder = TcpListener::bind("127.0.0.1:0").unwrap();
        let taken = holder.local_addr().unwrap().port();
        let already = free_port().unwrap();
        let wanted = free_port().unwrap();
        let mut given = BTreeSet::from([already]);
        assert_eq!(first_free([taken, already, wanted], &mut given), Some(wanted));
        assert!(given.contains(&wanted));
        assert_eq!(first_free([taken, already, wanted], &mut given), None);
    }
}

//! Who is on the other end of a request, for per-address limits (the dashboard's login limiter, the API's
//! failed-authentication limit).
//!
//! Behind a reverse proxy every request arrives from the proxy, so the TCP peer alone would put every client
//! in one bucket. The proxy says who its client was in `X-Forwarded-For`, but anyone can send that header:
//! it is believed only as far as the operator's list of trusted proxies ([`TrustedProxies`]) vouches for
//! it. Each trusted hop appends the address it received the request from, so the header is read from the
//! right, and the first address that is not a trusted proxy is the client. Everything left of it was written
//! by the client itself (or a proxy nobody vouches for) and is ignored.
//!
//! Limits then key the address by [`AddressBucket`]: an IPv6 client by its /64, since one subscriber
//! commonly holds a whole /64 and could otherwise rotate through 2^64 addresses, each with a fresh bucket.
//!
//! Pure functions over bytes and `std::net` types, so both web crates share one rule and it is tested here.

use ipnet::{IpNet, Ipv4Net, Ipv6Net};
use std::fmt;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::str::FromStr;

/// The proxies whose `X-Forwarded-For` is believed (`HERALD_TRUSTED_PROXIES`). Empty by default: then
/// the client is always the TCP peer and the header is never read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies {
    networks: Vec<IpNet>,
}

/// An entry of the trusted-proxy list that is neither an IP address nor a CIDR network.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{entry}` is not an IP address or a CIDR network (e.g. 10.0.0.7, 10.0.0.0/8, fd00::/8)")]
pub struct InvalidProxyEntry {
    entry: String,
}

impl TrustedProxies {
    /// Trusts no proxy: the client is the TCP peer.
    pub fn none() -> Self {
        Self::default()
    }

    /// Reads a comma-separated list of IP addresses and CIDR networks (`10.0.0.7, 10.1.0.0/16, fd00::/8`).
    /// Blank entries are skipped, so an empty list trusts nobody. IPv4-mapped IPv6 forms
    /// (`::ffff:10.0.0.7`) are read as the IPv4 they stand for, as peers are.
    ///
    /// # Errors
    /// [`InvalidProxyEntry`] naming the first entry that does not parse: a list the operator meant
    /// differently must stop the start, not silently trust less (or more).
    pub fn parse(list: &str) -> Result<Self, InvalidProxyEntry> {
        let mut networks = Vec::new();
        for entry in list.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let network = IpNet::from_str(entry)
                .ok()
                .or_else(|| IpAddr::from_str(entry).ok().map(IpNet::from))
                .ok_or_else(|| InvalidProxyEntry {
                    entry: entry.to_owned(),
                })?;
            networks.push(canonical_network(network));
        }
        Ok(Self { networks })
    }

    /// Whether no proxy is trusted.
    pub fn is_empty(&self) -> bool {
        self.networks.is_empty()
    }

    /// Whether `address` is one of the trusted proxies.
    pub fn trusts(&self, address: IpAddr) -> bool {
        let address = canonical(address);
        self.networks.iter().any(|network| network.contains(&address))
    }

    /// The client's address: the TCP `peer` unless it is a trusted proxy; then, walking the
    /// `X-Forwarded-For` values (each header line's raw bytes, in the order received) from the right,
    /// the first address that is not a trusted proxy. An entry that is not an address (`unknown`, an
    /// obfuscated name, garbage) stops the walk at the last trusted hop, since nothing left of it can be
    /// vouched for. When every entry is trusted, the left-most is the client (a request from inside the
    /// trusted network). Ports (`203.0.113.7:4711`, `[2001:db8::1]:443`) are dropped.
    pub fn client_address<'a>(
        &self,
        peer: IpAddr,
        forwarded_for: impl IntoIterator<Item = &'a [u8]>,
    ) -> IpAddr {
        let peer = canonical(peer);
        if !self.trusts(peer) {
            return peer;
        }
        let values: Vec<&[u8]> = forwarded_for.into_iter().collect();
        let mut client = peer;
        for value in values.iter().rev() {
            let Ok(value) = std::str::from_utf8(value) else {
                return client;
            };
            for entry in value.rsplit(',') {
                let Some(hop) = parse_hop(entry.trim()) else {
                    return client;
                };
                client = hop;
                if !self.trusts(hop) {
                    return hop;
                }
            }
        }
        client
    }
}

/// One `X-Forwarded-For` entry: an address, with or without a port.
fn parse_hop(entry: &str) -> Option<IpAddr> {
    let address = IpAddr::from_str(entry)
        .ok()
        .or_else(|| SocketAddr::from_str(entry).ok().map(|s| s.ip()))
        .or_else(|| {
            entry
                .strip_prefix('[')
                .and_then(|e| e.strip_suffix(']'))
                .and_then(|e| Ipv6Addr::from_str(e).ok())
                .map(IpAddr::V6)
        })?;
    Some(canonical(address))
}

/// An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, what a dual-stack socket reports for an IPv4 client) as
/// the IPv4 address it is; anything else unchanged.
pub fn canonical(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(address, IpAddr::V4),
        IpAddr::V4(_) => address,
    }
}

fn canonical_network(network: IpNet) -> IpNet {
    match network {
        IpNet::V6(v6) if v6.prefix_len() >= 96 => v6
            .network()
            .to_ipv4_mapped()
            .and_then(|v4| Ipv4Net::new(v4, v6.prefix_len() - 96).ok())
            .map_or(network, IpNet::V4),
        _ => network,
    }
}

/// The key of a per-address limit: an IPv4 address whole, an IPv6 address by its /64 (the smallest block
/// a subscriber is normally given), IPv4-mapped IPv6 as IPv4. Shown as `203.0.113.7` or
/// `2001:db8:1:2::/64`, which is what logs say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AddressBucket(IpAddr);

impl AddressBucket {
    /// The bucket `address` counts against.
    pub fn of(address: IpAddr) -> Self {
        match canonical(address) {
            IpAddr::V6(v6) => {
                let prefix = Ipv6Net::new(v6, 64).map_or(v6, |net| net.network());
                Self(IpAddr::V6(prefix))
            }
            v4 @ IpAddr::V4(_) => Self(v4),
        }
    }
}

impl fmt::Display for AddressBucket {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            IpAddr::V4(v4) => write!(f, "{v4}"),
            IpAddr::V6(v6) => write!(f, "{v6}/64"),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    fn proxies(list: &str) -> TrustedProxies {
        TrustedProxies::parse(list).unwrap()
    }

    /// The client of a request from `peer` with these `X-Forwarded-For` lines.
    fn client(trusted: &TrustedProxies, peer: &str, lines: &[&str]) -> IpAddr {
        trusted.client_address(ip(peer), lines.iter().map(|l| l.as_bytes()))
    }

    #[test]
    fn the_list_takes_addresses_and_networks_of_both_families() {
        let trusted = proxies(" 10.0.0.7, 192.168.0.0/16,fd00::/8 ,2001:db8::1,");
        for yes in [
            "10.0.0.7",
            "192.168.44.1",
            "fd12::1",
            "2001:db8::1",
            "::ffff:192.168.1.1",
        ] {
            assert!(trusted.trusts(ip(yes)), "{yes}");
        }
        for no in [
            "10.0.0.8",
            "192.169.0.1",
            "fe80::1",
            "2001:db8::2",
            "::ffff:10.0.0.8",
        ] {
            assert!(!trusted.trusts(ip(no)), "{no}");
        }
        assert!(TrustedProxies::parse("").unwrap().is_empty());
        assert!(TrustedProxies::parse(" , ").unwrap().is_empty());
        assert_eq!(TrustedProxies::none(), TrustedProxies::parse("").unwrap());
    }

    #[test]
    fn mapped_proxy_entries_mean_their_ipv4() {
        let trusted = proxies("::ffff:10.0.0.7, ::ffff:172.16.0.0/108");
        assert!(trusted.trusts(ip("10.0.0.7")));
        assert!(trusted.trusts(ip("172.31.255.255")));
        assert!(!trusted.trusts(ip("172.32.0.0")));
    }

    #[test]
    fn invalid_entries_are_named() {
        for (list, bad) in [
            ("10.0.0.1, proxy.internal", "proxy.internal"),
            ("10.0.0.0/33", "10.0.0.0/33"),
            ("10.0.0.1 10.0.0.2", "10.0.0.1 10.0.0.2"),
            ("*", "*"),
            ("fd00::/129", "fd00::/129"),
        ] {
            let error = TrustedProxies::parse(list).unwrap_err();
            assert_eq!(error.entry, bad);
            assert!(error.to_string().contains(bad), "{error}");
        }
    }

    #[test]
    fn without_trusted_proxies_the_header_is_never_read() {
        let none = TrustedProxies::none();
        assert_eq!(client(&none, "203.0.113.9", &["198.51.100.1"]), ip("203.0.113.9"));
        assert_eq!(client(&none, "203.0.113.9", &[]), ip("203.0.113.9"));
    }

    #[test]
    fn an_untrusted_peers_header_is_ignored() {
        let trusted = proxies("10.0.0.0/8");
        // A client talking to Herald directly cannot claim to be someone else.
        assert_eq!(
            client(&trusted, "203.0.113.9", &["198.51.100.1, 10.0.0.1"]),
            ip("203.0.113.9")
        );
    }

    #[test]
    fn behind_a_trusted_proxy_the_right_most_untrusted_hop_is_the_client() {
        let trusted = proxies("10.0.0.0/8");
        assert_eq!(
            client(&trusted, "10.0.0.2", &["198.51.100.1"]),
            ip("198.51.100.1")
        );
        // Two trusted proxies in a chain: both skipped.
        assert_eq!(
            client(&trusted, "10.0.0.2", &["198.51.100.1, 10.0.0.3"]),
            ip("198.51.100.1")
        );
        // Several header lines read as one list, in order.
        assert_eq!(
            client(&trusted, "10.0.0.2", &["192.0.2.200", "198.51.100.1", "10.0.0.3"]),
            ip("198.51.100.1")
        );
    }

    #[test]
    fn spoofed_left_most_entries_are_ignored() {
        let trusted = proxies("10.0.0.0/8");
        // The client sent `X-Forwarded-For: 192.0.2.1, 10.9.9.9` itself; the proxy appended its real address.
        assert_eq!(
            client(&trusted, "10.0.0.2", &["192.0.2.1, 10.9.9.9, 198.51.100.1"]),
            ip("198.51.100.1")
        );
        assert_eq!(
            client(&trusted, "10.0.0.2", &["192.0.2.1", "198.51.100.1"]),
            ip("198.51.100.1")
        );
    }

    #[test]
    fn a_malformed_entry_stops_at_the_last_trusted_hop() {
        let trusted = proxies("10.0.0.0/8");
        assert_eq!(client(&trusted, "10.0.0.2", &["unknown"]), ip("10.0.0.2"));
        assert_eq!(client(&trusted, "10.0.0.2", &[""]), ip("10.0.0.2"));
        assert_eq!(
            client(&trusted, "10.0.0.2", &["198.51.100.1, garbage, 10.0.0.3"]),
            ip("10.0.0.3")
        );
        assert_eq!(
            client(&trusted, "10.0.0.2", &["198.51.100.1,,10.0.0.3"]),
            ip("10.0.0.3")
        );
        // Bytes that are not text: nothing of that line (or left of it) is believed.
        let line: &[u8] = b"198.51.100.1, \xff";
        assert_eq!(
            trusted.client_address(ip("10.0.0.2"), [b"192.0.2.1".as_slice(), line]),
            ip("10.0.0.2")
        );
    }

    #[test]
    fn when_every_hop_is_trusted_the_left_most_is_the_client() {
        let trusted = proxies("10.0.0.0/8");
        assert_eq!(
            client(&trusted, "10.0.0.2", &["10.0.0.9, 10.0.0.3"]),
            ip("10.0.0.9")
        );
        assert_eq!(client(&trusted, "10.0.0.2", &[]), ip("10.0.0.2"));
    }

    #[test]
    fn ipv6_and_ports_and_mapped_forms() {
        let trusted = proxies("fd00::/8, 10.0.0.0/8");
        assert_eq!(client(&trusted, "fd00::2", &["2001:db8::7"]), ip("2001:db8::7"));
        assert_eq!(
            client(&trusted, "fd00::2", &["[2001:db8::7]:443"]),
            ip("2001:db8::7")
        );
        assert_eq!(client(&trusted, "fd00::2", &["[2001:db8::7]"]), ip("2001:db8::7"));
        assert_eq!(
            client(&trusted, "fd00::2", &["203.0.113.7:4711"]),
            ip("203.0.113.7")
        );
        // A dual-stack listener reports IPv4 peers as mapped addresses; they are still trusted.
        assert_eq!(
            client(&trusted, "::ffff:10.0.0.2", &["::ffff:203.0.113.7"]),
            ip("203.0.113.7")
        );
        assert_eq!(
            client(&TrustedProxies::none(), "::ffff:203.0.113.7", &[]),
            ip("203.0.113.7")
        );
        // An IPv6 client behind an IPv4 proxy, and the reverse.
        assert_eq!(
            client(&trusted, "10.0.0.2", &["2001:db8::7, fd00::9"]),
            ip("2001:db8::7")
        );
        assert_eq!(client(&trusted, "fd00::2", &["198.51.100.1"]), ip("198.51.100.1"));
    }

    #[test]
    fn ipv4_is_keyed_whole_and_ipv6_by_its_64() {
        let a = AddressBucket::of(ip("203.0.113.7"));
        assert_ne!(a, AddressBucket::of(ip("203.0.113.8")));
        assert_eq!(a.to_string(), "203.0.113.7");
        let v6 = AddressBucket::of(ip("2001:db8:1:2:aaaa:bbbb:cccc:dddd"));
        assert_eq!(v6, AddressBucket::of(ip("2001:db8:1:2::1")));
        assert_eq!(v6, AddressBucket::of(ip("2001:db8:1:2:ffff:ffff:ffff:ffff")));
        assert_ne!(v6, AddressBucket::of(ip("2001:db8:1:3::1")));
        assert_eq!(v6.to_string(), "2001:db8:1:2::/64");
        // Mapped IPv4 is the IPv4 bucket, not one /64 shared by every IPv4 client.
        assert_eq!(AddressBucket::of(ip("::ffff:203.0.113.7")), a);
        assert_ne!(
            AddressBucket::of(ip("::ffff:203.0.113.7")),
            AddressBucket::of(ip("::ffff:203.0.113.8"))
        );
    }
}

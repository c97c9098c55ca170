//! Which webhook URLs Herald may call: the scheme rule and the address rules that stop a customer from
//! pointing deliveries at Herald's own network (SSRF).

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use url::{Host, Url};

/// The rules a destination must pass. Both switches default to the safe `false`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DestinationPolicy {
    /// Accept `http://` URLs (development and tests only).
    pub allow_insecure: bool,
    /// Accept hosts that resolve to loopback, private, link-local and other non-public addresses.
    pub allow_private: bool,
}

/// Why an address is not a public destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ForbiddenRange {
    /// `127.0.0.0/8`, `::1`.
    Loopback,
    /// RFC 1918 (`10/8`, `172.16/12`, `192.168/16`).
    Private,
    /// `169.254.0.0/16` (cloud metadata lives here), `fe80::/10`.
    LinkLocal,
    /// Carrier-grade NAT, `100.64.0.0/10`.
    SharedAddressSpace,
    /// `fc00::/7`, and the deprecated site-local `fec0::/10`.
    UniqueLocal,
    /// `224.0.0.0/4`, `ff00::/8`.
    Multicast,
    /// `255.255.255.255`.
    Broadcast,
    /// `0.0.0.0`, `::` (Linux connects them to the local host).
    Unspecified,
    /// `192.0.2/24`, `198.51.100/24`, `203.0.113/24`, `2001:db8::/32`.
    Documentation,
    /// `198.18.0.0/15`.
    Benchmarking,
    /// `0.0.0.0/8` ("this network").
    ThisNetwork,
    /// `240.0.0.0/4`, `192.0.0.0/24`, `100::/64` and other special-purpose blocks.
    Reserved,
}

impl ForbiddenRange {
    /// A short, stable name for messages and logs.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Loopback => "loopback",
            Self::Private => "private",
            Self::LinkLocal => "link-local",
            Self::SharedAddressSpace => "carrier-grade NAT",
            Self::UniqueLocal => "unique-local",
            Self::Multicast => "multicast",
            Self::Broadcast => "broadcast",
            Self::Unspecified => "unspecified",
            Self::Documentation => "documentation",
            Self::Benchmarking => "benchmarking",
            Self::ThisNetwork => "this-network",
            Self::Reserved => "reserved",
        }
    }
}

impl fmt::Display for ForbiddenRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a destination was refused. The message is fit for a 422 `validation_failed` detail and for the
/// error detail of a `blocked_destination` attempt.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DestinationError {
    /// Not an absolute URL.
    #[error("the webhook URL is not a valid absolute URL")]
    InvalidUrl,
    /// A scheme other than `https` (or `http` when insecure targets are allowed).
    #[error("the webhook URL scheme `{0}` is not allowed (use https)")]
    SchemeNotAllowed(String),
    /// `http` while insecure targets are not allowed.
    #[error("the webhook URL must use https")]
    InsecureScheme,
    /// `user:password@` in the URL; credentials belong in the receiver's own checks, not in the URL.
    #[error("the webhook URL must not carry a user name or password")]
    Credentials,
    /// No host in the URL.
    #[error("the webhook URL has no host")]
    MissingHost,
    /// The host name did not resolve to any address.
    #[error("the webhook host `{host}` did not resolve")]
    Unresolvable {
        /// The host name as written in the URL.
        host: String,
    },
    /// The host is, or resolves to, an address in a forbidden range. The message names neither the
    /// address nor the range: it goes back to the customer, who must not learn how Herald's internal
    /// names resolve.
    #[error("the webhook host `{host}` is not a public address")]
    ForbiddenAddress {
        /// The host name as written in the URL.
        host: String,
        /// The first offending address.
        address: IpAddr,
        /// The rule it breaks.
        range: ForbiddenRange,
    },
}

impl DestinationError {
    /// Whether the refusal comes from a safety rule (recorded as `blocked_destination`) rather than from
    /// a name that does not resolve (a connection failure, which may heal by itself).
    #[must_use]
    pub const fn is_blocked(&self) -> bool {
        !matches!(self, Self::Unresolvable { .. })
    }
}

/// A URL that passed [`DestinationPolicy::check_url`], with the addresses it was checked against.
///
/// Deliveries connect only to these addresses, so a DNS answer that changes between the check and the
/// connection (DNS rebinding) cannot redirect a request to a forbidden address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedUrl {
    url: Url,
    addrs: Vec<SocketAddr>,
}

impl CheckedUrl {
    /// The parsed URL.
    #[must_use]
    pub const fn url(&self) -> &Url {
        &self.url
    }

    /// The addresses the host resolved to (the literal itself for an IP host), all allowed by the policy.
    #[must_use]
    pub fn addrs(&self) -> &[SocketAddr] {
        &self.addrs
    }

    /// The host as reqwest will name it to its resolver.
    pub(crate) fn host(&self) -> Option<&str> {
        self.url.host_str()
    }

    /// Whether the host is a domain name (which goes through the resolver) rather than an IP literal.
    pub(crate) fn is_domain(&self) -> bool {
        matches!(self.url.host(), Some(Host::Domain(_)))
    }
}

impl DestinationPolicy {
    /// Logs a warning for each relaxed rule; call once at startup so operators see it.
    pub fn warn_if_relaxed(&self) {
        if self.allow_insecure {
            tracing::warn!("webhook destinations may use plain http (allow_insecure_webhooks is on)");
        }
        if self.allow_private {
            tracing::warn!(
                "webhook destinations may be loopback, private or link-local addresses \
                 (allow_private_webhook_targets is on): customers can reach this server's network"
            );
        }
    }

    /// Checks a webhook URL: the scheme, then every address its host resolves to.
    ///
    /// Run at registration and again before every delivery. A host with several addresses is refused if
    /// any of them is forbidden, since the connection could go to any of them.
    ///
    /// # Errors
    /// [`DestinationError`] naming the rule that refused the URL.
    pub async fn check_url(&self, url: &str) -> Result<CheckedUrl, DestinationError> {
        let url = Url::parse(url).map_err(|_| DestinationError::InvalidUrl)?;
        match url.scheme() {
            "https" => {}
            "http" if self.allow_insecure => {}
            "http" => return Err(DestinationError::InsecureScheme),
            other => return Err(DestinationError::SchemeNotAllowed(other.to_owned())),
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(DestinationError::Credentials);
        }
        let port = url.port_or_known_default().ok_or(DestinationError::InvalidUrl)?;
        let host_text = url.host_str().ok_or(DestinationError::MissingHost)?.to_owned();
        let ips: Vec<IpAddr> = match url.host() {
            None => return Err(DestinationError::MissingHost),
            Some(Host::Ipv4(ip)) => vec![IpAddr::V4(ip)],
            Some(Host::Ipv6(ip)) => vec![IpAddr::V6(ip)],
            Some(Host::Domain(domain)) => {
                resolve(domain, port)
                    .await
                    .ok_or_else(|| DestinationError::Unresolvable {
                        host: host_text.clone(),
                    })?
            }
        };
        if !self.allow_private {
            for ip in &ips {
                if let Some(range) = forbidden_range(*ip) {
                    return Err(DestinationError::ForbiddenAddress {
                        host: host_text,
                        address: *ip,
                        range,
                    });
                }
            }
        }
        let addrs = ips.into_iter().map(|ip| SocketAddr::new(ip, port)).collect();
        Ok(CheckedUrl { url, addrs })
    }
}

/// The longest a destination's name lookup may take; a resolver that hangs longer counts as no answer
/// (the name "did not resolve"), so neither a registration request nor a delivery round waits on it.
pub const LOOKUP_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(3);

/// The distinct addresses of `domain`, or `None` if it has none (or no answer came within
/// [`LOOKUP_TIMEOUT`]).
async fn resolve(domain: &str, port: u16) -> Option<Vec<IpAddr>> {
    within(LOOKUP_TIMEOUT, tokio::net::lookup_host((domain, port))).await
}

/// The distinct addresses `lookup` finds, if it answers within `limit`.
async fn within<I: Iterator<Item = SocketAddr>>(
    limit: std::time::Duration,
    lookup: impl std::future::Future<Output = std::io::Result<I>>,
) -> Option<Vec<IpAddr>> {
    let found = tokio::time::timeout(limit, lookup).await.ok()?.ok()?;
    let mut ips: Vec<IpAddr> = Vec::new();
    for addr in found {
        if !ips.contains(&addr.ip()) {
            ips.push(addr.ip());
        }
    }
    (!ips.is_empty()).then_some(ips)
}

/// The forbidden range `ip` falls in, or `None` for a public address.
///
/// IPv6 forms that embed an IPv4 address (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`, NAT64
/// `64:ff9b::/96`, 6to4 `2002::/16`) are judged by the embedded address, since that is where the
/// packets can end up.
#[must_use]
pub fn forbidden_range(ip: IpAddr) -> Option<ForbiddenRange> {
    match ip {
        IpAddr::V4(v4) => forbidden_v4(v4),
        IpAddr::V6(v6) => forbidden_v6(v6),
    }
}

fn forbidden_v4(ip: Ipv4Addr) -> Option<ForbiddenRange> {
    let [a, b, c, _] = ip.octets();
    let range = match (a, b, c) {
        _ if ip.is_unspecified() => ForbiddenRange::Unspecified,
        _ if ip.is_broadcast() => ForbiddenRange::Broadcast,
        (0, _, _) => ForbiddenRange::ThisNetwork,
        (127, _, _) => ForbiddenRange::Loopback,
        (10, _, _) | (172, 16..=31, _) | (192, 168, _) => ForbiddenRange::Private,
        (169, 254, _) => ForbiddenRange::LinkLocal,
        (100, 64..=127, _) => ForbiddenRange::SharedAddressSpace,
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => ForbiddenRange::Documentation,
        (198, 18..=19, _) => ForbiddenRange::Benchmarking,
        (224..=239, _, _) => ForbiddenRange::Multicast,
        (240..=255, _, _) | (192, 0, 0) => ForbiddenRange::Reserved,
        _ => return None,
    };
    Some(range)
}

fn forbidden_v6(ip: Ipv6Addr) -> Option<ForbiddenRange> {
    let s = ip.segments();
    let [s0, s1, s2, s3, s4, s5, s6, s7] = s;
    let embedded = |hi: u16, lo: u16| {
        let [h1, h2] = hi.to_be_bytes();
        let [l1, l2] = lo.to_be_bytes();
        Ipv4Addr::new(h1, h2, l1, l2)
    };
    if ip.is_unspecified() {
        return Some(ForbiddenRange::Unspecified);
    }
    if ip.is_loopback() {
        return Some(ForbiddenRange::Loopback);
    }
    // IPv4-compatible (::a.b.c.d) and IPv4-mapped (::ffff:a.b.c.d).
    if s0 == 0 && s1 == 0 && s2 == 0 && s3 == 0 && s4 == 0 && (s5 == 0 || s5 == 0xffff) {
        return forbidden_v4(embedded(s6, s7));
    }
    // NAT64 well-known prefix 64:ff9b::/96.
    if s0 == 0x64 && s1 == 0xff9b && s2 == 0 && s3 == 0 && s4 == 0 && s5 == 0 {
        return forbidden_v4(embedded(s6, s7));
    }
    // 6to4 2002:V4ADDR::/48.
    if s0 == 0x2002 {
        return forbidden_v4(embedded(s1, s2));
    }
    let range = match s0 {
        _ if s0 & 0xffc0 == 0xfe80 => ForbiddenRange::LinkLocal,
        _ if s0 & 0xffc0 == 0xfec0 => ForbiddenRange::UniqueLocal,
        _ if s0 & 0xfe00 == 0xfc00 => ForbiddenRange::UniqueLocal,
        _ if s0 & 0xff00 == 0xff00 => ForbiddenRange::Multicast,
        0x2001 if s1 == 0x0db8 => ForbiddenRange::Documentation,
        0x0100 if s1 == 0 && s2 == 0 && s3 == 0 => ForbiddenRange::Reserved,
        _ => return None,
    };
    Some(range)
}

#[cfg(test)]
mod tests {
    #[tokio::test(start_paused = true)]
    async fn a_lookup_that_hangs_is_given_up_after_the_bound() {
        let hangs = std::future::pending::<std::io::Result<std::vec::IntoIter<std::net::SocketAddr>>>();
        assert_eq!(super::within(super::LOOKUP_TIMEOUT, hangs).await, None);
    }

    use super::*;

    fn range(text: &str) -> Option<ForbiddenRange> {
        forbidden_range(text.parse().unwrap())
    }

    #[test]
    fn ipv4_ranges() {
        use ForbiddenRange::*;
        let cases = [
            ("0.0.0.0", Some(Unspecified)),
            ("0.1.2.3", Some(ThisNetwork)),
            ("127.0.0.1", Some(Loopback)),
            ("127.255.255.254", Some(Loopback)),
            ("10.0.0.1", Some(Private)),
            ("172.16.0.1", Some(Private)),
            ("172.31.255.255", Some(Private)),
            ("172.32.0.1", None),
            ("172.15.255.255", None),
            ("192.168.1.1", Some(Private)),
            ("169.254.169.254", Some(LinkLocal)),
            ("100.64.0.1", Some(SharedAddressSpace)),
            ("100.127.255.255", Some(SharedAddressSpace)),
            ("100.128.0.1", None),
            ("100.63.255.255", None),
            ("192.0.2.10", Some(Documentation)),
            ("198.51.100.7", Some(Documentation)),
            ("203.0.113.200", Some(Documentation)),
            ("198.18.0.1", Some(Benchmarking)),
            ("198.19.255.255", Some(Benchmarking)),
            ("198.20.0.1", None),
            ("224.0.0.1", Some(Multicast)),
            ("239.255.255.255", Some(Multicast)),
            ("240.0.0.1", Some(Reserved)),
            ("192.0.0.8", Some(Reserved)),
            ("255.255.255.255", Some(Broadcast)),
            ("8.8.8.8", None),
            ("1.1.1.1", None),
            ("93.184.215.14", None),
        ];
        for (ip, want) in cases {
            assert_eq!(range(ip), want, "{ip}");
        }
    }

    #[test]
    fn ipv6_ranges() {
        use ForbiddenRange::*;
        let cases = [
            ("::", Some(Unspecified)),
            ("::1", Some(Loopback)),
            ("fe80::1", Some(LinkLocal)),
            ("febf::1", Some(LinkLocal)),
            ("fec0::1", Some(UniqueLocal)),
            ("fc00::1", Some(UniqueLocal)),
            ("fd12:3456::1", Some(UniqueLocal)),
            ("ff02::1", Some(Multicast)),
            ("2001:db8::1", Some(Documentation)),
            ("100::1", Some(Reserved)),
            ("::ffff:127.0.0.1", Some(Loopback)),
            ("::ffff:10.0.0.1", Some(Private)),
            ("::ffff:169.254.169.254", Some(LinkLocal)),
            ("::127.0.0.1", Some(Loopback)),
            ("64:ff9b::a9fe:a9fe", Some(LinkLocal)),
            ("2002:7f00:1::", Some(Loopback)),
            ("::ffff:8.8.8.8", None),
            ("64:ff9b::808:808", None),
            ("2002:808:808::", None),
            ("2606:4700:4700::1111", None),
            ("2a00:1450:4001::200e", None),
        ];
        for (ip, want) in cases {
            assert_eq!(range(ip), want, "{ip}");
        }
    }

    #[tokio::test]
    async fn scheme_rules() {
        let strict = DestinationPolicy::default();
        assert_eq!(
            strict.check_url("http://8.8.8.8/hook").await,
            Err(DestinationError::InsecureScheme)
        );
        assert_eq!(
            strict.check_url("ftp://8.8.8.8/hook").await,
            Err(DestinationError::SchemeNotAllowed("ftp".into()))
        );
        assert_eq!(
            strict.check_url("not a url").await,
            Err(DestinationError::InvalidUrl)
        );
        assert_eq!(
            strict.check_url("https://u:p@8.8.8.8/").await,
            Err(DestinationError::Credentials)
        );
        let checked = strict.check_url("https://8.8.8.8/hook").await.unwrap();
        assert_eq!(checked.addrs(), &["8.8.8.8:443".parse::<SocketAddr>().unwrap()]);
        let insecure = DestinationPolicy {
            allow_insecure: true,
            allow_private: false,
        };
        let checked = insecure.check_url("http://8.8.8.8:8080/hook").await.unwrap();
        assert_eq!(checked.addrs(), &["8.8.8.8:8080".parse::<SocketAddr>().unwrap()]);
        assert_eq!(
            insecure.check_url("ftp://8.8.8.8/hook").await,
            Err(DestinationError::SchemeNotAllowed("ftp".into()))
        );
    }

    #[tokio::test]
    async fn obfuscated_ipv4_literals_are_normalised_then_refused() {
        let policy = DestinationPolicy {
            allow_insecure: true,
            allow_private: false,
        };
        for url in [
            "http://2130706433/",
            "http://0x7f.1/",
            "http://0177.0.0.1/",
            "http://127.1/",
        ] {
            let err = policy.check_url(url).await.unwrap_err();
            assert!(
                matches!(
                    err,
                    DestinationError::ForbiddenAddress {
                        range: ForbiddenRange::Loopback,
                        ..
                    }
                ),
                "{url}: {err:?}"
            );
        }
    }
}

//! The SSRF guard of [`HttpClient::fetch`](super::HttpClient::fetch): address classification,
//! refused host names, the operator's exceptions, the checks run before a request and on every
//! redirect, and the resolver that checks again at connect time.

use std::fmt;
use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;

use reqwest::Url;

/// Most redirects followed for one request.
pub const MAX_REDIRECTS: usize = 5;

/// A kind of address the SSRF guard refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AddrClass {
    /// `0.0.0.0`, `::`.
    Unspecified,
    /// `0.0.0.0/8` ("this network"; reaches the local host on Linux).
    ThisNetwork,
    /// `127.0.0.0/8`, `::1`.
    Loopback,
    /// `10/8`, `172.16/12`, `192.168/16`.
    Private,
    /// `100.64.0.0/10`, carrier-grade NAT.
    Shared,
    /// `169.254/16`, `fe80::/10`.
    LinkLocal,
    /// `fc00::/7`.
    UniqueLocal,
    /// `fec0::/10` (deprecated).
    SiteLocal,
    /// `192.0.2/24`, `198.51.100/24`, `203.0.113/24`, `2001:db8::/32`, `3fff::/20`.
    Documentation,
    /// `198.18.0.0/15`.
    Benchmarking,
    /// `224/4`, `ff00::/8`.
    Multicast,
    /// `255.255.255.255`.
    Broadcast,
    /// Reserved or special-purpose: `240/4`, `192.0.0/24`, `192.88.99/24`, IPv4-compatible
    /// IPv6, `64:ff9b:1::/48`, `100::/64`, `2001::/23` (Teredo, ...), `5f00::/16`, and anything
    /// outside `2000::/3`.
    Reserved,
}

impl AddrClass {
    fn noun(self) -> &'static str {
        match self {
            Self::Unspecified => "unspecified",
            Self::ThisNetwork => "\"this network\"",
            Self::Loopback => "loopback",
            Self::Private => "private",
            Self::Shared => "shared (carrier-grade NAT)",
            Self::LinkLocal => "link-local",
            Self::UniqueLocal => "unique-local",
            Self::SiteLocal => "site-local",
            Self::Documentation => "documentation",
            Self::Benchmarking => "benchmarking",
            Self::Multicast => "multicast",
            Self::Broadcast => "broadcast",
            Self::Reserved => "reserved",
        }
    }
}

/// Why an address is refused: its class, whether it is a cloud metadata endpoint, and the IPv4
/// address an IPv6 form embeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Blocked {
    /// The address.
    pub addr: IpAddr,
    /// Its class (of the embedded IPv4 address, for IPv4-mapped and translated forms).
    pub class: AddrClass,
    /// Whether it is a known cloud metadata endpoint.
    pub metadata: bool,
    /// The IPv4 address an IPv6 form (mapped, NAT64, 6to4) embeds.
    pub embedded: Option<Ipv4Addr>,
}

impl Blocked {
    /// "a loopback address", "a link-local (cloud metadata) address", "an IPv4-mapped form of
    /// 127.0.0.1, a loopback address".
    pub fn describe(&self) -> String {
        let meta = if self.metadata {
            " (cloud metadata)"
        } else {
            ""
        };
        let noun = self.class.noun();
        let article = match self.class {
            AddrClass::Unspecified | AddrClass::Broadcast => "the",
            _ => "a",
        };
        let what = format!("{article} {noun}{meta} address");
        match self.embedded {
            Some(v4) => format!("a form of {v4}, {what}"),
            None => what,
        }
    }
}

impl fmt::Display for Blocked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} is {}", self.addr, self.describe())
    }
}

/// Classifies an address: `Some` when the SSRF guard refuses it (before any allow list).
///
/// ```
/// use tool_http::{classify, AddrClass};
/// let b = classify("169.254.169.254".parse().unwrap()).unwrap();
/// assert_eq!(b.class, AddrClass::LinkLocal);
/// assert_eq!(b.to_string(), "169.254.169.254 is a link-local (cloud metadata) address");
/// assert!(classify("::ffff:10.0.0.1".parse().unwrap()).is_some());
/// assert!(classify("93.184.215.14".parse().unwrap()).is_none());
/// ```
pub fn classify(addr: IpAddr) -> Option<Blocked> {
    match addr {
        IpAddr::V4(v4) => classify_v4(v4).map(|(class, metadata)| Blocked {
            addr,
            class,
            metadata,
            embedded: None,
        }),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

fn in_v4(n: u32, base: [u8; 4], len: u32) -> bool {
    let mask = if len == 0 { 0 } else { u32::MAX << (32 - len) };
    n & mask == u32::from_be_bytes(base) & mask
}

fn classify_v4(ip: Ipv4Addr) -> Option<(AddrClass, bool)> {
    use AddrClass::*;
    let n = u32::from(ip);
    let class = if n == 0 {
        Unspecified
    } else if in_v4(n, [0, 0, 0, 0], 8) {
        ThisNetwork
    } else if in_v4(n, [10, 0, 0, 0], 8)
        || in_v4(n, [172, 16, 0, 0], 12)
        || in_v4(n, [192, 168, 0, 0], 16)
    {
        Private
    } else if in_v4(n, [100, 64, 0, 0], 10) {
        Shared
    } else if in_v4(n, [127, 0, 0, 0], 8) {
        Loopback
    } else if in_v4(n, [169, 254, 0, 0], 16) {
        LinkLocal
    } else if in_v4(n, [192, 0, 2, 0], 24)
        || in_v4(n, [198, 51, 100, 0], 24)
        || in_v4(n, [203, 0, 113, 0], 24)
    {
        Documentation
    } else if in_v4(n, [198, 18, 0, 0], 15) {
        Benchmarking
    } else if in_v4(n, [224, 0, 0, 0], 4) {
        Multicast
    } else if n == u32::MAX {
        Broadcast
    } else if in_v4(n, [240, 0, 0, 0], 4)
        || in_v4(n, [192, 0, 0, 0], 24)
        || in_v4(n, [192, 88, 99, 0], 24)
    {
        Reserved
    } else {
        return None;
    };
    // AWS/GCP/Azure/OpenStack, AWS ECS task metadata, AWS DNS and time, Alibaba Cloud.
    let metadata = matches!(
        ip.octets(),
        [169, 254, 169, 254]
            | [169, 254, 170, 2]
            | [169, 254, 169, 253]
            | [169, 254, 169, 123]
            | [100, 100, 100, 200]
    );
    Some((class, metadata))
}

fn in_v6(n: u128, base: u128, len: u32) -> bool {
    let mask = if len == 0 {
        0
    } else {
        u128::MAX << (128 - len)
    };
    n & mask == base & mask
}

fn classify_v6(ip: Ipv6Addr) -> Option<Blocked> {
    use AddrClass::*;
    let n = u128::from(ip);
    let addr = IpAddr::V6(ip);
    let plain = |class: AddrClass| {
        Some(Blocked {
            addr,
            class,
            metadata: false,
            embedded: None,
        })
    };
    // A form that carries an IPv4 address: refused when that address is.
    let embeds = |v4: Ipv4Addr| {
        classify_v4(v4).map(|(class, metadata)| Blocked {
            addr,
            class,
            metadata,
            embedded: Some(v4),
        })
    };
    let low32 = Ipv4Addr::from(n as u32);
    if n == 0 {
        plain(Unspecified)
    } else if n == 1 {
        plain(Loopback)
    } else if in_v6(n, 0xffff_0000_0000, 96) || in_v6(n, 0xffff_0000_0000_0000, 96) {
        // ::ffff:a.b.c.d (IPv4-mapped) and ::ffff:0:a.b.c.d (IPv4-translated).
        embeds(low32)
    } else if in_v6(n, 0, 96) {
        // ::a.b.c.d, IPv4-compatible: deprecated, never a real destination.
        embeds(low32).or_else(|| plain(Reserved))
    } else if in_v6(n, 0x0064_ff9b << 96, 96) {
        // NAT64 well-known prefix.
        embeds(low32)
    } else if in_v6(n, 0x0064_ff9b_0001 << 80, 48) {
        // Local-use NAT64: the embedded address sits at a network-chosen place.
        plain(Reserved)
    } else if in_v6(n, 0x2002 << 112, 16) {
        // 6to4: 2002:AABB:CCDD::/48 embeds AA.BB.CC.DD.
        embeds(Ipv4Addr::from((n >> 80) as u32))
    } else if in_v6(n, 0x2001_0db8 << 96, 32) || in_v6(n, 0x3fff << 112, 20) {
        plain(Documentation)
    } else if in_v6(n, 0x2001 << 112, 23)
        || in_v6(n, 0x0100 << 112, 64)
        || in_v6(n, 0x5f00 << 112, 16)
    {
        plain(Reserved)
    } else if in_v6(n, 0xfc00 << 112, 7) {
        Some(Blocked {
            addr,
            class: UniqueLocal,
            // AWS's IPv6 instance metadata endpoint.
            metadata: ip == Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254),
            embedded: None,
        })
    } else if in_v6(n, 0xfe80 << 112, 10) {
        plain(LinkLocal)
    } else if in_v6(n, 0xfec0 << 112, 10) {
        plain(SiteLocal)
    } else if in_v6(n, 0xff00 << 112, 8) {
        plain(Multicast)
    } else if !in_v6(n, 0x2000 << 112, 3) {
        // Only 2000::/3 is allocated as global unicast.
        plain(Reserved)
    } else {
        None
    }
}

/// A refusal by the SSRF guard; the message says what was refused and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}; fetching it is not allowed")]
pub struct Refused {
    reason: String,
}

impl Refused {
    fn new(reason: impl Into<String>) -> Self {
        Self {
            reason: reason.into(),
        }
    }

    /// What was refused and why, e.g. "10.0.0.1 is a private address".
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

/// Host names that are the local host.
const LOCAL_NAMES: &[&str] = &[
    "localhost",
    "localhost.localdomain",
    "localhost6",
    "localhost6.localdomain6",
    "ip6-localhost",
    "ip6-loopback",
];
/// Host names of cloud metadata services.
const METADATA_NAMES: &[&str] = &[
    "metadata.google.internal",
    "metadata.goog",
    "metadata",
    "instance-data",
    "instance-data.ec2.internal",
    "metadata.azure.internal",
    "metadata.tencentyun.com",
    "metadata.platformequinix.com",
];

/// Why a host name is refused by name, before resolution (normalized: lowercase, no final dot).
fn name_class(name: &str) -> Option<&'static str> {
    if METADATA_NAMES.contains(&name) {
        Some("a cloud metadata host name")
    } else if LOCAL_NAMES.contains(&name) || name.ends_with(".localhost") {
        Some("a name of the local host")
    } else if name.ends_with(".internal") || name.ends_with(".intranet") {
        Some("an internal host name")
    } else if name.ends_with(".local") {
        Some("a link-local (mDNS) host name")
    } else if name.ends_with(".localdomain")
        || name.ends_with(".home.arpa")
        || name.ends_with(".lan")
    {
        Some("a local-network host name")
    } else if !name.contains('.') {
        Some("a single-label (intranet) host name")
    } else {
        None
    }
}

/// A CIDR range of the allow list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Net {
    addr: IpAddr,
    prefix: u32,
}

impl Net {
    fn contains(&self, ip: IpAddr) -> bool {
        match (self.addr, ip.to_canonical()) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => in_v4(u32::from(ip), net.octets(), self.prefix),
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                in_v6(u128::from(ip), u128::from(net), self.prefix)
            }
            _ => false,
        }
    }
}

/// The SSRF guard's exceptions: host names and address ranges the operator allowed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct SsrfPolicy {
    names: Vec<String>,
    nets: Vec<Net>,
}

fn normalize_name(name: &str) -> String {
    name.trim_end_matches('.').to_ascii_lowercase()
}

impl SsrfPolicy {
    pub(super) fn allow(&mut self, entry: &str) -> Result<(), ()> {
        let entry = entry.trim();
        let (ip_part, prefix) = match entry.split_once('/') {
            Some((ip, prefix)) => (ip, Some(prefix.parse::<u32>().map_err(|_| ())?)),
            None => (entry, None),
        };
        let ip_part = ip_part
            .strip_prefix('[')
            .and_then(|s| s.strip_suffix(']'))
            .unwrap_or(ip_part);
        if let Ok(ip) = ip_part.parse::<IpAddr>() {
            let ip = ip.to_canonical();
            let max = if ip.is_ipv4() { 32 } else { 128 };
            let prefix = prefix.unwrap_or(max);
            if prefix > max {
                return Err(());
            }
            self.nets.push(Net { addr: ip, prefix });
            return Ok(());
        }
        let name = normalize_name(entry);
        let valid = prefix.is_none()
            && !name.is_empty()
            && name.len() <= 253
            && name.split('.').all(|label| {
                !label.is_empty()
                    && label.len() <= 63
                    && label
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            });
        if !valid {
            return Err(());
        }
        self.names.push(name);
        Ok(())
    }

    fn name_allowed(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name)
    }

    fn check_ip(&self, ip: IpAddr) -> Result<(), Refused> {
        if self.nets.iter().any(|net| net.contains(ip)) {
            return Ok(());
        }
        match classify(ip) {
            Some(blocked) => Err(Refused::new(blocked.to_string())),
            None => Ok(()),
        }
    }

    fn check_name(&self, name: &str) -> Result<(), Refused> {
        let name = normalize_name(name);
        if self.name_allowed(&name) {
            return Ok(());
        }
        // A resolver may be handed a literal (hyper passes literals straight to connect, but
        // be sure).
        if let Ok(ip) = name.parse::<IpAddr>() {
            return self.check_ip(ip);
        }
        match name_class(&name) {
            Some(what) => Err(Refused::new(format!("{name} is {what}"))),
            None => Ok(()),
        }
    }

    /// Checks a URL before a request or a redirect: scheme, credentials, host.
    pub(super) fn check_url(&self, url: &Url) -> Result<(), GuardError> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(GuardError::Invalid(format!(
                "only http and https URLs can be fetched, not {}:",
                url.scheme()
            )));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(GuardError::Invalid(
                "URLs with a user name or password are not fetched".into(),
            ));
        }
        let Some(host) = url.host_str() else {
            return Err(GuardError::Invalid("the URL has no host".into()));
        };
        // The URL parser has already turned every IPv4 spelling (decimal, hex, octal, short
        // forms) into dotted quads; IPv6 literals come in brackets.
        let literal = host.strip_prefix('[').and_then(|h| h.strip_suffix(']'));
        match literal.unwrap_or(host).parse::<IpAddr>() {
            Ok(ip) => self.check_ip(ip)?,
            Err(_) => self.check_name(host)?,
        }
        Ok(())
    }

    /// Checks what a name resolved to: every address must pass, or none is used.
    fn check_resolved(&self, name: &str, addrs: &[SocketAddr]) -> Result<(), Refused> {
        if self.name_allowed(&normalize_name(name)) {
            return Ok(());
        }
        for addr in addrs {
            let ip = addr.ip();
            if self.nets.iter().any(|net| net.contains(ip)) {
                continue;
            }
            if let Some(blocked) = classify(ip) {
                return Err(Refused::new(format!(
                    "{name} resolves to {ip}, {}",
                    blocked.describe()
                )));
            }
        }
        Ok(())
    }
}

/// Why the guard or a redirect policy stopped a request.
#[derive(Debug, thiserror::Error)]
pub(super) enum GuardError {
    #[error(transparent)]
    Refused(#[from] Refused),
    #[error("{0}")]
    Invalid(String),
    #[error("stopped after {MAX_REDIRECTS} redirects")]
    TooManyRedirects,
    #[error("{0}")]
    CrossOrigin(String),
}

// ------------------------------------------------------------------------------------------------
// DNS
type LookupFuture = Pin<Box<dyn Future<Output = std::io::Result<Vec<SocketAddr>>> + Send>>;
pub(super) type Lookup = Arc<dyn Fn(String) -> LookupFuture + Send + Sync>;

pub(super) fn system_lookup() -> Lookup {
    Arc::new(|name: String| {
        Box::pin(async move { Ok(tokio::net::lookup_host((name.as_str(), 0)).await?.collect()) })
    })
}

/// The resolver of the fetch client: refuses names and resolved addresses the policy refuses, at
/// connect time, so a name cannot resolve to a public address when checked and to a private one
/// when connected to.
pub(super) struct GuardedResolver {
    pub(super) policy: Arc<SsrfPolicy>,
    pub(super) lookup: Lookup,
}

/// A failed lookup, kept apart from refusals so it maps to its own message.
#[derive(Debug, thiserror::Error)]
#[error("cannot resolve {name}")]
pub(super) struct LookupFailed {
    name: String,
    #[source]
    source: std::io::Error,
}

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let name = name.as_str().to_owned();
        let policy = self.policy.clone();
        let lookup = self.lookup.clone();
        Box::pin(async move {
            policy.check_name(&name)?;
            let addrs = lookup(name.clone()).await.map_err(|source| LookupFailed {
                name: name.clone(),
                source,
            })?;
            if addrs.is_empty() {
                return Err(LookupFailed {
                    name,
                    source: std::io::Error::new(std::io::ErrorKind::NotFound, "no addresses"),
                }
                .into());
            }
            policy.check_resolved(&name, &addrs)?;
            Ok(Box::new(addrs.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::send::{Target, guard_error};
    use proptest::prelude::*;
    use tool_core::error::ErrorKind;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn addresses_are_classified() {
        use AddrClass::*;
        let table: &[(&str, Option<AddrClass>)] = &[
            ("0.0.0.0", Some(Unspecified)),
            ("0.1.2.3", Some(ThisNetwork)),
            ("10.0.0.1", Some(Private)),
            ("10.255.255.255", Some(Private)),
            ("100.64.0.1", Some(Shared)),
            ("100.127.255.254", Some(Shared)),
            ("100.128.0.1", None),
            ("127.0.0.1", Some(Loopback)),
            ("127.255.0.9", Some(Loopback)),
            ("169.254.169.254", Some(LinkLocal)),
            ("169.254.1.1", Some(LinkLocal)),
            ("172.15.255.255", None),
            ("172.16.0.1", Some(Private)),
            ("172.31.255.255", Some(Private)),
            ("172.32.0.1", None),
            ("192.0.0.8", Some(Reserved)),
            ("192.0.2.1", Some(Documentation)),
            ("192.88.99.1", Some(Reserved)),
            ("192.168.1.1", Some(Private)),
            ("198.18.0.1", Some(Benchmarking)),
            ("198.19.255.255", Some(Benchmarking)),
            ("198.51.100.7", Some(Documentation)),
            ("203.0.113.9", Some(Documentation)),
            ("224.0.0.1", Some(Multicast)),
            ("239.255.255.250", Some(Multicast)),
            ("240.0.0.1", Some(Reserved)),
            ("255.255.255.255", Some(Broadcast)),
            ("1.1.1.1", None),
            ("8.8.8.8", None),
            ("93.184.215.14", None),
            ("::", Some(Unspecified)),
            ("::1", Some(Loopback)),
            ("::ffff:127.0.0.1", Some(Loopback)),
            ("::ffff:169.254.169.254", Some(LinkLocal)),
            ("::ffff:8.8.8.8", None),
            ("::ffff:0:10.0.0.1", Some(Private)),
            ("::127.0.0.1", Some(Loopback)),
            ("::8.8.8.8", Some(Reserved)),
            ("64:ff9b::10.0.0.1", Some(Private)),
            ("64:ff9b::8.8.8.8", None),
            ("64:ff9b:1::1", Some(Reserved)),
            ("2002:7f00:1::1", Some(Loopback)),
            ("2002:a9fe:a9fe::", Some(LinkLocal)),
            ("2002:808:808::1", None),
            ("2001::1", Some(Reserved)),
            ("2001:db8::1", Some(Documentation)),
            ("3fff::1", Some(Documentation)),
            ("100::1", Some(Reserved)),
            ("fc00::1", Some(UniqueLocal)),
            ("fd00:ec2::254", Some(UniqueLocal)),
            ("fe80::1", Some(LinkLocal)),
            ("febf::1", Some(LinkLocal)),
            ("fec0::1", Some(SiteLocal)),
            ("ff02::1", Some(Multicast)),
            ("4000::1", Some(Reserved)),
            ("2606:4700:4700::1111", None),
            ("2a00:1450:4007:80e::200e", None),
        ];
        for (addr, expected) in table {
            assert_eq!(classify(ip(addr)).map(|b| b.class), *expected, "{addr}");
        }
    }

    #[test]
    fn refusals_read_well() {
        let msg = |s: &str| classify(ip(s)).unwrap().to_string();
        assert_eq!(
            msg("169.254.169.254"),
            "169.254.169.254 is a link-local (cloud metadata) address"
        );
        assert_eq!(
            msg("fd00:ec2::254"),
            "fd00:ec2::254 is a unique-local (cloud metadata) address"
        );
        assert_eq!(msg("0.0.0.0"), "0.0.0.0 is the unspecified address");
        assert_eq!(msg("10.1.2.3"), "10.1.2.3 is a private address");
        assert_eq!(
            msg("::ffff:127.0.0.1"),
            "::ffff:127.0.0.1 is a form of 127.0.0.1, a loopback address"
        );
        let policy = SsrfPolicy::default();
        let url = Url::parse("http://169.254.169.254/latest/meta-data/").unwrap();
        let err = guard_error(
            policy.check_url(&url).unwrap_err(),
            &Target::Web { host: "x".into() },
        );
        assert_eq!(err.kind(), ErrorKind::PermissionDenied);
        assert_eq!(
            err.message(),
            "169.254.169.254 is a link-local (cloud metadata) address; fetching it is not allowed"
        );
    }

    /// Blocked IPv4 addresses drawn from every blocked range, and anything else.
    fn blocked_v4() -> impl Strategy<Value = Ipv4Addr> {
        prop_oneof![
            any::<u32>(),
            any::<u32>().prop_map(|n| 0x0a00_0000 | (n & 0x00ff_ffff)),
            any::<u32>().prop_map(|n| 0x7f00_0000 | (n & 0x00ff_ffff)),
            any::<u32>().prop_map(|n| 0xa9fe_0000 | (n & 0xffff)),
            any::<u32>().prop_map(|n| 0xac10_0000 | (n & 0x000f_ffff)),
            any::<u32>().prop_map(|n| 0xc0a8_0000 | (n & 0xffff)),
            any::<u32>().prop_map(|n| 0x6440_0000 | (n & 0x003f_ffff)),
            any::<u32>().prop_map(|n| n & 0x00ff_ffff),
            any::<u32>().prop_map(|n| 0xe000_0000 | (n & 0x1fff_ffff)),
        ]
        .prop_map(Ipv4Addr::from)
        .prop_filter("blocked", |v4| classify_v4(*v4).is_some())
    }

    proptest! {
        #[test]
        fn no_ipv6_form_of_a_blocked_ipv4_address_passes(v4 in blocked_v4()) {
            let n = u32::from(v4) as u128;
            let forms = [
                v4.to_ipv6_mapped(),
                v4.to_ipv6_compatible(),
                Ipv6Addr::from(0xffff_0000_0000_0000 | n),
                Ipv6Addr::from((0x0064_ff9b_u128 << 96) | n),
                Ipv6Addr::from((0x2002_u128 << 112) | (n << 80) | 1),
            ];
            let policy = SsrfPolicy::default();
            for form in forms {
                let blocked = classify(IpAddr::V6(form));
                prop_assert!(blocked.is_some(), "{form} passed");
                prop_assert!(policy.check_ip(IpAddr::V6(form)).is_err());
                let url = Url::parse(&format!("http://[{form}]:8080/")).unwrap();
                prop_assert!(policy.check_url(&url).is_err(), "{url} passed");
            }
        }

        #[test]
        fn mapped_forms_agree_with_their_ipv4_address(n in any::<u32>()) {
            let v4 = Ipv4Addr::from(n);
            let direct = classify(IpAddr::V4(v4)).map(|b| b.class);
            prop_assert_eq!(classify(IpAddr::V6(v4.to_ipv6_mapped())).map(|b| b.class), direct);
        }

        #[test]
        fn every_spelling_of_a_blocked_ipv4_address_is_refused(v4 in blocked_v4()) {
            let n = u32::from(v4);
            let policy = SsrfPolicy::default();
            let [a, b, c, d] = v4.octets();
            for spelling in [
                format!("{v4}"),
                format!("{n}"),
                format!("0x{n:x}"),
                format!("0{n:o}"),
                format!("{a}.{}", u32::from_be_bytes([0, b, c, d])),
                format!("{a}.{b}.{}", u16::from_be_bytes([c, d])),
                format!("0x{a:x}.0{b:o}.{c}.{d}"),
                format!("{v4}."),
            ] {
                let url = Url::parse(&format!("http://{spelling}/")).unwrap();
                prop_assert!(policy.check_url(&url).is_err(), "{spelling} passed as {url}");
            }
        }
    }

    #[test]
    fn names_are_refused_before_resolution() {
        let policy = SsrfPolicy::default();
        for (url, reason) in [
            ("http://localhost/", "localhost is a name of the local host"),
            (
                "http://LOCALHOST./",
                "localhost is a name of the local host",
            ),
            (
                "http://app.localhost:8080/",
                "app.localhost is a name of the local host",
            ),
            (
                "http://metadata.google.internal/computeMetadata/v1/",
                "metadata.google.internal is a cloud metadata host name",
            ),
            ("http://metadata/", "metadata is a cloud metadata host name"),
            (
                "http://db.internal/",
                "db.internal is an internal host name",
            ),
            (
                "http://printer.local/",
                "printer.local is a link-local (mDNS) host name",
            ),
            (
                "http://intranet/",
                "intranet is a single-label (intranet) host name",
            ),
            ("http://[::1]/", "::1 is a loopback address"),
            ("http://2130706433/", "127.0.0.1 is a loopback address"),
            ("http://0/", "0.0.0.0 is the unspecified address"),
        ] {
            let url = Url::parse(url).unwrap();
            match policy.check_url(&url) {
                Err(GuardError::Refused(r)) => assert_eq!(r.reason(), reason, "{url}"),
                other => panic!("{url}: {other:?}"),
            }
        }
        for url in [
            "https://example.com/a?b=c",
            "http://93.184.215.14/",
            "http://[2606:4700::1]/",
        ] {
            assert!(policy.check_url(&Url::parse(url).unwrap()).is_ok(), "{url}");
        }
        for url in [
            "ftp://example.com/",
            "file:///etc/passwd",
            "http://u:p@example.com/",
            "gopher://x.org/",
        ] {
            assert!(
                matches!(
                    policy.check_url(&Url::parse(url).unwrap()),
                    Err(GuardError::Invalid(_))
                ),
                "{url}"
            );
        }
    }

    #[test]
    fn the_allow_list_takes_names_addresses_and_ranges() {
        let mut policy = SsrfPolicy::default();
        for entry in [
            "127.0.0.1",
            "LocalHost",
            "10.1.0.0/16",
            "[::1]",
            "fd00::/8",
            "intranet",
        ] {
            policy.allow(entry).unwrap();
        }
        for (addr, ok) in [
            ("127.0.0.1", true),
            ("::ffff:127.0.0.1", true),
            ("127.0.0.2", false),
            ("10.1.200.3", true),
            ("10.2.0.1", false),
            ("::1", true),
            ("fd12::1", true),
            ("fe80::1", false),
        ] {
            assert_eq!(policy.check_ip(ip(addr)).is_ok(), ok, "{addr}");
        }
        assert!(policy.check_name("localhost.").is_ok());
        assert!(policy.check_name("intranet").is_ok());
        assert!(policy.check_name("other").is_err());
        let resolved = [
            SocketAddr::new(ip("127.0.0.1"), 0),
            SocketAddr::new(ip("127.0.0.2"), 0),
        ];
        let err = policy.check_resolved("rebind.test", &resolved).unwrap_err();
        assert_eq!(
            err.reason(),
            "rebind.test resolves to 127.0.0.2, a loopback address"
        );
        assert!(policy.check_resolved("localhost", &resolved).is_ok());
        for bad in [
            "",
            "10.0.0.0/33",
            "::1/129",
            "a b",
            "x/8",
            "-/-",
            "exa mple.com",
        ] {
            assert!(SsrfPolicy::default().allow(bad).is_err(), "{bad:?}");
        }
    }
}

//! Where a webhook may be sent: the guard that keeps deliveries from reaching inside the
//! service's network (loopback, private ranges, link-local and the cloud's metadata
//! address, ...). A URL's host is resolved at registration and again at every send, and the
//! sender connects to the addresses this guard returned (awc's connector asks
//! [`GuardedResolver`]), so a name that resolves elsewhere between the check and the
//! connection (DNS rebinding) is checked where it lands.
//!
//! Hosts are read as a browser reads them (`url::Host`): `2130706433`, `0x7f.1`, `127.1`
//! and `0177.0.0.1` are all 127.0.0.1, and IPv6 addresses that carry an IPv4 one are judged
//! by it or refused.

use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;

/// Why an address or a host is not sent to. Its text is what registrants and the
/// deliveries listing see: it names the kind of address, never what answered there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("{0} addresses are not sent to")]
    Address(&'static str),
    #[error("localhost is not sent to")]
    LocalName,
    #[error("the host does not resolve")]
    NotResolved,
    #[error("not a host name or an address")]
    NotAHost,
}

/// The kind of address `ip` is, when it is one a webhook must not reach; none for a
/// public address.
pub fn forbidden(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => forbidden_v4(v4),
        IpAddr::V6(v6) => forbidden_v6(v6),
    }
}

fn forbidden_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    Some(match (a, b, c) {
        _ if ip.is_broadcast() => "broadcast",
        (0, _, _) => "unspecified",
        (127, _, _) => "loopback",
        (10, _, _) | (192, 168, _) => "private",
        (172, 16..=31, _) => "private",
        (100, 64..=127, _) => "shared (carrier-grade NAT)",
        (169, 254, _) => "link-local",
        (192, 0, 0) => "reserved",
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => "documentation",
        (198, 18..=19, _) => "benchmarking",
        (192, 88, 99) => "reserved",
        (224..=239, _, _) => "multicast",
        (240..=255, _, _) => "reserved",
        _ => return None,
    })
}

fn forbidden_v6(ip: Ipv6Addr) -> Option<&'static str> {
    let s = ip.segments();
    Some(match s {
        _ if ip.is_unspecified() => "unspecified",
        _ if ip.is_loopback() => "loopback",
        // ::ffff:a.b.c.d and the deprecated ::a.b.c.d: an IPv4 address in IPv6 clothes,
        // which some stacks connect to as IPv4.
        [0, 0, 0, 0, 0, 0xffff, _, _] => "IPv4-mapped IPv6",
        [0, 0, 0, 0, 0, 0, _, _] => "IPv4-compatible IPv6",
        // NAT64 and 6to4 reach the IPv4 address they embed.
        [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] => return forbidden_v4(v4_of(hi, lo)),
        [0x2002, hi, lo, ..] => return forbidden_v4(v4_of(hi, lo)),
        [0x100, 0, 0, 0, ..] => "reserved",
        [0x2001, 0xdb8, ..] => "documentation",
        [first, ..] if first & 0xfe00 == 0xfc00 => "unique local",
        [first, ..] if first & 0xffc0 == 0xfe80 => "link-local",
        [first, ..] if first & 0xffc0 == 0xfec0 => "site-local",
        [first, ..] if first & 0xff00 == 0xff00 => "multicast",
        _ => return None,
    })
}

fn v4_of(hi: u16, lo: u16) -> Ipv4Addr {
    let [a, b] = hi.to_be_bytes();
    let [c, d] = lo.to_be_bytes();
    Ipv4Addr::new(a, b, c, d)
}

/// A host as a URL names it, read the way a browser reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Host {
    Ip(IpAddr),
    /// Lowercase, without a trailing dot.
    Name(String),
}

impl TryFrom<&str> for Host {
    type Error = Refusal;

    fn try_from(host: &str) -> Result<Self, Refusal> {
        match url::Host::parse(host).map_err(|_| Refusal::NotAHost)? {
            url::Host::Ipv4(ip) => Ok(Host::Ip(ip.into())),
            url::Host::Ipv6(ip) => Ok(Host::Ip(ip.into())),
            url::Host::Domain(name) => {
                let name = name.trim_end_matches('.').to_ascii_lowercase();
                if name.is_empty() {
                    return Err(Refusal::NotAHost);
                }
                Ok(Host::Name(name))
            }
        }
    }
}

/// One entry of the operator's allow-list: a network, or a host name.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Allowed {
    Net(ipnet::IpNet),
    Name(String),
}

impl Allowed {
    fn contains(&self, ip: IpAddr) -> bool {
        matches!(self, Allowed::Net(net) if crate::networks::contains(net, ip))
    }
}

/// The operator's allow-list of internal receivers (`--webhook-allow`): networks in CIDR
/// form (`10.1.2.0/24`, `127.0.0.1/32`, `fd00::/8`; a bare address is itself) and host
/// names (`hooks.internal`: whatever it resolves to).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowList(Vec<Allowed>);

impl AllowList {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn allows_ip(&self, ip: IpAddr) -> bool {
        self.0.iter().any(|entry| entry.contains(ip))
    }

    fn allows_name(&self, name: &str) -> bool {
        self.0
            .iter()
            .any(|entry| matches!(entry, Allowed::Name(n) if n == name))
    }
}

impl TryFrom<&[String]> for AllowList {
    type Error = String;

    fn try_from(entries: &[String]) -> Result<Self, String> {
        let mut list = Vec::new();
        for entry in entries.iter().map(|e| e.trim()).filter(|e| !e.is_empty()) {
            list.push(allowed(entry).ok_or_else(|| {
                format!("webhook allow-list: {entry:?} is neither a network (10.1.2.0/24) nor a host name")
            })?);
        }
        Ok(AllowList(list))
    }
}

fn allowed(entry: &str) -> Option<Allowed> {
    if let Some(net) = crate::networks::parse_network(entry) {
        return Some(Allowed::Net(net));
    }
    if entry.contains('/') {
        return None;
    }
    match Host::try_from(entry).ok()? {
        Host::Name(name) => Some(Allowed::Name(name)),
        Host::Ip(ip) => crate::networks::parse_network(&ip.to_string()).map(Allowed::Net),
    }
}

/// How names become addresses: the system's resolver, or (in tests of the guard) a table.
type Lookup = Arc<
    dyn Fn(String, u16) -> Pin<Box<dyn Future<Output = std::io::Result<Vec<SocketAddr>>> + Send>>
        + Send
        + Sync,
>;

/// Resolves hosts and says which addresses a webhook may reach.
#[derive(Clone)]
pub struct Guard {
    allow: AllowList,
    lookup: Lookup,
}

impl std::fmt::Debug for Guard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Guard")
            .field("allow", &self.allow)
            .finish_non_exhaustive()
    }
}

impl Default for Guard {
    fn default() -> Self {
        Guard::new(AllowList::default())
    }
}

impl Guard {
    /// A guard that resolves names with the system's resolver.
    pub fn new(allow: AllowList) -> Self {
        Guard {
            allow,
            lookup: Arc::new(|host, port| {
                Box::pin(async move {
                    Ok(tokio::net::lookup_host((host.as_str(), port))
                        .await?
                        .collect())
                })
            }),
        }
    }

    /// A guard that resolves names from `table` (a name absent from it does not resolve).
    pub fn with_table(allow: AllowList, table: Vec<(String, Vec<IpAddr>)>) -> Self {
        let table = Arc::new(table);
        Guard {
            allow,
            lookup: Arc::new(move |host, port| {
                let found = table
                    .iter()
                    .find(|(name, _)| *name == host)
                    .map(|(_, ips)| ips.iter().map(|ip| SocketAddr::new(*ip, port)).collect());
                Box::pin(async move { Ok(found.unwrap_or_default()) })
            }),
        }
    }

    pub fn allow_list(&self) -> &AllowList {
        &self.allow
    }

    /// Whether `ip` may be sent to.
    pub fn check_ip(&self, ip: IpAddr) -> Result<(), Refusal> {
        if self.allow.allows_ip(ip) {
            return Ok(());
        }
        match forbidden(ip) {
            Some(kind) => Err(Refusal::Address(kind)),
            None => Ok(()),
        }
    }

    /// The addresses `host` (as a URL names it) stands for at `port`, if a webhook may
    /// reach every one of them: a name with one forbidden address among public ones is
    /// refused whole, since the connection could land on any.
    pub async fn resolve(&self, host: &str, port: u16) -> Result<Vec<SocketAddr>, Refusal> {
        let name = match Host::try_from(host)? {
            Host::Ip(ip) => {
                self.check_ip(ip)?;
                return Ok(vec![SocketAddr::new(ip, port)]);
            }
            Host::Name(name) => name,
        };
        let named = self.allow.allows_name(&name);
        // RFC 6761: localhost names are the machine itself, whatever DNS says.
        if !named && (name == "localhost" || name.ends_with(".localhost")) {
            return Err(Refusal::LocalName);
        }
        let addresses = (self.lookup)(name, port)
            .await
            .map_err(|_| Refusal::NotResolved)?;
        if addresses.is_empty() {
            return Err(Refusal::NotResolved);
        }
        if !named {
            for address in &addresses {
                self.check_ip(address.ip())?;
            }
        }
        Ok(addresses)
    }
}

/// awc's resolver: the guard's addresses, so the connection goes where the check said.
#[derive(Debug)]
pub struct GuardedResolver(pub Guard);

impl actix_tls::connect::Resolve for GuardedResolver {
    fn lookup<'a>(
        &'a self,
        host: &'a str,
        port: u16,
    ) -> futures_util::future::LocalBoxFuture<'a, Result<Vec<SocketAddr>, Box<dyn std::error::Error>>>
    {
        Box::pin(async move {
            self.0
                .resolve(host, port)
                .await
                .map_err(|refusal| Box::new(refusal) as Box<dyn std::error::Error>)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(spelling: &str) -> IpAddr {
        match Host::try_from(spelling) {
            Ok(Host::Ip(ip)) => ip,
            other => panic!("{spelling} is {other:?}"),
        }
    }

    #[test]
    fn every_spelling_of_loopback_is_loopback() {
        for spelling in [
            "127.0.0.1",
            "2130706433",
            "0x7f.1",
            "0x7f000001",
            "127.1",
            "127.0.1",
            "0177.0.0.1",
            "0177.1",
            "[::1]",
            "[0:0:0:0:0:0:0:1]",
        ] {
            assert_eq!(forbidden(host(spelling)), Some("loopback"), "{spelling}");
        }
    }

    #[test]
    fn ipv4_in_ipv6_clothes_is_refused_whatever_it_carries() {
        for spelling in ["[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[::ffff:8.8.8.8]"] {
            assert_eq!(
                forbidden(host(spelling)),
                Some("IPv4-mapped IPv6"),
                "{spelling}"
            );
        }
        assert_eq!(
            forbidden(host("[::127.0.0.1]")),
            Some("IPv4-compatible IPv6")
        );
        assert_eq!(forbidden(host("[64:ff9b::a00:1]")), Some("private"));
        assert_eq!(forbidden(host("[2002:7f00:1::]")), Some("loopback"));
        assert_eq!(forbidden(host("[64:ff9b::808:808]")), None);
    }

    #[test]
    fn each_internal_range_is_named_and_public_addresses_pass() {
        for (spelling, kind) in [
            ("0.0.0.0", "unspecified"),
            ("0", "unspecified"),
            ("0.1.2.3", "unspecified"),
            ("[::]", "unspecified"),
            ("10.0.0.1", "private"),
            ("167772161", "private"),
            ("172.16.0.1", "private"),
            ("172.31.255.255", "private"),
            ("192.168.1.1", "private"),
            ("0xc0.0xa8.1.1", "private"),
            ("100.64.0.1", "shared (carrier-grade NAT)"),
            ("100.127.255.254", "shared (carrier-grade NAT)"),
            ("169.254.169.254", "link-local"),
            ("[fe80::1]", "link-local"),
            ("[fc00::1]", "unique local"),
            ("[fd12:3456::1]", "unique local"),
            ("224.0.0.1", "multicast"),
            ("[ff02::1]", "multicast"),
            ("255.255.255.255", "broadcast"),
            ("240.0.0.1", "reserved"),
            ("192.0.2.1", "documentation"),
            ("198.51.100.7", "documentation"),
            ("203.0.113.9", "documentation"),
            ("[2001:db8::1]", "documentation"),
            ("198.18.0.1", "benchmarking"),
        ] {
            assert_eq!(forbidden(host(spelling)), Some(kind), "{spelling}");
        }
        for public in [
            "8.8.8.8",
            "1.1.1.1",
            "172.32.0.1",
            "100.128.0.1",
            "[2606:4700::1111]",
        ] {
            assert_eq!(forbidden(host(public)), None, "{public}");
        }
    }

    #[test]
    fn names_are_read_lowercase_without_their_trailing_dot() {
        assert_eq!(
            Host::try_from("Hooks.Example.ORG."),
            Ok(Host::Name("hooks.example.org".to_owned()))
        );
        assert_eq!(Host::try_from("bad host"), Err(Refusal::NotAHost));
    }

    fn allow(entries: &[&str]) -> AllowList {
        let entries: Vec<String> = entries.iter().map(|e| (*e).to_owned()).collect();
        AllowList::try_from(entries.as_slice()).expect("an allow-list")
    }

    #[test]
    fn the_allow_list_takes_networks_addresses_and_names_and_nothing_else() {
        let list = allow(&[
            "127.0.0.1/32",
            "10.1.2.0/24",
            "fd00::/8",
            "192.168.0.9",
            "Hooks.Internal",
        ]);
        let guard = Guard::new(list);
        for ip in [
            "127.0.0.1",
            "10.1.2.200",
            "192.168.0.9",
            "[fd00::5]",
            "[::ffff:127.0.0.1]",
        ] {
            assert_eq!(guard.check_ip(host(ip)), Ok(()), "{ip}");
        }
        for ip in ["127.0.0.2", "10.1.3.1", "192.168.0.10", "[fe80::1]"] {
            assert!(guard.check_ip(host(ip)).is_err(), "{ip}");
        }
        for bad in ["10.0.0.0/33", "not a host/8", "a b"] {
            let entries = vec![bad.to_owned()];
            assert!(AllowList::try_from(entries.as_slice()).is_err(), "{bad}");
        }
    }

    #[actix_web::test]
    async fn a_name_is_refused_when_any_address_it_resolves_to_is_internal() {
        let public: IpAddr = "93.184.215.14".parse().expect("an address");
        let table = vec![
            ("public.example".to_owned(), vec![public]),
            (
                "rebound.example".to_owned(),
                vec![public, "127.0.0.1".parse().expect("ip")],
            ),
            (
                "metadata.example".to_owned(),
                vec!["169.254.169.254".parse().expect("ip")],
            ),
        ];
        let guard = Guard::with_table(AllowList::default(), table.clone());
        assert_eq!(
            guard.resolve("Public.Example", 443).await,
            Ok(vec![SocketAddr::new(public, 443)])
        );
        assert_eq!(
            guard.resolve("rebound.example", 80).await,
            Err(Refusal::Address("loopback"))
        );
        assert_eq!(
            guard.resolve("metadata.example", 80).await,
            Err(Refusal::Address("link-local"))
        );
        assert_eq!(
            guard.resolve("nowhere.example", 80).await,
            Err(Refusal::NotResolved)
        );
        for local in ["localhost", "LOCALHOST.", "api.localhost"] {
            assert_eq!(guard.resolve(local, 80).await, Err(Refusal::LocalName));
        }
        assert_eq!(
            guard.resolve("2130706433", 80).await,
            Err(Refusal::Address("loopback"))
        );
        // Named in the allow-list: whatever it resolves to.
        let allowed = Guard::with_table(allow(&["metadata.example"]), table);
        assert!(allowed.resolve("metadata.example", 80).await.is_ok());
    }
}

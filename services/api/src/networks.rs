//! Networks an operator names (`10.1.2.0/24`, `fd00::/8`, a bare address for itself):
//! the webhooks' allow-list and the trusted reverse proxies read them alike, and compare
//! an IPv4 address written as IPv6 (`::ffff:10.0.0.1`) as the IPv4 address it is.

use std::net::IpAddr;

use ipnet::IpNet;

/// An IPv4-mapped IPv6 address as the IPv4 address it is.
pub fn canonical(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(address, IpAddr::V4),
        v4 => v4,
    }
}

/// A network in CIDR form, or a bare address (in brackets too) as a network of one; an
/// IPv4-mapped network is the IPv4 network it maps. `None` for anything else.
pub fn parse_network(entry: &str) -> Option<IpNet> {
    let (address, prefix) = match entry.split_once('/') {
        Some((address, prefix)) => (address, Some(prefix.parse::<u8>().ok()?)),
        None => (entry, None),
    };
    let address = address
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse::<IpAddr>()
        .ok()?;
    let width = if address.is_ipv4() { 32 } else { 128 };
    let prefix = prefix.unwrap_or(width);
    if prefix > width {
        return None;
    }
    let mapped = canonical(address);
    let prefix = if address.is_ipv6() && mapped.is_ipv4() {
        prefix.checked_sub(96)?
    } else {
        prefix
    };
    IpNet::new(mapped, prefix).ok().map(|net| net.trunc())
}

/// Whether `address` lies in `network`, an IPv4-mapped address counting as IPv4.
pub fn contains(network: &IpNet, address: IpAddr) -> bool {
    network.contains(&canonical(address))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn networks_are_read_in_cidr_form_as_bare_addresses_and_as_mapped_ipv6() {
        let net = parse_network("10.1.2.0/24").expect("a network");
        assert!(contains(&net, "10.1.2.200".parse().unwrap()));
        assert!(contains(&net, "::ffff:10.1.2.7".parse().unwrap()));
        assert!(!contains(&net, "10.1.3.1".parse().unwrap()));
        let one = parse_network("[::1]").expect("an address");
        assert!(contains(&one, "::1".parse().unwrap()));
        let mapped = parse_network("::ffff:127.0.0.0/104").expect("mapped");
        assert!(contains(&mapped, "127.9.9.9".parse().unwrap()));
        for bad in [
            "10.0.0.0/33",
            "host.example",
            "10.0.0.0/x",
            "::ffff:1.2.3.4/90",
        ] {
            assert_eq!(parse_network(bad), None, "{bad}");
        }
    }
}

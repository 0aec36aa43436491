//! Who is asking, as far as a dice server can tell: TripleA's clients send no name, so a
//! client is its network (an IPv4 address, or an IPv6 /64, which one machine's changing
//! addresses share), as the trusted proxies report it. Limits are kept per client first,
//! so that a stranger spends only their own, and each roll records the client's tag at its
//! table (never the network).

use std::net::IpAddr;

use actix_web::HttpRequest;
use warlog_events::dice_table::DiceKeys;

use crate::AppState;

/// A client's network, in bytes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DiceClient(Vec<u8>);

impl DiceClient {
    /// The client making `req`.
    pub fn of(req: &HttpRequest, state: &AppState) -> DiceClient {
        DiceClient::from_address(state.rate_limits.proxies.client_of(req))
    }

    /// The client at `address` (none known: one client, all such requests together).
    pub fn from_address(address: Option<IpAddr>) -> DiceClient {
        DiceClient(match address.map(crate::networks::canonical) {
            Some(IpAddr::V4(v4)) => v4.octets().to_vec(),
            Some(IpAddr::V6(v6)) => v6.octets()[..8].to_vec(),
            None => Vec::new(),
        })
    }

    /// The tag a roll by this client shows at `table`.
    pub fn tag(&self, keys: &DiceKeys, table: &str) -> String {
        keys.client_tag(table, &self.0)
    }

    /// A key for limits kept in memory on what this client does with `what` (a table, an
    /// address's key): the tag under the service's key, never the network.
    pub fn limit_key(&self, keys: &DiceKeys, what: &str) -> String {
        format!("{what}/{}", self.tag(keys, what))
    }
}

//! Registered addresses (issue 52): as on TripleA's official dice server, an address is
//! mailed rolls, and named in one, only once its owner has confirmed it by a link mailed to
//! it. The same kind of link lets an owner list every table naming their address or one
//! that looks like it. Links carry the address's keyed hash, never the address, and expire.

use base64::Engine as _;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use warlog_rules::game::Moment;

use super::{DiceKeys, RollFields};

/// How long a confirmation link holds.
pub const CONFIRM_LINK_HOURS: u64 = 48;
/// How long a link listing an address's tables holds.
pub const TABLES_LINK_HOURS: u64 = 24;
/// How long the link in every roll's mail that stops the dice mail holds: long enough that
/// an old mail still stops a flood.
pub const STOP_LINK_DAYS: u64 = 365;

/// What a link mailed to an address lets its holder do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressLink {
    /// Confirm the address: it may then be named in rolls and mailed them.
    Confirm,
    /// See the tables that name the address, or one that looks like it.
    ListTables,
    /// End the address's registration: no more dice mail, and no roll may name it until
    /// it is confirmed again.
    Stop,
}

impl AddressLink {
    fn label(self) -> &'static [u8] {
        match self {
            AddressLink::Confirm => b"warlog dice address confirm\n",
            AddressLink::ListTables => b"warlog dice address tables\n",
            AddressLink::Stop => b"warlog dice address stop\n",
        }
    }

    /// How long such a link holds, in seconds.
    pub fn lifetime_seconds(self) -> u64 {
        3600 * match self {
            AddressLink::Confirm => CONFIRM_LINK_HOURS,
            AddressLink::ListTables => TABLES_LINK_HOURS,
            AddressLink::Stop => STOP_LINK_DAYS * 24,
        }
    }
}

/// Bytes of a key (hex in [`DiceKeys::address_key`] and [`DiceKeys::lookalike_key`]) and
/// of a link's MAC; the expiry takes 8.
const KEY_BYTES: usize = 16;
const MAC_BYTES: usize = 16;

/// What a link is for: the keyed hashes of an address and of its look-alike form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkedAddress {
    pub address_key: String,
    pub lookalike_key: String,
}

impl DiceKeys {
    /// The keys of `address` (canonical), as a link carries them.
    pub fn linked_address(&self, address: &str) -> LinkedAddress {
        LinkedAddress {
            address_key: self.address_key(address),
            lookalike_key: self.lookalike_key(address),
        }
    }

    /// The secret of a `link` for `address`, holding until `expires`.
    pub fn address_link_token(
        &self,
        link: AddressLink,
        address: &LinkedAddress,
        expires: Moment,
    ) -> String {
        let mut bytes = hex::decode(&address.address_key).unwrap_or_default();
        bytes.extend(hex::decode(&address.lookalike_key).unwrap_or_default());
        bytes.extend_from_slice(&expires.unix_seconds().to_be_bytes());
        let mac = self.link_mac(link, &bytes).finalize().into_bytes();
        bytes.extend_from_slice(&mac[..MAC_BYTES]);
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    }

    /// The address a `link`'s `token` is for, if the token is one this service made and it
    /// has not expired at `now`; else why not, in words.
    pub fn read_address_link(
        &self,
        link: AddressLink,
        token: &str,
        now: Moment,
    ) -> Result<LinkedAddress, String> {
        let forged = || {
            "this link is not one the dice server mailed (copy the whole link from the mail)"
                .to_owned()
        };
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(token.trim())
            .map_err(|_| forged())?;
        if bytes.len() != 2 * KEY_BYTES + 8 + MAC_BYTES {
            return Err(forged());
        }
        let (signed, mac) = bytes.split_at(2 * KEY_BYTES + 8);
        self.link_mac(link, signed)
            .verify_truncated_left(mac)
            .map_err(|_| forged())?;
        let (keys, expires) = signed.split_at(2 * KEY_BYTES);
        let expires = Moment::from_unix_seconds(u64::from_be_bytes(
            expires.try_into().map_err(|_| forged())?,
        ));
        if now > expires {
            return Err("this link has expired: ask for a new one".to_owned());
        }
        let (address, lookalike) = keys.split_at(KEY_BYTES);
        Ok(LinkedAddress {
            address_key: hex::encode(address),
            lookalike_key: hex::encode(lookalike),
        })
    }

    fn link_mac(&self, link: AddressLink, signed: &[u8]) -> Hmac<Sha256> {
        let mut mac = self.keyed(link.label());
        mac.update(signed);
        mac
    }
}

/// Whether a roll naming `addresses` (read from `fields`) may be made, each address's
/// confirmation being `confirmed`: every unconfirmed one is named, with where to register
/// it (`register_at`).
pub fn check_registered(
    fields: &RollFields,
    addresses: &[String; 2],
    confirmed: [bool; 2],
    register_at: &str,
) -> Result<(), Vec<String>> {
    let refusals: Vec<String> = [fields.first, fields.second]
        .iter()
        .zip(addresses)
        .zip(confirmed)
        .filter(|(_, confirmed)| !confirmed)
        .map(|((field, address), _)| {
            format!(
                "{field} ({address}) is not registered with this dice server: register it at \
                 {register_at} and open the link mailed to it, then roll again"
            )
        })
        .collect();
    if refusals.is_empty() {
        Ok(())
    } else {
        Err(refusals)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice_table::API_ROLL_FIELDS;

    fn keys() -> DiceKeys {
        DiceKeys::from_secrets([7; 32], [9; 32]).expect("keys")
    }

    #[test]
    fn a_link_names_its_address_until_it_expires_and_only_for_its_purpose() {
        let keys = keys();
        let address = keys.linked_address("ann@club.example");
        let now = Moment::from_unix_seconds(1_000);
        let expires = now.plus_seconds(AddressLink::Confirm.lifetime_seconds());
        let token = keys.address_link_token(AddressLink::Confirm, &address, expires);
        assert_eq!(
            keys.read_address_link(AddressLink::Confirm, &token, now),
            Ok(address)
        );
        assert!(keys
            .read_address_link(AddressLink::ListTables, &token, now)
            .expect_err("another purpose")
            .contains("not one the dice server mailed"));
        assert!(keys
            .read_address_link(AddressLink::Confirm, &token, expires.plus_seconds(1))
            .expect_err("expired")
            .contains("expired"));
    }

    #[test]
    fn a_link_altered_or_made_under_another_key_is_refused() {
        let keys = keys();
        let address = keys.linked_address("ann@club.example");
        let now = Moment::from_unix_seconds(1_000);
        let token = keys.address_link_token(AddressLink::Confirm, &address, now.plus_seconds(60));
        let other = DiceKeys::from_secrets([8; 32], [9; 32]).expect("keys");
        assert!(other
            .read_address_link(AddressLink::Confirm, &token, now)
            .is_err());
        let mut altered = token.clone().into_bytes();
        altered[3] = if altered[3] == b'A' { b'B' } else { b'A' };
        let altered = String::from_utf8(altered).expect("text");
        assert!(keys
            .read_address_link(AddressLink::Confirm, &altered, now)
            .is_err());
        assert!(keys
            .read_address_link(AddressLink::Confirm, "", now)
            .is_err());
    }

    #[test]
    fn every_unconfirmed_address_is_named_with_where_to_register() {
        let addresses = ["ann@club.example".to_owned(), "bob@club.example".to_owned()];
        assert_eq!(
            check_registered(&API_ROLL_FIELDS, &addresses, [true, true], "R"),
            Ok(())
        );
        let refused = check_registered(
            &API_ROLL_FIELDS,
            &addresses,
            [true, false],
            "https://dice.example/dice/register",
        )
        .expect_err("bob is not registered");
        assert_eq!(
            refused,
            vec![
                "email2 (bob@club.example) is not registered with this dice server: register \
                  it at https://dice.example/dice/register and open the link mailed to it, then \
                  roll again"
            ]
        );
    }
}

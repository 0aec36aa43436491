//! The defender's secret: standing orders sealed in the log.
//!
//! A power's standing orders are the defender's to know until a battle follows them (in
//! play by e-mail they go to the game master alone). The log still has to hold them, so
//! that the record is the whole game: it holds them sealed.
//!
//! - The **salt** and the **key** come from the game's secret seed, the game's id and the
//!   stream version the orders are sealed at (each under its own label), so the server
//!   needs to keep nothing beside the seed it already keeps.
//! - The **commitment** is `SHA-256(salt ‖ canonical bytes of the orders)`, hex: public,
//!   it binds the orders without telling them (the salt is 32 secret bytes).
//! - The **ciphertext** is the canonical bytes, padded with spaces to a multiple of
//!   [`PADDED_TO`] bytes (so their length says little), under ChaCha20 with that key: the
//!   server reads the orders back for the battle from the log alone.
//!
//! The battle that follows sealed orders first reveals them with their salt
//! (`StandingOrdersRevealed`): anyone checks the reveal against the commitment. When the
//! seed is revealed at the game's end, anyone can open every sealed order, used or not,
//! and check the salt, the key and the ciphertext too.

use chacha20::cipher::{KeyIvInit, StreamCipher};
use chacha20::ChaCha20;
use sha2::{Digest, Sha256};
use warlog_rules::dice::GameSeed;
use warlog_rules::game::standing::{SealedOrders, StandingOrders};

use crate::canonical::to_canonical_bytes;

/// The sealed bytes are padded to a multiple of this length.
pub const PADDED_TO: usize = 128;

const SALT_LABEL: &[u8] = b"warlog standing orders salt";
const KEY_LABEL: &[u8] = b"warlog standing orders key";

fn derive(label: &[u8], seed: &GameSeed, game_id: &str, version: u64) -> [u8; 32] {
    let mut digest = Sha256::new();
    digest.update(label);
    digest.update(seed.expose());
    digest.update(game_id.as_bytes());
    digest.update(version.to_be_bytes());
    digest.finalize().into()
}

fn canonical(orders: &StandingOrders) -> Vec<u8> {
    let value = serde_json::to_value(orders).expect("standing orders are plain data");
    to_canonical_bytes(&value)
}

fn keystream(seed: &GameSeed, game_id: &str, version: u64, bytes: &mut [u8]) {
    let key = derive(KEY_LABEL, seed, game_id, version);
    // One key per sealing (the version is in it): the nonce may stay zero.
    ChaCha20::new(&key.into(), &[0u8; 12].into()).apply_keystream(bytes);
}

/// The commitment to `orders` under `salt`: hex of `SHA-256(salt ‖ canonical orders)`.
pub fn commitment(salt: &[u8], orders: &StandingOrders) -> String {
    let mut digest = Sha256::new();
    digest.update(salt);
    digest.update(canonical(orders));
    hex::encode(digest.finalize())
}

/// The salt of orders sealed at `version`, hex (what the reveal shows).
pub fn salt(seed: &GameSeed, game_id: &str, version: u64) -> String {
    hex::encode(derive(SALT_LABEL, seed, game_id, version))
}

/// `orders`, sealed at stream version `version` of game `game_id`.
pub fn seal(seed: &GameSeed, game_id: &str, version: u64, orders: &StandingOrders) -> SealedOrders {
    let mut bytes = canonical(orders);
    let padded = bytes.len().div_ceil(PADDED_TO).max(1) * PADDED_TO;
    bytes.resize(padded, b' ');
    keystream(seed, game_id, version, &mut bytes);
    SealedOrders {
        commitment: commitment(&derive(SALT_LABEL, seed, game_id, version), orders),
        ciphertext: hex::encode(bytes),
        sealed_at: version,
    }
}

/// Why sealed orders do not open: not sealed by this seed, or not orders.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the standing orders sealed at event {sealed_at} do not open with the game's seed: {why}")]
pub struct NotOpened {
    pub sealed_at: u64,
    pub why: &'static str,
}

/// Opens sealed orders with the game's seed: the orders and the salt (hex), once the
/// ciphertext and the commitment are both what sealing the orders gives.
pub fn open(
    seed: &GameSeed,
    game_id: &str,
    sealed: &SealedOrders,
) -> Result<(StandingOrders, String), NotOpened> {
    let fail = |why| NotOpened {
        sealed_at: sealed.sealed_at,
        why,
    };
    let mut bytes =
        hex::decode(&sealed.ciphertext).map_err(|_| fail("the ciphertext is not hex"))?;
    keystream(seed, game_id, sealed.sealed_at, &mut bytes);
    let orders: StandingOrders =
        serde_json::from_slice(&bytes).map_err(|_| fail("they are not standing orders"))?;
    if seal(seed, game_id, sealed.sealed_at, &orders) != *sealed {
        return Err(fail("the commitment or the ciphertext is not theirs"));
    }
    Ok((orders, salt(seed, game_id, sealed.sealed_at)))
}

/// Whether revealed orders and salt are the ones `sealed` commits to.
pub fn reveal_matches(sealed: &SealedOrders, orders: &StandingOrders, salt: &str) -> bool {
    hex::decode(salt)
        .is_ok_and(|salt| salt.len() == 32 && commitment(&salt, orders) == sealed.commitment)
}

#[cfg(test)]
mod tests {
    use super::*;
    use warlog_rules::units::UnitTypeId;

    fn seed(byte: u8) -> GameSeed {
        GameSeed::from_bytes([byte; 32])
    }

    fn lose_first(units: &[usize]) -> StandingOrders {
        StandingOrders {
            order_of_loss: units
                .iter()
                .map(|u| serde_json::from_value::<UnitTypeId>(serde_json::json!(u)).unwrap())
                .collect(),
            ..StandingOrders::default()
        }
    }

    #[test]
    fn sealed_orders_open_with_the_seed_and_match_their_reveal() {
        let orders = lose_first(&[3, 0]);
        let sealed = seal(&seed(7), "g1", 12, &orders);
        let (opened, salt) = open(&seed(7), "g1", &sealed).expect("opens");
        assert_eq!(opened, orders);
        assert!(reveal_matches(&sealed, &orders, &salt));
    }

    #[test]
    fn the_ciphertext_does_not_show_the_orders_nor_their_length() {
        let short = seal(&seed(7), "g1", 12, &StandingOrders::default());
        let long = seal(&seed(7), "g1", 12, &lose_first(&[0, 1, 2, 3, 4]));
        assert_eq!(short.ciphertext.len(), long.ciphertext.len());
        let plain = hex::encode(canonical(&lose_first(&[0, 1, 2, 3, 4])));
        assert!(!long.ciphertext.contains(&plain[..16]));
    }

    #[test]
    fn a_reveal_of_other_orders_or_another_salt_does_not_match() {
        let orders = lose_first(&[3]);
        let sealed = seal(&seed(7), "g1", 12, &orders);
        let salt = salt(&seed(7), "g1", 12);
        assert!(!reveal_matches(&sealed, &lose_first(&[0]), &salt));
        assert!(!reveal_matches(&sealed, &orders, &"00".repeat(32)));
        assert!(!reveal_matches(&sealed, &orders, "not hex"));
    }

    #[test]
    fn sealed_orders_do_not_open_with_another_seed_or_at_another_version() {
        let sealed = seal(&seed(7), "g1", 12, &lose_first(&[3]));
        assert!(open(&seed(8), "g1", &sealed).is_err());
        let moved = SealedOrders {
            sealed_at: 13,
            ..sealed
        };
        assert!(open(&seed(7), "g1", &moved).is_err());
    }
}

//! The reply address's token: a keyed MAC of the game, the round, the power and the seat's
//! player, carried in `turn+TOKEN@domain` as the credential of a reply, as GitHub and
//! GitLab carry one in their reply-by-e-mail addresses.
//!
//! A token is 29 bytes written as 58 lowercase hex digits: the game id (16 bytes; game ids
//! are uuids in simple form), the round (2 bytes, big-endian), the power's code (1 byte)
//! and the MAC (10 bytes). The player's handle is not in it, only under the MAC: a token
//! verifies for the player it was issued to and for nobody else, and a seat that changes
//! hands makes its old tokens worthless. With the prefix the local part is 63 characters,
//! under the 64 that RFC 5321 allows.
//!
//! The MAC is HMAC-SHA-256 under the operator's [`ReplyKey`], its first 10 bytes (80 bits:
//! a forger gets one try per mail, and every try is a refused mail), over a
//! domain-separated, length-prefixed encoding of the fields, so no two different turns
//! encode to the same bytes.

use std::fmt;

use hmac::{Hmac, Mac};
use sha2::Sha256;
use warlog_rules::board::Power;

/// What the MAC is computed over first: a token of another kind, or of a later version of
/// this one, never verifies as this one.
const DOMAIN: &[u8] = b"warlog reply token v1";

/// The game id's bytes: a uuid.
const GAME_BYTES: usize = 16;
/// The MAC's bytes kept in the token.
const MAC_BYTES: usize = 10;
/// The token's bytes: game, round, power, MAC.
const TOKEN_BYTES: usize = GAME_BYTES + 2 + 1 + MAC_BYTES;
/// The token's length as written: two hex digits a byte.
pub const TOKEN_DIGITS: usize = TOKEN_BYTES * 2;

/// The local part's prefix of a reply address.
const PREFIX: &str = "turn+";

/// Every power, by its code in a token: its index here ([`Power::ALL`], whose order never
/// changes: codes are on the wire in tokens already mailed).
const POWERS: [Power; 8] = Power::ALL;

/// A power's code in a token. The match has no catch-all, so a new power does not compile
/// until it has a code (and `POWERS` is checked against it in the tests).
fn power_code(power: Power) -> u8 {
    match power {
        Power::Russia => 0,
        Power::Germany => 1,
        Power::UnitedKingdom => 2,
        Power::Japan => 3,
        Power::UnitedStates => 4,
        Power::Ccp => 5,
        Power::Kmt => 6,
        Power::Npn => 7,
    }
}

/// The operator's secret that reply tokens are keyed with (32 random bytes, kept like a
/// password: whoever holds it can write any player's reply address).
#[derive(Clone)]
pub struct ReplyKey([u8; 32]);

impl ReplyKey {
    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        ReplyKey(bytes)
    }
}

/// Never the bytes: a key must not reach a log by way of a debug print.
impl fmt::Debug for ReplyKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ReplyKey(hidden)")
    }
}

/// The turn a "your move" mail is about, and the player it is sent to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnRef {
    /// 32 hex digits (a uuid in simple form).
    pub game_id: String,
    pub round: u32,
    pub power: Power,
    /// The handle of the player seated at the power.
    pub player: String,
}

/// A reply address's token; only [`issue`] and [`TryFrom<&str>`] make one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplyToken {
    game: [u8; GAME_BYTES],
    round: u16,
    power: Power,
    mac: [u8; MAC_BYTES],
}

/// Why a text is not a reply token, in plain words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    #[error("not a reply token: it has {0} characters, and a token has {TOKEN_DIGITS} hex digits")]
    Length(usize),
    #[error("not a reply token: a token has hex digits only (0 to 9 and a to f)")]
    NotHex,
    #[error("not a reply token: its power code {0} names no power")]
    UnknownPower(u8),
}

/// The MAC over a turn's fields, ready to be finalised or verified.
fn mac_of(
    key: &ReplyKey,
    game: &[u8; GAME_BYTES],
    round: u16,
    power: Power,
    player: &str,
) -> Hmac<Sha256> {
    let mut mac = Hmac::<Sha256>::new_from_slice(&key.0).expect("HMAC takes a key of any length");
    let fields: [&[u8]; 5] = [
        DOMAIN,
        game,
        &round.to_be_bytes(),
        &[power_code(power)],
        player.as_bytes(),
    ];
    for field in fields {
        // Each field after its length: "ab" + "c" and "a" + "bc" differ.
        let length = u32::try_from(field.len()).unwrap_or(u32::MAX);
        mac.update(&length.to_be_bytes());
        mac.update(field);
    }
    mac
}

/// The token for `turn`, under `key`; none when the game id is not 32 hex digits or the
/// round does not fit the token (over 65,535).
pub fn issue(key: &ReplyKey, turn: &TurnRef) -> Option<ReplyToken> {
    // 32 hex digits decode to 16 bytes, and nothing else does.
    let game: [u8; GAME_BYTES] = hex::decode(&turn.game_id).ok()?.try_into().ok()?;
    let round = u16::try_from(turn.round).ok()?;
    let tag = mac_of(key, &game, round, turn.power, &turn.player)
        .finalize()
        .into_bytes();
    let mut mac = [0u8; MAC_BYTES];
    mac.copy_from_slice(&tag[..MAC_BYTES]);
    Some(ReplyToken {
        game,
        round,
        power: turn.power,
        mac,
    })
}

impl ReplyToken {
    /// The token as a reply address carries it: 58 lowercase hex digits.
    pub fn encode(&self) -> String {
        let mut bytes = Vec::with_capacity(TOKEN_BYTES);
        bytes.extend_from_slice(&self.game);
        bytes.extend_from_slice(&self.round.to_be_bytes());
        bytes.push(power_code(self.power));
        bytes.extend_from_slice(&self.mac);
        hex::encode(bytes)
    }

    /// Whether the token was issued under `key` to `player` for its game, round and power.
    /// The comparison takes the same time wherever the MACs differ.
    pub fn verifies(&self, key: &ReplyKey, player: &str) -> bool {
        mac_of(key, &self.game, self.round, self.power, player)
            .verify_truncated_left(&self.mac)
            .is_ok()
    }

    /// The game's id: 32 lowercase hex digits.
    pub fn game_id(&self) -> String {
        hex::encode(self.game)
    }

    pub fn round(&self) -> u32 {
        u32::from(self.round)
    }

    pub fn power(&self) -> Power {
        self.power
    }
}

impl fmt::Display for ReplyToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.encode())
    }
}

/// Reads a token in any case: some mail systems change the case of an address.
impl TryFrom<&str> for ReplyToken {
    type Error = TokenError;

    fn try_from(text: &str) -> Result<Self, Self::Error> {
        let count = text.chars().count();
        if count != TOKEN_DIGITS {
            return Err(TokenError::Length(count));
        }
        let bytes = hex::decode(text).map_err(|_| TokenError::NotHex)?;
        let (game, rest) = bytes.split_at(GAME_BYTES);
        let (round, rest) = rest.split_at(2);
        let (code, mac) = rest.split_at(1);
        let power = *POWERS
            .get(usize::from(code[0]))
            .ok_or(TokenError::UnknownPower(code[0]))?;
        Ok(ReplyToken {
            game: game.try_into().expect("16 bytes split off"),
            round: u16::from_be_bytes([round[0], round[1]]),
            power,
            mac: mac.try_into().expect("10 bytes left"),
        })
    }
}

/// The reply address for a token: `turn+TOKEN@domain`.
pub fn reply_address(token: &ReplyToken, domain: &str) -> String {
    format!("{PREFIX}{}@{domain}", token.encode())
}

/// The address itself, from an address as a header may write it: `a@b`, `<a@b>` or
/// `Name <a@b>`, trimmed.
pub(crate) fn bare_address(address: &str) -> &str {
    let address = address.trim();
    match (address.rfind('<'), address.ends_with('>')) {
        (Some(open), true) => address[open + 1..address.len() - 1].trim(),
        _ => address,
    }
}

/// The token a reply address carries: none when the address's local part is not
/// `turn+...` (any case), an error when it is and what follows is no token.
pub fn token_in_address(address: &str) -> Option<Result<ReplyToken, TokenError>> {
    let address = bare_address(address);
    let local = address.rsplit_once('@').map_or(address, |(local, _)| local);
    let prefix = local.get(..PREFIX.len())?;
    prefix
        .eq_ignore_ascii_case(PREFIX)
        .then(|| ReplyToken::try_from(&local[PREFIX.len()..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    const GAME: &str = "0190f5a2b3c44d5e8f90a1b2c3d4e5f6";

    fn key() -> ReplyKey {
        ReplyKey::from_bytes([7; 32])
    }

    fn turn() -> TurnRef {
        TurnRef {
            game_id: GAME.to_owned(),
            round: 2,
            power: Power::Germany,
            player: "ann".to_owned(),
        }
    }

    fn issued() -> ReplyToken {
        issue(&key(), &turn()).expect("a token")
    }

    #[test]
    fn given_a_turn_when_its_token_is_issued_and_read_back_then_it_is_the_same_and_verifies() {
        let token = issued();
        let text = token.encode();
        assert_eq!(text.len(), TOKEN_DIGITS);
        assert_eq!(text, text.to_ascii_lowercase());
        let read = ReplyToken::try_from(text.as_str()).expect("reads");
        assert_eq!(read, token);
        assert_eq!(read.game_id(), GAME);
        assert_eq!(read.round(), 2);
        assert_eq!(read.power(), Power::Germany);
        assert!(read.verifies(&key(), "ann"));
    }

    #[test]
    fn given_a_token_when_another_player_round_or_power_is_claimed_then_it_does_not_verify() {
        let token = issued();
        assert!(!token.verifies(&key(), "bob"));
        assert!(!token.verifies(&key(), "Ann"));
        assert!(!token.verifies(&ReplyKey::from_bytes([8; 32]), "ann"));
        for other in [
            TurnRef { round: 3, ..turn() },
            TurnRef {
                power: Power::Japan,
                ..turn()
            },
        ] {
            let mut forged = issue(&key(), &other).expect("a token");
            forged.mac = token.mac;
            assert!(!forged.verifies(&key(), "ann"), "{other:?}");
        }
    }

    #[test]
    fn given_a_token_when_any_one_hex_digit_is_changed_then_it_is_refused_or_does_not_verify() {
        let text = issued().encode();
        for at in 0..text.len() {
            let mut changed: Vec<u8> = text.bytes().collect();
            changed[at] = if changed[at] == b'0' { b'1' } else { b'0' };
            let changed = String::from_utf8(changed).expect("ascii");
            if let Ok(token) = ReplyToken::try_from(changed.as_str()) {
                assert!(!token.verifies(&key(), "ann"), "digit {at} changed");
            }
        }
    }

    #[test]
    fn given_a_token_in_upper_case_when_read_then_it_is_the_same_token() {
        let token = issued();
        let upper = token.encode().to_ascii_uppercase();
        assert_eq!(ReplyToken::try_from(upper.as_str()), Ok(token));
    }

    #[test]
    fn given_a_reply_address_when_its_local_part_is_measured_then_it_fits_rfc_5321() {
        let address = reply_address(&issued(), "league.example");
        let (local, domain) = address.split_once('@').expect("an address");
        assert!(local.len() <= 64, "{local}");
        assert!(local.starts_with("turn+"));
        assert_eq!(domain, "league.example");
    }

    #[test]
    fn given_addresses_when_their_token_is_read_then_only_turn_addresses_carry_one() {
        let token = issued();
        let address = reply_address(&token, "league.example");
        assert_eq!(token_in_address(&address), Some(Ok(token.clone())));
        let shouting = format!("<{}>", address.to_ascii_uppercase());
        assert_eq!(token_in_address(&shouting), Some(Ok(token.clone())));
        let named = format!("Warlog League <{address}>");
        assert_eq!(token_in_address(&named), Some(Ok(token)));
        assert_eq!(token_in_address("ann@example.org"), None);
        assert_eq!(token_in_address("<tu@example.org>"), None);
        assert_eq!(
            token_in_address("turn+abc@league.example"),
            Some(Err(TokenError::Length(3)))
        );
        let not_hex = format!("turn+{}@x", "g".repeat(TOKEN_DIGITS));
        assert_eq!(token_in_address(&not_hex), Some(Err(TokenError::NotHex)));
    }

    #[test]
    fn given_a_token_with_no_power_for_its_code_when_read_then_the_words_say_so() {
        let mut text = issued().encode();
        text.replace_range(36..38, "ff");
        let refused = ReplyToken::try_from(text.as_str()).expect_err("no power 255");
        assert_eq!(refused, TokenError::UnknownPower(255));
        assert_eq!(
            refused.to_string(),
            "not a reply token: its power code 255 names no power"
        );
    }

    #[test]
    fn given_a_game_id_or_round_a_token_cannot_hold_when_issued_then_there_is_none() {
        for game_id in [
            "notice-test",
            &GAME[1..],
            &format!("{GAME}0"),
            "z".repeat(32).as_str(),
        ] {
            let turn = TurnRef {
                game_id: game_id.to_owned(),
                ..turn()
            };
            assert_eq!(issue(&key(), &turn), None, "{game_id}");
        }
        let late = TurnRef {
            round: u32::from(u16::MAX) + 1,
            ..turn()
        };
        assert_eq!(issue(&key(), &late), None);
    }

    #[test]
    fn every_power_has_the_code_of_its_place_in_the_list() {
        for (code, power) in POWERS.iter().enumerate() {
            assert_eq!(usize::from(power_code(*power)), code, "{}", power.name());
        }
    }

    #[test]
    fn a_reply_key_prints_no_bytes() {
        let printed = format!("{:?}", ReplyKey::from_bytes([0xab; 32]));
        assert!(
            !printed.contains("171") && !printed.contains("ab"),
            "{printed}"
        );
    }
}

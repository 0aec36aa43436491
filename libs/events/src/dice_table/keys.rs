//! The service's dice keys: the key a pair of addresses is hashed under to name its table,
//! and the Ed25519 key every roll is signed with, whose public half anyone may fetch. A
//! roll's signature is over its statement ([`roll_statement`]), so a player holding only
//! the roll's e-mail and the public key can check it ([`verify_roll`]).

use base64::Engine as _;
use hmac::{Hmac, Mac};
use ring::signature::{Ed25519KeyPair, KeyPair, UnparsedPublicKey, ED25519};
use sha2::Sha256;
use warlog_rules::game::Moment;

use super::{lookalike_form, DiceTableId};

/// The service's two dice secrets. Randomness comes from the caller: the keys are made from
/// 32 bytes each, drawn once and kept by the store.
pub struct DiceKeys {
    table_key: [u8; 32],
    signing: Ed25519KeyPair,
}

/// Kept out of logs: only the public key is shown.
impl std::fmt::Debug for DiceKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DiceKeys")
            .field("public_key", &self.public_key_base64())
            .finish_non_exhaustive()
    }
}

impl DiceKeys {
    /// The keys made from the table key and the signing key's seed.
    pub fn from_secrets(table_key: [u8; 32], signing_seed: [u8; 32]) -> Result<Self, String> {
        let signing = Ed25519KeyPair::from_seed_unchecked(&signing_seed)
            .map_err(|_| "the dice signing key cannot be made from its seed".to_owned())?;
        Ok(DiceKeys { table_key, signing })
    }

    /// The table of the pair `email1`, `email2` (either order, any case).
    pub fn table_of(&self, email1: &str, email2: &str) -> Result<DiceTableId, Vec<String>> {
        DiceTableId::of(&self.table_key, email1, email2)
    }

    /// A key for `address` (trimmed, lower-cased) that does not show it: for limits kept
    /// in memory, which must not hold addresses.
    pub fn address_key(&self, address: &str) -> String {
        let mut mac = self.keyed(b"warlog dice address\n");
        mac.update(address.trim().to_lowercase().as_bytes());
        hex::encode(&mac.finalize().into_bytes()[..16])
    }

    /// A key for what `address` (canonical) looks like ([`lookalike_form`]): every address a
    /// reader could take for it has the same, and none shows it.
    pub fn lookalike_key(&self, address: &str) -> String {
        let mut mac = self.keyed(b"warlog dice look-alike\n");
        mac.update(lookalike_form(address).as_bytes());
        hex::encode(&mac.finalize().into_bytes()[..16])
    }

    /// The short tag a table's page shows for the client that made a roll there (its
    /// network, `client`, in bytes): the same for every roll that client makes at that
    /// table, another at every other table, and no way back to the network. Eight hex
    /// digits tell apart the few clients a table sees.
    pub fn client_tag(&self, table: &str, client: &[u8]) -> String {
        let mut mac = self.keyed(b"warlog dice client\n");
        mac.update(table.as_bytes());
        mac.update(b"\n");
        mac.update(client);
        hex::encode(&mac.finalize().into_bytes()[..4])
    }

    /// An HMAC under the table key, begun with `label` so that no two uses share a value.
    pub(super) fn keyed(&self, label: &[u8]) -> Hmac<Sha256> {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.table_key)
            .unwrap_or_else(|_| unreachable!("HMAC accepts every key length"));
        mac.update(label);
        mac
    }

    /// The public key rolls are checked with: 32 bytes.
    pub fn public_key(&self) -> &[u8] {
        self.signing.public_key().as_ref()
    }

    /// The public key in base64, as the well-known URL publishes it.
    pub fn public_key_base64(&self) -> String {
        base64::engine::general_purpose::STANDARD.encode(self.public_key())
    }

    /// The public key as PEM (SubjectPublicKeyInfo, RFC 8410), for tools such as
    /// `openssl pkeyutl -verify`.
    pub fn public_key_pem(&self) -> String {
        // The DER of an Ed25519 SubjectPublicKeyInfo is this fixed prefix and the 32 bytes.
        const PREFIX: [u8; 12] = [
            0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00,
        ];
        let der = [&PREFIX[..], self.public_key()].concat();
        format!(
            "-----BEGIN PUBLIC KEY-----\n{}\n-----END PUBLIC KEY-----\n",
            base64::engine::general_purpose::STANDARD.encode(der)
        )
    }

    /// The signature of `statement`, in base64.
    pub fn sign(&self, statement: &str) -> String {
        base64::engine::general_purpose::STANDARD
            .encode(self.signing.sign(statement.as_bytes()).as_ref())
    }

    /// The secret of the link that reveals `table`'s epoch `epoch`: only the table's two
    /// addresses are sent it, and it opens that epoch only.
    pub fn reveal_token(&self, table: &str, epoch: u32) -> String {
        hex::encode(&self.reveal_mac(table, epoch).finalize().into_bytes()[..16])
    }

    /// Whether `token` is the reveal link's secret for `table`'s epoch `epoch` (compared in
    /// constant time).
    pub fn is_reveal_token(&self, table: &str, epoch: u32, token: &str) -> bool {
        match hex::decode(token) {
            Ok(given) if given.len() == 16 => self
                .reveal_mac(table, epoch)
                .verify_truncated_left(&given)
                .is_ok(),
            _ => false,
        }
    }

    fn reveal_mac(&self, table: &str, epoch: u32) -> Hmac<Sha256> {
        let mut mac = self.keyed(b"warlog dice reveal\n");
        mac.update(table.as_bytes());
        mac.update(b"\n");
        mac.update(&epoch.to_be_bytes());
        mac
    }
}

/// What a roll's signature covers.
#[derive(Debug, Clone, Copy)]
pub struct RollSigned<'a> {
    pub table: &'a str,
    pub epoch: u32,
    /// The roll's place in the table's stream.
    pub index: u64,
    pub sides: u32,
    pub dice: &'a [u32],
    /// RFC 3339, UTC ([`date_of`]).
    pub date: &'a str,
}

/// A roll's statement, the text its signature is over: one field a line, each line ending
/// with a line feed but the last.
///
/// ```text
/// warlog dice roll
/// table: 3f1c…
/// epoch: 1
/// index: 7
/// sides: 6
/// dice: 3,6,1
/// date: 2026-11-27T12:00:00Z
/// ```
pub fn roll_statement(roll: &RollSigned) -> String {
    let dice = roll
        .dice
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",");
    statement(&[
        &roll.table,
        &roll.epoch,
        &roll.index,
        &roll.sides,
        &dice,
        &roll.date,
    ])
}

/// The statement's form, as the key page publishes it: each value in angle brackets. Made
/// by the same lines as every signed statement, so the two cannot drift apart.
pub fn statement_template() -> String {
    statement(&[
        &"<table>",
        &"<epoch>",
        &"<index>",
        &"<sides>",
        &"<die>,<die>,...",
        &"<date: RFC 3339, UTC>",
    ])
}

/// The statement's lines: its title, then the fields in their order, each `name: value`.
fn statement(values: &[&dyn std::fmt::Display; 6]) -> String {
    const FIELDS: [&str; 6] = ["table", "epoch", "index", "sides", "dice", "date"];
    let mut text = "warlog dice roll".to_owned();
    for (field, value) in FIELDS.iter().zip(values) {
        text.push_str(&format!("\n{field}: {value}"));
    }
    text
}

/// A roll made up for the key page's worked example: any reader can check its signature
/// with the published key before trusting it with a real roll.
pub fn example_roll() -> RollSigned<'static> {
    RollSigned {
        table: "0123456789abcdef0123456789abcdef",
        epoch: 1,
        index: 2,
        sides: 6,
        dice: &[3, 6, 1],
        date: "2026-12-05T12:00:00Z",
    }
}

/// Whether `signature` (base64) is the signature by `public_key` (32 bytes) of `statement`.
pub fn verify_roll(public_key: &[u8], statement: &str, signature: &str) -> bool {
    let Ok(signature) = base64::engine::general_purpose::STANDARD.decode(signature.trim()) else {
        return false;
    };
    UnparsedPublicKey::new(&ED25519, public_key)
        .verify(statement.as_bytes(), &signature)
        .is_ok()
}

/// A moment as a roll's date: RFC 3339, UTC, to the second.
pub fn date_of(at: Moment) -> String {
    i64::try_from(at.unix_seconds())
        .ok()
        .and_then(|s| time::OffsetDateTime::from_unix_timestamp(s).ok())
        .and_then(|t| {
            t.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_else(|| "9999-12-31T23:59:59Z".to_owned())
}

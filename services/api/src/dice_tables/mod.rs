//! Dice tables for TripleA players (issue 38), the service's side: the keys (drawn once,
//! kept by the store, read on first use), the settings an operator gives, the limits, and
//! the two writes, a roll ([`DiceRoll`]) and a reveal ([`DiceReveal`]). What a table is and
//! what it may do is decided in `warlog_events::dice_table`.

mod client;
mod client_roll;
mod folds;
mod registration;
mod reveal;
mod roll;
mod view;

pub use client::DiceClient;
pub(crate) use client_roll::{read_form, refusal_parts};
pub use client_roll::{roll_for_client, ClientRoll, Rolled, REGISTER_PATH};
pub use folds::TableFolds;
pub use registration::{
    confirm_address, mail_address_link, stop_address, stop_link, tables_naming, NamingView,
    TableNamingView, CONFIRM_PAGE, STOP_PAGE, TABLES_PAGE,
};

pub(crate) use reveal::reveal;
pub use reveal::{DiceReveal, RevealAnswer};
pub use roll::{DiceRoll, RollAnswer, RollRecipient, RollResult};
pub use view::{read_table_between, DiceTableView, EpochView, RollView, VIEW_EVENTS};

use std::sync::Arc;

use tokio::sync::OnceCell;
use warlog_events::dice_table::DiceTable;
use warlog_events::dice_table::{idle_in_words, DiceKeys, DiceTableId, RollLinks};
use warlog_events::StreamId;
use warlog_rules::dice::GameSeed;
use warlog_store::dice_tables::load_epoch_seed;
use warlog_store::dice_tables::{service_secret, SIGNING_SEED, TABLE_KEY};
use warlog_store::{GenericClient, Pool, StoreError};

use crate::error::{corrupt, ApiError, ErrorCode};
use crate::public_url::PublicUrl;
use crate::rate_limit::RateLimit;

/// Hours a table must have been idle before anyone may reveal its seed.
pub const DEFAULT_IDLE_HOURS: u64 = 7 * 24;
/// Rolls a minute from one client, over every table.
pub const DEFAULT_ROLLS_PER_MINUTE: u32 = 120;
/// Rolls a minute from one client at one table: a stranger naming the players spends only
/// their own.
pub const DEFAULT_TABLE_ROLLS_PER_MINUTE: u32 = 60;
/// Roll mails a minute to one address from one client, over every table.
pub const DEFAULT_MAILS_PER_ADDRESS_PER_MINUTE: u32 = 60;
/// Registration mails (a confirmation, a list of tables) an hour to one address.
pub const LINK_MAILS_PER_ADDRESS_PER_HOUR: u32 = 3;
/// Registration mails an hour asked by one client, to any address.
pub const LINK_MAILS_PER_CLIENT_PER_HOUR: u32 = 10;

/// Whether a roll may name only registered addresses (`--dice-registration`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Registration {
    /// Required whenever rolls are mailed: then naming an address sends it mail.
    #[default]
    Auto,
    On,
    Off,
}

impl TryFrom<&str> for Registration {
    type Error = String;

    fn try_from(text: &str) -> Result<Self, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Registration::Auto),
            "on" => Ok(Registration::On),
            "off" => Ok(Registration::Off),
            other => Err(format!(
                "\"{other}\" is not a choice: auto (on whenever rolls are mailed), on or off"
            )),
        }
    }
}

/// Where the service's public key is published.
pub const PUBLIC_KEY_PATH: &str = "/.well-known/warlog-dice-key";

/// What the operator decides about dice tables.
#[derive(Debug, Clone)]
pub struct DiceSettings {
    /// How long a table must not roll before anyone may reveal its seed.
    pub idle_seconds: u64,
    /// Whether rolls are mailed (the service has a mail server to send through).
    pub mail: bool,
    /// The addresses a roll may be mailed to: the operator's choice.
    pub mail_domains: MailDomains,
}

/// The domains whose addresses a roll may be mailed to (`--dice-mail-domains`): anyone may
/// ask for a roll naming any two addresses, so the service mails only where its operator
/// allows. None by default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum MailDomains {
    #[default]
    None,
    /// `*`: any address.
    Any,
    /// These domains and their subdomains (`club.example` allows `ann@mail.club.example`).
    Listed(Vec<String>),
}

impl TryFrom<&[String]> for MailDomains {
    type Error = String;

    fn try_from(entries: &[String]) -> Result<Self, String> {
        let entries: Vec<String> = entries
            .iter()
            .map(|e| e.trim().trim_start_matches('.').to_ascii_lowercase())
            .filter(|e| !e.is_empty())
            .collect();
        if entries.iter().any(|e| e == "*") {
            return Ok(MailDomains::Any);
        }
        if entries.is_empty() {
            return Ok(MailDomains::None);
        }
        for entry in &entries {
            let domain = entry.split('.').all(|label| {
                !label.is_empty() && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            });
            if !domain {
                return Err(format!(
                    "\"{entry}\" is not a domain (club.example), nor `*` for any"
                ));
            }
        }
        Ok(MailDomains::Listed(entries))
    }
}

impl MailDomains {
    /// Whether `address` may be mailed.
    pub fn allows(&self, address: &str) -> bool {
        let Some((_, domain)) = address.trim().rsplit_once('@') else {
            return false;
        };
        let domain = domain.to_ascii_lowercase();
        match self {
            MailDomains::None => false,
            MailDomains::Any => true,
            MailDomains::Listed(allowed) => allowed.iter().any(|allowed| {
                domain == *allowed
                    || domain
                        .strip_suffix(allowed.as_str())
                        .is_some_and(|sub| sub.ends_with('.'))
            }),
        }
    }
}

impl Default for DiceSettings {
    fn default() -> Self {
        DiceSettings {
            idle_seconds: DEFAULT_IDLE_HOURS * 3600,
            mail: false,
            mail_domains: MailDomains::None,
        }
    }
}

/// The dice tables' keys, settings and limits.
#[derive(Debug)]
pub struct DiceTables {
    pub settings: DiceSettings,
    /// Rolls per client, over every table.
    pub per_client: RateLimit<DiceClient>,
    /// Rolls per client at one table: a stranger naming the players spends their own.
    pub per_table: RateLimit<String>,
    /// Roll mails per client to one address, over every table: one address paired with
    /// many others cannot be flooded by one client, nor silenced for another.
    pub per_address: RateLimit<String>,
    /// Whether rolls may name only registered addresses.
    pub registration: Registration,
    /// Registration mails per address, and per client.
    pub link_mails_per_address: RateLimit<String>,
    pub link_mails_per_client: RateLimit<DiceClient>,
    /// Tables folded lately, so a roll reads only what is new.
    pub folds: TableFolds,
    keys: OnceCell<Arc<DiceKeys>>,
}

impl Default for DiceTables {
    fn default() -> Self {
        DiceTables::new(
            DiceSettings::default(),
            DEFAULT_ROLLS_PER_MINUTE,
            DEFAULT_TABLE_ROLLS_PER_MINUTE,
        )
    }
}

impl DiceTables {
    /// `0` for either limit: none.
    pub fn new(settings: DiceSettings, per_client: u32, per_table: u32) -> Self {
        DiceTables {
            settings,
            per_client: RateLimit::per_minute(per_client),
            per_table: RateLimit::per_minute(per_table),
            per_address: RateLimit::per_minute(DEFAULT_MAILS_PER_ADDRESS_PER_MINUTE),
            registration: Registration::default(),
            link_mails_per_address: RateLimit::per_hour(LINK_MAILS_PER_ADDRESS_PER_HOUR),
            link_mails_per_client: RateLimit::per_hour(LINK_MAILS_PER_CLIENT_PER_HOUR),
            folds: TableFolds::default(),
            keys: OnceCell::new(),
        }
    }

    /// The limit on roll mails to one address from one client, a minute (`0`: none).
    pub fn mails_per_address(mut self, per_minute: u32) -> Self {
        self.per_address = RateLimit::per_minute(per_minute);
        self
    }

    /// Whether rolls may name only registered addresses.
    pub fn with_registration(mut self, registration: Registration) -> Self {
        self.registration = registration;
        self
    }

    /// Whether a roll must name registered addresses: on, or on whenever rolls are mailed.
    pub fn requires_registration(&self) -> bool {
        match self.registration {
            Registration::On => true,
            Registration::Off => false,
            Registration::Auto => self.mails_rolls(),
        }
    }

    /// The service's keys: read from the store the first time (drawn and kept there if no
    /// replica drew them before), then from memory, with no connection taken.
    pub async fn keys(&self, pool: &Pool) -> Result<Arc<DiceKeys>, ApiError> {
        self.keys
            .get_or_try_init(|| async {
                let client = pool.get().await.map_err(StoreError::from)?;
                let client = &client;
                let table_key = service_secret(client, TABLE_KEY, random_bytes()?).await?;
                let signing = service_secret(client, SIGNING_SEED, random_bytes()?).await?;
                DiceKeys::from_secrets(table_key, signing)
                    .map(Arc::new)
                    .map_err(|e| ApiError::new(ErrorCode::Internal, e))
            })
            .await
            .cloned()
    }

    /// Of the two addresses, those this roll is mailed to: none without a mail server;
    /// else those the operator allows. An address mailed as often as its limit allows
    /// refuses the roll (429) rather than let it go unmailed: the mail is what keeps a
    /// player from rolling again until the dice suit, and one who named the other player
    /// at other tables must not silence it. The limit is kept per client (a stranger who
    /// mails a player as often as it allows is refused, not the player) and by the
    /// address's keyed hash, never the address. `addresses` are canonical, the spelling the
    /// table is keyed by.
    pub fn recipients(
        &self,
        keys: &DiceKeys,
        addresses: &[String; 2],
        client: &DiceClient,
    ) -> Result<Vec<String>, ApiError> {
        if !self.settings.mail {
            return Ok(Vec::new());
        }
        let mut recipients: Vec<String> = addresses
            .iter()
            .filter(|a| self.settings.mail_domains.allows(a))
            .cloned()
            .collect();
        recipients.dedup();
        for address in &recipients {
            self.per_address
                .admit_from(
                    client.limit_key(keys, &keys.address_key(address)),
                    "to one address",
                )
                .map_err(|_| {
                    ApiError::new(
                        ErrorCode::TooManyRequests,
                        format!(
                            "the dice server has mailed one of these addresses as often as it \
                             may this minute for you (at most {} a minute to one address): \
                             roll again in a minute",
                            self.per_address.limit()
                        ),
                    )
                })?;
        }
        Ok(recipients)
    }

    /// Whether rolls are mailed at all: the service sends mail, and to some domain.
    pub fn mails_rolls(&self) -> bool {
        self.settings.mail && self.settings.mail_domains != MailDomains::None
    }

    /// The idle time, in words (`7 days`).
    pub fn idle_in_words(&self) -> String {
        idle_in_words(self.settings.idle_seconds)
    }
}

/// How rolls are mailed: where their links point (absolute with the service's public
/// address, else paths), and the idle time in words.
#[derive(Debug, Clone)]
pub struct RollMailing {
    pub public_url: Option<PublicUrl>,
    pub idle: String,
    /// What the client said the roll is for (the 2.x clients' subject), if anything.
    pub note: Option<String>,
}

impl RollMailing {
    /// Where a roll's mail points, for `table`'s epoch `epoch`.
    pub fn links(&self, keys: &DiceKeys, table: &str, epoch: u32) -> RollLinks {
        let link = |path: String| match &self.public_url {
            Some(base) => base.join(&path),
            None => path,
        };
        RollLinks {
            table_page: link(format!("/dice/{table}")),
            public_key: link(PUBLIC_KEY_PATH.to_owned()),
            reveal: link(format!(
                "/dice/{table}/reveal?token={}",
                keys.reveal_token(table, epoch)
            )),
        }
    }
}

fn random_bytes() -> Result<[u8; 32], ApiError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|e| ApiError::new(ErrorCode::Internal, format!("no OS randomness: {e}")))?;
    Ok(bytes)
}

/// The table a path names, and its stream; a path that cannot name one is a table not found.
pub fn parse_table(raw: &str) -> Result<(DiceTableId, StreamId), ApiError> {
    let table = DiceTableId::try_from(raw)
        .map_err(|why| ApiError::new(ErrorCode::DiceTableNotFound, why))?;
    let stream = table
        .stream()
        .map_err(|e| ApiError::new(ErrorCode::Internal, e.to_string()))?;
    Ok((table, stream))
}

/// `table` folded and the seed of its epoch in force; none when it has never rolled.
pub(crate) async fn table_and_seed(
    dice: &DiceTables,
    client: &impl GenericClient,
    table: &DiceTableId,
) -> Result<Option<(DiceTable, GameSeed)>, ApiError> {
    let Some(folded) = dice.folds.load(client, table).await? else {
        return Ok(None);
    };
    let stream = table.stream().map_err(corrupt)?;
    let seed = load_epoch_seed(client, &stream, folded.epoch)
        .await?
        .ok_or_else(|| corrupt(format!("{stream} keeps no seed for epoch {}", folded.epoch)))?;
    Ok(Some((folded, seed)))
}

/// A table's refusal is answered as every refusal is.
pub(crate) use crate::error::refused;

#[cfg(test)]
mod tests {
    use super::*;

    fn domains(list: &[&str]) -> Result<MailDomains, String> {
        let list: Vec<String> = list.iter().map(|s| (*s).to_owned()).collect();
        MailDomains::try_from(list.as_slice())
    }

    #[test]
    fn a_listed_domain_allows_its_addresses_and_its_subdomains_and_nothing_else() {
        let allowed = domains(&["Club.Example", " .league.example "]).expect("domains");
        for yes in [
            "ann@club.example",
            "Bob@MAIL.club.example",
            "cy@league.example",
        ] {
            assert!(allowed.allows(yes), "{yes}");
        }
        for no in [
            "eve@evilclub.example",
            "eve@club.example.evil",
            "eve@elsewhere.example",
            "club.example",
        ] {
            assert!(!allowed.allows(no), "{no}");
        }
    }

    #[test]
    fn no_domain_allows_none_and_a_star_any() {
        assert_eq!(domains(&[]).expect("none"), MailDomains::None);
        assert!(!MailDomains::None.allows("ann@club.example"));
        assert_eq!(
            domains(&["club.example", "*"]).expect("any"),
            MailDomains::Any
        );
        assert!(MailDomains::Any.allows("ann@anywhere.example"));
    }

    #[test]
    fn an_entry_that_is_not_a_domain_is_refused_saying_so() {
        for bad in ["ann@club.example", "club..example", "club example"] {
            let refused = domains(&[bad]).expect_err(bad);
            assert!(refused.contains("is not a domain"), "{refused}");
        }
    }
}

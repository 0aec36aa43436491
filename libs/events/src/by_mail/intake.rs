//! Who is writing: whether a mail to a reply address may give its power's orders, decided
//! from the game's record, the reply token, the sender's address and the DMARC verdict.
//!
//! The token is the credential (as in GitHub's and GitLab's reply by e-mail): it names the
//! game, the turn and the power, and verifies only for the player seated at the power. The
//! From address is checked besides, against the address on file for that player (or for
//! their proxy in force), so a forwarded "your move" mail does not let its reader play; and
//! where the sender's domain publishes DMARC and the mail fails it, the From address is not
//! believed. With no DNS at hand the token and the address decide, and the caller records
//! that the check could not be made ([`DmarcVerdict::NotChecked`]).
//!
//! A refusal never names an address: the answer goes to whoever sent the mail, who may
//! not be the player.

use std::collections::BTreeMap;
use std::fmt;

use warlog_rules::board::Power;
use warlog_rules::game::Moment;

use super::token::{bare_address, ReplyKey, ReplyToken, TokenError};
use crate::game::{GameLog, GameStatus};
use crate::sender::{Role, Sender};

/// DMARC's verdict lives with the record of a command, which carries it.
pub use crate::command::DmarcVerdict;

/// A mail to a reply address, as far as deciding who wrote it goes.
#[derive(Debug, Clone, Copy)]
pub struct Letter<'a> {
    /// The token of the address the mail was sent to.
    pub token: &'a ReplyToken,
    /// The sender's address, as the From header gives it (`Ann <ann@example.org>` will do).
    pub from: &'a str,
    pub dmarc: DmarcVerdict,
    /// The text holds only orders that may be given at any time (standing orders,
    /// diplomacy), which a power gives outside its own turn too.
    pub anytime_only: bool,
}

/// Who may give the orders a mail holds: the sender of its command, and the power.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Writer {
    /// A player: the one seated at the power, or their proxy in force.
    pub sender: Sender,
    pub power: Power,
}

/// Why a mail may not give orders. Each says why in a sentence (lower case, no full stop,
/// as refusals are written, so an answer can frame it), and none names an address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MailRefusal {
    /// The address's local part is `turn+...`, and what follows is no token.
    BadToken(TokenError),
    /// The token is of another game than the one it was read against.
    AnotherGame,
    /// The token does not verify for the player seated at its power: forged, or issued
    /// to a player who no longer holds the seat.
    ForgedToken,
    /// The game is over: ended, voided or aborted.
    GameOver(GameStatus),
    /// The token is of a turn that is not the one under way: `now` is the round and the
    /// power to move, none while no power's turn runs.
    EarlierTurn {
        round: u32,
        power: Power,
        now: Option<(u32, Power)>,
    },
    /// The mail came from neither the seated player's address on file nor their proxy's.
    NotTheSeat { power: Power },
    /// The sender's domain publishes DMARC and the mail fails it.
    DmarcFailed,
}

impl MailRefusal {
    /// The refusal's stable code, for the record, the answer's header and the metrics.
    pub fn code(&self) -> &'static str {
        match self {
            MailRefusal::BadToken(_) => "bad-token",
            MailRefusal::AnotherGame => "another-game",
            MailRefusal::ForgedToken => "forged-token",
            MailRefusal::GameOver(_) => "game-over",
            MailRefusal::EarlierTurn { .. } => "earlier-turn",
            MailRefusal::NotTheSeat { .. } => "not-the-seat",
            MailRefusal::DmarcFailed => "dmarc-failed",
        }
    }
}

impl From<TokenError> for MailRefusal {
    fn from(error: TokenError) -> Self {
        MailRefusal::BadToken(error)
    }
}

impl fmt::Display for MailRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MailRefusal::BadToken(error) => write!(
                f,
                "the reply address holds no valid token ({error}): reply to the \"your \
                 move\" mail itself"
            ),
            MailRefusal::AnotherGame => f.write_str(
                "this reply address belongs to another game: reply to the \"your move\" mail \
                 of the game you mean",
            ),
            MailRefusal::ForgedToken => f.write_str(
                "the reply address is forged or not yours: reply to the \"your move\" mail \
                 you received for your power",
            ),
            MailRefusal::GameOver(status) => write!(
                f,
                "the game is over ({}): it takes no more orders",
                status.describe()
            ),
            MailRefusal::EarlierTurn { round, power, now } => {
                write!(f, "this was your turn of round {round} ({})", power.name())?;
                match now {
                    Some((now_round, now_power)) if now_round == round => {
                        write!(f, "; it is now {}'s move", now_power.name())
                    }
                    Some((now_round, now_power)) => write!(
                        f,
                        "; it is now {}'s move, in round {now_round}",
                        now_power.name()
                    ),
                    None => f.write_str("; no power's turn is under way now"),
                }
            }
            MailRefusal::NotTheSeat { power } => write!(
                f,
                "this mail did not come from the address on file for {}'s player",
                power.name()
            ),
            MailRefusal::DmarcFailed => {
                f.write_str("the sender's domain says this mail did not come from it (DMARC)")
            }
        }
    }
}

/// An address as compared: the address itself, trimmed, in lower case.
fn comparable(address: &str) -> String {
    bare_address(address).to_lowercase()
}

/// Who wrote `letter` and for which power, or why the mail may not give orders: the mail
/// is [`authenticated`], then its turn checked ([`in_turn`]). `addresses` are the
/// addresses on file by handle, for the seated players and the proxies.
pub fn who_is_writing(
    log: &GameLog,
    key: &ReplyKey,
    letter: &Letter<'_>,
    addresses: &BTreeMap<String, String>,
    at: Moment,
) -> Result<Writer, MailRefusal> {
    let writer = authenticated(log, key, letter, addresses, at)?;
    in_turn(log, letter)?;
    Ok(writer)
}

/// Who wrote `letter`, checked in this order: the token's game, the token for the seated
/// player, the game running, the sender's address (the seated player's on file, or their
/// proxy's in force at `at`), DMARC. Until a mail passes these nothing of it is read or
/// quoted back, so a stranger learns nothing from an answer.
pub fn authenticated(
    log: &GameLog,
    key: &ReplyKey,
    letter: &Letter<'_>,
    addresses: &BTreeMap<String, String>,
    at: Moment,
) -> Result<Writer, MailRefusal> {
    let token = letter.token;
    if !token.game_id().eq_ignore_ascii_case(&log.created.game_id) {
        return Err(MailRefusal::AnotherGame);
    }
    let power = token.power();
    let seat = log
        .state
        .seats
        .get(&power)
        .filter(|seat| token.verifies(key, &seat.player))
        .ok_or(MailRefusal::ForgedToken)?;
    let status = log.status();
    if status != GameStatus::Running {
        return Err(MailRefusal::GameOver(status));
    }
    let from = comparable(letter.from);
    // An empty address on file matches no mail, even one with an empty From.
    let on_file = |handle: &str| {
        !from.is_empty()
            && addresses
                .get(handle)
                .is_some_and(|address| comparable(address) == from)
    };
    let writer = if on_file(&seat.player) {
        seat.player.clone()
    } else {
        log.proxy_in_force(power, at)
            .filter(|proxy| on_file(&proxy.proxy))
            .map(|proxy| proxy.proxy.clone())
            .ok_or(MailRefusal::NotTheSeat { power })?
    };
    if letter.dmarc == DmarcVerdict::Fail {
        return Err(MailRefusal::DmarcFailed);
    }
    Ok(Writer {
        sender: Sender {
            role: Role::Player,
            name: writer,
        },
        power,
    })
}

/// Whether `letter`'s token is of the turn now in play: the round and the power to move.
/// A mail of orders for any time (standing orders, diplomacy) may come on another power's
/// turn, but still only with a token of the round now in play, so an old mail's address
/// stops working when the round is over.
pub fn in_turn(log: &GameLog, letter: &Letter<'_>) -> Result<(), MailRefusal> {
    let token = letter.token;
    let power = token.power();
    let now = log.turn_under_way().map(|(round, _, power)| (round, power));
    let current = if letter.anytime_only {
        now.is_some_and(|(round, _)| round == token.round())
    } else {
        now == Some((token.round(), power))
    };
    if current {
        Ok(())
    } else {
        Err(MailRefusal::EarlierTurn {
            round: token.round(),
            power,
            now,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::by_mail::token::{issue, TurnRef};
    use crate::orders::Command;
    use crate::sample::SampleGame;
    use warlog_rules::dice::GameSeed;
    use warlog_rules::game::named::NamedOrder;
    use warlog_rules::game::Phase;
    use warlog_rules::ruleset::Ruleset;

    const GAME: &str = "0190f5a2b3c44d5e8f90a1b2c3d4e5f6";

    fn key() -> ReplyKey {
        ReplyKey::from_bytes([3; 32])
    }

    fn a_new_game() -> SampleGame {
        let ruleset = Ruleset::builtin("cutthroat").expect("built in");
        SampleGame::new(ruleset, GAME, GameSeed::from_bytes([5; 32]), 11)
    }

    /// Every player's address on file: `handle@example.org`.
    fn addresses(game: &SampleGame) -> BTreeMap<String, String> {
        game.log
            .created
            .players
            .iter()
            .map(|p| (p.clone(), format!("{p}@example.org")))
            .collect()
    }

    fn to_move(game: &SampleGame) -> (u32, Power, String) {
        let (round, _, power) = game.log.turn_under_way().expect("a turn under way");
        (round, power, game.log.state.seats[&power].player.clone())
    }

    /// The token the "your move" mail of the turn under way carries.
    fn token_now(game: &SampleGame) -> ReplyToken {
        let (round, power, player) = to_move(game);
        issue(
            &key(),
            &TurnRef {
                game_id: GAME.to_owned(),
                round,
                power,
                player,
            },
        )
        .expect("a token")
    }

    fn plays_its_turn(game: &mut SampleGame) {
        let (_, power, player) = to_move(game);
        let orders = vec![NamedOrder::EndPhase; Phase::ALL.len()];
        let sender = Sender {
            role: Role::Player,
            name: player,
        };
        assert!(game.send(sender, Command::Orders { power, orders }));
    }

    fn letter<'a>(token: &'a ReplyToken, from: &'a str) -> Letter<'a> {
        Letter {
            token,
            from,
            dmarc: DmarcVerdict::NotChecked,
            anytime_only: false,
        }
    }

    fn decide(game: &SampleGame, letter: &Letter<'_>) -> Result<Writer, MailRefusal> {
        who_is_writing(&game.log, &key(), letter, &addresses(game), game.now)
    }

    #[test]
    fn given_the_seated_players_reply_when_taken_in_then_it_gives_the_powers_orders() {
        let game = a_new_game();
        let token = token_now(&game);
        let (_, power, player) = to_move(&game);
        let from = format!("  {} <{}@Example.ORG> ", player, player.to_uppercase());
        let writer = decide(&game, &letter(&token, &from)).expect("accepted");
        assert_eq!(writer.power, power);
        assert_eq!(
            writer.sender,
            Sender {
                role: Role::Player,
                name: player
            }
        );
    }

    #[test]
    fn given_a_reply_from_another_players_address_when_taken_in_then_it_is_refused_unnamed() {
        let game = a_new_game();
        let token = token_now(&game);
        let (_, power, player) = to_move(&game);
        let other = game
            .log
            .created
            .players
            .iter()
            .find(|p| **p != player)
            .expect("five players");
        let from = format!("{other}@example.org");
        let refused = decide(&game, &letter(&token, &from)).expect_err("not the seat");
        assert_eq!(refused, MailRefusal::NotTheSeat { power });
        assert_eq!(refused.code(), "not-the-seat");
        let words = refused.to_string();
        assert_eq!(
            words,
            format!(
                "this mail did not come from the address on file for {}'s player",
                power.name()
            )
        );
        assert!(!words.contains('@'), "{words}");
        let nobody = decide(&game, &letter(&token, "")).expect_err("no address");
        assert_eq!(nobody.code(), "not-the-seat");
    }

    #[test]
    fn given_a_forged_token_when_taken_in_then_it_is_refused_as_forged() {
        let game = a_new_game();
        let (round, power, player) = to_move(&game);
        let from = format!("{player}@example.org");
        let issued_to_another = issue(
            &key(),
            &TurnRef {
                game_id: GAME.to_owned(),
                round,
                power,
                player: "mallory".to_owned(),
            },
        )
        .expect("a token");
        let under_another_key = issue(
            &ReplyKey::from_bytes([4; 32]),
            &TurnRef {
                game_id: GAME.to_owned(),
                round,
                power,
                player: player.clone(),
            },
        )
        .expect("a token");
        for token in [issued_to_another, under_another_key] {
            let refused = decide(&game, &letter(&token, &from)).expect_err("forged");
            assert_eq!(refused, MailRefusal::ForgedToken);
            assert_eq!(refused.code(), "forged-token");
            assert!(refused.to_string().contains("forged or not yours"));
        }
    }

    #[test]
    fn given_a_token_of_another_game_when_taken_in_then_it_is_refused() {
        let game = a_new_game();
        let (round, power, player) = to_move(&game);
        let token = issue(
            &key(),
            &TurnRef {
                game_id: "ffffffffffffffffffffffffffffffff".to_owned(),
                round,
                power,
                player: player.clone(),
            },
        )
        .expect("a token");
        let from = format!("{player}@example.org");
        let refused = decide(&game, &letter(&token, &from)).expect_err("another game");
        assert_eq!(refused.code(), "another-game");
    }

    #[test]
    fn given_an_earlier_turns_token_when_taken_in_then_the_words_name_the_round_and_the_move() {
        let mut game = a_new_game();
        let old = token_now(&game);
        let (round, power, player) = to_move(&game);
        plays_its_turn(&mut game);
        let (_, next, _) = to_move(&game);
        let from = format!("{player}@example.org");
        let refused = decide(&game, &letter(&old, &from)).expect_err("an earlier turn");
        assert_eq!(refused.code(), "earlier-turn");
        assert_eq!(
            refused.to_string(),
            format!(
                "this was your turn of round {round} ({}); it is now {}'s move",
                power.name(),
                next.name()
            )
        );
    }

    #[test]
    fn given_standing_orders_only_when_sent_off_turn_then_they_are_taken() {
        let mut game = a_new_game();
        let old = token_now(&game);
        let (_, power, player) = to_move(&game);
        plays_its_turn(&mut game);
        let from = format!("{player}@example.org");
        let anytime = Letter {
            anytime_only: true,
            ..letter(&old, &from)
        };
        let writer = decide(&game, &anytime).expect("orders for any time");
        assert_eq!(writer.power, power);
        assert_eq!(writer.sender.name, player);
    }

    #[test]
    fn given_a_proxy_in_force_when_it_replies_from_its_own_address_then_it_writes_as_the_proxy() {
        let mut game = a_new_game();
        let (_, power, player) = to_move(&game);
        let proxy = game
            .log
            .created
            .players
            .iter()
            .find(|p| **p != player)
            .expect("five players")
            .clone();
        let until = game.now.plus_seconds(24 * 60 * 60);
        let named = game.send(
            Sender {
                role: Role::Player,
                name: player.clone(),
            },
            Command::NameProxy {
                power,
                proxy: proxy.clone(),
                until,
            },
        );
        assert!(named, "the proxy is named");
        let token = token_now(&game);
        let from = format!("{proxy}@example.org");
        let writer = decide(&game, &letter(&token, &from)).expect("the proxy writes");
        assert_eq!(
            writer.sender,
            Sender {
                role: Role::Player,
                name: proxy
            }
        );
        assert_eq!(writer.power, power);
        let after = who_is_writing(
            &game.log,
            &key(),
            &letter(&token, &from),
            &addresses(&game),
            until,
        );
        assert_eq!(
            after,
            Err(MailRefusal::NotTheSeat { power }),
            "the proxy ended"
        );
    }

    #[test]
    fn given_a_mail_its_domain_disowns_when_taken_in_then_it_is_refused() {
        let game = a_new_game();
        let token = token_now(&game);
        let (_, _, player) = to_move(&game);
        let from = format!("{player}@example.org");
        let failed = Letter {
            dmarc: DmarcVerdict::Fail,
            ..letter(&token, &from)
        };
        let refused = decide(&game, &failed).expect_err("DMARC failed");
        assert_eq!(refused, MailRefusal::DmarcFailed);
        assert_eq!(refused.code(), "dmarc-failed");
        assert_eq!(
            refused.to_string(),
            "the sender's domain says this mail did not come from it (DMARC)"
        );
        for dmarc in [DmarcVerdict::Pass, DmarcVerdict::None] {
            let checked = Letter {
                dmarc,
                ..letter(&token, &from)
            };
            assert!(decide(&game, &checked).is_ok(), "{}", dmarc.as_str());
        }
    }

    #[test]
    fn given_an_ended_game_when_a_reply_comes_then_it_is_refused_as_over() {
        let mut game = a_new_game();
        let token = token_now(&game);
        let (_, _, player) = to_move(&game);
        plays_its_turn(&mut game);
        assert!(game.end());
        let from = format!("{player}@example.org");
        let anytime = Letter {
            anytime_only: true,
            ..letter(&token, &from)
        };
        let refused = decide(&game, &anytime).expect_err("over");
        assert_eq!(refused.code(), "game-over");
        assert!(
            refused.to_string().starts_with("the game is over ("),
            "{refused}"
        );
    }

    #[test]
    fn every_refusal_has_its_own_code_and_words_without_an_address() {
        let refusals = [
            MailRefusal::BadToken(TokenError::NotHex),
            MailRefusal::AnotherGame,
            MailRefusal::ForgedToken,
            MailRefusal::GameOver(GameStatus::Voided),
            MailRefusal::EarlierTurn {
                round: 2,
                power: Power::Germany,
                now: Some((3, Power::Japan)),
            },
            MailRefusal::NotTheSeat {
                power: Power::Germany,
            },
            MailRefusal::DmarcFailed,
        ];
        let mut codes: Vec<&str> = refusals.iter().map(MailRefusal::code).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), refusals.len());
        for refusal in &refusals {
            let words = refusal.to_string();
            assert!(!words.contains('@') && words.is_ascii(), "{words}");
        }
        assert_eq!(
            refusals[4].to_string(),
            "this was your turn of round 2 (Germany); it is now Japan's move, in round 3"
        );
    }
}

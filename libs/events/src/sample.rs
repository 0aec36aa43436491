//! Sample games for tests and benchmarks: random orders played through the server's own
//! decision ([`GameLog::decide_command`]) and recorded as the server records them, each
//! command's `OrdersGiven` first, with a proper hash chain. No database.

use warlog_rules::dice::GameSeed;
use warlog_rules::game::autoplay::random_order;
use warlog_rules::game::named::NamedOrder;
use warlog_rules::game::Moment;
use warlog_rules::ruleset::Ruleset;

use crate::command::{ByMail, DmarcVerdict};
use crate::game::{GameLog, GameStreamEvent};
use crate::orders::{Command, DiceSupply, OrdersGiven, Refusal};
use crate::sender::{Role, Sender};
use crate::{relink, EventType, Hash, IdempotencyKey, RecordedEvent, StreamId};

/// A game being played and recorded.
#[derive(Debug)]
pub struct SampleGame {
    pub log: GameLog,
    pub seed: GameSeed,
    /// The stream so far, with the actor who wrote each event.
    pub stream: Vec<(GameStreamEvent, String)>,
    /// The time of the next command.
    pub now: Moment,
    /// How many random orders were tried and refused (the generator is not a player).
    pub refused: usize,
    choice: u64,
}

/// The game master every sample game has.
pub const GAME_MASTER: &str = "gm";

impl SampleGame {
    /// A new game of `ruleset` for five players, its seats drawn from `seed`.
    pub fn new(ruleset: &'static Ruleset, game_id: &str, seed: GameSeed, choice: u64) -> Self {
        let players = ["ann", "bob", "cy", "di", "ed"].map(String::from).to_vec();
        let now = Moment::from_unix_seconds(1_800_000_000);
        let created = GameLog::create(
            ruleset,
            game_id,
            players,
            GAME_MASTER.into(),
            None,
            now,
            &seed,
        )
        .expect("five players can sit down");
        let log = GameLog::new(created.clone()).expect("a new game folds");
        SampleGame {
            log,
            seed,
            stream: vec![(
                GameStreamEvent::Created(created),
                format!("gm:{GAME_MASTER}"),
            )],
            now,
            refused: 0,
            choice,
        }
    }

    /// Sends `command` as `sender`, as the server would; whether it was accepted.
    pub fn send(&mut self, sender: Sender, command: Command) -> bool {
        let sent = self.try_send(sender, command);
        if sent.is_err() {
            self.refused += 1;
        }
        sent.is_ok()
    }

    /// Sends `command` as `sender` a minute after the last, as the server would: recorded
    /// if accepted, the refusal if not.
    pub fn try_send(&mut self, sender: Sender, command: Command) -> Result<(), Refusal> {
        self.try_send_as(sender, command, None)
    }

    /// Sends `command` as `sender` by mail, as the server would decide a reply: the message
    /// is named by `message` (the SHA-256 of its Message-ID, in lowercase hex) and taken in
    /// half a minute before the command is decided; whether it was accepted.
    pub fn send_by_mail(&mut self, sender: Sender, command: Command, message: &str) -> bool {
        let by_mail = ByMail {
            message: message.to_owned(),
            received_at: self.now.plus_seconds(30),
            dmarc: DmarcVerdict::NotChecked,
        };
        let sent = self.try_send_as(sender, command, Some(by_mail));
        if sent.is_err() {
            self.refused += 1;
        }
        sent.is_ok()
    }

    /// Sends `command` as `sender` a minute after the last, by mail if `by_mail` says how.
    fn try_send_as(
        &mut self,
        sender: Sender,
        command: Command,
        by_mail: Option<ByMail>,
    ) -> Result<(), Refusal> {
        self.now = self.now.plus_seconds(60);
        let given = OrdersGiven {
            by_mail,
            ..OrdersGiven::new(sender.clone(), self.log.version, self.now, command)
        };
        let decided = self
            .log
            .decide_command(&given, DiceSupply::Seed(&self.seed))?;
        let actor = sender.actor();
        self.stream
            .extend(decided.events.into_iter().map(|e| (e, actor.clone())));
        self.log = decided.after;
        Ok(())
    }

    /// One random order from the player whose order it is; whether it was accepted.
    pub fn play_random_order(&mut self) -> bool {
        let (sender, command) = self.random_order();
        self.send(sender, command)
    }

    /// One random order from the player whose order it is, sent by mail as the message
    /// `message` names (see [`SampleGame::send_by_mail`]); whether it was accepted.
    pub fn play_random_order_by_mail(&mut self, message: &str) -> bool {
        let (sender, command) = self.random_order();
        self.send_by_mail(sender, command, message)
    }

    /// A random order and the player whose order it is, as they would send it.
    fn random_order(&mut self) -> (Sender, Command) {
        let rules = self.log.ruleset.rules();
        let mut choice = self.choice;
        let (power, order) =
            random_order(rules, &self.log.state, &mut |n| next_choice(&mut choice, n));
        self.choice = choice;
        let player = self
            .log
            .state
            .seats
            .get(&power)
            .map(|s| s.player.clone())
            .unwrap_or_default();
        let orders = vec![NamedOrder::of(&order, self.log.ruleset)];
        (
            Sender {
                role: Role::Player,
                name: player,
            },
            Command::Orders { power, orders },
        )
    }

    /// Plays random orders until the log holds at least `events` events (or `tries` run out).
    pub fn play_until(&mut self, events: usize, tries: usize) {
        for _ in 0..tries {
            if self.stream.len() >= events || self.log.state.ended.is_some() {
                break;
            }
            self.play_random_order();
        }
    }

    /// Plays random orders until the power to move has a battle to fight (in Cut-Throat's
    /// Battles phase), within `tries` orders: the place's board name.
    pub fn play_until_battle(&mut self, tries: usize) -> Option<String> {
        for _ in 0..tries {
            let state = &self.log.state;
            if state.ended.is_some() {
                return None;
            }
            if state.phase == warlog_rules::game::Phase::Battles {
                if let Some(place) = state.contested.keys().next() {
                    return Some(self.log.ruleset.board.get(*place).name.clone());
                }
            }
            self.play_random_order();
        }
        None
    }

    /// The game master ends the game (and so reveals the seed).
    pub fn end(&mut self) -> bool {
        self.send(
            Sender {
                role: Role::Gm,
                name: GAME_MASTER.into(),
            },
            Command::EndGame,
        )
    }

    /// The stream as an export holds it: versions, ids, metadata and the hash chain.
    pub fn recorded(&self) -> Vec<RecordedEvent> {
        record(&self.stream, &self.log.created.game_id)
    }
}

/// A linear congruential step: the generator's choices, repeatable from its start.
fn next_choice(state: &mut u64, n: usize) -> usize {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    ((*state >> 33) % n.max(1) as u64) as usize
}

/// Records events (with their actors) as stream `game-<id>`, chained. The events of a
/// command that came by mail carry its message's idempotency key, as the server writes
/// them (`mail-` and the message's hash, as its sender's).
pub fn record(stream: &[(GameStreamEvent, String)], game_id: &str) -> Vec<RecordedEvent> {
    let stream_id = StreamId::try_from(format!("game-{game_id}")).expect("a game stream id");
    let mut recorded = record_encoded(
        &stream_id,
        stream
            .iter()
            .map(|(event, actor)| (event.encode().expect("encodes"), actor.as_str())),
    );
    // A command's key is on every event of its append, up to the next command's record.
    let mut key: Option<IdempotencyKey> = None;
    let mut keyed = false;
    for ((event, actor), recorded) in stream.iter().zip(&mut recorded) {
        if let GameStreamEvent::Orders(given) = event {
            key = given.by_mail.as_ref().map(|mail| {
                IdempotencyKey::try_from(format!("mail-{}", mail.message))
                    .expect("a message's hash is a key")
                    .for_caller(actor)
            });
        }
        if let Some(key) = &key {
            recorded.metadata["idempotency_key"] = serde_json::json!(key.as_str());
            keyed = true;
        }
    }
    // The metadata is hashed: the chain is made again over the keys.
    if keyed {
        relink(&mut recorded);
    }
    recorded
}

/// Records encoded events (each with its actor) as `stream_id` holds them: versions, ids,
/// metadata and the hash chain.
pub fn record_encoded<'a>(
    stream_id: &StreamId,
    events: impl Iterator<Item = ((EventType, u32, serde_json::Value), &'a str)>,
) -> Vec<RecordedEvent> {
    let mut recorded: Vec<RecordedEvent> = events
        .enumerate()
        .map(
            |(i, ((event_type, event_version, payload), actor))| RecordedEvent {
                position: i as i64 + 1,
                stream_id: stream_id.clone(),
                stream_version: i as u64 + 1,
                event_id: uuid::Uuid::from_u128(i as u128 + 1),
                event_type,
                event_version,
                payload,
                metadata: serde_json::json!({
                    "actor": actor,
                    "recorded_at": "2027-01-15T12:00:00Z"
                }),
                tx_id: 0,
                prev_hash: Hash::genesis(stream_id),
                hash: Hash::genesis(stream_id),
            },
        )
        .collect();
    relink(&mut recorded);
    recorded
}

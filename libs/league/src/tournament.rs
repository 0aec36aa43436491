//! A tournament: the stream `tournament-<id>`. A director creates it, players enter (or
//! queue on the waiting list), each round is seated at tables that become games, inactive
//! seats go to substitutes, and the standings come from the tables' results.
//!
//! `decide(state, command, context)` gives the events, the tournament after them and the
//! commands its games are to decide on their own records; `apply(state, event)` folds.
//! Who may give each command is decided here too ([`Tournament::may_command`]), from the
//! sender the record names. Time, dice, new game ids and the games' results come in through
//! the context. The server and the auditor (`crate::audit`) decide with the same function.

use serde::{Deserialize, Serialize};
use warlog_events::sender::Sender;
use warlog_events::variant::{decode_variant, encode_variant};
use warlog_events::{EventDecodeError, EventType};
use warlog_rules::board::Power;
use warlog_rules::dice::{DiceSource, GameSeed};
use warlog_rules::game::Moment;

use crate::constraints::SeatingConstraints;
use crate::seating::{
    seat_round, shuffle, RoundSeating, SeatingRequest, ShortTablePolicy, TableSeating,
};
use standings::{seating_order, standings, GameResult};

/// Every tournament event type is at version 1 so far.
pub const TOURNAMENT_EVENT_VERSION: u32 = 1;

/// How standings break ties, in the director's order. A seeded draw always ends the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Tiebreaker {
    TotalPoints,
    TotalPercentGain,
    /// The most points in one game.
    BestResult,
    /// Among the tied players: who finished ahead of whom at shared tables.
    HeadToHead,
    /// The order drawn with the seed revealed at the finish (for older tournaments: the
    /// order drawn when the last round was seated). Before the finish nobody knows it, so
    /// players tied on everything else are shown tied.
    Draw,
}

impl Tiebreaker {
    /// The default order, as the league plays it.
    pub const DEFAULT: [Tiebreaker; 5] = [
        Tiebreaker::TotalPoints,
        Tiebreaker::TotalPercentGain,
        Tiebreaker::BestResult,
        Tiebreaker::HeadToHead,
        Tiebreaker::Draw,
    ];

    pub fn describe(self) -> &'static str {
        match self {
            Tiebreaker::TotalPoints => "total points",
            Tiebreaker::TotalPercentGain => "total percent gain",
            Tiebreaker::BestResult => "best single result",
            Tiebreaker::HeadToHead => "head-to-head",
            Tiebreaker::Draw => "the seeded draw",
        }
    }
}

/// The first event of a tournament.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentCreated {
    pub tournament_id: String,
    pub name: String,
    pub ruleset: String,
    pub rounds: u32,
    /// When each round's games are due, one per round.
    pub deadlines: Vec<Moment>,
    /// Players at a table: the ruleset's powers.
    pub table_size: u32,
    /// Points for 1st, 2nd, ... at a table; tied places share their average.
    pub points_per_place: Vec<i64>,
    /// Applied in order after total points; always ends with the draw.
    pub tiebreakers: Vec<Tiebreaker>,
    pub short_tables: ShortTablePolicy,
    /// The points of a bye.
    pub bye_points: i64,
    /// Entries beyond this go to the waiting list.
    pub capacity: Option<u32>,
    /// Players may enter until this round is seated (1: before the start only).
    pub late_entries_until_round: u32,
    /// SHA-256 of the tournament's seed, hex: every seating can be checked once revealed.
    pub seed_commitment: String,
    /// Whether the draw that breaks the last ties is taken at the finish, with the dice of
    /// the seed revealed then: committed at creation (the seed's commitment), unknown to
    /// anyone before the deciding games. Unset for older tournaments, whose last round's
    /// draw breaks the ties.
    #[serde(default, skip_serializing_if = "is_false")]
    pub tie_break_drawn_at_finish: bool,
    pub director: String,
    pub at: Moment,
}

/// A table of a round, and the game it became.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableGame {
    pub table: u32,
    pub game_id: String,
}

/// A round's seating, its games, and the draw order that breaks the last ties.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundSeated {
    pub round: u32,
    pub seating: RoundSeating,
    pub games: Vec<TableGame>,
    /// Every player entered, in an order drawn with the round's dice: it orders players
    /// tied on everything else when the next round is seated (byes go to the lowest). In a
    /// tournament whose tie-break is drawn at the finish, it does not order the standings.
    pub draw: Vec<String>,
    /// The stream version whose dice seated the round (the event's own).
    pub dice_version: u64,
    pub at: Moment,
    /// The director's constraints the round was seated under, with the reason.
    #[serde(default, skip_serializing_if = "SeatingConstraints::is_empty")]
    pub constraints: SeatingConstraints,
}

/// Two players of a round changed seats before its games began, by the director's word:
/// each took the other's table and power.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatsSwapped {
    pub round: u32,
    pub players: [String; 2],
    pub reason: String,
    pub at: Moment,
}

/// A substitute from the waiting list takes an inactive player's seat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubstituteAppointed {
    pub round: u32,
    pub game_id: String,
    pub power: Power,
    pub replaced: String,
    pub substitute: String,
    pub at: Moment,
}

/// One event of a tournament stream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum TournamentEvent {
    TournamentCreated(TournamentCreated),
    PlayerEntered {
        player: String,
        at: Moment,
    },
    PlayerWaitlisted {
        player: String,
        at: Moment,
    },
    PlayerDropped {
        player: String,
        at: Moment,
    },
    RoundSeated(Box<RoundSeated>),
    SeatsSwapped(SeatsSwapped),
    SubstituteAppointed(SubstituteAppointed),
    /// The seed, hex, revealed at the end: every seating and draw can now be checked.
    TournamentFinished {
        at: Moment,
        #[serde(default)]
        seed: Option<String>,
        /// Every player of the standings, in the order drawn with the revealed seed's dice
        /// for this event's version: the tie-break nothing could know before. Empty for
        /// older tournaments (their last round's draw breaks the ties).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        draw: Vec<String>,
    },
}

impl TournamentEvent {
    pub fn encode(&self) -> Result<(EventType, u32, serde_json::Value), EventDecodeError> {
        let (event_type, payload) = encode_variant(self)?;
        Ok((event_type, TOURNAMENT_EVENT_VERSION, payload))
    }

    pub fn decode(
        event_type: &str,
        event_version: u32,
        payload: &serde_json::Value,
    ) -> Result<TournamentEvent, EventDecodeError> {
        if event_version != TOURNAMENT_EVENT_VERSION {
            return Err(EventDecodeError::Payload(format!(
                "{event_type} version {event_version} is not known"
            )));
        }
        decode_variant(event_type, payload)
    }
}

/// Where an entrant stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntrantStatus {
    Playing,
    Dropped,
    /// Lost a seat to a substitute for inactivity.
    Replaced,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entrant {
    pub player: String,
    pub status: EntrantStatus,
}

/// A tournament folded from its events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tournament {
    pub created: TournamentCreated,
    pub version: u64,
    pub entrants: Vec<Entrant>,
    pub waiting: Vec<String>,
    pub rounds: Vec<RoundSeated>,
    /// The swaps and substitutions, in the order recorded: who holds a seat now follows
    /// them in this order ([`Tournament::swaps`] and [`Tournament::substitutions`] each).
    pub seat_changes: Vec<RecordedSeatChange>,
    pub finished: Option<Moment>,
    /// The seed, hex, once the tournament has finished.
    pub revealed_seed: Option<String>,
    /// The tie-break draw taken at the finish (empty before it, and for older tournaments).
    pub finish_draw: Vec<String>,
}

fn is_false(value: &bool) -> bool {
    !*value
}

/// A command refused, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct TournamentViolation {
    /// Stable: a line of the table in `tournament/refusal.rs`.
    pub code: RefusalCode,
    pub message: String,
}

/// Bytes as lowercase hex, as commitments and seeds are written.
pub fn hex_of(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub(crate) fn refuse<T>(
    code: RefusalCode,
    message: impl Into<String>,
) -> Result<T, TournamentViolation> {
    Err(TournamentViolation {
        code,
        message: message.into(),
    })
}

/// What a director or player asks of a tournament.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TournamentCommand {
    Enter {
        player: String,
    },
    Drop {
        player: String,
    },
    /// Seat the next round, under the director's constraints (none: the search alone).
    SeatRound(SeatingConstraints),
    /// Before any game of the round has an order: two players of the latest round change
    /// seats (each takes the other's table and power), for the director's reason.
    SwapSeats {
        players: [String; 2],
        reason: String,
    },
    /// Give the seat of `replaced` (at `power` in `game_id`) to `substitute`, or to the
    /// first on the waiting list.
    Substitute {
        game_id: String,
        power: Power,
        replaced: String,
        substitute: Option<String>,
    },
    /// Finish, revealing the seed (it must match the commitment).
    Finish {
        seed: GameSeed,
    },
}

impl TournamentCommand {
    /// Seat the next round with no constraints.
    pub fn seat_round() -> TournamentCommand {
        TournamentCommand::SeatRound(SeatingConstraints::default())
    }
}

/// What a decision needs from outside.
#[allow(missing_debug_implementations)]
pub struct Context<'a> {
    /// Who gives the command, as the record names them.
    pub sender: &'a Sender,
    pub at: Moment,
    /// The seed's dice for the version of the first event appended.
    pub dice: &'a mut dyn DiceSource,
    /// The results of the tournament's games so far (running games: not ended).
    pub results: &'a [GameResult],
    /// The powers at a table, in the ruleset's order.
    pub powers: &'a [Power],
    /// A fresh game id for each table.
    pub new_game_id: &'a mut dyn FnMut() -> String,
}

/// A decided command: the tournament's events, the tournament after them (applied once,
/// here), and what its games are to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decided {
    pub events: Vec<TournamentEvent>,
    pub after: Tournament,
    pub game_commands: Vec<GameCommand>,
}

impl Tournament {
    pub fn new(created: TournamentCreated) -> Tournament {
        Tournament {
            created,
            version: 1,
            entrants: Vec::new(),
            waiting: Vec::new(),
            rounds: Vec::new(),
            seat_changes: Vec::new(),
            finished: None,
            revealed_seed: None,
            finish_draw: Vec::new(),
        }
    }

    /// The order that breaks the ties nothing else does in the standings: the draw taken at
    /// the finish (none before it), or, for an older tournament, its last round's draw.
    pub fn tie_break_draw(&self) -> &[String] {
        if self.created.tie_break_drawn_at_finish {
            &self.finish_draw
        } else {
            self.last_round_draw()
        }
    }

    /// The draw of the latest round seated (none before the first).
    pub(crate) fn last_round_draw(&self) -> &[String] {
        self.rounds.last().map_or(&[], |r| r.draw.as_slice())
    }

    /// The tie-break draw a finish revealing `seed` takes: every player of the standings,
    /// in name order, shuffled with the seed's dice for the finishing event's version.
    fn draw_at_finish(&self, seed: &GameSeed, results: &[GameResult]) -> Vec<String> {
        let mut draw: Vec<String> = standings(self, results)
            .into_iter()
            .map(|row| row.player)
            .collect();
        draw.sort();
        let mut dice = seed.dice_for(&self.created.tournament_id, self.version + 1);
        shuffle(&mut draw, &mut dice);
        draw
    }

    fn is_entered(&self, player: &str) -> bool {
        self.entrants
            .iter()
            .any(|e| e.player == player && e.status == EntrantStatus::Playing)
    }

    /// Players still playing, in entry order.
    pub fn playing(&self) -> Vec<String> {
        self.entrants
            .iter()
            .filter(|e| e.status == EntrantStatus::Playing)
            .map(|e| e.player.clone())
            .collect()
    }

    /// The round that would be seated next (1-based).
    pub fn next_round(&self) -> u32 {
        u32::try_from(self.rounds.len()).unwrap_or(u32::MAX) + 1
    }

    /// Decides `command`: its sender's right to give it, then the rules; the events, the
    /// tournament after them, and the commands for its games.
    pub fn decide(
        &self,
        command: &TournamentCommand,
        context: &mut Context<'_>,
    ) -> Result<Decided, TournamentViolation> {
        self.may_command(context.sender, command)?;
        let events = self.decide_events(command, context)?;
        let game_commands = self.game_commands(&events)?;
        let mut after = self.clone();
        for event in &events {
            after.apply(event);
        }
        // Powers by the draw (`draw.rs`) and one seat each hold of the tables as played
        // after the events, whatever the chain of changes that led to them.
        for event in &events {
            if let TournamentEvent::SeatsSwapped(swapped) = event {
                after.keeps_the_draw(swapped)?;
            }
        }
        after.one_seat_each()?;
        Ok(Decided {
            events,
            after,
            game_commands,
        })
    }

    fn decide_events(
        &self,
        command: &TournamentCommand,
        context: &mut Context<'_>,
    ) -> Result<Vec<TournamentEvent>, TournamentViolation> {
        if self.finished.is_some() {
            return refuse(
                RefusalCode::TournamentFinished,
                "the tournament has finished",
            );
        }
        let at = context.at;
        match command {
            TournamentCommand::Enter { player } => {
                if self.is_entered(player) || self.waiting.contains(player) {
                    return refuse(
                        RefusalCode::AlreadyEntered,
                        format!("{player} is already entered or waiting"),
                    );
                }
                if let Some(game_id) = self.running_seat_of(player, context.results) {
                    return refuse(
                        RefusalCode::SeatedThisRound,
                        format!(
                            "{player} still holds a seat in game {game_id} of this round: a \
                             player dropped while seated enters again once the round's games \
                             have ended"
                        ),
                    );
                }
                let full = self
                    .created
                    .capacity
                    .is_some_and(|cap| self.playing().len() >= cap as usize);
                let late = self.next_round() > self.created.late_entries_until_round;
                Ok(vec![if full || late {
                    TournamentEvent::PlayerWaitlisted {
                        player: player.clone(),
                        at,
                    }
                } else {
                    TournamentEvent::PlayerEntered {
                        player: player.clone(),
                        at,
                    }
                }])
            }
            TournamentCommand::Drop { player } => {
                if !self.is_entered(player) && !self.waiting.contains(player) {
                    return refuse(
                        RefusalCode::NotEntered,
                        format!("{player} is not entered in this tournament"),
                    );
                }
                Ok(vec![TournamentEvent::PlayerDropped {
                    player: player.clone(),
                    at,
                }])
            }
            TournamentCommand::SeatRound(constraints) => self.seat(constraints, context),
            TournamentCommand::SwapSeats { players, reason } => {
                self.swap(players, reason, context.results, at)
            }
            TournamentCommand::Substitute {
                game_id,
                power,
                replaced,
                substitute,
            } => self.substitute(game_id, *power, replaced, substitute.as_ref(), at),
            TournamentCommand::Finish { seed } => {
                if hex_of(&seed.commitment()) != self.created.seed_commitment {
                    return refuse(
                        RefusalCode::SeedMismatch,
                        "the seed given does not match the tournament's commitment",
                    );
                }
                let unplayed = self.created.rounds as usize - self.rounds.len();
                if unplayed > 0 {
                    return refuse(
                        RefusalCode::RoundsLeft,
                        format!("{unplayed} rounds are still to be seated"),
                    );
                }
                self.all_games_ended(context.results)?;
                let draw = if self.created.tie_break_drawn_at_finish {
                    self.draw_at_finish(seed, context.results)
                } else {
                    Vec::new()
                };
                Ok(vec![TournamentEvent::TournamentFinished {
                    at,
                    seed: Some(hex_of(seed.expose())),
                    draw,
                }])
            }
        }
    }

    /// A substitute from the waiting list (the first, unless named) for a player seated in
    /// one of the tournament's games.
    fn substitute(
        &self,
        game_id: &str,
        power: Power,
        replaced: &str,
        substitute: Option<&String>,
        at: Moment,
    ) -> Result<Vec<TournamentEvent>, TournamentViolation> {
        let Some(round) = self
            .rounds
            .iter()
            .find(|r| r.games.iter().any(|g| g.game_id == game_id))
        else {
            return refuse(
                RefusalCode::NotATournamentGame,
                format!("game {game_id} is not one of this tournament's"),
            );
        };
        let seated = self
            .tables_as_played()
            .get(round.round as usize - 1)
            .zip(round.games.iter().find(|g| g.game_id == game_id))
            .and_then(|(tables, game)| tables.iter().find(|t| t.table == game.table))
            .is_some_and(|t| {
                t.seats
                    .iter()
                    .any(|(p, who)| *p == power && who == replaced)
            });
        if !seated {
            return refuse(
                RefusalCode::NotSeated,
                format!(
                    "{replaced} does not hold {} in game {game_id}",
                    power.name()
                ),
            );
        }
        let substitute = match substitute {
            Some(s) if self.waiting.contains(s) => s.clone(),
            Some(s) => {
                return refuse(
                    RefusalCode::NotWaiting,
                    format!("{s} is not on the waiting list; substitutes come from it"),
                )
            }
            None => match self.waiting.first() {
                Some(first) => first.clone(),
                None => return refuse(RefusalCode::WaitingListEmpty, "the waiting list is empty"),
            },
        };
        Ok(vec![TournamentEvent::SubstituteAppointed(
            SubstituteAppointed {
                round: round.round,
                game_id: game_id.to_owned(),
                power,
                replaced: replaced.to_owned(),
                substitute,
                at,
            },
        )])
    }

    /// The running game of the latest round in which `player` holds a seat, as played.
    fn running_seat_of(&self, player: &str, results: &[GameResult]) -> Option<String> {
        let round = self.rounds.last()?;
        let tables = self.round_as_played(round);
        let table = tables
            .iter()
            .find(|t| t.seats.iter().any(|(_, who)| who == player))?;
        let game = round.games.iter().find(|g| g.table == table.table)?;
        let ended = results.iter().any(|r| r.game_id == game.game_id && r.ended);
        (!ended).then(|| game.game_id.clone())
    }

    /// One seat per player per game: no game, as played, seats a player twice (a
    /// substitute or a swap that would is refused, whatever the chain that led to it).
    fn one_seat_each(&self) -> Result<(), TournamentViolation> {
        for (round, tables) in self.rounds.iter().zip(self.tables_as_played()) {
            for table in &tables {
                let mut players: Vec<&str> = table.seats.iter().map(|(_, p)| p.as_str()).collect();
                players.sort_unstable();
                if let Some(twice) = players.windows(2).find(|w| w[0] == w[1]) {
                    let game = round
                        .games
                        .iter()
                        .find(|g| g.table == table.table)
                        .map_or("", |g| g.game_id.as_str());
                    return refuse(
                        RefusalCode::SeatedTwice,
                        format!(
                            "{} would hold two seats in game {game} (round {}, table {}): one \
                             seat per player per game",
                            twice[0], round.round, table.table
                        ),
                    );
                }
            }
        }
        Ok(())
    }

    fn all_games_ended(&self, results: &[GameResult]) -> Result<(), TournamentViolation> {
        let running: Vec<&str> = self
            .rounds
            .iter()
            .flat_map(|r| &r.games)
            .filter(|g| {
                !results
                    .iter()
                    .any(|result| result.game_id == g.game_id && result.ended)
            })
            .map(|g| g.game_id.as_str())
            .collect();
        if running.is_empty() {
            Ok(())
        } else {
            refuse(
                RefusalCode::GamesRunning,
                format!(
                    "round {} still has games running: {}",
                    self.rounds.len(),
                    running.join(", ")
                ),
            )
        }
    }

    fn seat(
        &self,
        constraints: &SeatingConstraints,
        context: &mut Context<'_>,
    ) -> Result<Vec<TournamentEvent>, TournamentViolation> {
        let round = self.next_round();
        if round > self.created.rounds {
            return refuse(
                RefusalCode::RoundsDone,
                format!("all {} rounds are seated", self.created.rounds),
            );
        }
        self.all_games_ended(context.results)?;
        if context.powers.len() != self.created.table_size as usize {
            return refuse(
                RefusalCode::BadTableSize,
                format!(
                    "the ruleset seats {} at a table, the tournament {}",
                    context.powers.len(),
                    self.created.table_size
                ),
            );
        }
        // Best-ranked first, so that byes go to the lowest.
        let ranked: Vec<String> = seating_order(self, context.results)
            .into_iter()
            .filter(|row| self.is_entered(&row.player))
            .map(|row| row.player)
            .collect();
        let history = self.tables_as_played();
        let had_bye: Vec<String> = self
            .rounds
            .iter()
            .flat_map(|r| r.seating.byes.iter().map(|b| b.player.clone()))
            .collect();
        let seating = seat_round(
            &SeatingRequest {
                players: &ranked,
                waiting: &self.waiting,
                history: &history,
                had_bye: &had_bye,
                powers: context.powers,
                policy: self.created.short_tables,
                bye_points: self.created.bye_points,
                constraints,
            },
            context.dice,
        )
        .map_err(|e| TournamentViolation {
            code: RefusalCode::CannotSeat,
            message: e.0,
        })?;
        let mut draw: Vec<String> = ranked.iter().chain(&seating.promoted).cloned().collect();
        draw.sort();
        shuffle(&mut draw, context.dice);
        let games = seating
            .tables
            .iter()
            .map(|t| TableGame {
                table: t.table,
                game_id: (context.new_game_id)(),
            })
            .collect();
        Ok(vec![TournamentEvent::RoundSeated(Box::new(RoundSeated {
            round,
            seating,
            games,
            draw,
            dice_version: self.version + 1,
            at: context.at,
            constraints: constraints.clone(),
        }))])
    }

    /// Two players of the latest round change seats, before any of its games has an order:
    /// two players of different tables. Whether the result keeps powers by the draw (a
    /// player at the table they were drawn to holds the power drawn) is decided on the
    /// tables after it ([`Tournament::decide`], `draw.rs`).
    fn swap(
        &self,
        players: &[String; 2],
        reason: &str,
        results: &[GameResult],
        at: Moment,
    ) -> Result<Vec<TournamentEvent>, TournamentViolation> {
        let Some(round) = self.rounds.last() else {
            return refuse(RefusalCode::NoRound, "no round is seated yet");
        };
        let reason = reason.trim();
        if reason.is_empty() || reason.chars().count() > 500 || reason.chars().any(char::is_control)
        {
            return refuse(
                RefusalCode::BadReason,
                "give the reason for the swap: one line of at most 500 characters",
            );
        }
        let [a, b] = players;
        if a == b {
            return refuse(
                RefusalCode::SamePlayer,
                format!("{a} is named twice: a swap is between two players"),
            );
        }
        let tables = self.round_as_played(round);
        let table_of = |player: &str| {
            tables
                .iter()
                .find(|t| t.seats.iter().any(|(_, who)| who == player))
                .map(|t| t.table)
        };
        let (Some(ta), Some(tb)) = (table_of(a), table_of(b)) else {
            let missing = if table_of(a).is_none() { a } else { b };
            return refuse(
                RefusalCode::NotSeated,
                format!("{missing} has no seat in round {}", round.round),
            );
        };
        if ta == tb {
            return refuse(
                RefusalCode::SameTable,
                format!("{a} and {b} both sit at table {ta}: a swap is between two tables"),
            );
        }
        let begun: Vec<&str> = round
            .games
            .iter()
            .filter(|g| results.iter().any(|r| r.game_id == g.game_id && r.begun))
            .map(|g| g.game_id.as_str())
            .collect();
        if !begun.is_empty() {
            return refuse(
                RefusalCode::RoundBegun,
                format!(
                    "round {} has begun: game {} has an order, so its seats stand",
                    round.round,
                    begun.join(", ")
                ),
            );
        }
        Ok(vec![TournamentEvent::SeatsSwapped(SeatsSwapped {
            round: round.round,
            players: players.clone(),
            reason: reason.to_owned(),
            at,
        })])
    }

    pub fn apply(&mut self, event: &TournamentEvent) {
        self.version += 1;
        match event {
            TournamentEvent::TournamentCreated(_) => {}
            TournamentEvent::PlayerEntered { player, .. } => {
                self.waiting.retain(|w| w != player);
                self.entrants.push(Entrant {
                    player: player.clone(),
                    status: EntrantStatus::Playing,
                });
            }
            TournamentEvent::PlayerWaitlisted { player, .. } => self.waiting.push(player.clone()),
            TournamentEvent::PlayerDropped { player, .. } => {
                self.waiting.retain(|w| w != player);
                self.set_status(player, EntrantStatus::Dropped);
            }
            TournamentEvent::RoundSeated(seated) => {
                for player in &seated.seating.promoted {
                    self.waiting.retain(|w| w != player);
                    self.entrants.push(Entrant {
                        player: player.clone(),
                        status: EntrantStatus::Playing,
                    });
                }
                self.rounds.push((**seated).clone());
            }
            TournamentEvent::SeatsSwapped(swapped) => self
                .seat_changes
                .push(RecordedSeatChange::Swap(swapped.clone())),
            TournamentEvent::SubstituteAppointed(appointed) => {
                self.waiting.retain(|w| w != &appointed.substitute);
                self.set_status(&appointed.replaced, EntrantStatus::Replaced);
                self.entrants.push(Entrant {
                    player: appointed.substitute.clone(),
                    status: EntrantStatus::Playing,
                });
                self.seat_changes
                    .push(RecordedSeatChange::Substitute(appointed.clone()));
            }
            TournamentEvent::TournamentFinished { at, seed, draw } => {
                self.finished = Some(*at);
                self.revealed_seed.clone_from(seed);
                self.finish_draw.clone_from(draw);
            }
        }
    }

    fn set_status(&mut self, player: &str, status: EntrantStatus) {
        for entrant in &mut self.entrants {
            if entrant.player == player {
                entrant.status = status;
            }
        }
    }

    /// Folds a stream; the first event must create the tournament.
    pub fn fold<'a>(
        events: impl IntoIterator<Item = &'a TournamentEvent>,
    ) -> Result<Tournament, String> {
        let mut events = events.into_iter();
        let Some(TournamentEvent::TournamentCreated(created)) = events.next() else {
            return Err("a tournament stream starts with TournamentCreated".to_owned());
        };
        let mut tournament = Tournament::new(created.clone());
        for event in events {
            tournament.apply(event);
        }
        Ok(tournament)
    }

    /// Each round's tables with the director's swaps made and the substitutes in the seats
    /// they took, in the order recorded: who actually met whom, and who played which power.
    pub fn tables_as_played(&self) -> Vec<Vec<TableSeating>> {
        self.rounds
            .iter()
            .map(|r| self.round_as_played(r))
            .collect()
    }

    /// One round's tables as played (see [`Tournament::tables_as_played`]).
    pub(crate) fn round_as_played(&self, round: &RoundSeated) -> Vec<TableSeating> {
        self.seats_since_the_draw(round)
            .into_iter()
            .map(|t| TableSeating {
                table: t.table,
                seats: t.seats.into_iter().map(|s| (s.power, s.now)).collect(),
            })
            .collect()
    }

    /// The round and table of a game of this tournament.
    pub fn table_of(&self, game_id: &str) -> Option<(u32, u32)> {
        self.rounds.iter().find_map(|r| {
            r.games
                .iter()
                .find(|g| g.game_id == game_id)
                .map(|g| (r.round, g.table))
        })
    }
}

mod authority;
mod draw;
mod games;
mod refusal;
pub mod standings;

pub use draw::{
    RecordedSeatChange, SeatChange, SeatChangeKind, SeatSinceTheDraw, TableSinceTheDraw,
};
pub use games::GameCommand;
pub use refusal::RefusalCode;

#[cfg(test)]
mod tests;

#[cfg(test)]
mod command_tests;

#[cfg(test)]
mod tie_break_tests;

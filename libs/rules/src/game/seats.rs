//! Who plays each power, and the end of the game: the director's (or GM's) side.
//!
//! Time comes from the events (every phase's end records when it ended), never from a clock
//! in here: a director's order carries the moment it was given.
//!
//! - A player whose turn is due and who has been inactive for more than 3 days is replaced
//!   from the waiting list; a substitute who plays two rounds becomes permanent.
//! - "Victory is when fighting ceases": the director ends the game, and the final IPC counts
//!   give percent gains, places and points.

use super::{violation, GameEvent, GameState, RuleViolation, Rules};
use crate::board::Power;
use crate::game::ViolationCode;
use crate::scoring::{placements, Placement, PointsTable, ScoringError};

const PLAYERS: &str = "Cut-Throat, Rules for players";

/// A moment, in whole seconds since the Unix epoch.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Default,
    serde::Serialize,
    serde::Deserialize,
)]
pub struct Moment(u64);

impl Moment {
    pub const fn from_unix_seconds(seconds: u64) -> Moment {
        Moment(seconds)
    }

    pub fn unix_seconds(self) -> u64 {
        self.0
    }

    pub fn plus_seconds(self, seconds: u64) -> Moment {
        Moment(self.0.saturating_add(seconds))
    }
}

/// How long a player may leave a due turn before a substitute is appointed.
pub const INACTIVITY_LIMIT_SECONDS: u64 = 3 * 24 * 60 * 60;

/// How long a due turn has waited, and whether its player is inactive: a substitute may
/// take the seat once the turn has waited more than 3 days (Cut-Throat, Rules for
/// players). The director's order, the game's "Now" and the tournament's list of inactive
/// seats all read it from here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TurnWaiting {
    /// When the game last moved on: the last phase's end, or its seating.
    pub since: Moment,
    /// Seconds from `since` to the moment asked about (none if that is earlier).
    pub idle_seconds: u64,
}

impl TurnWaiting {
    /// The turn due since `since`, as of `now`.
    pub fn between(since: Moment, now: Moment) -> TurnWaiting {
        TurnWaiting {
            since,
            idle_seconds: now.unix_seconds().saturating_sub(since.unix_seconds()),
        }
    }

    /// When a turn due since `since` is open to a substitute.
    pub fn substitute_after(since: Moment) -> Moment {
        since.plus_seconds(INACTIVITY_LIMIT_SECONDS)
    }

    /// When this turn is open to a substitute.
    pub fn due_at(&self) -> Moment {
        TurnWaiting::substitute_after(self.since)
    }

    /// Whether a substitute may take the seat: more than 3 days have passed.
    pub fn open_to_substitute(&self) -> bool {
        self.idle_seconds > INACTIVITY_LIMIT_SECONDS
    }

    /// The whole hours waited.
    pub fn idle_hours(&self) -> u64 {
        self.idle_seconds / 3600
    }
}
/// Rounds a substitute plays to become the permanent player.
pub const ROUNDS_TO_PERMANENT: u32 = 2;

/// Who plays a power.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seat {
    pub player: String,
    /// Set while the player is a substitute: the turns played since appointed.
    pub substitute_turns: Option<u32>,
    /// Set while the player is a substitute not yet permanent: the player they replaced,
    /// who keeps the seat's result until the substitute has played two rounds in it.
    pub replaced: Option<String>,
    /// The players who held the seat and lost it for inactivity to a substitute who
    /// became permanent, in that order: each takes last place's result for it.
    pub forfeited: Vec<String>,
}

impl Seat {
    /// Who takes the seat's result, and who (having been replaced for inactivity) takes
    /// last place's result for it. "If the substitute plays two rounds, he becomes the
    /// permanent player": until then the seat's result is the replaced player's and the
    /// substitute takes nothing from it; after, the seat's result is the substitute's and
    /// the replaced player takes last place's, so that going idle never improves a result.
    /// A permanent substitute replaced in turn forfeits the same way, as does everyone
    /// who lost the seat before them.
    pub fn scored_by(&self) -> (&str, Vec<&str>) {
        let scorer = self.replaced.as_deref().unwrap_or(&self.player);
        (scorer, self.forfeited.iter().map(String::as_str).collect())
    }
}

/// What a director or GM orders.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum DirectorOrder {
    /// Seat the players (from the game's power draw).
    AssignSeats(Vec<(Power, String)>),
    /// Appoint a substitute for the player whose turn is due and who has been inactive.
    ReplaceInactivePlayer { substitute: String },
    /// Fighting has ceased: the game ends and is scored.
    EndGame,
    /// The game should not count (nothing played, abandoned): it ends with no placements
    /// and no points, for this reason.
    VoidGame { reason: String },
    /// Before the game begins, `power`'s seat goes to `player` (a tournament's swap), for
    /// this reason. Whether the game has begun is the log's to say.
    TakeSeat {
        power: Power,
        player: String,
        reason: String,
    },
}

/// Checks a director's order given at `at`.
pub fn decide_director(
    rules: Rules<'_>,
    state: &GameState,
    order: &DirectorOrder,
    at: Moment,
) -> Result<Vec<GameEvent>, RuleViolation> {
    if let Some(over) = game_over_for(state) {
        return Err(over);
    }
    match order {
        DirectorOrder::AssignSeats(seats) => {
            let mut powers: Vec<Power> = seats.iter().map(|(p, _)| *p).collect();
            powers.sort();
            powers.dedup();
            if powers.len() != seats.len() || !one_seat_a_player(seats.iter().map(|(_, who)| who)) {
                return Err(violation(
                    ViolationCode::BadSeats,
                    PLAYERS,
                    "each power is seated once, with a named player, and each player once",
                ));
            }
            Ok(vec![GameEvent::SeatsAssigned {
                seats: seats.clone(),
                at,
            }])
        }
        DirectorOrder::ReplaceInactivePlayer { substitute } => {
            let power = state.to_act(rules);
            let waiting = TurnWaiting::between(state.last_progress_at.unwrap_or_default(), at);
            if !waiting.open_to_substitute() {
                return Err(violation(
                    ViolationCode::PlayerActive,
                    PLAYERS,
                    format!(
                        "{power}'s turn has been due for {} hours; a substitute comes after more than 3 days",
                        waiting.idle_hours()
                    ),
                ));
            }
            if substitute.is_empty() {
                return Err(violation(
                    ViolationCode::BadSeats,
                    PLAYERS,
                    "name the substitute from the waiting list",
                ));
            }
            one_seat_each(state, power, substitute)?;
            Ok(vec![GameEvent::PlayerReplaced {
                power,
                replaced: state.seats.get(&power).map(|s| s.player.clone()),
                substitute: substitute.clone(),
                at,
            }])
        }
        DirectorOrder::TakeSeat {
            power,
            player,
            reason,
        } => {
            let Some(seat) = state.seats.get(power) else {
                return Err(violation(
                    ViolationCode::BadSeats,
                    PLAYERS,
                    format!("{} has no seat in this game", power.name()),
                ));
            };
            if player.is_empty() || reason.trim().is_empty() {
                return Err(violation(
                    ViolationCode::BadSeats,
                    PLAYERS,
                    "name the player who takes the seat, and why",
                ));
            }
            one_seat_each(state, *power, player)?;
            Ok(vec![GameEvent::SeatTaken {
                power: *power,
                replaced: Some(seat.player.clone()),
                player: player.clone(),
                reason: reason.trim().to_owned(),
                at,
            }])
        }
        DirectorOrder::VoidGame { reason } => {
            let reason = reason.trim();
            if reason.is_empty() {
                return Err(violation(
                    ViolationCode::VoidWithoutReason,
                    PLAYERS,
                    "say why the game is voided: the reason goes on the record",
                ));
            }
            Ok(vec![GameEvent::GameVoided {
                at,
                reason: reason.to_owned(),
            }])
        }
        DirectorOrder::EndGame => Ok(vec![GameEvent::GameEnded {
            at,
            final_ipc: rules
                .board
                .turn_order()
                .iter()
                .map(|p| (*p, state.ipc_count(rules.board, *p)))
                .collect(),
        }]),
    }
}

/// One seat per player per game: `player` may take `power`'s seat only if they hold no
/// other (a player seated twice would give orders for two powers and be placed twice).
fn one_seat_each(state: &GameState, power: Power, player: &str) -> Result<(), RuleViolation> {
    // A seat left for inactivity counts too, this one included: its result is still the
    // player's, or their forfeit of it is (back in it, they would be scored twice).
    let left = |seat: &Seat| {
        seat.replaced.as_deref() == Some(player) || seat.forfeited.iter().any(|f| f == player)
    };
    if state.seats.get(&power).is_some_and(left) {
        return Err(violation(
            ViolationCode::BadSeats,
            PLAYERS,
            format!(
                "{player} was replaced at {} for inactivity and is scored for it already: \
                 one seat per player",
                power.name()
            ),
        ));
    }
    let other = state
        .seats
        .iter()
        .find(|(p, seat)| **p != power && (seat.player == player || left(seat)));
    match other {
        Some((held, _)) => Err(violation(
            ViolationCode::BadSeats,
            PLAYERS,
            format!(
                "{player} already holds {} in this game: one seat per player",
                held.name()
            ),
        )),
        None => Ok(()),
    }
}

/// Seats `players` (in the order given) at the powers by a random draw: a Fisher-Yates
/// shuffle of the powers, each pick one die rolled until it shows no more than the powers
/// left to pick from. These are the first dice of a game's seed (docs/design.md, "The dice"), so
/// an auditor can draw them again.
pub fn draw_seats(
    powers: &[Power],
    players: &[String],
    dice: &mut dyn crate::dice::DiceSource,
) -> Result<Vec<(Power, String)>, RuleViolation> {
    check_seats(powers, players)?;
    let mut drawn = powers.to_vec();
    for last in (1..drawn.len()).rev() {
        let choices = last + 1;
        let pick = loop {
            let die = usize::from(dice.roll().value());
            if die <= choices {
                break die - 1;
            }
        };
        drawn.swap(last, pick);
    }
    Ok(drawn.into_iter().zip(players.iter().cloned()).collect())
}

/// One player a power, and no more than a die can draw among; each player named, once.
fn check_seats(powers: &[Power], players: &[String]) -> Result<(), RuleViolation> {
    if players.len() != powers.len() || powers.len() > 6 {
        return Err(violation(
            ViolationCode::BadSeats,
            PLAYERS,
            format!(
                "this ruleset seats {} players, one a power; {} were named",
                powers.len(),
                players.len()
            ),
        ));
    }
    if !one_seat_a_player(players) {
        return Err(violation(
            ViolationCode::BadSeats,
            PLAYERS,
            "each player is named, and once: one seat per player",
        ));
    }
    Ok(())
}

/// Every player named, and none twice: one seat per player per game.
fn one_seat_a_player<'a>(players: impl IntoIterator<Item = &'a String>) -> bool {
    let mut seen = std::collections::BTreeSet::new();
    players
        .into_iter()
        .all(|p| !p.is_empty() && seen.insert(p.as_str()))
}

/// Seats players by their bids for the survivor (AAP Historical, 9.1): the lowest bid
/// plays `survivor` (a draw among equal lowest bids), and the others are drawn as
/// [`draw_seats`] draws them. `bids` go with `players`, in order.
pub fn draw_seats_by_bid(
    powers: &[Power],
    players: &[String],
    bids: &[u32],
    survivor: Power,
    dice: &mut dyn crate::dice::DiceSource,
) -> Result<Vec<(Power, String)>, RuleViolation> {
    let lowest = bids.iter().min().copied();
    if bids.len() != players.len() || !powers.contains(&survivor) || lowest.is_none() {
        return Err(violation(
            ViolationCode::BadBids,
            "AAP Historical, 9.1",
            format!(
                "one bid a player: {} players, {} bids",
                players.len(),
                bids.len()
            ),
        ));
    }
    // Checked before the tie is rolled off, so that no refusal follows a die.
    check_seats(powers, players)?;
    let tied: Vec<usize> = (0..players.len())
        .filter(|i| Some(bids[*i]) == lowest)
        .collect();
    let pick = if tied.len() > 1 {
        loop {
            let die = usize::from(dice.roll().value());
            if die <= tied.len() {
                break tied[die - 1];
            }
        }
    } else {
        tied[0]
    };
    let others: Vec<Power> = powers.iter().copied().filter(|p| *p != survivor).collect();
    let rest: Vec<String> = players
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != pick)
        .map(|(_, p)| p.clone())
        .collect();
    let mut seats = vec![(survivor, players[pick].clone())];
    seats.extend(draw_seats(&others, &rest, dice)?);
    Ok(seats)
}

/// What a refusal cites once the game is over: the record that ended it, not a rule of play.
const ENDED: &str = "the game's end, on its record";
const VOIDED: &str = "the game's void, on its record";

pub(super) fn game_over() -> RuleViolation {
    violation(
        ViolationCode::GameOver,
        ENDED,
        "the game has ended: fighting has ceased",
    )
}

/// Why no order is taken any more, if the game is over (ended or voided).
pub fn game_over_for(state: &GameState) -> Option<RuleViolation> {
    if let Some(reason) = &state.voided {
        return Some(violation(
            ViolationCode::GameOver,
            VOIDED,
            format!("the game was voided: {reason}"),
        ));
    }
    state.ended.is_some().then(game_over)
}

impl GameState {
    /// Places and points from the final IPC counts (once the game has ended).
    pub fn placements(
        &self,
        rules: Rules<'_>,
        points: &PointsTable,
    ) -> Option<Result<Vec<Placement<Power>>, ScoringError>> {
        let ended = self.ended.as_ref()?;
        let results: Vec<(Power, u32, u32)> = rules
            .board
            .turn_order()
            .iter()
            .map(|p| {
                let final_count = ended.iter().find(|(q, _)| q == p).map_or(0, |(_, n)| *n);
                (
                    *p,
                    self.starting_ipc.get(p).copied().unwrap_or(0),
                    final_count,
                )
            })
            .collect();
        Some(match rules.special.survival {
            None if rules.special.zone_points => {
                crate::scoring::placements_by_zone_points(&results, points)
            }
            None => placements(&results, points),
            Some(survival) => {
                let survived = self.survived(rules, survival);
                let won: Vec<bool> = results
                    .iter()
                    .map(|(power, _, _)| (*power == survival.power) == survived)
                    .collect();
                crate::scoring::placements_by_side(&results, &won, points)
            }
        })
    }

    /// Whether the survivor has won: it holds its capital and has reached its round, or
    /// has taken the capital it may win by. AAP Historical, 9: "Japan must win by
    /// surviving until turn 12 ... If Japan is captured or Nuked on or before turn 11 then
    /// the Allies win": reaching turn 12 is the survival, so Japan held through turn 11.
    pub fn survived(&self, rules: Rules<'_>, survival: crate::game::Survival) -> bool {
        let capital_of = |power: Power| {
            rules
                .board
                .territories()
                .find(|(_, t)| t.capital && t.original_owner == Some(power))
                .map(|(id, _)| id)
        };
        let holds = |power: Power| {
            capital_of(power).is_some_and(|id| self.holder[id.index()] == Some(survival.power))
        };
        let surrendered = |power: Power| self.surrendered.contains(&power);
        if surrendered(survival.power) {
            return false;
        }
        holds(survival.power)
            && (self.round >= survival.round
                || survival
                    .or_take
                    .is_some_and(|other| holds(other) || surrendered(other)))
    }
}

/// The substitute for `power` finished a turn: after two rounds the seat is theirs.
pub(super) fn substitute_made_permanent(state: &GameState, power: Power) -> Option<GameEvent> {
    let seat = state.seats.get(&power)?;
    let played = seat.substitute_turns?;
    (played + 1 >= ROUNDS_TO_PERMANENT).then(|| GameEvent::SubstituteMadePermanent {
        power,
        player: seat.player.clone(),
    })
}

pub(super) fn apply(state: &mut GameState, event: &GameEvent) {
    match event {
        GameEvent::SeatsAssigned { seats, at } => {
            for (power, player) in seats {
                state.seats.insert(
                    *power,
                    Seat {
                        player: player.clone(),
                        substitute_turns: None,
                        replaced: None,
                        forfeited: Vec::new(),
                    },
                );
            }
            state.last_progress_at = Some(*at);
        }
        GameEvent::PlayerReplaced {
            power,
            substitute,
            at,
            ..
        } => {
            // A substitute replaced before becoming permanent never held the seat's
            // result: the player they replaced keeps it. A permanent one held it, and keeps
            // it until their own substitute becomes permanent (then they forfeit it too).
            // (`replaced` is set only while the seat's holder is a substitute.)
            let (replaced, forfeited) = match state.seats.get(power) {
                Some(seat) => (
                    Some(seat.replaced.as_ref().unwrap_or(&seat.player).clone()),
                    seat.forfeited.clone(),
                ),
                None => (None, Vec::new()),
            };
            state.seats.insert(
                *power,
                Seat {
                    player: substitute.clone(),
                    substitute_turns: Some(0),
                    replaced,
                    forfeited,
                },
            );
            state.last_progress_at = Some(*at);
        }
        GameEvent::SeatTaken { power, player, .. } => {
            // The seat changes hands, not its standing: a substitute not yet permanent is
            // still one in the new holder, and whoever forfeited the seat still does, so a
            // seat change cannot hand the seat's result over early (issue 40).
            let standing = state.seats.remove(power).map_or_else(
                || (None, None, Vec::new()),
                |seat| (seat.substitute_turns, seat.replaced, seat.forfeited),
            );
            let (substitute_turns, replaced, forfeited) = standing;
            state.seats.insert(
                *power,
                Seat {
                    player: player.clone(),
                    substitute_turns,
                    replaced,
                    forfeited,
                },
            );
        }
        GameEvent::SubstituteMadePermanent { power, .. } => {
            // The seat is the substitute's; the player replaced is named among those who
            // forfeited it, so that they take last place's result for it (`Seat::scored_by`).
            if let Some(seat) = state.seats.get_mut(power) {
                seat.substitute_turns = None;
                seat.forfeited.extend(seat.replaced.take());
            }
        }
        GameEvent::GameEnded { final_ipc, .. } => state.ended = Some(final_ipc.clone()),
        GameEvent::GameVoided { reason, .. } => state.voided = Some(reason.clone()),
        _ => {}
    }
}

#[cfg(test)]
mod waiting_tests {
    use super::*;

    #[test]
    fn a_turn_is_open_to_a_substitute_only_after_more_than_3_days() {
        // Given a turn due since a moment
        let since = Moment::from_unix_seconds(1_000_000);
        // When exactly 3 days have passed, then its player is not yet inactive
        let three_days = TurnWaiting::between(since, since.plus_seconds(INACTIVITY_LIMIT_SECONDS));
        assert!(!three_days.open_to_substitute());
        assert_eq!(three_days.idle_hours(), 72);
        // When a second more has passed, then a substitute may take the seat
        let later = TurnWaiting::between(since, since.plus_seconds(INACTIVITY_LIMIT_SECONDS + 1));
        assert!(later.open_to_substitute());
        // Then either way the seat opens 3 days after the turn fell due
        assert_eq!(later.due_at(), since.plus_seconds(INACTIVITY_LIMIT_SECONDS));
    }

    #[test]
    fn a_moment_before_the_turn_fell_due_counts_as_no_wait() {
        let since = Moment::from_unix_seconds(1_000_000);
        let before = TurnWaiting::between(since, Moment::from_unix_seconds(10));
        assert_eq!(before.idle_seconds, 0);
        assert!(!before.open_to_substitute());
    }
}

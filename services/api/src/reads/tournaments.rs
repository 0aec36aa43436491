//! A tournament's reads, the API's and the pages' alike: the tournament with its rounds,
//! seats and substitutions, its standings with the tiebreakers applied, and the seats
//! whose turn has waited, longest first.

use serde::Serialize;
use utoipa::ToSchema;
use warlog_league::constraints::SeatingConstraints;
use warlog_league::seating::SEATING_RULES;
use warlog_league::standings::{standings, GameResult, StandingRow};
use warlog_league::tournament::{RoundSeated, Tournament};
use warlog_rules::board::Power;
use warlog_rules::game::seats::TurnWaiting;
use warlog_store::StoreError;

use crate::error::ApiError;
use crate::respond::rfc3339;
use crate::tournaments::*;
use crate::AppState;

/// A seat at a table: who holds it now, who was drawn to it, and every change between.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct TableSeat {
    #[schema(value_type = String, example = "russia")]
    pub power: Power,
    /// Who holds the seat now (a swap or a substitute may have changed it).
    pub player: String,
    /// The player the round's draw gave the seat to.
    #[schema(example = "ann")]
    pub drawn_player: String,
    /// Every change of who holds the seat since the draw, in the order recorded: empty
    /// while the drawn player holds it.
    pub changes: Vec<SeatChangeView>,
}

/// A change of who holds a seat after the draw, and why.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct SeatChangeView {
    /// `swap` (the director swapped two players between tables before the round's games
    /// began) or `substitution` (a substitute from the waiting list took the seat of an
    /// inactive player).
    #[schema(example = "swap")]
    pub kind: String,
    /// Who held the seat before.
    #[schema(example = "ann")]
    pub from: String,
    /// Who holds it after.
    #[schema(example = "bob")]
    pub to: String,
    /// The director's reason for a swap; for a substitution, the rule that gave the seat.
    #[schema(example = "ann can only play on table 2's evenings")]
    pub reason: String,
    pub at: String,
    /// The change in plain words, from the seat's side.
    #[schema(example = "bob took it from ann by a swap: ann can only play on table 2's evenings")]
    pub words: String,
}

/// A table of a round and its game.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct TableView {
    pub table: u32,
    pub game_id: String,
    /// As played: a substitute shows in the seat taken; each seat also says who was drawn
    /// to it, and why it changed hands.
    pub seats: Vec<TableSeat>,
}

/// A bye.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct ByeView {
    pub player: String,
    pub points: i64,
}

/// A seated round.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct RoundView {
    pub round: u32,
    pub seated_at: String,
    pub deadline: Option<String>,
    pub tables: Vec<TableView>,
    pub byes: Vec<ByeView>,
    /// Players promoted from the waiting list to fill tables.
    pub promoted: Vec<String>,
    /// Pairs at a table who had met at a table before.
    pub repeated_table_mates: u32,
    /// The fewest repeats any seating could have had.
    pub least_possible_repeats: u32,
    /// Players given a power they had played before.
    pub repeated_powers: u32,
    /// The seating in words: repeats avoided, byes and why, what the director's constraints
    /// cost.
    pub explanation: Vec<String>,
    /// The rules every seating follows, in plain words.
    pub rules: String,
    /// The director's constraints the round was seated under (absent: none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub constraints: Option<SeatingConstraints>,
    /// With constraints: the repeated table-mates of the best seating found without them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repeats_without_constraints: Option<u32>,
    /// Seats the director swapped before the round's games began, and why.
    pub swaps: Vec<SwapView>,
    /// The order drawn with the round's dice: it orders players tied on everything else
    /// when the next round is seated. The standings' last ties are broken by the draw the
    /// finish takes with the seed it reveals (older tournaments: the last round's draw).
    pub draw: Vec<String>,
}

/// Two players who changed seats before their round's games began.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct SwapView {
    pub players: [String; 2],
    pub reason: String,
    pub at: String,
}

impl RoundView {
    pub(crate) fn of(tournament: &Tournament, round: &RoundSeated) -> RoundView {
        let tables = tournament.seats_since_the_draw(round);
        RoundView {
            round: round.round,
            seated_at: rfc3339(round.at),
            deadline: tournament
                .created
                .deadlines
                .get(round.round as usize - 1)
                .map(|d| rfc3339(*d)),
            tables: tables
                .iter()
                .map(|t| TableView {
                    table: t.table,
                    game_id: round
                        .games
                        .iter()
                        .find(|g| g.table == t.table)
                        .map(|g| g.game_id.clone())
                        .unwrap_or_default(),
                    seats: t
                        .seats
                        .iter()
                        .map(|seat| TableSeat {
                            power: seat.power,
                            player: seat.now.clone(),
                            drawn_player: seat.drawn.clone(),
                            changes: seat
                                .changes
                                .iter()
                                .map(|c| SeatChangeView {
                                    kind: snake(c.kind),
                                    from: c.from.clone(),
                                    to: c.to.clone(),
                                    reason: c.reason.clone(),
                                    at: rfc3339(c.at),
                                    words: c.describe(),
                                })
                                .collect(),
                        })
                        .collect(),
                })
                .collect(),
            byes: round
                .seating
                .byes
                .iter()
                .map(|b| ByeView {
                    player: b.player.clone(),
                    points: b.points,
                })
                .collect(),
            promoted: round.seating.promoted.clone(),
            repeated_table_mates: round.seating.repeated_table_mates,
            least_possible_repeats: round.seating.least_possible_repeats,
            repeated_powers: round.seating.repeated_powers,
            explanation: round.seating.explanation.clone(),
            rules: SEATING_RULES.to_owned(),
            constraints: (!round.constraints.is_empty()).then(|| round.constraints.clone()),
            repeats_without_constraints: round.seating.repeats_without_constraints,
            swaps: tournament
                .swaps()
                .filter(|s| s.round == round.round)
                .map(|s| SwapView {
                    players: s.players.clone(),
                    reason: s.reason.clone(),
                    at: rfc3339(s.at),
                })
                .collect(),
            draw: round.draw.clone(),
        }
    }
}

/// An entrant.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct EntrantView {
    pub player: String,
    /// `playing`, `dropped` or `replaced`.
    pub status: String,
}

/// A substitution made.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct SubstitutionMade {
    pub round: u32,
    pub game_id: String,
    #[schema(value_type = String, example = "russia")]
    pub power: Power,
    pub replaced: String,
    pub substitute: String,
    pub at: String,
}

/// A tournament: its settings, entrants, waiting list, rounds and substitutions.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct TournamentView {
    pub tournament_id: String,
    pub name: String,
    pub ruleset: String,
    pub director: String,
    pub rounds: u32,
    pub deadlines: Vec<String>,
    pub table_size: u32,
    pub points_per_place: Vec<i64>,
    pub tiebreakers: Vec<String>,
    /// `waiting_list` or `byes`.
    pub short_tables: String,
    pub bye_points: i64,
    pub capacity: Option<u32>,
    pub late_entries_until_round: u32,
    /// SHA-256 of the seed that draws seatings and powers.
    pub seed_commitment: String,
    pub created_at: String,
    pub version: u64,
    pub entrants: Vec<EntrantView>,
    pub waiting: Vec<String>,
    pub seated: Vec<RoundView>,
    pub substitutions: Vec<SubstitutionMade>,
    pub finished_at: Option<String>,
    /// The seed, hex, once finished: with it every seating, power draw and tiebreak draw
    /// can be checked against `seed_commitment`.
    pub seed: Option<String>,
}

fn snake(value: impl Serialize) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

impl TournamentView {
    pub(crate) fn of(tournament: &Tournament) -> TournamentView {
        let created = &tournament.created;
        TournamentView {
            tournament_id: created.tournament_id.clone(),
            name: created.name.clone(),
            ruleset: created.ruleset.clone(),
            director: created.director.clone(),
            rounds: created.rounds,
            deadlines: created.deadlines.iter().map(|d| rfc3339(*d)).collect(),
            table_size: created.table_size,
            points_per_place: created.points_per_place.clone(),
            tiebreakers: created.tiebreakers.iter().map(snake).collect(),
            short_tables: snake(created.short_tables),
            bye_points: created.bye_points,
            capacity: created.capacity,
            late_entries_until_round: created.late_entries_until_round,
            seed_commitment: created.seed_commitment.clone(),
            created_at: rfc3339(created.at),
            version: tournament.version,
            entrants: tournament
                .entrants
                .iter()
                .map(|e| EntrantView {
                    player: e.player.clone(),
                    status: snake(e.status),
                })
                .collect(),
            waiting: tournament.waiting.clone(),
            seated: tournament
                .rounds
                .iter()
                .map(|r| RoundView::of(tournament, r))
                .collect(),
            substitutions: tournament
                .substitutions()
                .map(|s| SubstitutionMade {
                    round: s.round,
                    game_id: s.game_id.clone(),
                    power: s.power,
                    replaced: s.replaced.clone(),
                    substitute: s.substitute.clone(),
                    at: rfc3339(s.at),
                })
                .collect(),
            finished_at: tournament.finished.map(rfc3339),
            seed: tournament.revealed_seed.clone(),
        }
    }
}

/// One round of a player in the standings.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct RoundResultView {
    pub round: u32,
    /// Absent for a bye.
    pub game_id: Option<String>,
    #[schema(value_type = Option<String>)]
    pub power: Option<Power>,
    pub place: Option<usize>,
    /// Points, as a decimal (`2.67`).
    pub points: f64,
    /// The same, exact (`"8/3"` when tied places were shared).
    pub points_exact: String,
    /// The gain, as a percentage of the starting IPC (`-20.83`).
    pub percent_gain: f64,
    /// The same, exact, as a fraction of the starting IPC (`"-5/24"`).
    pub percent_gain_exact: String,
    /// `aborted`, `master-only` or `voided` when the game ended without counting: shown here for no
    /// points, and not among the player's games.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_rated: Option<String>,
}

/// A line of the standings.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct StandingView {
    /// Players nothing separates share a rank: before the finish's draw, ties show as ties.
    pub rank: usize,
    pub player: String,
    /// `playing`, `dropped` or `replaced`.
    pub status: String,
    /// Points, as a decimal (`4.33`).
    pub points: f64,
    /// The same, exact (`"13/3"` when tied places were shared).
    pub points_exact: String,
    /// The sum of the games' gains, as a percentage of the starting IPC.
    pub percent_gain: f64,
    /// The same, exact, as a fraction of the starting IPC.
    pub percent_gain_exact: String,
    pub best_result: Option<String>,
    pub games: u32,
    /// Sole first places, and shares of shared ones; an all-tied game is nobody's win.
    pub wins: f64,
    /// The same, exact (`"3/2"`).
    pub wins_exact: String,
    pub byes: u32,
    pub title: String,
    /// The tiebreaker that placed this line below the one above (absent for the first).
    pub decided_by: Option<String>,
    pub results: Vec<RoundResultView>,
}

/// A tournament's standings, tiebreakers applied.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct StandingsView {
    pub tournament_id: String,
    pub name: String,
    pub rounds_seated: usize,
    pub finished: bool,
    /// The tiebreakers in the order they apply.
    pub tiebreakers: Vec<String>,
    pub rows: Vec<StandingView>,
}

impl StandingView {
    pub(crate) fn of(row: &StandingRow) -> StandingView {
        StandingView {
            rank: row.rank,
            player: row.player.clone(),
            status: snake(row.status),
            points: row.points.to_f64(),
            points_exact: row.points.to_string(),
            percent_gain: row.percent_gain.to_f64() * 100.0,
            percent_gain_exact: row.percent_gain.to_string(),
            best_result: row.best_result.map(|b| b.to_string()),
            games: row.games,
            wins: row.wins.to_f64(),
            wins_exact: row.wins.to_string(),
            byes: row.byes,
            title: row.title.name().to_owned(),
            decided_by: row.decided_by.map(|t| t.describe().to_owned()),
            results: row
                .results
                .iter()
                .map(|r| RoundResultView {
                    round: r.round,
                    game_id: r.game_id.clone(),
                    power: r.power,
                    place: r.place,
                    points: r.points.to_f64(),
                    points_exact: r.points.to_string(),
                    percent_gain: r.percent_gain.to_f64() * 100.0,
                    percent_gain_exact: r.percent_gain.to_string(),
                    not_rated: r.not_rated.map(|s| s.as_str().to_owned()),
                })
                .collect(),
        }
    }
}

impl StandingsView {
    pub(crate) fn of(tournament: &Tournament, results: &[GameResult]) -> StandingsView {
        StandingsView {
            tournament_id: tournament.created.tournament_id.clone(),
            name: tournament.created.name.clone(),
            rounds_seated: tournament.rounds.len(),
            finished: tournament.finished.is_some(),
            tiebreakers: tournament
                .created
                .tiebreakers
                .iter()
                .map(|t| t.describe().to_owned())
                .collect(),
            rows: standings(tournament, results)
                .iter()
                .map(StandingView::of)
                .collect(),
        }
    }
}

/// A tournament and its standings, for the API and the pages.
pub(crate) async fn tournament_standings(
    state: &AppState,
    id: &str,
) -> Result<(Tournament, StandingsView), ApiError> {
    let client = state.store.pool().get().await.map_err(StoreError::from)?;
    let tournament = load_tournament(&client, id).await?;
    let (_, results) = games_of(state, &client, &tournament).await?;
    let view = StandingsView::of(&tournament, &results);
    Ok((tournament, view))
}

/// A running game's seat whose turn is due: who, since when, and when a substitute may
/// take it.
#[derive(Debug)]
pub(crate) struct SeatWaitedOn {
    pub round: u32,
    pub table: u32,
    pub game_id: String,
    pub power: Power,
    pub player: String,
    pub idle_since: String,
    pub idle_hours: u64,
    /// When the seat is open to a substitute (3 days after `idle_since`).
    pub due_at: String,
    /// Whether that time has passed.
    pub due: bool,
}

/// The tournament, and every running game's seat whose turn is due, longest waiting first.
pub(crate) async fn seats_waited_on(
    state: &AppState,
    id: &str,
) -> Result<(Tournament, Vec<SeatWaitedOn>), ApiError> {
    let client = state.store.pool().get().await.map_err(StoreError::from)?;
    let tournament = load_tournament(&client, id).await?;
    let now = moment_of(state.clock.now());
    let (logs, _) = games_of(state, &client, &tournament).await?;
    let tables = tournament
        .rounds
        .iter()
        .flat_map(|round| round.games.iter().map(move |game| (round, game)));
    let mut seats = Vec::new();
    for ((round, game), log) in tables.zip(&logs) {
        if log.state.ended.is_some() || log.state.voided.is_some() {
            continue;
        }
        let power = log.state.to_act(log.ruleset.rules());
        let waiting =
            TurnWaiting::between(log.state.last_progress_at.unwrap_or(log.created.at), now);
        let Some(seat) = log.state.seats.get(&power) else {
            continue;
        };
        seats.push(SeatWaitedOn {
            round: round.round,
            table: game.table,
            game_id: game.game_id.clone(),
            power,
            player: seat.player.clone(),
            idle_since: rfc3339(waiting.since),
            idle_hours: waiting.idle_hours(),
            due_at: rfc3339(waiting.due_at()),
            due: waiting.open_to_substitute(),
        });
    }
    seats.sort_by_key(|s| std::cmp::Reverse(s.idle_hours));
    Ok((tournament, seats))
}

//! Powers by the draw (issue 40). Cut-Throat: "The initial choice of countries is done by
//! random selection." A director may still swap two players of a round before its games
//! begin, each taking the other's table and power, but only between two tables: a swap
//! within a table would hand a drawn power to a table-mate. Swaps chained through players
//! at other tables could do the same (gil2↔di, gil2↔bob, bob↔di exchanges bob's and gil2's
//! powers at table 1), so the rule is on the net effect: a player who sits at the table
//! they were drawn to holds the power they were drawn to. A player keeps their drawn seat
//! or sits at another table; a swap whose result breaks this is refused (`swap-chain`).
//!
//! Every change of who holds a seat after the draw, swap or substitution, is kept in the
//! order recorded ([`Tournament::seats_since_the_draw`]), so that each seat shows the
//! player drawn to it, who holds it now, and why.

use std::collections::HashMap;

use serde::Serialize;
use warlog_rules::board::Power;
use warlog_rules::game::Moment;

use super::{refuse, RoundSeated, SeatsSwapped, SubstituteAppointed, Tournament};
use super::{RefusalCode, TournamentViolation};

/// A change of who holds a seat of a round after its draw, as the stream records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordedSeatChange {
    Swap(SeatsSwapped),
    Substitute(SubstituteAppointed),
}

impl RecordedSeatChange {
    fn round(&self) -> u32 {
        match self {
            RecordedSeatChange::Swap(swap) => swap.round,
            RecordedSeatChange::Substitute(sub) => sub.round,
        }
    }
}

/// What changed who holds a seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SeatChangeKind {
    /// The director swapped two players between tables, before the round's games began.
    Swap,
    /// A substitute from the waiting list took the seat of a player who let a due turn
    /// wait more than 3 days.
    Substitution,
}

/// One change of who holds a seat: who left it, who took it, why and when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatChange {
    pub kind: SeatChangeKind,
    /// Who held the seat before.
    pub from: String,
    /// Who holds it after.
    pub to: String,
    /// The director's reason for a swap; for a substitution, the rule that gave the seat.
    pub reason: String,
    pub at: Moment,
}

impl SeatChange {
    /// In plain words, from the seat's side: "swapped with ann: ann's evenings".
    pub fn describe(&self) -> String {
        match self.kind {
            SeatChangeKind::Swap => format!(
                "{} took it from {} by a swap: {}",
                self.to, self.from, self.reason
            ),
            SeatChangeKind::Substitution => format!(
                "{} took it from {} as a substitute: {}",
                self.to, self.from, self.reason
            ),
        }
    }
}

/// A seat of a round: the player drawn to it, who holds it now, and every change between,
/// in the order recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatSinceTheDraw {
    pub power: Power,
    pub drawn: String,
    pub now: String,
    pub changes: Vec<SeatChange>,
}

/// A table of a round, seat by seat since the draw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableSinceTheDraw {
    pub table: u32,
    pub seats: Vec<SeatSinceTheDraw>,
}

/// The seat a player is held to in a round: where they were drawn, or, for a substitute,
/// where they were appointed.
#[derive(Debug, Clone, Copy)]
struct Bound {
    table: u32,
    power: Power,
    appointed: bool,
}

impl Tournament {
    /// The director's swaps, in the order recorded.
    pub fn swaps(&self) -> impl Iterator<Item = &SeatsSwapped> {
        self.seat_changes.iter().filter_map(|c| match c {
            RecordedSeatChange::Swap(swap) => Some(swap),
            RecordedSeatChange::Substitute(_) => None,
        })
    }

    /// The substitutes appointed, in the order recorded.
    pub fn substitutions(&self) -> impl Iterator<Item = &SubstituteAppointed> {
        self.seat_changes.iter().filter_map(|c| match c {
            RecordedSeatChange::Substitute(sub) => Some(sub),
            RecordedSeatChange::Swap(_) => None,
        })
    }

    /// Each table of `round` seat by seat: drawn to whom, held by whom now, and the swaps
    /// and substitutions between, in the order recorded.
    pub fn seats_since_the_draw(&self, round: &RoundSeated) -> Vec<TableSinceTheDraw> {
        let mut tables: Vec<TableSinceTheDraw> = round
            .seating
            .tables
            .iter()
            .map(|t| TableSinceTheDraw {
                table: t.table,
                seats: t
                    .seats
                    .iter()
                    .map(|(power, player)| SeatSinceTheDraw {
                        power: *power,
                        drawn: player.clone(),
                        now: player.clone(),
                        changes: Vec::new(),
                    })
                    .collect(),
            })
            .collect();
        let changes = self
            .seat_changes
            .iter()
            .filter(|c| c.round() == round.round);
        for change in changes {
            match change {
                RecordedSeatChange::Swap(swap) => {
                    let [a, b] = &swap.players;
                    for seat in tables.iter_mut().flat_map(|t| t.seats.iter_mut()) {
                        let taking = if &seat.now == a {
                            b
                        } else if &seat.now == b {
                            a
                        } else {
                            continue;
                        };
                        seat.changes.push(SeatChange {
                            kind: SeatChangeKind::Swap,
                            from: seat.now.clone(),
                            to: taking.clone(),
                            reason: swap.reason.clone(),
                            at: swap.at,
                        });
                        seat.now.clone_from(taking);
                    }
                }
                RecordedSeatChange::Substitute(sub) => {
                    let Some(table) = round
                        .games
                        .iter()
                        .find(|g| g.game_id == sub.game_id)
                        .and_then(|g| tables.iter_mut().find(|t| t.table == g.table))
                    else {
                        continue;
                    };
                    for seat in table.seats.iter_mut().filter(|s| s.power == sub.power) {
                        seat.changes.push(SeatChange {
                            kind: SeatChangeKind::Substitution,
                            from: seat.now.clone(),
                            to: sub.substitute.clone(),
                            reason: format!(
                                "{} let a due turn wait more than 3 days, and {} came from \
                                 the waiting list",
                                sub.replaced, sub.substitute
                            ),
                            at: sub.at,
                        });
                        seat.now.clone_from(&sub.substitute);
                    }
                }
            }
        }
        tables
    }

    /// The seat each player of `round` is held to: the one drawn, or for a substitute the
    /// one appointed.
    ///
    /// A substitute's seat is not drawn, but it is not free either: were a substitute bound
    /// to nothing, a substitution and two swaps through another table could move them to
    /// another power of the table they were appointed to, which no single swap may. So a
    /// substitute is held to the seat appointed, as a drawn player to the seat drawn. The
    /// player replaced sits nowhere any more, so the seat they were drawn to binds nothing.
    /// A substitution itself moves nobody else, and the substitute takes the seat they are
    /// then held to, so it never breaks the rule; only swaps are checked.
    fn bound_seats<'a>(&'a self, round: &'a RoundSeated) -> HashMap<&'a str, Bound> {
        let mut bound: HashMap<&str, Bound> = round
            .seating
            .tables
            .iter()
            .flat_map(|t| {
                t.seats.iter().map(|(power, player)| {
                    (
                        player.as_str(),
                        Bound {
                            table: t.table,
                            power: *power,
                            appointed: false,
                        },
                    )
                })
            })
            .collect();
        for sub in self.substitutions().filter(|s| s.round == round.round) {
            if let Some(game) = round.games.iter().find(|g| g.game_id == sub.game_id) {
                bound.insert(
                    sub.substitute.as_str(),
                    Bound {
                        table: game.table,
                        power: sub.power,
                        appointed: true,
                    },
                );
            }
        }
        bound
    }

    /// Powers by the draw, on the tournament after `swapped`: neither player swapped may
    /// sit at the table they are held to with another power than theirs there. A swap back
    /// to the seats drawn is always allowed.
    pub(super) fn keeps_the_draw(&self, swapped: &SeatsSwapped) -> Result<(), TournamentViolation> {
        let Some(round) = self.rounds.iter().find(|r| r.round == swapped.round) else {
            return Ok(());
        };
        let players = &swapped.players;
        let after = self.round_as_played(round);
        let bound = self.bound_seats(round);
        for player in players {
            let Some(held) = bound.get(player.as_str()) else {
                continue;
            };
            let Some(power) = after
                .iter()
                .filter(|t| t.table == held.table)
                .flat_map(|t| &t.seats)
                .find(|(_, who)| who == player)
                .map(|(power, _)| *power)
            else {
                continue;
            };
            if power == held.power {
                continue;
            }
            let how = if held.appointed {
                "appointed as a substitute to"
            } else {
                "drawn to"
            };
            let whose = round
                .seating
                .tables
                .iter()
                .filter(|t| t.table == held.table)
                .flat_map(|t| &t.seats)
                .find(|(p, _)| *p == power)
                .map(|(_, who)| format!(", the power {who} was drawn to"))
                .unwrap_or_default();
            let [a, b] = players;
            return refuse(
                RefusalCode::SwapChain,
                format!(
                    "swapping {a} and {b} would seat {player} back at table {table} holding \
                     {power}{whose}, but {player} was {how} {held_power} at that table: a \
                     player keeps the seat drawn or sits at another table, so no chain of \
                     swaps may exchange powers within a table",
                    table = held.table,
                    power = power.name(),
                    held_power = held.power.name(),
                ),
            );
        }
        Ok(())
    }
}

//! What may be done now in a game (`GET /v1/games/{id}/now` and the game page's "Now"):
//! the engine's [`Now`] with the board's names and the units' codes, and the same in
//! sentences for people.

use serde::Serialize;
use utoipa::ToSchema;
use warlog_events::game::GameLog;
use warlog_rules::board::{Power, TerritoryId};
use warlog_rules::game::{MayMove, Now, OrderKind, Reach, ToPlace};

use crate::respond::{rfc3339, when};

/// What may be done now in a game: whose turn, the phase and the rest of the turn, the
/// orders the rules take now, the money, the units to place and to move, the battles to
/// fight, and until when the game waits.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({
    "game_id": "0193a5c2e4b07c51a9d35e1f0c2b7a11", "version": 57, "round": 2, "over": false,
    "to_act": "germany", "player": "bob", "any_seated": false,
    "phase": "combat move", "phases_left": ["battles", "non-combat move", "placement", "income"],
    "orders": ["end_phase", "move", "rail", "go_passive"],
    "any_power": ["offer_agreement", "set_standing_orders"],
    "money": {"treasury": 12, "ipc_count": 40, "income": 40},
    "to_place": [{"unit": "INF", "count": 3, "at": ["Germany", "Southern Europe"]}],
    "may_move": [{"place": "Germany", "unit": "INF", "count": 2, "spaces": 1, "aboard": false}],
    "battles": ["Ukraine"],
    "substitute_after": "2026-11-28T12:00:00Z",
    "in_words": ["Germany to play (bob): combat move (then battles, non-combat move, placement, income)."]
}))]
pub struct NowView {
    pub game_id: String,
    /// The game's version this was read at (also the ETag).
    pub version: u64,
    pub round: u32,
    /// The game has ended or was voided: nothing may be ordered, and the lists are empty.
    pub over: bool,
    /// Whose order the game waits for (null once over).
    #[schema(value_type = Option<String>, example = "germany")]
    pub to_act: Option<Power>,
    /// The player seated at `to_act`.
    pub player: Option<String>,
    /// The proxy named for `to_act`'s player (who may give its orders until `until`), if
    /// one is named and not ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proxy: Option<super::ProxyView>,
    /// War's start zones and initiative: any seated player may roll, not only `to_act`.
    pub any_seated: bool,
    /// The phase in plain words (`non-combat move`; null once over).
    pub phase: Option<String>,
    /// The phases of this turn after this one, in order, in plain words.
    pub phases_left: Vec<String>,
    /// What `to_act` may order now: each an order's `type`. A kind listed may still be
    /// refused for its particulars (a path too long); one not listed would be refused.
    pub orders: Vec<OrderKind>,
    /// What any power may order now, whoever's turn it is (diplomacy, standing orders, a
    /// guerrilla's refusal of battle, War's order of loss).
    pub any_power: Vec<OrderKind>,
    /// The money of the power to act (null once over).
    pub money: Option<MoneyView>,
    /// Units bought (War: reinforcements rolled) and not yet placed.
    pub to_place: Vec<ToPlaceView>,
    /// In the movement phases: the units of the power to act that may still move.
    pub may_move: Vec<MayMoveView>,
    /// Battles declared and still to fight, by place.
    pub battles: Vec<String>,
    /// When the player to act will have been idle for the game's limit (3 days after the
    /// game last moved on: a phase ended or a seat changed); after it the director may
    /// seat a substitute. RFC 3339; null once over or for an empty seat.
    #[schema(format = DateTime)]
    pub substitute_after: Option<String>,
    /// The same in sentences, for people (what the game page shows).
    pub in_words: Vec<String>,
}

/// A power's money.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MoneyView {
    pub treasury: u32,
    /// The printed values of the places it holds.
    pub ipc_count: u32,
    /// What its income would be, collected as the board stands now.
    pub income: u32,
}

/// Units of one type still to place, and where they may go.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ToPlaceView {
    pub unit: String,
    pub count: u32,
    /// Where they may be placed as the board stands (complexes with room, sea zones beside
    /// them for ships, land held since the turn began for a new complex); empty where the
    /// rules cannot say it at once (War's reinforcements).
    pub at: Vec<String>,
}

/// Units of one type in one place that may still move, and how far.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MayMoveView {
    pub place: String,
    pub unit: String,
    pub count: u32,
    /// Spaces they may still move (null when aboard).
    pub spaces: Option<u8>,
    /// Land units aboard transports: they go where the transports go, or ashore next door.
    pub aboard: bool,
}

impl NowView {
    pub fn of(log: &GameLog) -> NowView {
        let now = Now::of(log.ruleset.rules(), &log.state);
        let name = |t: &TerritoryId| log.ruleset.board.get(*t).name.clone();
        let code = |u| log.ruleset.catalogue.get(u).code.clone();
        let mut view = NowView {
            game_id: log.created.game_id.clone(),
            version: log.version,
            round: now.round,
            over: now.over,
            to_act: now.to_act,
            player: now
                .to_act
                .and_then(|p| log.state.seats.get(&p))
                .map(|s| s.player.clone()),
            proxy: now
                .to_act
                .and_then(|p| log.proxies.get(&p))
                .map(super::ProxyView::of),
            any_seated: now.any_seated,
            phase: now.phase.map(|p| p.name().to_owned()),
            phases_left: now
                .phases_left
                .iter()
                .map(|p| p.name().to_owned())
                .collect(),
            orders: now.orders.clone(),
            any_power: now.any_power.clone(),
            money: now.money.map(|m| MoneyView {
                treasury: m.treasury,
                ipc_count: m.ipc_count,
                income: m.income,
            }),
            to_place: now
                .to_place
                .iter()
                .map(|p: &ToPlace| ToPlaceView {
                    unit: code(p.unit),
                    count: p.count,
                    at: p.at.iter().map(name).collect(),
                })
                .collect(),
            may_move: now
                .may_move
                .iter()
                .map(|m: &MayMove| MayMoveView {
                    place: name(&m.place),
                    unit: code(m.unit),
                    count: m.count,
                    spaces: match m.reach {
                        Reach::Spaces(n) => Some(n),
                        Reach::Aboard => None,
                    },
                    aboard: m.reach == Reach::Aboard,
                })
                .collect(),
            battles: now.battles.iter().map(name).collect(),
            substitute_after: now.substitute_after.map(rfc3339),
            in_words: Vec::new(),
        };
        view.in_words = view.sentences(
            log.ruleset.special.war.is_some(),
            log.state.voided.as_deref(),
        );
        view
    }

    /// The moment in sentences: whose turn and the rest of the turn, the money, what may
    /// be ordered, the units to place and to move, the battles, and the deadline.
    fn sentences(&self, war: bool, voided: Option<&str>) -> Vec<String> {
        if self.over {
            return vec![match voided {
                Some(reason) => {
                    format!("The game was voided ({reason}): nothing more may be ordered.")
                }
                None => "The game is over: nothing more may be ordered.".to_owned(),
            }];
        }
        let mut said = Vec::new();
        let who = match (self.to_act, &self.player) {
            (Some(power), Some(player)) => format!("{} to play ({player})", power.name()),
            (Some(power), None) => format!("{} to play", power.name()),
            (None, _) => "Nobody to play".to_owned(),
        };
        let phase = self.phase.as_deref().unwrap_or_default();
        let rest = if self.phases_left.is_empty() {
            String::new()
        } else {
            format!(" (then {})", self.phases_left.join(", "))
        };
        let anyone = if self.any_seated {
            "; any player may roll"
        } else {
            ""
        };
        said.push(format!("{who}: {phase}{rest}{anyone}."));
        if let Some(proxy) = &self.proxy {
            said.push(format!(
                "{} may give these orders as {}'s proxy until {}.",
                proxy.player,
                proxy.for_player,
                when(&proxy.until)
            ));
        }
        if let Some(money) = &self.money {
            said.push(if war {
                format!("${} in hand; ${} a turn.", money.treasury, money.income)
            } else {
                format!(
                    "{} IPC in the treasury; IPC count {}, income {}.",
                    money.treasury, money.ipc_count, money.income
                )
            });
        }
        if !self.orders.is_empty() {
            said.push(format!("May order: {}.", words_of(&self.orders)));
        }
        if !self.to_place.is_empty() {
            let units: Vec<String> = self.to_place.iter().map(place_words).collect();
            said.push(format!("To place: {}.", units.join("; ")));
        }
        if !self.may_move.is_empty() {
            said.push(format!("May still move: {}.", moves_words(&self.may_move)));
        }
        if !self.battles.is_empty() {
            said.push(format!("Battles to fight: {}.", self.battles.join(", ")));
        }
        if !self.any_power.is_empty() {
            said.push(format!(
                "Any power, whoever's turn it is: {}.",
                words_of(&self.any_power)
            ));
        }
        if let Some(after) = &self.substitute_after {
            said.push(format!(
                "If the game has not moved on (a phase ended) by {}, the director may seat a substitute.",
                when(after)
            ));
        }
        said
    }
}

/// Kinds of order in plain words: "move units, end the phase".
fn words_of(kinds: &[OrderKind]) -> String {
    kinds
        .iter()
        .map(|k| k.words())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Places named where they are few; the first few and how many more where they are many.
const PLACES_NAMED: usize = 6;

/// "3 INF (at Karelia or Russia)".
fn place_words(units: &ToPlaceView) -> String {
    let named = &units.at[..units.at.len().min(PLACES_NAMED)];
    let at = match (named, units.at.len() - named.len()) {
        ([], _) => String::new(),
        ([one], 0) => format!(" (at {one})"),
        (_, 0) => format!(
            " (at {} or {})",
            named[..named.len() - 1].join(", "),
            named[named.len() - 1]
        ),
        (_, more) => format!(" (at {}, or {more} more places)", named.join(", ")),
    };
    format!("{} {}{at}", units.count, units.unit)
}

/// By place, in the order of the board: "in Germany 2 INF (1 space), 1 FTR (4 spaces);
/// in Libya 1 ARM (2 spaces)".
fn moves_words(moves: &[MayMoveView]) -> String {
    let mut places: Vec<(&str, Vec<String>)> = Vec::new();
    for units in moves {
        let reach = match units.spaces {
            Some(1) => "1 space".to_owned(),
            Some(n) => format!("{n} spaces"),
            None => "aboard, with their transport".to_owned(),
        };
        let said = format!("{} {} ({reach})", units.count, units.unit);
        match places.last_mut() {
            Some((place, said_here)) if *place == units.place => said_here.push(said),
            _ => places.push((&units.place, vec![said])),
        }
    }
    places
        .iter()
        .map(|(place, units)| format!("in {place} {}", units.join(", ")))
        .collect::<Vec<_>>()
        .join("; ")
}

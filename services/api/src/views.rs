//! What the game endpoints show, rendered from a folded [`GameLog`] with the board's names
//! and the units' codes. Nothing here can show a seed before its reveal: the seed is not
//! in a `GameLog` until `SeedRevealed` is.

use std::collections::BTreeMap;

use serde::Serialize;
use utoipa::ToSchema;
use warlog_events::game::{GameLog, PlacementRow};
use warlog_events::{RecordedEvent, StreamId};
use warlog_rules::board::Power;
use warlog_rules::game::GameEvent;
use warlog_rules::ruleset::Ruleset;
use warlog_rules::scoring::{PointsTable, TIE_POLICY};
use warlog_rules::units::{Catalogue, UnitTypeId};

use crate::error::{corrupt, ApiError};
use crate::rulesets::KnownRuleset;

mod now;
pub use now::{MayMoveView, MoneyView, NowView, ToPlaceView};

/// A seat at the table.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SeatView {
    #[schema(value_type = String, example = "germany")]
    pub power: Power,
    pub player: String,
    /// Set while the player is a substitute: the turns played since appointed.
    pub substitute_turns: Option<u32>,
    /// The proxy named for the power and not ended: who may give its orders, until when.
    /// Past `until` it is shown until the seat changes or another is named, and gives no
    /// order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proxy: Option<ProxyView>,
}

/// A power's proxy: a player who gives its orders for its seated player until a time.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ProxyView {
    /// The proxy's handle.
    pub player: String,
    /// The seated player who named them, or for whom the master did.
    pub for_player: String,
    #[schema(format = DateTime)]
    pub since: String,
    /// When the proxy ends (RFC 3339): it gives no order from then on.
    #[schema(format = DateTime)]
    pub until: String,
}

impl ProxyView {
    pub fn of(named: &warlog_events::proxy::ProxyNamed) -> Self {
        ProxyView {
            player: named.proxy.clone(),
            for_player: named.player.clone(),
            since: crate::respond::rfc3339(named.at),
            until: crate::respond::rfc3339(named.until),
        }
    }
}

/// A game: who plays what, where it stands, and the commitment to its dice.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({
    "game_id": "0193a5c2e4b07c51a9d35e1f0c2b7a11",
    "title": "Cut-Throat: ann, bob, cy, di, ed", "standing": "round 1, Germany to play (bob)",
    "ruleset": "cutthroat", "status": "running",
    "version": 12, "round": 1, "phase": "Purchase", "turn": "germany", "to_act": "germany",
    "seats": [{"power": "russia", "player": "ann", "substitute_turns": null,
        "proxy": {"player": "cy", "for_player": "ann", "since": "2026-11-26T09:00:00Z", "until": "2026-12-01T12:00:00Z"}}],
    "play": [{"power": "russia", "turns_played": 1, "orders_by_player": 9, "orders_by_game_master": 0, "orders_by_proxy": 2}],
    "orders_recorded": true,
    "seed_commitment": "9f2c...", "seed": null, "game_master": "gm:alice", "tournament": null,
    "created_at": "2026-11-25T12:00:00Z"
}))]
pub struct GameView {
    pub game_id: String,
    /// The game's name for people: its ruleset and its players.
    pub title: String,
    /// Where it stands, in words: whose turn while it runs, how it ended once over.
    pub standing: String,
    pub ruleset: String,
    /// `running`, `ended`, `voided`, `aborted` (ended before every seated power had
    /// played a turn of its own: not rated) or `master-only` (a seated player never gave
    /// an order in person, by token, mail or a proxy they named: not rated).
    pub status: String,
    /// Why the game was voided (only then).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub void_reason: Option<String>,
    /// Why an ended game is not rated, in a sentence (voided, aborted or master-only); absent while it
    /// runs and once it ended rated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_rated: Option<String>,
    /// Each seated power, in turn order: the turns it has completed, and how many of its
    /// orders its player gave, how many the game master (or a director or an admin) gave
    /// for it, and how many a proxy gave for its player.
    pub play: Vec<PowerPlayView>,
    /// Whether the game's orders are on its record (games created before they were have
    /// no counts of orders, only of turns).
    pub orders_recorded: bool,
    /// The game stream's version: send it back as `If-Match` or `expected_version`.
    pub version: u64,
    pub round: u32,
    pub phase: String,
    /// The power whose turn it is.
    #[schema(value_type = String)]
    pub turn: Power,
    /// Whose order the game waits for (orders without a `power` are theirs): the power
    /// whose turn it is, or in War's reinforcements the player to its right.
    #[schema(value_type = String)]
    pub to_act: Power,
    pub seats: Vec<SeatView>,
    /// SHA-256 of the dice seed, hex.
    pub seed_commitment: String,
    /// The seed, hex, once revealed (never before).
    pub seed: Option<String>,
    pub game_master: String,
    pub tournament: Option<String>,
    #[schema(format = DateTime)]
    pub created_at: String,
}

impl GameView {
    /// The view, a tournament game named by its tournament (when its name is known), round
    /// and table.
    pub fn named(log: &GameLog, tournament_name: Option<&str>) -> Self {
        GameView {
            title: log.title_in(tournament_name),
            ..Self::of(log)
        }
    }

    pub fn of(log: &GameLog) -> Self {
        GameView {
            game_id: log.created.game_id.clone(),
            title: log.title(),
            standing: log.standing(),
            ruleset: log.created.ruleset.clone(),
            status: log.status().as_str().to_owned(),
            void_reason: log.state.voided.clone(),
            not_rated: log.why_not_rated(),
            play: PowerPlayView::of(log),
            orders_recorded: log.created.orders_recorded,
            version: log.version,
            round: log.state.round,
            phase: format!("{:?}", log.state.phase),
            turn: log.state.power(&log.ruleset.board),
            to_act: log.state.to_act(log.ruleset.rules()),
            seats: log
                .state
                .seats
                .iter()
                .map(|(power, seat)| SeatView {
                    power: *power,
                    player: seat.player.clone(),
                    substitute_turns: seat.substitute_turns,
                    proxy: log.proxies.get(power).map(ProxyView::of),
                })
                .collect(),
            seed_commitment: log.created.seed_commitment.clone(),
            seed: log.revealed_seed.clone(),
            game_master: log.created.game_master.clone(),
            tournament: log.created.tournament.clone(),
            created_at: crate::respond::rfc3339(log.created.at),
        }
    }
}

/// How a power was played: its turns, and whose orders they were.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PowerPlayView {
    #[schema(value_type = String, example = "germany")]
    pub power: Power,
    /// Turns completed: play passed from this power to the next.
    pub turns_played: u32,
    /// Orders carried out that its player gave.
    pub orders_by_player: u32,
    /// Orders carried out that the game master, a director or an admin gave for it.
    pub orders_by_game_master: u32,
    /// Orders carried out that a proxy gave for its player.
    pub orders_by_proxy: u32,
}

impl PowerPlayView {
    /// Every seated power, in turn order.
    pub fn of(log: &GameLog) -> Vec<PowerPlayView> {
        log.seated()
            .into_iter()
            .map(|power| {
                let orders = log.orders_by_power.get(&power).copied().unwrap_or_default();
                PowerPlayView {
                    power,
                    turns_played: log.turns_played.get(&power).copied().unwrap_or(0),
                    orders_by_player: orders.by_player,
                    orders_by_game_master: orders.by_game_master,
                    orders_by_proxy: orders.by_proxy,
                }
            })
            .collect()
    }
}

/// Units of one owner, type and damage in a place.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct StackView {
    #[schema(value_type = String)]
    pub power: Power,
    pub unit: String,
    pub count: u32,
    /// Hits taken (two-hit battleships).
    pub damage: u8,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PlaceView {
    pub name: String,
    pub sea: bool,
    pub ipc: u32,
    #[schema(value_type = Option<String>)]
    pub holder: Option<Power>,
    pub units: Vec<StackView>,
    /// A battle to fight here this turn.
    pub contested: bool,
    /// War: infrastructure built here ($1 a turn each; $1 off units bought here).
    #[serde(skip_serializing_if = "is_zero")]
    pub infrastructure: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// War: what the turn's flow stands at.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct WarView {
    /// This round's order of play, from its initiative roll.
    #[schema(value_type = Vec<String>)]
    pub order: Vec<Power>,
    /// Who rolls, places and moves the active player's reinforcements.
    #[schema(value_type = String)]
    pub reinforcer: Power,
    /// Reinforcements rolled and still to place, by unit code.
    #[schema(value_type = Object)]
    pub reinforcements_to_place: Vec<(String, u32)>,
    /// How many reinforcement units may still move.
    pub reinforcement_moves_left: u32,
    /// Each player's bases, by name.
    #[schema(value_type = Object)]
    pub bases: Vec<(Power, Vec<String>)>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PowerView {
    #[schema(value_type = String)]
    pub power: Power,
    pub treasury: u32,
    /// The printed values of the territories it holds.
    pub ipc_count: u32,
    pub starting_ipc: u32,
    pub technologies: Vec<String>,
    pub passive: bool,
    /// AAP: kamikaze tokens left (Japan's; absent for a power without any).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kamikaze_tokens: Option<u32>,
}

/// The board at one version of the game.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct BoardView {
    pub game_id: String,
    pub version: u64,
    pub round: u32,
    /// The phase's name, for tools (`NonCombatMove`).
    pub phase: String,
    /// The phase in plain words, for people (`non-combat move`).
    pub phase_name: String,
    #[schema(value_type = String)]
    pub turn: Power,
    pub powers: Vec<PowerView>,
    /// Every place held or occupied.
    pub places: Vec<PlaceView>,
    /// Agreements in force: the two partners and the terms.
    #[schema(value_type = Vec<Object>)]
    pub agreements: Vec<(Power, Power, String)>,
    /// Units bought this turn and not yet placed: code to count.
    pub pending: BTreeMap<String, u32>,
    /// War games only: initiative, reinforcements and bases.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub war: Option<WarView>,
}

impl BoardView {
    pub fn of(log: &GameLog) -> Self {
        let board = &log.ruleset.board;
        let catalogue = &log.ruleset.catalogue;
        let state = &log.state;
        let code = |unit| catalogue.get(unit).code.clone();
        let places = board
            .territories()
            .filter(|(id, _)| {
                state.holder[id.index()].is_some() || !state.forces[id.index()].is_empty()
            })
            .map(|(id, t)| PlaceView {
                name: t.name.clone(),
                sea: t.sea,
                ipc: t.ipc,
                holder: state.holder[id.index()],
                units: state.forces[id.index()]
                    .iter()
                    .map(|((power, unit, damage), count)| StackView {
                        power: *power,
                        unit: code(*unit),
                        count: *count,
                        damage: *damage,
                    })
                    .collect(),
                contested: state.contested.contains_key(&id),
                infrastructure: state.war.infrastructure.get(&id).copied().unwrap_or(0),
            })
            .collect();
        BoardView {
            game_id: log.created.game_id.clone(),
            version: log.version,
            round: state.round,
            phase: format!("{:?}", state.phase),
            phase_name: state.phase.name().to_owned(),
            turn: state.power(board),
            powers: log
                .ruleset
                .powers()
                .iter()
                .map(|p| PowerView {
                    power: *p,
                    treasury: state.treasury.get(p).copied().unwrap_or(0),
                    ipc_count: state.ipc_count(board, *p),
                    starting_ipc: state.starting_ipc.get(p).copied().unwrap_or(0),
                    technologies: state
                        .technologies
                        .get(p)
                        .into_iter()
                        .flatten()
                        .map(|t| format!("{t:?}"))
                        .chain(
                            state
                                .war
                                .technologies
                                .get(p)
                                .into_iter()
                                .flatten()
                                .map(|t| format!("{t:?}")),
                        )
                        .collect(),
                    passive: state.passive.contains(p),
                    kamikaze_tokens: state.kamikaze_tokens.get(p).copied(),
                })
                .collect(),
            places,
            agreements: state
                .agreements
                .iter()
                .map(|((a, b), terms)| (*a, *b, terms.clone()))
                .collect(),
            pending: state
                .pending
                .iter()
                .map(|(unit, n)| (code(*unit), *n))
                .collect(),
            war: log.ruleset.special.war.as_ref().map(|_| {
                let rules = log.ruleset.rules();
                let pending = state.war.reinforcements.as_ref();
                WarView {
                    order: state.war.order.clone(),
                    reinforcer: warlog_rules::game::home_cooked::reinforcer(rules, state),
                    reinforcements_to_place: pending
                        .into_iter()
                        .flat_map(|p| &p.units)
                        .map(|(unit, n)| (code(*unit), *n))
                        .collect(),
                    reinforcement_moves_left: pending.map_or(0, |p| p.moves_left),
                    bases: state
                        .war
                        .bases
                        .iter()
                        .map(|(p, zones)| {
                            (
                                *p,
                                zones.iter().map(|z| board.get(*z).name.clone()).collect(),
                            )
                        })
                        .collect(),
                }
            }),
        }
    }
}

/// A battle or bombing raid as fought: every die, and the listing in Part 13's notation.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct BattleView {
    /// 1 for the game's first battle.
    pub number: usize,
    /// The stream version of the event that records it.
    pub version: u64,
    pub round: u32,
    pub kind: &'static str,
    pub territory: String,
    #[schema(value_type = String)]
    pub attacker: Power,
    #[schema(value_type = Vec<String>)]
    pub defenders: Vec<Power>,
    /// The outcome's name, for tools (`AttackerWins`).
    pub outcome: String,
    /// The outcome in plain words, for people (`Attacker wins`).
    pub result: String,
    pub captured: bool,
    /// Every die, in the order rolled.
    pub dice: Vec<u8>,
    pub listing: String,
}

/// If `event` is a battle or raid: its view (numbered by the caller).
pub fn battle_view(
    ruleset: &Ruleset,
    number: usize,
    version: u64,
    round: u32,
    event: &GameEvent,
) -> Option<BattleView> {
    let name = |id: warlog_rules::board::TerritoryId| ruleset.board.get(id).name.clone();
    let dice = warlog_rules::game::replay::dice_rolled(event)
        .iter()
        .map(|d| d.value())
        .collect();
    match event {
        GameEvent::BattleFought(fought) => Some(BattleView {
            number,
            version,
            round,
            kind: "battle",
            territory: name(fought.territory),
            attacker: fought.attacker,
            defenders: fought.defenders.clone(),
            outcome: format!("{:?}", fought.outcome),
            result: fought.outcome.describe().to_owned(),
            captured: fought.captured,
            dice,
            listing: fought.listing.clone(),
        }),
        GameEvent::RaidFlown(raid) => Some(BattleView {
            number,
            version,
            round,
            kind: "bombing-raid",
            territory: name(raid.territory),
            attacker: raid.attacker,
            defenders: vec![raid.victim],
            outcome: format!("{} IPC lost", raid.raid.ipc_lost),
            result: format!("{} IPC lost", raid.raid.ipc_lost),
            captured: false,
            dice,
            listing: raid.raid.render(),
        }),
        GameEvent::AirRaidFlown(raid) => Some(BattleView {
            number,
            version,
            round,
            kind: "air-raid",
            territory: raid.path.last().map(|t| name(*t)).unwrap_or_default(),
            attacker: raid.power,
            defenders: vec![raid.victim],
            outcome: format!("${} lost", raid.cash_lost),
            result: format!("${} lost", raid.cash_lost),
            captured: false,
            dice,
            listing: format!(
                "AA [{}], shot down {:?}; damage [{}]: ${} off {}",
                raid.anti_aircraft
                    .iter()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join(" "),
                raid.shot_down
                    .iter()
                    .map(|(u, n)| format!("{n} {}", ruleset.catalogue.get(*u).code))
                    .collect::<Vec<_>>(),
                raid.damage_dice
                    .iter()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join(" "),
                raid.cash_lost,
                raid.victim
            ),
        }),
        GameEvent::WarMoveResolved(moved) => moved.battle.as_ref().map(|battle| {
            let mut defenders: Vec<Power> = battle.defenders.iter().map(|(o, _, _)| *o).collect();
            if battle.militia > 0 {
                defenders.push(Power::Npn);
            }
            defenders.sort();
            defenders.dedup();
            BattleView {
                number,
                version,
                round,
                kind: "war-battle",
                territory: name(battle.territory),
                attacker: battle.attacker,
                defenders,
                outcome: format!("{:?}", battle.outcome),
                result: battle.outcome.describe().to_owned(),
                captured: moved.taken,
                dice,
                listing: battle.listing(ruleset.rules()),
            }
        }),
        _ => None,
    }
}

/// A finished game's result.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PlacementsView {
    pub game_id: String,
    #[schema(value_type = Vec<Object>)]
    pub placements: Vec<PlacementRow>,
    /// How ties are placed and scored.
    pub tie_policy: &'static str,
}

impl PlacementsView {
    pub fn new(log: &GameLog, placements: Vec<PlacementRow>) -> Self {
        PlacementsView {
            game_id: log.created.game_id.clone(),
            placements,
            tie_policy: TIE_POLICY,
        }
    }
}

/// A unit type as the rulesets endpoint lists it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct UnitView {
    /// The index stored in event payloads.
    pub id: usize,
    pub code: String,
    pub name: String,
    pub cost: u32,
    pub attack: u8,
    pub defense: u8,
    pub movement: u8,
    pub hit_points: u8,
    #[schema(value_type = String)]
    pub domain: warlog_rules::units::Domain,
    #[schema(value_type = Vec<String>)]
    pub abilities: Vec<warlog_rules::units::Ability>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TerritoryView {
    /// The index stored in event payloads.
    pub id: usize,
    pub name: String,
    pub sea: bool,
    pub ipc: u32,
    #[schema(value_type = Option<String>)]
    pub original_owner: Option<Power>,
    pub capital: bool,
    pub aliases: Vec<String>,
    /// Names of the places next door.
    pub neighbours: Vec<String>,
}

/// A place at the start: who holds it, its units by code, and any other powers' units.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SetupPlaceView {
    pub territory: String,
    #[schema(value_type = String)]
    pub power: Power,
    /// The holder's units: code to count.
    pub units: BTreeMap<String, u32>,
    /// Other powers' units standing here (AAP: the CCP's beside the KMT's).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub others: Vec<SetupUnitsView>,
}

/// One power's units in a place another holds.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SetupUnitsView {
    #[schema(value_type = String)]
    pub power: Power,
    pub units: BTreeMap<String, u32>,
}

/// A ruleset in summary.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RulesetSummary {
    pub id: String,
    pub name: String,
    #[schema(value_type = Vec<String>)]
    pub powers: Vec<Power>,
    /// The seed documents it follows.
    pub sources: Vec<String>,
    /// `builtin` or `uploaded`.
    pub origin: &'static str,
    /// An upload's revision (1, 2, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision: Option<u64>,
    /// SHA-256 of the document: what games created with it record.
    pub hash: String,
    /// Whether a game can be created with it now.
    pub playable: bool,
    /// Why not, if not (`board-required`: a director uploads the board first).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_playable: Option<String>,
}

impl RulesetSummary {
    pub fn of(known: &KnownRuleset) -> Self {
        Self::with(known, known.playable(&Default::default()).err())
    }

    /// The summary, whether the ruleset is playable already known (`not_playable`: why not).
    fn with(known: &KnownRuleset, not_playable: Option<ApiError>) -> Self {
        let document = &known.document;
        RulesetSummary {
            id: document.id.clone(),
            name: document.name.clone(),
            powers: document.turn_order.clone(),
            sources: document.sources.clone(),
            origin: if known.revision.is_some() {
                "uploaded"
            } else {
                "builtin"
            },
            revision: known.revision,
            hash: known.hash.clone(),
            playable: not_playable.is_none(),
            not_playable: not_playable.map(|e| e.detail),
        }
    }
}

/// A ruleset in full: units, board, setup, scoring. A ruleset without a board (one still
/// to be uploaded) lists its units and no territories.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RulesetView {
    #[serde(flatten)]
    pub summary: RulesetSummary,
    pub units: Vec<UnitView>,
    pub territories: Vec<TerritoryView>,
    pub setup: Vec<SetupPlaceView>,
    /// Points by place.
    pub points: Vec<String>,
    pub tie_policy: &'static str,
    /// Options a game may set, by name.
    pub options: Vec<String>,
    /// The document: `GET /v1/rulesets/{id}/document`.
    pub document: String,
}

impl RulesetView {
    pub fn of(known: &KnownRuleset) -> Result<Self, ApiError> {
        let document = &known.document;
        let catalogue = Catalogue::from_units(&document.id, &document.name, &document.units)
            .map_err(corrupt)?;
        let points = PointsTable::new(document.scoring.points().to_vec());
        let playable = known.playable(&Default::default());
        let ruleset = playable.as_ref().ok().copied();
        let board = ruleset.map(|r| &r.board);
        Ok(RulesetView {
            summary: RulesetSummary::with(known, playable.err()),
            units: catalogue
                .units()
                .map(|(id, u)| UnitView {
                    id: id.index(),
                    code: u.code.clone(),
                    name: u.name.clone(),
                    cost: u.cost,
                    attack: u.attack,
                    defense: u.defense,
                    movement: u.movement,
                    hit_points: u.hit_points,
                    domain: u.domain,
                    abilities: u.abilities.clone(),
                })
                .collect(),
            territories: board
                .into_iter()
                .flat_map(|board| {
                    board.territories().map(move |(id, t)| TerritoryView {
                        id: id.index(),
                        name: t.name.clone(),
                        sea: t.sea,
                        ipc: t.ipc,
                        original_owner: t.original_owner,
                        capital: t.capital,
                        aliases: t.aliases.clone(),
                        neighbours: board
                            .neighbours(id)
                            .iter()
                            .map(|n| board.get(*n).name.clone())
                            .collect(),
                    })
                })
                .collect(),
            setup: ruleset
                .into_iter()
                .flat_map(|r| {
                    let by_code = |units: &[(UnitTypeId, u32)]| {
                        units
                            .iter()
                            .map(|(u, n)| (r.catalogue.get(*u).code.clone(), *n))
                            .collect()
                    };
                    r.setup.places.iter().map(move |p| SetupPlaceView {
                        territory: r.board.get(p.territory).name.clone(),
                        power: p.power,
                        units: by_code(&p.units),
                        others: p
                            .others
                            .iter()
                            .map(|(power, units)| SetupUnitsView {
                                power: *power,
                                units: by_code(units),
                            })
                            .collect(),
                    })
                })
                .collect(),
            points: (1..=points.places())
                .map(|place| points.for_place(place).to_string())
                .collect(),
            tie_policy: TIE_POLICY,
            options: document
                .options
                .iter()
                .map(|o| o.as_str().to_owned())
                .collect(),
            document: format!("/v1/rulesets/{}/document", document.id),
        })
    }
}

/// An event as the API shows it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct EventView {
    /// Position in the global log.
    pub position: i64,
    pub stream_id: String,
    pub stream_version: u64,
    pub event_id: uuid::Uuid,
    pub event_type: String,
    pub event_version: u32,
    #[schema(value_type = Object)]
    pub payload: serde_json::Value,
    /// actor, causation_id, correlation_id, idempotency_key, recorded_at.
    #[schema(value_type = Object)]
    pub metadata: serde_json::Value,
    /// Hex SHA-256 of the stream's previous event (the stream's genesis hash for version 1).
    pub prev_hash: String,
    /// Hex SHA-256(prev_hash || canonical bytes of this event).
    pub hash: String,
}

impl EventView {
    /// An event just appended, as a reader will see it.
    pub fn appended(
        stream: &StreamId,
        event: &warlog_events::NewEvent,
        at: &warlog_store::AppendedEvent,
    ) -> Self {
        EventView {
            position: at.position,
            stream_id: stream.to_string(),
            stream_version: at.stream_version,
            event_id: event.event_id,
            event_type: event.event_type.to_string(),
            event_version: event.event_version,
            payload: event.payload.clone(),
            metadata: event.metadata.clone(),
            prev_hash: at.prev_hash.to_hex(),
            hash: at.hash.to_hex(),
        }
    }
}

impl From<RecordedEvent> for EventView {
    fn from(e: RecordedEvent) -> Self {
        EventView {
            position: e.position,
            stream_id: e.stream_id.into(),
            stream_version: e.stream_version,
            event_id: e.event_id,
            event_type: e.event_type.into(),
            event_version: e.event_version,
            payload: e.payload,
            metadata: e.metadata,
            prev_hash: e.prev_hash.to_hex(),
            hash: e.hash.to_hex(),
        }
    }
}

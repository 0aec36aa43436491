//! Battles inside a game: the units in a contested place fight it out with the battle
//! engine, every die is recorded in the event, and a win with land units takes the
//! territory (its AA guns and complexes too; a capital's treasury goes to its captor).
//!
//! Partners defend together: their units fight as one side, and the losses of each unit
//! type fall on the guests before the territory's holder.

use std::collections::BTreeMap;

use super::capture::take_territory;
use super::defenders::defenders;
use super::guerrillas;
use super::standing;
use super::sub_retreat::{self, SubsRetreated};
use super::{
    require_phase, take_units, violation, GameEvent, GameState, Phase, RuleViolation, Rules,
};
use crate::battle::{
    bombing_raid, resolve, Battle, BattleKind, BombingRaid, CombatOrder, DefendingGroup, Outcome,
    RetreatOrder,
};
use crate::battle::{BattleLog, Side};
use crate::board::{Power, TerritoryId};
use crate::dice::{DiceSource, Die, RecordingDice};
use crate::game::ViolationCode;
use crate::units::{Ability, Domain, UnitTypeId};

/// The attacker's orders for one battle (Part 13: sent with the turn).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BattleOrders {
    pub territory: TerritoryId,
    pub combat: Option<CombatOrder>,
    pub order_of_loss: Vec<UnitTypeId>,
    pub retreat: Option<RetreatOrder>,
    /// Where surviving attackers withdraw to, if they do: adjacent and the attacker's own,
    /// settled before any die. Unnamed or unusable, the first such place in the board's
    /// order (see `withdrawal_destination`); with none, the attacker cannot withdraw.
    pub retreat_to: Option<TerritoryId>,
    /// Bomb the industrial complex instead of fighting (bombers only).
    pub bombing_raid: bool,
    /// Sea zones next door whose battleships bombard this land battle.
    pub bombard_from: Vec<TerritoryId>,
    /// Japan's kamikaze run (one a turn): the defending ship a fighter dives onto.
    pub kamikaze_target: Option<UnitTypeId>,
    /// Attacking guerrillas (AAP 3.1) stop firing, and the battle ends with both sides in
    /// place: after round N (0: before the first die) or once N units or fewer are left.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blend_in: Option<RetreatOrder>,
}

impl BattleOrders {
    pub fn at(territory: TerritoryId) -> Self {
        BattleOrders {
            territory,
            combat: None,
            order_of_loss: Vec::new(),
            retreat: None,
            retreat_to: None,
            bombing_raid: false,
            bombard_from: Vec::new(),
            kamikaze_target: None,
            blend_in: None,
        }
    }
}

/// Units left after a battle: (type, damage, how many).
pub type Survivors = Vec<(UnitTypeId, u8, u32)>;

/// A defender's units left after a battle: (owner, type, damage, how many).
pub type DefenderSurvivors = Vec<(Power, UnitTypeId, u8, u32)>;

/// A fought battle, as recorded in the event log.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BattleFought {
    pub attacker: Power,
    /// The defending power that holds the place (or the first defender at sea).
    pub defender: Option<Power>,
    /// Every power whose units defended.
    pub defenders: Vec<Power>,
    pub territory: TerritoryId,
    pub outcome: Outcome,
    /// Every die, in the order rolled: the battle can be replayed from them.
    pub dice: Vec<Die>,
    pub attacker_left: Survivors,
    pub defender_left: DefenderSurvivors,
    /// Where the attacker withdrew, named or by default; `None` when it did not.
    pub retreat_to: Option<TerritoryId>,
    /// Where the defender's submarines withdrew, when only aircraft faced them (IAAPA sub
    /// rule); the attacker's go to `retreat_to`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subs_withdrew_to: Option<TerritoryId>,
    /// The defender's submarines that retreated to a safe zone before the first die, by
    /// its standing orders (Cut-Throat, Sub movements).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subs_retreated: Option<SubsRetreated>,
    /// Whether the attacker took the territory.
    pub captured: bool,
    /// A partner's original territory taken back: it returns to that partner (never a
    /// capital: only its own troops liberate a capital).
    pub liberated_for: Option<Power>,
    /// IPC taken from the defender's treasury with its capital.
    pub plunder: u32,
    /// Battleships that bombarded, by sea zone (spent for the turn).
    pub bombarded_from: Vec<(TerritoryId, u32)>,
    /// Whether this battle used the turn's kamikaze run.
    pub kamikaze: bool,
    /// The attacker's orders for the battle: with the state before it and the dice, an
    /// auditor fights the battle again and must get this event.
    pub orders: BattleOrders,
    /// The defender's sealed standing orders the battle followed, as revealed, and when
    /// they were given. (Orders given in the open, in games before sealing, are not
    /// repeated here.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub standing_orders: Option<standing::AppliedOrders>,
    /// The battle in Part 13's notation, column by column and round by round.
    pub listing: String,
}

const BATTLES: &str = "Part 13, GM requirements";

/// A battle ready to be fought: everything that can refuse it is settled.
struct Prepared<'a, 's> {
    battle: Battle<'a>,
    defenders: Vec<Power>,
    defender: Option<Power>,
    followed: Option<standing::Followed<'s>>,
    bombarded_from: Vec<(TerritoryId, u32)>,
    withdraw_to: Option<TerritoryId>,
    subs_retreated: Option<SubsRetreated>,
    /// Why the defender's order to blend in was not followed.
    blend_in_refused: Option<&'static str>,
}

/// What a battle order leads to before any die: a raid, or a battle ready to be fought.
enum Ready<'a, 's> {
    Raid,
    Battle(Box<Prepared<'a, 's>>),
}

pub(super) fn decide_battle(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    orders: &BattleOrders,
    dice: &mut dyn DiceSource,
) -> Result<Vec<GameEvent>, RuleViolation> {
    let territory = orders.territory;
    let place = rules.board.get(territory);
    let Prepared {
        battle,
        defenders,
        defender,
        followed,
        bombarded_from,
        withdraw_to,
        subs_retreated,
        blend_in_refused,
    } = match prepare(rules, state, power, orders)? {
        Ready::Raid => return decide_raid(rules, state, power, territory, dice),
        Ready::Battle(prepared) => *prepared,
    };
    let staying = sub_retreat::staying(&state.forces[territory.index()], subs_retreated.as_ref());
    // AAP 7.1: submarines the attacker may not attack sit the battle out, and stay.
    let (forces, sat_out): (BTreeMap<_, _>, BTreeMap<_, _>) = staying
        .iter()
        .map(|(key, n)| (*key, *n))
        .partition(|((owner, unit, _), _)| {
            !super::hidden_subs::sits_out(rules, state, territory, (*owner, *unit), power)
        });
    let sat_out: DefenderSurvivors = sat_out
        .into_iter()
        .filter(|((owner, _, _), _)| defenders.contains(owner))
        .map(|((owner, unit, damage), n)| (owner, unit, damage, n))
        .collect();
    let forces = &forces;

    let mut recording = RecordingDice::new(dice);
    let log = resolve(&battle, &mut recording).map_err(|e| violation(e.code, e.rule, e.message))?;
    let dice = recording.into_rolled();

    let retreat_to = withdraw_to.filter(|_| log.outcome == Outcome::AttackerRetreated);
    // IAAPA sub rule: after a round where only aircraft face only submarines, the battle
    // ends and the surviving submarines withdraw to a neighbouring friendly or empty zone.
    let (retreat_to, subs_withdrew_to) = match subs_facing_only_aircraft(rules, place.sea, &log) {
        Some(Side::Attacker) if rules.special.subs_withdraw_from_aircraft => (
            retreat_to.or_else(|| withdrawal_zone(rules, state, territory, power)),
            None,
        ),
        Some(Side::Defender) if rules.special.subs_withdraw_from_aircraft => (
            retreat_to,
            defender.and_then(|d| withdrawal_zone(rules, state, territory, d)),
        ),
        _ => (retreat_to, None),
    };
    // AAP 3.3: "Japan automatically controls an area if the CCP submerge", as it holds
    // one it wins, with a land unit there.
    let taken = match log.outcome {
        Outcome::AttackerWins => true,
        Outcome::DefenderBlendedIn => state.holder[territory.index()] != Some(power),
        _ => false,
    };
    let captured = taken
        && !place.sea
        && log
            .left(Side::Attacker)
            .any(|kind| rules.catalogue.get(kind).domain == Domain::Land);
    let plunder = match defender {
        Some(d) if captured && place.capital && place.original_owner == Some(d) => {
            state.treasury.get(&d).copied().unwrap_or(0)
        }
        _ => 0,
    };
    let liberated_for = place.original_owner.filter(|owner| {
        captured
            && !place.capital
            && *owner != power
            && !state.at_war(power, *owner)
            && !state.capital_lost(rules, *owner)
    });
    let group = |side: Side| -> Survivors {
        let mut counts: BTreeMap<(UnitTypeId, u8), u32> = BTreeMap::new();
        for l in log.left(side).lines() {
            *counts.entry((l.kind, l.damage)).or_default() += l.count;
        }
        counts.into_iter().map(|((k, d), n)| (k, d, n)).collect()
    };
    let fought = GameEvent::BattleFought(Box::new(BattleFought {
        attacker: power,
        defender,
        defender_left: share_survivors(forces, &defenders, &group(Side::Defender))
            .into_iter()
            .chain(sat_out)
            .collect(),
        defenders,
        territory,
        outcome: log.outcome,
        dice,
        attacker_left: group(Side::Attacker),
        retreat_to,
        subs_withdrew_to,
        subs_retreated: subs_retreated.clone(),
        captured,
        liberated_for,
        plunder,
        bombarded_from,
        kamikaze: battle.kamikaze_target.is_some(),
        orders: orders.clone(),
        standing_orders: followed.and_then(standing::applied),
        listing: standing::listing_line(rules, followed, place.sea)
            + &sub_retreat::listing_line(rules, subs_retreated.as_ref())
            + &guerrillas::blend_in_refused_line(defender, blend_in_refused)
            + &log.render(rules.catalogue),
    }));
    let mut events = vec![fought];
    // A capital taken: every agreement of its power is void at once.
    if captured {
        let voided = super::diplomacy::capital_taken(rules, state, &events[0], territory, defender);
        events.extend(voided);
    }
    Ok(events)
}

/// The battle `orders` ask for, prepared on `state`: every check that can refuse it is
/// made here, before any die.
fn prepare<'a, 's>(
    rules: Rules<'a>,
    state: &'s GameState,
    power: Power,
    orders: &BattleOrders,
) -> Result<Ready<'a, 's>, RuleViolation> {
    require_phase(state, Phase::Battles, "fighting a battle")?;
    let territory = orders.territory;
    let place = rules.board.get(territory);
    if !state.contested.contains_key(&territory) {
        return Err(violation(
            ViolationCode::NoBattleHere,
            BATTLES,
            format!("there is no battle to fight in {}", place.name),
        ));
    }
    if orders.bombing_raid {
        if state.air_transports.contains_key(&territory) {
            return Err(violation(
                ViolationCode::ParatroopBombers,
                "Cut-Throat, Paratroopers",
                "bombers that carried troops perform no strategic bombing that turn",
            ));
        }
        return Ok(Ready::Raid);
    }
    let (defenders, defender) = defenders(rules, state, power, territory);
    // The principal defender's standing orders: for this place, else for all its battles.
    let followed = standing::for_battle(rules, state, defender, territory)?;
    // Submarines ordered to a safe zone leave before the first die.
    // (Not for a walk-in, refused where the board shows defenders: an answer that
    // depended on the retreat would tell the defender's orders.)
    let subs_retreated = sub_retreat::planned(rules, state, territory, power, followed)
        .filter(|_| orders.combat != Some(CombatOrder::WalkIn));
    let forces = sub_retreat::staying(&state.forces[territory.index()], subs_retreated.as_ref());
    let forces = &*forces;

    let kind = if place.sea {
        BattleKind::Sea
    } else {
        BattleKind::Land
    };
    let mut battle = Battle::new(rules.catalogue, kind);
    battle.heavy_weapons = rules.special.heavy_weapons;
    battle.attacker_uncounted = rules.special.heavy_weapons_uncounted.contains(&power);
    battle.saac_from_round = rules.special.saac_from_round;
    battle.defender_hits_by_column = rules.special.defender_hits_by_column;
    line_up(
        rules,
        state,
        power,
        territory,
        forces,
        &defenders,
        &mut battle,
    );
    let bombarded_from = support_shots(rules, state, power, territory, &orders.bombard_from)?;
    battle.support_shots = bombarded_from.iter().map(|(_, n)| n).sum();
    if let Some(target) = orders.kamikaze_target {
        battle.kamikaze_target =
            kamikaze_target(state, power, target, subs_retreated.as_ref(), &battle)?;
    }
    battle.attacker_orders.combat = orders.combat;
    battle.attacker_orders.order_of_loss = orders.order_of_loss.clone();
    battle.attacker_orders.retreat = orders.retreat;
    battle.attacker_orders.blend_in =
        guerrillas::attacker_blend_in(rules, state, power, territory, orders.blend_in)?;
    let blend_in = guerrillas::defender_blend_in(rules, state, territory, &defenders, followed);
    battle.defender_orders.blend_in = blend_in.unwrap_or(None);
    if let Some(standing) = followed.map(|f| f.orders) {
        battle.defender_orders.order_of_loss = standing.order_of_loss.clone();
        battle.defender_orders.submerge_subs = standing.submerge_subs && place.sea;
        battle.defender_orders.battleships_absorb = Some(standing.battleships_absorb);
    }
    battle.attacker_technologies = state
        .technologies
        .get(&power)
        .into_iter()
        .flatten()
        .copied()
        .collect();
    battle.defender_technologies = defender
        .and_then(|d| state.technologies.get(&d))
        .into_iter()
        .flatten()
        .copied()
        .collect();

    // Settled before the first die: a refusal after the dice would show the player how
    // they fell, and nothing of a refusal is recorded (issue 39).
    let withdraw_to = withdrawal_destination(rules, state, power, territory, orders.retreat_to);
    battle.attacker_may_withdraw = withdraw_to.is_some();

    Ok(Ready::Battle(Box::new(Prepared {
        battle,
        defenders,
        defender,
        followed,
        bombarded_from,
        withdraw_to,
        subs_retreated,
        blend_in_refused: blend_in.err(),
    })))
}

/// Who fights on each side, from the place's forces less the submarines that retreated:
/// the attacker's units (not cargo at sea, nor bombers that carried paratroopers here), the
/// defenders' that may fight, each nation's group for heavy weapons, and the damaged.
fn line_up(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    territory: TerritoryId,
    forces: &BTreeMap<super::StackKey, u32>,
    defenders: &[Power],
    battle: &mut Battle<'_>,
) {
    let place = rules.board.get(territory);
    let mut attacker_units: BTreeMap<UnitTypeId, u32> = BTreeMap::new();
    let mut defender_units: BTreeMap<UnitTypeId, u32> = BTreeMap::new();
    // Cargo does not fight at sea.
    let fights =
        |unit: &UnitTypeId| !(place.sea && rules.catalogue.get(*unit).domain == Domain::Land);
    for ((owner, unit, _), n) in forces.iter().filter(|((_, unit, _), _)| fights(unit)) {
        if *owner == power {
            *attacker_units.entry(*unit).or_default() += n;
        } else if defenders.contains(owner)
            && super::hidden_subs::fights(rules, state, territory, *owner, *unit, power)
        {
            *defender_units.entry(*unit).or_default() += n;
        }
    }
    // Bombers that carried paratroopers here do not fight.
    if let (Some(bomber), Some(&carrying)) = (
        rules.catalogue.bomber(),
        state.air_transports.get(&territory),
    ) {
        if let Some(n) = attacker_units.get_mut(&bomber) {
            *n = n.saturating_sub(carrying);
        }
        attacker_units.retain(|_, n| *n > 0);
    }
    // An amphibious assault's units that came ashore this turn (the marines' bonus).
    battle.landed = attacker_units
        .iter()
        .filter(|_| !place.sea)
        .filter_map(|(unit, n)| {
            let ashore = state.landed.get(&(territory, *unit)).copied().unwrap_or(0);
            (ashore > 0).then_some((*unit, ashore.min(*n)))
        })
        .collect();
    battle.attacker = attacker_units.into_iter().collect();
    battle.defender = defender_units.into_iter().collect();
    if battle.heavy_weapons {
        // AAP 3.3: each nation's group counts on its own; the CCP's forces never count.
        battle.defender_groups = defenders
            .iter()
            .map(|owner| DefendingGroup {
                units: forces
                    .iter()
                    .filter(|((o, unit, _), _)| {
                        o == owner
                            && fights(unit)
                            && super::hidden_subs::fights(rules, state, territory, *o, *unit, power)
                    })
                    .map(|((_, unit, _), n)| (*unit, *n))
                    .collect(),
                counts: *owner != Power::Ccp,
            })
            .collect();
    }
    battle.defender_damaged = forces
        .iter()
        .filter(|((owner, _, damage), _)| defenders.contains(owner) && *damage > 0)
        .map(|((_, unit, _), n)| (*unit, *n))
        .collect();
}

/// Japan's kamikaze run, one a turn; called off (`None`) when aimed at submarines that all
/// retreated.
fn kamikaze_target(
    state: &GameState,
    power: Power,
    target: UnitTypeId,
    subs_retreated: Option<&SubsRetreated>,
    battle: &Battle<'_>,
) -> Result<Option<UnitTypeId>, RuleViolation> {
    if power != Power::Japan {
        return Err(violation(
            ViolationCode::KamikazeJapanOnly,
            KAMIKAZE,
            "only Japan flies kamikaze runs",
        ));
    }
    if state.kamikaze_used_this_turn {
        return Err(violation(
            ViolationCode::KamikazeOnceATurn,
            KAMIKAZE,
            "one kamikaze attack per turn",
        ));
    }
    // A run at submarines that all retreated before the first die is called off: a
    // refusal would tell the attacker the defender's secret orders.
    let aimed_at_the_retreat = subs_retreated
        .is_some_and(|r| r.subs.iter().any(|(unit, _, _)| *unit == target))
        && !battle
            .defender
            .iter()
            .any(|(unit, n)| *unit == target && *n > 0);
    Ok((!aimed_at_the_retreat).then_some(target))
}

/// The exact odds of the battle `orders` ask for, on `state`, within `work`: what a
/// preview shows instead of dice. A bombing raid has none (`None`).
pub fn odds_of(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    orders: &BattleOrders,
    work: &crate::battle::Work,
) -> Result<Option<crate::battle::Odds>, RuleViolation> {
    match prepare(rules, state, power, orders)? {
        Ready::Raid => Ok(None),
        Ready::Battle(prepared) => crate::battle::exact_odds_within(&prepared.battle, work)
            .map(Some)
            .map_err(|e| violation(e.code, e.rule, e.message)),
    }
}

/// Which side's submarines face only the other side's aircraft at the end of a battle
/// that ended for that reason.
fn subs_facing_only_aircraft(rules: Rules<'_>, sea: bool, log: &BattleLog) -> Option<Side> {
    if !sea || log.outcome != Outcome::Disengaged {
        return None;
    }
    let cat = rules.catalogue;
    let only = |side: Side, test: &dyn Fn(UnitTypeId) -> bool| {
        let left = log.left(side);
        !left.is_empty() && left.all(test)
    };
    let sub = |u: UnitTypeId| cat.get(u).has(Ability::FirstStrike);
    let air = |u: UnitTypeId| cat.get(u).domain == Domain::Air;
    if only(Side::Attacker, &sub) && only(Side::Defender, &air) {
        Some(Side::Attacker)
    } else if only(Side::Defender, &sub) && only(Side::Attacker, &air) {
        Some(Side::Defender)
    } else {
        None
    }
}

/// Where the attacker withdraws from `territory` if it does, settled before any die. A place
/// it names is used if it is next door, not contested, and its own land or a sea zone.
/// Otherwise (none named, or one it cannot withdraw to) the first neighbouring place in the
/// board's order of the battle's own kind: land the attacker holds, or a sea zone with no
/// enemy units, with no battle pending there either way (the rules name no place, so the
/// choice is mechanical). `None`: nowhere to go, and the battle fights on.
///
/// An unusable named place is read as none named rather than refused: the engine before
/// issue 39 checked it only once the attacker withdrew, so recorded battles that named one
/// and never withdrew must be decided again exactly as they were (and are: the dice do not
/// depend on where a withdrawal would go).
fn withdrawal_destination(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    territory: TerritoryId,
    named: Option<TerritoryId>,
) -> Option<TerritoryId> {
    let board = rules.board;
    let quiet = |t: &TerritoryId| !state.contested.contains_key(t);
    // Adjacency first: it also vouches for the place being on the board.
    let usable = |to: &TerritoryId| {
        board.adjacent(territory, *to)
            && (state.holder[to.index()] == Some(power) || board.get(*to).sea)
            && quiet(to)
    };
    if let Some(to) = named.filter(usable) {
        return Some(to);
    }
    if board.get(territory).sea {
        return withdrawal_zone(rules, state, territory, power);
    }
    board
        .neighbours(territory)
        .iter()
        .copied()
        .filter(|t| !board.get(*t).sea && state.holder[t.index()] == Some(power) && quiet(t))
        .min()
}

/// Where `power`'s submarines withdraw from `territory`: the first neighbouring sea zone,
/// in the board's order, where no power at war with it has units ("an adjacent friendly or
/// empty sea zone": the rule names none, so the choice is mechanical); none, they stay.
fn withdrawal_zone(
    rules: Rules<'_>,
    state: &GameState,
    territory: TerritoryId,
    power: Power,
) -> Option<TerritoryId> {
    sub_retreat::safe_zone(rules, state, territory, (power, None), None)
}

/// Gives each defending power its share of the survivors: of each unit type, the powers
/// listed last (the holder) keep theirs first; damage goes with the survivors in order.
fn share_survivors(
    forces: &BTreeMap<super::StackKey, u32>,
    defenders: &[Power],
    left: &Survivors,
) -> DefenderSurvivors {
    let mut shared = Vec::new();
    let mut remaining: Vec<(UnitTypeId, u8, u32)> = left.clone();
    for &owner in defenders.iter().rev() {
        for (unit, damage, n) in remaining.iter_mut() {
            let had: u32 = forces
                .iter()
                .filter(|((o, u, _), _)| *o == owner && u == unit)
                .map(|(_, c)| c)
                .sum();
            let already: u32 = shared
                .iter()
                .filter(|(o, u, _, _)| *o == owner && u == unit)
                .map(|(_, _, _, c)| c)
                .sum();
            let keep = (*n).min(had.saturating_sub(already));
            if keep > 0 {
                shared.push((owner, *unit, *damage, keep));
                *n -= keep;
            }
        }
    }
    shared
}

const KAMIKAZE: &str = "Cut-Throat, Japan's Kamikazi attacks";
const BOMBARDMENT: &str = "Part 13 step 2; Classic rules, Amphibious assaults";

/// The battleships that may bombard a land battle from each named sea zone: next door, no
/// battle of their own there this turn, undamaged and not yet spent.
fn support_shots(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    territory: TerritoryId,
    zones: &[TerritoryId],
) -> Result<Vec<(TerritoryId, u32)>, RuleViolation> {
    let place = rules.board.get(territory);
    let battleship = rules.catalogue.battleship();
    let mut shots = Vec::new();
    for &zone in zones {
        let sea = rules.board.get(zone);
        if place.sea
            || !sea.sea
            || !rules.board.adjacent(zone, territory)
            || state.contested.contains_key(&zone)
        {
            return Err(violation(
                ViolationCode::BadBombardment,
                BOMBARDMENT,
                format!("battleships bombard a land battle from a quiet sea zone next to it; {} is not one for {}", sea.name, place.name),
            ));
        }
        if state.kamikaze_struck.contains(&zone) {
            return Err(violation(
                ViolationCode::BadBombardment,
                BOMBARDMENT,
                format!(
                    "the kamikazes struck {} this turn: its ships bombard nothing",
                    sea.name
                ),
            ));
        }
        let Some(bb) = battleship else { break };
        let present = state.forces[zone.index()]
            .get(&(power, bb, 0))
            .copied()
            .unwrap_or(0);
        let spent = state.moved.get(&(zone, bb)).map_or(0, |(n, _)| *n);
        let ready = present.saturating_sub(spent);
        if ready == 0 {
            return Err(violation(
                ViolationCode::NoBattleship,
                BOMBARDMENT,
                format!("{power} has no battleship ready to bombard in {}", sea.name),
            ));
        }
        shots.push((zone, ready));
    }
    Ok(shots)
}

/// A strategic bombing raid, as recorded.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RaidFlown {
    pub attacker: Power,
    /// Who holds the complex and pays.
    pub victim: Power,
    pub territory: TerritoryId,
    pub raid: BombingRaid,
}

const BOMBING: &str = "Classic rules, Strategic bombing raids";

fn decide_raid(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    territory: TerritoryId,
    dice: &mut dyn DiceSource,
) -> Result<Vec<GameEvent>, RuleViolation> {
    let place = rules.board.get(territory);
    let forces = &state.forces[territory.index()];
    let is = |unit: &UnitTypeId, ability| rules.catalogue.get(*unit).has(ability);
    let bomber = |unit: &UnitTypeId| Some(*unit) == rules.catalogue.bomber();
    let mine: Vec<(UnitTypeId, u32)> = forces
        .iter()
        .filter(|((owner, _, _), n)| *owner == power && **n > 0)
        .map(|((_, unit, _), n)| (*unit, *n))
        .collect();
    if mine.is_empty() || !mine.iter().all(|(unit, _)| bomber(unit)) {
        return Err(violation(
            ViolationCode::RaidBombersOnly,
            BOMBING,
            "a bombing raid is flown by bombers alone",
        ));
    }
    let has_factory = forces.keys().any(|(_, unit, _)| is(unit, Ability::Factory));
    let victim = state.holder[territory.index()].filter(|h| *h != power);
    let Some(victim) = victim.filter(|_| has_factory) else {
        return Err(violation(
            ViolationCode::NoComplex,
            BOMBING,
            format!("{} holds no enemy industrial complex to bomb", place.name),
        ));
    };
    let bombers: u32 = mine.iter().map(|(_, n)| n).sum();
    let anti_aircraft = forces
        .iter()
        .any(|((owner, unit, _), n)| *owner == victim && *n > 0 && is(unit, Ability::AntiAircraft));
    let technologies: Vec<_> = state
        .technologies
        .get(&power)
        .into_iter()
        .flatten()
        .copied()
        .collect();
    let treasury = state.treasury.get(&victim).copied().unwrap_or(0);
    let raid = bombing_raid(bombers, &technologies, anti_aircraft, treasury, dice);
    // AAP, 5.1: a raid that takes all of Japan's or the US's money is a surrender.
    let bombed_out = treasury > 0
        && raid.ipc_lost == treasury
        && rules.special.surrender_when_bombed_out.contains(&territory);
    let mut events = vec![GameEvent::RaidFlown(Box::new(RaidFlown {
        attacker: power,
        victim,
        territory,
        raid,
    }))];
    if bombed_out {
        events.push(GameEvent::PowerSurrendered {
            power: victim,
            territory,
        });
    }
    Ok(events)
}

pub(super) fn apply_raid(rules: Rules<'_>, state: &mut GameState, flown: &RaidFlown) {
    let treasury = state.treasury.entry(flown.victim).or_default();
    *treasury = treasury.saturating_sub(flown.raid.ipc_lost);
    if let Some(bomber) = rules.catalogue.bomber() {
        let forces = &mut state.forces[flown.territory.index()];
        take_units(forces, (flown.attacker, bomber, 0), flown.raid.shot_down);
    }
    state.contested.remove(&flown.territory);
}

pub(super) fn apply_battle(rules: Rules<'_>, state: &mut GameState, fought: &BattleFought) {
    let here = fought.territory.index();
    let sea = rules.board.get(fought.territory).sea;
    let combatant = |unit: &UnitTypeId| {
        let profile = rules.catalogue.get(*unit);
        profile.is_combatant() && !(sea && profile.domain == Domain::Land)
    };
    // The fighting units are replaced by the survivors; AA guns and complexes stay.
    state.forces[here].retain(|(owner, unit, _), _| {
        !((*owner == fought.attacker || fought.defenders.contains(owner)) && combatant(unit))
    });
    if let (Some(bomber), Some(&carrying)) = (
        rules.catalogue.bomber(),
        state.air_transports.get(&fought.territory),
    ) {
        *state.forces[here]
            .entry((fought.attacker, bomber, 0))
            .or_default() += carrying;
    }
    let attacker_place = fought.retreat_to.map_or(here, TerritoryId::index);
    for &(unit, damage, n) in &fought.attacker_left {
        *state.forces[attacker_place]
            .entry((fought.attacker, unit, damage))
            .or_default() += n;
        if let Some(to) = fought.retreat_to {
            super::lending::moved(state, fought.attacker, fought.territory, to, unit, n);
        }
    }
    if let Some(retreat) = &fought.subs_retreated {
        sub_retreat::apply(state, retreat);
    }
    let defender_place = fought.subs_withdrew_to.map_or(here, TerritoryId::index);
    for &(owner, unit, damage, n) in &fought.defender_left {
        *state.forces[defender_place]
            .entry((owner, unit, damage))
            .or_default() += n;
    }
    if fought.captured {
        let taker = fought.liberated_for.unwrap_or(fought.attacker);
        take_territory(rules, state, fought.territory, taker);
    }
    if fought.plunder > 0 {
        if let Some(defender) = fought.defender {
            let loser = state.treasury.entry(defender).or_default();
            *loser = loser.saturating_sub(fought.plunder);
        }
        *state.treasury.entry(fought.attacker).or_default() += fought.plunder;
    }
    if sea {
        for &power in std::iter::once(&fought.attacker).chain(&fought.defenders) {
            drown_cargo(rules, state, fought.territory, power);
        }
    }
    if let Some(bb) = rules.catalogue.battleship() {
        for &(zone, n) in &fought.bombarded_from {
            let spent = state.moved.entry((zone, bb)).or_insert((0, u8::MAX));
            spent.0 += n;
        }
    }
    if fought.kamikaze {
        state.kamikaze_used_this_turn = true;
    }
    state.contested.remove(&fought.territory);
}

/// Cargo beyond what the surviving transports can carry goes down with the lost ones
/// (which unit was on which transport is not recorded: the cheapest go first).
fn drown_cargo(rules: Rules<'_>, state: &mut GameState, zone: TerritoryId, power: Power) {
    loop {
        let (capacity, used) = state.transport_space(rules, zone, power);
        if used <= capacity {
            return;
        }
        let cheapest = state.forces[zone.index()]
            .keys()
            .filter(|(owner, unit, _)| {
                *owner == power && rules.catalogue.get(*unit).domain == Domain::Land
            })
            .min_by_key(|(_, unit, _)| rules.catalogue.get(*unit).cost)
            .copied();
        let Some(key) = cheapest else { return };
        take_units(&mut state.forces[zone.index()], key, 1);
    }
}

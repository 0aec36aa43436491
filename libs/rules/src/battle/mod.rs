//! Battles as the IAAPA GM rolls them (seed battle-resolution-part13.txt):
//!
//! 1. first round only: a kamikaze run (Cut-Throat), the AA guns (one die per attacking
//!    aircraft, hits on 1, casualties leave the game) and battleship support shots of an
//!    amphibious assault (their casualties go to the casualty area and fire back);
//! 2. attacking submarines fire first; their casualties leave without firing back;
//! 3. the attacker's columns, 1s, 2s, 3s, 4s, each rolled "generically" (all units hitting
//!    on that number together); casualties go to the casualty area after each column;
//! 4. the defender's columns, the casualty area included; then casualties are removed;
//! 5. again, until the attacker withdraws or one side or both are destroyed.
//!
//! Hits beyond the units that can take them are overkill. Every die is recorded in the
//! [`BattleLog`], with who was lost and why.

mod bombing;
mod casualties;
mod odds;
mod render;

use std::borrow::Cow;
use std::rc::Rc;

use crate::dice::{DiceSource, Die};
use crate::tech::Technology;
use crate::units::{Ability, Catalogue, Domain, UnitTypeId};

pub use bombing::{bombing_raid, BombingRaid};

pub(crate) use casualties::default_loss_orders;
pub use casualties::{HitRules, LossOrder};
pub use odds::{describe, estimated_odds, exact_odds, exact_odds_within, Odds, Survivors, Work};

/// A battle on land (including amphibious assaults) or at sea.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BattleKind {
    Land,
    Sea,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    Attacker,
    Defender,
}

/// The IAAPA combat orders an attacker may attach to a battle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum CombatOrder {
    /// SA, the land default: when the last attacking ground unit is lost, aircraft retreat.
    SaveAir,
    /// SAAC: aircraft are lost only when nothing else is left to lose, and they retreat as
    /// soon as the defender could hit more units than the attacker has on the ground.
    SaveAirAtAllCosts,
    /// TAAC: keep one ground or sea unit to the end, losing aircraft before it.
    TakeAtAllCosts,
    /// KAAC: casualties lowest attack first; never retreat. The sea default for when to
    /// stop (never), with the default order of loss unless KAAC is ordered explicitly.
    KillAtAllCosts,
    /// WI: move into an undefended territory, no battle.
    WalkIn,
}

impl CombatOrder {
    pub const ALL: [CombatOrder; 5] = [
        CombatOrder::SaveAir,
        CombatOrder::SaveAirAtAllCosts,
        CombatOrder::TakeAtAllCosts,
        CombatOrder::KillAtAllCosts,
        CombatOrder::WalkIn,
    ];

    /// The order with this code (`SA`, `SAAC`, `TAAC`, `KAAC`, `WI`; any case).
    pub fn from_code(code: &str) -> Option<CombatOrder> {
        Self::ALL
            .into_iter()
            .find(|c| c.code().eq_ignore_ascii_case(code))
    }

    pub fn code(self) -> &'static str {
        match self {
            CombatOrder::SaveAir => "SA",
            CombatOrder::SaveAirAtAllCosts => "SAAC",
            CombatOrder::TakeAtAllCosts => "TAAC",
            CombatOrder::KillAtAllCosts => "KAAC",
            CombatOrder::WalkIn => "WI",
        }
    }
}

/// When the attacker withdraws, besides what the combat order says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum RetreatOrder {
    /// Withdraw after this round.
    AfterRound(u32),
    /// Withdraw when this many units or fewer are left.
    WhenAtMost(u32),
}

/// Why a unit was lost (or damaged).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LossReason {
    DefaultOrder,
    ExplicitOrder,
    CombatOrder(CombatOrder),
    BattleshipAbsorbs,
    AntiAircraft,
    Kamikaze,
}

/// A side's orders.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Orders {
    /// The attacker's combat order; `None` takes the default (SA on land, KAAC at sea).
    pub combat: Option<CombatOrder>,
    /// Explicit order of loss, first lost first; unlisted types follow the default.
    pub order_of_loss: Vec<UnitTypeId>,
    pub retreat: Option<RetreatOrder>,
    /// Multi-hit battleships take the first hits as damage (the default); `Some(false)` to
    /// lose other units first.
    pub battleships_absorb: Option<bool>,
    /// Defending submarines submerge when attacked (Cut-Throat): they sit out the first
    /// round, neither firing nor hit, and resurface for the next.
    pub submerge_subs: bool,
}

/// One defending nation's units, for AAP's heavy-weapons count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefendingGroup {
    pub units: Vec<(UnitTypeId, u32)>,
    /// Whether the group can make the side vulnerable (the CCP's cannot).
    pub counts: bool,
}

/// Everything a battle needs.
#[derive(Debug, Clone)]
pub struct Battle<'c> {
    pub catalogue: &'c Catalogue,
    pub kind: BattleKind,
    pub attacker: Vec<(UnitTypeId, u32)>,
    pub defender: Vec<(UnitTypeId, u32)>,
    /// Damaged multi-hit ships among the defender's (type, how many); they defend at their
    /// damaged value and take one hit fewer.
    pub defender_damaged: Vec<(UnitTypeId, u32)>,
    /// Battleships bombarding an amphibious assault (land battles only).
    pub support_shots: u32,
    pub attacker_orders: Orders,
    pub defender_orders: Orders,
    /// Cut-Throat kamikaze: one attacking fighter is lost and this defending ship is hit.
    pub kamikaze_target: Option<UnitTypeId>,
    /// AAP heavy-weapons vulnerability.
    pub heavy_weapons: bool,
    /// The defending nations' groups, the holder's last (it keeps its own units longest):
    /// AAP's heavy weapons count each nation's group on its own (allies' groups are not
    /// added together, the CCP's never counts). Empty: the side is one group.
    pub defender_groups: Vec<DefendingGroup>,
    /// The attacking aircraft have nowhere to retreat to (known from the board): when only
    /// they remain, defending submarines are lost before other defending units
    /// (reference/rules-facts.md, the exception to the default orders of loss).
    pub attacker_air_cannot_retreat: bool,
    /// Weapons the attacker has developed (super submarines, heavy bombers ...).
    pub attacker_technologies: Vec<Technology>,
    /// Weapons the defender has developed (jet fighters ...).
    pub defender_technologies: Vec<Technology>,
    /// IAAPA's land default: from this round on, an attacker who gave no combat order
    /// fights Save Air At All Costs (rules-facts.md: SAAC, "default from round 2");
    /// `None`: Save Air throughout.
    pub saac_from_round: Option<u32>,
    /// Part 13, step 5: the defender's hits are taken column by column from the 1s up,
    /// each column's submarine hits only on the units they may hit. `false`: every
    /// defending hit first, then the submarines' (the engine's first reading).
    pub defender_hits_by_column: bool,
}

impl<'c> Battle<'c> {
    pub fn new(catalogue: &'c Catalogue, kind: BattleKind) -> Self {
        Battle {
            catalogue,
            kind,
            attacker: Vec::new(),
            defender: Vec::new(),
            defender_damaged: Vec::new(),
            support_shots: 0,
            attacker_orders: Orders::default(),
            defender_orders: Orders::default(),
            kamikaze_target: None,
            heavy_weapons: false,
            defender_groups: Vec::new(),
            attacker_air_cannot_retreat: false,
            attacker_technologies: Vec::new(),
            defender_technologies: Vec::new(),
            saac_from_round: None,
            defender_hits_by_column: false,
        }
    }

    /// The IAAPA defaults Part 13 leaves to them: SAAC on land from round 2, defending
    /// hits column by column.
    pub fn with_iaapa_defaults(mut self) -> Self {
        self.saac_from_round = Some(2);
        self.defender_hits_by_column = true;
        self
    }

    /// Parses `"3 inf, 1 arm"` style lists against the catalogue.
    pub fn army(catalogue: &Catalogue, text: &str) -> Result<Vec<(UnitTypeId, u32)>, BattleError> {
        let mut army = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (count, code) = part.split_once(char::is_whitespace).unwrap_or(("1", part));
            let count: u32 = count.trim().parse().map_err(|_| {
                BattleError::new(
                    "bad-army",
                    "orders",
                    format!("{part:?} is not `<count> <unit>`"),
                )
            })?;
            let id = catalogue
                .id(code.trim())
                .map_err(|e| BattleError::new("unknown-unit", "ruleset", e.to_string()))?;
            army.push((id, count));
        }
        Ok(army)
    }
}

/// A battle that cannot be fought as given, naming the rule it breaks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} ({rule})")]
pub struct BattleError {
    /// Stable code, e.g. `walk-in-defended`.
    pub code: &'static str,
    /// The rule or document it comes from.
    pub rule: &'static str,
    pub message: String,
}

impl BattleError {
    fn new(code: &'static str, rule: &'static str, message: impl Into<String>) -> Self {
        BattleError {
            code,
            rule,
            message: message.into(),
        }
    }
}

/// One unit in a battle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Unit {
    pub kind: UnitTypeId,
    pub damage: u8,
}

/// What happened to a unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Damaged, still fighting.
    Damaged,
    /// Lost, but fires back this round (the casualty area).
    ToCasualtyArea,
    /// Lost and removed at once.
    Removed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Casualty {
    pub unit: UnitTypeId,
    pub effect: Effect,
    pub reason: LossReason,
}

/// The phase a volley belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Kamikaze,
    AntiAircraft,
    SupportShot,
    FirstStrike,
    Columns,
}

/// One rolled die: what it showed, what it needed, and whose it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RolledDie {
    pub die: Die,
    pub to_hit: u8,
    pub unit: UnitTypeId,
    pub hit: bool,
}

/// One side firing in one phase of a round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Volley {
    pub side: Side,
    pub phase: Phase,
    pub dice: Vec<RolledDie>,
    /// Hits scored, overkill included (as the GM lists them).
    pub hits: u32,
    /// Hits that found no unit to take them.
    pub overkill: u32,
    /// Casualties inflicted on the other side.
    pub casualties: Vec<Casualty>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundLog {
    pub number: u32,
    pub volleys: Vec<Volley>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Outcome {
    AttackerWins,
    DefenderWins,
    /// Both sides destroyed.
    MutualDestruction,
    AttackerRetreated,
    /// Only aircraft face only submarines: neither can hurt the other (IAAPA sub rule).
    Disengaged,
    /// Walk-in: no defender, no battle.
    WalkedIn,
}

/// Everything the GM lists about a battle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BattleLog {
    pub kind: BattleKind,
    pub rounds: Vec<RoundLog>,
    pub outcome: Outcome,
    pub attacker_left: Vec<Unit>,
    pub defender_left: Vec<Unit>,
}

/// Safety net: a battle where both sides can still hit ends with probability one, but a
/// scripted die could repeat misses forever.
const MAX_ROUNDS: u32 = 10_000;

/// Fights `battle` with `dice`.
pub fn resolve(
    battle: &Battle<'_>,
    dice: &mut (impl DiceSource + ?Sized),
) -> Result<BattleLog, BattleError> {
    Fight::new(battle)?.run(dice)
}

/// The steps of a round, in Part 13's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Kamikaze,
    AntiAircraft,
    SupportShot,
    FirstStrike,
    AttackerColumn(u8),
    /// Every defending column at once, its hits taken together.
    DefenderColumns,
    /// One defending column, its hits taken before the next column's (Part 13, step 5).
    DefenderColumn(u8),
}

impl Step {
    /// Every step before the defender fires, in order.
    const BEFORE_DEFENCE: [Step; 10] = [
        Step::Kamikaze,
        Step::AntiAircraft,
        Step::SupportShot,
        Step::FirstStrike,
        Step::AttackerColumn(1),
        Step::AttackerColumn(2),
        Step::AttackerColumn(3),
        Step::AttackerColumn(4),
        Step::AttackerColumn(5),
        Step::AttackerColumn(6),
    ];

    /// The defender's columns one by one (Part 13, step 5).
    const DEFENCE_BY_COLUMN: [Step; 6] = [
        Step::DefenderColumn(1),
        Step::DefenderColumn(2),
        Step::DefenderColumn(3),
        Step::DefenderColumn(4),
        Step::DefenderColumn(5),
        Step::DefenderColumn(6),
    ];

    /// Who fires.
    fn side(self) -> Side {
        match self {
            Step::AntiAircraft | Step::DefenderColumns | Step::DefenderColumn(_) => Side::Defender,
            _ => Side::Attacker,
        }
    }

    fn phase(self) -> Phase {
        match self {
            Step::Kamikaze => Phase::Kamikaze,
            Step::AntiAircraft => Phase::AntiAircraft,
            Step::SupportShot => Phase::SupportShot,
            Step::FirstStrike => Phase::FirstStrike,
            Step::AttackerColumn(_) | Step::DefenderColumns | Step::DefenderColumn(_) => {
                Phase::Columns
            }
        }
    }
}

/// One die to be thrown: whose, and what it needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Shot {
    unit: UnitTypeId,
    to_hit: u8,
}

/// A volley's hits (weighted for heavy weapons), split by who may take them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
struct Hits {
    anyone: u32,
    /// Submarine hits: not on aircraft.
    not_air: u32,
    /// AAP submarine hits: neither on aircraft nor on submarines.
    surface: u32,
}

impl Hits {
    /// Counts `n` hits of a unit whose hits go to `targets`.
    fn add(&mut self, targets: Targets, n: u32) {
        match targets {
            Targets::NotAir => self.not_air += n,
            Targets::SurfaceOnly => self.surface += n,
            Targets::Anyone | Targets::AirOnly => self.anyone += n,
        }
    }
}

/// Who a unit's hits may fall on.
fn targets_of(catalogue: &Catalogue, unit: UnitTypeId) -> Targets {
    let profile = catalogue.get(unit);
    if profile.has(Ability::HitsSurfaceOnly) {
        Targets::SurfaceOnly
    } else if profile.has(Ability::CannotHitAir) {
        Targets::NotAir
    } else {
        Targets::Anyone
    }
}

/// Which units of a side may take a volley's hits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Targets {
    Anyone,
    /// Submarine hits.
    NotAir,
    /// AAP submarine hits: not aircraft, not submarines.
    SurfaceOnly,
    /// AA fire.
    AirOnly,
}

/// What a round carries from step to step.
#[derive(Debug, Clone, PartialEq, Eq)]
struct RoundContext {
    number: u32,
    /// Units hit by the attacker this round that still fire back.
    casualty_area: Vec<Unit>,
    /// Defending subs that submerged for this round.
    submerged: Vec<Unit>,
    /// Whether (attacker, defender) are heavy-weapons groups this round.
    heavy_weapons: (bool, bool),
}

#[derive(Clone)]
struct Fight<'b, 'c> {
    battle: &'b Battle<'c>,
    attacker: Vec<Unit>,
    defender: Vec<Unit>,
    /// Whether the defender has an AA gun (it fires in its own phase, never as a column).
    defender_aa: bool,
    combat: CombatOrder,
    /// The round being fought (its combat order may differ from the first's).
    current_round: u32,
    attacker_order: Rc<LossOrder>,
    defender_order: Rc<LossOrder>,
    rounds: Vec<RoundLog>,
}

impl<'b, 'c> Fight<'b, 'c> {
    fn new(battle: &'b Battle<'c>) -> Result<Self, BattleError> {
        let cat = battle.catalogue;
        let expand = |army: &[(UnitTypeId, u32)]| -> Vec<Unit> {
            army.iter()
                .flat_map(|&(kind, n)| std::iter::repeat_n(Unit { kind, damage: 0 }, n as usize))
                .collect()
        };
        let attacker: Vec<Unit> = expand(&battle.attacker)
            .into_iter()
            .filter(|u| cat.get(u.kind).is_combatant())
            .collect();
        let all_defenders = expand(&battle.defender);
        let defender_aa = all_defenders
            .iter()
            .any(|u| cat.get(u.kind).has(Ability::AntiAircraft));
        let mut defender: Vec<Unit> = all_defenders
            .into_iter()
            .filter(|u| cat.get(u.kind).is_combatant())
            .collect();
        for &(kind, n) in &battle.defender_damaged {
            let mut left = n;
            for u in defender
                .iter_mut()
                .filter(|u| u.kind == kind && u.damage == 0)
            {
                if left == 0 {
                    break;
                }
                if cat.get(kind).hit_points > 1 {
                    u.damage = 1;
                    left -= 1;
                }
            }
        }
        if attacker.is_empty() {
            return Err(BattleError::new(
                "no-attacker",
                "Part 13",
                "a battle needs attacking units",
            ));
        }
        let default_combat = match battle.kind {
            BattleKind::Land => CombatOrder::SaveAir,
            BattleKind::Sea => CombatOrder::KillAtAllCosts,
        };
        let combat = battle.attacker_orders.combat.unwrap_or(default_combat);
        if combat == CombatOrder::WalkIn && !defender.is_empty() {
            return Err(BattleError::new(
                "walk-in-defended",
                "IAAPA combat orders (WI)",
                "a walk-in needs an undefended territory, and this one is defended",
            ));
        }
        if battle.support_shots > 0 && battle.kind != BattleKind::Land {
            return Err(BattleError::new(
                "support-shot-at-sea",
                "Part 13 step 2",
                "battleship support shots belong to amphibious assaults on land",
            ));
        }
        if let Some(target) = battle.kamikaze_target {
            let fighter = cat.fighter();
            if !attacker.iter().any(|u| Some(u.kind) == fighter) {
                return Err(BattleError::new(
                    "kamikaze-without-fighter",
                    "Cut-Throat, Kamikazi attacks",
                    "a kamikaze run needs an attacking fighter",
                ));
            }
            if !cat.get(target).has(Ability::KamikazeTarget)
                || !defender.iter().any(|u| u.kind == target)
            {
                return Err(BattleError::new(
                    "kamikaze-target",
                    "Cut-Throat, Kamikazi attacks",
                    format!(
                        "the kamikaze target {} is not a defending ship",
                        cat.get(target).code
                    ),
                ));
            }
        }
        let attacker_default = LossOrder::default_for(cat, battle.kind, Side::Attacker);
        let attacker_order = if !battle.attacker_orders.order_of_loss.is_empty() {
            LossOrder::explicit(&battle.attacker_orders.order_of_loss, &attacker_default)
        } else if battle.attacker_orders.combat == Some(CombatOrder::KillAtAllCosts) {
            // Only when ordered: the IAAPA default order of loss at sea is its own table,
            // even though KAAC is the sea default for when to stop.
            LossOrder::kill_at_all_costs(cat, &attacker_default)
        } else {
            attacker_default
        };
        let defender_default = LossOrder::default_for(cat, battle.kind, Side::Defender);
        let defender_order = if battle.defender_orders.order_of_loss.is_empty() {
            defender_default
        } else {
            LossOrder::explicit(&battle.defender_orders.order_of_loss, &defender_default)
        };
        Ok(Fight {
            battle,
            attacker,
            defender,
            defender_aa,
            combat,
            current_round: 1,
            attacker_order: Rc::new(attacker_order),
            defender_order: Rc::new(defender_order),
            rounds: Vec::new(),
        })
    }

    fn cat(&self) -> &'c Catalogue {
        self.battle.catalogue
    }

    /// The combat order in force in `round`: the attacker's, or the default for it.
    fn combat_in(&self, round: u32) -> CombatOrder {
        match self.battle.saac_from_round {
            Some(from)
                if self.battle.attacker_orders.combat.is_none()
                    && self.battle.kind == BattleKind::Land
                    && round >= from =>
            {
                CombatOrder::SaveAirAtAllCosts
            }
            _ => self.combat,
        }
    }

    /// The steps of a round, in order.
    fn steps(&self) -> impl Iterator<Item = Step> {
        let defence: &'static [Step] = if self.battle.defender_hits_by_column {
            &Step::DEFENCE_BY_COLUMN
        } else {
            &[Step::DefenderColumns]
        };
        Step::BEFORE_DEFENCE
            .into_iter()
            .chain(defence.iter().copied())
    }

    fn run(mut self, dice: &mut (impl DiceSource + ?Sized)) -> Result<BattleLog, BattleError> {
        if self.combat == CombatOrder::WalkIn {
            return Ok(self.finish(Outcome::WalkedIn));
        }
        for number in 1..=MAX_ROUNDS {
            let volleys = self.round(number, dice);
            self.rounds.push(RoundLog { number, volleys });
            if let Some(outcome) = self.outcome(number) {
                return Ok(self.finish(outcome));
            }
        }
        Ok(self.finish(Outcome::Disengaged))
    }

    fn finish(self, outcome: Outcome) -> BattleLog {
        BattleLog {
            kind: self.battle.kind,
            rounds: self.rounds,
            outcome,
            attacker_left: self.attacker,
            defender_left: self.defender,
        }
    }

    fn is_air(&self, unit: &Unit) -> bool {
        self.cat().get(unit.kind).domain == Domain::Air
    }

    fn is_sub(&self, unit: &Unit) -> bool {
        self.cat().get(unit.kind).has(Ability::FirstStrike)
    }

    /// The outcome after round `number`, or `None` to fight on.
    fn outcome(&self, number: u32) -> Option<Outcome> {
        match (self.attacker.is_empty(), self.defender.is_empty()) {
            (true, true) => return Some(Outcome::MutualDestruction),
            (true, false) => return Some(Outcome::DefenderWins),
            (false, true) => return Some(Outcome::AttackerWins),
            (false, false) => {}
        }
        let only_air = |units: &[Unit]| units.iter().all(|u| self.is_air(u));
        let only_subs = |units: &[Unit]| units.iter().all(|u| self.is_sub(u));
        if (only_air(&self.attacker) && only_subs(&self.defender))
            || (only_subs(&self.attacker) && only_air(&self.defender))
        {
            return Some(Outcome::Disengaged);
        }
        if !self.can_hit(Side::Attacker) && !self.can_hit(Side::Defender) {
            return Some(Outcome::Disengaged);
        }
        let retreat = match self.battle.attacker_orders.retreat {
            Some(RetreatOrder::AfterRound(n)) => number >= n,
            Some(RetreatOrder::WhenAtMost(n)) => self.attacker.len() <= n as usize,
            None => false,
        };
        let ground_left = self.attacker.iter().any(|u| !self.is_air(u));
        let air_left = self.attacker.iter().any(|u| self.is_air(u));
        // Whether to fight the next round is decided by the order in force for it.
        let by_combat_order = match self.combat_in(number.saturating_add(1)) {
            CombatOrder::SaveAir => {
                self.battle.kind == BattleKind::Land && !ground_left && air_left
            }
            CombatOrder::SaveAirAtAllCosts => {
                let ground = self.attacker.iter().filter(|u| !self.is_air(u)).count();
                air_left && self.firing_dice(Side::Defender) > ground
            }
            _ => false,
        };
        (retreat || by_combat_order).then_some(Outcome::AttackerRetreated)
    }

    fn to_hit(&self, side: Side, unit: &Unit) -> u8 {
        let profile = self.cat().get(unit.kind);
        let base = match side {
            Side::Attacker => profile.attack,
            Side::Defender if unit.damage > 0 => profile.damaged_defense.unwrap_or(profile.defense),
            Side::Defender => profile.defense,
        };
        // Jet fighters defend at 5; super submarines attack at 3.
        match side {
            Side::Defender
                if Some(unit.kind) == self.cat().fighter()
                    && self
                        .battle
                        .defender_technologies
                        .contains(&Technology::JetFighters) =>
            {
                base.max(5)
            }
            Side::Attacker
                if profile.has(Ability::FirstStrike)
                    && self
                        .battle
                        .attacker_technologies
                        .contains(&Technology::SuperSubmarines) =>
            {
                base.max(3)
            }
            _ => base,
        }
    }

    /// Attacking infantry paired one to one with attacking artillery: each attacks one
    /// higher (artillery support).
    fn supported_infantry(&self) -> usize {
        let Some(infantry) = self.cat().infantry() else {
            return 0;
        };
        let (mut foot, mut guns) = (0, 0);
        for unit in &self.attacker {
            if unit.kind == infantry {
                foot += 1;
            } else if self.cat().get(unit.kind).has(Ability::SupportsInfantry) {
                guns += 1;
            }
        }
        foot.min(guns)
    }

    /// How many dice a unit throws: heavy bombers throw three when attacking.
    fn dice_per_unit(&self, side: Side, unit: &Unit) -> usize {
        let heavy = side == Side::Attacker
            && self
                .battle
                .attacker_technologies
                .contains(&Technology::HeavyBombers)
            && Some(unit.kind) == self.cat().bomber();
        if heavy {
            3
        } else {
            1
        }
    }

    fn firing_dice(&self, side: Side) -> usize {
        let units = match side {
            Side::Attacker => &self.attacker,
            Side::Defender => &self.defender,
        };
        units.iter().filter(|u| self.to_hit(side, u) > 0).count()
    }

    /// Whether a side has any unit that could ever hit one of the other's.
    fn can_hit(&self, side: Side) -> bool {
        let (own, other) = match side {
            Side::Attacker => (&self.attacker, &self.defender),
            Side::Defender => (&self.defender, &self.attacker),
        };
        own.iter().filter(|u| self.to_hit(side, u) > 0).any(|u| {
            let no_air = self.cat().get(u.kind).has(Ability::CannotHitAir);
            other.iter().any(|t| !(no_air && self.is_air(t)))
        })
    }

    fn round(&mut self, number: u32, dice: &mut (impl DiceSource + ?Sized)) -> Vec<Volley> {
        let mut ctx = self.begin_round(number);
        let mut volleys: Vec<Volley> = Vec::new();
        for step in self.steps() {
            let shots = self.shots(step, &ctx);
            if shots.is_empty() && !self.kamikaze_due(step, &ctx) {
                continue;
            }
            let rolled: Vec<RolledDie> =
                shots.iter().map(|s| roll(dice, s.to_hit, s.unit)).collect();
            let hits = self.hits_of(step, &ctx, &rolled);
            let (casualties, overkill) = self.apply(step, &mut ctx, hits);
            let volley = Volley {
                side: step.side(),
                phase: step.phase(),
                hits: if step == Step::Kamikaze {
                    1
                } else {
                    count_hits(&rolled)
                },
                dice: rolled,
                overkill,
                casualties,
            };
            // Each side's columns are one line in the listing.
            match volleys.last_mut() {
                Some(last)
                    if last.phase == Phase::Columns
                        && volley.phase == Phase::Columns
                        && last.side == volley.side =>
                {
                    last.dice.extend(volley.dice);
                    last.hits += volley.hits;
                    last.overkill += volley.overkill;
                    last.casualties.extend(volley.casualties);
                }
                _ => volleys.push(volley),
            }
        }
        self.end_round(ctx);
        volleys
    }

    /// A kamikaze run happens once, at the start of the first round, and throws no dice.
    fn kamikaze_due(&self, step: Step, ctx: &RoundContext) -> bool {
        step == Step::Kamikaze && ctx.number == 1 && self.battle.kamikaze_target.is_some()
    }

    /// Sets a round up: submerged subs step aside, heavy-weapons groups are counted.
    fn begin_round(&mut self, number: u32) -> RoundContext {
        self.current_round = number;
        let submerged: Vec<Unit> = if number == 1 && self.battle.defender_orders.submerge_subs {
            let (subs, rest): (Vec<Unit>, Vec<Unit>) =
                self.defender.iter().partition(|u| self.is_sub(u));
            self.defender = rest;
            subs
        } else {
            Vec::new()
        };
        let heavy_weapons = self.heavy_weapons_vulnerable();
        RoundContext {
            number,
            casualty_area: Vec::new(),
            submerged,
            heavy_weapons,
        }
    }

    /// Ends a round: the casualty area is cleared, submerged subs resurface.
    fn end_round(&mut self, ctx: RoundContext) {
        self.defender.extend(ctx.submerged);
    }

    /// The dice a step throws, in the order the GM rolls them.
    fn shots(&self, step: Step, ctx: &RoundContext) -> Vec<Shot> {
        let first = ctx.number == 1;
        match step {
            Step::Kamikaze => Vec::new(),
            Step::AntiAircraft
                if first && self.defender_aa && self.battle.kind == BattleKind::Land =>
            {
                self.attacker
                    .iter()
                    .filter(|u| self.is_air(u))
                    .map(|u| Shot {
                        unit: u.kind,
                        to_hit: 1,
                    })
                    .collect()
            }
            Step::SupportShot if first && self.battle.support_shots > 0 => {
                let bb = self.cat().battleship();
                let to_hit = bb.map(|b| self.cat().get(b).attack).unwrap_or(4);
                let unit = bb.unwrap_or(self.attacker[0].kind);
                (0..self.battle.support_shots)
                    .map(|_| Shot { unit, to_hit })
                    .collect()
            }
            Step::FirstStrike if !self.defender.is_empty() => self
                .attacker
                .iter()
                .filter(|u| self.is_sub(u))
                .map(|u| Shot {
                    unit: u.kind,
                    to_hit: self.to_hit(Side::Attacker, u),
                })
                .collect(),
            // The attacker stops rolling once no defender is left to hit.
            Step::AttackerColumn(column) if !self.defender.is_empty() => {
                let supported = self.supported_infantry();
                let mut lifted = 0;
                self.attacker
                    .iter()
                    .filter(|u| !self.is_sub(u))
                    .filter(|u| {
                        let base = self.to_hit(Side::Attacker, u);
                        if Some(u.kind) == self.cat().infantry() && lifted < supported {
                            lifted += 1;
                            base + 1 == column
                        } else {
                            base == column
                        }
                    })
                    .flat_map(|u| {
                        let shot = Shot {
                            unit: u.kind,
                            to_hit: column,
                        };
                        std::iter::repeat_n(shot, self.dice_per_unit(Side::Attacker, u))
                    })
                    .collect()
            }
            Step::DefenderColumn(column) => self.defender_column_shots(column, ctx),
            Step::DefenderColumns => (1..=6u8)
                .flat_map(|column| self.defender_column_shots(column, ctx))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// One defending column's dice, the casualty area's included. Within the column,
    /// submarines' dice come last: they cannot hit aircraft, so their hits are told apart.
    fn defender_column_shots(&self, column: u8, ctx: &RoundContext) -> Vec<Shot> {
        let firing = self.defender.iter().chain(ctx.casualty_area.iter());
        let mut shots: Vec<Shot> = Vec::new();
        for subs in [false, true] {
            shots.extend(
                firing
                    .clone()
                    .filter(|u| {
                        self.to_hit(Side::Defender, u) == column
                            && self.cat().get(u.kind).has(Ability::CannotHitAir) == subs
                    })
                    .map(|u| Shot {
                        unit: u.kind,
                        to_hit: column,
                    }),
            );
        }
        shots
    }

    /// How much one hit of `unit` in `step` counts (two under heavy-weapons fire).
    fn weight(&self, step: Step, ctx: &RoundContext, unit: UnitTypeId) -> u32 {
        let target_vulnerable = match step.side() {
            Side::Attacker => ctx.heavy_weapons.1,
            Side::Defender => ctx.heavy_weapons.0,
        };
        if target_vulnerable && self.cat().get(unit).has(Ability::HwvInflicts) {
            2
        } else {
            1
        }
    }

    /// The hits of rolled dice, split by who may take them.
    fn hits_of(&self, step: Step, ctx: &RoundContext, rolled: &[RolledDie]) -> Hits {
        let mut hits = Hits::default();
        for d in rolled.iter().filter(|d| d.hit) {
            hits.add(
                targets_of(self.cat(), d.unit),
                self.weight(step, ctx, d.unit),
            );
        }
        hits
    }

    /// Applies a step's hits to the side it fires at.
    fn apply(&mut self, step: Step, ctx: &mut RoundContext, hits: Hits) -> (Vec<Casualty>, u32) {
        match step {
            Step::Kamikaze => {
                let volley = match self.battle.kamikaze_target {
                    Some(target) if ctx.number == 1 => self.kamikaze(target),
                    _ => return (Vec::new(), 0),
                };
                (volley.casualties, 0)
            }
            Step::AntiAircraft => self.take_hits(
                Side::Attacker,
                Targets::AirOnly,
                hits.anyone,
                Effect::Removed,
                &mut Vec::new(),
                Some(LossReason::AntiAircraft),
            ),
            Step::SupportShot | Step::AttackerColumn(_) => {
                let mut area = std::mem::take(&mut ctx.casualty_area);
                let result =
                    self.apply_split(Side::Defender, hits, Effect::ToCasualtyArea, &mut area);
                ctx.casualty_area = area;
                result
            }
            Step::FirstStrike => {
                self.apply_split(Side::Defender, hits, Effect::Removed, &mut Vec::new())
            }
            Step::DefenderColumns | Step::DefenderColumn(_) => {
                self.apply_split(Side::Attacker, hits, Effect::Removed, &mut Vec::new())
            }
        }
    }

    /// Hits anyone may take first, then those only non-aircraft may take.
    fn apply_split(
        &mut self,
        target: Side,
        hits: Hits,
        effect: Effect,
        casualty_area: &mut Vec<Unit>,
    ) -> (Vec<Casualty>, u32) {
        let (mut casualties, mut overkill) = self.take_hits(
            target,
            Targets::Anyone,
            hits.anyone,
            effect,
            casualty_area,
            None,
        );
        for (targets, n) in [
            (Targets::NotAir, hits.not_air),
            (Targets::SurfaceOnly, hits.surface),
        ] {
            if n > 0 {
                let (more, more_overkill) =
                    self.take_hits(target, targets, n, effect, casualty_area, None);
                casualties.extend(more);
                overkill += more_overkill;
            }
        }
        (casualties, overkill)
    }

    /// Whether a round's attacker and defender columns are independent, given its start:
    /// no attacking subs (their victims do not fire back) and no defending unit whose
    /// defense would drop if damaged in this round's attack.
    fn columns_are_independent(&self) -> bool {
        let cat = self.cat();
        // Column by column, hits that not every unit may take land differently than all
        // at once: such a round is worked out step by step.
        let restricted_defenders = self.battle.defender_hits_by_column
            && self
                .defender
                .iter()
                .any(|u| targets_of(cat, u.kind) != Targets::Anyone);
        !restricted_defenders
            && !self.attacker.iter().any(|u| self.is_sub(u))
            && !self.defender.iter().any(|u| {
                let t = cat.get(u.kind);
                t.hit_points.saturating_sub(u.damage) > 1
                    && t.damaged_defense.is_some_and(|dd| dd != t.defense)
            })
    }

    /// Whether the first round has anything the later ones do not: a kamikaze run, AA fire
    /// at aircraft, support shots, or subs that submerge.
    fn has_first_round_phases(&self) -> bool {
        self.battle.kamikaze_target.is_some()
            || self.battle.support_shots > 0
            || (self.defender_aa
                && self.battle.kind == BattleKind::Land
                && self.attacker.iter().any(|u| self.is_air(u)))
            || (self.battle.defender_orders.submerge_subs
                && self.defender.iter().any(|u| self.is_sub(u)))
    }

    /// Whether defending subs are lost first (only aircraft attack, and cannot retreat).
    fn subs_lost_first(&self) -> bool {
        let cat = self.cat();
        self.battle.attacker_air_cannot_retreat
            && self
                .attacker
                .iter()
                .all(|u| cat.get(u.kind).domain == Domain::Air)
    }

    /// Whether (attacker, defender) count more than 20 heavy-weapons units this round.
    fn heavy_weapons_vulnerable(&self) -> (bool, bool) {
        if !self.battle.heavy_weapons {
            return (false, false);
        }
        let counts = |unit: UnitTypeId| !self.cat().get(unit).has(Ability::HwvExempt);
        let size = |units: &[Unit]| units.iter().filter(|u| counts(u.kind)).count() as u32;
        let one_group = |units: &[Unit]| crate::aap::hwv::vulnerable([(true, size(units))]);
        let defender = if self.battle.defender_groups.is_empty() {
            one_group(&self.defender)
        } else {
            // Who holds what is left: of each type, the groups listed last keep theirs
            // first (the holder's own units, then its guests'), as the survivors are shared.
            let mut left: std::collections::BTreeMap<UnitTypeId, u32> = Default::default();
            for u in &self.defender {
                *left.entry(u.kind).or_default() += 1;
            }
            let groups: Vec<(bool, u32)> = self
                .battle
                .defender_groups
                .iter()
                .rev()
                .map(|group| {
                    let mut size = 0;
                    for &(unit, n) in &group.units {
                        let remaining = left.entry(unit).or_default();
                        let kept = n.min(*remaining);
                        *remaining -= kept;
                        if counts(unit) {
                            size += kept;
                        }
                    }
                    (group.counts, size)
                })
                .collect();
            crate::aap::hwv::vulnerable(groups)
        };
        (one_group(&self.attacker), defender)
    }

    fn kamikaze(&mut self, target: UnitTypeId) -> Volley {
        let fighter = self.cat().fighter();
        if let Some(pos) = self.attacker.iter().position(|u| Some(u.kind) == fighter) {
            self.attacker.remove(pos);
        }
        let mut casualties = Vec::new();
        if let Some(pos) = self.defender.iter().position(|u| u.kind == target) {
            let hit_points = self.cat().get(target).hit_points;
            let ship = &mut self.defender[pos];
            ship.damage += 1;
            if ship.damage >= hit_points {
                self.defender.remove(pos);
                casualties.push(Casualty {
                    unit: target,
                    effect: Effect::Removed,
                    reason: LossReason::Kamikaze,
                });
            } else {
                casualties.push(Casualty {
                    unit: target,
                    effect: Effect::Damaged,
                    reason: LossReason::Kamikaze,
                });
            }
        }
        Volley {
            side: Side::Attacker,
            phase: Phase::Kamikaze,
            dice: Vec::new(),
            hits: 1,
            overkill: 0,
            casualties,
        }
    }

    /// Takes `hits` from `side` among the `targets` units. Lost units are removed from the
    /// side (and put in `casualty_area` when they still fire back). Returns the casualties
    /// and the overkill.
    fn take_hits(
        &mut self,
        side: Side,
        targets: Targets,
        hits: u32,
        effect: Effect,
        casualty_area: &mut Vec<Unit>,
        reason_override: Option<LossReason>,
    ) -> (Vec<Casualty>, u32) {
        if hits == 0 {
            return (Vec::new(), 0);
        }
        let cat = self.cat();
        let combat = self.combat_in(self.current_round);
        let keep_last = side == Side::Attacker && combat == CombatOrder::TakeAtAllCosts;
        let by_combat_order = side == Side::Attacker
            && matches!(
                combat,
                CombatOrder::TakeAtAllCosts | CombatOrder::SaveAirAtAllCosts
            );
        let subs_first = side == Side::Defender
            && self.battle.attacker_air_cannot_retreat
            && self
                .attacker
                .iter()
                .all(|u| cat.get(u.kind).domain == Domain::Air);
        let (base, orders) = match side {
            Side::Attacker => (&*self.attacker_order, &self.battle.attacker_orders),
            Side::Defender => (&*self.defender_order, &self.battle.defender_orders),
        };
        let order: Cow<'_, LossOrder> = if subs_first {
            let subs: Vec<UnitTypeId> = base
                .order
                .iter()
                .copied()
                .filter(|id| cat.get(*id).has(Ability::FirstStrike))
                .collect();
            let mut exception = LossOrder::explicit(&subs, base);
            exception.reason = base.reason;
            Cow::Owned(exception)
        } else if by_combat_order {
            let mut owned = base.clone();
            owned.reason = LossReason::CombatOrder(combat);
            Cow::Owned(owned)
        } else {
            Cow::Borrowed(base)
        };
        let rules = HitRules {
            battleships_absorb: orders.battleships_absorb.unwrap_or(true),
            keep_last_surface_unit: keep_last,
        };
        let units = match side {
            Side::Attacker => &self.attacker,
            Side::Defender => &self.defender,
        };
        let eligible = |u: &Unit| match targets {
            Targets::Anyone => true,
            Targets::NotAir => cat.get(u.kind).domain != Domain::Air,
            Targets::SurfaceOnly => {
                cat.get(u.kind).domain != Domain::Air && !cat.get(u.kind).has(Ability::FirstStrike)
            }
            Targets::AirOnly => cat.get(u.kind).domain == Domain::Air,
        };
        let taken = casualties::assign_hits(cat, units, eligible, hits, &order, rules);
        let used: u32 = taken.iter().map(|t| u32::from(t.hits)).sum();
        let mut casualties = Vec::new();
        let mut lost = Vec::new();
        for t in &taken {
            let unit = units[t.index];
            let damage = unit.damage + t.hits;
            let reason = reason_override.unwrap_or(t.reason);
            if damage >= self.cat().get(unit.kind).hit_points {
                lost.push(t.index);
                casualties.push(Casualty {
                    unit: unit.kind,
                    effect,
                    reason,
                });
            } else {
                casualties.push(Casualty {
                    unit: unit.kind,
                    effect: Effect::Damaged,
                    reason,
                });
            }
        }
        let side_units = match side {
            Side::Attacker => &mut self.attacker,
            Side::Defender => &mut self.defender,
        };
        for t in &taken {
            side_units[t.index].damage += t.hits;
        }
        lost.sort_unstable();
        for index in lost.into_iter().rev() {
            let unit = side_units.remove(index);
            if effect == Effect::ToCasualtyArea {
                casualty_area.push(unit);
            }
        }
        (casualties, hits - used)
    }
}

fn roll(dice: &mut (impl DiceSource + ?Sized), to_hit: u8, unit: UnitTypeId) -> RolledDie {
    let die = dice.roll();
    RolledDie {
        die,
        to_hit,
        unit,
        hit: die.value() <= to_hit,
    }
}

fn count_hits(rolled: &[RolledDie]) -> u32 {
    rolled.iter().filter(|d| d.hit).count() as u32
}

#[cfg(test)]
mod tests;

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

mod army;
mod bombing;
mod casualties;
mod fight;
pub mod hwv;
mod odds;
#[cfg(test)]
mod oracle;
mod plain_round;
mod render;

use fight::*;

use crate::dice::{DiceSource, Die};
use crate::tech::Technology;
use crate::units::{Ability, Catalogue, Domain, UnitTypeId};
use crate::violation::ViolationCode;

pub use bombing::{bombing_raid, BombingRaid};

pub use casualties::{HitRules, LossOrder};
pub use odds::{
    describe, estimated_odds, exact_odds, exact_odds_within, Odds, Survivors, Work,
    MAX_EXACT_ROUNDS,
};

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
    /// Guerrillas (AAP 3.1): this side stops firing and the battle ends with both sides
    /// where they are, after round N (0: before the first die) or once N units or fewer
    /// are left (checked before the first die and after every round).
    pub blend_in: Option<RetreatOrder>,
}

/// One defending nation's units, for AAP's heavy-weapons count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefendingGroup {
    pub units: Vec<(UnitTypeId, u32)>,
    /// Whether the group can make the side vulnerable (the CCP's cannot).
    pub counts: bool,
}

impl Battle<'_> {
    /// AAP 4.1's count between two known powers, as a game's battle has it: an attack by a
    /// power in `uncounted` never counts, and a defending CCP group never does ("Units that
    /// don't count towards HWV include: Subs, FTRs, BMRs, AA, and CCP"). Call it once the
    /// armies are set.
    pub fn count_heavy_weapons_between(
        &mut self,
        uncounted: &[crate::board::Power],
        attacker: Option<crate::board::Power>,
        defender: Option<crate::board::Power>,
    ) {
        self.attacker_uncounted = attacker.is_some_and(|p| uncounted.contains(&p));
        if let Some(defender) = defender {
            self.defender_groups = vec![DefendingGroup {
                units: self.defender.iter().map(|(unit, n)| (*unit, *n)).collect(),
                counts: defender != crate::board::Power::Ccp,
            }];
        }
    }
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
    /// Attacking units that came ashore from the sea this turn, by type (an amphibious
    /// assault): marines among them attack one higher, every round. Losses fall on the
    /// others of their type first (the weaker).
    pub landed: Vec<(UnitTypeId, u32)>,
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
    /// The attacker's units never make it vulnerable to heavy weapons (AAP 4.1: "Units
    /// that don't count towards HWV include: ... CCP").
    pub attacker_uncounted: bool,
    /// The attacking aircraft have nowhere to retreat to (known from the board): when only
    /// they remain, defending submarines are lost before other defending units
    /// (docs/rule-facts.md, the exception to the default orders of loss).
    pub attacker_air_cannot_retreat: bool,
    /// The attacker has somewhere to withdraw to. Where is settled before the first die
    /// (a refusal after the dice would tell the player how they fell), so with nowhere to
    /// go the battle fights on whatever the orders say. Unlike
    /// `attacker_air_cannot_retreat`, it changes no casualty.
    pub attacker_may_withdraw: bool,
    /// Weapons the attacker has developed (super submarines, heavy bombers ...).
    pub attacker_technologies: Vec<Technology>,
    /// Weapons the defender has developed (jet fighters ...).
    pub defender_technologies: Vec<Technology>,
    /// IAAPA's land default: from this round on, an attacker who gave no combat order
    /// fights Save Air At All Costs (docs/rule-facts.md: SAAC, "default from round 2");
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
            landed: Vec::new(),
            attacker_orders: Orders::default(),
            defender_orders: Orders::default(),
            kamikaze_target: None,
            heavy_weapons: false,
            defender_groups: Vec::new(),
            attacker_uncounted: false,
            attacker_air_cannot_retreat: false,
            attacker_may_withdraw: true,
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
                    ViolationCode::BadArmy,
                    "orders",
                    format!("{part:?} is not `<count> <unit>`"),
                )
            })?;
            let id = catalogue.id(code.trim()).map_err(|e| {
                BattleError::new(ViolationCode::UnknownUnit, "ruleset", e.to_string())
            })?;
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
    pub code: ViolationCode,
    /// The rule or document it comes from.
    pub rule: &'static str,
    pub message: String,
}

impl BattleError {
    fn new(code: ViolationCode, rule: &'static str, message: impl Into<String>) -> Self {
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

/// One side firing in one phase of a round, as the listing shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Volley<'l> {
    /// The round, from 1.
    pub round: u32,
    pub side: Side,
    pub phase: Phase,
    pub dice: &'l [RolledDie],
    /// Hits scored, overkill included (as the GM lists them).
    pub hits: u32,
    /// Hits that found no unit to take them.
    pub overkill: u32,
    /// Casualties inflicted on the other side.
    pub casualties: &'l [Casualty],
}

/// Where a volley's dice and casualties end in the log's lists (each starts where the
/// volley before it ends).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct VolleyEntry {
    round: u32,
    side: Side,
    phase: Phase,
    hits: u32,
    overkill: u32,
    dice_end: u32,
    casualties_end: u32,
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
    /// The attacking guerrillas stopped firing (AAP 3.1): both sides stay in place.
    AttackerBlendedIn,
    /// The defending guerrillas stopped firing (AAP 3.1): both sides stay in place.
    DefenderBlendedIn,
}

/// Everything the GM lists about a battle: every die and every casualty, in one list
/// each, with the volleys that cut them up (a battle of many rounds is a few allocations).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BattleLog {
    pub kind: BattleKind,
    pub outcome: Outcome,
    /// What is left of each side, as counts (see [`BattleLog::attacker_left`]).
    attacker: army::Army,
    defender: army::Army,
    rounds: u32,
    // Inline for a small battle's listing: most battles allocate nothing for it.
    volleys: smallvec::SmallVec<[VolleyEntry; 6]>,
    dice: ListedDice,
    casualties: Casualties,
}

/// Dice as they are listed.
pub(crate) type ListedDice = smallvec::SmallVec<[RolledDie; 32]>;

/// Casualties as they are listed.
pub(crate) type Casualties = smallvec::SmallVec<[Casualty; 16]>;

impl BattleLog {
    /// An empty log for a battle of `units` units in all: room for the dice and the
    /// casualties such a battle usually lists (each unit is lost at most once, and throws
    /// a die in a round or two), so a large battle's lists grow once or not at all.
    fn begin(kind: BattleKind, units: u32) -> Self {
        let units = units as usize;
        BattleLog {
            kind,
            outcome: Outcome::Disengaged,
            attacker: army::Army::default(),
            defender: army::Army::default(),
            rounds: 0,
            volleys: smallvec::SmallVec::new(),
            dice: smallvec::SmallVec::with_capacity(units.saturating_mul(3)),
            casualties: smallvec::SmallVec::with_capacity(units),
        }
    }

    /// The attacker's units left, one entry per unit, in listing order.
    pub fn attacker_left(&self) -> Vec<Unit> {
        self.attacker.units()
    }

    /// The defender's units left, one entry per unit, in listing order.
    pub fn defender_left(&self) -> Vec<Unit> {
        self.defender.units()
    }

    pub(crate) fn left(&self, side: Side) -> &army::Army {
        match side {
            Side::Attacker => &self.attacker,
            Side::Defender => &self.defender,
        }
    }

    /// Rounds fought (a walk-in fights none).
    pub fn rounds(&self) -> usize {
        self.rounds as usize
    }

    /// Every die, in the order rolled.
    pub fn dice(&self) -> &[RolledDie] {
        &self.dice
    }

    /// Every volley, in order.
    pub fn volleys(&self) -> impl Iterator<Item = Volley<'_>> + '_ {
        let mut dice_from = 0;
        let mut casualties_from = 0;
        self.volleys.iter().map(move |e| {
            let volley = Volley {
                round: e.round,
                side: e.side,
                phase: e.phase,
                dice: &self.dice[dice_from..e.dice_end as usize],
                hits: e.hits,
                overkill: e.overkill,
                casualties: &self.casualties[casualties_from..e.casualties_end as usize],
            };
            dice_from = e.dice_end as usize;
            casualties_from = e.casualties_end as usize;
            volley
        })
    }

    /// The volleys of the round at `index` (from 0), in order.
    pub fn round(&self, index: usize) -> Vec<Volley<'_>> {
        self.volleys()
            .filter(|v| v.round as usize == index + 1)
            .collect()
    }

    /// Closes the volley whose dice and casualties were just added: each side's columns
    /// are one line in the listing, so a column joins the side's column before it.
    fn close_volley(&mut self, round: u32, side: Side, phase: Phase, hits: u32, overkill: u32) {
        // A battle's dice are bounded by its rounds (at most MAX_ROUNDS) times its units.
        let (dice_end, casualties_end) = (self.dice.len() as u32, self.casualties.len() as u32);
        match self.volleys.last_mut() {
            Some(last)
                if last.round == round
                    && last.phase == Phase::Columns
                    && phase == Phase::Columns
                    && last.side == side =>
            {
                last.hits += hits;
                last.overkill += overkill;
                last.dice_end = dice_end;
                last.casualties_end = casualties_end;
            }
            _ => self.volleys.push(VolleyEntry {
                round,
                side,
                phase,
                hits,
                overkill,
                dice_end,
                casualties_end,
            }),
        }
    }
}

/// Fights `battle` with `dice`.
pub fn resolve(
    battle: &Battle<'_>,
    dice: &mut (impl DiceSource + ?Sized),
) -> Result<BattleLog, BattleError> {
    Ok(Fight::new(battle)?.run(dice))
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod hwv_tests;

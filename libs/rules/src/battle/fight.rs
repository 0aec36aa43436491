//! The engine's steps: a battle fought round by round in Part 13's order, each step's
//! dice rolled and recorded, casualties taken by the order of loss. Each side is an
//! [`Army`] of counts; a round allocates nothing but what the listing keeps.

use super::army::{Army, Line};
use super::casualties::{absorb_then_lose, assign_hits, leave, LossQueue};
use super::*;

/// Safety net: a battle where both sides can still hit ends with probability one, but a
/// scripted die could repeat misses forever.
pub(crate) const MAX_ROUNDS: u32 = 10_000;

/// The steps of a round, in Part 13's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
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
    pub(crate) const BEFORE_DEFENCE: [Step; 10] = [
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
    pub(crate) const DEFENCE_BY_COLUMN: [Step; 6] = [
        Step::DefenderColumn(1),
        Step::DefenderColumn(2),
        Step::DefenderColumn(3),
        Step::DefenderColumn(4),
        Step::DefenderColumn(5),
        Step::DefenderColumn(6),
    ];

    /// Who fires.
    pub(crate) fn side(self) -> Side {
        match self {
            Step::AntiAircraft | Step::DefenderColumns | Step::DefenderColumn(_) => Side::Defender,
            _ => Side::Attacker,
        }
    }

    pub(crate) fn phase(self) -> Phase {
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

/// Dice to be thrown one after another: whose, what each needs, and how many.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shot {
    pub(crate) unit: UnitTypeId,
    pub(crate) to_hit: u8,
    pub(crate) count: u32,
}

/// A step's dice, in the order they are rolled (inline: a battle's steps allocate nothing).
pub(crate) type Shots = smallvec::SmallVec<[Shot; 16]>;

/// Each side's columns for a round, worked out when it first fires them: every die that
/// can hit, ordered by the column that rolls it (stably: within a column, in the order the
/// GM rolls them).
#[derive(Debug, Default)]
pub(crate) struct ColumnShots {
    attack: Shots,
    attack_ready: bool,
    defence: Shots,
    defence_ready: bool,
}

impl ColumnShots {
    /// Forgets the last round's columns, keeping the room.
    fn clear(&mut self) {
        self.attack.clear();
        self.defence.clear();
        self.attack_ready = false;
        self.defence_ready = false;
    }
}

/// A volley's hits (weighted for heavy weapons), split by who may take them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub(crate) struct Hits {
    pub(crate) anyone: u32,
    /// Submarine hits: not on aircraft.
    pub(crate) not_air: u32,
    /// AAP submarine hits: neither on aircraft nor on submarines.
    pub(crate) surface: u32,
}

impl Hits {
    /// Counts `n` hits of a unit whose hits go to `targets`.
    pub(crate) fn add(&mut self, targets: Targets, n: u32) {
        match targets {
            Targets::NotAir => self.not_air += n,
            Targets::SurfaceOnly => self.surface += n,
            Targets::Anyone | Targets::AirOnly => self.anyone += n,
        }
    }
}

/// Who a unit's hits may fall on.
pub(crate) fn targets_of(catalogue: &Catalogue, unit: UnitTypeId) -> Targets {
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
pub(crate) enum Targets {
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
pub(crate) struct RoundContext {
    pub(crate) number: u32,
    /// Units hit by the attacker this round that still fire back.
    pub(crate) casualty_area: Army,
    /// Defending subs that submerged for this round.
    pub(crate) submerged: Army,
    /// Whether (attacker, defender) are heavy-weapons groups this round.
    pub(crate) heavy_weapons: (bool, bool),
}

#[derive(Clone)]
pub(crate) struct Fight<'b, 'c> {
    pub(crate) battle: &'b Battle<'c>,
    pub(crate) attacker: Army,
    pub(crate) defender: Army,
    /// Whether the defender has an AA gun (it fires in its own phase, never as a column).
    pub(crate) defender_aa: bool,
    pub(crate) combat: CombatOrder,
    /// The round being fought (its combat order may differ from the first's).
    pub(crate) current_round: u32,
    pub(crate) attacker_order: LossOrder<'c>,
    pub(crate) defender_order: LossOrder<'c>,
    /// The defender's order when only aircraft attack and cannot retreat: its submarines
    /// first (docs/rule-facts.md); only for attackers whose aircraft cannot retreat.
    pub(crate) defender_subs_first: Option<LossOrder<'c>>,
    /// The technologies that change a die, looked up once.
    pub(crate) jet_fighters: bool,
    pub(crate) super_submarines: bool,
    pub(crate) heavy_bombers: bool,
}

impl<'b, 'c> Fight<'b, 'c> {
    pub(crate) fn new(battle: &'b Battle<'c>) -> Result<Self, BattleError> {
        let cat = battle.catalogue;
        let mut attacker = Army::default();
        for &(kind, n) in &battle.attacker {
            if cat.get(kind).is_combatant() {
                attacker.push(kind, 0, n);
            }
        }
        let defender_aa = battle
            .defender
            .iter()
            .any(|&(kind, n)| n > 0 && cat.get(kind).has(Ability::AntiAircraft));
        let mut defender = Army::default();
        for &(kind, n) in &battle.defender {
            if cat.get(kind).is_combatant() {
                defender.push(kind, 0, n);
            }
        }
        for &(kind, n) in &battle.defender_damaged {
            if cat.get(kind).hit_points > 1 {
                defender.damage_first_fresh(kind, n);
            }
        }
        if attacker.is_empty() {
            return Err(BattleError::new(
                ViolationCode::NoAttacker,
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
                ViolationCode::WalkInDefended,
                "IAAPA combat orders (WI)",
                "a walk-in needs an undefended territory, and this one is defended",
            ));
        }
        if battle.support_shots > 0 && battle.kind != BattleKind::Land {
            return Err(BattleError::new(
                ViolationCode::SupportShotAtSea,
                "Part 13 step 2",
                "battleship support shots belong to amphibious assaults on land",
            ));
        }
        if let Some(target) = battle.kamikaze_target {
            let fighter = cat.fighter();
            if !attacker.any(|k| Some(k) == fighter) {
                return Err(BattleError::new(
                    ViolationCode::KamikazeWithoutFighter,
                    "Cut-Throat, Kamikazi attacks",
                    "a kamikaze run needs an attacking fighter",
                ));
            }
            if !cat.get(target).has(Ability::KamikazeTarget) || !defender.any(|k| k == target) {
                return Err(BattleError::new(
                    ViolationCode::KamikazeTarget,
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
        let defender_subs_first = battle.attacker_air_cannot_retreat.then(|| {
            let subs: Vec<UnitTypeId> = defender_order
                .order
                .iter()
                .copied()
                .filter(|id| cat.get(*id).has(Ability::FirstStrike))
                .collect();
            LossOrder {
                reason: defender_order.reason,
                ..LossOrder::explicit(&subs, &defender_order)
            }
        });
        let has = |techs: &[Technology], t: Technology| techs.contains(&t);
        Ok(Fight {
            battle,
            attacker,
            defender,
            defender_aa,
            combat,
            current_round: 1,
            attacker_order,
            defender_order,
            defender_subs_first,
            jet_fighters: has(&battle.defender_technologies, Technology::JetFighters),
            super_submarines: has(&battle.attacker_technologies, Technology::SuperSubmarines),
            heavy_bombers: has(&battle.attacker_technologies, Technology::HeavyBombers),
        })
    }

    pub(crate) fn cat(&self) -> &'c Catalogue {
        self.battle.catalogue
    }

    /// The combat order in force in `round`: the attacker's, or the default for it.
    pub(crate) fn combat_in(&self, round: u32) -> CombatOrder {
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
    pub(crate) fn steps(&self) -> impl Iterator<Item = Step> {
        let defence: &'static [Step] = if self.battle.defender_hits_by_column {
            &Step::DEFENCE_BY_COLUMN
        } else {
            &[Step::DefenderColumns]
        };
        Step::BEFORE_DEFENCE
            .into_iter()
            .chain(defence.iter().copied())
    }

    /// Fights the battle to its end: its listing, with what is left of each side.
    pub(crate) fn run(mut self, dice: &mut (impl DiceSource + ?Sized)) -> BattleLog {
        let units = self.attacker.len().saturating_add(self.defender.len());
        let mut log = BattleLog::begin(self.battle.kind, units);
        log.outcome = self.fight(dice, &mut log);
        log.attacker = self.attacker;
        log.defender = self.defender;
        log
    }

    /// Fights round after round, listing each in `log`, until the battle ends; its outcome.
    fn fight(&mut self, dice: &mut (impl DiceSource + ?Sized), log: &mut BattleLog) -> Outcome {
        if self.combat == CombatOrder::WalkIn {
            return Outcome::WalkedIn;
        }
        if let Some(outcome) = self.blended_in(0) {
            return outcome;
        }
        let mut shots = Shots::new();
        let mut columns = ColumnShots::default();
        let mut losses = LossQueue::default();
        for number in 1..=MAX_ROUNDS {
            if self.is_plain_round(number) {
                self.plain_round(number, dice, log, (&mut shots, &mut losses));
            } else {
                self.round(number, dice, log, (&mut shots, &mut columns));
            }
            if let Some(outcome) = self.outcome(number) {
                return outcome;
            }
        }
        Outcome::Disengaged
    }

    pub(crate) fn is_air(&self, kind: UnitTypeId) -> bool {
        self.cat().get(kind).domain == Domain::Air
    }

    pub(crate) fn is_sub(&self, kind: UnitTypeId) -> bool {
        self.cat().get(kind).has(Ability::FirstStrike)
    }

    fn side(&self, side: Side) -> &Army {
        match side {
            Side::Attacker => &self.attacker,
            Side::Defender => &self.defender,
        }
    }

    fn side_mut(&mut self, side: Side) -> &mut Army {
        match side {
            Side::Attacker => &mut self.attacker,
            Side::Defender => &mut self.defender,
        }
    }

    /// The outcome after round `number`, or `None` to fight on.
    pub(crate) fn outcome(&self, number: u32) -> Option<Outcome> {
        match (self.attacker.is_empty(), self.defender.is_empty()) {
            (true, true) => return Some(Outcome::MutualDestruction),
            (true, false) => return Some(Outcome::DefenderWins),
            (false, true) => return Some(Outcome::AttackerWins),
            (false, false) => {}
        }
        let air = |k| self.is_air(k);
        let sub = |k| self.is_sub(k);
        if (self.attacker.all(air) && self.defender.all(sub))
            || (self.attacker.all(sub) && self.defender.all(air))
        {
            return Some(Outcome::Disengaged);
        }
        if !self.can_hit(Side::Attacker) && !self.can_hit(Side::Defender) {
            return Some(Outcome::Disengaged);
        }
        if let Some(outcome) = self.blended_in(number) {
            return Some(outcome);
        }
        // Nowhere to go (settled before the dice): the attacker fights on, orders or not.
        if !self.battle.attacker_may_withdraw {
            return None;
        }
        let retreat = match self.battle.attacker_orders.retreat {
            Some(RetreatOrder::AfterRound(n)) => number >= n,
            Some(RetreatOrder::WhenAtMost(n)) => self.attacker.len() <= n,
            None => false,
        };
        let ground_left = self.attacker.any(|k| !air(k));
        let air_left = self.attacker.any(air);
        // Whether to fight the next round is decided by the order in force for it.
        let by_combat_order = match self.combat_in(number.saturating_add(1)) {
            CombatOrder::SaveAir => {
                self.battle.kind == BattleKind::Land && !ground_left && air_left
            }
            CombatOrder::SaveAirAtAllCosts => {
                let ground = self.attacker.count(|l| !air(l.kind));
                air_left && self.firing_dice(Side::Defender) > ground
            }
            _ => false,
        };
        (retreat || by_combat_order).then_some(Outcome::AttackerRetreated)
    }

    /// Whether guerrillas on either side stop firing after round `number` (0: before the
    /// first die), the defender's order first: the battle's outcome if they do.
    pub(crate) fn blended_in(&self, number: u32) -> Option<Outcome> {
        [
            (Side::Defender, Outcome::DefenderBlendedIn),
            (Side::Attacker, Outcome::AttackerBlendedIn),
        ]
        .into_iter()
        .find(|(side, _)| {
            let orders = match side {
                Side::Attacker => &self.battle.attacker_orders,
                Side::Defender => &self.battle.defender_orders,
            };
            match orders.blend_in {
                Some(RetreatOrder::AfterRound(n)) => number >= n,
                Some(RetreatOrder::WhenAtMost(n)) => self.side(*side).len() <= n,
                None => false,
            }
        })
        .map(|(_, outcome)| outcome)
    }

    pub(crate) fn to_hit(&self, side: Side, kind: UnitTypeId, damage: u8) -> u8 {
        let profile = self.cat().get(kind);
        let base = match side {
            Side::Attacker => profile.attack,
            Side::Defender if damage > 0 => profile.damaged_defense.unwrap_or(profile.defense),
            Side::Defender => profile.defense,
        };
        // Jet fighters defend at 5; super submarines attack at 3.
        match side {
            Side::Defender if self.jet_fighters && Some(kind) == self.cat().fighter() => {
                base.max(5)
            }
            Side::Attacker if self.super_submarines && profile.has(Ability::FirstStrike) => {
                base.max(3)
            }
            _ => base,
        }
    }

    /// Attacking infantry paired one to one with attacking artillery: each attacks one
    /// higher (artillery support).
    pub(crate) fn supported_infantry(&self) -> u32 {
        let Some(infantry) = self.cat().infantry() else {
            return 0;
        };
        let foot = self.attacker.count(|l| l.kind == infantry);
        let guns = self
            .attacker
            .count(|l| l.kind != infantry && self.cat().get(l.kind).has(Ability::SupportsInfantry));
        foot.min(guns)
    }

    /// How many dice a unit throws: heavy bombers throw three when attacking.
    pub(crate) fn dice_per_unit(&self, side: Side, kind: UnitTypeId) -> u32 {
        let heavy =
            side == Side::Attacker && self.heavy_bombers && Some(kind) == self.cat().bomber();
        if heavy {
            3
        } else {
            1
        }
    }

    pub(crate) fn firing_dice(&self, side: Side) -> u32 {
        self.side(side)
            .count(|l| self.to_hit(side, l.kind, l.damage) > 0)
    }

    /// Whether a side has any unit that could ever hit one of the other's.
    pub(crate) fn can_hit(&self, side: Side) -> bool {
        let other = match side {
            Side::Attacker => &self.defender,
            Side::Defender => &self.attacker,
        };
        self.side(side)
            .lines()
            .iter()
            .filter(|l| self.to_hit(side, l.kind, l.damage) > 0)
            .any(|l| {
                let no_air = self.cat().get(l.kind).has(Ability::CannotHitAir);
                other.any(|t| !(no_air && self.is_air(t)))
            })
    }

    /// Fights round `number`, listing its dice and casualties in `log`; `shots` and
    /// `columns` are room for each step's dice, reused from round to round.
    pub(crate) fn round(
        &mut self,
        number: u32,
        dice: &mut (impl DiceSource + ?Sized),
        log: &mut BattleLog,
        (shots, columns): (&mut Shots, &mut ColumnShots),
    ) {
        let mut ctx = self.begin_round(number);
        log.rounds = number;
        columns.clear();
        // After the first round only the columns (and attacking subs) can fire.
        let has_subs = self.attacker.any(|k| self.is_sub(k));
        let steps = self.steps().filter(|step| match step {
            Step::Kamikaze | Step::AntiAircraft | Step::SupportShot => number == 1,
            Step::FirstStrike => has_subs,
            _ => true,
        });
        for step in steps {
            let fired = self.shots_with(step, &ctx, columns, shots);
            if fired.is_empty() && !self.kamikaze_due(step, &ctx) {
                continue;
            }
            let mut hits = Hits::default();
            let mut scored = 0;
            for shot in fired {
                let targets = targets_of(self.cat(), shot.unit);
                let weight = self.weight(step, &ctx, shot.unit);
                let n = roll_shot(dice, shot, &mut log.dice);
                hits.add(targets, weight * n);
                scored += n;
            }
            let overkill = self.apply(step, &mut ctx, hits, &mut log.casualties);
            let listed_hits = if step == Step::Kamikaze { 1 } else { scored };
            log.close_volley(number, step.side(), step.phase(), listed_hits, overkill);
        }
        self.end_round(ctx);
    }

    /// A kamikaze run happens once, at the start of the first round, and throws no dice.
    pub(crate) fn kamikaze_due(&self, step: Step, ctx: &RoundContext) -> bool {
        step == Step::Kamikaze && ctx.number == 1 && self.battle.kamikaze_target.is_some()
    }

    /// Sets a round up: submerged subs step aside, heavy-weapons groups are counted.
    pub(crate) fn begin_round(&mut self, number: u32) -> RoundContext {
        self.current_round = number;
        let submerged = if number == 1 && self.battle.defender_orders.submerge_subs {
            let cat = self.cat();
            self.defender
                .split_off(|k| cat.get(k).has(Ability::FirstStrike))
        } else {
            Army::default()
        };
        let heavy_weapons = self.heavy_weapons_vulnerable();
        RoundContext {
            number,
            casualty_area: Army::default(),
            submerged,
            heavy_weapons,
        }
    }

    /// Ends a round: the casualty area is cleared, submerged subs resurface.
    pub(crate) fn end_round(&mut self, ctx: RoundContext) {
        self.defender.extend(&ctx.submerged);
    }

    /// Adds the dice a step throws to `out`, in the order the GM rolls them.
    pub(crate) fn shots(&self, step: Step, ctx: &RoundContext, out: &mut Shots) {
        let (mut columns, mut scratch) = (ColumnShots::default(), Shots::new());
        out.extend_from_slice(self.shots_with(step, ctx, &mut columns, &mut scratch));
    }

    /// The dice a step throws, in the order the GM rolls them: a column's from `columns`,
    /// each side's worked out once a round (a side's units do not change while it fires
    /// its columns), any other step's made in `scratch`.
    pub(crate) fn shots_with<'s>(
        &self,
        step: Step,
        ctx: &RoundContext,
        columns: &'s mut ColumnShots,
        scratch: &'s mut Shots,
    ) -> &'s [Shot] {
        scratch.clear();
        let out = &mut *scratch;
        let first = ctx.number == 1;
        match step {
            Step::AntiAircraft
                if first && self.defender_aa && self.battle.kind == BattleKind::Land =>
            {
                for l in self.attacker.lines().iter().filter(|l| self.is_air(l.kind)) {
                    push_shot(out, l.kind, 1, l.count);
                }
            }
            // With no attacker left (the AA gun shot every aircraft down) nobody lands, and
            // there is no assault to support.
            Step::SupportShot
                if first && self.battle.support_shots > 0 && !self.attacker.is_empty() =>
            {
                let bb = self.cat().battleship();
                let to_hit = bb.map(|b| self.cat().get(b).attack).unwrap_or(4);
                // A ruleset without battleships labels the shots with the first attacker.
                let unit = bb.unwrap_or(self.attacker.lines()[0].kind);
                push_shot(out, unit, to_hit, self.battle.support_shots);
            }
            Step::FirstStrike if !self.defender.is_empty() => {
                for l in self.attacker.lines().iter().filter(|l| self.is_sub(l.kind)) {
                    let to_hit = self.to_hit(Side::Attacker, l.kind, l.damage);
                    push_shot(out, l.kind, to_hit, l.count);
                }
            }
            // The attacker stops rolling once no defender is left to hit.
            Step::AttackerColumn(column) if !self.defender.is_empty() => {
                if !columns.attack_ready {
                    self.attacker_columns(&mut columns.attack);
                    by_column(&mut columns.attack);
                    columns.attack_ready = true;
                }
                return in_columns(&columns.attack, column, column);
            }
            Step::DefenderColumn(_) | Step::DefenderColumns => {
                if !columns.defence_ready {
                    self.defender_columns(&ctx.casualty_area, &mut columns.defence);
                    by_column(&mut columns.defence);
                    columns.defence_ready = true;
                }
                return match step {
                    Step::DefenderColumn(column) => in_columns(&columns.defence, column, column),
                    _ => in_columns(&columns.defence, 1, 6),
                };
            }
            _ => {}
        }
        scratch
    }

    /// Every attacking column's dice, in listing order (a column's are those that need
    /// its number).
    pub(crate) fn attacker_columns(&self, out: &mut Shots) {
        let mut unlifted = self.supported_infantry();
        let infantry = self.cat().infantry();
        for l in self
            .attacker
            .lines()
            .iter()
            .filter(|l| !self.is_sub(l.kind))
        {
            let base = self.to_hit(Side::Attacker, l.kind, l.damage);
            let per_unit = self.dice_per_unit(Side::Attacker, l.kind);
            // The first infantry in the list are the ones paired with artillery.
            let lifted = if Some(l.kind) == infantry {
                l.count.min(unlifted)
            } else {
                0
            };
            unlifted -= lifted;
            // Marines that came ashore this turn (the first of their line).
            let lifted = lifted.max(self.landed_marines(l.kind).min(l.count));
            push_shot(out, l.kind, base + 1, lifted * per_unit);
            push_shot(out, l.kind, base, (l.count - lifted) * per_unit);
        }
    }

    /// How many attacking `kind` came ashore this turn, if it is a marine (they attack one
    /// higher): 0 for any other.
    pub(crate) fn landed_marines(&self, kind: UnitTypeId) -> u32 {
        if !self.cat().get(kind).has(Ability::Marine) {
            return 0;
        }
        self.battle
            .landed
            .iter()
            .filter(|(unit, _)| *unit == kind)
            .map(|(_, n)| n)
            .sum()
    }

    /// Every defending column's dice, the casualty area's included. Within a column,
    /// submarines' dice come last: they cannot hit aircraft, so their hits are told apart.
    pub(crate) fn defender_columns(&self, casualty_area: &Army, out: &mut Shots) {
        let firing = self.defender.lines().iter().chain(casualty_area.lines());
        for subs in [false, true] {
            for l in firing
                .clone()
                .filter(|l| self.cat().get(l.kind).has(Ability::CannotHitAir) == subs)
            {
                let to_hit = self.to_hit(Side::Defender, l.kind, l.damage);
                push_shot(out, l.kind, to_hit, l.count);
            }
        }
    }

    /// How much one hit of `unit` in `step` counts (two under heavy-weapons fire).
    pub(crate) fn weight(&self, step: Step, ctx: &RoundContext, unit: UnitTypeId) -> u32 {
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

    /// Applies a step's hits to the side it fires at, listing the casualties in
    /// `casualties`; returns the overkill.
    pub(crate) fn apply(
        &mut self,
        step: Step,
        ctx: &mut RoundContext,
        hits: Hits,
        casualties: &mut Casualties,
    ) -> u32 {
        match step {
            Step::Kamikaze => {
                if let (Some(target), 1) = (self.battle.kamikaze_target, ctx.number) {
                    self.kamikaze(target, casualties);
                }
                0
            }
            Step::AntiAircraft => self.take_hits(
                Side::Attacker,
                (Targets::AirOnly, hits.anyone),
                Effect::Removed,
                None,
                Some(LossReason::AntiAircraft),
                casualties,
            ),
            Step::SupportShot | Step::AttackerColumn(_) => self.apply_split(
                Side::Defender,
                hits,
                Some(&mut ctx.casualty_area),
                casualties,
            ),
            Step::FirstStrike => self.apply_split(Side::Defender, hits, None, casualties),
            Step::DefenderColumns | Step::DefenderColumn(_) => {
                self.apply_split(Side::Attacker, hits, None, casualties)
            }
        }
    }

    /// Hits anyone may take first, then those only non-aircraft may take. With a
    /// `casualty_area`, the units lost go there and fire back; without, they are removed.
    pub(crate) fn apply_split(
        &mut self,
        target: Side,
        hits: Hits,
        mut casualty_area: Option<&mut Army>,
        casualties: &mut Casualties,
    ) -> u32 {
        let effect = if casualty_area.is_some() {
            Effect::ToCasualtyArea
        } else {
            Effect::Removed
        };
        let mut overkill = 0;
        for (targets, n) in [
            (Targets::Anyone, hits.anyone),
            (Targets::NotAir, hits.not_air),
            (Targets::SurfaceOnly, hits.surface),
        ] {
            overkill += self.take_hits(
                target,
                (targets, n),
                effect,
                casualty_area.as_deref_mut(),
                None,
                casualties,
            );
        }
        overkill
    }

    /// Whether a round's attacker and defender columns are independent, given its start:
    /// no attacking subs (their victims do not fire back) and no defending unit whose
    /// defense would drop if damaged in this round's attack.
    pub(crate) fn columns_are_independent(&self) -> bool {
        let cat = self.cat();
        // Column by column, hits that not every unit may take land differently than all
        // at once: such a round is worked out step by step.
        let restricted_defenders = self.battle.defender_hits_by_column
            && self.defender.any(|k| targets_of(cat, k) != Targets::Anyone);
        !restricted_defenders
            && !self.attacker.any(|k| self.is_sub(k))
            && !self.defender.lines().iter().any(|l| {
                let t = cat.get(l.kind);
                t.hit_points.saturating_sub(l.damage) > 1
                    && t.damaged_defense.is_some_and(|dd| dd != t.defense)
            })
    }

    /// Whether the first round has anything the later ones do not: a kamikaze run, AA fire
    /// at aircraft, support shots, or subs that submerge.
    pub(crate) fn has_first_round_phases(&self) -> bool {
        self.battle.kamikaze_target.is_some()
            || self.battle.support_shots > 0
            || (self.defender_aa
                && self.battle.kind == BattleKind::Land
                && self.attacker.any(|k| self.is_air(k)))
            || (self.battle.defender_orders.submerge_subs && self.defender.any(|k| self.is_sub(k)))
    }

    /// Whether defending subs are lost first (only aircraft attack, and cannot retreat).
    pub(crate) fn subs_lost_first(&self) -> bool {
        self.battle.attacker_air_cannot_retreat && self.attacker.all(|k| self.is_air(k))
    }

    /// Whether (attacker, defender) count more than 20 heavy-weapons units this round.
    pub(crate) fn heavy_weapons_vulnerable(&self) -> (bool, bool) {
        if !self.battle.heavy_weapons {
            return (false, false);
        }
        let counts = |unit: UnitTypeId| !self.cat().get(unit).has(Ability::HwvExempt);
        let size = |army: &Army| army.count(|l| counts(l.kind));
        let one_group = |army: &Army| super::hwv::vulnerable([(true, size(army))]);
        let defender = if self.battle.defender_groups.is_empty() {
            one_group(&self.defender)
        } else {
            // Who holds what is left: of each type, the groups listed last keep theirs
            // first (the holder's own units, then its guests'), as the survivors are shared.
            let mut left: smallvec::SmallVec<[(UnitTypeId, u32); 16]> = Default::default();
            for l in self.defender.lines() {
                match left.iter_mut().find(|(k, _)| *k == l.kind) {
                    Some((_, n)) => *n += l.count,
                    None => left.push((l.kind, l.count)),
                }
            }
            let mut remaining_of = |unit: UnitTypeId, wanted: u32| -> u32 {
                match left.iter_mut().find(|(k, _)| *k == unit) {
                    Some((_, n)) => {
                        let kept = wanted.min(*n);
                        *n -= kept;
                        kept
                    }
                    None => 0,
                }
            };
            let groups: Vec<(bool, u32)> = self
                .battle
                .defender_groups
                .iter()
                .rev()
                .map(|group| {
                    let mut size = 0;
                    for &(unit, n) in &group.units {
                        let kept = remaining_of(unit, n);
                        if counts(unit) {
                            size += kept;
                        }
                    }
                    (group.counts, size)
                })
                .collect();
            super::hwv::vulnerable(groups)
        };
        let attacker = !self.battle.attacker_uncounted && one_group(&self.attacker);
        (attacker, defender)
    }

    pub(crate) fn kamikaze(&mut self, target: UnitTypeId, casualties: &mut Casualties) {
        if let Some(fighter) = self.cat().fighter() {
            self.attacker.remove_first(fighter);
        }
        if let Some(damage) = self.defender.damage_first(target) {
            let effect = if damage >= self.cat().get(target).hit_points {
                self.defender.remove_first(target);
                Effect::Removed
            } else {
                Effect::Damaged
            };
            casualties.push(Casualty {
                unit: target,
                effect,
                reason: LossReason::Kamikaze,
            });
        }
    }

    /// The order of loss `side`'s casualties follow this round, and the reason they are
    /// listed with (the combat order, where it decides who is lost).
    pub(crate) fn loss_order(&self, side: Side) -> (&LossOrder<'c>, LossReason) {
        let combat = self.combat_in(self.current_round);
        let order = match (side, &self.defender_subs_first) {
            (Side::Attacker, _) => &self.attacker_order,
            (Side::Defender, Some(subs_first)) if self.subs_lost_first() => subs_first,
            (Side::Defender, _) => &self.defender_order,
        };
        let by_combat_order = side == Side::Attacker
            && matches!(
                combat,
                CombatOrder::TakeAtAllCosts | CombatOrder::SaveAirAtAllCosts
            );
        let reason = if by_combat_order {
            LossReason::CombatOrder(combat)
        } else {
            order.reason
        };
        (order, reason)
    }

    /// Takes `hits` from `side` among the `targets` units, listing each unit hit in
    /// `casualties`. Lost units leave the side (into `casualty_area` when they still fire
    /// back). Returns the overkill.
    pub(crate) fn take_hits(
        &mut self,
        side: Side,
        (targets, hits): (Targets, u32),
        effect: Effect,
        casualty_area: Option<&mut Army>,
        reason_override: Option<LossReason>,
        casualties: &mut Casualties,
    ) -> u32 {
        if hits == 0 {
            return 0;
        }
        let cat = self.cat();
        let keep_last = side == Side::Attacker
            && self.combat_in(self.current_round) == CombatOrder::TakeAtAllCosts;
        let (order, in_order) = self.loss_order(side);
        let orders = match side {
            Side::Attacker => &self.battle.attacker_orders,
            Side::Defender => &self.battle.defender_orders,
        };
        let rules = HitRules {
            battleships_absorb: orders.battleships_absorb.unwrap_or(true),
            keep_last_surface_unit: keep_last,
        };
        let eligible = |kind: UnitTypeId| {
            let t = cat.get(kind);
            match targets {
                Targets::Anyone => true,
                Targets::NotAir => t.domain != Domain::Air,
                Targets::SurfaceOnly => t.domain != Domain::Air && !t.has(Ability::FirstStrike),
                Targets::AirOnly => t.domain == Domain::Air,
            }
        };
        let army = self.side(side);
        // The most hits any unit a hit can reach has left.
        let most_left = army
            .lines()
            .iter()
            .filter(|l| eligible(l.kind))
            .map(|l| cat.get(l.kind).hit_points.saturating_sub(l.damage))
            .max()
            .unwrap_or(0);
        if most_left <= 1 && !keep_last {
            // Every unit a hit can reach falls to one (most volleys): the first in the
            // order of loss are lost, one per hit.
            let reason = reason_override.unwrap_or(in_order);
            let mut queue = LossQueue::default();
            queue.fill(army.lines(), eligible, order);
            let used = queue.take(
                army.lines(),
                hits,
                casualty_area,
                listed(casualties, effect, reason),
            );
            queue.finish(self.side_mut(side));
            return hits - used;
        }
        // Lists `n` units of a type, whether they absorbed a battleship's hit, whether lost.
        let mut list = |unit: UnitTypeId, n: u32, absorbed: bool, lost: bool| {
            let casualty = Casualty {
                unit,
                effect: if lost { effect } else { Effect::Damaged },
                reason: reason_override.unwrap_or(if absorbed {
                    LossReason::BattleshipAbsorbs
                } else {
                    in_order
                }),
            };
            for _ in 0..n {
                casualties.push(casualty);
            }
        };
        if most_left == 2 && !keep_last && rules.battleships_absorb {
            // Two-hit battleships absorb the first hits (Classic, Cut-Throat).
            let hit_points = |kind: UnitTypeId| cat.get(kind).hit_points;
            let (used, after) = absorb_then_lose(
                army,
                (eligible, hits),
                (order, hit_points),
                casualty_area,
                |l, n, absorbed, lost| list(l.kind, n, absorbed, lost),
            );
            self.side_mut(side).rebuild(after);
            return hits - used;
        }
        let assignment = assign_hits(cat, army, eligible, hits, order, rules);
        let lost = |p: &casualties::Piece| p.damage + p.taken() >= cat.get(p.kind).hit_points;
        for &i in &assignment.listed {
            let piece = &assignment.pieces[i as usize];
            list(piece.kind, piece.count, piece.absorbed > 0, lost(piece));
        }
        leave(self.side_mut(side), &assignment, lost, casualty_area);
        hits - assignment.used
    }
}

/// Lists lost units (a run, and how many of it) in `casualties`.
pub(crate) fn listed(
    casualties: &mut Casualties,
    effect: Effect,
    reason: LossReason,
) -> impl FnMut(usize, &Line, u32) + '_ {
    move |_, l, n| {
        let casualty = Casualty {
            unit: l.kind,
            effect,
            reason,
        };
        for _ in 0..n {
            casualties.push(casualty);
        }
    }
}

/// Orders a side's dice by column, keeping each column's order; dice that need no column
/// (they can never hit) are dropped.
pub(crate) fn by_column(shots: &mut Shots) {
    shots.retain(|s| (1..=6).contains(&s.to_hit));
    shots.sort_by_key(|s| s.to_hit);
}

/// The dice of columns `from` to `to` of a list ordered [`by_column`].
pub(crate) fn in_columns(shots: &[Shot], from: u8, to: u8) -> &[Shot] {
    let start = shots.partition_point(|s| s.to_hit < from);
    let end = shots.partition_point(|s| s.to_hit <= to);
    &shots[start..end]
}

fn push_shot(out: &mut Shots, unit: UnitTypeId, to_hit: u8, count: u32) {
    if count > 0 {
        out.push(Shot {
            unit,
            to_hit,
            count,
        });
    }
}

/// Rolls a shot's dice, listing each; returns its hits.
pub(crate) fn roll_shot(
    dice: &mut (impl DiceSource + ?Sized),
    shot: &Shot,
    listed: &mut ListedDice,
) -> u32 {
    let mut hits = 0;
    for _ in 0..shot.count {
        let rolled = roll(dice, shot.to_hit, shot.unit);
        hits += u32::from(rolled.hit);
        listed.push(rolled);
    }
    hits
}

pub(crate) fn roll(
    dice: &mut (impl DiceSource + ?Sized),
    to_hit: u8,
    unit: UnitTypeId,
) -> RolledDie {
    let die = dice.roll();
    RolledDie {
        die,
        to_hit,
        unit,
        hit: die.value() <= to_hit,
    }
}

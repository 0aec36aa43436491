//! The engine's steps: a battle fought round by round in Part 13's order, each step's
//! dice rolled and recorded, casualties taken by the order of loss.

use super::*;

// The steps, hits and targets are the new engine's (unchanged by the rewrite); what
// differs is how a side's units are kept.
pub(crate) use crate::battle::fight::{targets_of, Hits, Step, Targets, MAX_ROUNDS};

/// One die to be thrown: whose, and what it needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shot {
    pub(crate) unit: UnitTypeId,
    pub(crate) to_hit: u8,
}

/// What a round carries from step to step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RoundContext {
    pub(crate) number: u32,
    /// Units hit by the attacker this round that still fire back.
    pub(crate) casualty_area: Vec<Unit>,
    /// Defending subs that submerged for this round.
    pub(crate) submerged: Vec<Unit>,
    /// Whether (attacker, defender) are heavy-weapons groups this round.
    pub(crate) heavy_weapons: (bool, bool),
}

#[derive(Clone)]
pub(crate) struct Fight<'b, 'c> {
    pub(crate) battle: &'b Battle<'c>,
    pub(crate) attacker: Vec<Unit>,
    pub(crate) defender: Vec<Unit>,
    /// Whether the defender has an AA gun (it fires in its own phase, never as a column).
    pub(crate) defender_aa: bool,
    pub(crate) combat: CombatOrder,
    /// The round being fought (its combat order may differ from the first's).
    pub(crate) current_round: u32,
    pub(crate) attacker_order: Rc<LossOrder<'c>>,
    pub(crate) defender_order: Rc<LossOrder<'c>>,
    pub(crate) rounds: Vec<RoundLog>,
}

impl<'b, 'c> Fight<'b, 'c> {
    pub(crate) fn new(battle: &'b Battle<'c>) -> Result<Self, BattleError> {
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
            if !attacker.iter().any(|u| Some(u.kind) == fighter) {
                return Err(BattleError::new(
                    ViolationCode::KamikazeWithoutFighter,
                    "Cut-Throat, Kamikazi attacks",
                    "a kamikaze run needs an attacking fighter",
                ));
            }
            if !cat.get(target).has(Ability::KamikazeTarget)
                || !defender.iter().any(|u| u.kind == target)
            {
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

    pub(crate) fn run(
        mut self,
        dice: &mut (impl DiceSource + ?Sized),
    ) -> Result<BattleLog, BattleError> {
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

    pub(crate) fn finish(self, outcome: Outcome) -> BattleLog {
        BattleLog {
            kind: self.battle.kind,
            rounds: self.rounds,
            outcome,
            attacker_left: self.attacker,
            defender_left: self.defender,
        }
    }

    pub(crate) fn is_air(&self, unit: &Unit) -> bool {
        self.cat().get(unit.kind).domain == Domain::Air
    }

    pub(crate) fn is_sub(&self, unit: &Unit) -> bool {
        self.cat().get(unit.kind).has(Ability::FirstStrike)
    }

    /// The outcome after round `number`, or `None` to fight on.
    pub(crate) fn outcome(&self, number: u32) -> Option<Outcome> {
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
        // Nowhere to go (settled before the dice): the attacker fights on, orders or not.
        if !self.battle.attacker_may_withdraw {
            return None;
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

    pub(crate) fn to_hit(&self, side: Side, unit: &Unit) -> u8 {
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
    pub(crate) fn supported_infantry(&self) -> usize {
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
    pub(crate) fn dice_per_unit(&self, side: Side, unit: &Unit) -> usize {
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

    pub(crate) fn firing_dice(&self, side: Side) -> usize {
        let units = match side {
            Side::Attacker => &self.attacker,
            Side::Defender => &self.defender,
        };
        units.iter().filter(|u| self.to_hit(side, u) > 0).count()
    }

    /// Whether a side has any unit that could ever hit one of the other's.
    pub(crate) fn can_hit(&self, side: Side) -> bool {
        let (own, other) = match side {
            Side::Attacker => (&self.attacker, &self.defender),
            Side::Defender => (&self.defender, &self.attacker),
        };
        own.iter().filter(|u| self.to_hit(side, u) > 0).any(|u| {
            let no_air = self.cat().get(u.kind).has(Ability::CannotHitAir);
            other.iter().any(|t| !(no_air && self.is_air(t)))
        })
    }

    pub(crate) fn round(
        &mut self,
        number: u32,
        dice: &mut (impl DiceSource + ?Sized),
    ) -> Vec<Volley> {
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
    pub(crate) fn kamikaze_due(&self, step: Step, ctx: &RoundContext) -> bool {
        step == Step::Kamikaze && ctx.number == 1 && self.battle.kamikaze_target.is_some()
    }

    /// Sets a round up: submerged subs step aside, heavy-weapons groups are counted.
    pub(crate) fn begin_round(&mut self, number: u32) -> RoundContext {
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
    pub(crate) fn end_round(&mut self, ctx: RoundContext) {
        self.defender.extend(ctx.submerged);
    }

    /// The dice a step throws, in the order the GM rolls them.
    pub(crate) fn shots(&self, step: Step, ctx: &RoundContext) -> Vec<Shot> {
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
    pub(crate) fn defender_column_shots(&self, column: u8, ctx: &RoundContext) -> Vec<Shot> {
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

    /// The hits of rolled dice, split by who may take them.
    pub(crate) fn hits_of(&self, step: Step, ctx: &RoundContext, rolled: &[RolledDie]) -> Hits {
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
    pub(crate) fn apply(
        &mut self,
        step: Step,
        ctx: &mut RoundContext,
        hits: Hits,
    ) -> (Vec<Casualty>, u32) {
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
    pub(crate) fn apply_split(
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
    pub(crate) fn columns_are_independent(&self) -> bool {
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
    pub(crate) fn has_first_round_phases(&self) -> bool {
        self.battle.kamikaze_target.is_some()
            || self.battle.support_shots > 0
            || (self.defender_aa
                && self.battle.kind == BattleKind::Land
                && self.attacker.iter().any(|u| self.is_air(u)))
            || (self.battle.defender_orders.submerge_subs
                && self.defender.iter().any(|u| self.is_sub(u)))
    }

    /// Whether defending subs are lost first (only aircraft attack, and cannot retreat).
    pub(crate) fn subs_lost_first(&self) -> bool {
        let cat = self.cat();
        self.battle.attacker_air_cannot_retreat
            && self
                .attacker
                .iter()
                .all(|u| cat.get(u.kind).domain == Domain::Air)
    }

    /// Whether (attacker, defender) count more than 20 heavy-weapons units this round.
    pub(crate) fn heavy_weapons_vulnerable(&self) -> (bool, bool) {
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

    pub(crate) fn kamikaze(&mut self, target: UnitTypeId) -> Volley {
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
    pub(crate) fn take_hits(
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
        let order: Cow<'_, LossOrder<'_>> = if subs_first {
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

pub(crate) fn count_hits(rolled: &[RolledDie]) -> u32 {
    rolled.iter().filter(|d| d.hit).count() as u32
}

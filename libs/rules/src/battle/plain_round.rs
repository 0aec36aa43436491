//! A plain round fought in one pass. Most rounds of most battles are plain: no first-round
//! phase (kamikaze, AA fire, support shots, submerging), no submarines, no heavy weapons,
//! no TAAC, and every unit one hit from lost. Such a round is the attacker's columns, each
//! one's hits taken by the order of loss into the casualty area, then the defender's
//! columns, the casualty area's included, their hits taken from the attacker.
//!
//! The generic steps of `fight.rs` give the same listing for it (every hit falls on anyone,
//! so the defender's columns land the same whether taken one by one or together); this
//! pass skips their bookkeeping: each side is sorted by the order of loss once a round, not
//! once a volley, and no step is dispatched. The independent oracle (`battle/oracle`),
//! which knows no plain rounds, checks the odds of battles fought with them.

use super::army::{Army, Line};
use super::casualties::LossQueue;
use super::*;

impl Fight<'_, '_> {
    /// Whether round `number` is plain (see the module's text).
    pub(crate) fn is_plain_round(&self, number: u32) -> bool {
        if number == 1 && self.has_first_round_phases() {
            return false;
        }
        if self.combat_in(number) == CombatOrder::TakeAtAllCosts
            || self.heavy_weapons_vulnerable() != (false, false)
        {
            return false;
        }
        let cat = self.cat();
        let plain = |l: &Line| {
            let unit = cat.get(l.kind);
            unit.hit_points <= l.damage + 1
                && !unit.has(Ability::FirstStrike)
                && targets_of(cat, l.kind) == Targets::Anyone
        };
        self.attacker.lines().iter().all(plain) && self.defender.lines().iter().all(plain)
    }

    /// Fights plain round `number`, listing its dice and casualties in `log`; `shots` and
    /// `losses` are room for a side's dice and its order of loss, reused round to round.
    pub(crate) fn plain_round(
        &mut self,
        number: u32,
        dice: &mut (impl DiceSource + ?Sized),
        log: &mut BattleLog,
        (shots, losses): (&mut Shots, &mut LossQueue),
    ) {
        self.current_round = number;
        log.rounds = number;
        let mut casualty_area = Army::default();
        if !self.defender.is_empty() {
            shots.clear();
            self.attacker_columns(shots);
            by_column(shots);
            let (order, reason) = self.loss_order(Side::Defender);
            losses.fill(self.defender.lines(), |_| true, order);
            for fired in shots.chunk_by(|a, b| a.to_hit == b.to_hit) {
                // The attacker stops rolling once no defender is left to hit.
                if losses.is_empty() {
                    break;
                }
                let scored = roll_shots(dice, fired, &mut log.dice);
                let area = Some(&mut casualty_area);
                let list = listed(&mut log.casualties, Effect::ToCasualtyArea, reason);
                let used = losses.take(self.defender.lines(), scored, area, list);
                log.close_volley(
                    number,
                    Side::Attacker,
                    Phase::Columns,
                    scored,
                    scored - used,
                );
            }
            losses.finish(&mut self.defender);
        }
        shots.clear();
        self.defender_columns(&casualty_area, shots);
        by_column(shots);
        if shots.is_empty() {
            return;
        }
        let scored = roll_shots(dice, shots, &mut log.dice);
        let (order, reason) = self.loss_order(Side::Attacker);
        losses.fill(self.attacker.lines(), |_| true, order);
        let list = listed(&mut log.casualties, Effect::Removed, reason);
        let used = losses.take(self.attacker.lines(), scored, None, list);
        losses.finish(&mut self.attacker);
        log.close_volley(
            number,
            Side::Defender,
            Phase::Columns,
            scored,
            scored - used,
        );
    }
}

/// Rolls every die of `shots`, listing each; returns the hits.
fn roll_shots(
    dice: &mut (impl DiceSource + ?Sized),
    shots: &[Shot],
    listed: &mut ListedDice,
) -> u32 {
    shots.iter().map(|shot| roll_shot(dice, shot, listed)).sum()
}

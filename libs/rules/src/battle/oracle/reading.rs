//! The battle as the oracle reads it: each side's order of loss, the values a unit rolls
//! at, and what the combat order in force is, taken from the rules one by one.

use crate::battle::{Battle, BattleKind, CombatOrder, Side, Unit};
use crate::tech::Technology;
use crate::units::{Ability, Catalogue, Domain, UnitTypeId};

/// A battle's fixed facts, read once.
pub(super) struct Reading<'b, 'c> {
    pub battle: &'b Battle<'c>,
    /// Unit types, first lost first, for the attacker and the defender.
    pub attacker_loss: Vec<UnitTypeId>,
    pub defender_loss: Vec<UnitTypeId>,
    /// The defender's order when only aircraft attack and they cannot retreat: its
    /// submarines before anything else (rules-facts: the exception to the defaults).
    pub defender_subs_first: Vec<UnitTypeId>,
    /// Whether the defender has an AA gun.
    pub anti_aircraft: bool,
}

impl<'b, 'c> Reading<'b, 'c> {
    pub fn new(battle: &'b Battle<'c>) -> Self {
        let cat = battle.catalogue;
        let table = |side: Side| {
            let row = match (battle.kind, side) {
                (BattleKind::Land, Side::Attacker) => 0,
                (BattleKind::Land, Side::Defender) => 1,
                (BattleKind::Sea, Side::Attacker) => 2,
                (BattleKind::Sea, Side::Defender) => 3,
            };
            // The rules-facts table, as the catalogue holds it (every type listed).
            cat.default_loss_order(row).to_vec()
        };
        let first_then = |first: &[UnitTypeId], rest: Vec<UnitTypeId>| {
            let mut out: Vec<UnitTypeId> = Vec::new();
            for id in first.iter().chain(rest.iter()) {
                if !out.contains(id) {
                    out.push(*id);
                }
            }
            out
        };
        let attacker_table = table(Side::Attacker);
        let explicit = &battle.attacker_orders.order_of_loss;
        let attacker_loss = if !explicit.is_empty() {
            first_then(explicit, attacker_table)
        } else if battle.attacker_orders.combat == Some(CombatOrder::KillAtAllCosts) {
            // Lowest attack first, whatever the kind; equals as the table has them.
            let mut by_attack = attacker_table;
            by_attack.sort_by_key(|id| cat.get(*id).attack);
            by_attack
        } else {
            attacker_table
        };
        let defender_loss =
            first_then(&battle.defender_orders.order_of_loss, table(Side::Defender));
        let subs: Vec<UnitTypeId> = defender_loss
            .iter()
            .copied()
            .filter(|id| cat.get(*id).has(Ability::FirstStrike))
            .collect();
        let defender_subs_first = first_then(&subs, defender_loss.clone());
        let anti_aircraft = battle
            .defender
            .iter()
            .any(|&(kind, n)| n > 0 && cat.get(kind).has(Ability::AntiAircraft));
        Reading {
            battle,
            attacker_loss,
            defender_loss,
            defender_subs_first,
            anti_aircraft,
        }
    }

    pub fn cat(&self) -> &'c Catalogue {
        self.battle.catalogue
    }

    pub fn is_air(&self, kind: UnitTypeId) -> bool {
        self.cat().get(kind).domain == Domain::Air
    }

    pub fn is_sub(&self, kind: UnitTypeId) -> bool {
        self.cat().get(kind).has(Ability::FirstStrike)
    }

    /// The combat order the attacker fights round `round` under.
    pub fn combat(&self, round: u32) -> CombatOrder {
        let b = self.battle;
        match (b.attacker_orders.combat, b.kind) {
            (Some(order), _) => order,
            (None, BattleKind::Land) if b.saac_from_round.is_some_and(|from| round >= from) => {
                CombatOrder::SaveAirAtAllCosts
            }
            (None, BattleKind::Land) => CombatOrder::SaveAir,
            (None, BattleKind::Sea) => CombatOrder::KillAtAllCosts,
        }
    }

    /// What `unit` needs on a die: its attack or its defense (lower once damaged), with
    /// jet fighters defending at 5 and super submarines attacking at 3. Artillery support
    /// is the round's business (it pairs units).
    pub fn value(&self, side: Side, unit: Unit) -> u8 {
        let t = self.cat().get(unit.kind);
        let developed = |techs: &[Technology], tech| techs.contains(&tech);
        match side {
            Side::Attacker => {
                let super_subs = developed(
                    &self.battle.attacker_technologies,
                    Technology::SuperSubmarines,
                );
                if super_subs && t.has(Ability::FirstStrike) {
                    t.attack.max(3)
                } else {
                    t.attack
                }
            }
            Side::Defender => {
                let base = if unit.damage > 0 {
                    t.damaged_defense.unwrap_or(t.defense)
                } else {
                    t.defense
                };
                let jets = developed(&self.battle.defender_technologies, Technology::JetFighters);
                if jets && Some(unit.kind) == self.cat().fighter() {
                    base.max(5)
                } else {
                    base
                }
            }
        }
    }

    /// How many dice `unit` throws attacking: a heavy bomber three.
    pub fn attack_dice(&self, kind: UnitTypeId) -> u32 {
        let heavy = self
            .battle
            .attacker_technologies
            .contains(&Technology::HeavyBombers);
        if heavy && Some(kind) == self.cat().bomber() {
            3
        } else {
            1
        }
    }
}

//! Who is lost to a number of hits: the order of loss (explicit, from the combat order, or
//! the IAAPA default), multi-hit battleships absorbing hits first, and hits that only some
//! units may take (submarines cannot hit aircraft).

use crate::units::{Catalogue, Domain, UnitTypeId};

use super::{BattleKind, CombatOrder, LossReason, Side, Unit};

/// The order in which a side's unit types are lost, first to last.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LossOrder {
    pub order: Vec<UnitTypeId>,
    pub reason: LossReason,
}

/// Where the catalogue keeps a kind of battle's and side's default order.
fn order_index(kind: BattleKind, side: Side) -> usize {
    match (kind, side) {
        (BattleKind::Land, Side::Attacker) => 0,
        (BattleKind::Land, Side::Defender) => 1,
        (BattleKind::Sea, Side::Attacker) => 2,
        (BattleKind::Sea, Side::Defender) => 3,
    }
}

impl LossOrder {
    /// The IAAPA default for this kind of battle and side.
    pub fn default_for(catalogue: &Catalogue, kind: BattleKind, side: Side) -> Self {
        LossOrder {
            order: catalogue
                .default_loss_order(order_index(kind, side))
                .to_vec(),
            reason: LossReason::DefaultOrder,
        }
    }

    /// A player's explicit order: the types they listed first, then the default for the rest.
    pub fn explicit(listed: &[UnitTypeId], default: &LossOrder) -> Self {
        let mut order: Vec<UnitTypeId> = Vec::with_capacity(default.order.len());
        for id in listed.iter().chain(default.order.iter()) {
            if !order.contains(id) {
                order.push(*id);
            }
        }
        LossOrder {
            order,
            reason: LossReason::ExplicitOrder,
        }
    }

    /// Kill At All Costs: lowest attack value first, whatever the unit kind (ties keep the
    /// default's order).
    pub fn kill_at_all_costs(catalogue: &Catalogue, default: &LossOrder) -> Self {
        let mut order = default.order.clone();
        order.sort_by_key(|id| catalogue.get(*id).attack);
        LossOrder {
            order,
            reason: LossReason::CombatOrder(CombatOrder::KillAtAllCosts),
        }
    }

    fn rank(&self, id: UnitTypeId) -> usize {
        self.order
            .iter()
            .position(|o| *o == id)
            .unwrap_or(self.order.len())
    }
}

/// One unit's share of a volley's hits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Taken {
    /// Index of the unit in the side's list.
    pub index: usize,
    /// Hits it took (a multi-hit battleship may take fewer than it can bear).
    pub hits: u8,
    pub reason: LossReason,
}

/// How hits are to be spread over one side.
#[derive(Debug, Clone, Copy)]
pub struct HitRules {
    /// Damaged-able battleships take a damage hit before any unit is lost.
    pub battleships_absorb: bool,
    /// Take the last ground or sea unit only after every aircraft (Take At All Costs).
    pub keep_last_surface_unit: bool,
}

/// Spreads `hits` over `units` (those `eligible` may be hit) and returns who
/// takes what; hits nobody can take are overkill (the caller counts them).
pub fn assign_hits(
    catalogue: &Catalogue,
    units: &[Unit],
    eligible: impl Fn(&Unit) -> bool,
    hits: u32,
    order: &LossOrder,
    rules: HitRules,
) -> Vec<Taken> {
    let mut remaining = hits;
    let mut taken: Vec<Taken> = Vec::new();
    let mut extra = vec![0u8; units.len()];
    let capacity = |i: usize, extra: &[u8]| {
        let u = &units[i];
        catalogue
            .get(u.kind)
            .hit_points
            .saturating_sub(u.damage + extra[i])
    };

    let absorbing = rules.battleships_absorb
        && units
            .iter()
            .any(|u| catalogue.get(u.kind).hit_points > u.damage + 1);
    if absorbing {
        // Each multi-hit ship takes damage down to its last hit point, in order of loss.
        let mut ships: Vec<usize> = (0..units.len())
            .filter(|&i| eligible(&units[i]) && capacity(i, &extra) > 1)
            .collect();
        ships.sort_by_key(|&i| order.rank(units[i].kind));
        for i in ships {
            while remaining > 0 && capacity(i, &extra) > 1 {
                extra[i] += 1;
                remaining -= 1;
            }
        }
        for (i, &e) in extra.iter().enumerate() {
            if e > 0 {
                taken.push(Taken {
                    index: i,
                    hits: e,
                    reason: LossReason::BattleshipAbsorbs,
                });
            }
        }
    }

    let mut candidates: Vec<usize> = (0..units.len())
        .filter(|&i| eligible(&units[i]) && capacity(i, &extra) > 0)
        .collect();
    // Most damaged first among equals: a damaged ship goes before a fresh one of its type.
    candidates.sort_by_key(|&i| {
        (
            order.rank(units[i].kind),
            std::cmp::Reverse(units[i].damage + extra[i]),
        )
    });
    if rules.keep_last_surface_unit {
        let last_surface = candidates
            .iter()
            .rposition(|&i| catalogue.get(units[i].kind).domain != Domain::Air);
        if let Some(pos) = last_surface {
            let last = candidates.remove(pos);
            candidates.push(last);
        }
    }
    for i in candidates {
        if remaining == 0 {
            break;
        }
        let need = capacity(i, &extra);
        let hit = need.min(u8::try_from(remaining).unwrap_or(u8::MAX));
        remaining -= u32::from(hit);
        extra[i] += hit;
        match taken.iter_mut().find(|t| t.index == i) {
            Some(t) => t.hits += hit,
            None => taken.push(Taken {
                index: i,
                hits: hit,
                reason: order.reason,
            }),
        }
    }
    taken
}

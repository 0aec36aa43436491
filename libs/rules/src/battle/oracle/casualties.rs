//! The old engine's casualty assignment, unit by unit (the oracle's).

use crate::units::{Catalogue, Domain};

use super::{HitRules, LossOrder, LossReason, Unit};

/// One unit's share of a volley's hits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Taken {
    /// Index of the unit in the side's list.
    pub index: usize,
    /// Hits it took (a multi-hit battleship may take fewer than it can bear).
    pub hits: u8,
    pub reason: LossReason,
}

/// Spreads `hits` over `units` (those `eligible` may be hit) and returns who
/// takes what; hits nobody can take are overkill (the caller counts them).
pub fn assign_hits(
    catalogue: &Catalogue,
    units: &[Unit],
    eligible: impl Fn(&Unit) -> bool,
    hits: u32,
    order: &LossOrder<'_>,
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

//! Hits placed unit by unit: multi-hit ships take damage first (unless told not to), then
//! units are lost in the order of loss, the most damaged of a type before the others; Take
//! At All Costs keeps one ground or sea unit until everything else is gone.

use std::cmp::Reverse;

use crate::battle::Unit;
use crate::units::{Catalogue, Domain, UnitTypeId};

/// Which units a hit may fall on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Aim {
    Any,
    /// A submarine's hit: not on aircraft.
    NotAir,
    /// An AAP submarine's hit: not on aircraft, not on submarines.
    Surface,
    /// An AA gun's hit.
    Air,
}

impl Aim {
    pub fn reaches(self, cat: &Catalogue, kind: UnitTypeId) -> bool {
        let t = cat.get(kind);
        let air = t.domain == Domain::Air;
        match self {
            Aim::Any => true,
            Aim::NotAir => !air,
            Aim::Surface => !air && !t.has(crate::units::Ability::FirstStrike),
            Aim::Air => air,
        }
    }
}

/// How one side takes hits.
pub(super) struct Taking<'o> {
    /// Types first lost first.
    pub order: &'o [UnitTypeId],
    pub ships_absorb: bool,
    pub keep_one_surface_unit: bool,
}

/// Places `hits` aimed `aim` on `side`; returns the units lost, with the damage they died
/// of. Hits nobody can take are wasted.
pub(super) fn place_hits(
    cat: &Catalogue,
    side: &mut Vec<Unit>,
    (aim, hits): (Aim, u32),
    taking: &Taking<'_>,
) -> Vec<Unit> {
    if hits == 0 {
        return Vec::new();
    }
    let rank = |kind: UnitTypeId| {
        taking
            .order
            .iter()
            .position(|k| *k == kind)
            .unwrap_or(taking.order.len())
    };
    let life = |u: &Unit| cat.get(u.kind).hit_points;
    let mut taken = vec![0u8; side.len()];
    let room = |i: usize, taken: &[u8]| life(&side[i]).saturating_sub(side[i].damage + taken[i]);
    let mut left = hits;
    if taking.ships_absorb {
        let mut ships: Vec<usize> = (0..side.len())
            .filter(|&i| aim.reaches(cat, side[i].kind) && room(i, &taken) > 1)
            .collect();
        ships.sort_by_key(|&i| (rank(side[i].kind), i));
        for i in ships {
            let t = (room(i, &taken) - 1).min(left.min(255) as u8);
            taken[i] += t;
            left -= u32::from(t);
        }
    }
    let mut queue: Vec<usize> = (0..side.len())
        .filter(|&i| aim.reaches(cat, side[i].kind) && room(i, &taken) > 0)
        .collect();
    queue.sort_by_key(|&i| (rank(side[i].kind), Reverse(side[i].damage + taken[i]), i));
    if taking.keep_one_surface_unit {
        if let Some(at) = queue
            .iter()
            .rposition(|&i| cat.get(side[i].kind).domain != Domain::Air)
        {
            let kept = queue.remove(at);
            queue.push(kept);
        }
    }
    for i in queue {
        let t = room(i, &taken).min(left.min(255) as u8);
        taken[i] += t;
        left -= u32::from(t);
    }
    let mut lost = Vec::new();
    let mut kept = Vec::new();
    for (u, t) in side.iter().zip(taken) {
        let after = Unit {
            kind: u.kind,
            damage: u.damage + t,
        };
        if after.damage >= life(u) {
            lost.push(after);
        } else {
            kept.push(after);
        }
    }
    kept.sort();
    *side = kept;
    lost
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_two_hit_battleship_absorbs_the_first_hit_and_infantry_fall_one_a_hit() {
        let cat = Catalogue::builtin("cutthroat").expect("built-in");
        let id = |code: &str| cat.id(code).expect(code);
        let (bb, trn) = (id("BB"), id("TRN"));
        let fresh = |kind| Unit { kind, damage: 0 };
        let mut side = vec![fresh(trn), fresh(bb), fresh(trn)];
        let order = [trn, bb];
        let taking = Taking {
            order: &order,
            ships_absorb: true,
            keep_one_surface_unit: false,
        };
        let lost = place_hits(&cat, &mut side, (Aim::Any, 2), &taking);
        assert_eq!(
            lost,
            vec![Unit {
                kind: trn,
                damage: 1
            }]
        );
        let mut left = vec![
            Unit {
                kind: bb,
                damage: 1,
            },
            fresh(trn),
        ];
        left.sort();
        assert_eq!(side, left);
    }
}

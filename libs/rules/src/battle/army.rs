//! A side's units as counts: runs of alike units (type and damage), in the order the GM
//! lists them. The order is kept because it is the order the dice of a column are rolled
//! and labelled in, and the order ties in the order of loss are broken in; within a run the
//! units are alike, so a run is one count however many units it holds.

use smallvec::SmallVec;

use crate::units::UnitTypeId;

use super::Unit;

/// Alike units side by side: `count` units of `kind`, each with `damage` hits taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Line {
    pub(crate) kind: UnitTypeId,
    pub(crate) damage: u8,
    pub(crate) count: u32,
}

/// Most battles have fewer kinds of units than this on a side: their armies live inline,
/// and a battle allocates nothing for them round after round.
const INLINE_LINES: usize = 8;

/// A side's units, as runs of alike units in listing order; adjacent runs always differ.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub(crate) struct Army {
    lines: SmallVec<[Line; INLINE_LINES]>,
}

impl Army {
    /// `count` more units at the end of the list.
    pub(crate) fn push(&mut self, kind: UnitTypeId, damage: u8, count: u32) {
        if count == 0 {
            return;
        }
        match self.lines.last_mut() {
            Some(last) if last.kind == kind && last.damage == damage => last.count += count,
            _ => self.lines.push(Line {
                kind,
                damage,
                count,
            }),
        }
    }

    pub(crate) fn lines(&self) -> &[Line] {
        &self.lines
    }

    /// How many units.
    pub(crate) fn len(&self) -> u32 {
        self.lines.iter().map(|l| l.count).sum()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Whether any unit's type passes `test`.
    pub(crate) fn any(&self, test: impl Fn(UnitTypeId) -> bool) -> bool {
        self.lines.iter().any(|l| test(l.kind))
    }

    /// Whether every unit's type passes `test` (true for no units).
    pub(crate) fn all(&self, test: impl Fn(UnitTypeId) -> bool) -> bool {
        self.lines.iter().all(|l| test(l.kind))
    }

    /// How many units pass `test`.
    pub(crate) fn count(&self, test: impl Fn(&Line) -> bool) -> u32 {
        self.lines.iter().filter(|l| test(l)).map(|l| l.count).sum()
    }

    /// Removes the first unit of `kind` in the list; whether there was one.
    pub(crate) fn remove_first(&mut self, kind: UnitTypeId) -> bool {
        let Some(at) = self.lines.iter().position(|l| l.kind == kind) else {
            return false;
        };
        self.lines[at].count -= 1;
        self.tidy();
        true
    }

    /// Gives the first unit of `kind` one more hit; its damage after, if there was one.
    pub(crate) fn damage_first(&mut self, kind: UnitTypeId) -> Option<u8> {
        let at = self.lines.iter().position(|l| l.kind == kind)?;
        let line = self.lines[at];
        let damaged = Line {
            damage: line.damage + 1,
            count: 1,
            ..line
        };
        self.lines[at].count -= 1;
        self.lines.insert(at, damaged);
        self.tidy();
        Some(damaged.damage)
    }

    /// Takes out the units whose type passes `test`, keeping both lists' order.
    pub(crate) fn split_off(&mut self, test: impl Fn(UnitTypeId) -> bool) -> Army {
        let mut taken = Army::default();
        let mut kept = Army::default();
        for l in &self.lines {
            let to = if test(l.kind) { &mut taken } else { &mut kept };
            to.push(l.kind, l.damage, l.count);
        }
        *self = kept;
        taken
    }

    /// Appends `other`'s units.
    pub(crate) fn extend(&mut self, other: &Army) {
        for l in &other.lines {
            self.push(l.kind, l.damage, l.count);
        }
    }

    /// Sets the counts of runs (by their place in the list); the runs left empty leave.
    pub(crate) fn set_counts(&mut self, counts: impl Iterator<Item = (usize, u32)>) {
        let mut emptied = false;
        for (i, count) in counts {
            self.lines[i].count = count;
            emptied |= count == 0;
        }
        // Runs that keep units keep their neighbours: only an emptied run joins any.
        if emptied {
            self.tidy();
        }
    }

    /// Replaces the list with `lines`, in that order.
    pub(crate) fn rebuild(&mut self, lines: impl IntoIterator<Item = Line>) {
        self.lines.clear();
        for l in lines {
            self.push(l.kind, l.damage, l.count);
        }
    }

    /// The same units listed by type, the most damaged first within a type: where the
    /// order of a list makes no difference to what can happen to it (the exact odds), alike
    /// armies become one.
    pub(crate) fn canonical(&mut self) {
        if self.lines.len() < 2 {
            return;
        }
        self.lines
            .sort_unstable_by_key(|l| (l.kind, std::cmp::Reverse(l.damage)));
        let lines = std::mem::take(&mut self.lines);
        self.rebuild(lines);
    }

    /// Marks the first `n` undamaged units of `kind` as damaged once (a battle that starts
    /// with damaged multi-hit ships).
    pub(crate) fn damage_first_fresh(&mut self, kind: UnitTypeId, n: u32) {
        let mut left = n;
        let lines = std::mem::take(&mut self.lines);
        for l in lines {
            if l.kind == kind && l.damage == 0 && left > 0 {
                let damaged = l.count.min(left);
                left -= damaged;
                self.push(kind, 1, damaged);
                self.push(kind, 0, l.count - damaged);
            } else {
                self.push(l.kind, l.damage, l.count);
            }
        }
    }

    /// One entry per unit, in listing order.
    pub(crate) fn units(&self) -> Vec<Unit> {
        self.lines
            .iter()
            .flat_map(|l| {
                std::iter::repeat_n(
                    Unit {
                        kind: l.kind,
                        damage: l.damage,
                    },
                    l.count as usize,
                )
            })
            .collect()
    }

    /// Drops empty runs and joins alike neighbours, in place.
    fn tidy(&mut self) {
        let mut kept: usize = 0;
        for read in 0..self.lines.len() {
            let l = self.lines[read];
            if l.count == 0 {
                continue;
            }
            match kept.checked_sub(1).map(|last| &mut self.lines[last]) {
                Some(last) if last.kind == l.kind && last.damage == l.damage => {
                    last.count += l.count
                }
                _ => {
                    self.lines[kept] = l;
                    kept += 1;
                }
            }
        }
        self.lines.truncate(kept);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u8) -> UnitTypeId {
        // An id is the catalogue's index: these tests need no catalogue.
        serde_json::from_str(&n.to_string()).expect("id")
    }

    fn army(lines: &[(u8, u8, u32)]) -> Army {
        let mut a = Army::default();
        for &(k, d, n) in lines {
            a.push(id(k), d, n);
        }
        a
    }

    #[test]
    fn alike_neighbours_are_one_run_and_the_list_order_is_kept() {
        let a = army(&[(1, 0, 2), (1, 0, 1), (2, 0, 1), (1, 0, 1)]);
        assert_eq!(a.lines().len(), 3);
        assert_eq!(a.len(), 5);
        let kinds: Vec<UnitTypeId> = a.units().iter().map(|u| u.kind).collect();
        assert_eq!(kinds, vec![id(1), id(1), id(1), id(2), id(1)]);
    }

    #[test]
    fn removing_a_whole_run_joins_its_neighbours() {
        let mut a = army(&[(1, 0, 2), (2, 0, 1), (1, 0, 1)]);
        assert!(a.remove_first(id(2)));
        assert_eq!(a, army(&[(1, 0, 3)]));
        assert!(!a.remove_first(id(9)));
    }

    #[test]
    fn damaging_the_first_unit_of_a_type_splits_its_run() {
        let mut a = army(&[(3, 0, 3)]);
        assert_eq!(a.damage_first(id(3)), Some(1));
        assert_eq!(a, army(&[(3, 1, 1), (3, 0, 2)]));
        assert_eq!(a.damage_first(id(4)), None);
    }

    #[test]
    fn a_battle_starting_with_damaged_ships_damages_the_first_fresh_ones() {
        let mut a = army(&[(3, 0, 2), (1, 0, 1), (3, 0, 2)]);
        a.damage_first_fresh(id(3), 3);
        assert_eq!(a, army(&[(3, 1, 2), (1, 0, 1), (3, 1, 1), (3, 0, 1)]));
    }

    #[test]
    fn splitting_off_keeps_both_orders() {
        let mut a = army(&[(1, 0, 1), (5, 0, 2), (2, 0, 1), (5, 0, 1)]);
        let subs = a.split_off(|k| k == id(5));
        assert_eq!(subs, army(&[(5, 0, 3)]));
        assert_eq!(a, army(&[(1, 0, 1), (2, 0, 1)]));
    }

    #[test]
    fn the_canonical_list_is_by_type_most_damaged_first() {
        let mut a = army(&[(2, 0, 1), (1, 0, 1), (2, 1, 1), (1, 0, 2)]);
        a.canonical();
        assert_eq!(a, army(&[(1, 0, 3), (2, 1, 1), (2, 0, 1)]));
    }
}

//! Who is lost to a number of hits: the order of loss (explicit, from the combat order, or
//! the IAAPA default), multi-hit battleships absorbing hits first, and hits that only some
//! units may take (submarines cannot hit aircraft).

use std::borrow::Cow;
use std::cmp::Reverse;

use smallvec::SmallVec;

use crate::units::{Catalogue, Domain, UnitTypeId};

use super::army::{Army, Line};
use super::{BattleKind, CombatOrder, LossReason, Side};

/// The order in which a side's unit types are lost, first to last. The defaults are the
/// catalogue's own lists, borrowed: a battle fought by them copies nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LossOrder<'c> {
    pub order: Cow<'c, [UnitTypeId]>,
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

impl<'c> LossOrder<'c> {
    /// The IAAPA default for this kind of battle and side.
    pub fn default_for(catalogue: &'c Catalogue, kind: BattleKind, side: Side) -> Self {
        LossOrder {
            order: Cow::Borrowed(catalogue.default_loss_order(order_index(kind, side))),
            reason: LossReason::DefaultOrder,
        }
    }

    /// A player's explicit order: the types they listed first, then the default for the rest.
    pub fn explicit(listed: &[UnitTypeId], default: &LossOrder<'_>) -> Self {
        let mut order: Vec<UnitTypeId> = Vec::with_capacity(default.order.len());
        for id in listed.iter().chain(default.order.iter()) {
            if !order.contains(id) {
                order.push(*id);
            }
        }
        LossOrder {
            order: Cow::Owned(order),
            reason: LossReason::ExplicitOrder,
        }
    }

    /// Kill At All Costs: lowest attack value first, whatever the unit kind (ties keep the
    /// default's order).
    pub fn kill_at_all_costs(catalogue: &Catalogue, default: &LossOrder<'_>) -> Self {
        let mut order = default.order.to_vec();
        order.sort_by_key(|id| catalogue.get(*id).attack);
        LossOrder {
            order: Cow::Owned(order),
            reason: LossReason::CombatOrder(CombatOrder::KillAtAllCosts),
        }
    }

    pub(crate) fn rank(&self, id: UnitTypeId) -> usize {
        self.order
            .iter()
            .position(|o| *o == id)
            .unwrap_or(self.order.len())
    }
}

/// How hits are to be spread over one side.
#[derive(Debug, Clone, Copy)]
pub struct HitRules {
    /// Damaged-able battleships take a damage hit before any unit is lost.
    pub battleships_absorb: bool,
    /// Take the last ground or sea unit only after every aircraft (Take At All Costs).
    pub keep_last_surface_unit: bool,
}

/// Alike units of one run of a side's list that fare alike under a volley's hits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Piece {
    /// Where the units stand: their run in the side's list, and the first one's place in it.
    pub(crate) line: u32,
    pub(crate) at: u32,
    pub(crate) kind: UnitTypeId,
    /// Hits taken before this volley.
    pub(crate) damage: u8,
    pub(crate) count: u32,
    /// Hits each took as a battleship absorbing them.
    pub(crate) absorbed: u8,
    /// Hits each took in the order of loss.
    pub(crate) hit: u8,
}

impl Piece {
    /// The hits each unit took in this volley.
    pub(crate) fn taken(&self) -> u8 {
        self.absorbed + self.hit
    }

    fn place(&self) -> (u32, u32) {
        (self.line, self.at)
    }
}

/// Pieces a volley splits a side into: a few per run.
type Pieces = SmallVec<[Piece; 8]>;

/// Pieces by their place in [`Pieces`].
pub(crate) type PieceIds = SmallVec<[u32; 16]>;

/// Who takes what of a volley's hits.
#[derive(Debug, Clone)]
pub(crate) struct Assignment {
    pub(crate) pieces: Pieces,
    /// The pieces that took hits, in the order the casualties are listed: the absorbing
    /// battleships in listing order, then the others in the order of loss.
    pub(crate) listed: PieceIds,
    /// Hits that found a unit (the rest are overkill).
    pub(crate) used: u32,
}

impl Assignment {
    /// Every piece in listing order.
    pub(crate) fn in_list_order(&self) -> PieceIds {
        let mut ids: PieceIds = (0..self.pieces.len() as u32).collect();
        ids.sort_unstable_by_key(|&i| self.pieces[i as usize].place());
        ids
    }
}

/// A piece that may take hits, keyed by the order it takes them in: rank in the order of
/// loss, the most damaged first, then its place in the list; last, its id.
type Candidate = (u32, Reverse<u8>, (u32, u32), u32);

/// Splits piece `i` after its first `k` units; the id of the rest, if any is left.
fn split(pieces: &mut Pieces, i: usize, k: u32) -> Option<usize> {
    let piece = pieces[i];
    if k == 0 || k >= piece.count {
        return None;
    }
    pieces[i].count = k;
    pieces.push(Piece {
        at: piece.at + k,
        count: piece.count - k,
        ..piece
    });
    Some(pieces.len() - 1)
}

/// Gives the first `k` units of piece `i` `each` hits (through `mark`) and, when `rest` is
/// not zero, the next unit `rest` more; returns the pieces that took hits.
fn share(
    pieces: &mut Pieces,
    i: usize,
    (k, each, rest): (u32, u8, u8),
    mark: fn(&mut Piece, u8),
) -> SmallVec<[u32; 2]> {
    let mut took = SmallVec::new();
    let mut next = Some(i);
    if k > 0 {
        let tail = split(pieces, i, k);
        mark(&mut pieces[i], each);
        took.push(i as u32);
        next = tail;
    }
    if let (true, Some(j)) = (rest > 0, next) {
        split(pieces, j, 1);
        mark(&mut pieces[j], rest);
        took.push(j as u32);
    }
    took
}

/// Spreads `hits` over `army` (the units whose type is `eligible` may be hit), the order of
/// loss ranking the types, working on runs of alike units rather than on each unit: a unit
/// loses what the GM's unit-by-unit reading of the rules would take from it. Hits nobody
/// can take are overkill (the caller counts them).
pub(crate) fn assign_hits(
    catalogue: &Catalogue,
    army: &Army,
    eligible: impl Fn(UnitTypeId) -> bool,
    hits: u32,
    order: &LossOrder<'_>,
    rules: HitRules,
) -> Assignment {
    let hit_points = |kind: UnitTypeId| catalogue.get(kind).hit_points;
    let capacity = |p: &Piece| hit_points(p.kind).saturating_sub(p.damage + p.taken());
    let mut pieces: Pieces = army
        .lines()
        .iter()
        .enumerate()
        .map(|(line, l)| Piece {
            line: line as u32,
            at: 0,
            kind: l.kind,
            damage: l.damage,
            count: l.count,
            absorbed: 0,
            hit: 0,
        })
        .collect();
    let mut remaining = u64::from(hits);

    let absorbing = rules.battleships_absorb
        && army
            .lines()
            .iter()
            .any(|l| hit_points(l.kind) > l.damage + 1);
    if absorbing {
        // Each multi-hit ship takes damage down to its last hit point, in order of loss.
        // Keys worked out once, not at every comparison (a rank is a search of the order).
        let mut ships: SmallVec<[(u32, u32); 16]> = (0..pieces.len() as u32)
            .filter(|&i| eligible(pieces[i as usize].kind) && capacity(&pieces[i as usize]) > 1)
            .map(|i| {
                let rank = order.rank(pieces[i as usize].kind);
                (u32::try_from(rank).unwrap_or(u32::MAX), i)
            })
            .collect();
        ships.sort_unstable();
        for (_, i) in ships {
            let i = i as usize;
            if remaining == 0 {
                break;
            }
            let per = capacity(&pieces[i]) - 1;
            let (k, rest) = spread(remaining, per, pieces[i].count);
            remaining -= u64::from(k) * u64::from(per) + u64::from(rest);
            share(&mut pieces, i, (k, per, rest), |p, n| p.absorbed = n);
        }
    }

    // Most damaged first among equals: a damaged ship goes before a fresh one of its type.
    let mut keyed: SmallVec<[Candidate; 16]> = (0..pieces.len() as u32)
        .filter(|&i| eligible(pieces[i as usize].kind) && capacity(&pieces[i as usize]) > 0)
        .map(|i| {
            let p = &pieces[i as usize];
            let rank = u32::try_from(order.rank(p.kind)).unwrap_or(u32::MAX);
            (rank, Reverse(p.damage + p.absorbed), p.place(), i)
        })
        .collect();
    keyed.sort_unstable();
    if rules.keep_last_surface_unit {
        let last_surface = keyed
            .iter()
            .rposition(|k| catalogue.get(pieces[k.3 as usize].kind).domain != Domain::Air);
        if let Some(pos) = last_surface {
            let i = keyed[pos].3 as usize;
            let all_but_one = pieces[i].count - 1;
            let last = match split(&mut pieces, i, all_but_one) {
                Some(last) => (0, Reverse(0), (0, 0), last as u32),
                None => keyed.remove(pos),
            };
            // Last in the order of loss, whatever its key.
            keyed.push(last);
        }
    }
    let mut struck: PieceIds = SmallVec::new();
    for &(.., i) in &keyed {
        let i = i as usize;
        if remaining == 0 {
            break;
        }
        let need = capacity(&pieces[i]);
        let (k, rest) = spread(remaining, need, pieces[i].count);
        remaining -= u64::from(k) * u64::from(need) + u64::from(rest);
        struck.extend(share(&mut pieces, i, (k, need, rest), |p, n| p.hit = n));
    }

    let mut listed: PieceIds = (0..pieces.len() as u32)
        .filter(|&i| pieces[i as usize].absorbed > 0)
        .collect();
    listed.sort_unstable_by_key(|&i| pieces[i as usize].place());
    // A ship that absorbed a hit and then took more is listed once, as it absorbed.
    listed.extend(
        struck
            .into_iter()
            .filter(|&i| pieces[i as usize].absorbed == 0),
    );
    Assignment {
        pieces,
        listed,
        used: hits - u32::try_from(remaining).unwrap_or(hits),
    }
}

/// Of `remaining` hits over `count` units that can each take `each`: how many units take
/// `each`, and what the next one takes.
fn spread(remaining: u64, each: u8, count: u32) -> (u32, u8) {
    let each64 = u64::from(each);
    if remaining >= each64 * u64::from(count) {
        return (count, 0);
    }
    let k = (remaining / each64) as u32;
    (k, (remaining % each64) as u8)
}

/// A side's units that each fall to one hit, queued by the order of loss: volley after
/// volley takes its hits from the front, and the side's counts change once, when the queue
/// is done with (a plain round sorts each side once, however many columns fire). Its room
/// is kept from one use to the next.
#[derive(Debug, Default)]
pub(crate) struct LossQueue {
    queue: SmallVec<[Queued; 8]>,
    /// Where the queue's front is.
    next: usize,
    /// The last volley's losses (run, how many), for the casualty area.
    volley: SmallVec<[(u32, u32); 8]>,
}

/// One run of the army's list in the queue.
#[derive(Debug, Clone, Copy)]
struct Queued {
    /// Rank in the order of loss, then the most damaged first, then the place in the list.
    key: u64,
    line: u32,
    /// Its units not yet lost.
    left: u32,
}

impl LossQueue {
    /// Queues the units of a side's runs `lines` whose type passes `eligible`, by the order
    /// of loss: its rank, the most damaged first, then the place in the list.
    pub(crate) fn fill(
        &mut self,
        lines: &[Line],
        eligible: impl Fn(UnitTypeId) -> bool,
        order: &LossOrder<'_>,
    ) {
        self.queue.clear();
        self.next = 0;
        for (i, l) in lines.iter().enumerate() {
            if eligible(l.kind) {
                let rank = u64::try_from(order.rank(l.kind)).unwrap_or(u64::from(u32::MAX));
                let key = rank << 40 | u64::from(u8::MAX - l.damage) << 32 | i as u64;
                self.queue.push(Queued {
                    key,
                    line: i as u32,
                    left: l.count,
                });
            }
        }
        self.queue.sort_unstable_by_key(|q| q.key);
    }

    /// Whether every queued unit is lost.
    pub(crate) fn is_empty(&self) -> bool {
        self.next == self.queue.len()
    }

    /// Loses up to `hits` units from the front of the queue, listing them through `list`
    /// (a run's place, the run, and how many of it); with a `casualty_area`, they go there,
    /// the last in the list first (as the GM lifts them off). `lines` are the runs the
    /// queue was filled from, their counts not yet changed. Returns the hits used.
    pub(crate) fn take(
        &mut self,
        lines: &[Line],
        hits: u32,
        casualty_area: Option<&mut Army>,
        mut list: impl FnMut(usize, &Line, u32),
    ) -> u32 {
        let mut remaining = hits;
        self.volley.clear();
        while remaining > 0 && self.next < self.queue.len() {
            let queued = &mut self.queue[self.next];
            let n = queued.left.min(remaining);
            queued.left -= n;
            remaining -= n;
            list(queued.line as usize, &lines[queued.line as usize], n);
            if casualty_area.is_some() {
                self.volley.push((queued.line, n));
            }
            if queued.left == 0 {
                self.next += 1;
            }
        }
        if let Some(area) = casualty_area {
            self.volley.sort_unstable_by_key(|&(i, _)| Reverse(i));
            for &(i, n) in &self.volley {
                let l = &lines[i as usize];
                area.push(l.kind, l.damage + 1, n);
            }
        }
        hits - remaining
    }

    /// `army` without the units lost.
    pub(crate) fn finish(&self, army: &mut Army) {
        army.set_counts(self.queue.iter().map(|q| (q.line as usize, q.left)));
    }
}

/// [`assign_hits`] for a volley in which battleships absorb and no unit it can reach has
/// more than two hits left (the two-hit battleships of Classic and Cut-Throat): the fresh
/// ships take the first hits, one each, in the order of loss; then units fall one per hit,
/// a ship that just absorbed before the fresh units of its type. Lists the ships that
/// absorbed first, in listing order (those then lost too before those left damaged), then
/// the others lost, in the order of loss, through `list` (the run, how many, whether they
/// absorbed, whether they are lost). Returns the hits used and the side's runs after.
pub(crate) fn absorb_then_lose(
    army: &Army,
    (eligible, hits): (impl Fn(UnitTypeId) -> bool, u32),
    (order, hit_points): (&LossOrder<'_>, impl Fn(UnitTypeId) -> u8),
    casualty_area: Option<&mut Army>,
    mut list: impl FnMut(&Line, u32, bool, bool),
) -> (u32, Runs) {
    let lines = army.lines();
    let mut ships: SmallVec<[(u32, u32); 8]> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| eligible(l.kind) && hit_points(l.kind) == l.damage + 2)
        .map(|(i, l)| {
            let rank = u32::try_from(order.rank(l.kind)).unwrap_or(u32::MAX);
            (rank, i as u32)
        })
        .collect();
    ships.sort_unstable();
    let mut absorbing: SmallVec<[u32; 8]> = smallvec::smallvec![0; lines.len()];
    let mut remaining = hits;
    for (_, i) in ships {
        if remaining == 0 {
            break;
        }
        let k = lines[i as usize].count.min(remaining);
        absorbing[i as usize] = k;
        remaining -= k;
    }
    // The side as the absorbing leaves it: a run of ships split, those that absorbed first.
    let mut after: Runs = SmallVec::new();
    let mut absorbed: SmallVec<[bool; 16]> = SmallVec::new();
    for (l, &k) in lines.iter().zip(&absorbing) {
        if k > 0 {
            after.push(Line {
                damage: l.damage + 1,
                count: k,
                ..*l
            });
            absorbed.push(true);
        }
        if l.count > k {
            after.push(Line {
                count: l.count - k,
                ..*l
            });
            absorbed.push(false);
        }
    }
    let mut queue = LossQueue::default();
    queue.fill(&after, eligible, order);
    let mut lost: SmallVec<[u32; 16]> = smallvec::smallvec![0; after.len()];
    let mut struck: SmallVec<[(usize, u32); 8]> = SmallVec::new();
    remaining -= queue.take(&after, remaining, casualty_area, |i, _, n| {
        lost[i] += n;
        struck.push((i, n));
    });
    for (i, run) in after.iter().enumerate().filter(|&(i, _)| absorbed[i]) {
        list(run, lost[i], true, true);
        list(run, run.count - lost[i], true, false);
    }
    for (i, n) in struck {
        if !absorbed[i] {
            list(&after[i], n, false, true);
        }
    }
    for (l, n) in after.iter_mut().zip(lost) {
        l.count -= n;
    }
    (hits - remaining, after)
}

/// A side's runs, as a volley leaves them.
pub(crate) type Runs = SmallVec<[Line; 16]>;

/// The side after an assignment: the units hit carry their damage, the lost leave it (to
/// the casualty area, if there is one, last in the list first, as the GM lifts them off).
pub(crate) fn leave(
    army: &mut Army,
    assignment: &Assignment,
    lost: impl Fn(&Piece) -> bool,
    casualty_area: Option<&mut Army>,
) {
    let in_order = assignment.in_list_order();
    let after = |p: &Piece| Line {
        kind: p.kind,
        damage: p.damage + p.taken(),
        count: p.count,
    };
    if let Some(area) = casualty_area {
        for &i in in_order.iter().rev() {
            let piece = &assignment.pieces[i as usize];
            if lost(piece) {
                let l = after(piece);
                area.push(l.kind, l.damage, l.count);
            }
        }
    }
    army.rebuild(in_order.iter().filter_map(|&i| {
        let piece = &assignment.pieces[i as usize];
        (!lost(piece)).then(|| after(piece))
    }));
}

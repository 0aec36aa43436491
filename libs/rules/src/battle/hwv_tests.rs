//! AAP's Heavy Weapons Fire Vulnerability (seed sections 4 to 4.4) in the exact odds and in
//! the dice, against a calculator written here apart from `odds.rs` and `fight.rs`: a plain
//! memoised recursion over the two sides' counts that follows the seed's sentences.
//!
//! - 4.1: a group "larger than 20 units is affected"; "Subs, FTRs, BMRs, AA, and CCP" do not
//!   count; the size is taken again each round ("per round of combat").
//! - 4.3: only artillery, fighters, bombers, destroyers and battleships' hits count twice.
//! - 4.4: both sides, attacking and defending.
//!
//! What is not HWV is the IAAPA default every AAP battle fights by: the default orders of
//! loss below, a two-hit battleship damaged before anything is lost, infantry paired with
//! artillery attacking one higher, both sides firing each round and the defender's
//! casualties firing back. Profiles (attack, defence, hits) are the catalogue's data.

use std::collections::HashMap;

use super::*;
use crate::dice::GameSeed;
use crate::document::RulesetDocument;

/// The IAAPA default orders of loss, first lost first (land attacker, land defender, sea
/// attacker, sea defender).
const LAND_ATTACKER: &[&str] = &["INF", "ART", "ARM", "FTR", "BMB"];
const LAND_DEFENDER: &[&str] = &["INF", "ART", "ARM", "BMB", "FTR"];
const SEA_ATTACKER: &[&str] = &["TRN", "SUB", "DES", "FTR", "BMB", "AC", "BB"];
const SEA_DEFENDER: &[&str] = &["TRN", "SUB", "DES", "FTR", "AC", "BB"];

/// 4.1: "Units that don't count towards HWV include: Subs, FTRs, BMRs, AA".
fn counts_towards_hwv(code: &str) -> bool {
    !matches!(code, "SUB" | "FTR" | "BMB" | "AA")
}

/// 4.3: "only Artillery, Fighters, Bombers, Destroyers, and Battleships inflict 'double'".
fn heavy_weapon(code: &str) -> bool {
    matches!(code, "ART" | "FTR" | "BMB" | "DES" | "BB")
}

#[derive(Debug, Clone)]
struct Kind {
    code: &'static str,
    attack: u8,
    defense: u8,
    damaged_defense: u8,
    two_hits: bool,
}

/// One side: its kinds in order of loss, and whether its units may count at all (4.1:
/// not the CCP's).
struct SideRules {
    kinds: Vec<Kind>,
    may_count: bool,
    attacking: bool,
}

/// Counts per kind: `[intact, damaged]` for each kind, in the side's order of loss.
type Counts = Vec<[u32; 2]>;

impl SideRules {
    fn new(cat: &Catalogue, order: &[&'static str], may_count: bool, attacking: bool) -> Self {
        let kinds = order
            .iter()
            .map(|code| {
                let unit = cat.get(cat.id(code).expect("a unit of the order of loss"));
                assert!(
                    unit.hit_points <= 2,
                    "the calculator knows one- and two-hit units"
                );
                Kind {
                    code,
                    attack: unit.attack,
                    defense: unit.defense,
                    damaged_defense: unit.damaged_defense.unwrap_or(unit.defense),
                    two_hits: unit.hit_points == 2,
                }
            })
            .collect();
        SideRules {
            kinds,
            may_count,
            attacking,
        }
    }

    fn counts(&self, army: &[(&str, u32)]) -> Counts {
        let mut counts = vec![[0, 0]; self.kinds.len()];
        for (code, n) in army {
            let i = self
                .kinds
                .iter()
                .position(|k| k.code == *code)
                .expect("a unit the order of loss lists");
            counts[i][0] += n;
        }
        counts
    }

    /// 4.1 and 4.2 for a side of one nation: more than 20 counted units.
    fn vulnerable(&self, counts: &Counts) -> bool {
        let counted: u32 = self
            .kinds
            .iter()
            .zip(counts)
            .filter(|(k, _)| counts_towards_hwv(k.code))
            .map(|(_, [intact, damaged])| intact + damaged)
            .sum();
        self.may_count && counted > 20
    }

    /// The law of the casualties this side's dice inflict: index = casualties.
    fn casualty_law(&self, counts: &Counts, target_vulnerable: bool) -> Vec<f64> {
        let position = |code: &str| self.kinds.iter().position(|k| k.code == code);
        let total = |code: &str| position(code).map_or(0, |i| counts[i][0] + counts[i][1]);
        let supported = if self.attacking {
            total("INF").min(total("ART"))
        } else {
            0
        };
        // (dice, to hit, casualties per hit)
        let mut groups: Vec<(u32, u8, u32)> = Vec::new();
        for (k, [intact, damaged]) in self.kinds.iter().zip(counts) {
            let weight = if target_vulnerable && heavy_weapon(k.code) {
                2
            } else {
                1
            };
            if self.attacking {
                let n = intact + damaged;
                if k.code == "INF" {
                    groups.push((supported, k.attack + 1, weight));
                    groups.push((n - supported, k.attack, weight));
                } else {
                    groups.push((n, k.attack, weight));
                }
            } else {
                groups.push((*intact, k.defense, weight));
                groups.push((*damaged, k.damaged_defense, weight));
            }
        }
        let mut law = vec![1.0];
        for (n, to_hit, weight) in groups.into_iter().filter(|g| g.0 > 0) {
            let p = f64::from(to_hit.min(6)) / 6.0;
            let mut next = vec![0.0; law.len() + (n * weight) as usize];
            for (c, q) in law.iter().enumerate() {
                for k in 0..=n {
                    next[c + (k * weight) as usize] +=
                        q * choose(n, k) * p.powi(k as i32) * (1.0 - p).powi((n - k) as i32);
                }
            }
            law = next;
        }
        law
    }

    /// What `casualties` leave of the side: two-hit ships are damaged first (in order of
    /// loss), then units are lost in order of loss, a damaged ship before an intact one.
    fn take(&self, counts: &Counts, mut casualties: u32) -> Counts {
        let mut left = counts.clone();
        for (k, c) in self.kinds.iter().zip(left.iter_mut()) {
            if k.two_hits {
                let absorbed = casualties.min(c[0]);
                c[0] -= absorbed;
                c[1] += absorbed;
                casualties -= absorbed;
            }
        }
        for c in left.iter_mut() {
            for slot in [1, 0] {
                let lost = casualties.min(c[slot]);
                c[slot] -= lost;
                casualties -= lost;
            }
        }
        left
    }
}

fn choose(n: u32, k: u32) -> f64 {
    (0..k).fold(1.0, |acc, i| acc * f64::from(n - i) / f64::from(i + 1))
}

fn is_empty(counts: &Counts) -> bool {
    counts.iter().all(|[a, b]| a + b == 0)
}

/// (attacker wins, defender wins, both destroyed, attacker retreated)
type Result3 = [f64; 4];

struct Calculator {
    land: bool,
    attacker: SideRules,
    defender: SideRules,
    memo: HashMap<(Counts, Counts), Result3>,
}

impl Calculator {
    fn solve(&mut self, a: &Counts, d: &Counts) -> Result3 {
        match (is_empty(a), is_empty(d)) {
            (true, true) => return [0.0, 0.0, 1.0, 0.0],
            (false, true) => return [1.0, 0.0, 0.0, 0.0],
            (true, false) => return [0.0, 1.0, 0.0, 0.0],
            (false, false) => {}
        }
        // Save Air, the land default: once no ground unit is left, the aircraft retreat.
        if self.land {
            let air = |k: &Kind| matches!(k.code, "FTR" | "BMB");
            let ground_left = self
                .attacker
                .kinds
                .iter()
                .zip(a)
                .any(|(k, [i, d])| !air(k) && i + d > 0);
            if !ground_left {
                return [0.0, 0.0, 0.0, 1.0];
            }
        }
        if let Some(r) = self.memo.get(&(a.clone(), d.clone())) {
            return *r;
        }
        // "per round of combat": each side's size is taken again at the start of a round.
        let attacker_vulnerable = self.attacker.vulnerable(a);
        let defender_vulnerable = self.defender.vulnerable(d);
        let to_defender = self.attacker.casualty_law(a, defender_vulnerable);
        let mut stay = 0.0;
        let mut result = [0.0; 4];
        for (i, p) in to_defender.iter().enumerate() {
            let next_d = self.defender.take(d, i as u32);
            // The defender's casualties fire back, but a ship the attacker's volley damaged
            // fires at its damaged defence.
            let firing: Counts = d
                .iter()
                .zip(&next_d)
                .map(|([intact, damaged], [intact_after, _])| {
                    [*intact_after, intact + damaged - intact_after]
                })
                .collect();
            let to_attacker = self.defender.casualty_law(&firing, attacker_vulnerable);
            for (j, q) in to_attacker.iter().enumerate() {
                if i == 0 && j == 0 {
                    stay = p * q;
                    continue;
                }
                let next_a = self.attacker.take(a, j as u32);
                let r = self.solve(&next_a, &next_d);
                for (acc, x) in result.iter_mut().zip(r) {
                    *acc += p * q * x;
                }
            }
        }
        for x in &mut result {
            *x /= 1.0 - stay;
        }
        self.memo.insert((a.clone(), d.clone()), result);
        result
    }
}

/// A battle as AAP Historical's document has the service fight it.
fn aap_battle<'c>(
    cat: &'c Catalogue,
    kind: BattleKind,
    attacker: &[(&str, u32)],
    defender: &[(&str, u32)],
) -> Battle<'c> {
    let rules = RulesetDocument::builtin("aap-historical")
        .expect("AAP Historical")
        .special_rules;
    assert!(rules.heavy_weapons, "AAP Historical has heavy weapons");
    let mut b = Battle::new(cat, kind);
    b.heavy_weapons = rules.heavy_weapons;
    b.saac_from_round = rules.saac_from_round;
    b.defender_hits_by_column = rules.defender_hits_by_column;
    let army = |units: &[(&str, u32)]| {
        units
            .iter()
            .map(|(code, n)| (cat.id(code).expect("unit"), *n))
            .collect()
    };
    b.attacker = army(attacker);
    b.defender = army(defender);
    b
}

struct Case<'a> {
    kind: BattleKind,
    attacker: &'a [(&'a str, u32)],
    defender: &'a [(&'a str, u32)],
    attacker_counts: bool,
}

impl<'a> Case<'a> {
    fn new(
        kind: BattleKind,
        attacker: &'a [(&'a str, u32)],
        defender: &'a [(&'a str, u32)],
    ) -> Self {
        Case {
            kind,
            attacker,
            defender,
            attacker_counts: true,
        }
    }

    fn calculator(&self, cat: &Catalogue) -> (Calculator, Counts, Counts) {
        let (attacker_order, defender_order) = match self.kind {
            BattleKind::Land => (LAND_ATTACKER, LAND_DEFENDER),
            BattleKind::Sea => (SEA_ATTACKER, SEA_DEFENDER),
        };
        let attacker = SideRules::new(cat, attacker_order, self.attacker_counts, true);
        let defender = SideRules::new(cat, defender_order, true, false);
        let a = attacker.counts(self.attacker);
        let d = defender.counts(self.defender);
        let calculator = Calculator {
            land: self.kind == BattleKind::Land,
            attacker,
            defender,
            memo: HashMap::new(),
        };
        (calculator, a, d)
    }

    fn by_hand(&self, cat: &Catalogue) -> Result3 {
        let (mut calculator, a, d) = self.calculator(cat);
        calculator.solve(&a, &d)
    }

    fn battle<'c>(&self, cat: &'c Catalogue) -> Battle<'c> {
        let mut b = aap_battle(cat, self.kind, self.attacker, self.defender);
        b.attacker_uncounted = !self.attacker_counts;
        b
    }

    fn engine(&self, cat: &Catalogue) -> Result3 {
        let odds = exact_odds(&self.battle(cat)).expect("odds");
        [
            odds.attacker_win,
            odds.defender_win,
            odds.mutual_destruction,
            odds.attacker_retreated,
        ]
    }

    /// Engine and calculator agree to 1e-9; returns the attacker's chance.
    fn agrees(&self, cat: &Catalogue) -> f64 {
        let engine = self.engine(cat);
        let by_hand = self.by_hand(cat);
        for (e, h) in engine.iter().zip(by_hand) {
            assert!(
                (e - h).abs() < 1e-9,
                "engine {engine:?} against the calculator {by_hand:?}"
            );
        }
        by_hand[0]
    }
}

fn aap() -> Catalogue {
    Catalogue::builtin("aap-historical").expect("AAP Historical")
}

/// Issue 36's first measurement: 21 transports are a group above 20, so each destroyer's,
/// battleship's and fighter's hit sinks two.
fn transports_at_sea() -> Case<'static> {
    Case::new(
        BattleKind::Sea,
        &[("BB", 2), ("DES", 4), ("FTR", 2)],
        &[("TRN", 21)],
    )
}

/// Issue 36's two measured battles: 21 transports against heavy weapons at sea (0.494 for the
/// attacker, 0.153 without HWV); 20 INF + 4 ART on land, the group above 20 that the
/// defender's artillery and fighters hit twice (0.920, 0.976 without).
#[test]
fn the_two_measured_battles_give_the_odds_with_heavy_weapons() {
    let cat = aap();
    let land = Case::new(
        BattleKind::Land,
        &[("INF", 20), ("ART", 4)],
        &[("INF", 10), ("ART", 2), ("FTR", 2)],
    );
    for (case, expected) in [(transports_at_sea(), 0.494), (land, 0.920)] {
        let attacker_win = case.agrees(&cat);
        assert!((attacker_win - expected).abs() < 0.0005, "{attacker_win}");
    }
}

/// Both sides above 20 at the start on land: the attacker's fighters do not count (4.1) but
/// hit twice (4.3), and the attacker stops being vulnerable once down to 20 counted units.
/// At sea, a large fleet attacking: 19 transports and 3 destroyers (22 counted) against 3
/// destroyers and a battleship (4.4: the attacking force too).
#[test]
fn battles_above_twenty_on_land_and_at_sea_agree_with_the_calculator() {
    let cat = aap();
    let land = Case::new(
        BattleKind::Land,
        &[("INF", 15), ("ART", 6), ("FTR", 3)],
        &[("INF", 19), ("ART", 3)],
    );
    let sea = Case::new(
        BattleKind::Sea,
        &[("TRN", 19), ("DES", 3)],
        &[("DES", 3), ("BB", 1)],
    );
    for case in [land, sea] {
        case.agrees(&cat);
    }
}

/// Without heavy weapons the engine gives the chain issue 36 measured (0.153): HWV is what
/// moves the measured sea battle to about a half.
#[test]
fn heavy_weapons_change_the_odds_of_every_case_above_twenty() {
    let cat = aap();
    let sea = transports_at_sea();
    let mut plain = sea.battle(&cat);
    plain.heavy_weapons = false;
    let without = exact_odds(&plain).expect("odds").attacker_win;
    assert!((without - 0.153).abs() < 0.0005, "{without}");
    assert!(sea.engine(&cat)[0] > without + 0.3);
}

/// The dice path: every battle fought with seeded dice ends where the calculator's rules
/// take the same dice (each volley's hits weighed by the sizes at the round's start).
#[test]
fn the_dice_engine_takes_casualties_as_the_calculator_does() {
    let cat = aap();
    let cases = [
        transports_at_sea(),
        Case::new(
            BattleKind::Land,
            &[("INF", 15), ("ART", 6), ("FTR", 3)],
            &[("INF", 19), ("ART", 3)],
        ),
        Case {
            kind: BattleKind::Land,
            attacker: &[("INF", 24)],
            defender: &[("INF", 6), ("FTR", 4)],
            attacker_counts: false,
        },
    ];
    let seed = GameSeed::from_bytes([7; 32]);
    for (c, case) in cases.iter().enumerate() {
        let (calculator, start_a, start_d) = case.calculator(&cat);
        let battle = case.battle(&cat);
        for trial in 0..200 {
            let mut dice = seed.dice_for(&format!("hwv-{c}"), trial);
            let log = resolve(&battle, &mut dice).expect("battle");
            let (mut a, mut d) = (start_a.clone(), start_d.clone());
            for round in 1..=log.rounds() as u32 {
                let attacker_vulnerable = calculator.attacker.vulnerable(&a);
                let defender_vulnerable = calculator.defender.vulnerable(&d);
                let (mut to_attacker, mut to_defender) = (0, 0);
                for volley in log.volleys().filter(|v| v.round == round) {
                    assert_eq!(volley.phase, Phase::Columns);
                    let target_vulnerable = match volley.side {
                        Side::Attacker => defender_vulnerable,
                        Side::Defender => attacker_vulnerable,
                    };
                    let casualties: u32 = volley
                        .dice
                        .iter()
                        .filter(|die| die.hit)
                        .map(|die| {
                            let code = cat.get(die.unit).code.as_str();
                            if target_vulnerable && heavy_weapon(code) {
                                2
                            } else {
                                1
                            }
                        })
                        .sum();
                    match volley.side {
                        Side::Attacker => to_defender += casualties,
                        Side::Defender => to_attacker += casualties,
                    }
                }
                a = calculator.attacker.take(&a, to_attacker);
                d = calculator.defender.take(&d, to_defender);
            }
            let left = |kinds: &[Kind], units: Vec<Unit>| {
                let mut counts = vec![[0u32, 0u32]; kinds.len()];
                for u in units {
                    let code = cat.get(u.kind).code.as_str();
                    let i = kinds.iter().position(|k| k.code == code).expect("kind");
                    counts[i][usize::from(u.damage > 0)] += 1;
                }
                counts
            };
            assert_eq!(left(&calculator.attacker.kinds, log.attacker_left()), a);
            assert_eq!(left(&calculator.defender.kinds, log.defender_left()), d);
        }
    }
}

/// 4.1: "Units that don't count towards HWV include: ... CCP". 24 CCP infantry attacking
/// are not a vulnerable group: each Japanese fighter's hit kills one, not two.
#[test]
fn an_attacking_ccp_stack_of_24_is_not_vulnerable() {
    let cat = aap();
    let ccp = Case {
        kind: BattleKind::Land,
        attacker: &[("INF", 24)],
        defender: &[("INF", 6), ("FTR", 4)],
        attacker_counts: false,
    };
    let exempt = ccp.agrees(&cat);
    let counted = Case {
        attacker_counts: true,
        ..ccp
    };
    let vulnerable = counted.agrees(&cat);
    assert!(exempt > vulnerable + 0.01, "{exempt} against {vulnerable}");
}

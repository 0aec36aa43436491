//! The home-cooked "War" rules' roll tables (`seeds/war-home-cooked-rules.txt`): starting
//! zones, reinforcements and technology on 3d6, NPN parley on 1d6. Each roll takes its dice
//! from a [`DiceSource`] (the game's committed seed) and returns them with the result, so
//! the log can hold every die.
//!
//! The start chart numbers 1 to 18 and "19+ Pick", but 3d6 gives only 3 to 18: rows 1, 2
//! and 19+ cannot come up, and the table says so rather than inventing a modifier.

use crate::dice::{DiceSource, Die};

/// Dice rolled for one table, and their total.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableRoll<T> {
    pub dice: Vec<Die>,
    pub total: u8,
    pub result: T,
}

fn roll<T>(dice: &mut dyn DiceSource, count: usize, table: impl Fn(u8) -> T) -> TableRoll<T> {
    let rolled: Vec<Die> = (0..count).map(|_| dice.roll()).collect();
    let total = rolled.iter().map(|d| d.value()).sum();
    TableRoll {
        result: table(total),
        dice: rolled,
        total,
    }
}

/// The starting-zone chart, by the 3d6 total. `None` is "pick": the player chooses.
pub fn start_zone(total: u8) -> Option<&'static str> {
    const CHART: [&str; 18] = [
        "Eastern Canada",
        "Eastern US",
        "Brazil",
        "United Kingdom",
        "Western Europe",
        "Germany",
        "Southern Europe",
        "Eastern Europe",
        "Ukraine",
        "Karelia",
        "Caucasus",
        "Russia",
        "India",
        "French-Indo China",
        "Kwanttung",
        "Manchuria",
        "Japan",
        "Western US",
    ];
    CHART.get(usize::from(total).checked_sub(1)?).copied()
}

/// A starting zone rolled on 3d6.
pub fn roll_start_zone(dice: &mut dyn DiceSource) -> TableRoll<Option<&'static str>> {
    roll(dice, 3, start_zone)
}

/// A War unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WarUnit {
    Soldier,
    Tank,
    AaGun,
    Fighter,
    Bomber,
    Submarine,
    Transport,
    Battleship,
    Carrier,
}

/// What the player to the right places for the active player's opponents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reinforcements {
    pub units: Vec<(WarUnit, u32)>,
    /// "and then moves up to 4 units. Can attack."
    pub moves_up_to: Option<u32>,
}

/// The reinforcement table, by the 3d6 total (3 to 18).
pub fn reinforcements(total: u8) -> Reinforcements {
    use WarUnit::*;
    let (units, moves_up_to): (Vec<(WarUnit, u32)>, Option<u32>) = match total {
        ..=5 => (vec![(Soldier, 1)], None),
        6 => (vec![(Soldier, 3)], None),
        7..=8 => (vec![(Tank, 1)], None),
        9..=10 => (vec![(Soldier, 1), (Fighter, 1), (Tank, 1)], None),
        11 => (vec![(Soldier, 2)], Some(4)),
        12 => (vec![(Battleship, 1)], None),
        13..=14 => (vec![(Fighter, 1)], None),
        15 => (vec![(Submarine, 1)], None),
        16 => (vec![(Tank, 2)], Some(4)),
        17 => (vec![(Submarine, 2)], None),
        _ => (vec![(Carrier, 1), (Fighter, 3)], None),
    };
    Reinforcements { units, moves_up_to }
}

pub fn roll_reinforcements(dice: &mut dyn DiceSource) -> TableRoll<Reinforcements> {
    roll(dice, 3, reinforcements)
}

/// The technologies of the 3d6 table.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum WarTechnology {
    Paratroopers,
    MashUnits,
    Jets,
    StrategicBombers,
    Metallurgy,
    AdvancedArmor,
    Radar,
    ChemicalWarfare,
    Rockets,
    AtomicBomb,
}

/// The technology table, by the 3d6 total (3 to 18).
pub fn technology(total: u8) -> WarTechnology {
    use WarTechnology::*;
    match total {
        ..=3 => Paratroopers,
        4 => MashUnits,
        5 => Jets,
        6 => StrategicBombers,
        7..=10 => Metallurgy,
        11..=13 => AdvancedArmor,
        14..=15 => Radar,
        16 => ChemicalWarfare,
        17 => Rockets,
        _ => AtomicBomb,
    }
}

/// What $5 of research gives.
pub const RESEARCH_COST: u32 = 5;

/// Research: a 2 in 6 chance (1d6 of 1 or 2); on success, the technology by 3d6.
pub fn research(dice: &mut dyn DiceSource) -> (Die, Option<TableRoll<WarTechnology>>) {
    let chance = dice.roll();
    let found = (chance.value() <= 2).then(|| roll(dice, 3, technology));
    (chance, found)
}

/// The NPN parley table's outcomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Parley {
    PassThrough,
    PayTwoToPass,
    PayOnePerUnit,
    HeldUp,
    MustEngage,
    /// 1d6 - 2 soldiers join the zone (at least none), then at least one attack.
    MilitiaRises,
}

/// The parley table, by 1d6.
pub fn parley(die: Die) -> Parley {
    match die.value() {
        1 => Parley::PassThrough,
        2 => Parley::PayTwoToPass,
        3 => Parley::PayOnePerUnit,
        4 => Parley::HeldUp,
        5 => Parley::MustEngage,
        _ => Parley::MilitiaRises,
    }
}

/// A parley, and for a rising militia its extra soldiers (1d6 - 2, never below 0).
pub fn roll_parley(dice: &mut dyn DiceSource) -> (Die, Parley, Option<(Die, u32)>) {
    let die = dice.roll();
    let outcome = parley(die);
    let militia = (outcome == Parley::MilitiaRises).then(|| {
        let extra = dice.roll();
        (extra, u32::from(extra.value().saturating_sub(2)))
    });
    (die, outcome, militia)
}

/// Soldiers of militia and partisans in a non-player zone when a player tries to take it.
pub const NPN_MILITIA: u32 = 2;

/// Infrastructure: its price, what it returns each turn, and what a factory takes off the
/// price of units placed in its zone.
pub const INFRASTRUCTURE_COST: u32 = 5;
pub const INFRASTRUCTURE_RETURN: u32 = 1;
pub const FACTORY_DISCOUNT: u32 = 1;

/// What a unit costs placed in a zone with a factory or without.
pub fn unit_price(base: u32, factory_in_zone: bool) -> u32 {
    if factory_in_zone {
        base.saturating_sub(FACTORY_DISCOUNT).max(1)
    } else {
        base
    }
}

/// A round's initiative: every die rolled (a tie for the highest is rolled again among
/// the tied), who goes first, and the order, which "proceeds to the right" around the
/// table from the first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Initiative<P> {
    pub rolls: Vec<Vec<(P, Die)>>,
    pub order: Vec<P>,
}

/// Rolls initiative for players seated in `seating` order (each one's right is the next).
pub fn initiative<P: Copy + PartialEq>(seating: &[P], dice: &mut dyn DiceSource) -> Initiative<P> {
    let mut rolls = Vec::new();
    let mut contenders: Vec<P> = seating.to_vec();
    while contenders.len() > 1 {
        let round: Vec<(P, Die)> = contenders.iter().map(|p| (*p, dice.roll())).collect();
        let best = round.iter().map(|(_, d)| *d).max();
        contenders = round
            .iter()
            .filter(|(_, d)| Some(*d) == best)
            .map(|(p, _)| *p)
            .collect();
        rolls.push(round);
    }
    let first = contenders
        .first()
        .and_then(|f| seating.iter().position(|p| p == f))
        .unwrap_or(0);
    let order = seating[first..]
        .iter()
        .chain(&seating[..first])
        .copied()
        .collect();
    Initiative { rolls, order }
}

/// Who rolls the active player's reinforcements: the player to the right.
pub fn reinforcer<P: Copy + PartialEq>(seating: &[P], active: P) -> Option<P> {
    let at = seating.iter().position(|p| *p == active)?;
    seating.get((at + 1) % seating.len()).copied()
}

/// One player's bases: each start-chart roll, and the zones they gave. A zone another
/// player (or this one) already has is rolled again, since two bases cannot share a zone;
/// the seed is silent on it. So is a "pick" row: a roll on one (which 3d6 cannot give on
/// the seed's chart, but an uploaded chart may) is rolled again too, so every base comes
/// from the dice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bases<P, Z = &'static str> {
    pub player: P,
    pub rolls: Vec<TableRoll<Option<Z>>>,
    pub zones: Vec<Z>,
}

/// Rolls `per_player` bases for each player in seating order, on the seed's chart.
pub fn start_bases<P: Copy>(
    seating: &[P],
    per_player: usize,
    dice: &mut dyn DiceSource,
) -> Vec<Bases<P>> {
    start_bases_on(seating, per_player, (3, 18, start_zone), dice)
}

/// Rolls `per_player` bases for each player in seating order on a chart: how many dice it
/// takes, how many distinct zones it names, and the zone for each total (`None`: pick).
pub fn start_bases_on<P: Copy, Z: Copy + PartialEq>(
    seating: &[P],
    per_player: usize,
    (dice_count, zones_on_chart, chart): (usize, usize, impl Fn(u8) -> Option<Z>),
    dice: &mut dyn DiceSource,
) -> Vec<Bases<P, Z>> {
    let mut taken: Vec<Z> = Vec::new();
    seating
        .iter()
        .map(|player| {
            let mut bases = Bases {
                player: *player,
                rolls: Vec::new(),
                zones: Vec::new(),
            };
            while bases.zones.len() < per_player && taken.len() < zones_on_chart {
                let roll = roll(dice, dice_count, &chart);
                if let Some(zone) = roll.result.filter(|z| !taken.contains(z)) {
                    taken.push(zone);
                    bases.zones.push(zone);
                }
                bases.rolls.push(roll);
            }
            bases
        })
        .collect()
}

/// Who controls a zone, from the ground units in it: the one player with any (air units
/// do not count); `None` when nobody or several have ground units there.
pub fn controller<P: Copy + PartialEq>(ground_units: &[(P, u32)]) -> Option<P> {
    let mut present = ground_units.iter().filter(|(_, n)| *n > 0).map(|(p, _)| *p);
    let first = present.next()?;
    present.all(|p| p == first).then_some(first)
}

/// The result: the highest zone points win, the lowest get the "Dan Quayle reward" (ties
/// share either).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarResult<P> {
    pub winners: Vec<P>,
    pub dan_quayle: Vec<P>,
}

pub fn result<P: Copy>(zone_points: &[(P, u32)]) -> WarResult<P> {
    let best = zone_points.iter().map(|(_, z)| *z).max();
    let worst = zone_points.iter().map(|(_, z)| *z).min();
    let with = |score: Option<u32>| {
        zone_points
            .iter()
            .filter(|(_, z)| Some(*z) == score)
            .map(|(p, _)| *p)
            .collect()
    };
    WarResult {
        winners: with(best),
        dan_quayle: with(worst),
    }
}

impl WarUnit {
    /// The unit's code in a ruleset's catalogue.
    pub fn code(self) -> &'static str {
        match self {
            WarUnit::Soldier => "INF",
            WarUnit::Tank => "ARM",
            WarUnit::AaGun => "AA",
            WarUnit::Fighter => "FTR",
            WarUnit::Bomber => "BMB",
            WarUnit::Submarine => "SUB",
            WarUnit::Transport => "TRN",
            WarUnit::Battleship => "BB",
            WarUnit::Carrier => "AC",
        }
    }

    fn name(self, n: u32) -> String {
        let name = match self {
            WarUnit::Soldier => "soldier",
            WarUnit::Tank => "tank",
            WarUnit::AaGun => "AA gun",
            WarUnit::Fighter => "fighter",
            WarUnit::Bomber => "bomber",
            WarUnit::Submarine => "submarine",
            WarUnit::Transport => "transport",
            WarUnit::Battleship => "battleship",
            WarUnit::Carrier => "carrier",
        };
        format!("{n} {name}{}", if n == 1 { "" } else { "s" })
    }
}

impl std::fmt::Display for Reinforcements {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let units: Vec<String> = self.units.iter().map(|(u, n)| u.name(*n)).collect();
        f.write_str(&units.join(", "))?;
        if let Some(moves) = self.moves_up_to {
            write!(f, ", then moves up to {moves} units and may attack")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;

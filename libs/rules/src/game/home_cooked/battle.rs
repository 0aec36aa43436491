//! A War battle: "An attack goes first, but a defender can retaliate. Any hit causes the
//! other side to remove units." Each attack is one exchange (a round here); the attacker
//! presses attack after attack until one side is gone, or breaks off after the attacks its
//! player set (`SetBreakOff`); casualties in each player's order of loss, then the cheapest.

use super::*;

/// One attack of a War battle: the attack first, then what the defence has left fires.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WarBattleRound {
    pub attack: Vec<Die>,
    pub attack_hits: u32,
    /// MASH units and Advanced Armor: a die for each defending soldier or tank lost (a 1
    /// heals it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub defender_healing: Vec<Die>,
    pub defence: Vec<Die>,
    pub defence_hits: u32,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attacker_healing: Vec<Die>,
}

impl WarBattleRound {
    /// The round's dice, in the order rolled.
    pub(super) fn dice(&self) -> impl Iterator<Item = Die> + '_ {
        self.attack
            .iter()
            .chain(&self.defender_healing)
            .chain(&self.defence)
            .chain(&self.attacker_healing)
            .copied()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WarBattleOutcome {
    AttackerWon,
    DefenderHeld,
    /// Neither side could hit the other: the attackers stand where they came from.
    Stalemate,
    /// The attacker broke off after the attacks its player set, both sides still standing:
    /// its survivors stand where they came from.
    BrokeOff,
}

impl WarBattleOutcome {
    /// In plain words, for pages.
    pub fn describe(self) -> &'static str {
        match self {
            WarBattleOutcome::AttackerWon => "Attacker wins",
            WarBattleOutcome::DefenderHeld => "Defender holds",
            WarBattleOutcome::Stalemate => "Stalemate: neither side could hit the other",
            WarBattleOutcome::BrokeOff => "The attacker broke off",
        }
    }
}

/// A War battle: who fought, every round's dice, and who was lost.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WarBattle {
    pub territory: TerritoryId,
    pub attacker: Power,
    pub attackers: Vec<(UnitTypeId, u32)>,
    /// The units in the zone, by owner (the militia not among them).
    pub defenders: Vec<(Power, UnitTypeId, u32)>,
    /// Soldiers of militia and partisans who joined the defence (they are always there
    /// and never stay on the board).
    pub militia: u32,
    pub rounds: Vec<WarBattleRound>,
    pub attacker_losses: Vec<(UnitTypeId, u32)>,
    pub defender_losses: Vec<(Power, UnitTypeId, u32)>,
    /// Losses healed (MASH units, Advanced Armor), back at one of their owner's bases.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub healed: Vec<(Power, UnitTypeId, TerritoryId, u32)>,
    pub outcome: WarBattleOutcome,
}

impl WarBattle {
    /// The battle as a player reads it: who fought, each attack's dice and hits, and how it
    /// ended.
    pub fn listing(&self, rules: Rules<'_>) -> String {
        let units = |list: &mut dyn Iterator<Item = (Option<Power>, UnitTypeId, u32)>| {
            list.map(|(owner, unit, n)| {
                let code = &rules.catalogue.get(unit).code;
                match owner {
                    Some(owner) => format!("{n} {code} ({owner})"),
                    None => format!("{n} {code}"),
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
        };
        let mut out = format!(
            "{} attacks {} with {}; defending: {}",
            self.attacker,
            rules.board.get(self.territory).name,
            units(&mut self.attackers.iter().map(|(u, n)| (None, *u, *n))),
            units(&mut self.defenders.iter().map(|(o, u, n)| (Some(*o), *u, *n))),
        );
        if self.militia > 0 {
            out.push_str(&format!(" and {} soldiers of militia", self.militia));
        }
        let dice = |d: &[Die]| {
            d.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        };
        for (i, round) in self.rounds.iter().enumerate() {
            out.push_str(&format!(
                "\nattack {}: [{}] {} hit(s); defence [{}] {} hit(s)",
                i + 1,
                dice(&round.attack),
                round.attack_hits,
                dice(&round.defence),
                round.defence_hits
            ));
        }
        for (owner, unit, home, n) in &self.healed {
            out.push_str(&format!(
                "\nhealed: {n} {} ({owner}), back in {}",
                rules.catalogue.get(*unit).code,
                rules.board.get(*home).name
            ));
        }
        out.push_str(&format!("\n{}", self.outcome.describe()));
        out
    }
}

pub(super) fn add(
    list: &mut Vec<(Power, UnitTypeId, u32)>,
    (owner, unit, n): (Power, UnitTypeId, u32),
) {
    match list.iter_mut().find(|(o, u, _)| *o == owner && *u == unit) {
        Some(entry) => entry.2 += n,
        None => list.push((owner, unit, n)),
    }
}

pub(super) fn count_of(list: &[(UnitTypeId, u32)], unit: UnitTypeId) -> u32 {
    list.iter()
        .filter(|(u, _)| *u == unit)
        .map(|(_, n)| n)
        .sum()
}

/// One unit in a War battle.
#[derive(Clone, Copy)]
struct Combatant {
    owner: Power,
    unit: UnitTypeId,
    militia: bool,
}

/// A War battle: "An attack goes first, but a defender can retaliate. Any hit causes the
/// other side to remove units." Attack after attack until one side is gone, or until
/// `break_off` attacks have been made (the attacker's player's choice, at least one).
#[allow(clippy::too_many_arguments)]
pub(super) fn fight(
    rules: Rules<'_>,
    state: &GameState,
    attacker: Power,
    territory: TerritoryId,
    attackers: &[(UnitTypeId, u32)],
    defenders: Vec<(Power, UnitTypeId, u32)>,
    militia: u32,
    break_off: Option<u32>,
    dice: &mut dyn DiceSource,
) -> WarBattle {
    const MAX_ROUNDS: usize = 100;
    let field = Field {
        rules,
        state,
        territory,
    };
    let catalogue = rules.catalogue;
    let expand = |owner: Power, unit: UnitTypeId, n: u32, militia: bool| {
        (0..n).map(move |_| Combatant {
            owner,
            unit,
            militia,
        })
    };
    let mut sides = Sides {
        attack: attackers
            .iter()
            .flat_map(|(u, n)| expand(attacker, *u, *n, false))
            .collect(),
        defence: defenders
            .iter()
            .flat_map(|(o, u, n)| expand(*o, *u, *n, false))
            .collect(),
        attacker_lost: Vec::new(),
        defender_lost: Vec::new(),
        healed: Vec::new(),
    };
    if let Some(infantry) = catalogue.infantry() {
        sides
            .defence
            .extend(expand(Power::Npn, infantry, militia, true));
    }
    field.in_loss_order(&mut sides.attack);
    field.in_loss_order(&mut sides.defence);
    let mut rounds = Vec::new();
    let outcome = loop {
        if rounds.len() == MAX_ROUNDS {
            break WarBattleOutcome::Stalemate;
        }
        let round = field.exchange(&mut sides, rounds.is_empty(), dice);
        let silent = round.attack.is_empty() && round.defence.is_empty();
        rounds.push(round);
        if sides.defence.is_empty() {
            break WarBattleOutcome::AttackerWon;
        }
        if sides.attack.is_empty() {
            break WarBattleOutcome::DefenderHeld;
        }
        if silent {
            break WarBattleOutcome::Stalemate;
        }
        if break_off
            .is_some_and(|after| rounds.len() >= usize::try_from(after).unwrap_or(usize::MAX))
        {
            break WarBattleOutcome::BrokeOff;
        }
    };
    let mut attacker_losses: Vec<(UnitTypeId, u32)> = Vec::new();
    for f in &sides.attacker_lost {
        match attacker_losses.iter_mut().find(|(u, _)| *u == f.unit) {
            Some(entry) => entry.1 += 1,
            None => attacker_losses.push((f.unit, 1)),
        }
    }
    let mut defender_losses = Vec::new();
    for f in sides.defender_lost.iter().filter(|f| !f.militia) {
        add(&mut defender_losses, (f.owner, f.unit, 1));
    }
    WarBattle {
        territory,
        attacker,
        attackers: attackers.to_vec(),
        defenders,
        militia,
        rounds,
        attacker_losses,
        defender_losses,
        healed: sides.healed,
        outcome,
    }
}

/// Both sides of a War battle as it goes: the units still fighting, each list in its loss
/// order (casualties come off the end), those lost, and those healed.
struct Sides {
    attack: Vec<Combatant>,
    defence: Vec<Combatant>,
    attacker_lost: Vec<Combatant>,
    defender_lost: Vec<Combatant>,
    /// Soldiers and tanks healed back to a base: owner, unit, base, how many.
    healed: Vec<(Power, UnitTypeId, TerritoryId, u32)>,
}

/// What a War battle's dice are read against: the rules, the state before it (technologies,
/// orders of loss, bases) and the place fought over.
struct Field<'a> {
    rules: Rules<'a>,
    state: &'a GameState,
    territory: TerritoryId,
}

impl Field<'_> {
    /// Dearest first: casualties come off the end.
    /// "Any hit causes the other side to remove units as they desire": each side loses its
    /// units in its owner's order of loss, then the cheapest; the militia go first. The
    /// first to go is kept at the end of the list, where casualties come off.
    fn in_loss_order(&self, list: &mut [Combatant]) {
        list.sort_by_key(|f| {
            let listed = self
                .state
                .war
                .order_of_loss
                .get(&f.owner)
                .and_then(|order| order.iter().position(|u| *u == f.unit))
                .unwrap_or(usize::MAX);
            std::cmp::Reverse((!f.militia, listed, self.rules.catalogue.get(f.unit).cost))
        });
    }

    fn is_air(&self, f: &Combatant) -> bool {
        self.rules.catalogue.get(f.unit).domain == Domain::Air
    }

    fn attack_value(&self, f: &Combatant, first: bool) -> u8 {
        let profile = self.rules.catalogue.get(f.unit);
        // "The first attack of a submarine is at 3 not 2."
        let base = if first && profile.has(Ability::FirstStrike) {
            3
        } else {
            profile.attack
        };
        let jets = u8::from(self.is_air(f) && technology(self.state, f.owner, WarTechnology::Jets));
        let chemical = u8::from(technology(
            self.state,
            f.owner,
            WarTechnology::ChemicalWarfare,
        ));
        if base == 0 {
            0
        } else {
            base + jets + chemical
        }
    }

    fn defence_value(&self, f: &Combatant) -> u8 {
        let profile = self.rules.catalogue.get(f.unit);
        if profile.has(Ability::AntiAircraft) {
            if technology(self.state, f.owner, WarTechnology::Radar) {
                3
            } else {
                profile.defense
            }
        } else {
            profile.defense
                + u8::from(self.is_air(f) && technology(self.state, f.owner, WarTechnology::Jets))
        }
    }

    /// One attack and the defence's answer, each side's casualties rolled for healing as
    /// they fall.
    fn exchange(
        &self,
        sides: &mut Sides,
        first: bool,
        dice: &mut dyn DiceSource,
    ) -> WarBattleRound {
        let mut round = WarBattleRound {
            attack: Vec::new(),
            attack_hits: 0,
            defender_healing: Vec::new(),
            defence: Vec::new(),
            defence_hits: 0,
            attacker_healing: Vec::new(),
        };
        for f in &sides.attack {
            let value = self.attack_value(f, first);
            if value > 0 {
                let die = dice.roll();
                round.attack.push(die);
                round.attack_hits += u32::from(die.value() <= value);
            }
        }
        let before = sides.defender_lost.len();
        for _ in 0..round
            .attack_hits
            .min(u32::try_from(sides.defence.len()).unwrap_or(u32::MAX))
        {
            sides.defender_lost.extend(sides.defence.pop());
        }
        self.heal(
            &sides.defender_lost[before..],
            &mut round.defender_healing,
            &mut sides.healed,
            dice,
        );
        // AA guns fire only at aircraft: their hits take the cheapest aircraft.
        let air_attacking = sides.attack.iter().any(|f| self.is_air(f));
        let mut anti_air_hits = 0;
        for f in &sides.defence {
            let aa = self.rules.catalogue.get(f.unit).has(Ability::AntiAircraft);
            let value = self.defence_value(f);
            if value == 0 || (aa && !air_attacking) {
                continue;
            }
            let die = dice.roll();
            round.defence.push(die);
            if die.value() <= value {
                round.defence_hits += 1;
                anti_air_hits += u32::from(aa);
            }
        }
        let before = sides.attacker_lost.len();
        for _ in 0..anti_air_hits {
            if let Some(at) = sides.attack.iter().rposition(|f| self.is_air(f)) {
                sides.attacker_lost.push(sides.attack.remove(at));
            }
        }
        for _ in anti_air_hits..round.defence_hits {
            sides.attacker_lost.extend(sides.attack.pop());
        }
        self.heal(
            &sides.attacker_lost[before..],
            &mut round.attacker_healing,
            &mut sides.healed,
            dice,
        );
        round
    }

    /// "Any Soldier [Tank] removed from combat has a 1 in 6 chance of being healed
    /// [repaired]. Place unit back in any starting zone": the first of its owner's bases it
    /// still holds.
    fn heal(
        &self,
        lost: &[Combatant],
        healing: &mut Vec<Die>,
        healed: &mut Vec<(Power, UnitTypeId, TerritoryId, u32)>,
        dice: &mut dyn DiceSource,
    ) {
        let catalogue = self.rules.catalogue;
        let state = self.state;
        for f in lost.iter().filter(|f| !f.militia) {
            let remedy = if Some(f.unit) == catalogue.infantry() {
                WarTechnology::MashUnits
            } else if Some(f.unit) == catalogue.armour() {
                WarTechnology::AdvancedArmor
            } else {
                continue;
            };
            let home = state.war.bases.get(&f.owner).and_then(|bases| {
                bases
                    .iter()
                    .find(|b| state.holder[b.index()] == Some(f.owner) && **b != self.territory)
                    .copied()
            });
            let Some(home) = home.filter(|_| technology(state, f.owner, remedy)) else {
                continue;
            };
            let die = dice.roll();
            healing.push(die);
            if die.value() == 1 {
                match healed
                    .iter_mut()
                    .find(|(o, u, t, _)| (*o, *u, *t) == (f.owner, f.unit, home))
                {
                    Some(entry) => entry.3 += 1,
                    None => healed.push((f.owner, f.unit, home, 1)),
                }
            }
        }
    }
}

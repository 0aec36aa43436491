//! Weapons development (Classic rules): research dice, the breakthrough chart, and what
//! a weapon held changes (industrial technology's cheaper units).

use super::*;

/// What one research die costs.
pub const RESEARCH_DIE_COST: u32 = 5;

/// A breakthrough: the chart dice (re-rolled while they named a weapon already held) and
/// the weapon they gave.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Breakthrough {
    pub chart_dice: Vec<Die>,
    pub technology: Technology,
}

pub(crate) const WEAPONS: &str = "Classic rules, Weapons Development";

pub(crate) fn develop_weapons(
    state: &GameState,
    power: Power,
    count: u32,
    dice: &mut dyn DiceSource,
) -> Result<Vec<GameEvent>, RuleViolation> {
    require_phase(state, Phase::WeaponsDevelopment, "research")?;
    if state.researched_this_turn {
        return Err(violation(
            ViolationCode::AlreadyResearched,
            WEAPONS,
            format!("{power} has researched this turn already"),
        ));
    }
    let cost = count.saturating_mul(RESEARCH_DIE_COST);
    let treasury = state.treasury.get(&power).copied().unwrap_or(0);
    if count == 0 || cost > treasury {
        return Err(violation(
            ViolationCode::ResearchDice,
            WEAPONS,
            format!("{count} research dice cost {cost} IPC; {power} has {treasury} and must buy at least one"),
        ));
    }
    let rolled: Vec<Die> = (0..count).map(|_| dice.roll()).collect();
    let held = state.technologies.get(&power).cloned().unwrap_or_default();
    let breakthrough =
        if rolled.iter().any(|d| d.value() == 6) && held.len() < Technology::CHART.len() {
            let mut chart_dice = Vec::new();
            loop {
                let die = dice.roll();
                chart_dice.push(die);
                let technology = Technology::on_chart(die);
                if !held.contains(&technology) {
                    break Some(Breakthrough {
                        chart_dice,
                        technology,
                    });
                }
            }
        } else {
            None
        };
    Ok(vec![GameEvent::WeaponsResearched {
        power,
        cost,
        dice: rolled,
        breakthrough,
    }])
}

impl GameState {
    /// What a unit costs `power`: industrial technology takes 1 IPC off every unit.
    pub fn unit_cost(&self, rules: Rules<'_>, power: Power, unit: UnitTypeId) -> u32 {
        let cost = rules.catalogue.get(unit).cost;
        if self.has(power, Technology::IndustrialTechnology) {
            cost.saturating_sub(1)
        } else {
            cost
        }
    }

    pub fn has(&self, power: Power, technology: Technology) -> bool {
        self.technologies
            .get(&power)
            .is_some_and(|held| held.contains(&technology))
    }
}

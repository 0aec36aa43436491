//! What an auditor needs to check a game from its events alone.
//!
//! Only a few events carry dice (battles, raids, research, war loans, rockets, repairs,
//! kamikaze strikes, and the War rules' table rolls and moves),
//! and each is the first event of the order that rolled them, so its dice come from the
//! seed at its own stream version. [`order_behind`] recovers that order from the event, so
//! the auditor can decide it again on the state before it, with the seed's dice (or, before
//! the seed is revealed, with the event's own dice), and must get the same events.

use super::combat::BattleOrders;
use super::{GameEvent, Order};
use crate::board::Power;
use crate::dice::Die;

/// The research order of `power` that rolled `dice` dice (a War game's tries are dice).
fn research(power: Power, dice: usize) -> (Power, Order) {
    (
        power,
        Order::DevelopWeapons(u32::try_from(dice).unwrap_or(u32::MAX)),
    )
}

/// The power and order that caused a dice-bearing event; `None` for events without dice.
pub fn order_behind(event: &GameEvent) -> Option<(Power, Order)> {
    match event {
        GameEvent::BattleFought(fought) => {
            Some((fought.attacker, Order::FightBattle(fought.orders.clone())))
        }
        GameEvent::RaidFlown(raid) => {
            let mut orders = BattleOrders::at(raid.territory);
            orders.bombing_raid = true;
            Some((raid.attacker, Order::FightBattle(orders)))
        }
        GameEvent::WeaponsResearched { power, dice, .. } => Some(research(*power, dice.len())),
        GameEvent::WarLoanApplied { power, .. } => Some((*power, Order::ApplyForWarLoan)),
        // The classic ruleset's rockets and "War"'s are given by the same order.
        GameEvent::RocketFired {
            power,
            from,
            target,
            ..
        }
        | GameEvent::WarRocketFired {
            power,
            from,
            target,
            ..
        } => Some((
            *power,
            Order::FireRocket {
                from: *from,
                target: *target,
            },
        )),
        GameEvent::BattleshipRepaired {
            power, sea_zone, ..
        } => Some((
            *power,
            Order::RepairBattleship {
                sea_zone: *sea_zone,
            },
        )),
        GameEvent::GuerrillaSuppression {
            power, territory, ..
        } => Some((
            *power,
            Order::SuppressGuerrillas {
                territory: *territory,
            },
        )),
        GameEvent::KamikazesStruck { power, strikes, .. } => {
            Some((*power, super::kamikazes::order_behind(strikes)))
        }
        GameEvent::StartZonesRolled { by, .. } => Some((*by, Order::RollStartZones)),
        GameEvent::InitiativeRolled { by, .. } => Some((*by, Order::RollInitiative)),
        GameEvent::ReinforcementsRolled { by, .. } => Some((*by, Order::RollReinforcements)),
        GameEvent::WarResearched { power, tries, .. } => Some(research(*power, tries.len())),
        GameEvent::AirRaidFlown(raid) if !raid.dice().is_empty() => Some((
            raid.power,
            Order::AirRaid {
                units: raid.units.clone(),
                path: raid.path.clone(),
            },
        )),
        GameEvent::WarMoveResolved(resolved) if !resolved.dice().is_empty() => Some((
            resolved.by,
            Order::Move {
                units: resolved.units.clone(),
                path: resolved.path.clone(),
            },
        )),
        _ => None,
    }
}

/// The dice an event records, in the order they were rolled.
pub fn dice_rolled(event: &GameEvent) -> Vec<Die> {
    match event {
        GameEvent::BattleFought(fought) => fought.dice.clone(),
        GameEvent::RaidFlown(raid) => raid
            .raid
            .anti_aircraft
            .iter()
            .chain(&raid.raid.damage_dice)
            .copied()
            .collect(),
        GameEvent::WeaponsResearched {
            dice, breakthrough, ..
        } => dice
            .iter()
            .chain(breakthrough.iter().flat_map(|b| &b.chart_dice))
            .copied()
            .collect(),
        GameEvent::WarLoanApplied { die, .. }
        | GameEvent::GuerrillaSuppression { die, .. }
        | GameEvent::RocketFired { die, .. }
        | GameEvent::BattleshipRepaired { die, .. } => vec![*die],
        GameEvent::StartZonesRolled { bases, .. } => bases
            .iter()
            .flat_map(|b| b.rolls.iter().flatten())
            .copied()
            .collect(),
        GameEvent::InitiativeRolled { rolls, .. } => {
            rolls.iter().flatten().map(|(_, die)| *die).collect()
        }
        GameEvent::KamikazesStruck { strikes, .. } => strikes
            .iter()
            .flat_map(|s| s.dice.iter().copied())
            .collect(),
        GameEvent::ReinforcementsRolled { dice, .. } => dice.clone(),
        GameEvent::WarResearched { tries, .. } => tries
            .iter()
            .flat_map(|t| std::iter::once(t.chance).chain(t.chart.iter().copied()))
            .collect(),
        GameEvent::WarMoveResolved(resolved) => resolved.dice(),
        GameEvent::AirRaidFlown(raid) => raid.dice(),
        GameEvent::WarRocketFired { die, .. } => vec![*die],
        _ => Vec::new(),
    }
}

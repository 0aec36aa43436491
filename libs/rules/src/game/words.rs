//! A game's events in words, for people: one plain sentence per event, with the board's
//! names for places, the catalogue's codes for units, and powers and phases by their
//! names. Players are not programmers: an order's answer leads with these sentences, and
//! the events with their hashes and index numbers follow for tools.
//!
//! [`describe`] needs only the event. A battle's event records what each side has left,
//! not what it lost; with the state the event applies to ([`describe_in`], [`summary`])
//! the sentence names the losses too.
//!
//! Sealed standing orders are the defender's secret until a battle reveals them: the
//! sentence of a `StandingOrdersSealed` says that orders were set and sealed, never what
//! they are (the event holds only their commitment and ciphertext anyway).

use std::collections::BTreeMap;

use super::combat::{BattleFought, RaidFlown};
use super::diplomacy::{AgreementEnd, AgreementEnded, Outbreak};
use super::home_cooked::{AirRaid, ParleyRoll, WarBattle, WarBattleOutcome, WarMove};
use super::standing::StandingOrders;
use super::{apply, EventFamily, GameEvent, GameState, Permission, Phase, Rules, Technology};
use crate::battle::Outcome;
use crate::board::{Power, TerritoryId};
use crate::home_cooked_tables::{Parley, WarTechnology};
use crate::units::{Domain, UnitTypeId};

/// The event in one sentence for people, or `None` for an event with nothing in it worth
/// telling (see [`describe_in`]). A battle says who won and what is left; [`describe_in`]
/// also says what each side lost.
pub fn describe(rules: Rules<'_>, event: &GameEvent) -> Option<String> {
    Words {
        rules,
        before: None,
    }
    .sentence(event)
}

/// The event in one sentence for people, given the state it applies to (the state before
/// it): a battle names each side's losses.
///
/// `None` only for an event that records nothing happening: aircraft lost or units
/// forfeited with an empty list. The engine does not write such events, but an event read
/// from an imported log may hold one, and "Germany lost no units" is not news.
pub fn describe_in(rules: Rules<'_>, before: &GameState, event: &GameEvent) -> Option<String> {
    Words {
        rules,
        before: Some(before),
    }
    .sentence(event)
}

/// The sentences of a run of events (an order's answer, a turn), in order. Consecutive
/// phase ends of one power make one sentence ("Germany ended its repairs, weapons
/// development and purchase phases."). With the state before the first event, battles name
/// their losses (the state is folded along, on a copy); without it, what each side has
/// left.
pub fn summary(rules: Rules<'_>, before: Option<&GameState>, events: &[GameEvent]) -> Vec<String> {
    let mut state = before.cloned();
    let mut sentences = Vec::new();
    // The phases a power has ended in a row, not yet written.
    let mut ended: Option<(Power, Vec<Phase>)> = None;
    for event in events {
        if let GameEvent::PhaseEnded { power, phase, .. } = event {
            match &mut ended {
                Some((by, phases)) if by == power => phases.push(*phase),
                _ => {
                    if let Some((by, phases)) = ended.take() {
                        sentences.push(phases_ended(rules, by, &phases));
                    }
                    ended = Some((*power, vec![*phase]));
                }
            }
        } else {
            if let Some((by, phases)) = ended.take() {
                sentences.push(phases_ended(rules, by, &phases));
            }
            let words = Words {
                rules,
                before: state.as_ref(),
            };
            sentences.extend(words.sentence(event));
        }
        if let Some(state) = &mut state {
            apply(rules, state, event);
        }
    }
    if let Some((by, phases)) = ended {
        sentences.push(phases_ended(rules, by, &phases));
    }
    sentences
}

/// "Germany ended its repairs, weapons development and purchase phases." The income phase
/// ends the turn (except in "War", which has its own flow).
fn phases_ended(rules: Rules<'_>, power: Power, phases: &[Phase]) -> String {
    let names = and_list(phases.iter().map(|p| p.name().to_owned()));
    let noun = if phases.len() == 1 { "phase" } else { "phases" };
    let turn_over =
        rules.special.war.is_none() && phases.last().is_some_and(|p| p.next().is_none());
    let tail = if turn_over {
        ", and with it its turn"
    } else {
        ""
    };
    full_stop(format!("{power} ended its {names} {noun}{tail}"))
}

/// Writes sentences for one ruleset, with the state before the event when there is one.
struct Words<'a> {
    rules: Rules<'a>,
    before: Option<&'a GameState>,
}

impl Words<'_> {
    fn sentence(&self, event: &GameEvent) -> Option<String> {
        self.body(event).map(full_stop)
    }

    /// The sentence without its full stop.
    fn body(&self, event: &GameEvent) -> Option<String> {
        match event.family() {
            EventFamily::PhaseEnd => self.phase_end(event),
            EventFamily::Economy => self.economy(event),
            EventFamily::PacificLand => self.pacific_land(event),
            EventFamily::PacificSea => self.pacific_sea(event),
            EventFamily::MovesAndBattles => self.moves_and_battles(event),
            EventFamily::Diplomacy => self.diplomacy(event),
            EventFamily::War => self.war(event),
            EventFamily::Seats => self.seats_and_ending(event),
            EventFamily::StandingOrders => self.standing_orders(event),
        }
    }

    fn phase_end(&self, event: &GameEvent) -> Option<String> {
        let GameEvent::PhaseEnded { power, phase, .. } = event else {
            unreachable!("only phase ends come here");
        };
        Some(phases_ended(self.rules, *power, &[*phase]))
    }

    /// What a power does with its money: purchases and placements, income, loans,
    /// research, repairs, and a passive power's treasury.
    fn economy(&self, event: &GameEvent) -> Option<String> {
        let rules = self.rules;
        let text = match event {
            GameEvent::UnitsPurchased { power, units, cost } => format!(
                "{power} bought {} for {}",
                self.units(units),
                self.money(*cost)
            ),
            GameEvent::UnitsPlaced {
                power,
                territory,
                units,
            } => format!(
                "{power} placed {} in {}",
                self.units(units),
                self.place(*territory)
            ),
            GameEvent::IncomeCollected { power, amount } => {
                // Enhanced Realism's income comes as the turn begins, before the purchase.
                let when = if rules.economy.collected_at_turn_start {
                    " at the beginning of its turn"
                } else {
                    ""
                };
                format!("{power} collected {}{when}", self.money(*amount))
            }
            GameEvent::UnitsForfeited { power, units } => {
                if units.is_empty() {
                    return None;
                }
                format!(
                    "{power} forfeited {} it had bought, with no complex left to place them at",
                    self.units(units)
                )
            }
            GameEvent::PowerSurrendered { power, territory } => format!(
                "{power} surrendered: the raid on {} took all its money",
                self.place(*territory)
            ),
            GameEvent::ComplexExpanded {
                power,
                territory,
                cost,
            } => format!(
                "{power} expanded its complex in {} for {}",
                self.place(*territory),
                self.money(*cost)
            ),
            GameEvent::WarLoanApplied {
                power,
                die,
                granted,
            } => {
                if *granted > 0 {
                    format!(
                        "{power} applied for a war loan, rolled a {die} and was granted {}",
                        self.money(*granted)
                    )
                } else {
                    format!("{power} applied for a war loan, rolled a {die} and was refused")
                }
            }
            GameEvent::WarLoanRepaid {
                power,
                principal,
                interest,
            } => format!(
                "{power} repaid {} of its war loan, with {} interest",
                self.money(*principal),
                self.money(*interest)
            ),
            GameEvent::WeaponsResearched {
                power,
                cost,
                dice,
                breakthrough,
            } => {
                let found = match breakthrough {
                    Some(b) => format!("a breakthrough in {}", technology(b.technology)),
                    None => "no breakthrough".to_owned(),
                };
                format!(
                    "{power} spent {} on {}: {found}",
                    self.money(*cost),
                    counted(dice.len(), "research die", "research dice")
                )
            }
            GameEvent::WentPassive { power } => format!(
                "{power} went passive: it makes no more moves and gives no orders but ending its phases"
            ),
            GameEvent::TreasuryConvertedToInfantry {
                power,
                infantry,
                spent,
            } => {
                let units = match rules.catalogue.infantry() {
                    Some(inf) => self.units(&[(inf, *infantry)]),
                    None => format!("{infantry} infantry"),
                };
                let capital = match rules.board.capital(*power) {
                    Some(capital) => format!(" in {}", self.place(capital)),
                    None => String::new(),
                };
                format!(
                    "{power}, passive, turned {} of its treasury into {units}{capital}",
                    self.money(*spent)
                )
            }
            GameEvent::BattleshipRepaired {
                power,
                sea_zone,
                die,
                cost,
            } => format!(
                "{power} repaired a battleship in {} for {} (the base cost and a die of {die})",
                self.place(*sea_zone),
                self.money(*cost)
            ),
            _ => unreachable!("only economy events come here"),
        };
        Some(text)
    }

    /// The Pacific board's rules on land: reinforcements, guerrillas, recruits and units
    /// lent.
    fn pacific_land(&self, event: &GameEvent) -> Option<String> {
        let rules = self.rules;
        let text = match event {
            GameEvent::ReinforcementsArrived {
                power,
                territory,
                units,
                lost,
            } => {
                if *lost {
                    format!(
                        "{} reinforcements of {} for {} were lost, as {power} no longer holds it",
                        of(*power),
                        self.units(units),
                        self.place(*territory)
                    )
                } else {
                    format!(
                        "{power} received {} as reinforcements in {}",
                        self.units(units),
                        self.place(*territory)
                    )
                }
            }
            GameEvent::GuerrillaSuppression {
                power,
                territory,
                die,
                suppressed,
            } => {
                let result = if *suppressed {
                    "and pinned them down for this turn"
                } else {
                    "and failed"
                };
                format!(
                    "{power} rolled a {die} to suppress the guerrillas in {} {result}",
                    self.place(*territory)
                )
            }
            GameEvent::GuerrillasAvoidedCombat {
                power,
                territory,
                attacker,
                taken,
            } => {
                let place = self.place(*territory);
                let holds = if *taken {
                    format!("{attacker} took {place}")
                } else {
                    format!("{attacker} did not take {place}")
                };
                format!("{} guerrillas in {place} refused battle with {attacker}: the battle is off, and {holds}", of(*power))
            }
            GameEvent::RecruitsRaised {
                power,
                territory,
                infantry,
            } => {
                let units = match rules.catalogue.infantry() {
                    Some(inf) => self.units(&[(inf, *infantry)]),
                    None => format!("{infantry} infantry"),
                };
                format!("{power} raised {units} in {}", self.place(*territory))
            }
            GameEvent::RecruitsDue { power, infantry } => {
                let units = match rules.catalogue.infantry() {
                    Some(inf) => self.units(&[(inf, *infantry)]),
                    None => format!("{infantry} infantry"),
                };
                format!("{power} raised {units}, to place where it has units")
            }
            GameEvent::UnitsLent {
                from,
                to,
                territory,
                units,
            } => format!(
                "{from} lent {} in {} to {to}",
                self.units(units),
                self.place(*territory)
            ),
            GameEvent::UnitsRecalled {
                from,
                to,
                territory,
                units,
            } => format!(
                "{to} took back {} lent to {from} in {}",
                self.units(units),
                self.place(*territory)
            ),
            _ => unreachable!("only pacific land events come here"),
        };
        Some(text)
    }

    /// The Pacific board's rules at sea and in the air: kamikazes, convoys, patrols and
    /// submarines.
    fn pacific_sea(&self, event: &GameEvent) -> Option<String> {
        let text = match event {
            GameEvent::KamikazesStruck {
                power,
                against,
                strikes,
            } => {
                let strikes = strikes.iter().map(|s| {
                    let dice = and_list(s.dice.iter().map(|d| d.to_string()));
                    let result = if s.sunk {
                        "sunk"
                    } else if s.hits > 0 {
                        "damaged"
                    } else {
                        "missed"
                    };
                    format!(
                        "{} on 1 {} in {} rolled {dice}, {}: {result}",
                        counted(s.dice.len(), "token", "tokens"),
                        self.code(s.unit),
                        self.place(s.sea_zone),
                        counted(s.hits as usize, "hit", "hits"),
                    )
                });
                format!(
                    "{} kamikazes struck {} ships: {}",
                    of(*power),
                    of(*against),
                    semicolon_list(strikes)
                )
            }
            GameEvent::SubmarinesAttacked { power, sea_zone } => format!(
                "{power} attacked the submarines in {}, where its destroyer stood as its turn began",
                self.place(*sea_zone)
            ),
            GameEvent::ConvoyCaptured {
                power,
                sea_zone,
                from,
            } => format!(
                "{power} captured the convoy in {} from {from}",
                self.place(*sea_zone)
            ),
            GameEvent::ConvoyLiberated {
                power,
                sea_zone,
                for_power,
            } => format!(
                "{power} liberated the convoy in {} for {for_power}",
                self.place(*sea_zone)
            ),
            GameEvent::PatrolFlown {
                power,
                units,
                from,
                over,
            } => {
                let over_name = self.place(*over);
                if from == over {
                    format!("{power}'s {} patrol over {over_name}", self.units(units))
                } else {
                    format!(
                        "{power}'s {} patrol over {over_name} from {}",
                        self.units(units),
                        self.place(*from)
                    )
                }
            }
            GameEvent::PatrolsEnded {
                power,
                returned,
                lost,
            } => {
                let mut parts: Vec<String> = returned
                    .iter()
                    .map(|(over, from, unit, n)| {
                        format!(
                            "{} back from {} to {}",
                            self.units(&[(*unit, *n)]),
                            self.place(*over),
                            self.place(*from)
                        )
                    })
                    .collect();
                parts.extend(lost.iter().map(|(over, unit, n)| {
                    format!(
                        "{} lost over {} with nowhere to land",
                        self.units(&[(*unit, *n)]),
                        self.place(*over)
                    )
                }));
                if parts.is_empty() {
                    format!("{power}'s patrols ended")
                } else {
                    format!("{power}'s patrols ended: {}", parts.join("; "))
                }
            }
            GameEvent::SubmarinesBlocking {
                power,
                sea_zone,
                against,
            } => {
                let place = match sea_zone {
                    Some(zone) => format!("in {}", self.place(*zone)),
                    None => "everywhere".to_owned(),
                };
                if against.is_empty() {
                    format!("{power}'s submarines {place} no longer block")
                } else {
                    let names: Vec<&str> = against.iter().map(|p| p.name()).collect();
                    format!(
                        "{power}'s submarines {place} block the ships of {}",
                        names.join(", ")
                    )
                }
            }
            _ => unreachable!("only pacific sea events come here"),
        };
        Some(text)
    }

    /// Moves and what they lead to: battles, raids, rockets, aircraft with nowhere to land.
    fn moves_and_battles(&self, event: &GameEvent) -> Option<String> {
        let text = match event {
            GameEvent::AircraftLost { power, losses } => {
                if losses.is_empty() {
                    return None;
                }
                // By place, in the event's order.
                let mut by_place: Vec<(TerritoryId, Vec<(UnitTypeId, u32)>)> = Vec::new();
                for &(place, unit, n) in losses {
                    match by_place.iter_mut().find(|(p, _)| *p == place) {
                        Some((_, units)) => units.push((unit, n)),
                        None => by_place.push((place, vec![(unit, n)])),
                    }
                }
                let parts = by_place
                    .iter()
                    .map(|(place, units)| format!("{} in {}", self.units(units), self.place(*place)));
                format!(
                    "{power} lost {}, with nowhere to land",
                    and_list(parts)
                )
            }
            GameEvent::UnitsMoved {
                power,
                units,
                path,
                captured,
                contested,
                passengers,
            } => {
                let mut text = format!("{power} moved {} {}", self.units(units), self.route(path));
                if !passengers.is_empty() {
                    let carried = passengers
                        .iter()
                        .map(|(owner, unit, n)| format!("{} {}", of(*owner), self.units(&[(*unit, *n)])));
                    text += &format!(", carrying {}", and_list(carried));
                }
                if !captured.is_empty() {
                    text += &format!(", taking {} on the way", self.places(captured));
                }
                text + &self.battle_due(path, *contested)
            }
            GameEvent::UnitsRailed {
                power,
                units,
                path,
                contested,
            } => format!(
                "{power} railed {} {}{}",
                self.units(units),
                self.route(path),
                self.battle_due(path, *contested)
            ),
            GameEvent::RocketFired {
                power,
                from,
                target,
                victim,
                die,
                ipc_lost,
            } => format!(
                "{power} fired a rocket from {} at the complex in {}: it rolled a {die}, and {victim} lost {}",
                self.place(*from),
                self.place(*target),
                self.money(*ipc_lost)
            ),
            GameEvent::BattleFought(fought) => self.battle(fought),
            GameEvent::RaidFlown(flown) => self.raid(flown),
            GameEvent::TroopsAirDropped {
                power,
                bombers,
                troops,
                path,
                contested,
            } => format!(
                "{} {} flew {} {} as paratroopers{}",
                of(*power),
                counted(*bombers as usize, "bomber", "bombers"),
                self.units(troops),
                self.route(path),
                self.battle_due(path, *contested)
            ),
            _ => unreachable!("only moves and battles events come here"),
        };
        Some(text)
    }

    /// Agreements and permissions between powers.
    fn diplomacy(&self, event: &GameEvent) -> Option<String> {
        let text = match event {
            GameEvent::AgreementOffered { from, to, terms } => {
                format!("{from} offered {to} an agreement{}", quoted_terms(terms))
            }
            GameEvent::AgreementFormed { between, terms } => format!(
                "{} and {} made an agreement{}",
                between.0,
                between.1,
                quoted_terms(terms)
            ),
            GameEvent::PermissionGranted { by, to, permission } => {
                format!("{by} allowed {to} to {}", permission_words(*permission))
            }
            GameEvent::PermissionRevoked { by, to, permission } => format!(
                "{by} no longer allows {to} to {}",
                permission_words(*permission)
            ),
            GameEvent::AgreementEnded(ended) => self.agreement_ended(ended),
            _ => unreachable!("only diplomacy events come here"),
        };
        Some(text)
    }

    /// The home-cooked "War" game's own events.
    fn war(&self, event: &GameEvent) -> Option<String> {
        let text = match event {
            GameEvent::StartZonesRolled { bases, .. } => {
                let each = bases.iter().map(|b| {
                    format!(
                        "{} {} {}",
                        of(b.power),
                        if b.zones.len() == 1 { "is" } else { "are" },
                        self.places(&b.zones)
                    )
                });
                format!("Bases were rolled: {}", semicolon_list(each))
            }
            GameEvent::InitiativeRolled { order, .. } => format!(
                "Initiative was rolled: the order of play this round is {}",
                and_list(order.iter().map(|p| p.name().to_owned()))
            ),
            GameEvent::ReinforcementsRolled {
                by,
                active,
                dice,
                units,
                moves,
            } => {
                let total: u32 = dice.iter().map(|d| u32::from(d.value())).sum();
                let mut text = format!(
                    "{by} rolled {total} for the reinforcements of {} turn: {}",
                    of(*active),
                    self.units(units)
                );
                if *moves > 0 {
                    text += &format!(
                        ", and may move {}",
                        counted(*moves as usize, "unit", "units")
                    );
                }
                text
            }
            GameEvent::NeutralForcesPlaced {
                by,
                territory,
                units,
            } => format!(
                "{by} placed {} of {} in {}",
                self.units(units),
                Power::Npn,
                self.place(*territory)
            ),
            GameEvent::WarUnitsBought {
                power,
                territory,
                units,
                cost,
            } => format!(
                "{power} bought {} in {} for {}",
                self.units(units),
                self.place(*territory),
                self.money(*cost)
            ),
            GameEvent::InfrastructureBuilt {
                power,
                territory,
                cost,
            } => format!(
                "{power} built infrastructure in {} for {}",
                self.place(*territory),
                self.money(*cost)
            ),
            GameEvent::WarResearched { power, tries, cost } => {
                let found: Vec<String> = tries
                    .iter()
                    .filter_map(|t| t.technology)
                    .map(|t| war_technology(t).to_owned())
                    .collect();
                let found = if found.is_empty() {
                    "found nothing".to_owned()
                } else {
                    format!("found {}", and_list(found))
                };
                format!(
                    "{power} spent {} on {} and {found}",
                    self.money(*cost),
                    counted(tries.len(), "research try", "research tries")
                )
            }
            GameEvent::AtomicBombDropped {
                power,
                territory,
                cost,
            } => format!(
                "{power} dropped the atomic bomb on {} for {}: everything there was annihilated",
                self.place(*territory),
                self.money(*cost)
            ),
            GameEvent::WarMoveResolved(moved) => self.war_move(moved),
            GameEvent::AirRaidFlown(raid) => self.air_raid(raid),
            GameEvent::OrderOfLossSet { power, units } => {
                if units.is_empty() {
                    format!("{power} cleared its order of loss: the cheapest units are lost first")
                } else {
                    format!(
                        "{power} set its order of loss: {}, then the cheapest of the rest",
                        self.loss_order(units)
                    )
                }
            }
            GameEvent::BreakOffSet { power, after } => match after {
                Some(after) => format!(
                    "{power} will break off its attacks after {}",
                    counted(*after as usize, "attack", "attacks")
                ),
                None => format!("{power} will press its attacks until one side is gone"),
            },
            GameEvent::WarRocketFired {
                power,
                from,
                target,
                die,
                destroyed,
            } => {
                let result = match destroyed {
                    Some((owner, unit)) => {
                        format!("destroyed one of {} {}", of(*owner), self.code(*unit))
                    }
                    None => "missed".to_owned(),
                };
                format!(
                    "{power} fired a rocket from {} at {}: it rolled a {die} and {result}",
                    self.place(*from),
                    self.place(*target)
                )
            }
            _ => unreachable!("only war events come here"),
        };
        Some(text)
    }

    /// Who sits at the table, and how the game ended.
    fn seats_and_ending(&self, event: &GameEvent) -> Option<String> {
        let text = match event {
            GameEvent::SeatsAssigned { seats, .. } => {
                if seats.is_empty() {
                    "The seats were cleared".to_owned()
                } else {
                    let who = seats
                        .iter()
                        .map(|(power, player)| format!("{player} plays {power}"));
                    format!("Seats were assigned: {}", and_list(who))
                }
            }
            // Players' names are written as they are: no sentence starts with one, so none
            // is capitalised.
            GameEvent::PlayerReplaced {
                power,
                replaced,
                substitute,
                ..
            } => match replaced {
                Some(player) => format!(
                    "{} seat went to {substitute}, a substitute for {player}, who was inactive",
                    of(*power)
                ),
                None => format!(
                    "{} empty seat went to {substitute}, a substitute",
                    of(*power)
                ),
            },
            GameEvent::SeatTaken {
                power,
                replaced,
                player,
                reason,
                ..
            } => {
                let from = match replaced {
                    Some(before) => format!(" from {before}"),
                    None => String::new(),
                };
                format!(
                    "Before the game began, {player} took {} seat{from} ({reason})",
                    of(*power)
                )
            }
            GameEvent::SubstituteMadePermanent { power, player } => format!(
                "{} seat is now {player}'s for good, after two rounds as its substitute",
                of(*power)
            ),
            GameEvent::GameEnded { final_ipc, .. } => {
                let counts = final_ipc
                    .iter()
                    .map(|(power, ipc)| format!("{power} {ipc}"));
                format!("The game ended with these IPC counts: {}", and_list(counts))
            }
            GameEvent::GameVoided { reason, .. } => {
                format!("The game was voided and does not count: {reason}")
            }
            _ => unreachable!("only seats and ending events come here"),
        };
        Some(text)
    }

    /// A defender's standing orders, sealed ones told without what they say.
    fn standing_orders(&self, event: &GameEvent) -> Option<String> {
        let text = match event {
            GameEvent::StandingOrdersSet {
                power,
                territory,
                orders,
            } => format!(
                "{power} set standing orders {}: {}",
                self.orders_scope(*territory),
                self.standing(orders)
            ),
            // The secret: that orders were set, for which battles, never what they are.
            GameEvent::StandingOrdersSealed {
                power, territory, ..
            } => format!(
                "{power} set standing orders {}, sealed until a battle follows them",
                self.orders_scope(*territory)
            ),
            GameEvent::StandingOrdersRevealed {
                power,
                territory,
                orders,
                ..
            } => format!(
                "{} sealed standing orders {} were revealed for the battle: {}",
                of(*power),
                self.orders_scope(*territory),
                self.standing(orders)
            ),
            _ => unreachable!("only standing orders events come here"),
        };
        Some(text)
    }

    /// A place's board name (an id off the board, from an imported log, as such: never a
    /// bare number).
    fn place(&self, id: TerritoryId) -> &str {
        if self.rules.board.contains(id) {
            &self.rules.board.get(id).name
        } else {
            "a place not on this board"
        }
    }

    fn places(&self, ids: &[TerritoryId]) -> String {
        and_list(ids.iter().map(|id| self.place(*id).to_owned()))
    }

    /// A unit type's code, e.g. `INF`.
    fn code(&self, id: UnitTypeId) -> String {
        match self.rules.catalogue.units().nth(id.index()) {
            Some((_, unit)) => unit.code.clone(),
            None => "unknown unit".to_owned(),
        }
    }

    /// "3 INF and 1 ARM"; "no units" for none.
    fn units(&self, units: &[(UnitTypeId, u32)]) -> String {
        if units.iter().all(|(_, n)| *n == 0) {
            return "no units".to_owned();
        }
        and_list(
            units
                .iter()
                .filter(|(_, n)| *n > 0)
                .map(|(unit, n)| format!("{n} {}", self.code(*unit))),
        )
    }

    /// The cheapest first, as players list a side ("2 INF and 1 ARM"); the events keep
    /// the catalogue's order.
    fn cheapest_first(&self, unit: UnitTypeId) -> (u32, String) {
        let cost = self
            .rules
            .catalogue
            .units()
            .nth(unit.index())
            .map_or(u32::MAX, |(_, u)| u.cost);
        (cost, self.code(unit))
    }

    /// What a side has left: "2 INF and 1 BB (damaged)"; "nothing" for none.
    fn left(&self, units: &[(UnitTypeId, u8, u32)]) -> String {
        if units.is_empty() {
            return "nothing".to_owned();
        }
        let mut units = units.to_vec();
        units.sort_by_key(|(unit, damage, _)| (self.cheapest_first(*unit), *damage));
        and_list(units.iter().map(|(unit, damage, n)| {
            let damaged = if *damage > 0 { " (damaged)" } else { "" };
            format!("{n} {}{damaged}", self.code(*unit))
        }))
    }

    /// Money as the ruleset counts it: IPC, or dollars in "War".
    fn money(&self, amount: u32) -> String {
        if self.rules.special.war.is_some() {
            format!("${amount}")
        } else {
            format!("{amount} IPC")
        }
    }

    /// "from Germany to Ukraine by East Europe".
    fn route(&self, path: &[TerritoryId]) -> String {
        match path {
            [] => "nowhere".to_owned(),
            [only] => format!("within {}", self.place(*only)),
            [from, between @ .., to] => {
                let mut text = format!("from {} to {}", self.place(*from), self.place(*to));
                if !between.is_empty() {
                    text += &format!(" by {}", self.places(between));
                }
                text
            }
        }
    }

    /// Where a move met the enemy: ", into battle" at its end, else naming the place.
    fn battle_due(&self, path: &[TerritoryId], contested: Option<TerritoryId>) -> String {
        match contested {
            Some(place) if path.last() == Some(&place) => ", into battle".to_owned(),
            Some(place) => format!(", into battle in {}", self.place(place)),
            None => String::new(),
        }
    }

    /// "INF first, then ARM, then FTR".
    fn loss_order(&self, units: &[UnitTypeId]) -> String {
        let codes: Vec<String> = units.iter().map(|u| self.code(*u)).collect();
        match codes.split_first() {
            Some((first, rest)) => {
                let mut text = format!("{first} first");
                for code in rest {
                    text += &format!(", then {code}");
                }
                text
            }
            None => String::new(),
        }
    }

    fn orders_scope(&self, territory: Option<TerritoryId>) -> String {
        match territory {
            Some(place) => format!("for its battles in {}", self.place(place)),
            None => "for all its battles".to_owned(),
        }
    }

    /// Standing orders in words, as the battle listing's first line gives them.
    fn standing(&self, orders: &StandingOrders) -> String {
        let mut parts = Vec::new();
        if !orders.order_of_loss.is_empty() {
            parts.push(format!("lose {}", self.loss_order(&orders.order_of_loss)));
        }
        if orders.retreat_subs {
            parts.push(super::sub_retreat::order_words(self.rules, orders));
        }
        if orders.submerge_subs {
            parts.push("submarines submerge".to_owned());
        }
        if !orders.battleships_absorb {
            parts.push("battleships do not take the first hits".to_owned());
        }
        if let Some(when) = orders.blend_in {
            parts.push(super::guerrillas::blend_in_words(when));
        }
        if parts.is_empty() {
            "the default orders".to_owned()
        } else {
            semicolon_list(parts)
        }
    }

    /// "Germany attacked Ukraine: Germany won and took it, with 2 INF and 1 ARM left;
    /// Russia lost 3 INF."
    fn battle(&self, fought: &BattleFought) -> String {
        let place = self.place(fought.territory);
        let attacker = fought.attacker;
        let sea = self.rules.board.contains(fought.territory)
            && self.rules.board.get(fought.territory).sea;
        let mut opening = format!("{attacker} attacked {place}");
        if fought.kamikaze {
            opening += " with a kamikaze run";
        }
        if !fought.bombarded_from.is_empty() {
            let ships: u32 = fought.bombarded_from.iter().map(|(_, n)| n).sum();
            let zones: Vec<TerritoryId> = fought.bombarded_from.iter().map(|(z, _)| *z).collect();
            opening += &format!(
                ", {} bombarding from {}",
                counted(ships as usize, "battleship", "battleships"),
                self.places(&zones)
            );
        }
        let attacker_left = self.left(&fought.attacker_left);
        let defender_left = self.defender_left(fought);
        let (holder, of_holder) = match fought.defender {
            Some(d) => (d.name().to_owned(), of(d)),
            None => ("the defender".to_owned(), "the defender's".to_owned()),
        };
        let result = match fought.outcome {
            Outcome::AttackerWins if fought.captured => {
                let took = match fought.liberated_for {
                    Some(partner) => format!("freed it for {partner}"),
                    None => "took it".to_owned(),
                };
                let plunder = match (fought.plunder, fought.defender) {
                    (0, _) | (_, None) => String::new(),
                    (n, Some(d)) => format!(" and {} treasury of {}", of(d), self.money(n)),
                };
                format!("{attacker} won and {took}{plunder}, with {attacker_left} left")
            }
            Outcome::AttackerWins if sea => format!("{attacker} won, with {attacker_left} left"),
            Outcome::AttackerWins => format!(
                "{attacker} won but, with no land units left, did not take it; it has {attacker_left} left"
            ),
            Outcome::DefenderWins => {
                let held = if sea { "won" } else { "held it" };
                format!("{holder} {held}, with {defender_left} left")
            }
            Outcome::MutualDestruction => "both sides were destroyed".to_owned(),
            Outcome::AttackerRetreated => {
                let to = match fought.retreat_to {
                    Some(to) => format!(" to {}", self.place(to)),
                    None => String::new(),
                };
                format!(
                    "{attacker} withdrew{to} with {attacker_left}, and {holder} kept {defender_left} there"
                )
            }
            Outcome::Disengaged => format!(
                "the fighting stopped with neither side able to hit the other; {attacker} has {attacker_left} left and {holder} {defender_left}"
            ),
            Outcome::WalkedIn if fought.captured => {
                format!("{attacker} walked in unopposed and took it")
            }
            Outcome::WalkedIn => format!("{attacker} walked in unopposed"),
            Outcome::AttackerBlendedIn => format!(
                "{attacker} stopped firing and blended in, staying with {attacker_left}, and \
                 {holder} kept {defender_left} there"
            ),
            Outcome::DefenderBlendedIn if fought.captured => format!(
                "{holder} stopped firing and blended in, staying with {defender_left}, and \
                 {attacker} took it, with {attacker_left} left"
            ),
            Outcome::DefenderBlendedIn => format!(
                "{holder} stopped firing and blended in, staying with {defender_left}, and \
                 {attacker} stayed with {attacker_left}"
            ),
        };
        let mut text = format!("{opening}: {result}");
        if let Some(losses) = self.battle_losses(fought) {
            text += "; ";
            text += &losses;
        }
        if let Some(retreat) = &fought.subs_retreated {
            text += &format!(
                "; before the first die, {} {} retreated to {}",
                of(retreat.power),
                self.left(&retreat.subs),
                self.place(retreat.to)
            );
        }
        if let Some(zone) = fought.subs_withdrew_to {
            text += &format!(
                "; {} submarines withdrew to {}",
                of_holder,
                self.place(zone)
            );
        }
        if let Some(followed) = &fought.standing_orders {
            text += &format!(
                "; the defence followed {} standing orders",
                of(followed.power)
            );
        }
        text
    }

    /// The defenders' survivors: "2 INF", or by owner when partners defended together.
    fn defender_left(&self, fought: &BattleFought) -> String {
        let owners: Vec<Power> = fought.defenders.clone();
        if owners.len() <= 1 {
            let left: Vec<(UnitTypeId, u8, u32)> = fought
                .defender_left
                .iter()
                .map(|(_, unit, damage, n)| (*unit, *damage, *n))
                .collect();
            return self.left(&left);
        }
        let each = owners.iter().filter_map(|owner| {
            let left: Vec<(UnitTypeId, u8, u32)> = fought
                .defender_left
                .iter()
                .filter(|(o, ..)| o == owner)
                .map(|(_, unit, damage, n)| (*unit, *damage, *n))
                .collect();
            (!left.is_empty()).then(|| format!("{} {}", of(*owner), self.left(&left)))
        });
        let each: Vec<String> = each.collect();
        if each.is_empty() {
            "nothing".to_owned()
        } else {
            and_list(each)
        }
    }

    /// What each side lost, from the state before the battle: the fighting units less the
    /// survivors, and cargo that went down with its transports. `None` without the state.
    fn battle_losses(&self, fought: &BattleFought) -> Option<String> {
        let before = self.before?;
        let rules = self.rules;
        if !rules.board.contains(fought.territory) {
            return None;
        }
        let here = fought.territory.index();
        let sea = rules.board.get(fought.territory).sea;
        let unit_of = |unit: UnitTypeId| rules.catalogue.units().nth(unit.index()).map(|(_, u)| u);
        let fights = |unit: UnitTypeId| {
            unit_of(unit).is_some_and(|u| u.is_combatant() && !(sea && u.domain == Domain::Land))
        };
        let mut lost: BTreeMap<(Power, UnitTypeId), i64> = BTreeMap::new();
        let sides: Vec<Power> = std::iter::once(fought.attacker)
            .chain(fought.defenders.iter().copied())
            .collect();
        for ((owner, unit, _), n) in &before.forces[here] {
            if sides.contains(owner) && fights(*unit) {
                *lost.entry((*owner, *unit)).or_default() += i64::from(*n);
            }
        }
        // Bombers that carried paratroopers here stayed out of the battle.
        if let (Some(bomber), Some(&carrying)) = (
            rules.catalogue.bomber(),
            before.air_transports.get(&fought.territory),
        ) {
            *lost.entry((fought.attacker, bomber)).or_default() -= i64::from(carrying);
        }
        for (unit, _, n) in &fought.attacker_left {
            *lost.entry((fought.attacker, *unit)).or_default() -= i64::from(*n);
        }
        for (owner, unit, _, n) in &fought.defender_left {
            *lost.entry((*owner, *unit)).or_default() -= i64::from(*n);
        }
        if sea {
            // Cargo goes down with its transports: what the fold takes off the zone.
            let mut after = before.clone();
            apply(
                rules,
                &mut after,
                &GameEvent::BattleFought(Box::new(fought.clone())),
            );
            let cargo = |state: &GameState| -> BTreeMap<(Power, UnitTypeId), i64> {
                let mut counts = BTreeMap::new();
                for ((owner, unit, _), n) in &state.forces[here] {
                    if unit_of(*unit).is_some_and(|u| u.domain == Domain::Land) {
                        *counts.entry((*owner, *unit)).or_default() += i64::from(*n);
                    }
                }
                counts
            };
            let (had, has) = (cargo(before), cargo(&after));
            for (key, n) in had {
                *lost.entry(key).or_default() += n - has.get(&key).copied().unwrap_or(0);
            }
        }
        let mut by_power: Vec<(Power, Vec<(UnitTypeId, u32)>)> = Vec::new();
        for ((owner, unit), n) in lost {
            let Ok(n) = u32::try_from(n) else { continue };
            if n == 0 {
                continue;
            }
            match by_power.iter_mut().find(|(p, _)| *p == owner) {
                Some((_, units)) => units.push((unit, n)),
                None => by_power.push((owner, vec![(unit, n)])),
            }
        }
        for (_, units) in &mut by_power {
            units.sort_by_key(|(unit, _)| self.cheapest_first(*unit));
        }
        // The attacker first, then the defenders in the battle's order.
        by_power.sort_by_key(|(p, _)| sides.iter().position(|s| s == p));
        if by_power.is_empty() {
            return Some("no unit was lost".to_owned());
        }
        Some(and_list(
            by_power
                .iter()
                .map(|(p, units)| format!("{p} lost {}", self.units(units))),
        ))
    }

    /// "Germany's bombers raided the complex in Russia: the AA gun shot down 1 of 2, and
    /// Russia lost 6 IPC."
    fn raid(&self, flown: &RaidFlown) -> String {
        let raid = &flown.raid;
        let gun = if raid.anti_aircraft.is_empty() {
            "there was no AA gun".to_owned()
        } else if raid.shot_down == 0 {
            format!(
                "the AA gun shot down none of the {}",
                raid.anti_aircraft.len()
            )
        } else {
            format!(
                "the AA gun shot down {} of {}",
                raid.shot_down,
                raid.anti_aircraft.len()
            )
        };
        let mut text = format!(
            "{} bombers raided the complex in {}: {gun}, and {} lost {}",
            of(flown.attacker),
            self.place(flown.territory),
            flown.victim,
            self.money(raid.ipc_lost)
        );
        if raid.damage > raid.ipc_lost {
            text += &format!(" (all it had; the dice showed {})", raid.damage);
        }
        text
    }

    /// "Germany broke its agreement with Japan: they are at war; ..."
    fn agreement_ended(&self, ended: &AgreementEnded) -> String {
        let (a, b) = ended.between;
        let mut text = match ended.cause {
            AgreementEnd::BrokenBy(by) => {
                let other = if by == a { b } else { a };
                format!("{by} broke its agreement with {other}: they are at war")
            }
            AgreementEnd::CapitalTaken(lost) => format!(
                "The agreement between {a} and {b} is void, as {} capital was taken: they are at war",
                of(lost)
            ),
        };
        let effects = self.outbreak(&ended.outbreak);
        if !effects.is_empty() {
            text += "; ";
            text += &effects;
        }
        text
    }

    fn outbreak(&self, outbreak: &Outbreak) -> String {
        let mut parts = Vec::new();
        for seizure in &outbreak.seized {
            parts.push(format!(
                "{} seized {} {} in {}",
                seizure.to,
                of(seizure.from),
                self.units(&[(seizure.unit, seizure.count)]),
                self.place(seizure.zone)
            ));
        }
        for (place, to) in &outbreak.fallen {
            parts.push(format!("{} fell to {to}", self.place(*place)));
        }
        if !outbreak.fronts.is_empty() {
            parts.push(format!(
                "battles are due in {}",
                self.places(&outbreak.fronts)
            ));
        }
        semicolon_list(parts)
    }

    /// "War": a move, its parleys and its battle.
    fn war_move(&self, moved: &WarMove) -> String {
        let mover = if moved.by == moved.mover {
            String::new()
        } else {
            of(moved.mover) + " "
        };
        let mut text = format!(
            "{} moved {mover}{} {}",
            moved.by,
            self.units(&moved.units),
            self.route(&moved.path)
        );
        if let Some(sealift) = &moved.sealift {
            text += &format!(
                ", carried by {} from {} to {}",
                self.units(&[(sealift.transport, sealift.count)]),
                self.place(sealift.from),
                self.place(sealift.to)
            );
        }
        if moved.path.last() != Some(&moved.end) {
            text += &format!(", ending in {}", self.place(moved.end));
        }
        if !moved.parleys.is_empty() {
            let parleys = moved.parleys.iter().map(|p| self.parley(p));
            text += &format!("; {}", semicolon_list(parleys));
        }
        if moved.risen > 0 {
            text += &format!(
                "; {} rose to defend",
                counted(moved.risen as usize, "soldier", "soldiers")
            );
        }
        match &moved.battle {
            Some(battle) => {
                text += "; ";
                text += &self.war_battle(battle, moved.taken);
            }
            None if moved.taken => {
                text += &format!(", taking {}", self.place(moved.end));
            }
            None => {}
        }
        text
    }

    fn parley(&self, roll: &ParleyRoll) -> String {
        let place = self.place(roll.territory);
        let die = roll.die;
        let outcome = match roll.outcome {
            Parley::PassThrough => "they were let through".to_owned(),
            Parley::PayTwoToPass | Parley::PayOnePerUnit => {
                format!("they paid {} to pass", self.money(roll.paid))
            }
            Parley::HeldUp => "they were held up".to_owned(),
            Parley::MustEngage => "they had to fight".to_owned(),
            Parley::MilitiaRises => "the militia rose".to_owned(),
        };
        format!("the parley in {place} rolled a {die}: {outcome}")
    }

    /// "Germany attacked X: the attacker won and took it; Germany lost 1 INF; Russia lost
    /// 2 INF."
    fn war_battle(&self, battle: &WarBattle, taken: bool) -> String {
        let place = self.place(battle.territory);
        let attacker = battle.attacker;
        let mut text = format!("{attacker} attacked {place}");
        if battle.militia > 0 {
            text += &format!(
                " with {} of militia defending",
                counted(battle.militia as usize, "soldier", "soldiers")
            );
        }
        let result = match battle.outcome {
            WarBattleOutcome::AttackerWon if taken => format!("{attacker} won and took it"),
            WarBattleOutcome::AttackerWon => format!("{attacker} won"),
            WarBattleOutcome::DefenderHeld => "the defenders held it".to_owned(),
            WarBattleOutcome::Stalemate => "neither side could hit the other".to_owned(),
            WarBattleOutcome::BrokeOff => format!(
                "{attacker} broke off after {}",
                counted(battle.rounds.len(), "attack", "attacks")
            ),
        };
        text += &format!(": {result}");
        let mut losses = Vec::new();
        if !battle.attacker_losses.is_empty() {
            losses.push(format!(
                "{attacker} lost {}",
                self.units(&battle.attacker_losses)
            ));
        }
        let mut by_owner: Vec<(Power, Vec<(UnitTypeId, u32)>)> = Vec::new();
        for &(owner, unit, n) in &battle.defender_losses {
            match by_owner.iter_mut().find(|(p, _)| *p == owner) {
                Some((_, units)) => units.push((unit, n)),
                None => by_owner.push((owner, vec![(unit, n)])),
            }
        }
        for (owner, units) in by_owner {
            losses.push(format!("{owner} lost {}", self.units(&units)));
        }
        if !losses.is_empty() {
            text += &format!("; {}", and_list(losses));
        }
        if !battle.healed.is_empty() {
            let healed = battle.healed.iter().map(|(owner, unit, place, n)| {
                format!(
                    "{} {} in {}",
                    of(*owner),
                    self.units(&[(*unit, *n)]),
                    self.place(*place)
                )
            });
            text += &format!("; healed and back at base: {}", and_list(healed));
        }
        text
    }

    /// "War": an air raid on a player's cash reserves.
    fn air_raid(&self, raid: &AirRaid) -> String {
        let target = raid.path.last().map_or("its target", |t| self.place(*t));
        let how = if raid.strategic {
            "strategic bombers"
        } else {
            "air raid"
        };
        let shot = if raid.shot_down.is_empty() {
            "none was shot down".to_owned()
        } else {
            format!("{} shot down", self.units(&raid.shot_down))
        };
        format!(
            "{} {how} of {} hit {} cash reserves over {target}: {shot}, and {} lost {}",
            of(raid.power),
            self.units(&raid.units),
            of(raid.victim),
            raid.victim,
            self.money(raid.cash_lost)
        )
    }
}

/// A power's possessive: "Germany's", "United States'".
fn of(power: Power) -> String {
    let name = power.name();
    if name.ends_with('s') {
        format!("{name}'")
    } else {
        format!("{name}'s")
    }
}

/// A sentence: its first letter a capital ("the non-player nations ..." starts one), and a
/// full stop at the end unless a name ends it with one ("Ukraine S.S.R.").
fn full_stop(text: String) -> String {
    let mut chars = text.chars();
    let mut sentence: String = match chars.next() {
        Some(first) if first.is_lowercase() => first.to_uppercase().chain(chars).collect(),
        _ => text,
    };
    if !sentence.ends_with('.') {
        sentence.push('.');
    }
    sentence
}

/// "a", "a and b", "a, b and c".
fn and_list(items: impl IntoIterator<Item = String>) -> String {
    let items: Vec<String> = items.into_iter().collect();
    match items.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Clauses that hold lists of their own: "a; b; c".
fn semicolon_list(items: impl IntoIterator<Item = String>) -> String {
    items.into_iter().collect::<Vec<_>>().join("; ")
}

/// "1 bomber", "3 bombers".
fn counted(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

fn quoted_terms(terms: &str) -> String {
    let terms = terms.trim();
    if terms.is_empty() {
        String::new()
    } else {
        format!(" (terms: \u{201c}{terms}\u{201d})")
    }
}

fn permission_words(permission: Permission) -> &'static str {
    match permission {
        Permission::Enter => "enter its territories",
        Permission::Rail => "move by rail through its territories",
        Permission::Ferry => "use its transports and carriers",
    }
}

/// A Classic weapons development in words.
pub fn technology(technology: Technology) -> &'static str {
    match technology {
        Technology::JetFighters => "jet fighters",
        Technology::Rockets => "rockets",
        Technology::SuperSubmarines => "super submarines",
        Technology::LongRangeAircraft => "long-range aircraft",
        Technology::IndustrialTechnology => "industrial technology",
        Technology::HeavyBombers => "heavy bombers",
    }
}

/// A "War" technology in words.
pub fn war_technology(technology: WarTechnology) -> &'static str {
    match technology {
        WarTechnology::Paratroopers => "paratroopers",
        WarTechnology::MashUnits => "MASH units",
        WarTechnology::Jets => "jets",
        WarTechnology::StrategicBombers => "strategic bombers",
        WarTechnology::Metallurgy => "metallurgy",
        WarTechnology::AdvancedArmor => "advanced armor",
        WarTechnology::Radar => "radar",
        WarTechnology::ChemicalWarfare => "chemical warfare",
        WarTechnology::Rockets => "rockets",
        WarTechnology::AtomicBomb => "the atomic bomb",
    }
}

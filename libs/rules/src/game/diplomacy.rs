//! Cut-Throat diplomacy: no alliances at the start, everyone for themselves. Powers offer and
//! accept agreements of any kind at any time, grant each other permissions (units can be
//! barred from an ally's land), and break them at any time, which is a declaration of war:
//! mixed units must fight, land held by one where only the other stands falls to it at once,
//! troops on a former ally's transport seize it and fighters on its carriers are seized.
//! A power whose capital is taken loses every agreement and may make no new one.

use std::collections::BTreeMap;

use super::{take_of_type, violation, GameEvent, GameState, Phase, RuleViolation, Rules};
use crate::board::{Power, TerritoryId};
use crate::game::ViolationCode;
use crate::units::{Ability, Domain};

const ALLIANCES: &str = "Cut-Throat, Alliances, Treaties and agreements";
const DEFEAT: &str = "Cut-Throat, General rules: Defeating a Country";

/// What one partner allows the other: nothing is allowed without being granted.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Permission {
    /// The grantee's land and air units may enter, pass through and stay in (and its
    /// aircraft land in) the grantor's territories.
    Enter,
    /// The grantee may move infantry and AA guns by rail through the grantor's territories.
    Rail,
    /// The grantee's troops may board the grantor's transports and its fighters land on the
    /// grantor's carriers.
    Ferry,
}

/// Why an agreement ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum AgreementEnd {
    /// One partner broke it: a declaration of war.
    BrokenBy(Power),
    /// This partner's capital was taken: all its agreements are void.
    CapitalTaken(Power),
}

/// Units that change hands when war breaks out between former partners.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Seizure {
    pub zone: TerritoryId,
    pub from: Power,
    pub to: Power,
    pub unit: crate::units::UnitTypeId,
    pub count: u32,
}

/// What a declaration of war does at once.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Outbreak {
    /// Transports taken by the troops aboard, fighters taken by the carrier's owner.
    pub seized: Vec<Seizure>,
    /// Land held by one partner where only the other has units: it falls to that one.
    pub fallen: Vec<(TerritoryId, Power)>,
    /// Places where both have fighting units: battles, part of the combat movement.
    pub fronts: Vec<TerritoryId>,
}

/// An agreement ended, and what the war does at once.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AgreementEnded {
    pub between: (Power, Power),
    pub cause: AgreementEnd,
    pub outbreak: Outbreak,
}

/// The two powers of an agreement, in a fixed order.
pub fn partners(a: Power, b: Power) -> (Power, Power) {
    if a <= b {
        (a, b)
    } else {
        (b, a)
    }
}

impl GameState {
    /// Whether two powers are at war: different, with no agreement between them.
    pub fn at_war(&self, a: Power, b: Power) -> bool {
        a != b
            && !self.agreements.contains_key(&partners(a, b))
            && !self.standing_alliances.contains(&partners(a, b))
    }

    /// Whether `grantor` allows `grantee` this (a power allows itself everything).
    pub fn permits(&self, grantor: Power, grantee: Power, permission: Permission) -> bool {
        grantor == grantee
            || self
                .standing_alliances
                .contains(&partners(grantor, grantee))
            || self.permissions.contains(&(grantor, grantee, permission))
    }

    /// Whether a power's capital is held by someone else.
    pub fn capital_lost(&self, rules: Rules<'_>, power: Power) -> bool {
        rules
            .board
            .capital(power)
            .is_some_and(|c| self.holder[c.index()] != Some(power))
    }
}

/// Any power may offer, accept, grant and break at any time, not only on its turn.
pub(super) fn decide(
    rules: Rules<'_>,
    state: &GameState,
    by: Power,
    order: &super::Order,
) -> Result<Vec<GameEvent>, RuleViolation> {
    use super::Order;
    let with = match order {
        Order::OfferAgreement { with, .. } | Order::BreakAgreement { with } => Some(*with),
        Order::AcceptAgreement { from } => Some(*from),
        Order::GrantPermission { to, .. } | Order::RevokePermission { to, .. } => Some(*to),
        _ => None,
    };
    if let Some(with) = with.filter(|w| state.standing_alliances.contains(&partners(by, *w))) {
        return Err(violation(
            ViolationCode::StandingAlliance,
            "the ruleset's alliances (special_rules.alliances)",
            format!(
                "{by} and {with} are allies for the whole game: no agreement makes, breaks or \
                 changes that, and each already lets the other enter, rail and ferry"
            ),
        ));
    }
    if let (
        Some(side_of),
        Order::OfferAgreement { with, .. } | Order::AcceptAgreement { from: with },
    ) = (&rules.special.side_of, order)
    {
        let side = |power: &Power| side_of.get(power);
        if side(&by).is_none() || side(&by) != side(with) {
            return Err(violation(
                ViolationCode::OpposingSides,
                "the ruleset's sides (special_rules.sides)",
                format!(
                    "{by} and {with} play on opposing sides for the whole game: they make no \
                     agreements"
                ),
            ));
        }
    }
    match order {
        Order::OfferAgreement { with, terms } => {
            check_may_agree(rules, state, by, *with)?;
            if state.offers.contains_key(&(by, *with)) {
                return Err(violation(
                    ViolationCode::AlreadyOffered,
                    ALLIANCES,
                    format!("{by} has an offer to {with} waiting already"),
                ));
            }
            Ok(vec![GameEvent::AgreementOffered {
                from: by,
                to: *with,
                terms: terms.clone(),
            }])
        }
        Order::AcceptAgreement { from } => {
            check_may_agree(rules, state, by, *from)?;
            let Some(terms) = state.offers.get(&(*from, by)) else {
                return Err(violation(
                    ViolationCode::NoOffer,
                    ALLIANCES,
                    format!("{from} has offered {by} no agreement to accept"),
                ));
            };
            Ok(vec![GameEvent::AgreementFormed {
                between: partners(by, *from),
                terms: terms.clone(),
            }])
        }
        Order::GrantPermission { to, permission } | Order::RevokePermission { to, permission } => {
            if !state.agreements.contains_key(&partners(by, *to)) {
                return Err(violation(
                    ViolationCode::NoAgreement,
                    ALLIANCES,
                    format!("{by} and {to} have no agreement: permissions come with one"),
                ));
            }
            let granted = state.permits(by, *to, *permission);
            match order {
                Order::GrantPermission { .. } if !granted => {
                    Ok(vec![GameEvent::PermissionGranted {
                        by,
                        to: *to,
                        permission: *permission,
                    }])
                }
                Order::RevokePermission { .. } if granted => {
                    Ok(vec![GameEvent::PermissionRevoked {
                        by,
                        to: *to,
                        permission: *permission,
                    }])
                }
                _ => Err(violation(
                    ViolationCode::PermissionUnchanged,
                    ALLIANCES,
                    format!(
                        "{by} has {} {to} {permission:?} already",
                        if granted { "granted" } else { "not granted" }
                    ),
                )),
            }
        }
        Order::BreakAgreement { with } => {
            if !state.agreements.contains_key(&partners(by, *with)) {
                return Err(violation(
                    ViolationCode::NoAgreement,
                    ALLIANCES,
                    format!("{by} and {with} have no agreement to break"),
                ));
            }
            Ok(vec![GameEvent::AgreementEnded(Box::new(AgreementEnded {
                between: partners(by, *with),
                cause: AgreementEnd::BrokenBy(by),
                outbreak: outbreak(rules, state, by, *with),
            }))])
        }
        _ => unreachable!("only diplomatic orders come here"),
    }
}

fn check_may_agree(
    rules: Rules<'_>,
    state: &GameState,
    by: Power,
    with: Power,
) -> Result<(), RuleViolation> {
    if by == with {
        return Err(violation(
            ViolationCode::SelfAgreement,
            ALLIANCES,
            "an agreement is made with another power",
        ));
    }
    if state.agreements.contains_key(&partners(by, with)) {
        return Err(violation(
            ViolationCode::AlreadyAgreed,
            ALLIANCES,
            format!("{by} and {with} have an agreement already"),
        ));
    }
    for power in [by, with] {
        if state.capital_lost(rules, power) {
            return Err(violation(
                ViolationCode::CapitalLost,
                DEFEAT,
                format!("{power}'s capital has been taken: it can form no new alliances, treaties or agreements"),
            ));
        }
        if state.passive.contains(&power) {
            return Err(violation(
                ViolationCode::PassivePower,
                DEFEAT,
                format!("{power} has gone passive and makes no agreements"),
            ));
        }
    }
    Ok(())
}

/// Units of `power` in a place that fight there (cargo at sea does not; AA guns and
/// complexes are taken with the land, not fought).
fn fighting_units(rules: Rules<'_>, state: &GameState, place: TerritoryId, power: Power) -> u32 {
    let sea = rules.board.get(place).sea;
    state.count_units(rules, place, power, |_, profile| {
        profile.is_combatant() && !(sea && profile.domain == Domain::Land)
    })
}

/// What war between `a` and `b` does at once, on the board as it stands.
pub(super) fn outbreak(rules: Rules<'_>, state: &GameState, a: Power, b: Power) -> Outbreak {
    let mut after = state.clone();
    let mut result = Outbreak::default();
    for (place, territory) in rules.board.territories() {
        if !territory.sea {
            continue;
        }
        for (guest, host) in [(a, b), (b, a)] {
            result
                .seized
                .extend(seize_at_sea(rules, &after, place, guest, host));
        }
        for seizure in result.seized.iter().filter(|s| s.zone == place) {
            apply_seizure(&mut after, seizure);
        }
    }
    for (place, territory) in rules.board.territories() {
        let (here_a, here_b) = (
            fighting_units(rules, &after, place, a),
            fighting_units(rules, &after, place, b),
        );
        if here_a > 0 && here_b > 0 {
            result.fronts.push(place);
            continue;
        }
        if territory.sea {
            continue;
        }
        let holder = after.holder[place.index()];
        for (held_by, other, theirs) in [(a, b, here_b), (b, a, here_a)] {
            if holder == Some(held_by) && theirs > 0 {
                result.fallen.push((place, other));
            }
        }
    }
    result
}

/// Troops of `guest` aboard `host`'s transports take them; fighters of `guest` on
/// `host`'s carriers are taken by `host`. Which unit rode on which ship is not recorded:
/// the guest's own ships are counted full first.
fn seize_at_sea(
    rules: Rules<'_>,
    state: &GameState,
    zone: TerritoryId,
    guest: Power,
    host: Power,
) -> Vec<Seizure> {
    let forces = &state.forces[zone.index()];
    let count = |owner: Power,
                 keep: &dyn Fn(&crate::units::UnitType) -> bool,
                 weight: &dyn Fn(&crate::units::UnitType) -> u32|
     -> u32 {
        forces
            .iter()
            .filter(|((o, unit, _), _)| *o == owner && keep(rules.catalogue.get(*unit)))
            .map(|((_, unit, _), n)| weight(rules.catalogue.get(*unit)) * n)
            .sum()
    };
    let transport = |p: &crate::units::UnitType| {
        p.domain == Domain::Sea && p.carries > 0 && !p.has(Ability::CarriesAircraft)
    };
    let carrier = |p: &crate::units::UnitType| p.has(Ability::CarriesAircraft);
    let mut seized = Vec::new();

    let cargo = count(guest, &|p| p.domain == Domain::Land, &|p| {
        u32::from(p.transport_space)
    });
    let own_space = count(guest, &transport, &|p| u32::from(p.carries));
    let aboard_host = cargo.saturating_sub(own_space);
    if aboard_host > 0 {
        for (&(owner, unit, _), &n) in forces.iter() {
            let profile = rules.catalogue.get(unit);
            if owner == host && transport(profile) {
                let needed = aboard_host.div_ceil(u32::from(profile.carries));
                seized.push(Seizure {
                    zone,
                    from: host,
                    to: guest,
                    unit,
                    count: needed.min(n),
                });
                break;
            }
        }
    }

    let fighters = count(guest, &|p| p.domain == Domain::Air, &|_| 1);
    let own_deck = count(guest, &carrier, &|p| u32::from(p.carries));
    let host_deck = count(host, &carrier, &|p| u32::from(p.carries));
    let on_host = fighters.saturating_sub(own_deck).min(host_deck);
    if on_host > 0 {
        if let Some(fighter) = rules.catalogue.fighter() {
            seized.push(Seizure {
                zone,
                from: guest,
                to: host,
                unit: fighter,
                count: on_host,
            });
        }
    }
    seized
}

fn apply_seizure(state: &mut GameState, seizure: &Seizure) {
    let forces = &mut state.forces[seizure.zone.index()];
    for (damage, n) in take_of_type(forces, seizure.from, seizure.unit, seizure.count) {
        *forces
            .entry((seizure.to, seizure.unit, damage))
            .or_default() += n;
    }
}

pub(super) fn apply_ended(rules: Rules<'_>, state: &mut GameState, ended: &AgreementEnded) {
    let (a, b) = ended.between;
    state.agreements.remove(&ended.between);
    state.offers.remove(&(a, b));
    state.offers.remove(&(b, a));
    state
        .permissions
        .retain(|(grantor, grantee, _)| partners(*grantor, *grantee) != ended.between);
    let outbreak = &ended.outbreak;
    for seizure in &outbreak.seized {
        apply_seizure(state, seizure);
    }
    for &(place, power) in &outbreak.fallen {
        super::capture::take_territory(rules, state, place, power);
    }
    for &place in &outbreak.fronts {
        state.fronts.insert((place, a, b));
    }
    open_fronts(state, rules);
}

/// Fronts between the power to move and a former partner become its battles, during its
/// combat movement (never in the first round).
pub(super) fn open_fronts(state: &mut GameState, rules: Rules<'_>) {
    if !state.combat_allowed(rules) || !matches!(state.phase, Phase::CombatMove | Phase::Battles) {
        return;
    }
    let power = state.power(rules.board);
    let opened: Vec<(TerritoryId, Power, Power)> = state
        .fronts
        .iter()
        .filter(|(_, a, b)| *a == power || *b == power)
        .copied()
        .collect();
    for front in opened {
        state.fronts.remove(&front);
        let (place, a, b) = front;
        let enemy = if a == power { b } else { a };
        state.contested.entry(place).or_default().insert(enemy);
    }
}

/// What taking `territory` from `previous` by `event` does to agreements: if it is
/// `previous`'s own capital, every agreement of `previous` is void (however it was taken:
/// a battle, a walk-in, guerrillas blending in).
pub(super) fn capital_taken(
    rules: Rules<'_>,
    state: &GameState,
    event: &GameEvent,
    territory: TerritoryId,
    previous: Option<Power>,
) -> Vec<GameEvent> {
    let place = rules.board.get(territory);
    match previous {
        Some(loser) if place.capital && place.original_owner == Some(loser) => {
            let mut after = state.clone();
            super::apply(rules, &mut after, event);
            voided_by_capital_loss(rules, &after, loser)
        }
        _ => Vec::new(),
    }
}

/// Agreements of a power whose capital has just been taken: all void, as wars.
pub(super) fn voided_by_capital_loss(
    rules: Rules<'_>,
    state: &GameState,
    loser: Power,
) -> Vec<GameEvent> {
    let mut after = state.clone();
    let mut events = Vec::new();
    let partnerships: Vec<(Power, Power)> = state
        .agreements
        .keys()
        .filter(|(a, b)| *a == loser || *b == loser)
        .copied()
        .collect();
    for between in partnerships {
        let other = if between.0 == loser {
            between.1
        } else {
            between.0
        };
        let ended = AgreementEnded {
            between,
            cause: AgreementEnd::CapitalTaken(loser),
            outbreak: outbreak(rules, &after, loser, other),
        };
        apply_ended(rules, &mut after, &ended);
        events.push(GameEvent::AgreementEnded(Box::new(ended)));
    }
    events
}

/// Pending offers, keyed by (from, to), with their terms.
pub type Offers = BTreeMap<(Power, Power), String>;

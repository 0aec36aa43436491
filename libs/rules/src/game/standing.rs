//! A defender's standing battle orders: what the game master follows in the battles
//! fought while the defender's player is away. They are the defender's secret: the log
//! keeps them sealed (a commitment and the orders encrypted under a key only the game's
//! seed gives, see `warlog_events::sealed`) and the battle that follows them reveals them.
//! Orders given during a turn take effect when that turn ends (IAAPA sub rule: "Defending
//! subs may withdraw only with orders sent before the attacker's turn"), so an attacker's
//! moves cannot be answered by new orders for the battles they start.
//!
//! Games created before the orders were sealed keep them in the open
//! (`StandingOrdersSet`), in force at once, as they were decided then.

pub(super) use super::standing_orders::Followed;
pub use super::standing_orders::{GivenOrders, SealedOrders, StandingOrders};
use super::{violation, GameEvent, GameState, Order, RuleViolation, Rules, ViolationCode};
use crate::board::{Power, TerritoryId};

/// The standing orders a battle followed, as its event records them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AppliedOrders {
    pub power: Power,
    /// The place they were given for; `None`: for all the power's battles.
    pub territory: Option<TerritoryId>,
    pub orders: StandingOrders,
    /// The round they were given in, and whose turn it was.
    pub given_round: u32,
    pub given_during: Power,
    /// The event that sealed them.
    pub sealed_at: u64,
}

impl GameState {
    /// `power`'s standing orders in force for a battle in `territory`: that place's, else
    /// those for all its battles; with the place they were given for.
    pub fn standing_orders_for(
        &self,
        power: Power,
        territory: TerritoryId,
    ) -> Option<(Option<TerritoryId>, &GivenOrders)> {
        [Some(territory), None]
            .into_iter()
            .find_map(|key| self.standing_orders.get(&(power, key)).map(|g| (key, g)))
    }
}

const PART_13: &str = "Part 13";

/// What can refuse standing orders, whatever the board: a place not on the board, a unit
/// named twice. Checked for every order of a command before any die (a refusal after one
/// would put the orders on the record in the open).
pub fn check(
    rules: Rules<'_>,
    territory: Option<TerritoryId>,
    orders: &StandingOrders,
) -> Result<(), RuleViolation> {
    check_place(rules, territory)?;
    let mut seen = Vec::new();
    for unit in &orders.order_of_loss {
        if seen.contains(unit) {
            return Err(violation(
                ViolationCode::OrderOfLossRepeats,
                PART_13,
                format!(
                    "the order of loss names {} twice",
                    rules.catalogue.get(*unit).code
                ),
            ));
        }
        seen.push(*unit);
    }
    super::sub_retreat::check(rules, orders)?;
    super::guerrillas::check_blend_in(rules, None, orders.blend_in)
}

fn check_place(rules: Rules<'_>, territory: Option<TerritoryId>) -> Result<(), RuleViolation> {
    if territory.is_some_and(|t| !rules.board.contains(t)) {
        return Err(violation(
            ViolationCode::UnknownPlace,
            PART_13,
            "standing orders name a place that is not on the board",
        ));
    }
    Ok(())
}

/// Checks a power's standing battle orders: any power, any time, as its player sends
/// them. The event gives them in the open; a game that seals them (`warlog_events`) seals
/// this event before it is recorded. Orders equal to the defaults clear what was set.
pub(super) fn decide(
    rules: Rules<'_>,
    by: Power,
    territory: Option<TerritoryId>,
    orders: &StandingOrders,
) -> Result<Vec<GameEvent>, RuleViolation> {
    check(rules, territory, orders)?;
    super::guerrillas::check_blend_in(rules, Some(by), orders.blend_in)?;
    Ok(vec![GameEvent::StandingOrdersSet {
        power: by,
        territory,
        orders: orders.clone(),
    }])
}

/// Standing orders as the record keeps them: sealed, or withheld (sent after an order
/// that cut the command off, never decided).
pub(super) fn decide_sealed(
    rules: Rules<'_>,
    by: Power,
    territory: Option<TerritoryId>,
    sealed: Option<&SealedOrders>,
) -> Result<Vec<GameEvent>, RuleViolation> {
    check_place(rules, territory)?;
    let Some(sealed) = sealed else {
        return Err(violation(
            ViolationCode::StandingOrdersSealed,
            PART_13,
            "withheld standing orders were never decided: send them as set_standing_orders",
        ));
    };
    Ok(vec![GameEvent::StandingOrdersSealed {
        power: by,
        territory,
        sealed: sealed.clone(),
    }])
}

/// Folds a standing-orders event into the state.
pub(super) fn apply(rules: Rules<'_>, state: &mut GameState, event: &GameEvent) {
    match event {
        GameEvent::StandingOrdersSet {
            power,
            territory,
            orders,
        } => {
            if *orders == StandingOrders::default() {
                state.standing_orders.remove(&(*power, *territory));
            } else {
                let given = GivenOrders {
                    orders: Some(orders.clone()),
                    sealed: None,
                    round: state.round,
                    during: state.power(rules.board),
                };
                state.standing_orders.insert((*power, *territory), given);
            }
        }
        GameEvent::StandingOrdersSealed {
            power,
            territory,
            sealed,
        } => {
            let given = GivenOrders {
                orders: None,
                sealed: Some(sealed.clone()),
                round: state.round,
                during: state.power(rules.board),
            };
            state
                .standing_orders_next
                .insert((*power, *territory), given);
        }
        GameEvent::StandingOrdersRevealed {
            power,
            territory,
            orders,
            ..
        } => {
            if let Some(given) = state.standing_orders.get_mut(&(*power, *territory)) {
                given.orders = Some(orders.clone());
            }
        }
        _ => {}
    }
}

/// The turn is over: the standing orders given during it take effect.
pub(super) fn turn_ended(state: &mut GameState) {
    let next = std::mem::take(&mut state.standing_orders_next);
    state.standing_orders.extend(next);
}

/// Sealed standing orders in force that a battle is about to follow: the power, the
/// place they were given for, and how the log keeps them. They must be revealed first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToReveal {
    pub power: Power,
    pub territory: Option<TerritoryId>,
    pub sealed: SealedOrders,
}

/// The sealed standing orders `order`, given by `power`, would follow and that are not
/// revealed yet: a battle's principal defender's.
pub fn to_reveal(
    rules: Rules<'_>,
    state: &GameState,
    power: Power,
    order: &Order,
) -> Option<ToReveal> {
    let Order::FightBattle(orders) = order else {
        return None;
    };
    if orders.bombing_raid || !state.contested.contains_key(&orders.territory) {
        return None;
    }
    let (_, defender) = super::defenders::defenders(rules, state, power, orders.territory);
    let defender = defender.filter(|d| fights_in(rules, state, *d, orders.territory))?;
    let (territory, given) = state.standing_orders_for(defender, orders.territory)?;
    match (&given.orders, &given.sealed) {
        (None, Some(sealed)) => Some(ToReveal {
            power: defender,
            territory,
            sealed: sealed.clone(),
        }),
        _ => None,
    }
}

/// Whether `power` has units that fight in `territory`: a holder with none there loses
/// nothing, and its sealed orders stay sealed.
fn fights_in(rules: Rules<'_>, state: &GameState, power: Power, territory: TerritoryId) -> bool {
    state.forces[territory.index()]
        .iter()
        .any(|((owner, unit, _), n)| {
            *owner == power && *n > 0 && rules.catalogue.get(*unit).is_combatant()
        })
}

/// The principal defender's standing orders for a battle in `territory`, known (revealed
/// or given in the open); an error if they are still sealed (the battle must reveal them
/// first).
pub(super) fn for_battle<'a>(
    rules: Rules<'_>,
    state: &'a GameState,
    defender: Option<Power>,
    territory: TerritoryId,
) -> Result<Option<Followed<'a>>, RuleViolation> {
    let Some((power, (key, given))) =
        defender.and_then(|d| state.standing_orders_for(d, territory).map(|g| (d, g)))
    else {
        return Ok(None);
    };
    // Sealed orders are followed (and revealed) only where the defender has units to lose.
    if given.sealed.is_some() && !fights_in(rules, state, power, territory) {
        return Ok(None);
    }
    match &given.orders {
        Some(orders) => Ok(Some(Followed {
            power,
            territory: key,
            given,
            orders,
        })),
        None => Err(violation(
            ViolationCode::StandingOrdersSealed,
            PART_13,
            format!(
                "{}'s standing orders for this battle are sealed: the battle reveals them first",
                power.name()
            ),
        )),
    }
}

/// The standing orders a battle followed, for its event: sealed ones only (orders given
/// in the open were on the record already, and the events of those games stay as they
/// were decided).
pub(super) fn applied(followed: Followed<'_>) -> Option<AppliedOrders> {
    followed.given.sealed.as_ref().map(|sealed| AppliedOrders {
        power: followed.power,
        territory: followed.territory,
        orders: followed.orders.clone(),
        given_round: followed.given.round,
        given_during: followed.given.during,
        sealed_at: sealed.sealed_at,
    })
}

/// The defender's standing orders the battle followed, as the listing's first line (empty
/// when it followed none, or orders given in the open that change nothing).
pub(super) fn listing_line(rules: Rules<'_>, followed: Option<Followed<'_>>, sea: bool) -> String {
    let Some(Followed {
        power,
        territory: key,
        given,
        orders: standing,
    }) = followed
    else {
        return String::new();
    };
    let mut parts = Vec::new();
    if !standing.order_of_loss.is_empty() {
        let codes: Vec<&str> = standing
            .order_of_loss
            .iter()
            .map(|u| rules.catalogue.get(*u).code.as_str())
            .collect();
        parts.push(format!("lose {} first", codes.join(", ")));
    }
    if standing.retreat_subs && sea {
        parts.push(super::sub_retreat::order_words(rules, standing));
    }
    if standing.submerge_subs && sea {
        parts.push("submarines submerge".to_owned());
    }
    if !standing.battleships_absorb {
        parts.push("battleships do not take the first hits".to_owned());
    }
    if let Some(when) = standing.blend_in {
        parts.push(super::guerrillas::blend_in_words(when));
    }
    let scope = if key.is_some() {
        "for this place"
    } else {
        "for all its battles"
    };
    if given.sealed.is_none() {
        if parts.is_empty() {
            return String::new();
        }
        return format!(
            "Defender's standing orders ({}, {scope}): {}\n",
            power.name(),
            parts.join("; ")
        );
    }
    if parts.is_empty() {
        parts.push("the default order of loss".to_owned());
    }
    format!(
        "Defender's standing orders ({}, {scope}, given in round {} on {}'s turn): {}\n",
        power.name(),
        given.round,
        given.during.name(),
        parts.join("; ")
    )
}

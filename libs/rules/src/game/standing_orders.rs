//! A defender's standing battle orders as data: what its player gives
//! ([`StandingOrders`]), how the log keeps them sealed ([`SealedOrders`]), the orders given
//! and in force ([`GivenOrders`]) and those a battle follows ([`Followed`]). Deciding,
//! folding, revealing and listing them is `standing` (which re-exports these: they are
//! `game::standing::StandingOrders` to other crates). The rooms the orders reach
//! (`sub_retreat`, `guerrillas`) read them from here, so `standing` may ask those rooms.

use crate::battle::RetreatOrder;
use crate::board::{Power, TerritoryId};
use crate::units::UnitTypeId;

/// A defender's standing battle orders, left with the game master for the battles fought
/// while its player is away (Part 13: "GMs should only do what players explicitly tell
/// them to do"; IAAPA sub rule: "Defending subs may withdraw only with orders sent before
/// the attacker's turn").
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StandingOrders {
    /// Unit types lost first, in this order; the rest by the default order of loss.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub order_of_loss: Vec<UnitTypeId>,
    /// Defending submarines submerge when attacked (Cut-Throat): they sit out round one.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub submerge_subs: bool,
    /// Multi-hit battleships take the first hits as damage ("unless orders say
    /// otherwise"): `false` loses other units first.
    #[serde(default = "absorb_by_default", skip_serializing_if = "is_true")]
    pub battleships_absorb: bool,
    /// Defending submarines retreat to a safe zone when attacked, before the first die
    /// (Cut-Throat, Sub movements): see `super::sub_retreat`. With no safe zone they stay,
    /// and submerge if `submerge_subs` says so.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub retreat_subs: bool,
    /// The zone they retreat to while it is safe; otherwise the first safe zone next door
    /// in the board's order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retreat_subs_to: Option<TerritoryId>,
    /// Guerrillas (AAP 3.1): stop firing and blend into the population, the battle ending
    /// with both sides in place: after round N (0: before the first die), or when N units
    /// or fewer are left. See `super::guerrillas`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blend_in: Option<RetreatOrder>,
}

fn absorb_by_default() -> bool {
    true
}

fn is_true(value: &bool) -> bool {
    *value
}

impl Default for StandingOrders {
    fn default() -> Self {
        StandingOrders {
            order_of_loss: Vec::new(),
            submerge_subs: false,
            battleships_absorb: true,
            retreat_subs: false,
            retreat_subs_to: None,
            blend_in: None,
        }
    }
}

/// Standing orders as the log keeps them until a battle follows them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct SealedOrders {
    /// SHA-256 of the salt and the orders' canonical bytes, hex: the reveal must match it.
    pub commitment: String,
    /// The orders, encrypted under a key the game's seed gives, hex: the server reads them
    /// for the battle; anyone may once the seed is revealed at the end.
    pub ciphertext: String,
    /// The stream version the orders were sealed at: with the seed, it gives the key and
    /// the salt.
    pub sealed_at: u64,
}

/// Standing orders given by a power: in force, or waiting for the turn to end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GivenOrders {
    /// The orders, once known: at once for orders given in the open, at the reveal for
    /// sealed ones.
    pub orders: Option<StandingOrders>,
    /// How the log keeps them (`None`: given in the open, before orders were sealed).
    pub sealed: Option<SealedOrders>,
    /// The round they were given in, and whose turn it was.
    pub round: u32,
    pub during: Power,
}

/// Standing orders a battle follows: whose, the place they were given for (`None`: all
/// the power's battles), when, and what they say.
#[derive(Debug, Clone, Copy)]
pub(super) struct Followed<'a> {
    pub power: Power,
    pub territory: Option<TerritoryId>,
    pub given: &'a GivenOrders,
    pub orders: &'a StandingOrders,
}

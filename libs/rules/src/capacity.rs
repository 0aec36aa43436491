//! Enhanced Realism, Section VII: industrial capacity (the scenarios' multipliers and income
//! are [`crate::scenario`])
//! (R. D. Baker, 1998; `seeds/enhanced-realism-industrial-capacity.txt`).
//!
//! - Industrial capacity, per unit type (infantry; artillery and armour; aircraft; naval), in
//!   IPC per turn: the territory's value times the multiplier (a captured complex: the
//!   printed value only), plus one per expansion. Expansions cost 10 IPC, one per complex
//!   per turn, at most the territory's value.
//! - A capital may build one air unit and one naval unit per turn beyond its capacity.
//!   The seed's own examples (Moscow with a bomber "could build no other air units"; Japan
//!   at 16 builds one fighter, not two) show what that means: a single unit of the type may
//!   cost more than the capacity, but never on top of others of its type.
//! - Australia may always build at least one infantry.

use crate::violation::{RuleViolation, ViolationCode};

/// The rule every refusal here cites.
pub const CAPACITY_RULE: &str = "Enhanced Realism, VII. Industrial capacity & unit types";
const EXPANSION_RULE: &str = "Enhanced Realism, VII. Expanding industrial capacity";

/// IPC per expansion.
pub const EXPANSION_COST: u32 = 10;

/// The seed's four unit types, each with its own capacity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum UnitClass {
    Infantry,
    ArtilleryAndArmour,
    Aircraft,
    Naval,
}

impl UnitClass {
    pub fn name(self) -> &'static str {
        match self {
            UnitClass::Infantry => "infantry",
            UnitClass::ArtilleryAndArmour => "artillery and armour",
            UnitClass::Aircraft => "aircraft",
            UnitClass::Naval => "naval units",
        }
    }
}

/// An industrial complex as capacity sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Complex {
    pub territory: String,
    /// The territory's printed value.
    pub value: u32,
    /// Held by someone other than its original owner: the multiplier does not apply.
    pub captured: bool,
    /// Expansions bought so far (at most `value`).
    pub expansions: u32,
    /// The builder's capital: one air and one naval unit may exceed the capacity.
    pub capital: bool,
    /// Australia: at least one infantry, whatever the capacity.
    pub australia: bool,
}

impl Complex {
    /// IPC of each unit type this complex may place in a turn.
    pub fn capacity(&self, multiplier: u32) -> u32 {
        let base = if self.captured {
            self.value
        } else {
            self.value * multiplier
        };
        base + self.expansions
    }

    /// Whether one more expansion may be bought this turn (`bought_this_turn`: already one).
    pub fn expand(&self, bought_this_turn: bool) -> Result<Complex, RuleViolation> {
        if bought_this_turn {
            return Err(RuleViolation {
                code: ViolationCode::ExpansionLimit,
                rule: EXPANSION_RULE,
                message: format!(
                    "{} has had its expansion this turn: one per complex per turn",
                    self.territory
                ),
            });
        }
        if self.expansions >= self.value {
            return Err(RuleViolation {
                code: ViolationCode::ExpansionLimit,
                rule: EXPANSION_RULE,
                message: format!(
                    "{} is fully expanded: at most its value, {}, expansions",
                    self.territory, self.value
                ),
            });
        }
        Ok(Complex {
            expansions: self.expansions + 1,
            ..self.clone()
        })
    }

    /// Checks a turn's placements at this complex: (unit class, unit cost, how many).
    pub fn check(
        &self,
        multiplier: u32,
        placements: &[(UnitClass, u32, u32)],
    ) -> Result<(), RuleViolation> {
        let capacity = self.capacity(multiplier);
        for class in [
            UnitClass::Infantry,
            UnitClass::ArtilleryAndArmour,
            UnitClass::Aircraft,
            UnitClass::Naval,
        ] {
            let (spent, units) = placements
                .iter()
                .filter(|(c, _, _)| *c == class)
                .fold((0, 0), |(spent, units), (_, cost, n)| {
                    (spent + cost * n, units + n)
                });
            if spent <= capacity {
                continue;
            }
            let capital_exception = self.capital
                && units == 1
                && matches!(class, UnitClass::Aircraft | UnitClass::Naval);
            let australia_exception = self.australia && class == UnitClass::Infantry && units == 1;
            if capital_exception || australia_exception {
                continue;
            }
            return Err(RuleViolation {
                code: ViolationCode::BeyondCapacity,
                rule: CAPACITY_RULE,
                message: format!(
                    "{} may place {capacity} IPC of {} a turn; these are {spent}",
                    self.territory,
                    class.name()
                ),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;

//! An independent oracle for the exact odds (issue 37): the same battles worked out another
//! way, written from the rules (docs/rule-facts.md, Part 13) and the catalogue's
//! profiles, sharing nothing with the engine's steps (`fight.rs`, `casualties.rs`) or the
//! odds' chain (`odds.rs`) but the plain types (units, battles, outcomes).
//!
//! Where the chain walks states forward, most hit points first, with the engine's own
//! casualty rules on armies as counts, the oracle works backwards: the value of a state is
//! the distribution of the battle's ends from it, worked out recursively and remembered,
//! each side a sorted list of single units, each die thrown on its own, each hit placed
//! unit by unit. It is slow, and meant for small battles only.
//!
//! What it covers (the property test draws nothing else): land and sea battles of the
//! built-in rulesets, damaged defending ships, the combat orders, explicit orders of loss,
//! retreat orders, battleships absorbing or not, submerging and attacking submarines, AA
//! guns, support shots, technologies, IAAPA's defaults (SAAC from round 2, the defender's
//! hits column by column), aircraft that cannot retreat, and attackers with nowhere to
//! withdraw to. Not covered: kamikaze runs, heavy-weapons vulnerability, marines that came
//! ashore, guerrillas blending in, and units of more than two hit points.

#[cfg(test)]
mod compare;
mod losses;
mod reading;
mod round;
mod solve;

pub(crate) use solve::exact_odds;

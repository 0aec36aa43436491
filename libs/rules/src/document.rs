//! Rulesets as data: the one documented, versioned format (`format: 1`) that the built-in
//! rulesets and every uploaded one share. A document names its units, board, setup, turn
//! order, income and production rules, dice tables, victory and scoring, and the options a
//! game may be created with.
//!
//! [`RulesetDocument::parse`] reads an upload and reports every problem it finds, each with
//! its place in the document as a JSON Pointer (RFC 6901), not just the first: one broken
//! unit does not hide a broken connection. A document's [`hash`](RulesetDocument::hash)
//! is what a game records, so a later revision never changes an old game.

use std::collections::{BTreeMap, BTreeSet};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::board::{normalise, BoardDocument, Power, TerritoryKind};
use crate::scenario::Scenario;
use crate::setup::PlaceDocument;
use crate::units::{Ability, Domain, UnitDocument};

mod check;
mod parse;
mod schema;

use parse::*;
pub use schema::*;

impl RulesetDocument {
    /// Checks a document built in code (a built-in, or one with options applied).
    pub fn validate(&self) -> Result<(), Vec<DocumentProblem>> {
        let value = serde_json::to_value(self).map_err(|e| vec![problem("", e.to_string())])?;
        Self::parse(&value).map(drop)
    }

    /// SHA-256 of the document's canonical encoding ([`crate::canonical`]: keys sorted,
    /// numbers as `jsonb` keeps them), hex: what a game created now records. The same
    /// document hashes the same however its JSON was written or stored.
    pub fn hash(&self) -> String {
        let value = serde_json::to_value(self).unwrap_or_default();
        hex::encode(Sha256::digest(crate::canonical::to_canonical_bytes(&value)))
    }

    /// SHA-256 of the document's JSON in its fields' declared order: what games recorded
    /// before hashes were canonical. Kept so that those hashes still verify.
    pub fn legacy_hash(&self) -> String {
        let bytes = serde_json::to_vec(self).unwrap_or_default();
        hex::encode(Sha256::digest(bytes))
    }

    /// Whether `hash` is this document's, canonical or legacy.
    pub fn answers_to(&self, hash: &str) -> bool {
        self.hash() == hash || self.legacy_hash() == hash
    }

    /// The document a game with `options` plays: the options applied, each checked
    /// against those the ruleset offers.
    pub fn with_options(
        &self,
        options: &GameOptions,
    ) -> Result<RulesetDocument, Vec<DocumentProblem>> {
        let mut problems = Vec::new();
        let mut document = self.clone();
        let offered = |option: GameOption| self.options.contains(&option);
        if let Some(er) = options.enhanced_realism {
            if offered(GameOption::EnhancedRealism) {
                document.income = IncomeRule::ScenarioMultipliers {
                    scenario: er.scenario,
                    usa_phased_in: er.usa_phased_in,
                };
                document.production = ProductionRule::IndustrialCapacity;
                document
                    .options
                    .retain(|o| *o != GameOption::EnhancedRealism);
                // Enhanced Realism, II: artillery, 4 IPC, 2/2, lifting one infantry each.
                if !document
                    .units
                    .values()
                    .any(|u| u.abilities.contains(&Ability::SupportsInfantry))
                {
                    document.units.insert(
                        "ART".to_owned(),
                        UnitDocument {
                            name: "artillery".to_owned(),
                            cost: 4,
                            attack: 2,
                            defense: 2,
                            movement: 1,
                            hit_points: 1,
                            damaged_defense: None,
                            domain: Domain::Land,
                            transport_space: 2,
                            carries: 0,
                            abilities: vec![Ability::SupportsInfantry],
                        },
                    );
                }
            } else {
                problems.push(not_offered(self, GameOption::EnhancedRealism));
            }
        }
        if options.alternate_turn_order {
            if offered(GameOption::AlternateTurnOrder) {
                document.turn_order = ALTERNATE_TURN_ORDER.to_vec();
                document
                    .options
                    .retain(|o| *o != GameOption::AlternateTurnOrder);
            } else {
                problems.push(not_offered(self, GameOption::AlternateTurnOrder));
            }
        }
        if let Some(bid) = options.survive_to_round {
            match &mut document.victory {
                VictoryRule::SurviveToRound { round, .. } if bid > 0 => *round = bid,
                VictoryRule::SurviveToRound { .. } => problems.push(problem(
                    "/options/survive_to_round",
                    "a bid of 1 turn or more",
                )),
                VictoryRule::DirectorEnds => problems.push(problem(
                    "/options/survive_to_round",
                    format!("{} has no survival victory to bid on", self.id),
                )),
            }
        }
        if problems.is_empty() {
            Ok(document)
        } else {
            Err(problems)
        }
    }
}

fn not_offered(document: &RulesetDocument, option: GameOption) -> DocumentProblem {
    let offered: Vec<&str> = document.options.iter().map(|o| o.as_str()).collect();
    problem(
        format!("/options/{}", option.as_str()),
        format!(
            "{} offers no option {}; it offers: {}",
            document.id,
            option.as_str(),
            if offered.is_empty() {
                "none".to_owned()
            } else {
                offered.join(", ")
            }
        ),
    )
}

#[cfg(test)]
mod tests;
